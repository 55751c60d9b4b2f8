"""Fake agents for the agents tool set's tests: small Python programs run in panes.

Each is a program's source, run as ``python3 -c SOURCE ARG...`` as a pane's own
program (``agent_pane``). They stand in for coding agents: one prints in bursts and
then goes quiet, one is a raw-mode reader that turns bracketed paste on and records
every byte it receives, one prompts like a REPL and answers after a while.
"""

from __future__ import annotations

import sys
from pathlib import Path

from scripts.lab.sentlog import Mark
from scripts.lab.tmuxserver import TmuxServer
from tests.helpers.tmux import screen_lines
from tests.helpers.waiting import eventually

# Prints a line every 50 ms for BURST lines, pauses GAP seconds, BURSTS times; then
# "bursts done" and silence. argv: bursts, lines per burst, gap seconds.
BURSTS = """
import sys, time
bursts, lines, gap = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
print("ready", flush=True)
time.sleep(0.5)
for b in range(1, bursts + 1):
    for n in range(lines):
        print(f"burst {b} line {n}", flush=True)
        time.sleep(0.05)
    if b < bursts:
        time.sleep(gap)
print("bursts done", flush=True)
time.sleep(3600)
"""

# A raw-mode reader: turns bracketed paste on, writes every byte it reads to argv[1],
# and after the Nth carriage return (argv[2], 1 unless given) prints "took: ..." and
# its prompt again; earlier carriage returns it swallows, printing nothing.
RECORDER = """
import os, sys, termios, tty
record, swallow = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
tty.setraw(0)
os.write(1, b"\\x1b[?2004h> ")
returns = 0
while True:
    data = os.read(0, 4096)
    with open(record, "ab") as f:
        f.write(data)
    returns += data.count(b"\\r")
    if returns >= swallow and b"\\r" in data:
        os.write(1, b"\\r\\ntook: " + str(len(data)).encode() + b"\\r\\n> ")
        returns = 0
"""

# A REPL: prompts "> ", and for each line prints "working", then, after argv[1]
# seconds, the line with "ping" turned into "pong".
REPL = """
import sys, time
delay = float(sys.argv[1])
while True:
    line = input("> ")
    print("working", flush=True)
    time.sleep(delay)
    print(line.replace("ping", "pong"), flush=True)
"""

# Prints a line every argv[1] seconds for ever.
CHATTY = """
import sys, time
n = 0
while True:
    n += 1
    print(f"tick {n}", flush=True)
    time.sleep(float(sys.argv[1]))
"""

# Prints each argument on a line, then stays silent.
SAYS = """
import sys, time
for line in sys.argv[1:]:
    print(line, flush=True)
time.sleep(3600)
"""


def agent_command(source: str, *args: str) -> list[str]:
    return [sys.executable, "-c", source, *args]


async def agent_pane(
    server: TmuxServer, source: str, *args: str, shows: str = ""
) -> tuple[str, str]:
    """A new session whose pane runs the fake agent ``source``: (session name, pane id),
    once its screen shows ``shows`` (when given)."""
    made = server.new_session(None, *agent_command(source, *args))
    if shows:
        await eventually(
            lambda: any(shows in line for line in screen_lines(server, made.pane)), repr(shows)
        )
    return made.name, made.pane


def commands_sent(server: TmuxServer, mark: Mark, name: str) -> int:
    """How many tmux commands called ``name`` the servers under test sent since ``mark``."""
    return sum(1 for sent in server.sent_since(mark) if any(name in w for w in sent.arguments))


def recorded(path: Path) -> bytes:
    return path.read_bytes() if path.exists() else b""


async def dead_agent_pane(server: TmuxServer) -> str:
    """A pane of a new session, dead under remain-on-exit: its program exited."""
    made = server.new_session(None, *agent_command(SAYS, "about to go"))
    server.tmux("set-option", "-w", "-t", made.pane, "remain-on-exit", "on")
    server.tmux("respawn-pane", "-k", "-t", made.pane, "exit 3")
    dead = "#{pane_dead}"
    await eventually(
        lambda: server.tmux("display-message", "-p", "-t", made.pane, dead).strip() == "1", "dead"
    )
    return made.pane
