"""The fonts that ship with pnp, and the hermetic fontconfig that makes CairoSVG use them.

In: the TrueType and OpenType files in `generator/assets/fonts/`. Out: a `FontSet` that answers, for a
family/bold/italic request exactly as CairoSVG makes it, which file will draw it, how
wide a string is (plain advance sum, no kerning: what CairoSVG draws) and which
characters it lacks. `activate(cache_dir)` points fontconfig at a generated config that
sees only these files, so output never depends on the machine's fonts (unless a game asks
for them: `fonts: system`). The fonts people name (Arial, Times New Roman...) are drawn by
the shipped open faces made to their widths (`STAND_INS`); a game's own copy of a family
wins over pnp's.
"""
from __future__ import annotations

import hashlib
import io
import json
import logging
import os
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING

from .. import safefs
from ..guard import OutsideProject, read_bytes_inside, shorten

if TYPE_CHECKING:
    from fontTools.ttLib import TTFont

FONT_DIR = Path(__file__).parents[1] / "assets" / "fonts"
# What _read_face reads of each shipped font, read once for pnp (fontTools' name table alone
# costs a process 0.2 s to import): tests/test_fonts.py reads the fonts again and compares,
# and `python -m tests.test_fonts --faces` writes it anew.
FACES_FILE = FONT_DIR / "faces.json"

# Generic CSS families resolve to shipped faces (also written as fontconfig aliases): sans-serif,
# every face's default, is Lato; serif and monospace the Liberation faces, which have all four styles.
GENERIC = {"sans-serif": "Lato", "serif": "Liberation Serif", "monospace": "Liberation Mono"}
# The fonts people name (nanDECK's, Squib's, a word processor's) and the shipped open face that
# stands in, made to the same widths (Liberation: Arial's, Times New Roman's, Courier New's) or
# the nearest there is; written as fontconfig aliases that a font of that name, when a game has
# one, still wins. Why a face that is not metric-compatible was chosen: fontnotes.WHY.
STAND_INS = {"arial": "Liberation Sans", "helvetica": "Liberation Sans", "sans": "Liberation Sans",
             "times new roman": "Liberation Serif", "times": "Liberation Serif",
             "courier new": "Liberation Mono", "courier": "Liberation Mono",
             "georgia": "Liberation Serif", "verdana": "DejaVu Sans"}
# `fonts: system`: the machine's fonts every user has (which an untrusted build may read too)
SYSTEM_FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))


@dataclass
class Face:
    """One font file: its names, style and metrics. The advance widths (the font's hmtx and
    cmap, the costly part to read) are read on first use: a game pays only for the faces
    it measures."""

    path: Path
    family: str
    bold: bool
    italic: bool
    postscript_name: str
    units_per_em: int
    ascent: float  # in em
    descent: float  # in em, positive
    weight: int = 400
    aliases: set = field(default_factory=set, repr=False)
    covers: str = field(default="", repr=False, compare=False)   # a shipped font's code points (face_facts)
    sha256: str = field(default="", repr=False, compare=False)   # a shipped font's file's (face_facts)

    @property
    def advances(self) -> dict:
        """code point -> advance width in font units."""
        if "_advances" not in self.__dict__:
            self._read_advances()
        return self.__dict__["_advances"]

    @property
    def notdef_advance(self) -> int:
        if "_notdef" not in self.__dict__:
            self._read_advances()
        return self.__dict__["_notdef"]

    def _read_advances(self) -> None:
        from fontTools.ttLib import TTFont

        font = TTFont(self.path, lazy=True)
        hmtx = font["hmtx"]
        self.__dict__["_advances"] = {cp: hmtx[glyph][0] for cp, glyph in font.getBestCmap().items()}
        self.__dict__["_notdef"] = hmtx[".notdef"][0]

    def width(self, text: str, size: float) -> float:
        """Advance width of `text` at `size` (same unit as size), no kerning."""
        cache = self.__dict__.setdefault("_widths", {})
        units = cache.get(text)
        if units is None:
            adv = self.advances
            notdef = self.notdef_advance
            units = cache[text] = sum(adv.get(ord(c), notdef) for c in text)
        return units * size / self.units_per_em

    def missing(self, text: str) -> list[str]:
        """Characters of `text` this face has no glyph for (whitespace excepted)."""
        if self.covers:   # FACES_FILE's [(first, last)], read once: no font file opened
            ranges = self.__dict__.get("_ranges") or self.__dict__.setdefault(
                "_ranges", [tuple(int(x, 16) for x in r.split("-")) for r in self.covers.split()])
            return sorted(c for c in {c for c in text if not c.isspace()}
                          if (at := bisect_right(ranges, (ord(c), 0x110000)) - 1) < 0 or ord(c) > ranges[at][1])
        adv = self.advances
        return sorted({c for c in text if ord(c) not in adv and not c.isspace()})


logging.getLogger("fontTools").setLevel(logging.ERROR)


def _load_face(path: Path, known: dict | None = None) -> Face:
    """The face of a font file: from `known` (FACES_FILE's facts of the shipped fonts) when
    it has the file at its size, else read by fontTools; its sha256 taken from there only
    when the file is no newer than FACES_FILE (a font changed in place at the same size)."""
    facts = (known or {}).get(path.name) if path.parent == FONT_DIR else None
    st = path.stat()
    if facts is not None and facts["bytes"] == st.st_size:
        face = face_from_facts(path, facts)
        if st.st_mtime_ns > FACES_FILE.stat().st_mtime_ns:
            face.sha256 = ""   # the letters' memo hashes the file itself (glyphink.Letters)
        return face
    from fontTools.ttLib import TTFont

    return _read_face(TTFont(path, lazy=True), path)


def face_facts(face: Face) -> dict:
    """What FACES_FILE keeps of a face (its file's size and sha256 beside it)."""
    return {"bytes": face.path.stat().st_size, "sha256": hashlib.sha256(face.path.read_bytes()).hexdigest(),
            "family": face.family, "bold": face.bold, "italic": face.italic,
            "postscript_name": face.postscript_name, "units_per_em": face.units_per_em, "ascent": face.ascent,
            "descent": face.descent, "weight": face.weight, "aliases": sorted([n, b] for n, b in face.aliases),
            # its code points as (first, last) ranges in order, hex: "20-7e a0-17f" (Face.missing reads them)
            "covers": face.covers or " ".join(f"{run[0][1]:x}-{run[-1][1]:x}" for run in (list(r) for _, r in groupby(
                enumerate(sorted(face.advances)), lambda p: p[1] - p[0])))}


def face_from_facts(path: Path, facts: dict) -> Face:
    face = Face(path, facts["family"], facts["bold"], facts["italic"], facts["postscript_name"],
                facts["units_per_em"], facts["ascent"], facts["descent"], facts["weight"])
    face.aliases = {(name, bold) for name, bold in facts["aliases"]}
    face.covers = facts["covers"]
    face.sha256 = facts["sha256"]
    return face


def _read_face(font: TTFont, path: Path) -> Face:
    names = font["name"]
    family = str(names.getDebugName(1))
    sub = str(names.getDebugName(2)).lower()
    weight = font["OS/2"].usWeightClass
    bold = "bold" in sub
    italic = bool(font["head"].macStyle & 2) or "italic" in sub or "oblique" in sub
    upem = font["head"].unitsPerEm
    hhea = font["hhea"]
    face = Face(path, family, bold, italic, str(names.getDebugName(6)), upem,
                hhea.ascent / upem, -hhea.descent / upem, weight)
    # fontconfig also knows the face by its typographic family (Lato Black is "Lato" too).
    face.aliases = {(family, bold)}
    if names.getDebugName(16):
        face.aliases.add((str(names.getDebugName(16)), weight >= 600))
    return face


class FontSet:
    """Every shipped face (plus a game's own), looked up the way CairoSVG and fontconfig do."""

    def __init__(self, font_dir: Path = FONT_DIR, game_dir: Path | None = None, system: tuple = ()):
        self.dir = font_dir
        self.game_dir = game_dir  # templates/<game>/fonts/, when the game has fonts of its own
        self.system = system      # the machine's font files (`fonts: system`), else none
        known = json.loads(FACES_FILE.read_text(encoding="utf-8")) if font_dir == FONT_DIR else None
        self.faces = [_load_face(p, known) for p in font_files(font_dir)]
        own = [_load_face(p) for p in font_files(game_dir)] if game_dir else []
        self._own = {f.family for f in own}
        self._rank = {**{f.path: 1 for f in self.faces}, **{f.path: 0 for f in own}}
        self.faces += own
        self.faces += [face for face in map(_system_face, system) if face is not None]
        self._entries: dict[tuple, list[Face]] = {}
        self._lookups: dict[tuple, Face] = {}
        for f in self.faces:
            for name, bold in f.aliases:
                self._entries.setdefault((name.lower(), bold, f.italic), []).append(f)
        self.families = sorted({name for f in self.faces for name, _ in f.aliases})
        self._names = {name.lower() for name in self.families}

    def shadowed(self) -> list[str]:
        """Families of the game's own fonts that pnp ships too: the game's copy is drawn
        (fontconfig is told to prefer it, and so is `face`)."""
        return sorted(self._own & {f.family for f in self.faces if f.path.parent == self.dir})

    def stand_in(self, family: str | None) -> str | None:
        """The shipped family drawn for a font people name that no font here has (Arial:
        Liberation Sans), else None: a game's own Arial, or any family pnp has, is itself."""
        name = (family or "sans-serif").split(",")[0].strip().strip("'\"")
        if name.lower() in self._names:
            return None
        return GENERIC.get(name.lower()) or STAND_INS.get(name.lower())

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
        name = self.stand_in(name) or name
        candidates = self._entries.get((name.lower(), bold, italic))
        if candidates:  # fontconfig picks the weight nearest to what cairo asks for; a game's own
            # copy of a family pnp ships too (or the machine's, `fonts: system`) before pnp's
            return min(candidates, key=lambda f: (abs(f.weight - (700 if bold else 400)), self._rank.get(f.path, 2)))
        styles = sorted({_style_name(b, i) for (n, b, i) in self._entries if n == name.lower()})
        if styles:
            raise KeyError(f"font '{name}' has no {_style_name(bold, italic)} style "
                           f"(shipped: {', '.join(styles)})")
        where = self.game_dir.as_posix() if self.game_dir else "templates/<game>/fonts"
        raise KeyError(f"font '{name}' is not shipped with pnp (shipped: {', '.join(self.families)}); "
                       f"to use it, put its TTF or OTF files and their licence in {where}/")

    def fontconfig_xml(self, cache_dir: Path) -> str:
        return (
            '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n'
            "<fontconfig>\n"
            f"  <dir>{self.dir.resolve()}</dir>\n"
            f"  <cachedir>{cache_dir.resolve()}</cachedir>\n"
            f"{fontconfig_rules(self.dir)}"
            "</fontconfig>\n")


def fontconfig_rules(shipped_dir: Path = FONT_DIR) -> str:
    """What pnp's fontconfig configurations (cairo's and Pango's) say besides where the fonts
    are: the generic families and the stand-ins as aliases, and a font of a game's own made
    the newest version of its family, which is what fontconfig prefers between two faces that
    match alike: a game's Lato wins over pnp's; the machine's fonts (`fonts: system`) are
    made the oldest: pnp's DejaVu Sans wins over the machine's."""
    generic = "".join(f'  <alias binding="same"><family>{g}</family><prefer><family>{f}</family></prefer></alias>\n'
                      for g, f in GENERIC.items())
    named = "".join(f'  <alias binding="same"><family>{n}</family><accept><family>{f}</family></accept></alias>\n'
                    for n, f in STAND_INS.items())
    tests = "".join(f'<test name="file" compare="not_contains"><string>{d.resolve()}/</string></test>'
                    for d in (shipped_dir, *SYSTEM_FONT_DIRS))
    own = (f'  <match target="scan">{tests}<edit name="fontversion" mode="assign"><int>2147483646</int></edit>'
           '</match>\n')
    machine = "".join(f'  <match target="scan"><test name="file" compare="contains"><string>{d}/</string></test>'
                      '<edit name="fontversion" mode="assign"><int>0</int></edit></match>\n' for d in SYSTEM_FONT_DIRS)
    return generic + named + own + machine


def _system_face(path: Path) -> Face | None:
    """The face of one of the machine's font files, None when fontTools cannot read it."""
    try:
        return _load_face(path)
    except Exception:  # a broken system font is one fontconfig skips too
        return None


def system_font_files() -> tuple[Path, ...]:
    """The machine's TrueType and OpenType files (`SYSTEM_FONT_DIRS`, every folder below them), in name order."""
    return tuple(sorted(p for d in SYSTEM_FONT_DIRS if d.is_dir() for p in d.rglob("*")
                        if p.suffix.lower() in (".ttf", ".otf") and p.is_file()))


def _style_name(bold: bool, italic: bool) -> str:
    return " ".join(w for w, on in (("bold", bold), ("italic", italic)) if on) or "regular"


def font_files(folder: Path | None) -> list[Path]:
    """The TrueType and OpenType files of a game's fonts folder, in name order."""
    if folder is None or not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in (".ttf", ".otf") and p.is_file())


MAX_FONT_BYTES = 32 * 2**20


def game_font_problems(root: Path, folder: Path) -> list[tuple[Path, str]]:
    """Why the fonts of a game's fonts folder cannot be used, file by file: fontconfig reads
    every file of the folder, so each must be a regular file inside the project (not a link
    to a font elsewhere on the machine), of at most 32 MiB, that fontTools can read."""
    if not folder.is_dir():
        return []
    problems = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in (".ttf", ".otf"):
            continue
        try:
            data = read_bytes_inside(root, path, MAX_FONT_BYTES, path.name)
        except OutsideProject as exc:
            problems.append((path, str(exc)))
            continue
        try:
            from fontTools.ttLib import TTFont

            font = TTFont(io.BytesIO(data), lazy=True)
            _read_face(font, path)
            font.getBestCmap()
            font["hmtx"].metrics  # noqa: B018  (read now: what measuring text will read)
        except Exception as exc:  # fontTools' many ways of saying the file is not a font
            problems.append((path, f"'{path.name}' is not a font pnp can read ({type(exc).__name__}: "
                                   f"{shorten(str(exc), 120)}): replace it with a TTF or OTF file"))
    return problems


def for_game(templates_dir: Path, shown: str | None = None, system: bool = False) -> FontSet:
    """The fonts a game may use: the shipped ones plus `templates/<game>/fonts/` (and with
    `system`, the machine's: `fonts: system`), which are also added to this process's
    fontconfig so CairoSVG draws with them."""
    folder = templates_dir / "fonts"
    if not font_files(folder) and not system:
        return shipped()
    stamp = tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in font_files(folder))
    fonts = _game_set(folder.resolve(), Path(shown) if shown else folder, stamp, system_font_files() if system else ())
    if font_files(folder):
        _add_to_fontconfig(folder.resolve(), (frozenset(fonts._own), _sizes(folder)))
    for where in SYSTEM_FONT_DIRS if system else ():
        if where.is_dir():
            _add_to_fontconfig(where)
    return fonts


def drawn_by_another_game(fonts: FontSet, own_folder: Path) -> list[tuple[str, str]]:
    """(family, folder) of each family `fonts` may use that another game's own fonts, already
    read by this process's fontconfig, would draw instead (fontconfig prefers a game's own
    copy, and cannot tell one game's from another's): such games are built one at a time."""
    names, mine, here = {n.lower() for n in fonts.families}, _sizes(own_folder), own_folder.resolve()
    return sorted((family, str(folder)) for folder, (families, files) in _added for family in families
                  if family.lower() in names and files != mine and folder != here)   # the same files draw alike


def _sizes(folder: Path) -> tuple:
    return tuple((p.name, p.stat().st_size) for p in font_files(folder))


@lru_cache(maxsize=16)
def _game_set(folder: Path, shown: Path, stamp: tuple, system: tuple = ()) -> FontSet:
    """The set for a game's fonts folder as it is now (`stamp`: names, times and sizes of
    its files): metrics are read when first used, so a replaced file makes a new set."""
    fonts = FontSet(FONT_DIR, folder, system)
    fonts.game_dir = shown
    return fonts


_added: set = set()   # (folder, (a game's families, its files' names and sizes)) fontconfig reads besides pnp's


def _add_to_fontconfig(folder: Path, families: tuple = (frozenset(), ())) -> None:
    """Let fontconfig (hence cairo and CairoSVG) find the fonts in `folder` (a game's, with
    its `families`, or the machine's), in this process and the drawing workers it forks."""
    if any(folder == added for added, _ in _added):
        return
    import ctypes

    from ..bindings import c_library

    lib = c_library("libfontconfig.so.1", "fontconfig")
    lib.FcConfigAppFontAddDir.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    if not lib.FcConfigAppFontAddDir(None, str(folder).encode()):
        raise OSError(f"fontconfig could not read the fonts in {folder}")
    _added.add((folder, families))


@lru_cache(maxsize=1)
def shipped() -> FontSet:
    """The process-wide set of shipped fonts."""
    return FontSet()


def activate(cache_dir: Path, base: Path | None = None) -> None:
    """Make this process (and its children) draw text only with the shipped fonts.

    Must run before CairoSVG draws any text: cairo caches font resolution per process.
    Writes its config and fontconfig's cache under `cache_dir` (output/.cache), real folders
    under `base` (default: the folder holding output/) never reached through a link; the
    cache's folder is named with this machine's cache key, so fontconfig never reads a
    cache planted in a checkout.
    """
    if os.environ.get("PNP_FONTCONFIG_ACTIVE") == "1":
        return
    if base is None:
        base = cache_dir.parent.parent
        base.mkdir(parents=True, exist_ok=True)   # the project, or where an --output named lies
    rules = fontconfig_rules().encode()   # a cache scanned under other rules is not read
    kept = safefs.real_folder(base, cache_dir / f"fontconfig-{safefs.tag('fontconfig', rules).hex()[:16]}")
    conf = cache_dir / "fonts.conf"
    xml = shipped().fontconfig_xml(kept)
    with safefs.folder(base, cache_dir) as fd:
        try:
            same = safefs.read_in(fd, conf.name) == xml.encode()
        except OSError:
            same = False
        if not same:
            safefs.write_in(fd, conf.name, xml.encode())
    os.environ["FONTCONFIG_FILE"] = str(conf.resolve())
    os.environ["PNP_FONTCONFIG_ACTIVE"] = "1"
