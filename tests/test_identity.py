"""Caller identity rules, without tmux: the pane id and the socket's real path must both match."""

from __future__ import annotations

from pathlib import Path

from tmux_contract_mcp.handlers.tmux.identity import Caller, Relation
from tmux_contract_mcp.handlers.tmux.sockets import Socket


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
