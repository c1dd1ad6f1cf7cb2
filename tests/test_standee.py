"""Fold-over standees: the back is the front's mirror about the fold, sides read the right
way up, flaps sit at the feet, the cut path encloses it all, packing keeps them on the page."""
from __future__ import annotations

import math
from itertools import combinations

import pytest

from generator.layout import plane
from generator.layout.standee import StandeeError, base_strip, pack_standees, standee

W, H, BLEED, DEPTH = 40.0, 70.0, 3.0, 20.0
SAMPLES = [(0.0, 0.0), (3.0, 3.0), (11.5, 27.25), (46.0, 76.0), (30.0, 5.0)]


def reflect(p, line):
    """Mirror a point across a horizontal or vertical line."""
    (x1, y1), (x2, y2) = line
    if abs(y1 - y2) < 1e-12:
        return p[0], 2 * y1 - p[1]
    return 2 * x1 - p[0], p[1]


@pytest.mark.parametrize("rotated", [False, True])
def test_front_and_back_are_mirror_images_across_the_fold(rotated):
    s = standee(W, H, BLEED, DEPTH).placed(7.0, 9.0, rotated)
    face_w = W + 2 * BLEED
    for fx, fy in SAMPLES:
        front = plane.apply(s.front.transform, (fx, fy))
        # the figure point behind it is drawn by the back template at the mirrored x
        behind = plane.apply(s.back.transform, (face_w - fx, fy))
        assert math.dist(reflect(front, s.fold_line), behind) < 1e-9
        # the same art point: turned 180 degrees about the middle of the fold
        same = plane.apply(s.back.transform, (fx, fy))
        mx, my = [(a + b) / 2 for a, b in zip(*s.fold_line)]
        assert math.dist((2 * mx - front[0], 2 * my - front[1]), same) < 1e-9


def test_sides_are_never_mirrored_and_heads_meet_at_the_fold():
    s = standee(W, H, BLEED, DEPTH)
    for side in (s.front, s.back):
        a, b, c, d, _, _ = side.transform
        assert a * d - b * c == pytest.approx(-1)  # y flip only: the art is not mirrored
    fold_y = s.fold_line[0][1]
    head = (BLEED + W / 2, BLEED)        # top middle of the art, face coordinates
    feet = (BLEED + W / 2, BLEED + H)
    assert plane.apply(s.front.transform, head)[1] == pytest.approx(fold_y)
    assert plane.apply(s.back.transform, head)[1] == pytest.approx(fold_y)
    assert plane.apply(s.front.transform, feet)[1] == pytest.approx(fold_y + H)   # above
    assert plane.apply(s.back.transform, feet)[1] == pytest.approx(fold_y - H)    # below
    # the front is turned upside down: its art's left edge lands on the right
    assert plane.apply(s.front.transform, (BLEED, BLEED))[0] == pytest.approx(BLEED + W)
    assert plane.apply(s.back.transform, (BLEED, BLEED))[0] == pytest.approx(BLEED)


@pytest.mark.parametrize("base", ["flaps", "slot"])
def test_trim_boxes_flaps_and_cut_path(base):
    s = standee(W, H, BLEED, DEPTH, base=base)
    for side in (s.front, s.back):
        x, y, w, h = side.trim
        corners = [plane.apply(side.transform, p) for p in
                   [(BLEED, BLEED), (BLEED + W, BLEED), (BLEED + W, BLEED + H), (BLEED, BLEED + H)]]
        assert plane.bbox(corners) == pytest.approx((x, y, x + w, y + h))
        cx, cy, cw, ch = side.clip
        assert cy == y and ch == h                    # no bleed across the fold or onto a flap
        assert cx == pytest.approx(x - BLEED) and cw == pytest.approx(w + 2 * BLEED)
    fy = s.fold_line[0][1]
    assert s.back.trim[1] + H == pytest.approx(fy) == s.front.trim[1]
    pieces = [plane.bbox([(x, y), (x + w, y + h)]) for x, y, w, h in (s.front.trim, s.back.trim)]
    polys = [[(a, b), (c, b), (c, d), (a, d)] for a, b, c, d in pieces] + s.flaps
    assert plane.area(s.cut_path) == pytest.approx(sum(plane.area(p) for p in polys))
    for p in polys:
        c = plane.centroid(p)
        assert plane.point_in_polygon(c, s.cut_path)
        assert all(min(math.dist(q, r) for r in s.cut_path) >= 0 for q in p)
    for a, b in combinations(polys, 2):
        assert plane.convex_overlap(a, b) == 0
    if base == "flaps":
        assert len(s.flaps) == 2 and len(s.flap_folds) == 2
        assert s.flap_folds[0][0][1] == pytest.approx(s.back.trim[1])
        assert s.flap_folds[1][0][1] == pytest.approx(s.front.trim[1] + H)
        assert s.height == pytest.approx(2 * H + 2 * DEPTH + 2 * BLEED)
    else:
        assert s.flaps == [] and s.height == pytest.approx(2 * H + 2 * BLEED)
    assert s.width == pytest.approx(W + 2 * BLEED)
    x0, y0, x1, y1 = plane.bbox(s.cut_path)
    assert x0 >= 0 and y0 >= 0 and x1 <= s.width and y1 <= s.height


def test_base_strip_slot_fits_the_figure():
    strip = base_strip(W, DEPTH)
    x0, y0, x1, y1 = plane.bbox(strip.slot)
    assert x1 - x0 == pytest.approx(W)
    assert all(plane.point_in_polygon(p, strip.outline) for p in strip.slot)
    assert (x0 + x1) / 2 == pytest.approx(strip.width / 2) and (y0 + y1) / 2 == pytest.approx(DEPTH / 2)


def test_bad_sizes_are_errors():
    with pytest.raises(StandeeError):
        standee(0, H, BLEED)
    with pytest.raises(StandeeError, match="base"):
        standee(W, H, BLEED, base="peg")
    with pytest.raises(StandeeError):
        base_strip(W, 5.0, slot=6.0)


def test_standees_pack_on_a4_without_overlap():
    items = [standee(W, H, BLEED) for _ in range(5)] + [base_strip(W)]
    area = (190.0, 277.0)
    spots = pack_standees(items, *area)
    boxes = []
    for item, s in zip(items, spots):
        w, h = (item.height, item.width) if s.rotated else (item.width, item.height)
        assert s.x + w <= area[0] + 1e-9 and s.y >= -1e-9 and s.y + h <= area[1] + 1e-9
        boxes.append((s.page, [(s.x, s.y), (s.x + w, s.y), (s.x + w, s.y + h), (s.x, s.y + h)]))
    for (pa, a), (pb, b) in combinations(boxes, 2):
        assert pa != pb or plane.convex_overlap(a, b) == 0
    placed = items[0].placed(spots[0].x, spots[0].y, spots[0].rotated)
    assert plane.bbox(placed.cut_path)[0] >= spots[0].x
