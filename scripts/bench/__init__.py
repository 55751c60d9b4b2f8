"""Latency of this server against libtmux-mcp, both driven by the real MCP client.

Run with ``make bench`` (``python -m scripts.bench``). Every server talks stdio to
the SDK's ClientSession and reaches the same private tmux server (own
TMUX_TMPDIR, own socket, killed at the end). Columns are measured in turn inside
each iteration, in an order that changes every iteration, so machine noise and
order effects land on all of them alike. The peer (libtmux-mcp from PyPI) is
installed into its own venv under build/bench on first use.
"""
