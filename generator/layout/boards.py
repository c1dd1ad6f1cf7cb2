"""Boards on paper, pure numbers: whole, in declared sections, or in glued panels.

In: paper size, the board's trim size and bleed, its overlap (glue strip) and optional
sections (cols x rows). Out: a `BoardPlan`: one `Panel` per page, each saying which
region of the board it shows (mm from the board's lower-left corner, y up), where that
region lands on its page, the page's size (portrait or landscape, whichever needs fewer
pages), its cut box, its glue strips and the alignment ticks along its joins.

- A board that fits the paper prints whole, like one large card.
- `sections` prints exactly cols x rows regions that butt together (MetiKoro's quarters);
  each must fit a page. The neighbouring art is each section's bleed.
- Otherwise the board is split into panels of equal size that overlap by `overlap`: the
  panel to the right of a join, and the one below it, lie on top; the strip of the panel
  underneath is shaded as the glue strip. Ticks mark where the top panel's edge goes, on
  both panels, at the same board positions, so the join lines up.
Nothing here draws.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .grid import MIN_MARGIN, DoesNotFit

SIDE_MARGIN = MIN_MARGIN + 4.0   # mm from the paper edge to a panel's bleed: crop marks fit
FOOT = 16.0                      # mm under a panel for the assembly map and the label
TICKS_PER_JOIN = 3


@dataclass(frozen=True)
class Panel:
    number: int                               # 1-based, row by row from the top left
    col: int
    row: int                                  # 0 = top row
    page_w: float
    page_h: float
    region: tuple[float, float, float, float]  # x, y, w, h on the board (y up from its bottom edge)
    at: tuple[float, float]                   # where the region's lower-left corner lands on the page
    glue: tuple[tuple[float, float, float, float], ...]  # strips (page mm) other panels cover
    ticks: tuple[tuple[float, float, str], ...]  # (x, y, side) page points on joins; side: the tick's edge

    @property
    def cut_box(self) -> tuple[float, float, float, float]:
        return (*self.at, self.region[2], self.region[3])

    def to_page(self, bx: float, by: float) -> tuple[float, float]:
        """A board point on this panel's page."""
        return self.at[0] + bx - self.region[0], self.at[1] + by - self.region[1]


@dataclass(frozen=True)
class BoardPlan:
    mode: str                 # whole, sections or panels
    cols: int
    rows: int
    overlap: float
    panels: tuple[Panel, ...]


@dataclass(frozen=True)
class _Split:
    """How a board is split: the page every panel prints on, how many panels across and down,
    and how far neighbours overlap (mm)."""
    page: tuple[float, float]
    cols: int
    rows: int
    overlap: float


def _orientations(page):
    w, h = page
    return [(w, h), (h, w)] if w != h else [(w, h)]


def _fits(w, h, bleed, page, foot=0.0):
    pw, ph = page
    return w + 2 * (bleed + SIDE_MARGIN) <= pw + 1e-9 and h + 2 * (bleed + SIDE_MARGIN) + foot <= ph + 1e-9


def _place(w, h, page, foot):
    pw, ph = page
    return (round((pw - w) / 2, 4), round(foot + (ph - foot - h) / 2, 4))


def plan_board(paper: str, page: tuple[float, float], w: float, h: float, bleed: float,
               overlap: float = 10.0, sections: tuple[int, int] | None = None) -> BoardPlan:
    """How a board of w x h mm (trim) prints on `page`.

    :raises DoesNotFit: when a declared section is larger than the paper.
    """
    if sections:
        cols, rows = sections
        sw, sh = w / cols, h / rows
        fitting = [p for p in _orientations(page) if _fits(sw, sh, bleed, p, FOOT)]
        if not fitting:
            raise DoesNotFit(f"a {sw:g} x {sh:g} mm section (board {w:g} x {h:g} mm in {cols} x {rows}) does not "
                             f"fit on {paper.upper()} paper with its bleed and marks")
        return _grid(fitting[0], w, h, cols, rows, 0.0, "sections")
    for p in _orientations(page):
        if _fits(w, h, bleed, p, FOOT):
            return _grid(p, w, h, 1, 1, 0.0, "whole")
    best = None
    for p in _orientations(page):
        avail_w = p[0] - 2 * (bleed + SIDE_MARGIN)
        avail_h = p[1] - 2 * (bleed + SIDE_MARGIN) - FOOT
        if avail_w <= overlap * 2 or avail_h <= overlap * 2:
            continue
        cols = max(1, math.ceil((w - overlap) / (avail_w - overlap) - 1e-9))
        rows = max(1, math.ceil((h - overlap) / (avail_h - overlap) - 1e-9))
        if best is None or cols * rows < best[0]:
            best = (cols * rows, p, cols, rows)
    if best is None:
        raise DoesNotFit(f"an overlap of {overlap:g} mm leaves no room for a panel on {paper.upper()} paper")
    _, p, cols, rows = best
    return _grid(p, w, h, cols, rows, overlap, "panels")


def _grid(page, w, h, cols, rows, overlap, mode) -> BoardPlan:
    pw = (w + (cols - 1) * overlap) / cols  # every panel the same size
    ph = (h + (rows - 1) * overlap) / rows
    step_x, step_y = pw - overlap, ph - overlap
    panels: list[Panel] = []
    split = _Split(page, cols, rows, overlap)
    for row in range(rows):
        for col in range(cols):
            # board y is up; row 0 is the top row
            region = (round(col * step_x, 4), round(h - ph - row * step_y, 4), round(pw, 4), round(ph, 4))
            at = _place(pw, ph, page, FOOT)
            panels.append(_panel(split, len(panels) + 1, col, row, region, at))
    return BoardPlan(mode, cols, rows, overlap, tuple(panels))


def _panel(split: _Split, number, col, row, region, at) -> Panel:
    page, cols, rows, overlap = split.page, split.cols, split.rows, split.overlap
    x, y, pw, ph = region
    ax, ay = at
    glue, ticks = [], []
    if overlap > 0:
        if col < cols - 1:   # right strip lies under the next panel
            glue.append((ax + pw - overlap, ay, overlap, ph))
        if row < rows - 1:   # bottom strip lies under the panel below
            glue.append((ax, ay, pw, overlap))
    # ticks at the same board positions on both sides of every join
    for i in range(TICKS_PER_JOIN):
        f = (i + 1) / (TICKS_PER_JOIN + 1)
        if col < cols - 1:   # where the right neighbour's left edge lands, on the strip
            ticks.append((ax + pw - overlap, ay + ph * f, "under-v"))
        if col > 0:          # this panel's own left edge
            ticks.append((ax, ay + ph * f, "edge-left"))
        if row < rows - 1:   # where the lower neighbour's top edge lands
            ticks.append((ax + pw * f, ay + overlap, "under-h"))
        if row > 0:          # this panel's own top edge
            ticks.append((ax + pw * f, ay + ph, "edge-top"))
    return Panel(number, col, row, page[0], page[1], region, at, tuple(glue), tuple(ticks))
