"""Round and hexagonal tokens packed on a sheet, pure numbers.

In: paper size, the token's trim size, its shape (circle or hex, pointy- or flat-top) and
bleed. Out: a `Packing`: the trim box of every slot on a page of fronts (top row first,
left to right), and the mirrored box of its back for a long-edge duplex flip. Rows are
either a plain grid or offset by half a step (hex packing), whichever fits more per page.
Every token keeps its full bleed and a gap of at least two bleeds (never under
`MIN_GAP`) lies between two cut paths, so no two cut paths touch and no face's bleed
covers a neighbour. Nothing here draws.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..shapes import Outline
from .grid import MIN_MARGIN, DoesNotFit

MIN_GAP = 1.5      # mm between two cut paths, at least
LABEL_ROOM = 6.0   # mm kept free under the tokens for the sheet's label


@dataclass(frozen=True)
class Packing:
    paper: str
    page_w: float
    page_h: float
    shape: str
    orientation: str
    trim_w: float
    trim_h: float
    bleed: float
    boxes: tuple[tuple[float, float], ...]   # lower-left corner of each slot's trim box, mm
    offset_rows: bool                         # hex packing (alternate rows shifted half a step)

    @property
    def per_page(self) -> int:
        return len(self.boxes)

    def outline(self, slot: int, back: bool = False) -> Outline:
        """The slot's cut outline; backs mirrored across the page's vertical centre line."""
        x, y = self.boxes[slot]
        if back:
            x = self.page_w - x - self.trim_w
        return Outline(self.shape, x, y, self.trim_w, self.trim_h, orientation=self.orientation)


def _rows(usable_w, usable_h, ext_w, ext_h, step_x, step_y, offset):
    """Positions (x, y from the top-left of the usable area) of every bounding box that fits."""
    out, row = [], 0
    while row * step_y + ext_h <= usable_h + 1e-9:
        shift = step_x / 2 if (offset and row % 2) else 0.0
        col = 0
        while shift + col * step_x + ext_w <= usable_w + 1e-9:
            out.append((shift + col * step_x, row * step_y))
            col += 1
        row += 1
    return out


def pack(paper: str, page: tuple[float, float], shape: str, trim_w: float, trim_h: float, bleed: float,
         orientation: str = "pointy") -> Packing:
    """The packing that fits the most tokens on the page, centred."""
    page_w, page_h = page
    gap = max(2 * bleed, MIN_GAP)
    printed = Outline(shape, 0, 0, trim_w, trim_h, orientation=orientation).grown(bleed)
    ext_w, ext_h = printed.w, printed.h  # the printed area's bounding box (a hexagon's corners reach further)
    usable_w = page_w - 2 * MIN_MARGIN
    usable_h = page_h - 2 * MIN_MARGIN - LABEL_ROOM
    candidates = [(False, _rows(usable_w, usable_h, ext_w, ext_h, trim_w + gap, trim_h + gap, False))]
    if shape == "circle":
        step = trim_w + gap  # centres a diameter plus the gap apart, rows at 60 degrees
        candidates.append((True, _rows(usable_w, usable_h, ext_w, ext_h, step, step * math.sqrt(3) / 2, True)))
    elif shape == "hex" and orientation == "pointy":
        # neighbours across a slanted side: centres (width + gap) apart at 60 degrees
        step = trim_w + gap
        candidates.append((True, _rows(usable_w, usable_h, ext_w, ext_h, step, step * math.sqrt(3) / 2, True)))
    elif shape == "hex":  # flat-top: the same packing turned a quarter, columns offset
        step = trim_h + gap
        cols = _rows(usable_h, usable_w, ext_h, ext_w, step, step * math.sqrt(3) / 2, True)
        candidates.append((True, [(x, y) for y, x in cols]))
    offset, spots = max(candidates, key=lambda c: (len(c[1]), not c[0]))
    if not spots:
        raise DoesNotFit(f"a {trim_w:g} x {trim_h:g} mm {shape} with {bleed:g} mm bleed does not fit on "
                         f"{paper.upper()} paper")
    spots.sort(key=lambda p: (round(p[1], 6), round(p[0], 6)))
    used_w = max(x for x, _ in spots) + ext_w
    used_h = max(y for _, y in spots) + ext_h
    left = (page_w - used_w) / 2
    top = page_h - (page_h - used_h + LABEL_ROOM) / 2  # centred, the label's room below
    inset_x, inset_y = (ext_w - trim_w) / 2, (ext_h - trim_h) / 2
    boxes = tuple((round(left + x + inset_x, 4), round(top - y - ext_h + inset_y, 4)) for x, y in spots)
    return Packing(paper, page_w, page_h, shape, orientation, trim_w, trim_h, bleed, boxes, offset)
