"""What a page of a sheets PDF holds, before anything is drawn: plain values.

In: nothing (the vocabulary of layout). Out: `PagePlan`s made by the per-kind planners in
`pages.py` and read by `sheets.py` (which draws them) and `cutfile.py`. Lengths are
millimetres from the page's lower-left corner, y up.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from ..shapes import Outline

NO_EXTRA: MappingProxyType = MappingProxyType({})   # a face's `extra` when it has none (one for all)


def _no_extra() -> MappingProxyType:
    return NO_EXTRA


@dataclass(frozen=True, slots=True)
class FaceOnPage:
    """One rendered face drawn on a page."""

    key: str                         # the face (render stage)
    card: str                        # card id
    side: str                        # front or back
    at: tuple[float, float]          # where the face's lower-left (bleed) corner lands
    clip: Outline                    # the part of the face that is printed
    cut: Outline                     # its trim outline: the cut
    extra: MappingProxyType | dict = field(default_factory=_no_extra)   # more manifest fields (panel, board region...)
    matrix: tuple | None = None      # pt: turns and places the face (die faces, standees) instead of `at`

    def placement(self, page: int) -> dict:
        c = self.cut
        return {"page": page, "id": self.card, "side": self.side, "x_mm": round(c.x, 3), "y_mm": round(c.y, 3),
                "w_mm": round(c.w, 3), "h_mm": round(c.h, 3), **c.manifest(), **self.extra}


@dataclass(frozen=True, slots=True)
class Label:
    """The page's label: where it goes and how long it may be."""

    x: float
    y: float
    angle: int           # 0 along the bottom, 90 up the left margin
    room: float          # mm of line it may take


@dataclass(frozen=True, slots=True)
class PagePlan:
    width: float
    height: float
    side: str                                   # front or back
    title: str                                  # what the label says first (deck, panel...)
    faces: tuple[FaceOnPage, ...]
    marks: tuple[tuple[float, float, float, float], ...] = ()   # crop mark segments
    outlines: tuple[Outline, ...] = ()          # cut lines drawn on the page (circles, hexes)
    label: Label | None = None
    glue: tuple[tuple[float, float, float, float], ...] = ()   # glue strips (x, y, w, h)
    ticks: tuple[tuple[float, float, str], ...] = ()           # alignment ticks on joins
    board_map: tuple[int, int, int, int] | None = None   # (cols, rows, this panel's col, row)
    note: str = ""                              # a second line for the label (how to assemble)
    fills: tuple[Outline, ...] = ()             # grey areas: glue tabs, standee base flaps
    dashed: tuple[tuple[float, float, float, float], ...] = ()  # fold lines
    cuts: tuple[tuple[str, Outline], ...] | None = None  # (card, cut path) when not one per face
    how: str = ""                               # how to print the page, for its label (print modes)
    sheet: int | None = None                    # its sheet's number when pages are not in sheet order
    registration: tuple = ()                    # a cutting machine's marks (cutters.Mark), on pages of fronts

    def cut_paths(self) -> list[tuple[str, Outline]]:
        """What a cutter follows on this page: each face's outline, or the page's own cuts."""
        if self.cuts is not None:
            return list(self.cuts)
        return [(f.card, f.cut) for f in self.faces]


class Placements(Sequence):
    """The manifest's placement of every face on pages planned as `plans` (page numbers from 1),
    made when read: a deck of thousands of faces does not hold them all as dicts."""

    def __init__(self, plans):
        self.plans = tuple(plans)
        self.size = sum(len(plan.faces) for plan in self.plans)

    def __len__(self) -> int:
        return self.size

    def __iter__(self):
        for number, plan in enumerate(self.plans, start=1):
            for face in plan.faces:
                yield face.placement(number)

    def __getitem__(self, index):
        return list(self)[index]

    def __eq__(self, other):
        return isinstance(other, Sequence) and list(self) == list(other)
