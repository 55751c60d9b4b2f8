"""Keys reach a pane's program, or nothing is sent: the guard every typing ``send-keys`` runs in.

Why. ``send-keys`` into a pane in a mode (copy mode, view mode, a chooser) does not
reach the program: tmux looks each key up in the mode's key table and runs the binding
it finds, for a client, and some bindings open a prompt that waits for an answer
(copy-mode-vi binds the digits to ``command-prompt``, which 3.3a makes wait). Over the
control client the prompt is the control client's own: tmux runs that client's
commands one after another, so every later reply, errors included, waits behind a
prompt nobody can answer, and each call after it times out ("tmux did not answer within
10s"). Over a process of its own (``process``, ``--ssh``), tmux opens the prompt on
whatever client is attached to the session (this server's control client, or a
person's terminal) and the process waits for it until its timeout. Without a client,
it fails with "no current client". Whatever happens, keys meant for a program went
to the mode.

So every transport runs a ``send-keys`` that types keys (neither ``-X``, a mode's own
command, nor ``-R`` alone) as ``guarded``: ``if-shell -F`` reads the pane's mode and types
only when it is in none, in the same command (``conditional``), else prints a report
row starting with ``MARK``; ``refused`` turns that row into ``InAMode`` at once. The
objects layer types through a wider guard of its own (a dead pane, input off, the
synchronized panes: ``objects.blocked``), which reads its report itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InAMode
from .conditional import if_format
from .formats import SEP

MARK = "tcm-blocked"
"""The first field of a guard's report row: the keys were not typed."""
IN_A_MODE = "#{?pane_in_mode,1,}"
"""Non-empty (true for ``if-shell -F``) while the pane is in a mode."""
_REPORT = MARK + SEP + "#{pane_id}" + SEP + "#{pane_mode}"

# send-keys flags that take a value (3.3a: -N count, -t target; 3.4 adds -c client).
_VALUED = "cNt"


def types_keys(args: Sequence[str]) -> bool:
    """Whether ``args`` is a ``send-keys`` that types keys into its pane."""
    if not args or args[0] not in ("send-keys", "send"):
        return False
    flags, keys = _split(args)
    return "X" not in flags and bool(keys)


def _split(args: Sequence[str]) -> tuple[dict[str, str], Sequence[str]]:
    """``send-keys``'s flags (letter -> value, "" for none) and the keys after them."""
    flags: dict[str, str] = {}
    at = 1
    while at < len(args):
        word = args[at]
        if word == "--":
            at += 1
            break
        if not word.startswith("-") or word == "-":
            break
        at += 1
        for place, letter in enumerate(word[1:], start=1):
            if letter in _VALUED:
                rest = word[place + 1 :]
                if rest:
                    flags[letter] = rest
                else:
                    flags[letter] = args[at] if at < len(args) else ""
                    at += 1
                break
            flags[letter] = ""
    return flags, args[at:]


def guarded(
    target: str | None,
    commands: Sequence[Sequence[str]],
    *,
    condition: str = IN_A_MODE,
    report: Sequence[str] | None = None,
) -> tuple[str, ...]:
    """One command typing ``commands`` into ``target`` (None: tmux's current pane) only while
    ``condition`` (a format of ours) reads false there; else ``report`` runs, whose output
    rows start with ``MARK`` (by default the pane's id and mode)."""
    shown = report or ("display-message", "-p", *(("-t", target) if target else ()), _REPORT)
    return if_format(target, condition, [shown], commands)


def wrap(args: Sequence[str]) -> tuple[str, ...] | None:
    """``args`` inside the mode guard, when it is a ``send-keys`` that types keys; else None."""
    if not types_keys(args):
        return None
    flags, _ = _split(args)
    return guarded(flags.get("t") or None, [args])


def refused(args: Sequence[str], lines: Sequence[str], socket_label: str) -> list[str]:
    """``lines``, the output of ``wrap(args)``; ``InAMode`` when the guard's report says the
    keys were not typed."""
    if not lines or not lines[0].startswith(MARK + SEP):
        return list(lines)
    fields = lines[0].split(SEP)
    pane, mode = [*fields, "", ""][1:3]
    raise InAMode(tuple(args), pane, mode, socket_label)
