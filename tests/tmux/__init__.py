"""Tests of handlers/tmux/, the core every profile shares: the transport (control client,
quoting, sockets, ssh), the policy (caller, ledger) and the objects."""
