"""Folding a flat net in 3D: rigid motions of the faces about their fold edges.

In: face polygons in the plane (mm, y up, counter-clockwise seen from the printed side), a fold
tree (parent face, child face, the segment they share) and the fold angle. Out: each face's
corners in space. The printed side faces +z before folding; every child turns down (towards
-z) about its shared edge, so the printed sides end up outside the solid. Nothing drawn.
"""
from __future__ import annotations

import math

Vec = tuple[float, float, float]
# A rigid motion: 3x3 rotation (rows) and translation.
Motion = tuple[tuple[Vec, Vec, Vec], Vec]

STILL: Motion = (((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)), (0.0, 0.0, 0.0))


def sub(a: Vec, b: Vec) -> Vec:
    return a[0] - b[0], a[1] - b[1], a[2] - b[2]


def add(a: Vec, b: Vec) -> Vec:
    return a[0] + b[0], a[1] + b[1], a[2] + b[2]


def dot(a: Vec, b: Vec) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def scale(a: Vec, k: float) -> Vec:
    return a[0] * k, a[1] * k, a[2] * k


def norm(a: Vec) -> float:
    return math.sqrt(dot(a, a))


def move(m: Motion, p: Vec) -> Vec:
    r, t = m
    return add((dot(r[0], p), dot(r[1], p), dot(r[2], p)), t)


def turn(m: Motion, v: Vec) -> Vec:
    """A direction moved by m (rotation only)."""
    r, _ = m
    return dot(r[0], v), dot(r[1], v), dot(r[2], v)


def then(outer: Motion, inner: Motion) -> Motion:
    """The motion that does `inner` first, then `outer`."""
    (ro, _), (ri, ti) = outer, inner
    cols = list(zip(*ri))
    rows = [(dot(ro[i], cols[0]), dot(ro[i], cols[1]), dot(ro[i], cols[2])) for i in range(3)]
    return (rows[0], rows[1], rows[2]), move(outer, ti)


def hinge(a: Vec, b: Vec, angle: float) -> Motion:
    """Rotation by `angle` (radians, right hand about a->b) about the line through a and b."""
    u = scale(sub(b, a), 1 / norm(sub(b, a)))
    x, y, z = u
    c, s, k = math.cos(angle), math.sin(angle), 1 - math.cos(angle)
    r = ((c + x * x * k, x * y * k - z * s, x * z * k + y * s),
         (y * x * k + z * s, c + y * y * k, y * z * k - x * s),
         (z * x * k - y * s, z * y * k + x * s, c + z * z * k))
    ra = (dot(r[0], a), dot(r[1], a), dot(r[2], a))
    return r, sub(a, ra)


def fold_faces(polygons: dict[int, list[tuple[float, float]]],
               tree: list[tuple[int, int, tuple[tuple[float, float], tuple[float, float]]]],
               fold_angle: float) -> dict[int, tuple[list[Vec], Vec]]:
    """Corners in space and outward normal of every face after folding.

    `tree` lists (parent, child, (p, q)) with p -> q the shared edge in the direction it runs
    counter-clockwise round the parent; parents come before their children. `fold_angle` is
    180 degrees minus the solid's dihedral angle, in radians. The first parent stays put.
    """
    motions = {tree[0][0]: STILL} if tree else {next(iter(polygons)): STILL}
    for parent, child, (p, q) in tree:
        # The child lies to the right of p -> q; turning by +angle about p -> q moves the
        # right-hand side down (-z): the fold goes away from the printed side.
        local = hinge((p[0], p[1], 0.0), (q[0], q[1], 0.0), fold_angle)
        motions[child] = then(motions[parent], local)
    out = {}
    for face, poly in polygons.items():
        m = motions[face]
        out[face] = ([move(m, (x, y, 0.0)) for x, y in poly], turn(m, (0.0, 0.0, 1.0)))
    return out
