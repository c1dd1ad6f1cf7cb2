"""Progress: bars on a terminal, one quiet line per stage in a log."""
from __future__ import annotations

import io
import time

import pytest

from generator import progress as progress_mod
from generator.progress import Progress
from tests.conftest import run


@pytest.mark.slow
def test_plain_lines_when_not_a_terminal(mini):
    root = mini('- {id: a, name: Alpha, text: "Words."}')
    result = run(root, "build", "--paper", "a4")
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("mini: ")]
    assert [line.split(":")[1].strip() for line in lines] == [
        "reading and checking the cards", "drawing 1 of 1 bundles of faces (0 unchanged, from the cache)",
        "laying out a4"]
    assert all(" done in " in line and "\r" not in line for line in lines)
    again = run(root, "build", "--paper", "a4")
    assert "mini: drawing 0 of 1 bundles of faces (1 unchanged, from the cache)" in again.stderr


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_bar_on_a_terminal_only_for_stages_that_take_a_moment(monkeypatch):
    monkeypatch.setattr(progress_mod, "MOMENT", 0.05)
    out = Terminal()
    with Progress(out, tty=True).bar("quick", 3) as advance:
        for _ in range(3):
            advance()
    assert out.getvalue() == ""
    with Progress(out, tty=True).bar("slow", 4) as advance:
        for _ in range(4):
            time.sleep(0.03)
            advance()
    shown = out.getvalue()
    assert "slow" in shown and "100%" in shown and "done in" not in shown
