"""Where shown text marks the page: the text matrix of a BT..ET and the box of each string.

In: text operators and their operands, the graphics state paint.py keeps (font, size,
spacing, scaling, rise, rendering mode) and the fonts' widths and boxes. Out: for each
string shown, a box in user space that holds every glyph's ink: from the glyph origins the
widths give, grown by the most any glyph of the embedded font program passes its origin
or its advance (fontTools), or by the FontBBox when the program cannot be read; heights
from the FontBBox. Never smaller than the glyphs. Simple fonts (one byte a code) and Type 0 fonts in Identity-H/V are
measured; another encoding is measured one em a byte, which is generous.
"""
from __future__ import annotations

import functools
import io
import logging

import pikepdf
from fontTools.pens.boundsPen import BoundsPen
from fontTools.ttLib import TTFont
from pikepdf import Name

IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
SHOWS = {"Tj", "TJ", "'", '"'}


def mul(m, n):
    """The matrix m then n (PDF's row-vector order: m x n)."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)


def box_through(box, m):
    """The box around `box` (x0, y0, x1, y1) after the matrix m."""
    x0, y0, x1, y1 = box
    a, b, c, d, e, f = m
    xs, ys = [], []
    for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
        xs.append(a * x + c * y + e)
        ys.append(b * x + d * y + f)
    return (min(xs), min(ys), max(xs), max(ys))


class TextObject:
    """The text matrix of one BT..ET and the boxes of the strings it shows."""

    def __init__(self, metrics):
        self.tm = self.tlm = IDENTITY
        self.metrics = metrics

    def step(self, op, args, state, res):
        """Apply one text operator; for a string shown, return (box in user space, painted)."""
        if op == "Tf":
            state.font, state.size = res.get("/Font", {}).get(args[0]), float(args[1])
        elif op in ("Tc", "Tw", "Tz", "TL", "Ts", "Tr"):
            value = float(args[0])
            if op == "Tz":
                state.Th = value / 100
            elif op == "Ts":
                state.rise = value
            elif op == "Tr":
                state.tr = int(value)
            else:
                setattr(state, op, value)
        elif op in ("Td", "TD"):
            if op == "TD":
                state.TL = -float(args[1])
            self.tlm = self.tm = mul((1, 0, 0, 1, float(args[0]), float(args[1])), self.tlm)
        elif op == "Tm":
            self.tlm = self.tm = tuple(float(v) for v in args)
        elif op == "T*":
            self.tlm = self.tm = mul((1, 0, 0, 1, 0, -state.TL), self.tlm)
        elif op in SHOWS:
            if op in ("'", '"'):
                if op == '"':
                    state.Tw, state.Tc = float(args[0]), float(args[1])
                self.tlm = self.tm = mul((1, 0, 0, 1, 0, -state.TL), self.tlm)
            items = args[0] if op == "TJ" else [args[-1]]
            return self._show(items, state)
        return None

    def _show(self, items, state):
        font = state.font
        metrics = self.metrics(font) if font is not None else None
        scale = state.size * state.Th
        by0, by1 = metrics.heights() if metrics else (-1.0, 2.0)
        pen, lo, hi = 0.0, 0.0, 0.0   # the ink's extent along the line
        for item in items:
            if isinstance(item, pikepdf.String):
                for code in _codes(bytes(item), metrics):
                    ink = metrics.ink(code) if metrics else (-1.0, 2.0)
                    lo, hi = min(lo, pen + ink[0] * scale), max(hi, pen + ink[1] * scale)
                    width = metrics.width(code) if metrics else 1.0
                    space = state.Tw if code == 32 and (metrics is None or metrics.simple) else 0.0
                    pen += (width * state.size + state.Tc + space) * state.Th
            else:
                pen -= float(item) / 1000 * scale
        box = (lo, state.rise + by0 * state.size, hi, state.rise + by1 * state.size)
        user = box_through(box, self.tm)
        self.tm = mul((1, 0, 0, 1, pen, 0), self.tm)
        return user, state.tr not in (3, 7)


class _Metrics:
    def __init__(self, simple: bool, widths: dict, default: float, bbox, overhang=None):
        self.simple, self.widths, self.default, self.bbox = simple, widths, default, bbox
        self.overhang = overhang   # left, right, bottom, top: see _overhang

    def width(self, code: int) -> float:
        return self.widths.get(code, self.default)

    def heights(self) -> tuple[float, float]:
        """The lowest and highest ink of any glyph, per 1 of font size."""
        return (self.bbox[1], self.bbox[3]) if self.overhang is None else self.overhang[2:]

    def ink(self, code: int) -> tuple[float, float]:
        """Where a glyph's ink can lie across, from its origin, per 1 of font size."""
        if self.overhang is None:
            return min(0.0, self.bbox[0]), max(self.bbox[2], self.width(code))
        return self.overhang[0], self.width(code) + self.overhang[1]


def font_metrics(font) -> _Metrics | None:
    """Glyph widths (in text space units per 1 of font size) and the font's box."""
    kind = font.get("/Subtype")
    matrix = [float(v) for v in font.get("/FontMatrix", [0.001, 0, 0, 0.001, 0, 0])]
    if kind == Name.Type0:
        cid = font.DescendantFonts[0]
        if font.get("/Encoding") not in (Name("/Identity-H"), Name("/Identity-V")):
            return None
        widths, w = {}, list(cid.get("/W", []))
        k = 0
        while k < len(w):
            first = int(w[k])
            if isinstance(w[k + 1], pikepdf.Array):
                for n, v in enumerate(w[k + 1]):
                    widths[first + n] = float(v) / 1000
                k += 2
            else:
                for code in range(first, int(w[k + 1]) + 1):
                    widths[code] = float(w[k + 2]) / 1000
                k += 3
        descriptor = cid.get("/FontDescriptor", {})
        return _Metrics(False, widths, float(cid.get("/DW", 1000)) / 1000, _font_box(descriptor, 0.001),
                        _overhang(descriptor))
    first = int(font.get("/FirstChar", 0))
    unit = matrix[0] if kind == Name.Type3 else 0.001
    widths = {first + n: float(v) * unit for n, v in enumerate(font.get("/Widths", []))}
    descriptor = font.get("/FontDescriptor", {})
    box = [float(v) * unit for v in font.FontBBox] if kind == Name.Type3 else _font_box(descriptor, unit)
    return _Metrics(True, widths, float(descriptor.get("/MissingWidth", 0)) * unit, box,
                    None if kind == Name.Type3 else _overhang(descriptor))


def _overhang(descriptor) -> tuple[float, float, float, float] | None:
    """From the embedded TrueType or OpenType program (a subset: the glyphs shown): the
    lowest left edge of any glyph, the most any glyph's ink passes its advance, the lowest
    and highest ink, in ems; None when there is no such program (then the FontBBox is used,
    which is larger)."""
    program = descriptor.get("/FontFile2")
    if program is None and descriptor.get("/FontFile3") is not None and \
            descriptor.FontFile3.get("/Subtype") == Name.OpenType:
        program = descriptor.FontFile3
    if program is None:
        return None
    return _measure(program.read_bytes())  # the same font program comes back in every deck of a game


@functools.lru_cache(maxsize=64)
def _measure(data: bytes):
    quiet = logging.getLogger("fontTools")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # cairo's subsets have a zero creation date, which fontTools mentions
    try:
        font = TTFont(io.BytesIO(data), lazy=True)
        em = font["head"].unitsPerEm
        metrics = font["hmtx"].metrics
        left = right = bottom = top = 0.0
        glyphs = font.getGlyphSet()
        for name in font.getGlyphOrder():
            pen = BoundsPen(glyphs)
            glyphs[name].draw(pen)
            if pen.bounds is None:
                continue
            x0, y0, x1, y1 = pen.bounds
            left, right = min(left, x0), max(right, x1 - metrics[name][0])
            bottom, top = min(bottom, y0), max(top, y1)
    except Exception:  # a font program fontTools cannot read: fall back to the FontBBox, which is larger
        return None
    finally:
        quiet.setLevel(level)
    return left / em, right / em, bottom / em, top / em


def _font_box(descriptor, unit):
    if "/FontBBox" not in descriptor:
        return (-1.0, -1.0, 2.0, 2.0)   # no box: a generous one
    x0, y0, x1, y1 = (float(v) * unit for v in descriptor.FontBBox)
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def _codes(data: bytes, metrics) -> list[int]:
    if metrics is not None and not metrics.simple:
        return [int.from_bytes(data[k:k + 2], "big") for k in range(0, len(data) - 1, 2)]
    return list(data)
