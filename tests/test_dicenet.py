"""Die nets: they fold into closed regular solids, every edge joined once, opposite faces
follow the convention, face transforms land exactly on the net, tabs stay clear, nets fit."""
from __future__ import annotations

import math
from dataclasses import replace
from itertools import combinations

import pytest

from generator.layout import dicenet, plane
from generator.layout.dicenet import face_box, fold, net

TYPICAL = {"d6": 20.0, "d8": 25.0, "d12": 18.0}
SIDES = {"d6": 4, "d8": 3, "d12": 5}
FACES = {"d6": 6, "d8": 8, "d12": 12}
CIRCUMRADIUS = {"d6": math.sqrt(3) / 2, "d8": 1 / math.sqrt(2),
                "d12": math.sqrt(3) * (1 + math.sqrt(5)) / 4}
DIES = list(TYPICAL)


def geometric_edges(solid):
    """3D edges (rounded corner pairs) -> faces whose outline contains them."""
    out = {}
    for f, cs in solid.corners.items():
        for a, b in zip(cs, cs[1:] + cs[:1]):
            key = frozenset((tuple(round(v, 4) + 0.0 for v in a), tuple(round(v, 4) + 0.0 for v in b)))
            out.setdefault(key, []).append(f)
    return out


@pytest.mark.parametrize("die", DIES)
@pytest.mark.parametrize("bleed", [0.0, 2.0])
def test_net_folds_into_the_closed_regular_solid(die, bleed):
    n = net(die, TYPICAL[die], bleed)
    solid = fold(n)
    assert solid.problems == []
    e = FACES[die] * SIDES[die] // 2
    assert len(n.fold_tree) == FACES[die] - 1          # a spanning tree
    assert len(n.fold_tree) + len(n.tabs) == e          # every edge joined once: fold or tab
    edges = geometric_edges(solid)
    assert len(edges) == e and all(len(fs) == 2 for fs in edges.values())
    corners = {tuple(round(v, 4) for v in c) for cs in solid.corners.values() for c in cs}
    assert len(corners) == 2 + e - FACES[die]           # Euler: V = 2 + E - F
    middle = [sum(c[k] for c in corners) / len(corners) for k in range(3)]
    radius = CIRCUMRADIUS[die] * TYPICAL[die]
    for c in corners:
        assert abs(math.dist(c, middle) - radius) < 1e-3


@pytest.mark.parametrize("die", DIES)
def test_opposite_faces_add_up_to_n_plus_one(die):
    solid = fold(net(die, TYPICAL[die]))
    n = FACES[die]
    assert sorted(solid.opposite) == list(range(1, n + 1))
    for f, g in solid.opposite.items():
        assert f + g == n + 1 and solid.opposite[g] == f
        # opposite really means parallel planes on either side of the solid
        assert sum(a * b for a, b in zip(solid.normals[f], solid.normals[g])) == pytest.approx(-1)


@pytest.mark.parametrize("die", DIES)
def test_neighbours_in_space_are_what_the_net_joins(die):
    n = net(die, TYPICAL[die])
    solid = fold(n)
    in_space = {f: set() for f in range(1, FACES[die] + 1)}
    for faces in geometric_edges(solid).values():
        f, g = faces
        in_space[f].add(g)
        in_space[g].add(f)
    in_net = {f: set() for f in in_space}
    for a, b, _ in n.fold_tree:
        in_net[a].add(b)
        in_net[b].add(a)
    for t in n.tabs:
        in_net[t.face].add(t.glued_to)
        in_net[t.glued_to].add(t.face)
    assert in_space == in_net == solid.neighbours
    for f, near in in_space.items():
        assert len(near) == SIDES[die]
        assert solid.opposite[f] not in near
    if die == "d6":
        assert all(near == set(range(1, 7)) - {f, 7 - f} for f, near in in_space.items())


def test_fold_catches_a_broken_net():
    n = net("d12", 18.0)
    assert "no tab" in " ".join(fold(replace(n, tabs=n.tabs[1:])).problems)
    wrong = replace(n.tabs[0], glued_to=n.tabs[0].face)
    assert fold(replace(n, tabs=[wrong, *n.tabs[1:]])).problems
    # a face moved out of place no longer meets its partners
    moved = [replace(f, polygon=[(x + 1.0, y) for x, y in f.polygon]) if f.number == 12 else f
             for f in n.faces]
    assert fold(replace(n, faces=moved)).problems
    # numbers swapped on the net break the opposite-sum convention
    swapped = [replace(f, number={1: 2, 2: 1}.get(f.number, f.number)) for f in n.faces]
    tree = [({1: 2, 2: 1}.get(a, a), {1: 2, 2: 1}.get(b, b), s) for a, b, s in n.fold_tree]
    tabs = [replace(t, face={1: 2, 2: 1}.get(t.face, t.face),
                    glued_to={1: 2, 2: 1}.get(t.glued_to, t.glued_to)) for t in n.tabs]
    bad = fold(replace(n, faces=swapped, fold_tree=tree, tabs=tabs))
    assert bad.closed and any(f + g != 13 for f, g in bad.opposite.items())


@pytest.mark.parametrize("die", DIES)
def test_face_box_centres_the_regular_polygon(die):
    e, bleed = TYPICAL[die], 3.0
    w, h, outline = face_box(die, e, bleed)
    x0, y0, x1, y1 = plane.bbox(outline)
    assert (x0, y0) == pytest.approx((bleed, bleed))
    assert (x1 + bleed, y1 + bleed) == pytest.approx((w, h))
    for a, b in zip(outline, outline[1:] + outline[:1]):
        assert math.dist(a, b) == pytest.approx(e)
    # one side flat at the bottom (largest y, since y runs down), running counter-clockwise
    # on the page: area is negative in y-down numbers
    assert outline[0][1] == pytest.approx(y1) and outline[1][1] == pytest.approx(y1)
    assert plane.area(outline) < 0


@pytest.mark.parametrize("die", DIES)
@pytest.mark.parametrize("rotated", [False, True])
def test_transforms_lay_the_face_outline_onto_the_net_polygon(die, rotated):
    bleed = 1.5
    n = net(die, TYPICAL[die], bleed).placed(12.0, 34.0, rotated)
    w, h, outline = face_box(die, TYPICAL[die], bleed)
    for face in n.faces:
        a, b, c, d, _, _ = face.transform
        assert a * d - b * c == pytest.approx(-1)   # y flip then a turn: never a mirror image
        mapped = [plane.apply(face.transform, p) for p in outline]
        k = len(outline)
        shifts = [r for r in range(k)
                  if all(math.dist(mapped[i], face.polygon[(i + r) % k]) < 1e-3 for i in range(k))]
        assert len(shifts) == 1
        # the face's bleed box surrounds the polygon and the clip lies inside the bleed box
        back = plane.invert(face.transform)
        for p in face.clip:
            x, y = plane.apply(back, p)
            assert -1e-6 <= x <= w + 1e-6 and -1e-6 <= y <= h + 1e-6


@pytest.mark.parametrize("die", DIES)
def test_tabs_stay_clear_of_faces_and_each_other(die):
    n = net(die, TYPICAL[die], 2.0)
    faces = [f.polygon for f in n.faces]
    tabs = [t.polygon for t in n.tabs]
    for t in tabs:
        assert plane.area(t) > 0
        assert all(plane.convex_overlap(t, f) == 0 for f in faces)
    for s, t in combinations(tabs, 2):
        assert plane.convex_overlap(s, t) == 0
    for f, g in combinations(faces, 2):
        assert plane.convex_overlap(f, g) == 0
    # a bleed clip covers its face and never runs onto another face or a tab
    for face in n.faces:
        assert all(plane.point_in_polygon(plane.centroid(face.polygon), face.clip) for _ in [0])
        assert abs(plane.area(face.clip)) >= abs(plane.area(face.polygon)) - 1e-9
        others = [f.polygon for f in n.faces if f is not face] + tabs
        assert all(plane.convex_overlap(face.clip, q) == 0 for q in others)
    assert any(plane.area(f.clip) > plane.area(f.polygon) + 1 for f in n.faces)


def test_overlap_test_sees_overlap():
    sq = [(0, 0), (1, 0), (1, 1), (0, 1)]
    assert plane.convex_overlap(sq, [(x + 0.5, y + 0.5) for x, y in sq]) == pytest.approx(0.5)
    assert plane.convex_overlap(sq, [(x + 1, y) for x, y in sq]) == 0  # shares an edge


@pytest.mark.parametrize("die", DIES)
def test_cut_path_goes_round_faces_and_tabs(die):
    n = net(die, TYPICAL[die])
    cut = n.cut_path
    assert plane.area(cut) > 0
    pieces = [f.polygon for f in n.faces] + [t.polygon for t in n.tabs]
    assert plane.area(cut) == pytest.approx(sum(plane.area(p) for p in pieces))
    for p in pieces:
        c = plane.centroid(p)
        inner = [(x + 0.01 * (c[0] - x), y + 0.01 * (c[1] - y)) for x, y in p]
        assert all(plane.point_in_polygon(q, cut) for q in inner + [c])
    x0, y0, x1, y1 = plane.bbox(cut)
    assert (x0, y0) == pytest.approx((0, 0)) and (x1, y1) == pytest.approx((n.width, n.height))


@pytest.mark.parametrize("area", [(190.0, 250.0), (215.9 - 2 * 12.7, 279.4 - 2 * 12.7)])
def test_nets_fit_small_paper_and_pack(area):
    nets = [net(d, e, 1.0) for d, e in TYPICAL.items()]
    for n in nets:
        assert dicenet.fits(n, *area) or dicenet.fits(n, *area, rotated=True)
    spots = dicenet.pack_nets(nets, *area, gap=4.0)
    boxes = []
    for n, s in zip(nets, spots):
        p = n.placed(s.x, s.y, s.rotated)
        x0, y0, x1, y1 = plane.bbox(p.cut_path)
        assert x0 >= -1e-6 and y0 >= -1e-6 and x1 <= area[0] + 1e-6 and y1 <= area[1] + 1e-6
        boxes.append((s.page, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]))
    for (pa, a), (pb, b) in combinations(boxes, 2):
        assert pa != pb or plane.convex_overlap(a, b) == 0


def test_big_nets_spill_onto_more_pages_and_too_big_is_an_error():
    nets = [net("d12", 18.0)] * 5
    spots = dicenet.pack_nets(nets, 190.0, 250.0)
    assert max(s.page for s in spots) >= 1
    assert [s.page for s in spots] == sorted(s.page for s in spots)
    with pytest.raises(dicenet.DoesNotFit):
        dicenet.pack_nets([net("d12", 60.0)], 190.0, 250.0)


def test_unknown_die_and_bad_sizes_are_errors():
    with pytest.raises(dicenet.NetError, match="d20"):
        net("d20", 10.0)
    with pytest.raises(dicenet.NetError):
        net("d6", 0.0)


def test_nets_are_deterministic():
    assert net("d12", 18.0, 1.0) == net("d12", 18.0, 1.0)


def test_the_loader_knows_the_same_dice_as_the_nets():
    from generator.layout.dicenet import DIES as NETS
    from generator.shapes import DICE

    assert DICE == {name: (die.sides, die.faces) for name, die in NETS.items()}
