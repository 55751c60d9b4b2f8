"""The swift profile's tools and its capabilities resource, against real tmux."""
