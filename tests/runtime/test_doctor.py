"""``tmux-contract-mcp doctor``: one line per check, in order, each failure's line saying what
to do, and the exit status 0 only when every check passes. Real tmux on a private socket, the
lab sshd for ssh; a tmux that is missing or too old is made by what PATH holds."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from scripts.lab.sshd import SshServer
from scripts.lab.tmuxserver import TMUX, TmuxServer
from tests.helpers.readme import body, flat
from tests.helpers.ssh import remote_env
from tmux_contract_mcp import doctor
from tmux_contract_mcp.handlers.tmux.transport.ssh import parse_target
from tmux_contract_mcp.profiles import load_profile

COMMAND = shutil.which("tmux-contract-mcp", path=os.path.dirname(sys.executable))
NAMES = ["tmux", "socket", "toolsets", "ssh", "config", "desktop PATH"]


@pytest.fixture
def desktop(tmp_path: Path) -> tuple[str, str]:
    """A PATH as a desktop client's, holding the command and tmux."""
    folder = tmp_path / "desktop-bin"
    folder.mkdir()
    assert COMMAND is not None
    (folder / "tmux-contract-mcp").symlink_to(COMMAND)
    (folder / "tmux").symlink_to(TMUX)
    return str(folder), "the test's"


def lines(
    capsys: pytest.CaptureFixture[str],
    environ: dict[str, str],
    desktop: tuple[str, str],
    *argv: str,
) -> tuple[int, dict[str, str]]:
    """The exit status and each check's line, by the check's name."""
    status = doctor.main(list(argv), environ, desktop)
    printed = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0].split(None, 1)[1] for line in printed] == NAMES
    return status, {line.split(":")[0].split(None, 1)[1]: line for line in printed}


def without_tmux_bin(environ: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in environ.items() if k != "LIBTMUX_TMUX_BIN"}


def test_the_checks_run_in_the_order_the_docs_give() -> None:
    names = [check(doctor.Setting("python", {"PATH": ""}, "", "")).name for check in doctor.CHECKS]
    assert names == NAMES


@pytest.mark.parametrize("profile", ["python", "rust", "swift"])
def test_every_check_passes_against_a_running_server_and_the_status_is_0(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, desktop: tuple[str, str], profile: str
) -> None:
    status, said = lines(capsys, tmux.server_env(), desktop, "--profile", profile)
    assert all(line.startswith("ok  ") for line in said.values()), said
    assert status == 0
    assert f"socket '{tmux.name}'" in said["socket"] and "a server runs there" in said["socket"]
    assert "tmux 3." in said["tmux"]


def test_a_missing_tmux_binary_fails_its_line_and_says_what_to_install(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, desktop: tuple[str, str], tmp_path: Path
) -> None:
    environ = {**without_tmux_bin(tmux.server_env()), "PATH": str(tmp_path)}  # no tmux there
    status, said = lines(capsys, environ, desktop)
    assert status == 1
    assert said["tmux"] == (
        "FAIL  tmux: no tmux binary 'tmux' on PATH; install tmux 3.2 or newer, "
        "or set LIBTMUX_TMUX_BIN to one"
    )


def test_a_tmux_older_than_the_minimum_fails_its_line(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, desktop: tuple[str, str], tmp_path: Path
) -> None:
    old = tmp_path / "tmux"
    old.write_text("#!/bin/sh\necho 'tmux 3.1c'\n")  # the fault: an old tmux
    old.chmod(0o755)
    environ = {**tmux.server_env(), "LIBTMUX_TMUX_BIN": str(old)}
    status, said = lines(capsys, environ, desktop)
    assert status == 1
    assert said["tmux"].startswith("FAIL  tmux: tmux 3.1c")
    assert "older than 3.2" in said["tmux"] and "install a newer tmux" in said["tmux"]


def test_a_python_socket_where_no_server_runs_fails_and_names_the_socket(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, desktop: tuple[str, str]
) -> None:
    mark = tmux.mark()
    environ = tmux.server_env(LIBTMUX_SOCKET="nothing-runs-here")
    status, said = lines(capsys, environ, desktop, "--profile", "python")
    assert status == 1
    path = os.path.join(os.path.realpath(tmux.env["TMUX_TMPDIR"]), f"tmux-{os.getuid()}")
    assert said["socket"] == (
        f"FAIL  socket: no tmux server runs on socket 'nothing-runs-here' "
        f"({path}/nothing-runs-here); start one there, or point LIBTMUX_SOCKET or "
        "LIBTMUX_SOCKET_PATH at the server you want served"
    )
    assert not os.path.exists(f"{path}/nothing-runs-here")  # asking started nothing
    assert [item.arguments for item in tmux.sent_since(mark) if item.reaches_a_server] == [
        ("list-sessions", "-F", "#{session_id}")
    ]


@pytest.mark.parametrize("profile", ["rust", "swift"])
def test_a_family_profile_with_no_server_on_its_own_socket_passes_and_starts_none(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, desktop: tuple[str, str], profile: str
) -> None:
    environ = {k: v for k, v in tmux.server_env().items() if k != "LIBTMUX_SOCKET"}
    status, said = lines(capsys, environ, desktop, "--profile", profile)
    assert said["socket"].startswith("ok    socket: socket 'libtmux-mcp'")
    assert "no server runs there yet; a start makes its own there" in said["socket"]
    assert status == 0
    path = os.path.join(os.path.realpath(tmux.env["TMUX_TMPDIR"]), f"tmux-{os.getuid()}")
    assert not os.path.exists(f"{path}/libtmux-mcp")


def test_an_unknown_toolset_fails_its_line_and_names_it(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, desktop: tuple[str, str]
) -> None:
    environ = tmux.server_env(LIBTMUX_TOOLSETS="inspect,bogus")
    status, said = lines(capsys, environ, desktop)
    assert status == 1
    assert said["toolsets"].startswith("FAIL  toolsets: LIBTMUX_TOOLSETS names unknown toolsets")
    assert "'bogus'" in said["toolsets"]
    assert "(inspect, manage, execute)" in said["toolsets"]


def test_the_toolsets_line_says_which_are_on_and_off(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, desktop: tuple[str, str]
) -> None:
    _, said = lines(capsys, tmux.server_env(LIBTMUX_TOOLSETS="inspect"), desktop)
    served = len(load_profile("python").shown({"LIBTMUX_TOOLSETS": "inspect"}).tools)
    assert said["toolsets"] == (
        f"ok    toolsets: inspect on; manage, execute, teardown, agents off ({served} tools served)"
    )


def test_an_ssh_target_through_the_lab_sshd_logs_in_and_reads_the_remote_tmux(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, sshd: SshServer, desktop: tuple[str, str]
) -> None:
    environ = remote_env(tmux, sshd)
    target = environ.pop("TMUX_CONTRACT_MCP_SSH")
    status, said = lines(capsys, environ, desktop, "--ssh", target)
    assert status == 0, said
    assert said["tmux"] == "ok    tmux: runs on the ssh host: see the ssh line"
    assert said["socket"].startswith(f"ok    socket: socket {tmux.socket_path} on host ")
    assert said["ssh"].startswith(f"ok    ssh: {parse_target(target)} logs in; its tmux is 3.")


def test_an_ssh_target_that_refuses_fails_its_line_and_says_how_to_try_it(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, sshd: SshServer, desktop: tuple[str, str]
) -> None:
    environ = remote_env(tmux, sshd, "127.0.0.1:1")  # nothing listens on port 1
    status, said = lines(capsys, environ, desktop)
    assert status == 1
    assert said["ssh"].startswith("FAIL  ssh: ssh to 127.0.0.1 port 1 failed: ")
    assert said["ssh"].endswith(
        "try `ssh -o BatchMode=yes 127.0.0.1 tmux -V`: the host must be in known_hosts and "
        "a key must log in without a prompt"
    )
    assert said["socket"].startswith("FAIL  socket: ")


def test_an_ssh_target_ssh_could_misread_fails_its_line(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, desktop: tuple[str, str]
) -> None:
    status, said = lines(capsys, tmux.server_env(), desktop, "--ssh=-oProxyCommand=x")
    assert status == 1
    assert said["ssh"].startswith("FAIL  ssh: TMUX_CONTRACT_MCP_SSH / --ssh '-oProxyCommand=x'")


def test_a_command_missing_from_the_desktop_path_fails_and_gives_the_full_path(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, tmp_path: Path
) -> None:
    environ = {**tmux.server_env(), "PATH": f"{os.path.dirname(sys.executable)}:/usr/bin:/bin"}
    status, said = lines(capsys, environ, (str(tmp_path), "systemd's"))
    assert status == 1
    assert said["desktop PATH"] == (
        f"FAIL  desktop PATH: tmux-contract-mcp is not on the PATH a desktop client sees, "
        f"{tmp_path} (systemd's); give the client its full path: {COMMAND}"
    )


def test_a_tmux_missing_from_the_desktop_path_fails_and_says_to_set_its_binary(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, desktop: tuple[str, str]
) -> None:
    folder = Path(desktop[0])
    (folder / "tmux").unlink()
    environ = {**without_tmux_bin(tmux.server_env()), "PATH": f"{os.path.dirname(TMUX)}"}
    status, said = lines(capsys, environ, desktop)
    assert status == 1
    assert said["desktop PATH"].startswith("FAIL  desktop PATH: tmux-contract-mcp is on ")
    assert said["desktop PATH"].endswith(
        f"but 'tmux' is not; set LIBTMUX_TMUX_BIN to {TMUX} in the client's env"
    )


def test_without_launchd_the_macos_desktop_path_is_launchds_default() -> None:
    assert shutil.which("launchctl") is None  # this is not macOS
    assert doctor.desktop_path("darwin") == (
        "/usr/bin:/bin:/usr/sbin:/sbin",
        "the default: `launchctl getenv PATH` gives none",
    )


def test_the_troubleshooting_page_lists_the_checks_in_their_order() -> None:
    text = flat(body("docs/troubleshooting.md"))
    listed = re.findall(r"\d\. \*\*([a-zA-Z ]+)\*\*:", text)
    assert listed == NAMES


def test_the_troubleshooting_page_gives_the_desktop_paths_doctor_uses() -> None:
    text = flat(body("docs/troubleshooting.md"))
    assert (
        f"`systemctl --user show-environment` prints it; without one, systemd's default `{doctor.LINUX_DESKTOP_PATH}`"
        in text
    )
    assert (
        f"`launchctl getenv PATH` prints it; without one, the default an app started from the Finder or the Dock gets, `{doctor.MACOS_DESKTOP_PATH}`"
        in text
    )


def test_a_configuration_file_a_start_would_refuse_fails_its_line_naming_the_key(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, desktop: tuple[str, str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[scope]\nallow = 3\n")
    status, said = lines(capsys, tmux.server_env(), desktop, "--config", str(bad))
    assert status == 1
    assert said["config"].startswith(f"FAIL  config: config {bad}")
    assert "allow" in said["config"]


def test_a_good_configuration_file_passes_and_no_file_is_said_to_be_none(
    capsys: pytest.CaptureFixture[str], tmux: TmuxServer, desktop: tuple[str, str], tmp_path: Path
) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[scope]\nallow = ["agent-*"]\n')
    status, said = lines(capsys, tmux.server_env(TMUX_CONTRACT_MCP_CONFIG=str(good)), desktop)
    assert status == 0, said
    assert said["config"] == f"ok    config: {good} is one a start takes"
    _, without = lines(capsys, tmux.server_env(), desktop)
    assert without["config"].startswith("ok    config: none: no hosts, scope or audit log")
