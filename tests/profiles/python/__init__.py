"""The python profile's tools, resources and prompts, against real tmux."""
