"""The fonts that ship with pnp, and the hermetic fontconfig that makes CairoSVG use them.

In: the TrueType files in `generator/fonts/`. Out: a `FontSet` that answers, for a
family/bold/italic request exactly as CairoSVG makes it, which file will draw it, how
wide a string is (plain advance sum, no kerning: what CairoSVG draws) and which
characters it lacks. `activate(cache_dir)` points fontconfig at a generated config that
sees only these files, so output never depends on the machine's fonts.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
import logging
from functools import lru_cache
from pathlib import Path

from fontTools.ttLib import TTFont

FONT_DIR = Path(__file__).parent / "fonts"

# Generic CSS families resolve to shipped faces (also written as fontconfig aliases).
GENERIC = {"sans-serif": "Lato", "serif": "EB Garamond", "monospace": "DejaVu Sans"}
DEFAULT_FAMILY = "Lato"  # what CairoSVG asks for when no font-family is given: 'sans-serif'


@dataclass
class Face:
    """One font file: its names, style and metrics."""

    path: Path
    family: str
    bold: bool
    italic: bool
    postscript_name: str
    units_per_em: int
    ascent: float  # in em
    descent: float  # in em, positive
    advances: dict = field(repr=False)
    notdef_advance: int = 0
    weight: int = 400
    aliases: set = field(default_factory=set, repr=False)

    def width(self, text: str, size: float) -> float:
        """Advance width of `text` at `size` (same unit as size), no kerning."""
        cache = self.__dict__.setdefault("_widths", {})
        units = cache.get(text)
        if units is None:
            adv = self.advances
            units = cache[text] = sum(adv.get(ord(c), self.notdef_advance) for c in text)
        return units * size / self.units_per_em

    def missing(self, text: str) -> list[str]:
        """Characters of `text` this face has no glyph for (whitespace excepted)."""
        return sorted({c for c in text if ord(c) not in self.advances and not c.isspace()})


logging.getLogger("fontTools").setLevel(logging.ERROR)


def _load_face(path: Path) -> Face:
    font = TTFont(path, lazy=True)
    names = font["name"]
    family = str(names.getDebugName(1))
    sub = str(names.getDebugName(2)).lower()
    weight = font["OS/2"].usWeightClass
    bold = "bold" in sub
    italic = bool(font["head"].macStyle & 2) or "italic" in sub or "oblique" in sub
    upem = font["head"].unitsPerEm
    hmtx = font["hmtx"]
    advances = {cp: hmtx[glyph][0] for cp, glyph in font.getBestCmap().items()}
    hhea = font["hhea"]
    face = Face(path, family, bold, italic, str(names.getDebugName(6)), upem,
                hhea.ascent / upem, -hhea.descent / upem, advances, hmtx[".notdef"][0])
    face.weight = weight
    # fontconfig also knows the face by its typographic family (Lato Black is "Lato" too).
    face.aliases = {(family, bold)}
    if names.getDebugName(16):
        face.aliases.add((str(names.getDebugName(16)), weight >= 600))
    return face


class FontSet:
    """Every shipped face, looked up the way CairoSVG and fontconfig look them up."""

    def __init__(self, font_dir: Path = FONT_DIR):
        self.dir = font_dir
        self.faces = [_load_face(p) for p in sorted(font_dir.glob("*.ttf"))]
        self._entries: dict[tuple, list[Face]] = {}
        self._lookups: dict[tuple, Face] = {}
        for f in self.faces:
            for name, bold in f.aliases:
                self._entries.setdefault((name.lower(), bold, f.italic), []).append(f)
        self.families = sorted({name for f in self.faces for name, _ in f.aliases})

    def face(self, family: str | None, bold: bool = False, italic: bool = False) -> Face:
        """The face CairoSVG will draw with.

        :raises KeyError: with a designer-facing message when the family or style is not shipped.
        """
        cached = self._lookups.get((family, bold, italic))
        if cached is not None:
            return cached
        face = self._lookup(family, bold, italic)
        self._lookups[(family, bold, italic)] = face
        return face

    def _lookup(self, family, bold, italic) -> Face:
        name = (family or "sans-serif").split(",")[0].strip().strip("'\"")
        name = GENERIC.get(name.lower(), name)
        candidates = self._entries.get((name.lower(), bold, italic))
        if candidates:  # fontconfig picks the weight nearest to what cairo asks for
            return min(candidates, key=lambda f: abs(f.weight - (700 if bold else 400)))
        styles = sorted({_style_name(b, i) for (n, b, i) in self._entries if n == name.lower()})
        if styles:
            raise KeyError(f"font '{name}' has no {_style_name(bold, italic)} style "
                           f"(shipped: {', '.join(styles)})")
        raise KeyError(f"font '{name}' is not shipped with pnp (shipped: {', '.join(self.families)})")

    def fontconfig_xml(self, cache_dir: Path) -> str:
        aliases = "".join(
            f'  <alias binding="same"><family>{g}</family><prefer><family>{f}</family></prefer></alias>\n'
            for g, f in GENERIC.items())
        return (
            '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n'
            "<fontconfig>\n"
            f"  <dir>{self.dir.resolve()}</dir>\n"
            f"  <cachedir>{cache_dir.resolve()}</cachedir>\n"
            f"{aliases}"
            "</fontconfig>\n")


def _style_name(bold: bool, italic: bool) -> str:
    return " ".join(w for w, on in (("bold", bold), ("italic", italic)) if on) or "regular"


@lru_cache(maxsize=1)
def shipped() -> FontSet:
    """The process-wide set of shipped fonts."""
    return FontSet()


def activate(cache_dir: Path) -> None:
    """Make this process (and its children) draw text only with the shipped fonts.

    Must run before CairoSVG draws any text: cairo caches font resolution per process.
    Writes its config and fontconfig's cache under `cache_dir` (inside output/).
    """
    if os.environ.get("PNP_FONTCONFIG_ACTIVE") == "1":
        return
    (cache_dir / "fontconfig").mkdir(parents=True, exist_ok=True)
    conf = cache_dir / "fonts.conf"
    xml = shipped().fontconfig_xml(cache_dir / "fontconfig")
    if not conf.exists() or conf.read_text() != xml:
        tmp = conf.with_suffix(".tmp")
        tmp.write_text(xml)
        tmp.replace(conf)
    os.environ["FONTCONFIG_FILE"] = str(conf.resolve())
    os.environ["PNP_FONTCONFIG_ACTIVE"] = "1"
