"""Fold-over standees: pure geometry, nothing drawn.

In: the art size of one side (w x h, mm), the bleed and the base depth. Out: a `Standee` in
standee coordinates -- mm, y UP, origin at the lower-left corner of the bleed box -- laid out as
one strip, from the bottom:

    back base flap | back art (upright) | FOLD | front art (upside down) | front base flap

Cut the outline, fold at the fold line so the blank sides meet and glue them; turned over,
the fold is the top of the figure, the front reads upright to a viewer in front, the back
upright to a viewer behind. The two flaps fold outwards at the feet to make the stand (with
`base="slot"` there are no flaps; a separate `BaseStrip` with a slit holds the feet instead).

Transforms are 6-tuples in the PDF `cm` convention, (x, y) -> (a*x + c*y + e, b*x + d*y + f),
mapping face coordinates (the template's viewBox: mm, origin top-left incl. bleed, y down)
to standee coordinates. The front is turned 180 degrees and the back is upright: for the SAME
art point the back is the front turned 180 degrees about the middle of the fold line. For the
point of the figure physically BEHIND a front point -- which the back template draws at the
mirrored x, since a viewer behind sees left and right swapped -- the two positions are mirror
images across the fold line, which is exactly what folding along it does.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from . import plane
from .plane import Affine, Placement, Point

BASE_DEPTH = 20.0  # mm: flap depth (and base strip depth)
SLOT_WIDTH = 1.0   # mm: the slit of a base strip takes two layers of card


class StandeeError(ValueError):
    """Sizes that make no standee (zero or negative)."""


@dataclass(frozen=True)
class Side:
    trim: tuple[float, float, float, float]   # x, y, w, h of the art's trim box
    clip: tuple[float, float, float, float]   # what is printed: trim plus the side bleed
    transform: Affine                         # face coordinates -> standee coordinates


@dataclass(frozen=True)
class Standee:
    art_w: float
    art_h: float
    bleed: float
    depth: float
    base: str                                 # "flaps" or "slot"
    front: Side
    back: Side
    fold_line: tuple[Point, Point]            # the top of the figure
    flap_folds: list[tuple[Point, Point]]     # the feet (fold the flaps outwards)
    flaps: list[list[Point]]                  # back flap, front flap (empty with base="slot")
    cut_path: list[Point]                     # closed, counter-clockwise
    width: float
    height: float

    def placed(self, x: float, y: float, rotated: bool = False) -> Standee:
        """The same standee with its bounding box's lower-left corner at (x, y), turned 90
        degrees counter-clockwise first when `rotated`. Clip boxes stay boxes (x, y, w, h)."""
        m = plane.rotate(90) if rotated else plane.IDENTITY
        if rotated:
            m = plane.compose(plane.translate(self.height, 0.0), m)
        m = plane.compose(plane.translate(x, y), m)

        def pt(p):
            return plane.apply(m, p)

        def box(b):
            bx, by, bw, bh = b
            x0, y0, x1, y1 = plane.bbox([pt((bx, by)), pt((bx + bw, by + bh))])
            return x0, y0, x1 - x0, y1 - y0

        def side(s):
            return Side(box(s.trim), box(s.clip), plane.compose(m, s.transform))
        w, h = (self.height, self.width) if rotated else (self.width, self.height)
        return replace(self, front=side(self.front), back=side(self.back),
                       fold_line=(pt(self.fold_line[0]), pt(self.fold_line[1])),
                       flap_folds=[(pt(a), pt(b)) for a, b in self.flap_folds],
                       flaps=[[pt(p) for p in f] for f in self.flaps],
                       cut_path=[pt(p) for p in self.cut_path], width=w, height=h)


@dataclass(frozen=True)
class BaseStrip:
    """A separate base for `base="slot"`: a card strip with a slit the folded feet go into.
    Strip coordinates: mm, y up, origin lower-left of the strip."""
    outline: list[Point]   # rectangle to cut, counter-clockwise
    slot: list[Point]      # thin rectangle to cut out, centred
    width: float
    height: float


def _rect(x: float, y: float, w: float, h: float) -> list[Point]:
    return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]


def standee(art_w: float, art_h: float, bleed: float, depth: float = BASE_DEPTH,
            base: str = "flaps") -> Standee:
    """The fold-over layout for art `art_w` x `art_h` mm (one side, trim) with `bleed` mm.

    :raises StandeeError: for sizes that are not positive or an unknown `base`.
    """
    if art_w <= 0 or art_h <= 0 or bleed < 0 or depth <= 0:
        raise StandeeError(f"a standee needs a positive size and base depth "
                           f"(got {art_w:g} x {art_h:g} mm, base {depth:g} mm)")
    if base not in ("flaps", "slot"):
        raise StandeeError(f"standee base must be 'flaps' or 'slot', not {base!r}")
    b, w, h = bleed, art_w, art_h
    flap = depth if base == "flaps" else 0.0
    feet_back = b + flap                 # y of the back's feet
    fold = feet_back + h                 # y of the fold line (both heads)
    feet_front = fold + h                # y of the front's feet
    top = feet_front + flap              # y of the outer cut at the top
    back = Side(trim=(b, feet_back, w, h), clip=(0.0, feet_back, w + 2 * b, h),
                transform=(1.0, 0.0, 0.0, -1.0, 0.0, fold + b))
    front = Side(trim=(b, fold, w, h), clip=(0.0, fold, w + 2 * b, h),
                 transform=(-1.0, 0.0, 0.0, 1.0, w + 2 * b, fold - b))
    flaps, flap_folds = [], []
    if flap:
        flaps = [_rect(b, b, w, flap), _rect(b, feet_front, w, flap)]
        flap_folds = [((b, feet_back), (b + w, feet_back)), ((b, feet_front), (b + w, feet_front))]
    cut = _rect(b, b, w, top - b)
    return Standee(w, h, b, depth, base, front, back, ((b, fold), (b + w, fold)), flap_folds,
                   flaps, cut, w + 2 * b, top + b)


def base_strip(art_w: float, depth: float = BASE_DEPTH, slot: float = SLOT_WIDTH) -> BaseStrip:
    """A base for `base="slot"`: `depth` deep, reaching `depth` beyond the figure each side,
    with a slit as long as the figure is wide and `slot` mm wide in the middle."""
    if art_w <= 0 or depth <= 0 or slot <= 0 or slot >= depth:
        raise StandeeError("a base strip needs a positive width, and a slot narrower than it")
    width = art_w + 2 * depth
    return BaseStrip(_rect(0.0, 0.0, width, depth),
                     _rect(depth, (depth - slot) / 2, art_w, slot), width, depth)


def pack_standees(items: list, area_w: float, area_h: float, gap: float = 5.0) -> list[Placement]:
    """Shelf packing of standees (and base strips) by bounding box: per item, page, lower-left
    corner (mm from the area's lower-left) and whether to turn it 90 degrees; apply with
    `Standee.placed(x, y, rotated)`.

    :raises plane.DoesNotFit: when an item is larger than the area either way.
    """
    return plane.shelf_pack([(s.width, s.height) for s in items], area_w, area_h, gap)
