"""Latency of this server, in every profile, against libtmux-mcp, each timed over raw JSON-RPC.

Run with ``make bench`` (``python -m scripts.bench``). Every server talks newline-delimited
JSON-RPC over stdio to a minimal client (``rpc``: write a line, read the line that answers
it; no client library's own work in the samples); ours served over Streamable HTTP (the
``ours/http`` column, on a few rows) gets the same from a raw HTTP client (``httprpc``: one
POST per call). All reach the same private tmux server (own TMUX_TMPDIR, own socket, killed
at the end). Three groups: per call (one small window), scale (the server grown to 10, 50
and 200 panes), start and memory; the per-call table ends with ``live`` (print →
notifications/resources/updated, heard by the SDK's client). Within a row every server takes
its turn each iteration, in an order that changes every iteration, so machine noise and
order effects land on all of them alike. The peer (libtmux-mcp from PyPI) is
installed into its own venv under build/bench on first use.
"""
