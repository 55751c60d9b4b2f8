"""Tests of runtime/: the one argument check, dispatch, the tool lists and selections, the
instructions, resources and the wire, each served by a server built in this process."""
