"""Print-then-cut machines: their registration marks and where components may lie.

In: a machine (`silhouette`, `cricut`, `scanncut`) and a paper size (mm). Out: a
`CutterSheet`: the registration marks as printed on every page of fronts (and drawn in the
cut file), each a `Mark` with its kind, box and the filled shapes that draw it; the areas
components may take, best first (rectangles centred on the page, so backs planned for a
duplex flip stay behind their fronts); the keep-out boxes around the marks; and where the
page's label goes. Pure numbers in millimetres from the page's lower-left corner, y up;
nothing here draws. `pages.plan_for_cutter` plans the sheets inside these areas.

The machines read the marks optically, so they must be exactly where the maker's software
puts its own. Sources, by machine:

- silhouette: Silhouette Studio's registration marks "Type 1" (CAMEO, Portrait, Curio): a
  filled 5 mm square in the top-left corner and L-shaped marks with 20 mm arms in the
  top-right and bottom-left corners, each mark's outer corner at the inset from both page
  edges (fablabnbg/inkscape-silhouette render_silhouette_regmarks.py: REG_SQUARE_MM 5,
  REG_LINE_MM 20; its A4 template and PR #380: corners 10 mm from each page edge). Studio
  allows an inset of at least 10 mm, arms of 5-20 mm and lines 0.5-1 mm thick
  (Alan-Cha/silhouette-card-maker page_manager.py); pnp uses inset 10 mm, arms 20 mm, lines
  0.5 mm: set the same in Studio's Registration Marks panel. Studio Basic Edition imports
  DXF, not SVG, so a Silhouette build also writes a DXF cut file.
- cricut: Design Space's Print Then Cut prints within 6.75 x 9.25 in on Letter and A4
  (help.cricut.com article 360009429814, "How large can I Print Then Cut"), surrounded by
  its black sensor border. Cricut publishes the area, not the border's line width or
  distance: pnp draws a 1 mm black rectangle 1 mm outside the area, centred on the page.
- scanncut: Brother's print-and-cut marks as its ScanNCut plug-in for Illustrator draws
  them (markuryy/fcmlib src/registration_marks.rs): four identical marks, each a bullseye
  (dot r 0.99 mm, rings 2-3 mm and 4-5 mm) with a 10 x 1 mm bar above it on a 16 x 18 mm
  white ground, centred 12 mm from the left or right edge and 13.98 mm from the top or
  bottom edge.
"""
from __future__ import annotations

from dataclasses import dataclass

CUTTERS = ("silhouette", "cricut", "scanncut")
CLEAR = 2.0          # mm kept free around every mark (inkscape-silhouette's REG_KEEPOUT_MM)
IN = 25.4

# Silhouette Studio, Type 1
SIL_INSET, SIL_ARM, SIL_LINE, SIL_SQUARE = 10.0, 20.0, 0.5, 5.0
# Cricut Print Then Cut
CRICUT_AREA = (6.75 * IN, 9.25 * IN)
CRICUT_GAP, CRICUT_LINE = 1.0, 1.0
CRICUT_PAPERS = {(215.9, 279.4): "letter", (210.0, 297.0): "a4"}
# Brother ScanNCut
SNC_X, SNC_Y = 12.0, 13.98                  # centre of a mark from the side and from the top or bottom
SNC_GROUND = (8.0, 8.0, 8.02, 9.98)        # white ground: left, right, below, above the centre
SNC_BAR = (5.0, 5.99, 10.0, 0.99)          # bar: half width, bottom above the centre, width, height
SNC_RINGS = ((4.0, 5.0), (2.0, 3.0))
SNC_DOT = 0.99
MAT = (12 * IN, 24 * IN)                    # the largest mat any of them takes


@dataclass(frozen=True)
class Mark:
    """One registration mark: what it is, its box, and what is drawn (filled, black unless
    white), each ("rect", x, y, w, h), ("ring", cx, cy, inner r, outer r) or ("disc", cx, cy, r)."""

    kind: str                 # square, corner, border, bullseye
    x: float
    y: float
    w: float
    h: float
    shapes: tuple
    corner: str = ""          # top-left, top-right, bottom-left, bottom-right
    white: tuple = ()         # shapes drawn white first (the ScanNCut mark's ground)
    line: float = 0.0         # line width of an L or a border

    def manifest(self) -> dict:
        out = {"kind": self.kind, "x_mm": round(self.x, 3), "y_mm": round(self.y, 3),
               "w_mm": round(self.w, 3), "h_mm": round(self.h, 3)}
        if self.corner:
            out["corner"] = self.corner
        if self.line:
            out["line_mm"] = self.line
        return out

    def box(self, grow: float = 0.0) -> tuple[float, float, float, float]:
        return self.x - grow, self.y - grow, self.w + 2 * grow, self.h + 2 * grow


@dataclass(frozen=True)
class CutterSheet:
    cutter: str
    page_w: float
    page_h: float
    marks: tuple[Mark, ...]
    areas: tuple[tuple[float, float, float, float], ...]   # where components may lie, best first
    keepouts: tuple[tuple[float, float, float, float], ...]
    label: tuple[float, float, float]                      # x (centre), y, room of the page label

    def clear_of_marks(self, box) -> bool:
        """True when the box (x, y, w, h) touches no keep-out box."""
        return not any(_overlap(box, k) for k in self.keepouts)


class CutterError(ValueError):
    """The machine cannot take this paper."""


def cutter_sheet(cutter: str, paper: str, page_w: float, page_h: float) -> CutterSheet:
    """The marks and areas of `cutter` on a page_w x page_h mm page (`paper` names it)."""
    if cutter not in CUTTERS:
        raise CutterError(f"unknown cutter {cutter!r} (known: {', '.join(CUTTERS)})")
    if max(page_w, page_h) > MAT[1] + 1e-6 or min(page_w, page_h) > MAT[0] + 1e-6:
        raise CutterError(f"{paper.upper()} paper is larger than a 12 x 24 in cutting mat")
    return {"silhouette": _silhouette, "cricut": _cricut, "scanncut": _scanncut}[cutter](paper, page_w, page_h)


def _silhouette(paper, w, h) -> CutterSheet:
    i, arm, t, sq = SIL_INSET, SIL_ARM, SIL_LINE, SIL_SQUARE
    square = Mark("square", i, h - i - sq, sq, sq, (("rect", i, h - i - sq, sq, sq),), "top-left")
    # an L: its outer corner at (cx, cy); arms run inwards, lines centred on the inset
    def corner(name, cx, cy, sx, sy):
        horizontal = (min(cx - sx * t / 2, cx + sx * arm), cy - t / 2, arm + t / 2, t)
        vertical = (cx - t / 2, min(cy - sy * t / 2, cy + sy * arm), t, arm + t / 2)
        x0, y0 = min(horizontal[0], vertical[0]), min(horizontal[1], vertical[1])
        return Mark("corner", x0, y0, arm + t / 2, arm + t / 2, (("rect", *horizontal), ("rect", *vertical)),
                    name, line=t)
    marks = (square, corner("top-right", w - i, h - i, -1, -1), corner("bottom-left", i, i, 1, 1))
    edge = i + t / 2 + CLEAR   # inside the marks' lines
    reach = i + arm + CLEAR    # past the marks' arms
    areas = ((edge, edge, w - 2 * edge, h - 2 * edge),               # whole, if nothing lands in a corner
             (reach, edge, w - 2 * reach, h - 2 * edge),             # between the marks' columns
             (edge, reach, w - 2 * edge, h - 2 * reach))             # between the marks' rows
    return CutterSheet("silhouette", w, h, marks, areas, tuple(m.box(CLEAR) for m in marks),
                       (w / 2, i / 2 - 1.0, w - 2 * reach))


def _cricut(paper, w, h) -> CutterSheet:
    if not any(abs(w - pw) < 0.5 and abs(h - ph) < 0.5 for pw, ph in CRICUT_PAPERS):
        raise CutterError(f"Cricut Print Then Cut prints on Letter or A4 paper, not {paper.upper()}")
    aw, ah = CRICUT_AREA
    ax, ay = (w - aw) / 2, (h - ah) / 2
    out = CRICUT_GAP + CRICUT_LINE
    x0, y0, bw, bh = ax - out, ay - out, aw + 2 * out, ah + 2 * out
    t = CRICUT_LINE
    sides = (("rect", x0, y0, bw, t), ("rect", x0, y0 + bh - t, bw, t),
             ("rect", x0, y0 + t, t, bh - 2 * t), ("rect", x0 + bw - t, y0 + t, t, bh - 2 * t))
    border = Mark("border", x0, y0, bw, bh, sides, line=t)
    return CutterSheet("cricut", w, h, (border,), ((ax, ay, aw, ah),), (), (w / 2, y0 - 4.0, bw))


def _scanncut(paper, w, h) -> CutterSheet:
    left, right, below, above = SNC_GROUND
    half, bar_at, bar_w, bar_h = SNC_BAR
    marks = []
    for name, cx, cy in (("top-left", SNC_X, h - SNC_Y), ("top-right", w - SNC_X, h - SNC_Y),
                         ("bottom-right", w - SNC_X, SNC_Y), ("bottom-left", SNC_X, SNC_Y)):
        ground = ("rect", cx - left, cy - below, left + right, below + above)
        shapes = (("disc", cx, cy, SNC_DOT), *(("ring", cx, cy, r0, r1) for r0, r1 in SNC_RINGS),
                  ("rect", cx - half, cy + bar_at, bar_w, bar_h))
        marks.append(Mark("bullseye", cx - left, cy - below, left + right, below + above, shapes, name,
                          white=(ground,)))
    margin = 5.0   # most printers print no closer to the edge
    side = SNC_X + left + CLEAR
    end = SNC_Y + above + CLEAR
    areas = ((margin, margin, w - 2 * margin, h - 2 * margin),
             (side, margin, w - 2 * side, h - 2 * margin),
             (margin, end, w - 2 * margin, h - 2 * end))
    return CutterSheet("scanncut", w, h, tuple(marks), areas, tuple(m.box(CLEAR) for m in marks),
                       (w / 2, h - SNC_Y, w - 2 * side))


def _overlap(a, b) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
