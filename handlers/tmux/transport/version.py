"""Which tmux the server will run, and whether it is new enough.

The control client's flags (``attach-session -f ignore-size,no-output``), the
pane filter of ``list-panes -f`` and ``tmux -N`` (never start a server) all
arrived in tmux 3.2, so an older tmux would fail later on some call with an
error that names none of this. The version is read once, when the server
starts, and a tmux that is too old is named in one line instead.
"""

from __future__ import annotations

import contextlib
import logging
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import TmuxError
from .sockets import default_socket, tmux_binary
from .ssh import CONNECT_TIMEOUT, SSH_FAILED, remote_for, tmux_command

log = logging.getLogger(__name__)

MINIMUM = (3, 2)
MINIMUM_TEXT = "3.2"
PROBE_TIMEOUT = 5.0

# "tmux 3.3a", "tmux 3.4-rc", "tmux next-3.6" (a build between releases): the first two numbers.
_RELEASE = re.compile(r"^tmux (?:next-)?(\d+)\.(\d+)\S*$")
# A build from the development branch is newer than every release.
_DEVELOPMENT = re.compile(r"^tmux master$")


@dataclass(frozen=True, slots=True)
class TmuxVersion:
    """What ``tmux -V`` printed, and the release it stands for (None: newer than any)."""

    text: str
    release: tuple[int, int] | None

    @property
    def supported(self) -> bool:
        return self.release is None or self.release >= MINIMUM


def parse_version(output: str) -> TmuxVersion | None:
    """The version in ``tmux -V``'s output, or None when it is not tmux's wording."""
    line = output.strip()
    if _DEVELOPMENT.match(line):
        return TmuxVersion(line.removeprefix("tmux "), None)
    found = _RELEASE.match(line)
    if found is None:
        return None
    return TmuxVersion(line.removeprefix("tmux "), (int(found[1]), int(found[2])))


@dataclass(frozen=True, slots=True)
class VersionCheck:
    """The outcome: ``refusal`` stops every call; ``warning`` is only said once."""

    version: TmuxVersion | None
    refusal: str | None = None
    warning: str | None = None

    @property
    def line(self) -> str | None:
        return self.refusal or self.warning


def check_tmux(environ: Mapping[str, str]) -> VersionCheck:
    """Run ``tmux -V`` with the binary and environment the server will use.

    A tmux older than ``MINIMUM`` is refused. A binary that cannot be run, or
    whose answer is not a tmux version, is only warned about: the first call
    that needs tmux reports a missing binary anyway (and works once it is
    installed), and a wrapper script may not pass ``-V`` through.
    """
    binary = tmux_binary(environ)
    env = {name: value for name, value in environ.items() if name != "TMUX"}
    argv = [binary, "-V"]
    # Name the socket, as every other invocation does. A malformed LIBTMUX_SOCKET is
    # left for the first call that uses it to report.
    with contextlib.suppress(TmuxError):
        argv = [binary, "-S", default_socket(environ).path, "-V"]
    remote = remote_for(environ)
    # Over ssh the probe also makes the connection: ssh gives up on the host first, so a
    # host that does not answer is reported in ssh's words rather than as a slow tmux.
    timeout = PROBE_TIMEOUT + (CONNECT_TIMEOUT if remote is not None else 0)
    try:
        done = subprocess.run(
            tmux_command(argv, env),
            capture_output=True,
            text=True,
            errors="replace",
            env=env,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )
    except OSError as exc:
        return VersionCheck(
            None,
            warning=(
                f"the tmux binary {binary!r} cannot be run ({exc.strerror or exc}); "
                f"install tmux {MINIMUM_TEXT} or newer, or set LIBTMUX_TMUX_BIN to one"
            ),
        )
    except subprocess.TimeoutExpired:
        where = f" on {remote.target}" if remote is not None else ""
        return VersionCheck(
            None, warning=f"'{binary} -V'{where} did not answer within {timeout:g}s"
        )
    if remote is not None and done.returncode == SSH_FAILED:
        return VersionCheck(None, warning=remote.failure(done.stderr))
    version = parse_version(done.stdout)
    if version is None:
        answer = (done.stdout.strip() or done.stderr.strip() or "nothing")[:80]
        return VersionCheck(
            None,
            warning=(
                f"cannot tell which tmux {binary!r} is ('-V' answered {answer!r}); "
                f"this server needs tmux {MINIMUM_TEXT} or newer"
            ),
        )
    if not version.supported:
        where = f" on {remote.target}" if remote is not None else ""
        return VersionCheck(
            version,
            refusal=(
                f"tmux {version.text} ({binary!r}{where}) is older than {MINIMUM_TEXT}, the oldest "
                "tmux this server supports; install a newer tmux or set LIBTMUX_TMUX_BIN "
                "to one, then restart the server"
            ),
        )
    return VersionCheck(version)


def refusal_at_startup(environ: Mapping[str, str]) -> str | None:
    """Check once, say any problem on stderr, and return what every call must answer."""
    result = check_tmux(environ)
    if result.line is not None:
        log.warning("%s", result.line)
    return result.refusal


def main() -> int:
    """``python -m tmux_contract_mcp.handlers.tmux.transport.version``: the set-up's check."""
    import os

    result = check_tmux(os.environ)
    if result.line is not None:
        print(result.line, file=sys.stderr)
        return 1
    assert result.version is not None
    print(f"tmux {result.version.text}: supported (tmux {MINIMUM_TEXT} or newer is needed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
