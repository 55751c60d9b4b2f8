"""The tmux core shared by every profile: transport, sockets, formats, targets, identity."""
