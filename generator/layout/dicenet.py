"""Printable die nets (d6, d8, d12): pure geometry, nothing drawn.

In: a die name, the edge length of one face (mm) and the face bleed (mm). Out: a `DieNet`
in net coordinates -- mm, y UP, origin at the lower-left corner of the net's bounding box
(faces and tabs) -- with every face polygon, the affine map that puts the rendered face there,
the fold lines, the glue tabs and the outline to cut along.

A net is faces plus a spanning tree of fold edges. Folding the tree (`fold`) shows which free
edges meet in space; each such pair gets ONE trapezoid glue tab on one of its two edges, so
every edge of the solid is joined exactly once: by a fold or by a tab.

Face coordinates are those of the face template's viewBox (`face_box`): mm, origin top-left,
y DOWN, the face polygon's bounding box plus `bleed` on every side. A `NetFace.transform`
(a, b, c, d, e, f) follows the PDF `cm` convention, (x, y) -> (a*x + c*y + e, b*x + d*y + f),
and maps face coordinates onto net coordinates: it is a rotation plus the y flip, never a
mirror of the art, and of the polygon's symmetric turns it picks the one nearest upright.

"The printed die matches its data": face k of the net (NetFace.number) shows item k of the
card's `faces` list, and after folding, opposite faces add up to N + 1 (d6: 7, d8: 9, d12: 13),
the standard convention. `fold` recomputes this from the folded 3D solid.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace

from ..shapes import die_face_box
from . import plane
from .fold3d import dot, fold_faces, norm, sub
from .plane import Affine, DoesNotFit, Placement, Point

__all__ = ["DIES", "DieNet", "NetFace", "Tab", "Solid", "DoesNotFit", "NetError",
           "net", "face_box", "fold", "fits", "pack_nets"]

TAB_DEPTH = 0.28  # tab height as a share of the edge ...
TAB_MAX = 7.0     # ... but never more than this (mm)
TAB_SLANTS = (45.0, 30.0)  # degrees between a tab's side and its base: steep first, then
                           # narrower for tight corners (the d12's 36 degree notches)
TAB_TOP = 0.3     # the tab's outer side keeps at least this share of the edge
MATCH = 0.01      # mm: folded edges this close meet


class NetError(ValueError):
    """A net that cannot be built (no tab arrangement fits) or does not fold up."""


@dataclass(frozen=True)
class Die:
    """A die's solid and the net we print for it.

    `tree[i]` = (parent slot, parent edge) for slot i + 1: the child's edge 0 is folded to
    edge `parent edge` of the parent. `numbers[slot]` = the face number printed there.
    """
    sides: int          # corners of one face
    dihedral: float     # degrees between neighbouring faces of the solid
    tree: tuple[tuple[int, int], ...]
    numbers: tuple[int, ...]

    @property
    def faces(self) -> int:
        return len(self.numbers)


DIES = {
    # A cross: a strip of four squares and one on each side of the second.
    "d6": Die(4, 90.0, ((0, 2), (1, 2), (2, 2), (1, 1), (1, 3)), (1, 2, 6, 5, 3, 4)),
    # A zigzag strip of six triangles with one more above and one below.
    "d8": Die(3, math.degrees(math.acos(-1 / 3)),
              ((0, 1), (1, 2), (2, 1), (3, 2), (4, 1), (1, 1), (4, 2)),
              (1, 2, 3, 8, 7, 6, 4, 5)),
    # Two "flowers" (a pentagon ringed by five) joined petal to petal.
    "d12": Die(5, math.degrees(math.acos(-1 / math.sqrt(5))),
               ((0, 0), (0, 1), (0, 2), (0, 3), (0, 4),
                (1, 2), (6, 3), (7, 1), (7, 2), (7, 3), (7, 4)),
               (1, 2, 3, 4, 5, 6, 9, 12, 10, 11, 7, 8)),
}


@dataclass(frozen=True)
class NetFace:
    number: int                 # 1..N: item `number` of the card's faces
    polygon: list[Point]        # counter-clockwise, net coordinates
    transform: Affine           # face coordinates (viewBox, y down) -> net coordinates
    clip: list[Point]           # polygon grown by the bleed on its cut edges (convex)


@dataclass(frozen=True)
class Tab:
    polygon: list[Point]        # trapezoid, counter-clockwise; its base is `edge`
    face: int                   # the face it hangs from
    edge: tuple[Point, Point]   # the base: fold the tab here
    glued_to: int               # the face whose edge it is glued under


@dataclass(frozen=True)
class DieNet:
    die: str
    edge: float
    bleed: float
    faces: list[NetFace]
    fold_tree: list[tuple[int, int, tuple[Point, Point]]]  # (parent, child, shared edge)
    tabs: list[Tab]
    cut_path: list[Point]       # closed, counter-clockwise: faces + tabs
    width: float
    height: float

    @property
    def fold_edges(self) -> list[tuple[Point, Point]]:
        """Lines to fold along (dashed): face-to-face folds, then tab bases."""
        return [seg for _, _, seg in self.fold_tree] + [t.edge for t in self.tabs]

    def placed(self, x: float, y: float, rotated: bool = False) -> DieNet:
        """The same net moved so its bounding box's lower-left corner is at (x, y), turned 90
        degrees counter-clockwise first when `rotated`: every polygon and transform follows."""
        m = plane.rotate(90) if rotated else plane.IDENTITY
        if rotated:
            m = plane.compose(plane.translate(self.height, 0.0), m)
        m = plane.compose(plane.translate(x, y), m)

        def pts(ps):
            return [plane.apply(m, p) for p in ps]

        def seg(s):
            return plane.apply(m, s[0]), plane.apply(m, s[1])
        faces = [replace(f, polygon=pts(f.polygon), clip=pts(f.clip),
                         transform=plane.compose(m, f.transform)) for f in self.faces]
        tabs = [replace(t, polygon=pts(t.polygon), edge=seg(t.edge)) for t in self.tabs]
        tree = [(a, b, seg(s)) for a, b, s in self.fold_tree]
        w, h = (self.height, self.width) if rotated else (self.width, self.height)
        return replace(self, faces=faces, tabs=tabs, fold_tree=tree, cut_path=pts(self.cut_path),
                       width=w, height=h)


@dataclass
class Solid:
    """A folded net: where each face sits in space and how faces meet."""
    corners: dict[int, list[tuple[float, float, float]]]
    normals: dict[int, tuple[float, float, float]]   # unit, outward
    neighbours: dict[int, set[int]] = field(default_factory=dict)
    opposite: dict[int, int] = field(default_factory=dict)
    glued: set[frozenset] = field(default_factory=set)  # {(face, edge index), (face, edge index)}
    problems: list[str] = field(default_factory=list)

    @property
    def closed(self) -> bool:
        return not self.problems


def _die(die: str) -> Die:
    if die not in DIES:
        raise NetError(f"unknown die {die!r}; known: {', '.join(DIES)}")
    return DIES[die]


def _regular(n: int, edge: float, a: Point = (0.0, 0.0), b: Point | None = None) -> list[Point]:
    """A regular n-gon, counter-clockwise, whose first edge runs a -> b (default: along +x)."""
    if b is None:
        b = (a[0] + edge, a[1])
    pts = [a, b]
    ang = math.atan2(b[1] - a[1], b[0] - a[0])
    for _ in range(n - 2):
        ang += 2 * math.pi / n
        x, y = pts[-1]
        pts.append((x + edge * math.cos(ang), y + edge * math.sin(ang)))
    return pts


def face_box(die: str, edge: float, bleed: float) -> tuple[float, float, list[Point]]:
    """(w, h, outline) of the face template's viewBox (see `shapes.die_face_box`)."""
    _die(die)
    return die_face_box(die, edge, bleed)


def _face_transform(outline: list[Point], polygon: list[Point]) -> Affine:
    """The rotation (after the y flip) that lays the face outline onto the net polygon,
    choosing among the polygon's symmetric turns the one nearest upright."""
    n = len(outline)
    q0, q1 = outline[0], outline[1]
    base = math.atan2(-(q1[1] - q0[1]), q1[0] - q0[0])
    best: tuple[tuple[float, float], float, Point] | None = None
    for r in range(n):
        p0, p1 = polygon[r], polygon[(r + 1) % n]
        theta = math.atan2(p1[1] - p0[1], p1[0] - p0[0]) - base
        theta = math.remainder(theta, 2 * math.pi)
        key = (round(abs(theta), 9), -theta)
        if best is None or key < best[0]:
            best = (key, theta, p0)
    assert best is not None   # an outline has three corners or more
    _, theta, p0 = best
    c, s = math.cos(theta), math.sin(theta)
    lin = (c, s, s, -c, 0.0, 0.0)
    e, f = plane.apply(lin, q0)
    return c, s, s, -c, p0[0] - e, p0[1] - f


def _tab(a: Point, b: Point, slant: float) -> list[Point]:
    """Trapezoid on the right of a -> b (outside a counter-clockwise face), counter-clockwise,
    its sides `slant` degrees off the base."""
    length = math.dist(a, b)
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    nx, ny = uy, -ux  # right-hand normal
    tan = math.tan(math.radians(slant))
    depth = min(length * TAB_DEPTH, TAB_MAX, length * (1 - TAB_TOP) / 2 * tan)
    inset = depth / tan
    return [b, a,
            (a[0] + ux * inset + nx * depth, a[1] + uy * inset + ny * depth),
            (b[0] - ux * inset + nx * depth, b[1] - uy * inset + ny * depth)]


def _free_edge_pairs(polys: dict[int, list[Point]], tree, fold_angle: float):
    """Fold in space; return the solid and the pairs of free (face, edge) that meet."""
    folded = fold_faces(polys, tree, fold_angle)
    folds = set()
    for parent, child, (p, q) in tree:
        for face in (parent, child):
            poly = polys[face]
            for i in range(len(poly)):
                if {poly[i], poly[(i + 1) % len(poly)]} == {p, q}:
                    folds.add((face, i))
    free = [(f, i) for f in sorted(polys) for i in range(len(polys[f])) if (f, i) not in folds]
    solid = Solid(corners={f: c for f, (c, _) in folded.items()},
                  normals={f: n for f, (_, n) in folded.items()})

    def ends(fe):
        corners = solid.corners[fe[0]]
        return corners[fe[1]], corners[(fe[1] + 1) % len(corners)]
    for a in free:
        a0, a1 = ends(a)
        meets = [b for b in free if b != a and norm(sub(a0, ends(b)[1])) < MATCH
                 and norm(sub(a1, ends(b)[0])) < MATCH]
        if len(meets) != 1:
            solid.problems.append(f"edge {a[1]} of face {a[0]} meets {len(meets)} free edges")
        else:
            solid.glued.add(frozenset((a, meets[0])))
    return solid, folds


@functools.lru_cache(maxsize=16)
def net(die: str, edge: float, bleed: float = 0.0) -> DieNet:
    """The printable net of a die with faces `edge` mm long and face art bled by `bleed` mm:
    a pure function of them, worked out once a process (a watch's rebuild lays its dice
    out again); a net is never changed (`placed` makes a moved copy).

    :raises NetError: for an unknown die or when no tab arrangement fits.
    """
    spec = _die(die)
    if edge <= 0 or bleed < 0:
        raise NetError(f"a {die} needs a positive edge and a bleed of 0 or more")
    slots = [_regular(spec.sides, edge)]
    tree = []
    for child, (parent, pe) in enumerate(spec.tree, start=1):
        pp = slots[parent]
        a, b = pp[pe], pp[(pe + 1) % spec.sides]
        slots.append(_regular(spec.sides, edge, b, a))
        tree.append((spec.numbers[parent], spec.numbers[child], (a, b)))
    polys = {spec.numbers[s]: p for s, p in enumerate(slots)}
    solid, _ = _free_edge_pairs(polys, tree, math.radians(180 - spec.dihedral))
    if not solid.closed:
        raise NetError(f"the {die} net does not fold up: " + "; ".join(solid.problems))
    tabs = _place_tabs(polys, sorted(sorted(p) for p in solid.glued))
    if tabs is None:
        raise NetError(f"the glue tabs of a {die} net overlap whichever way they are placed")
    # Move the net so its bounding box starts at the origin.
    x0, y0, x1, y1 = plane.bbox([p for poly in polys.values() for p in poly]
                                + [p for t in tabs for p in t.polygon])
    shift = plane.translate(-x0, -y0)

    def mv(ps):
        return [plane.apply(shift, p) for p in ps]
    polys = {f: mv(p) for f, p in polys.items()}
    tabs = [replace(t, polygon=mv(t.polygon), edge=tuple(mv(t.edge))) for t in tabs]
    tree = [(a, b, tuple(mv(s))) for a, b, s in tree]
    fw, fh, outline = face_box(die, edge, bleed)
    cut_edges = _cut_edges(polys, tree, tabs)
    faces = []
    for f in sorted(polys):
        others = [p for g, p in polys.items() if g != f] + [t.polygon for t in tabs]
        t = _face_transform(outline, polys[f])
        box = [plane.apply(t, p) for p in [(0, 0), (fw, 0), (fw, fh), (0, fh)]][::-1]
        faces.append(NetFace(f, polys[f], t,
                             _bleed_clip(polys[f], cut_edges[f], bleed, others, box)))
    cut = plane.outline_of(list(polys.values()) + [t.polygon for t in tabs])
    return DieNet(die, edge, bleed, faces, tree, tabs, cut, x1 - x0, y1 - y0)


def _place_tabs(polys, pairs):
    """One tab per glued pair, on whichever side keeps it clear of faces and other tabs
    (searching all choices: steep tabs first, first edge of the pair first). None when
    nothing fits."""
    faces = list(polys.values())
    options = []
    for pair in pairs:
        opts = []
        for slant in TAB_SLANTS:
            for (f, i), (g, _) in (pair, pair[::-1]):
                a, b = polys[f][i], polys[f][(i + 1) % len(polys[f])]
                poly = _tab(a, b, slant)
                if all(plane.convex_overlap(poly, q) == 0 for q in faces):
                    opts.append(Tab(poly, f, (a, b), g))
        options.append(opts)

    def search(k, chosen):
        if k == len(options):
            return chosen
        for t in options[k]:
            if all(plane.convex_overlap(t.polygon, c.polygon) == 0 for c in chosen):
                found = search(k + 1, chosen + [t])
                if found is not None:
                    return found
        return None
    return search(0, [])


def _cut_edges(polys, tree, tabs) -> dict[int, list[bool]]:
    """Per face, per edge: True when the edge is cut (neither a fold nor a tab's base)."""
    inner = {frozenset(s) for _, _, s in tree} | {frozenset(t.edge) for t in tabs}
    out = {}
    for f, poly in polys.items():
        n = len(poly)
        out[f] = [frozenset((poly[i], poly[(i + 1) % n])) not in inner for i in range(n)]
    return out


def _bleed_clip(poly, cut, bleed, others, box):
    """The face grown by `bleed` on its cut edges, one edge at a time in order, leaving out an
    edge whose bleed would run onto another face or a tab (so clipping never paints them);
    sharp corners are cut back to the face's bleed `box`, where the art ends."""
    push = [0.0] * len(poly)
    if bleed == 0:
        return list(poly)
    for i, is_cut in enumerate(cut):
        if not is_cut:
            continue
        trial = push[:i] + [bleed] + push[i + 1:]
        grown = plane.clip_convex(plane.grow(poly, trial), box)
        if all(plane.convex_overlap(grown, q) == 0 for q in others):
            push = trial
    return plane.clip_convex(plane.grow(poly, push), box)


def fold(dn: DieNet) -> Solid:
    """Fold a net in 3D along its fold tree (each child turned about its shared edge by 180
    degrees minus the dihedral angle) and describe the solid: which faces meet (`neighbours`),
    which face lies opposite (`opposite`: parallel, normals pointing apart), and `problems`
    when a free edge meets no or several other free edges within 0.01 mm, an edge pair meets
    without a tab joining it, a tab joins edges that do not meet, or a normal points inward."""
    spec = _die(dn.die)
    polys = {f.number: f.polygon for f in dn.faces}
    solid, folds = _free_edge_pairs(polys, dn.fold_tree, math.radians(180 - spec.dihedral))
    index = {}
    for f, poly in polys.items():
        for i in range(len(poly)):
            index[frozenset((poly[i], poly[(i + 1) % len(poly)]))] = (f, i)
    tab_pairs = set()
    for t in dn.tabs:
        mine = index.get(frozenset(t.edge))
        if mine is None or mine[0] != t.face:
            solid.problems.append(f"a tab of face {t.face} does not sit on one of its edges")
            continue
        partner = [fe for pair in solid.glued if mine in pair for fe in pair if fe != mine]
        if not partner or partner[0][0] != t.glued_to:
            solid.problems.append(f"the tab on face {t.face} is glued to face {t.glued_to}, "
                                  f"which does not meet that edge")
        tab_pairs.add(frozenset([mine] + partner[:1]))
    for pair in solid.glued - tab_pairs:
        (f, i), (g, j) = sorted(pair)
        solid.problems.append(f"edge {i} of face {f} meets face {g} with no tab")
    if len(tab_pairs) != len(dn.tabs):
        solid.problems.append("two tabs join the same edges")
    faces = sorted(polys)
    for f in faces:
        solid.neighbours[f] = set()
    for pair in solid.glued:
        (f, _), (g, _) = tuple(pair)
        solid.neighbours[f].add(g)
        solid.neighbours[g].add(f)
    for parent, child, _ in dn.fold_tree:
        solid.neighbours[parent].add(child)
        solid.neighbours[child].add(parent)
    middle = tuple(sum(c[k] for f in faces for c in solid.corners[f])
                   / sum(len(solid.corners[f]) for f in faces) for k in range(3))
    for f in faces:
        cs = solid.corners[f]
        centre = tuple(sum(c[k] for c in cs) / len(cs) for k in range(3))
        if dot(sub(centre, middle), solid.normals[f]) <= 0:
            solid.problems.append(f"face {f} faces into the solid")
        apart = [g for g in faces if dot(solid.normals[f], solid.normals[g]) < -1 + 1e-9]
        if len(apart) == 1:
            solid.opposite[f] = apart[0]
    return solid


def fits(dn: DieNet, width: float, height: float, rotated: bool = False) -> bool:
    """Whether the net's bounding box fits a width x height area (turned 90 degrees first
    when `rotated`)."""
    w, h = (dn.height, dn.width) if rotated else (dn.width, dn.height)
    return w <= width + plane.EPS and h <= height + plane.EPS


def pack_nets(nets: list[DieNet], area_w: float, area_h: float,
              gap: float = 5.0) -> list[Placement]:
    """Shelf packing of the nets' bounding boxes: per net, page, lower-left corner (mm from
    the area's lower-left) and whether to turn it; apply with `DieNet.placed(x, y, rotated)`.

    :raises DoesNotFit: when a net is larger than the area either way.
    """
    return plane.shelf_pack([(n.width, n.height) for n in nets], area_w, area_h, gap)
