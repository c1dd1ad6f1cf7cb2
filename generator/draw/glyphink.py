"""The ink of a letter or a line of letters in one font file, as cairo sets them (no kerning).

In: the `FontSet` a face is drawn with, a font file's path and a text; a session's memo.
Out: its advance and the bounds of its glyphs' outlines, in em (fontTools reads each
glyph's bounds from the font's glyf table, or draws a CFF glyph into a bounds pen), for
`textink.py`. The letters a build met are kept in the memo by the font file's sha256
(`Letters.keep`), so a later build (a one-shot rebuild after an edit too) opens a font
with fontTools only for a letter no build met: importing fontTools and reading a font's
tables costs some 0.1 s a process. And which figures a face's digits are (`figures`: the
rules text's numbers must be lining).
"""
from __future__ import annotations

import math
import os
from functools import lru_cache

from .drawkey import _file_digest

INK = "glyph ink"   # the memo's key: (INK, the font file's sha256)


class Letters:
    """The letters of the fonts of `fonts`, known from `memo` (what earlier builds kept) or
    read from each font file as they are asked; `keep` hands the memo what this build knows,
    `carry` keeps on what it was not asked for."""

    def __init__(self, fonts, memo=None) -> None:
        self.fonts, self.memo = fonts, memo
        self._files: dict[str, tuple[str, dict]] = {}   # path -> (its sha256, letter -> (advance, bounds))
        self._grown: set[str] = set()                    # files this build read a letter of
        self._texts: dict[tuple[str, str], tuple] = {}

    def face(self, family: str | None, bold: bool = False, italic: bool = False):
        return self.fonts.face(family, bold, italic)

    def ink(self, face, text: str) -> tuple[float, float, float, float]:
        """The ink of `text` set from x = 0 on the baseline in `face` (a fonts.Face), without
        kerning, in em: (left, right, top above the baseline, bottom above the baseline);
        right < left: no ink."""
        found = self._texts.get((str(face.path), text))
        if found is None:
            x, left, right, top, bottom = 0.0, math.inf, -math.inf, -math.inf, math.inf
            for ch in text:
                advance, bounds = self.letter(face, ch)
                if bounds is not None:
                    gx0, gy0, gx1, gy1 = bounds
                    left, right = min(left, x + gx0), max(right, x + gx1)
                    top, bottom = max(top, gy1), min(bottom, gy0)
                x += advance
            found = self._texts[(str(face.path), text)] = \
                (left, right, top, bottom) if right >= left else (0.0, -1.0, 0.0, 0.0)
        return found

    def advance(self, face, letter: str) -> float:
        return self.letter(face, letter)[0]

    def letter(self, face, ch: str) -> tuple[float, tuple | None]:
        """(advance, glyph bounds or None) of one letter of `face`, in em."""
        path = str(face.path)
        digest, known = self._file(face)
        found = known.get(ch)
        if found is None:
            found = known[ch] = _glyphs(path, digest).letter(ch)
            self._grown.add(path)
        return found

    def keep(self) -> None:
        """Hand the memo the letters of every file this build read a letter of."""
        if self.memo is not None:
            for path in sorted(self._grown):
                digest, known = self._files[path]
                self.memo.keep((INK, digest), known)

    def carry(self) -> None:
        """Keep on, for a later build, the letters earlier builds kept of the shipped fonts
        (their sha256 is known without reading them) and of the game's own (hashed once a
        process) that this build did not measure."""
        if self.memo is not None:
            own = self.fonts.game_dir
            for face in self.fonts.faces:   # (an entry this build asked for or made is kept already)
                if face.sha256 or (own is not None and face.path.parent == own):
                    self.memo.carry((INK, _digest(face)))

    def _file(self, face) -> tuple[str, dict]:
        path = str(face.path)
        found = self._files.get(path)
        if found is None:
            digest = _digest(face)
            known = self.memo.recall_map((INK, digest), _is_letter) if self.memo is not None else {}
            found = self._files[path] = (digest, known)
        return found


def _digest(face) -> str:
    """sha256 of a face's font file: a shipped font's from faces.json, else read (once a
    process while the file keeps its size and time)."""
    if face.sha256:
        return face.sha256
    st = os.stat(face.path)
    return _file_digest(str(face.path), st.st_mtime_ns, st.st_size)


def _is_letter(ch, value) -> bool:
    """A kept (letter, (advance, bounds)) as `_Glyphs.letter` makes them."""
    if not (isinstance(ch, str) and isinstance(value, tuple) and len(value) == 2 and type(value[0]) is float):
        return False
    bounds = value[1]
    return bounds is None or (isinstance(bounds, tuple) and len(bounds) == 4
                              and all(type(v) is float for v in bounds))


class _Glyphs:
    """One font file's advances and glyph outlines' bounds, in em, read as letters are asked
    (opened once a process: `_glyphs`)."""

    def __init__(self, path: str):
        from fontTools.ttLib import TTFont

        self.font = TTFont(path, lazy=True)
        self.upem = self.font["head"].unitsPerEm
        self.cmap = self.font.getBestCmap()
        self.hmtx = self.font["hmtx"]
        self.glyf = self.font["glyf"] if "glyf" in self.font else None

    def letter(self, ch: str) -> tuple[float, tuple | None]:
        """(advance, bounds) of one letter, read from the font (`Letters` keeps them)."""
        name = self.cmap.get(ord(ch), ".notdef")
        return self.hmtx[name][0] / self.upem, self._bounds(name)

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
def _glyphs(path: str, digest: str) -> _Glyphs:
    """The font file at `path` whose bytes have `digest`, opened once a process."""
    return _Glyphs(path)


def figures(face) -> str:
    """'lining' when the face's default digits stand on the baseline at cap height, else
    'old-style' (EB Garamond: 1 at x-height, 3 and 4 below the baseline). CairoSVG cannot
    switch OpenType features, so a face's default figures are the ones printed."""
    from fontTools.pens.boundsPen import BoundsPen
    from fontTools.ttLib import TTFont

    font = TTFont(face.path, lazy=True)
    glyphs, cmap = font.getGlyphSet(), font.getBestCmap()

    def bounds(ch):
        pen = BoundsPen(glyphs)
        glyphs[cmap[ord(ch)]].draw(pen)
        return pen.bounds

    cap = bounds("H")[3]
    one, four = bounds("1"), bounds("4")
    return "lining" if one[3] > 0.9 * cap and four[1] > -0.02 * cap else "old-style"
