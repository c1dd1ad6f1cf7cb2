"""Where shown text marks the page: the text matrix of a BT..ET and the box of each string.

In: text operators and their operands, the graphics state paint.py keeps (font, size,
spacing, scaling, rise, rendering mode) and the fonts' widths and boxes. Out: for each
string shown, a box in user space that holds every glyph's ink: from the glyph origins the
widths give, grown by the font's FontBBox (so never smaller than the glyphs, a little
larger at the ends). Simple fonts (one byte a code) and Type 0 fonts in Identity-H/V are
measured; another encoding is measured one em a byte, which is generous.
"""
from __future__ import annotations

import pikepdf
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
        bx0, by0, bx1, by1 = metrics.bbox if metrics else (-1.0, -1.0, 2.0, 2.0)
        pen, lo, hi = 0.0, 0.0, 0.0   # glyph origins' extent
        for item in items:
            if isinstance(item, pikepdf.String):
                for code in _codes(bytes(item), metrics):
                    lo, hi = min(lo, pen), max(hi, pen)
                    width = metrics.width(code) if metrics else 1.0
                    space = state.Tw if code == 32 and (metrics is None or metrics.simple) else 0.0
                    pen += (width * state.size + state.Tc + space) * state.Th
            else:
                pen -= float(item) / 1000 * scale
        # each glyph's ink lies within the font's box from its origin
        box = (lo + min(0.0, bx0) * scale, state.rise + by0 * state.size,
               max(hi + bx1 * scale, pen), state.rise + by1 * state.size)
        user = box_through(box, self.tm)
        self.tm = mul((1, 0, 0, 1, pen, 0), self.tm)
        return user, state.tr not in (3, 7)


class _Metrics:
    def __init__(self, simple: bool, widths: dict, default: float, bbox):
        self.simple, self.widths, self.default, self.bbox = simple, widths, default, bbox

    def width(self, code: int) -> float:
        return self.widths.get(code, self.default)


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
        return _Metrics(False, widths, float(cid.get("/DW", 1000)) / 1000, _font_box(descriptor, 0.001))
    first = int(font.get("/FirstChar", 0))
    unit = matrix[0] if kind == Name.Type3 else 0.001
    widths = {first + n: float(v) * unit for n, v in enumerate(font.get("/Widths", []))}
    descriptor = font.get("/FontDescriptor", {})
    box = [float(v) * unit for v in font.FontBBox] if kind == Name.Type3 else _font_box(descriptor, unit)
    return _Metrics(True, widths, float(descriptor.get("/MissingWidth", 0)) * unit, box)


def _font_box(descriptor, unit):
    if "/FontBBox" not in descriptor:
        return (-1.0, -1.0, 2.0, 2.0)   # no box: a generous one
    x0, y0, x1, y1 = (float(v) * unit for v in descriptor.FontBBox)
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def _codes(data: bytes, metrics) -> list[int]:
    if metrics is not None and not metrics.simple:
        return [int.from_bytes(data[k:k + 2], "big") for k in range(0, len(data) - 1, 2)]
    return list(data)
