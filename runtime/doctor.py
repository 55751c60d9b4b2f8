"""``tmux-contract-mcp doctor``: what a start would meet, one line per check.

Each check is a small function from the setting to one ``Finding``; ``CHECKS`` runs them in
order, so a new one is one function and one line there. The exit status is 0 only when
every check passes. Nothing here starts a tmux server or changes one: tmux is asked
``-V`` and ``list-sessions`` only.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from . import config
from .handlers.tmux.errors import TmuxError
from .handlers.tmux.transport.sockets import (
    Socket,
    default_socket,
    process_environ,
    tmux_args,
    tmux_binary,
)
from .handlers.tmux.transport.ssh import (
    CONNECT_TIMEOUT,
    SSH_ENV,
    BadSshTarget,
    close_all,
    parse_target,
    tmux_invocation,
)
from .handlers.tmux.transport.version import MINIMUM_TEXT, PROBE_TIMEOUT, check_tmux
from .profiles import DEFAULT_PROFILE, PROFILES, load_profile
from .toolsets import ToolsetConfigError, chosen

COMMAND = "tmux-contract-mcp"
PROFILE_ENV = "TMUX_CONTRACT_MCP_PROFILE"
LINUX_DESKTOP_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
"""systemd's PATH for a user's services and the apps a desktop session starts."""
MACOS_DESKTOP_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"
"""launchd's PATH for an app started from the Finder or the Dock."""


@dataclass(frozen=True, slots=True)
class Setting:
    """What the checks look at: the profile, the environment a start would read (``--ssh``
    put in it), and the PATH a desktop client starts commands with (and where it is from)."""

    profile: str
    environ: Mapping[str, str]
    desktop_path: str
    desktop_source: str


@dataclass(frozen=True, slots=True)
class Finding:
    name: str
    ok: bool
    text: str

    def __str__(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'}  {self.name}: {self.text}"


def check_tmux_binary(setting: Setting) -> Finding:
    """The tmux binary and its version (with ``--ssh``: the ssh line checks the remote's)."""
    if setting.environ.get(SSH_ENV):
        return Finding("tmux", True, "runs on the ssh host: see the ssh line")
    binary = tmux_binary(setting.environ)
    found = shutil.which(binary, path=setting.environ.get("PATH", os.defpath))
    if found is None:
        return Finding(
            "tmux",
            False,
            f"no tmux binary {binary!r} on PATH; install tmux {MINIMUM_TEXT} or newer, "
            "or set LIBTMUX_TMUX_BIN to one",
        )
    result = check_tmux(setting.environ)
    if result.version is None or result.refusal is not None:
        return Finding("tmux", False, result.line or f"{found} did not say its version")
    return Finding("tmux", True, f"tmux {result.version.text} ({found})")


def served_socket(setting: Setting) -> tuple[Socket, bool]:
    """The socket a start would serve, and whether the profile starts a server there itself
    when none runs (a profile's handlers say so with ``served_socket``; else it does not)."""
    module = importlib.import_module(f"{__package__}.handlers.{setting.profile}")
    chooser: Callable[[Mapping[str, str]], tuple[Socket, bool]] | None = getattr(
        module, "served_socket", None
    )
    if chooser is not None:
        return chooser(setting.environ)
    return default_socket(setting.environ), False


def check_socket(setting: Setting) -> Finding:
    """The socket it would use, and whether a tmux server runs there."""
    try:
        socket, starts_own = served_socket(setting)
        head = [tmux_binary(setting.environ), *tmux_args(socket)]
        argv, given = tmux_invocation(
            head, ["list-sessions", "-F", "#{session_id}"], setting.environ
        )
        done = subprocess.run(
            argv,
            input=given,
            capture_output=True,
            env=process_environ(setting.environ),
            timeout=PROBE_TIMEOUT + CONNECT_TIMEOUT,
            check=False,
        )
    except (TmuxError, BadSshTarget, OSError, subprocess.TimeoutExpired) as exc:
        return Finding("socket", False, f"cannot ask tmux which server runs: {exc}")
    if done.returncode == 0:
        sessions = len(done.stdout.splitlines())
        return Finding("socket", True, f"{socket}: a server runs there ({sessions} sessions)")
    if starts_own:
        return Finding(
            "socket", True, f"{socket}: no server runs there yet; a start makes its own there"
        )
    return Finding(
        "socket",
        False,
        f"no tmux server runs on {socket}; start one there, or point LIBTMUX_SOCKET "
        "or LIBTMUX_SOCKET_PATH at the server you want served",
    )


def check_toolsets(setting: Setting) -> Finding:
    """Which toolsets are on, and how many tools that serves."""
    profile = load_profile(setting.profile)
    try:
        served = profile.shown(setting.environ)
        on = chosen(profile.toolsets, setting.environ)
    except ToolsetConfigError as exc:
        return Finding(
            "toolsets",
            False,
            f"{exc}; fix it, or unset it for the default ({', '.join(profile.toolsets.default)})",
        )
    off = [name for name in profile.toolsets.names if name not in on]
    said = f"{', '.join(on) or 'none'} on" + (f"; {', '.join(off)} off" if off else "")
    return Finding("toolsets", True, f"{said} ({len(served.tools)} tools served)")


def check_ssh(setting: Setting) -> Finding:
    """The ssh target, if any: it logs in without a prompt and its tmux is new enough."""
    given = setting.environ.get(SSH_ENV)
    if not given:
        return Finding("ssh", True, "none: tmux runs on this machine")
    try:
        target = parse_target(given)
    except BadSshTarget as exc:
        return Finding("ssh", False, str(exc))
    result = check_tmux(setting.environ)
    if result.version is None or result.refusal is not None:
        return Finding(
            "ssh",
            False,
            f"{result.line}; try `ssh -o BatchMode=yes {target.destination} tmux -V`: the host "
            "must be in known_hosts and a key must log in without a prompt",
        )
    return Finding("ssh", True, f"{target} logs in; its tmux is {result.version.text}")


def check_config(setting: Setting) -> Finding:
    """The configuration file, if any (``--config`` or its variable): a start would take it."""
    path = setting.environ.get(config.CONFIG_ENV)
    if not path:
        return Finding(
            "config", True, f"none: no hosts, scope or audit log (see {config.CONFIG_ENV})"
        )
    problems = config.check_config(path)
    if problems:
        return Finding("config", False, "; ".join(problems))
    return Finding("config", True, f"{path} is one a start takes")


def check_desktop_path(setting: Setting) -> Finding:
    """The command, and the tmux it runs, on the PATH a desktop client starts it with."""
    where = f"the PATH a desktop client sees, {setting.desktop_path} ({setting.desktop_source})"
    if shutil.which(COMMAND, path=setting.desktop_path) is None:
        full = shutil.which(COMMAND, path=setting.environ.get("PATH", os.defpath))
        if full is None and os.path.basename(sys.argv[0]) == COMMAND:
            full = os.path.abspath(sys.argv[0])
        full = full or f"`command -v {COMMAND}` prints it"
        return Finding(
            "desktop PATH",
            False,
            f"{COMMAND} is not on {where}; give the client its full path: {full}",
        )
    binary = tmux_binary(setting.environ)
    needs_tmux = not setting.environ.get(SSH_ENV) and not os.path.isabs(binary)
    if needs_tmux and shutil.which(binary, path=setting.desktop_path) is None:
        tmux = shutil.which(binary, path=setting.environ.get("PATH", os.defpath)) or "its path"
        return Finding(
            "desktop PATH",
            False,
            f"{COMMAND} is on {where}, but {binary!r} is not; set LIBTMUX_TMUX_BIN to {tmux} "
            "in the client's env",
        )
    return Finding("desktop PATH", True, f"{COMMAND} and tmux are on {where}")


CHECKS: tuple[Callable[[Setting], Finding], ...] = (
    check_tmux_binary,
    check_socket,
    check_toolsets,
    check_ssh,
    check_config,
    check_desktop_path,
)
"""The checks, in the order they run and print."""


def desktop_path(platform: str = sys.platform) -> tuple[str, str]:
    """The PATH a desktop client starts its servers with, and where that was read.

    Linux: the systemd user manager's environment (``systemctl --user show-environment``),
    which a desktop session starts its apps with; without one, systemd's default. macOS:
    launchd's (``launchctl getenv PATH``), else its default for apps from the Finder.
    """
    if platform == "darwin":
        asked, default = ["launchctl", "getenv", "PATH"], MACOS_DESKTOP_PATH
    else:
        asked, default = ["systemctl", "--user", "show-environment"], LINUX_DESKTOP_PATH
    source = " ".join(asked)
    try:
        done = subprocess.run(asked, capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        done = None
    lines = done.stdout.splitlines() if done is not None and done.returncode == 0 else []
    if platform == "darwin":
        value = lines[0].strip() if lines else ""
    else:
        value = next((line[5:] for line in lines if line.startswith("PATH=")), "")
    if value:
        return value, f"as `{source}` gives it"
    return default, f"the default: `{source}` gives none"


def diagnose(setting: Setting) -> list[Finding]:
    """Every check's finding, in order; the ssh master a check started is stopped."""
    try:
        return [check(setting) for check in CHECKS]
    finally:
        close_all()


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{COMMAND} doctor",
        description="Check what a start would meet, one line each; exit 0 only when all pass.",
    )
    p.add_argument("--profile", choices=PROFILES, default=None, help="the profile to check")
    p.add_argument("--ssh", metavar="[USER@]HOST[:PORT]", default=None, help="the ssh target")
    p.add_argument("--config", metavar="FILE", default=None, help="the configuration file")
    return p


def main(
    argv: Sequence[str],
    environ: Mapping[str, str] | None = None,
    desktop: tuple[str, str] | None = None,
) -> int:
    """Run the checks and print their lines. ``environ`` (default: this process's) and
    ``desktop`` (the PATH a desktop client sees and its source; default: asked of the
    system, see ``desktop_path``) are what the checks look at."""
    args = parser().parse_args(argv)
    env = dict(os.environ if environ is None else environ)
    if args.ssh is not None:
        env[SSH_ENV] = args.ssh
    if args.config is not None:
        env[config.CONFIG_ENV] = args.config
    profile = args.profile or env.get(PROFILE_ENV) or DEFAULT_PROFILE
    if profile not in PROFILES:
        print(f"FAIL  profile: {PROFILE_ENV}={profile!r} is none of {', '.join(PROFILES)}")
        return 1
    path, source = desktop if desktop is not None else desktop_path()
    findings = diagnose(Setting(profile, env, path, source))
    for finding in findings:
        print(finding, flush=True)
    return 0 if all(finding.ok for finding in findings) else 1
