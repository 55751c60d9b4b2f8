"""What the scripts and the tests both drive: a private tmux server and a real MCP client.

It lives here, not under tests/, so the dependencies point one way: tests use scripts,
scripts use the package, and nothing under scripts/ imports a test module.
"""
