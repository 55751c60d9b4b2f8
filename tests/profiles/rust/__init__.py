"""The rust profile's tools, against real tmux."""
