"""A face's draw key: a sha256 of everything that decides its pixels, so a face whose key
is unchanged need not be drawn again (the face cache, `--changed-since`, `pnp diff`).

In: the face's SVG text, its size, the folders its <image> elements read from, the
digest of a game's own fonts and how pictures are embedded (`pictures.Policy.digest`).
Out: `face_key` (hex). The key covers the SVG, the size, the bytes of every image the SVG
refers to (by href, read as the drawing reads them), the shipped fonts' bytes (those of the
stand-ins for the fonts people name, Liberation's, only in the key of a face that names one of
them: the faces of every game drawn before they shipped kept their keys), a game's own fonts,
for a face with an <image> the picture policy (resolution, draft), and `SALT`: pnp's,
CairoSVG's and cairo's versions, Pango's and its bindings', Pyphen's, and the version of how
faces are drawn into bundles.
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote

import cairocffi as cairo
import cairosvg

from .. import __version__
from ..distributions import version
from ..guard import MAX_IMAGE_BYTES
from .fonts import FONT_DIR, font_files, shipped, system_font_files
from .pangobridge import versions

SALT = (f"pnp {__version__} cairosvg {cairosvg.__version__} cairo {cairo.cairo_version_string()} "
        f"{' '.join(f'{k} {v}' for k, v in sorted(versions().items()))} pyphen {version('pyphen')} "
        "bundles 1 exact pages 1 pango text 1\n")
_HREF = re.compile(r"""href\s*=\s*["']([^"']+)["']""")


# shipped for the fonts people name (fonts.STAND_INS) and the generic serif and monospace
STAND_IN_FAMILIES = ("liberation sans", "liberation serif", "liberation mono")
_FAMILY_VALUE = re.compile(r"""family\s*[=:]\s*["'\s]*([^"';,<>&)]+)""", re.IGNORECASE)


@lru_cache(maxsize=2)
def _fonts_digest(stand_ins: bool = False) -> str:
    """sha256 of the shipped fonts' names and bytes: those of the stand-ins (`stand_ins`), or
    the others. (Taking each file's sha256 from faces.json instead would save 20 ms a
    process, but a face's key orders the faces of its bundle: every sheet's bytes would
    change.)"""
    h = hashlib.sha256()
    for path in font_files(FONT_DIR):
        if path.name.lower().startswith("liberation") == stand_ins:
            h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def names_a_stand_in(svg: str) -> bool:
    """Does a face name a family the stand-ins draw (Arial, serif, Liberation Sans...)?"""
    if "family" not in svg:
        return False
    fonts = shipped()
    return any((fonts.stand_in(name.strip()) or name.strip()).lower() in STAND_IN_FAMILIES
               for name in set(_FAMILY_VALUE.findall(svg)))


def _image_digest(roots: tuple[str, ...], href: str) -> str:
    """sha256 of the file an <image> href names (as ArtFetcher resolves it), or why there is
    none: it is checked to be a regular file inside the game's folders, of a size pnp
    reads, before a byte of it is read (the drawing then reports the problem)."""
    if href.startswith("file://"):
        href = href[len("file://"):]
    if not roots:
        return "no-roots"
    path = os.path.realpath(os.path.join(roots[0], unquote(href)))
    if not any(path.startswith(os.path.realpath(r) + os.sep) for r in roots):
        return "outside"
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return "missing"
    if not stat.S_ISREG(st.st_mode):
        return "not a file"
    if st.st_size > MAX_IMAGE_BYTES:
        return "too large"
    return _file_digest(path, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=4096)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    """sha256 of a file's bytes as they were at `mtime_ns` and `size` (part of the key)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _game_fonts_digest(game_fonts: tuple | None) -> str:
    """sha256 of a game's own font files (names and bytes), and with `fonts: system` ("system"
    third in `game_fonts`) of the machine's (names, sizes and times); '' for a game without any."""
    if not game_fonts:
        return ""
    h = hashlib.sha256()
    for path in font_files(Path(game_fonts[0]) / "fonts"):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    for path in system_font_files() if game_fonts[2:] == ("system",) else ():
        h.update(f"{path}\0{path.stat().st_size}\0{path.stat().st_mtime_ns}\n".encode())
    return h.hexdigest()


def face_key(svg: str, size_mm, roots: tuple[str, ...] = (), game_fonts_digest: str = "",
             pictures: str = "") -> str:
    """sha256 hex of everything that decides a face's pixels (see the module docstring);
    `pictures`: the digest of the picture policy."""
    stand_ins = _fonts_digest(True) if names_a_stand_in(svg) else ""
    h = hashlib.sha256((SALT + _fonts_digest() + stand_ins + game_fonts_digest + f"\n{size_mm!r}\n").encode())
    h.update(svg.encode())
    if pictures and "<image" in svg:
        h.update(f"\n{pictures}".encode())
    for href in sorted(set(_HREF.findall(svg))):
        if not href.startswith(("data:", "#")):
            h.update(f"\n{href}\0{_image_digest(roots, href)}".encode())
    return h.hexdigest()
