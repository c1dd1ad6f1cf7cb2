"""Where a rulebook's Platypus layout spends its time, as `pnp watch` lays it out again
after an edit of its text (one pass: the contents of the last layout are the first guess).

In: a shipped game (default Meteor), built once to catch build_pdf's arguments for each of
its papers. Out, printed per paper: the median CPU time of one build_pdf and its shares:
  story    the flowables made from the Markdown blocks (paragraphs parsed into fragments);
  layout   wrap and split of the flowables as the frame places them (what a reused page
           plan could skip for the pages before an edit);
  redo     wraps done while drawing (a table draws its cells' paragraphs wrapped again);
  draw     drawing onto the canvas (without those wraps), page furniture included;
  write    the canvas writing the PDF (fonts subset, streams compressed);
  other    the rest (the document, its page templates and passes, the contents' entries).
Each share is exclusive: a wrap inside a draw counts as redo, not draw. The timers wrap
reportlab's Frame.add, Flowable.wrapOn / splitOn / drawOn and Canvas.save, in this process only.

    python benchmarks/rulebook_time.py [--game meteor] [--repeat 7]
"""
from __future__ import annotations

import argparse
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pikepdf  # noqa: E402
from reportlab.pdfgen.canvas import Canvas  # noqa: E402
from reportlab.platypus.flowables import Flowable  # noqa: E402
from reportlab.platypus.frames import Frame  # noqa: E402

import generator.rulebook as rulebook  # noqa: E402
from generator import pipeline  # noqa: E402
from generator.options import BuildOptions  # noqa: E402
from generator.rulebook import book  # noqa: E402
from generator.session import Session  # noqa: E402

SHARES = ("story", "layout", "redo", "draw", "write")


class Clock:
    """Exclusive CPU time per share: a timed call nested in another pauses the outer one."""

    def __init__(self):
        self.spent = dict.fromkeys(SHARES, 0.0)
        self.stack: list[list] = []   # [share, started]

    def timed(self, share: str, fn):
        def run(*args, **kwargs):
            now = time.process_time()
            name = share
            if share == "layout" and any(s[0] == "draw" for s in self.stack):
                name = "redo"
            if self.stack:
                outer = self.stack[-1]
                self.spent[outer[0]] += now - outer[1]
            self.stack.append([name, now])
            try:
                return fn(*args, **kwargs)
            finally:
                end = time.process_time()
                self.spent[name] += end - self.stack.pop()[1]
                if self.stack:
                    self.stack[-1][1] = end
        return run


def caught_calls(game: str) -> list:
    """build_pdf's arguments, one tuple per paper, from a cold build of `game` in a copy."""
    calls = []
    real = book.build_pdf

    def spy(*args):
        calls.append(list(args))
        return real(*args)
    rulebook.build_pdf = spy
    try:
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(ROOT / "cards", Path(tmp) / "cards")
            shutil.copytree(ROOT / "templates", Path(tmp) / "templates")
            pipeline.build(Path(tmp), [game], BuildOptions(), session=Session())
    finally:
        rulebook.build_pdf = real
    return calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="meteor")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    calls = caught_calls(args.game)
    clock = Clock()
    book._body = clock.timed("story", book._body)
    book._title = clock.timed("story", book._title)
    Frame.add = clock.timed("layout", Frame.add)   # the frame wraps (and splits) each flowable, then draws it
    Flowable.wrapOn = clock.timed("layout", Flowable.wrapOn)
    Flowable.splitOn = clock.timed("layout", Flowable.splitOn)
    Flowable.drawOn = clock.timed("draw", Flowable.drawOn)
    book.Rulebook._body_page = clock.timed("draw", book.Rulebook._body_page)
    book.Rulebook._title_page = clock.timed("draw", book.Rulebook._title_page)
    Canvas.save = clock.timed("write", Canvas.save)
    print(f"{args.game}'s rulebook, one Platypus pass (as `pnp watch` after an edit of its text); "
          f"CPU, median of {args.repeat}")
    print(f"{'paper':>6} {'pages':>5} {'CPU s':>6} " + " ".join(f"{s:>6}" for s in (*SHARES, "other")))
    for call in calls:
        call[6] = Session(remember=True)   # its first layout leaves the contents as the guess (and the page plan)
        pdf, _, headings, _ = book.build_pdf(*call)
        rows = []
        for _ in range(args.repeat):
            clock.spent = dict.fromkeys(SHARES, 0.0)
            call[6].rulebooks.clear()   # no page plan: every page laid out (the contents' guess stays)
            started = time.process_time()
            book.build_pdf(*call)
            total = time.process_time() - started
            rows.append((total, dict(clock.spent)))
        rows.sort(key=lambda r: r[0])
        total, spent = rows[len(rows) // 2]
        shares = [spent[s] / total for s in SHARES]
        with pikepdf.open(io.BytesIO(pdf)) as opened:
            pages = len(opened.pages)
        print(f"{call[3]:>6} {pages:>5} {total:>6.3f} " + " ".join(f"{100 * s:>5.0f}%" for s in
                                                                 (*shares, 1 - sum(shares))))


if __name__ == "__main__":
    main()
