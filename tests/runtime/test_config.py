"""The configuration file (runtime/config.py): every key checked at startup, a bad file
stopping the command with one line that names the key, and ``check_config`` (for
``doctor``) giving the same verdict as a list."""

from __future__ import annotations

from pathlib import Path

import pytest

from tmux_contract_mcp.cli import run
from tmux_contract_mcp.config import CONFIG_ENV, check_config, load_config
from tmux_contract_mcp.profiles import load_profile

GOOD = """
[hosts.build]
ssh = "deploy@build-1:2222"

[hosts.web]
ssh = "web-2"

[connections]
idle_seconds = 60
list_seconds = 2.5

[scope]
sockets = ["default", "build/*"]
allow = ["agent-*"]
protect = ["prod*"]
read_only = false
unscopable = ["kill_server"]
"""


def written(tmp_path: Path, text: str) -> str:
    path = tmp_path / "reach.toml"
    path.write_text(text)
    return str(path)


def test_a_good_file_is_read_whole(tmp_path: Path) -> None:
    config = load_config(written(tmp_path, GOOD))
    assert {name: host.ssh for name, host in config.hosts.items()} == {
        "build": "deploy@build-1:2222",
        "web": "web-2",
    }
    assert config.hosts["build"].target.port == 2222
    assert config.scope.allow == ("agent-*",) and config.scope.protect == ("prod*",)
    assert config.idle_seconds == 60 and config.list_seconds == 2.5
    assert check_config(written(tmp_path, GOOD)) == []


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[hosts.build]\nssh = '-oProxyCommand=x'\n", "[hosts.build] ssh:"),
        ("[hosts.build]\nssh = 'a'\nport = 2\n", "[hosts.build]: must hold exactly ssh"),
        ("[hosts.'a/b']\nssh = 'a'\n", "[hosts.a/b]: a host name is"),
        ("[scope]\nallow = 'agent-*'\n", "[scope] allow: must be a list"),
        ("[scope]\nread_only = 'yes'\n", "[scope] read_only: must be true or false"),
        ("[scope]\nallowed = []\n", "[scope] allowed: not a key of [scope]"),
        ("[connections]\nidle_seconds = 0\n", "[connections] idle_seconds: must be a number"),
        ("[audit]\nkeep = 2\n", "[audit] path: must name the log file"),
        ("[audit]\npath = 'x'\nmax_bytes = 0\n", "[audit] max_bytes: must be a whole number"),
        ("[audits]\n", "audits: not a key of this file"),
        ("[scope\n", "is not TOML"),
    ],
)
def test_a_bad_file_stops_startup_with_one_line_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, named: str
) -> None:
    path = written(tmp_path, text)
    assert run(["--config", path, "--list-tools"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"tmux-contract-mcp: config {path}: ")
    assert named in err
    problems = check_config(path)
    assert len(problems) == 1 and named in problems[0]


def test_the_variable_names_the_file_when_the_option_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CONFIG_ENV, written(tmp_path, "[scope]\nallow = 1\n"))
    assert run(["--list-tools"]) == 2
    assert "[scope] allow" in capsys.readouterr().err


def test_a_missing_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--config", str(tmp_path / "none.toml"), "--list-tools"]) == 2
    assert "cannot be read" in capsys.readouterr().err


def test_an_audit_log_that_cannot_be_written_stops_startup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path, f'[audit]\npath = "{tmp_path}/no/such/dir/audit.jsonl"\n')
    assert run(["--config", path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "[audit] path: " in err and "is not a directory" in err
    assert check_config(path) != []


def test_an_unscopable_name_the_profile_does_not_turn_off_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path, '[scope]\nunscopable = ["send_keys"]\n')
    assert run(["--config", path]) == 2
    assert "[scope] unscopable: send_keys is not a tool" in capsys.readouterr().err


def test_list_tools_shows_the_read_only_scope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path, "[scope]\nread_only = true\n")
    assert run(["--config", path, "--list-tools"]) == 0
    shown = {line.split()[0] for line in capsys.readouterr().out.splitlines()}
    effects = load_profile("python").effects
    assert effects is not None
    assert shown and shown <= set(effects["read_only"])
