"""What test modules share besides the plugin's fixtures (tests/plugin.py): a module here
per subject, and no test module defines its own copy of a name found here
(tests/test_suite_layout.py). A test module never imports another test module.

- ``tmux``: what a test does or reads on a lab tmux server by itself (``tag``, ``type_line``,
  ``wait_for``, ``printed``...);
- ``waiting``: ``eventually`` and the waits built on it;
- ``processes``: the stdio server's process, tmux processes, ``wait-for`` waiters;
- ``wire`` and ``jsonrpc``: JSON-RPC as bytes on pipes, and a server inside a tmux pane;
- ``family``: what the libtmux family's profile tests (rust, swift) share;
- ``batch``: the swift batch's answers, long pane histories;
- ``contracts``, ``corpus``, ``readme``, ``ssh``: the contracts, the instance corpus, the
  README, an unlogged remote reach through the lab sshd.
"""
