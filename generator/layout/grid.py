"""Sheet geometry, pure numbers: where each component lands on the paper.

In: paper size and a component's trim size and bleed. Out: a `SheetGrid` that gives
every slot's trim box (mm, from the page's lower-left corner) for fronts and for backs
mirrored for long-edge duplex, the cut lines for crop marks, and the clip box of each
face (its bleed, cut back where neighbours share a cut line). Nothing here draws.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..units import paper_size

MIN_MARGIN = 4.5  # mm between the outer bleed and the paper edge: room for crop marks
MARK_START = 1.0  # mm outside the trim where a crop mark starts (it crosses the bleed, which is cut away)
MARK_REACH = 5.0  # mm a crop mark reaches beyond the bleed (less where the paper ends)


class DoesNotFit(ValueError):
    """The component is larger than the printable part of the paper."""


@dataclass(frozen=True)
class SheetGrid:
    paper: str
    page_w: float
    page_h: float
    trim_w: float
    trim_h: float
    bleed: float
    cols: int
    rows: int
    gutter: float  # between trim boxes; 0 means neighbours share a cut line

    @property
    def per_page(self) -> int:
        return self.cols * self.rows

    @property
    def grid_w(self) -> float:
        return self.cols * self.trim_w + (self.cols - 1) * self.gutter

    @property
    def grid_h(self) -> float:
        return self.rows * self.trim_h + (self.rows - 1) * self.gutter

    @property
    def x0(self) -> float:
        """Left edge of the leftmost trim box (the grid is centred on the paper)."""
        return (self.page_w - self.grid_w) / 2

    @property
    def y0(self) -> float:
        """Bottom edge of the lowest trim box."""
        return (self.page_h - self.grid_h) / 2

    @property
    def margin_x(self) -> float:
        return self.x0 - self.bleed

    def cell(self, slot: int, back: bool = False) -> tuple[int, int]:
        """(column, row) of a slot; row 0 is the top row. Backs mirror the columns, so
        after flipping the sheet over its long (vertical) edge each back lies behind its front."""
        row, col = divmod(slot, self.cols)
        return (self.cols - 1 - col if back else col), row

    def trim_box(self, slot: int, back: bool = False) -> tuple[float, float, float, float]:
        """x, y, w, h of the slot's trim box in mm from the page's lower-left corner."""
        col, row = self.cell(slot, back)
        x = self.x0 + col * (self.trim_w + self.gutter)
        y = self.y0 + (self.rows - 1 - row) * (self.trim_h + self.gutter)
        return x, y, self.trim_w, self.trim_h

    def clip_box(self, slot: int, back: bool = False, filled: int | None = None) -> tuple[float, float, float, float]:
        """The part of the face that is printed: the trim box plus its bleed, except on
        edges shared with a neighbour when there is no gutter. With `filled` (slots 0 to
        filled - 1 hold a component), an edge whose neighbour slot is empty keeps its bleed."""
        x, y, w, h = self.trim_box(slot, back)
        col, row = self.cell(slot, back)
        b = self.bleed
        if self.gutter >= 2 * b:
            return x - b, y - b, w + 2 * b, h + 2 * b
        filled = self.per_page if filled is None else filled

        def side(edge: bool, neighbour: int) -> float:
            return b if edge or neighbour >= filled else self.gutter / 2

        here = slot % self.cols  # column of the slot as placed on fronts
        step = -1 if back else 1  # on a back, the slot to the right on paper is the previous column
        left = side(col == 0, slot - step if 0 <= here - step < self.cols else filled)
        right = side(col == self.cols - 1, slot + step if 0 <= here + step < self.cols else filled)
        top = side(row == 0, slot - self.cols)
        bottom = side(row == self.rows - 1, slot + self.cols)
        return x - left, y - bottom, w + left + right, h + top + bottom

    def cut_lines(self) -> tuple[list[float], list[float]]:
        """x positions of the vertical cuts and y positions of the horizontal ones (mm)."""
        xs = sorted({round(self.x0 + c * (self.trim_w + self.gutter) + d, 4)
                     for c in range(self.cols) for d in (0, self.trim_w)})
        ys = sorted({round(self.y0 + r * (self.trim_h + self.gutter) + d, 4)
                     for r in range(self.rows) for d in (0, self.trim_h)})
        return xs, ys


def choose_grid(paper: str, trim_w: float, trim_h: float, bleed: float, gutter: float | None = None) -> SheetGrid:
    """The grid that fits the most components on the paper, centred, with crop-mark room.

    A gutter of two bleeds (every face keeps its full bleed) is preferred when it fits as
    many components as shared cut lines do; a deck's own `gutter` is used as it is.
    """
    page_w, page_h = paper_size(paper)
    best = None
    for gap in ((2 * bleed, 0.0) if gutter is None else (gutter,)):
        usable_w = page_w - 2 * (MIN_MARGIN + bleed)
        usable_h = page_h - 2 * (MIN_MARGIN + bleed)
        cols = math.floor((usable_w + gap) / (trim_w + gap) + 1e-9)
        rows = math.floor((usable_h + gap) / (trim_h + gap) + 1e-9)
        if cols < 1 or rows < 1:
            continue
        grid = SheetGrid(paper, page_w, page_h, trim_w, trim_h, bleed, cols, rows, gap)
        if best is None or grid.per_page > best.per_page:
            best = grid
    if best is None:
        raise DoesNotFit(f"a {trim_w:g} x {trim_h:g} mm component with {bleed:g} mm bleed "
                         f"does not fit on {paper.upper()} paper")
    return best


def crop_marks(g: SheetGrid, filled: int | None = None, back: bool = False) -> list[tuple[float, float, float, float]]:
    """Crop mark segments (x1, y1, x2, y2 in mm) on every cut line, on all four sides.

    A mark starts just outside the trim of the outermost components, crosses their outer
    bleed (trimmed away, so a mark there never shows on a card) and runs into the margin:
    even where the margin is narrow (Letter) part of every mark lands on the printable area.
    With `filled`, only the slots 0 to filled - 1 hold components: each cut line gets its
    marks beyond the components that touch it, none run down empty rows.
    """
    boxes = [g.trim_box(s, back) for s in range(g.per_page if filled is None else filled)]
    reach = g.bleed + MARK_REACH
    vertical: dict[float, tuple[float, float]] = {}   # x -> (bottom, top) of the components it cuts
    horizontal: dict[float, tuple[float, float]] = {}   # y -> (left, right)
    for x, y, w, h in boxes:
        for cx in (round(x, 4), round(x + w, 4)):
            lo, hi = vertical.get(cx, (y, y + h))
            vertical[cx] = (min(lo, y), max(hi, y + h))
        for cy in (round(y, 4), round(y + h, 4)):
            lo, hi = horizontal.get(cy, (x, x + w))
            horizontal[cy] = (min(lo, x), max(hi, x + w))
    marks = []
    for x, (bottom, top) in sorted(vertical.items()):
        marks.append((x, bottom - MARK_START, x, max(bottom - reach, 0.0)))
        marks.append((x, top + MARK_START, x, min(top + reach, g.page_h)))
    for y, (left, right) in sorted(horizontal.items()):
        marks.append((left - MARK_START, y, max(left - reach, 0.0), y))
        marks.append((right + MARK_START, y, min(right + reach, g.page_w), y))
    return marks
