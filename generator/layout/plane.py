"""Plane geometry shared by the die nets and the standees: pure numbers, nothing drawn.

In: points as (x, y) tuples in mm, affine maps as 6-tuples (a, b, c, d, e, f) in the PDF
`cm` convention, i.e. (x, y) -> (a*x + c*y + e, b*x + d*y + f). Out: composed maps, polygon
measures, an overlap test for convex polygons and a shelf packer for bounding boxes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

Point = tuple[float, float]
Affine = tuple[float, float, float, float, float, float]

IDENTITY: Affine = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
EPS = 1e-7  # mm: below this two things touch rather than overlap


from .grid import DoesNotFit  # noqa: E402  (a net or standee larger than its area: one error for layout)


def apply(m: Affine, p: Point) -> Point:
    a, b, c, d, e, f = m
    x, y = p
    return a * x + c * y + e, b * x + d * y + f


def compose(outer: Affine, inner: Affine) -> Affine:
    """The map that applies `inner` first, then `outer`."""
    a1, b1, c1, d1, e1, f1 = outer
    a2, b2, c2, d2, e2, f2 = inner
    return (a1 * a2 + c1 * b2, b1 * a2 + d1 * b2,
            a1 * c2 + c1 * d2, b1 * c2 + d1 * d2,
            a1 * e2 + c1 * f2 + e1, b1 * e2 + d1 * f2 + f1)


def invert(m: Affine) -> Affine:
    a, b, c, d, e, f = m
    det = a * d - b * c
    ia, ib, ic, id_ = d / det, -b / det, -c / det, a / det
    return ia, ib, ic, id_, -(ia * e + ic * f), -(ib * e + id_ * f)


def translate(dx: float, dy: float) -> Affine:
    return 1.0, 0.0, 0.0, 1.0, dx, dy


def rotate(degrees: float) -> Affine:
    """Counter-clockwise rotation about the origin (y up). Multiples of 90 degrees are exact."""
    q, r = divmod(degrees, 90)
    if r == 0:
        cos, sin = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)][int(q) % 4]
    else:
        cos, sin = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return cos, sin, -sin, cos, 0.0, 0.0


def form_cm(transform: Affine, face_h: float) -> Affine:
    """The `cm` matrix, in points, that draws a rendered face as a PDF form -- the form's own
    space in pt, y up, origin at the lower-left of the face's viewBox (what CairoSVG writes) --
    where `transform` (face coordinates in mm, y down -> page mm, y up) puts it.
    `face_h` is the viewBox height in mm."""
    k = 72 / 25.4
    to_face = (1 / k, 0.0, 0.0, -1 / k, 0.0, face_h)  # form pt, y up -> face mm, y down
    return compose((k, 0.0, 0.0, k, 0.0, 0.0), compose(transform, to_face))


def area(poly: list[Point]) -> float:
    """Signed area: positive for a counter-clockwise polygon (y up)."""
    s = 0.0
    for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]):
        s += x1 * y2 - x2 * y1
    return s / 2


def centroid(poly: list[Point]) -> Point:
    a = area(poly)
    cx = cy = 0.0
    for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]):
        k = x1 * y2 - x2 * y1
        cx += (x1 + x2) * k
        cy += (y1 + y2) * k
    return cx / (6 * a), cy / (6 * a)


def bbox(points) -> tuple[float, float, float, float]:
    """x0, y0, x1, y1 of some points."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def convex_overlap(p: list[Point], q: list[Point], tol: float = 1e-6) -> float:
    """How deep two convex polygons overlap (separating-axis test), in mm.

    0 (or less) when they are apart or only touch along an edge or at a point; the result is
    the smallest penetration over all edge normals, so 1e-9 from rounding counts as touching.
    """
    depth = math.inf
    for poly in (p, q):
        for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]):
            nx, ny = y1 - y2, x2 - x1
            n = math.hypot(nx, ny)
            if n < tol:
                continue
            nx, ny = nx / n, ny / n
            pa = [nx * x + ny * y for x, y in p]
            qa = [nx * x + ny * y for x, y in q]
            depth = min(depth, min(max(pa), max(qa)) - max(min(pa), min(qa)))
            if depth <= tol:
                return 0.0
    return depth


def grow(poly: list[Point], push: list[float]) -> list[Point]:
    """A convex counter-clockwise polygon with edge i moved outwards by push[i]."""
    n = len(poly)
    lines = []
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        length = math.dist(poly[i], poly[(i + 1) % n])
        nx, ny = (y2 - y1) / length, (x1 - x2) / length
        lines.append(((x1 + nx * push[i], y1 + ny * push[i]), (x2 - x1, y2 - y1)))
    out = []
    for i in range(n):
        (px, py), (dx, dy) = lines[i - 1]
        (qx, qy), (ex, ey) = lines[i]
        t = ((qx - px) * ey - (qy - py) * ex) / (dx * ey - dy * ex)
        out.append((px + t * dx, py + t * dy))
    return out


def clip_convex(subject: list[Point], window: list[Point]) -> list[Point]:
    """The part of a convex polygon inside a convex counter-clockwise window
    (Sutherland-Hodgman), counter-clockwise."""
    out = list(subject)
    for (x1, y1), (x2, y2) in zip(window, window[1:] + window[:1]):
        def side(p, x1=x1, y1=y1, x2=x2, y2=y2):
            return (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1)
        pts, out = out, []
        for p, q in zip(pts, pts[1:] + pts[:1]):
            sp, sq = side(p), side(q)
            if sp >= 0:
                out.append(p)
            if (sp >= 0) != (sq >= 0):
                t = sp / (sp - sq)
                out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def point_in_polygon(pt: Point, poly: list[Point]) -> bool:
    """Even-odd test; points on the outline may go either way."""
    x, y = pt
    inside = False
    for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def outline_of(polygons: list[list[Point]], digits: int = 6) -> list[Point]:
    """The outer outline of polygons that meet edge to edge (a net with its tabs) as one
    closed counter-clockwise polygon.

    Edges two polygons share cancel out; the rest is chained, turning as far right as
    possible where polygons touch at a corner, so the outline goes round all of them.
    :raises ValueError: when the leftover edges do not make one closed outline.
    """
    def key(p):
        return round(p[0], digits) + 0.0, round(p[1], digits) + 0.0

    edges: dict[tuple[Point, Point], bool] = {}
    for poly in polygons:
        if area(poly) < 0:
            poly = poly[::-1]
        for a, b in zip(poly, poly[1:] + poly[:1]):
            ka, kb = key(a), key(b)
            if (kb, ka) in edges:
                del edges[(kb, ka)]
            else:
                edges[(ka, kb)] = True
    out_of: dict[Point, list[Point]] = {}
    for a, b in edges:
        out_of.setdefault(a, []).append(b)
    start = min(out_of)  # lowest-left corner: on the outline, deterministic
    loop, prev, here = [start], None, start
    used = set()
    while True:
        choices = [b for b in out_of[here] if (here, b) not in used]
        if not choices:
            raise ValueError("the outline does not close")
        if prev is None or len(choices) == 1:
            nxt = min(choices)
        else:
            din = math.atan2(here[1] - prev[1], here[0] - prev[0])

            def right_turn(b, here=here, din=din):  # smaller = further right
                t = math.atan2(b[1] - here[1], b[0] - here[0]) - din
                return (t + math.pi) % (2 * math.pi)
            nxt = min(choices, key=right_turn)
        used.add((here, nxt))
        prev, here = here, nxt
        if here == start:
            break
        loop.append(here)
    if len(used) != len(edges):
        raise ValueError("the polygons do not form one piece")
    return loop


@dataclass(frozen=True)
class Placement:
    """Where a packed item goes: page index, lower-left corner (mm) of its bounding box in
    the packing area, and whether it is turned 90 degrees counter-clockwise first."""
    page: int
    x: float
    y: float
    rotated: bool


def shelf_pack(sizes: list[tuple[float, float]], area_w: float, area_h: float,
               gap: float) -> list[Placement]:
    """Place boxes (w, h) in order on shelves filled left to right, top to bottom, pages after
    each other. A box is turned 90 degrees when that keeps it on the current shelf or makes
    it lower; `gap` separates neighbours. Positions are from the area's lower-left corner.

    :raises DoesNotFit: naming the item that fits the area in neither direction.
    """
    out: list[Placement] = []
    page, x, shelf_top, shelf_h = 0, 0.0, area_h, 0.0
    for i, (w, h) in enumerate(sizes):
        options = [(w, h, False), (h, w, True)]
        options = [o for o in options if o[0] <= area_w + EPS and o[1] <= area_h + EPS]
        if not options:
            raise DoesNotFit(f"item {i + 1} ({w:.1f} x {h:.1f} mm) does not fit in "
                             f"{area_w:.1f} x {area_h:.1f} mm")
        options.sort(key=lambda o: (o[1], o[2]))  # lower first

        def fits_here(o, x=x, shelf_top=shelf_top):
            return x + o[0] <= area_w + EPS and shelf_top - o[1] >= -EPS

        here = [o for o in options if fits_here(o) and (shelf_h == 0 or o[1] <= shelf_h + EPS)]
        here = here or [o for o in options if fits_here(o)]
        if not here:  # next shelf, else next page
            shelf_top -= shelf_h + gap
            x, shelf_h = 0.0, 0.0
            here = [o for o in options if fits_here(o, 0.0, shelf_top)]
            if not here:
                page, shelf_top = page + 1, area_h
                here = options
        bw, bh, rot = here[0]
        out.append(Placement(page, x, shelf_top - bh, rot))
        x += bw + gap
        shelf_h = max(shelf_h, bh)
    return out
