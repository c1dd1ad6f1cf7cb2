"""Cut outlines of components: pure geometry in millimetres, no drawing.

In: a shape name (rect, rounded, circle, hex), a trim box and its parameters. Out: an
`Outline` that knows its own path for a PDF content stream (points), for an SVG cut file
(millimetres, y down), its bounding box, and the outline grown by a bleed. Templates see the
same outline (face coordinates), layout clips faces to it and draws it as a cut line, and
the manifest and cut file carry it, so what is drawn, clipped and cut is one shape.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

KAPPA = 0.5522847498  # Bezier handle length of a quarter circle, as a fraction of the radius
SQRT3 = math.sqrt(3)


@dataclass(frozen=True, slots=True)
class Outline:
    """A closed cut path around the trim box (x, y, w, h), y up (PDF and manifest space)."""

    shape: str
    x: float
    y: float
    w: float
    h: float
    corner: float = 0.0          # rounded: corner radius
    orientation: str = "pointy"  # hex: pointy- or flat-top
    points: tuple = ()           # polygon: its corners (die nets, standees)

    @classmethod
    def of_polygon(cls, points) -> Outline:
        """Any polygon (a die net, a standee), with its bounding box as x, y, w, h."""
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        return cls("polygon", min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys),
                   points=tuple((round(x, 4), round(y, 4)) for x, y in points))

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2

    def grown(self, d: float) -> Outline:
        """The outline moved outwards by `d` on every side (a bleed around the cut)."""
        if self.shape == "hex":  # parallel sides move by d: the corners move d / cos 30°
            grow = d / math.cos(math.pi / 6)
            w, h = (self.w + 2 * d, self.h + 2 * grow) if self.orientation == "pointy" else \
                (self.w + 2 * grow, self.h + 2 * d)
            return Outline("hex", self.x - (w - self.w) / 2, self.y - (h - self.h) / 2, w, h,
                           orientation=self.orientation)
        corner = self.corner + d if self.shape == "rounded" else 0.0
        return Outline(self.shape, self.x - d, self.y - d, self.w + 2 * d, self.h + 2 * d, corner, self.orientation)

    def polygon(self) -> list[tuple[float, float]]:
        """Corner points of a rect or hex, counter-clockwise from the lowest-left one."""
        x, y, w, h = self.x, self.y, self.w, self.h
        if self.shape == "polygon":
            return list(self.points)
        if self.shape == "hex":
            cx, cy = self.centre
            if self.orientation == "pointy":
                return [(cx, y), (x + w, y + h / 4), (x + w, y + 3 * h / 4), (cx, y + h),
                        (x, y + 3 * h / 4), (x, y + h / 4)]
            return [(x + w / 4, y), (x + 3 * w / 4, y), (x + w, cy), (x + 3 * w / 4, y + h),
                    (x + w / 4, y + h), (x, cy)]
        return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]

    def segments(self) -> list[tuple]:
        """The path as ("M", x, y), ("L", x, y), ("C", x1, y1, x2, y2, x, y) and ("Z",)."""
        if self.shape == "circle" or (self.shape == "rounded" and self.corner > 0):
            r = self.w / 2 if self.shape == "circle" else min(self.corner, self.w / 2, self.h / 2)
            return _rounded(self.x, self.y, self.w, self.h, r)
        pts = self.polygon()
        return [("M", *pts[0]), *(("L", *p) for p in pts[1:]), ("Z",)]

    def pdf_path(self, scale: float) -> bytes:
        """Path operators for a PDF content stream, coordinates multiplied by `scale`."""
        if self.shape == "rect":
            return b"%.4f %.4f %.4f %.4f re" % tuple(v * scale for v in (self.x, self.y, self.w, self.h))
        ops = []
        for seg in self.segments():
            kind, nums = seg[0], [v * scale for v in seg[1:]]
            op = {"M": "m", "L": "l", "C": "c", "Z": "h"}[kind]
            ops.append(" ".join(f"{v:.4f}" for v in nums) + (" " if nums else "") + op)
        return " ".join(ops).encode()

    def svg_path(self, page_h: float) -> str:
        """An SVG path `d` in millimetres with y down on a page `page_h` tall."""
        out = []
        for seg in self.segments():
            nums = list(seg[1:])
            for i in range(1, len(nums), 2):
                nums[i] = page_h - nums[i]
            out.append(seg[0] + " ".join(f"{v:.3f}" for v in nums))
        return " ".join(out)

    def manifest(self) -> dict[str, Any]:
        """What a cutting machine needs besides the trim box."""
        extra: dict[str, Any] = {"shape": self.shape}
        if self.shape == "rounded":
            extra["corner_mm"] = round(self.corner, 3)
        if self.shape == "hex":
            extra["orientation"] = self.orientation
        if self.shape == "polygon":
            extra["points"] = [[round(x, 3), round(y, 3)] for x, y in self.points]
        return extra


def _rounded(x, y, w, h, r):
    k = r * KAPPA
    return [
        ("M", x + r, y), ("L", x + w - r, y),
        ("C", x + w - r + k, y, x + w, y + r - k, x + w, y + r), ("L", x + w, y + h - r),
        ("C", x + w, y + h - r + k, x + w - r + k, y + h, x + w - r, y + h), ("L", x + r, y + h),
        ("C", x + r - k, y + h, x, y + h - r + k, x, y + h - r), ("L", x, y + r),
        ("C", x, y + r - k, x + r - k, y, x + r, y), ("Z",),
    ]


def hex_height(width: float, orientation: str) -> float:
    """The height a regular hexagon of `width` must have (pointy: 2/sqrt3 of it, flat: sqrt3/2)."""
    return width * 2 / SQRT3 if orientation == "pointy" else width * SQRT3 / 2


def face_outline(shape: str, bleed: float, w: float, h: float, corner: float, orientation: str) -> list:
    """The trim outline's corner points in a face's own coordinates (mm, y down, origin at the
    bleed corner), for templates that draw a border along the cut."""
    outline = Outline(shape, bleed, bleed, w, h, corner, orientation)
    if shape == "circle":
        return []
    return [(round(px, 4), round(2 * bleed + h - py, 4)) for px, py in outline.polygon()]


# The dice pnp prints: corners of one face and the number of faces.
DICE = {"d6": (4, 6), "d8": (3, 8), "d12": (5, 12)}


def die_face_box(die: str, edge: float, bleed: float) -> tuple[float, float, list[tuple[float, float]]]:
    """(w, h, outline) of a die face template's viewBox: the regular face polygon's bounding
    box plus `bleed` on every side, and the polygon in face coordinates (mm, origin top-left,
    y down), one side lying flat at the bottom (triangle and pentagon point up), listed so
    that it runs counter-clockwise on the page. Art drawn upright in this box reads upright
    on the die."""
    sides = DICE[die][0]
    poly = [(0.0, 0.0), (edge, 0.0)]
    angle = 0.0
    for _ in range(sides - 2):
        angle += 2 * math.pi / sides
        x, y = poly[-1]
        poly.append((x + edge * math.cos(angle), y + edge * math.sin(angle)))
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
    outline = [(x - x0 + bleed, y1 - y + bleed) for x, y in poly]
    return x1 - x0 + 2 * bleed, y1 - y0 + 2 * bleed, outline
