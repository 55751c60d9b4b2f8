"""Tests of scripts/: the lab (the log of what is sent to tmux), bench, soak, setup, lock."""
