"""The rulebook's page plan: which flowables a layout drew on each body page, and where,
so that the next layout (`pnp watch`, after an edit of the rulebook's text) draws the pages
before the first changed block again from it instead of laying them out.

In: the story of a layout (each body flowable tagged with the blocks it was made from),
the draws the frame made (rlbridge.RecordingFrame) and the flowables handled on each page.
Out: a `Plan` (kept in process on the Session, never on disk: it holds the flowables as
they were wrapped and split), and for the next layout a story whose unchanged pages are
`Replay`s: each draws the same flowables at the same places, then the story goes on from
the first page the edit can move. A page is reused only when it starts with a whole
flowable of the story (not the rest of a split one, nor a group's parts) and every block
its pages before were made from is the same; the title and contents pages are laid out
anew every time (the contents hold every heading's page). Drawing is never skipped, so
the canvas writes the same bytes as a full layout would (tests/test_pageplan.py).

A cold layout uses the same plan within itself (`replayed`, book.Rulebook.sketch): its
first pass, which only finds each heading's page for the contents, measures the body
without drawing it, and the second draws every body page from the first's plan.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from reportlab.platypus import Flowable, PageBreak


@dataclass
class Plan:
    """One layout's pages: `starts[page]` the story index its first handled flowable had
    (None: a piece of one); `draws[page]` (flowable, x, y, spare width) in drawing order."""
    index: dict          # id(story flowable) -> its index in the story
    starts: dict = field(default_factory=dict)
    draws: dict = field(default_factory=dict)

    def begin(self) -> None:
        """A new pass of the layout: what the last pass drew is forgotten."""
        self.starts, self.draws = {}, {}

    def handled(self, flowable, page: int) -> None:
        if page not in self.starts:
            self.starts[page] = self.index.get(id(flowable))
            self.draws.setdefault(page, [])

    def drawn(self, flowable, x: float, y: float, spare: float, page: int) -> None:
        self.draws.setdefault(page, []).append((flowable, x, y, spare))


@dataclass(frozen=True)
class Laid:
    """A finished layout's plan with what its body was made from: `marks` (one per block:
    its text and figure), `bounds` (per story index: blocks before it that made the story
    up to it), `body` (the story index where the body starts)."""
    plan: Plan
    marks: tuple
    bounds: tuple
    body: int


class Replay(Flowable):
    """One page of an earlier layout: its flowables drawn again where they were (`draw`:
    the document's way of drawing one)."""

    def __init__(self, draws, draw):
        super().__init__()
        self.draws, self.draw_one = draws, draw

    def wrap(self, avail_w, avail_h):
        return 0, 0

    def drawOn(self, canvas, x, y, _sW=0):
        for flowable, fx, fy, spare in self.draws:
            self.draw_one(flowable, fx, fy, spare)


def bounds_of(tags: list[int]) -> tuple:
    """Per story index k of the body: how many blocks the flowables before k were made from."""
    out, most = [], 0
    for tag in tags:
        out.append(most)
        most = max(most, tag + 1)
    return (*out, most)


def reuse(kept: Laid | None, marks: tuple, story: list, body: int, draw) -> tuple[list, dict]:
    """The story to lay out (the earlier pages replayed where the blocks before them are
    the same) and the index of each of its flowables in the full story (for the new plan)."""
    index = {id(f): k for k, f in enumerate(story)}
    if kept is None or kept.body != body:
        return story, index
    plan, pages = kept.plan, sorted(kept.plan.starts)
    first = next((p for p in pages if kept.plan.starts[p] == body), None)
    if first is None:
        return story, index
    same = 0   # how many leading blocks the edit left alone
    while same < min(len(marks), len(kept.marks)) and marks[same] == kept.marks[same]:
        same += 1
    chosen = None   # the last page whose start can be laid out from the new story
    for page in pages[pages.index(first):]:
        if any(not plan.draws.get(p) for p in range(first, page)):
            break   # a page that drew nothing: never replayed
        start = plan.starts[page]
        if start is None:
            continue   # the rest of a split flowable or a group's parts: not a place to start
        if start - body >= len(kept.bounds) or kept.bounds[start - body] > same:
            break
        chosen = page
    if chosen is None or chosen == first:
        return story, index
    start = plan.starts[chosen]
    replayed: list = []
    for page in range(first, chosen):
        replay = Replay(plan.draws[page], draw)
        if plan.starts[page] is not None:
            index[id(replay)] = plan.starts[page]
        replayed += [replay, PageBreak()]
    return story[:body] + replayed + story[start:], index


def replayed(plan: Plan, story: list, body: int, draw) -> list | None:
    """The story of a pass that draws every body page of the pass before (which measured
    them and drew nothing) where that pass put its flowables: `story[:body]` laid out
    anew, then each body page replayed; None when a body page drew nothing."""
    pages = sorted(plan.draws)
    first = next((p for p in sorted(plan.starts) if plan.starts[p] == body), None)
    if first is None:
        return None
    pages = [p for p in pages if p >= first]
    if pages != list(range(first, first + len(pages))) or any(not plan.draws[p] for p in pages):
        return None
    out: list = []
    for page in pages:
        replay = Replay(plan.draws[page], draw)
        if plan.starts.get(page) is not None:
            plan.index[id(replay)] = plan.starts[page]
        out += [replay, PageBreak()]
    return story[:body] + out[:-1]
