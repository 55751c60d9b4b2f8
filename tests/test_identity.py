"""Caller identity: the pane id and the server must both match, by the one rule the guard uses.

Mostly without tmux; the last test asks a real server.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scripts.lab.tmuxserver import TmuxServer
from tmux_contract_mcp.handlers.tmux.objects.server import Tmux
from tmux_contract_mcp.handlers.tmux.policy.caller import Caller, Relation
from tmux_contract_mcp.handlers.tmux.policy.guard import Guard, Place
from tmux_contract_mcp.handlers.tmux.transport.identity import Host
from tmux_contract_mcp.handlers.tmux.transport.sockets import Socket, default_socket


def sockets(tmp_path: Path) -> tuple[Path, Path, Path]:
    mine = tmp_path / "mine"
    other = tmp_path / "other"
    link = tmp_path / "link-to-mine"
    mine.touch()
    other.touch()
    link.symlink_to(mine)
    return mine, other, link


def test_outside_tmux_every_pane_is_unknown(tmp_path: Path) -> None:
    mine, _, _ = sockets(tmp_path)
    caller = Caller.from_environ({"TMUX_PANE": "%1"})
    assert caller.relation(Socket(str(mine), "s"), "%1") is Relation.UNKNOWN
    assert Relation.UNKNOWN.as_bool is None


def test_same_pane_on_the_same_socket_is_self_even_through_a_symlink(tmp_path: Path) -> None:
    mine, _, link = sockets(tmp_path)
    caller = Caller.from_environ({"TMUX": f"{link},123,0", "TMUX_PANE": "%1"})
    assert caller.relation(Socket(str(mine), "s"), "%1") is Relation.SELF
    assert caller.relation(Socket(str(link), "s"), "%1").as_bool is True


def test_same_pane_id_on_another_socket_is_other(tmp_path: Path) -> None:
    mine, other, _ = sockets(tmp_path)
    caller = Caller.from_environ({"TMUX": f"{mine},123,0", "TMUX_PANE": "%1"})
    assert caller.relation(Socket(str(other), "s"), "%1") is Relation.OTHER
    assert caller.relation(Socket(str(mine), "s"), "%2").as_bool is False


def test_a_caller_socket_that_cannot_be_resolved_is_never_self(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    caller = Caller.from_environ({"TMUX": f"{missing},123,0", "TMUX_PANE": "%1"})
    assert caller.relation(Socket(str(missing), "s"), "%1") is Relation.OTHER


def test_inside_tmux_without_a_pane_nothing_is_the_caller(tmp_path: Path) -> None:
    mine, _, _ = sockets(tmp_path)
    caller = Caller.from_environ({"TMUX": f"{mine},123,0"})
    assert caller.relation(Socket(str(mine), "s"), "%1") is Relation.OTHER


def test_a_socket_path_with_commas_is_read_whole(tmp_path: Path) -> None:
    folder = tmp_path / "a,b"
    folder.mkdir()
    socket = folder / "sock,et"
    socket.touch()
    caller = Caller.from_environ({"TMUX": f"{socket},123,0", "TMUX_PANE": "%1"})
    assert caller.relation(Socket(str(socket), "sock,et"), "%1") is Relation.SELF


# --- one parser, one rule: where the identity check and the guard used to disagree -------


def agree(caller_env: dict[str, str], socket: Path, pane: str) -> tuple[Relation, bool]:
    """What the identity check says of ``pane`` on ``socket``, and whether the guard's
    reading of the same environment calls ``socket`` the caller's server (by the file)."""
    relation = Caller.from_environ(caller_env).relation(Socket(str(socket), "s"), pane)
    return relation, Host.from_environ(caller_env).same_server(str(socket))


def test_a_hard_link_to_the_callers_socket_was_other_for_identity_and_is_now_self(
    tmp_path: Path,
) -> None:
    mine, _, _ = sockets(tmp_path)
    hard = tmp_path / "hard-link"
    os.link(mine, hard)
    env = {"TMUX": f"{hard},123,0", "TMUX_PANE": "%1"}
    assert agree(env, mine, "%1") == (Relation.SELF, True)


def test_a_caller_socket_that_is_gone_was_the_same_server_for_the_guard_and_is_now_neither(
    tmp_path: Path,
) -> None:
    gone = tmp_path / "gone"
    env = {"TMUX": f"{gone},123,0", "TMUX_PANE": "%1"}
    assert agree(env, gone, "%1") == (Relation.OTHER, False)


@pytest.mark.parametrize(
    "tmux_var",
    ["{mine}", "{mine},123", "{mine},x,0", "relative,123,0", "{mine},123,main"],
    ids=["no-pid-or-session", "no-session", "pid-not-a-number", "relative-path", "session-name"],
)
def test_a_tmux_value_tmux_did_not_write_named_a_socket_for_identity_and_now_names_none(
    tmp_path: Path, tmux_var: str
) -> None:
    mine, _, _ = sockets(tmp_path)
    env = {"TMUX": tmux_var.format(mine=mine), "TMUX_PANE": "%1"}
    assert agree(env, mine, "%1") == (Relation.OTHER, False)
    caller = Caller.from_environ(env)
    assert caller.inside_tmux and caller.facts() == {}
    assert default_socket({"TMUX": env["TMUX"], "TMUX_TMPDIR": str(tmp_path)}).path == str(
        tmp_path.resolve() / f"tmux-{os.getuid()}" / "default"
    )


@pytest.mark.parametrize("pane", ["1", "%x", "%1 ", "pane"])
def test_a_tmux_pane_that_is_not_a_pane_id_was_a_fact_for_identity_and_now_is_none(
    tmp_path: Path, pane: str
) -> None:
    mine, _, _ = sockets(tmp_path)
    env = {"TMUX": f"{mine},123,0", "TMUX_PANE": pane}
    assert Caller.from_environ(env).facts() == {}
    assert Caller.from_environ(env).relation(Socket(str(mine), "s"), pane) is Relation.OTHER
    assert Host.from_environ(env).pane_id is None


def test_the_servers_pid_was_only_the_guards_and_now_tells_identity_too(tmp_path: Path) -> None:
    mine, other, _ = sockets(tmp_path)  # the caller's socket was moved: another file
    caller = Caller.from_environ({"TMUX": f"{mine},123,0", "TMUX_PANE": "%1"})
    assert caller.relation(Socket(str(other), "s"), "%1") is Relation.OTHER
    assert caller.relation(Socket(str(other), "s"), "%1", server_pid="123") is Relation.SELF
    assert caller.relation(Socket(str(other), "s"), "%1", server_pid=124) is Relation.OTHER


def test_a_socket_path_with_commas_was_cut_at_the_first_for_the_default_socket(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "a,b"
    folder.mkdir()
    socket = folder / "sock,et"
    socket.touch()
    assert default_socket({"TMUX": f"{socket},123,0"}).path == str(socket)


@pytest.mark.anyio
async def test_the_guard_and_the_identity_check_agree_on_a_hard_linked_socket(
    tmux: TmuxServer, tmp_path: Path
) -> None:
    home = tmux.active_pane()
    hard = tmp_path / "hard"
    os.link(tmux.socket_path, hard)
    env = {**os.environ, **tmux.env, "LIBTMUX_SOCKET_PATH": tmux.socket_path, "TMUX_PANE": home}
    env["TMUX"] = f"{hard},{tmux.tmux('display-message', '-p', '#{pid}').strip()},0"
    core = Tmux(env)
    try:
        server = core.server()
        where = await Guard(server, env).locate()
        assert (where.place, where.pane_id) == (Place.HERE, home), where.reason
        assert server.relation(home) is Relation.SELF
    finally:
        await core.aclose()
