"""The ink of a letter or a line of letters in one font file, as cairo sets them (no kerning).

In: a font file's path and a text. Out: its advance and the bounds of its glyphs' outlines,
in em (fontTools reads each glyph's bounds from the font's glyf table, or draws a CFF
glyph into a bounds pen), for `textink.py`. A file is read once a process, each letter
when first asked.
"""
from __future__ import annotations

import math
from functools import lru_cache


@lru_cache(maxsize=4096)
def ink_em(path: str, text: str) -> tuple[float, float, float, float]:
    """The ink of `text` set from x = 0 on the baseline, without kerning, in em: (left,
    right, top above the baseline, bottom above the baseline); right < left: no ink."""
    glyphs = _glyphs(path)
    x, left, right, top, bottom = 0.0, math.inf, -math.inf, -math.inf, math.inf
    for ch in text:
        advance, bounds = glyphs.letter(ch)
        if bounds is not None:
            gx0, gy0, gx1, gy1 = bounds
            left, right = min(left, x + gx0), max(right, x + gx1)
            top, bottom = max(top, gy1), min(bottom, gy0)
        x += advance
    return (left, right, top, bottom) if right >= left else (0.0, -1.0, 0.0, 0.0)


def advance_em(path: str, letter: str) -> float:
    return _glyphs(path).letter(letter)[0]


class _Glyphs:
    """One font file's advances and glyph outlines' bounds, in em, read as letters are asked."""

    def __init__(self, path: str):
        from fontTools.ttLib import TTFont

        self.font = TTFont(path, lazy=True)
        self.upem = self.font["head"].unitsPerEm
        self.cmap = self.font.getBestCmap()
        self.hmtx = self.font["hmtx"]
        self.glyf = self.font["glyf"] if "glyf" in self.font else None
        self.known: dict[str, tuple] = {}

    def letter(self, ch: str) -> tuple[float, tuple | None]:
        found = self.known.get(ch)
        if found is None:
            name = self.cmap.get(ord(ch), ".notdef")
            advance = self.hmtx[name][0] / self.upem
            found = self.known[ch] = (advance, self._bounds(name))
        return found

    def _bounds(self, name: str) -> tuple | None:
        u = self.upem
        if self.glyf is not None:
            glyph = self.glyf[name]
            if getattr(glyph, "numberOfContours", 0) == 0:
                return None
            if glyph.isComposite():
                glyph.recalcBounds(self.glyf)
            return (glyph.xMin / u, glyph.yMin / u, glyph.xMax / u, glyph.yMax / u)
        from fontTools.pens.boundsPen import BoundsPen

        glyph_set = self.font.getGlyphSet()
        pen = BoundsPen(glyph_set)
        glyph_set[name].draw(pen)
        return None if pen.bounds is None else tuple(v / u for v in pen.bounds)


@lru_cache(maxsize=32)
def _glyphs(path: str) -> _Glyphs:
    return _Glyphs(path)
