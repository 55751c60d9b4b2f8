"""``linedrawing.plain_lines``: a ``capture-pane -e`` read as a plain capture, with line
drawing drawn. The end-to-end pitfall test is
``test_line_drawing_comes_back_as_the_lines_drawn_not_as_letters``; these check what tmux
itself prints for a screen, against its own plain capture."""

from __future__ import annotations

import pytest

from scripts.lab.tmuxserver import TmuxServer
from tests.profile_calls import until_screen_has
from tmux_contract_mcp.handlers.tmux.objects.linedrawing import plain_lines

SO, SI, ESC = "\x0e", "\x0f", "\x1b"


def test_a_line_without_codes_is_left_as_tmux_printed_it() -> None:
    assert plain_lines(["lqqk x", "  indented  ", ""]) == ["lqqk x", "  indented  ", ""]


def test_a_run_between_shift_out_and_shift_in_is_drawn() -> None:
    assert plain_lines([f"{SO}lqqk{SI} x"]) == ["┌──┐ x"]
    assert plain_lines([f"{SO}tqnqu`a0{SI}"]) == ["├─┼─┤◆▒█"]


def test_the_set_carries_over_to_the_next_line_until_shift_in() -> None:
    assert plain_lines([f"{SO}x", "  x", f"x{SI}x", "x"]) == ["│", "  │", "│x", "x"]


def test_colour_codes_go_and_the_spaces_tmux_trims_are_trimmed() -> None:
    lines = [f"{ESC}[31mred{ESC}[39m", f"a{ESC}[41m  {ESC}[49m", f"{ESC}]8;;http://x{ESC}\\link"]
    assert plain_lines(lines) == ["red", "a", "link"]


def test_letters_outside_the_set_stay_letters() -> None:
    assert plain_lines([f"{SO}ABC 9{SI}"]) == ["ABC 9"]


@pytest.mark.parametrize(
    "printed",
    [
        "plain text\\nsecond  line\\n",
        "\\033[1;31mbold red\\033[0m and \\033[44m  blue  \\033[0m  \\n",
        "漢字かな 🙂👍 é\\n\\033[7mreverse\\033[0m\\n",
        "\\033(0lqk\\033(B\\n\\033[32m\\033(0x\\n x\\033(B\\033[0m done\\n",
    ],
)
def test_a_capture_read_so_matches_tmux_plain_capture_but_for_line_drawing(
    shared: TmuxServer, printed: str
) -> None:
    command = f"printf '{printed}'; printf 'END\\n'; exec sleep 60"
    pane = shared.tmux(
        "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "sh", "-c", command
    ).strip()
    try:
        until_screen_has(shared, pane, "END")
        plain = shared.tmux("capture-pane", "-p", "-t", pane).split("\n")
        marked = shared.tmux("capture-pane", "-p", "-e", "-t", pane).split("\n")
        drawn = plain_lines(marked)
        letters = str.maketrans("┌─┐│", "lqkx")
        assert [line.translate(letters) for line in drawn] == plain
        if "(0" in printed:
            assert drawn[:3] == ["┌─┐", "│", " │ done"], drawn
    finally:
        shared.tmux("kill-pane", "-t", pane, check=False)
