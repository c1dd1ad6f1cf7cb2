"""Round and hexagonal tokens packed on a sheet (layout/packing.py), tested alone."""
from __future__ import annotations

import itertools
import math

import pytest

from generator.layout.grid import MIN_MARGIN
from generator.layout.packing import MIN_GAP, pack
from generator.shapes import Outline, hex_height
from generator.units import PAPERS

CASES = [("circle", 25, 25, 1.5, "pointy"), ("circle", 16, 16, 0.5, "pointy"), ("circle", 60, 60, 3, "pointy"),
         ("hex", 40, hex_height(40, "pointy"), 2, "pointy"), ("hex", 30 * 2 / math.sqrt(3), 30, 2, "flat"),
         ("hex", 46.188, 40, 2, "flat"), ("hex", 25, hex_height(25, "pointy"), 0, "pointy")]


def _separation(a: list, b: list) -> float:
    """Largest gap along any edge normal of two convex polygons (> 0: apart by that much)."""
    best = -math.inf
    for poly in (a, b):
        for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]):
            nx, ny = y2 - y1, x1 - x2
            n = math.hypot(nx, ny)
            nx, ny = nx / n, ny / n
            pa = [x * nx + y * ny for x, y in a]
            pb = [x * nx + y * ny for x, y in b]
            best = max(best, min(pb) - max(pa), min(pa) - max(pb))
    return best


def _to_segment(p, a, b) -> float:
    (px, py), (ax, ay), (bx, by) = p, a, b
    t = max(0.0, min(1.0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)))
    return math.hypot(px - ax - t * (bx - ax), py - ay - t * (by - ay))


def _gap(o1: Outline, o2: Outline) -> float:
    """The shortest distance between two cut paths (negative or 0 when they meet)."""
    if o1.shape == "circle":
        (x1, y1), (x2, y2) = o1.centre, o2.centre
        return math.hypot(x2 - x1, y2 - y1) - o1.w / 2 - o2.w / 2
    a, b = o1.polygon(), o2.polygon()
    if _separation(a, b) <= 0:
        return _separation(a, b)
    return min(min(_to_segment(p, q1, q2) for p in pts for q1, q2 in zip(other, other[1:] + other[:1]))
               for pts, other in ((a, b), (b, a)))


@pytest.mark.slow
@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("shape, w, h, bleed, orientation", CASES)
def test_cut_paths_never_touch_and_bleeds_never_cover_a_neighbour(paper, shape, w, h, bleed, orientation):
    p = pack(paper, PAPERS[paper], shape, w, h, bleed, orientation)
    assert p.per_page >= 1
    outlines = [p.outline(i) for i in range(p.per_page)]
    for a, b in itertools.combinations(outlines, 2):
        gap = _gap(a, b)
        assert gap >= max(2 * bleed, MIN_GAP) - 1e-3, (a, b, gap)  # positions are kept to 0.1 µm
        if shape == "hex":  # the bleed of one never reaches into the other's trim
            assert _separation(a.grown(bleed).polygon(), b.polygon()) > 0


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("shape, w, h, bleed, orientation", CASES)
def test_every_token_and_its_bleed_stays_on_the_printable_paper(paper, shape, w, h, bleed, orientation):
    p = pack(paper, PAPERS[paper], shape, w, h, bleed, orientation)
    page_w, page_h = PAPERS[paper]
    for i in range(p.per_page):
        o = p.outline(i).grown(bleed)
        assert o.x >= MIN_MARGIN - 1e-6 and o.y >= MIN_MARGIN - 1e-6
        assert o.x + o.w <= page_w - MIN_MARGIN + 1e-6 and o.y + o.h <= page_h - MIN_MARGIN + 1e-6


def test_hex_packing_beats_a_plain_grid_for_circles():
    """Offset rows fit more 25 mm discs on A4 than a square grid of the same pitch would."""
    p = pack("a4", PAPERS["a4"], "circle", 25, 25, 1.5)
    pitch = 25 + 3
    square = math.floor((210 - 2 * MIN_MARGIN - 3 + 3) / pitch) * math.floor((297 - 2 * MIN_MARGIN - 6 - 3 + 3) / pitch)
    assert p.offset_rows and p.per_page > square


@pytest.mark.parametrize("shape, w, h, orientation", [("circle", 25, 25, "pointy"),
                                                      ("hex", 40, hex_height(40, "pointy"), "pointy"),
                                                      ("hex", 46.188, 40, "flat")])
def test_backs_mirror_their_fronts_for_a_long_edge_flip(shape, w, h, orientation):
    p = pack("a4", PAPERS["a4"], shape, w, h, 2, orientation)
    for i in range(p.per_page):
        front, back = p.outline(i), p.outline(i, back=True)
        assert abs((210 - back.x - back.w) - front.x) < 1e-9 and back.y == front.y


def test_slots_fill_from_the_top_row_left_to_right():
    p = pack("a4", PAPERS["a4"], "hex", 40, hex_height(40, "pointy"), 2, "pointy")
    rows = [round(y, 3) for _, y in p.boxes]
    assert rows == sorted(rows, reverse=True)
    for y in set(rows):
        xs = [x for x, yy in p.boxes if round(yy, 3) == y]
        assert xs == sorted(xs)


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_grown_hexagon_keeps_its_sides_parallel_at_the_bleed_distance(orientation):
    w = 40 if orientation == "pointy" else 46.188
    o = Outline("hex", 10, 20, w, hex_height(w, orientation), orientation=orientation)
    g = o.grown(2)
    trim, grown = o.polygon(), g.polygon()
    for i, (p1, p2) in enumerate(zip(trim, trim[1:] + trim[:1])):
        nx, ny = p2[1] - p1[1], p1[0] - p2[0]  # outward normal of a counter-clockwise polygon
        n = math.hypot(nx, ny)
        for q in (grown[i], grown[(i + 1) % 6]):  # both ends of the matching side
            assert abs(((q[0] - p1[0]) * nx + (q[1] - p1[1]) * ny) / n - 2) < 1e-6
    assert g.centre == pytest.approx(o.centre)
