"""A schema-first MCP server for tmux."""

__version__ = "0.1.0"
