"""The tmux core every profile shares, in three layers, each a package.

- ``transport``: how a command reaches a tmux server and how its events come back
  (sockets, the control-mode client, one process per command, ssh, quoting).
- ``policy``: what this MCP server may do to a tmux server, decided before it acts
  (the self-protection guard, the input ledger, the caller's pane, wait bounds).
- ``objects``: tmux's server, sessions, windows, panes and paste buffers as objects
  whose methods are named after the tmux commands they run.

Dependencies point one way: profiles call objects, objects ask the policy and run
commands through the transport, and the transport imports nothing above it.
``errors`` holds every error of the core, for all three
(``tests/test_handler_dependencies.py`` keeps the direction).
"""
