"""``--help``: one screen (``SCREEN_LINES``) that names the options a user starts with,
``doctor``, and where the rest is: ``--help-all`` and the docs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

SCREEN_LINES = 24
"""The lines of a terminal's first screen: --help fits in them."""


def screen(profiles: Sequence[str], default: str, transports: Sequence[str]) -> str:
    """The text of ``--help``."""
    return f"""\
usage: tmux-contract-mcp [--profile {{{",".join(profiles)}}}] [--ssh [USER@]HOST[:PORT]]
                         [--http [HOST:]PORT] [--list-tools] [--help-all]
       tmux-contract-mcp doctor [--profile P] [--ssh [USER@]HOST[:PORT]]

A schema-first MCP server for tmux. An MCP client starts it and talks over stdio;
with --http it serves Streamable HTTP instead.

options:
  --profile NAME         contract family: {", ".join(profiles)} (default {default})
  --transport {{{",".join(transports)}}}
                         how tmux is reached (default {transports[0]})
  --ssh [USER@]HOST[:PORT]
                         run tmux on HOST through one multiplexed ssh connection
  --http [HOST:]PORT     serve MCP over Streamable HTTP at /mcp (bearer token)
  --list-tools           print the profile's tools and exit
  --version              print the version and exit
  --help-all             every option and environment variable, and exit

doctor: checks tmux, the socket, the toolsets, the ssh target and the PATH a
desktop client sees, one line each; exit status 0 only when all pass.

Docs: docs/configuration.md (every setting), docs/troubleshooting.md, and the
README's "Read more", in the source tree.
"""


class ShortHelp(argparse.Action):
    """``-h``/``--help``: print ``text`` and exit 0, as argparse's own help does."""

    def __init__(self, option_strings: Sequence[str], dest: str, text: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)
        self.text = text

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        sys.stdout.write(self.text)
        parser.exit()
