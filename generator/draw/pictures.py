"""Pictures made ready for print: passed through, converted or resampled (by Pillow; libvips: picturevips.py).

In: a picture's bytes (a file an <image> names, or a data: URI), its header, and the
pixels its placement needs at the print resolution (`Policy`: game.yaml `print:
image_dpi`, `--image-dpi`, `--draft`). Out: a `Prepared` picture, what a PDF holds, and
remarks on its colours; the effective resolution of a placement (`Placement`) for the
print-quality warnings.

The rules:
- A JPEG passes through, its bytes untouched (the PDF holds it as DCT), when it has at
  most `slack` times the pixels its placement needs on its larger side, is 8-bit grey or
  RGB (baseline, extended or progressive), has no EXIF turn and no colour profile, or one
  that leaves sRGB colours where they are. Otherwise it is decoded (by DCT scaling when
  that halves it or more), turned upright, converted to sRGB through its profile (CMYK
  always: a PDF reader shows a CMYK JPEG inverted, and cairo ignores profiles), resampled
  with LANCZOS when too large, and saved as JPEG (quality 92, 4:4:4; no metadata).
- Any other picture (PNG, GIF, WebP, TIFF, BMP) stays lossless: 8-bit grey or RGB PNG
  data whose IDAT becomes the PDF's image stream as it is, plus the alpha as a second
  PNG when some pixel is not opaque. An 8-bit grey or RGB PNG without transparency,
  interlacing or a foreign profile that needs no resampling passes through as it is.
- `--draft`: pictures at `draft_dpi` (100), JPEG quality 80, PNG compressed fast, large
  reductions averaged in blocks first.
Output depends only on the bytes and the policy (and Pillow's version, or libvips'): the
same picture gives the same bytes in every process.
"""
from __future__ import annotations

import hashlib
import io
import math
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from PIL import Image, ImageCms, ImageOps

from . import pngrows, vipsbridge

PREP_VERSION = 2   # 2: PNG data Up-filtered (pngrows.py), not adaptive
# Ghostscript's SWOP profile (Debian's libgs-common): a CMYK JPEG without a profile of its own
# was most likely separated for it; without it, Pillow's plain conversion (colours approximate)
CMYK_FALLBACK = Path("/usr/share/color/icc/ghostscript/default_cmyk.icc")
PASS_SOF = (0xC0, 0xC1, 0xC2)   # JPEG baseline, extended and progressive (Huffman): what PDF readers all show


class PictureError(Exception):
    """A picture that cannot be read; the message names it."""


@dataclass(frozen=True)
class Policy:
    """How pictures are embedded, from game.yaml's `print:` and the command line."""

    dpi: float = 300               # print: image_dpi (--image-dpi)
    min_dpi: float = 200           # print: min_image_dpi: below it, a warning
    draft: bool = False            # --draft: pictures at draft_dpi, for proofs
    store: str | None = None       # folder of the picture store (output/.cache/pictures), None: none
    quality: int = 92              # JPEG quality of converted or resampled JPEGs
    subsampling: int = 0           # 4:4:4 (Pillow's 0); 4:2:0 blurs coloured edges
    slack: float = 1.15            # a picture with up to this many times the pixels needed is kept
    draft_dpi: float = 100
    draft_quality: int = 80
    engine: str = "pillow"         # or "vips": who decodes, resamples and encodes (vipsbridge.chosen)

    @property
    def target_dpi(self) -> float:
        return min(self.draft_dpi, self.dpi) if self.draft else self.dpi

    @property
    def jpeg_quality(self) -> int:
        return self.draft_quality if self.draft else self.quality

    @property
    def png_level(self) -> int:
        return 1 if self.draft else 4   # 4: about 15 % smaller than 1, for 10 ms more a picture

    def digest(self) -> str:
        """What decides the prepared bytes (part of the draw key of a face with pictures)."""
        return (f"pictures {PREP_VERSION} dpi {self.target_dpi:g} q {self.jpeg_quality} ss {self.subsampling} "
                f"png {self.png_level} slack {self.slack:g}" + (" gap 2" if self.draft else "")
                + (f" by {vipsbridge.version()}" if self.engine == "vips" else f" zlib {pngrows.ZLIB}"))


@dataclass(frozen=True)
class Asked:
    """What whoever runs a build asks of its pictures (the command line, never the project):
    `--image-dpi` (None: the game's), `--draft`, and where the picture store is
    (output/.cache/pictures; None: none)."""

    dpi: float | None = None
    draft: bool = False
    store: str | None = None


def policy_for(settings: dict | None, asked: Asked | None = None) -> Policy:
    """The policy of a game's build: its `print:` settings (image_dpi, min_image_dpi), what
    the command line asks, and the engine (PNP_PICTURES)."""
    settings, asked = settings or {}, asked or Asked()
    return Policy(dpi=float(asked.dpi or settings.get("image_dpi") or Policy.dpi),
                  min_dpi=float(settings.get("min_image_dpi", Policy.min_dpi)), draft=asked.draft,
                  store=asked.store, engine=vipsbridge.chosen())


class Header(NamedTuple):
    format: str
    mode: str
    upright: tuple[int, int]       # pixels as shown (EXIF turn applied)
    orientation: int               # EXIF orientation, 1: upright
    icc: bytes | None
    sof: int                       # JPEG frame marker (0xC0 baseline...), 0 for other formats
    bits: int                      # bits per sample as stored (PNG: IHDR), 8 when unknown


@dataclass(frozen=True)
class Prepared:
    """A picture as the PDF holds it: a JPEG, or PNG data (8-bit grey or RGB, not
    interlaced) and the alpha as an 8-bit grey PNG (b"" when opaque)."""

    kind: str                      # "jpeg" or "png"
    data: bytes
    size: tuple[int, int]
    how: str                       # passthrough, converted, resampled, converted+resampled
    alpha: bytes = b""
    uid: str = field(default="", compare=False)   # sha256 of data and alpha: its identity in every PDF
    notes: tuple[str, ...] = ()    # what was done to its colours, for the designer

    @staticmethod
    def make(kind: str, data: bytes, size, how: str, alpha: bytes = b"", notes=()) -> Prepared:
        return Prepared(kind, data, tuple(size), how, alpha, hashlib.sha256(data + alpha).hexdigest(), tuple(notes))

    @property
    def colours(self) -> int:
        """1 (grey) or 3 (RGB)."""
        if self.kind == "png":
            return 1 if self.data[25] == 0 else 3
        return 1 if _jpeg_components(self.data) == 1 else 3


class Placement(NamedTuple):
    """A picture as one face places it."""

    picture: str                   # as the template names it
    pixels: tuple[int, int]        # the picture's own, upright
    placed_pt: tuple[float, float]  # the size the whole picture is drawn at

    @property
    def dpi(self) -> float:
        return effective_dpi(self.pixels, self.placed_pt)

    def warning(self, min_dpi: float) -> str | None:
        """Why the picture prints blurred, or None when it has `min_dpi` or more."""
        dpi = self.dpi
        if dpi + 1e-6 >= min_dpi:
            return None
        w, h = (v * 25.4 / 72 for v in self.placed_pt)
        return (f"picture '{self.picture}' is {self.pixels[0]} x {self.pixels[1]} px placed at {w:.1f} x {h:.1f} mm: "
                f"{dpi:.0f} dpi, below the {min_dpi:g} dpi of print: min_image_dpi (it would print blurred; "
                f"it needs {math.ceil(w / 25.4 * min_dpi)} x {math.ceil(h / 25.4 * min_dpi)} px)")


def effective_dpi(pixels: tuple[int, int], placed_pt: tuple[float, float]) -> float:
    """Pixels per inch of a placement: the lower of the two sides."""
    return min(pixels[0] / (placed_pt[0] / 72), pixels[1] / (placed_pt[1] / 72))


def header(data: bytes, shown: str) -> Header:
    """The picture's header, read without decoding a pixel (its size was checked by the
    fetcher, art.py, before this)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                w, h = im.size
                orientation = _orientation(im)
                icc = im.info.get("icc_profile") or None
                fmt, mode = im.format or "", im.mode
    except Exception as exc:  # not a picture Pillow knows, or broken
        raise PictureError(f"{shown} cannot be read as a picture (PNG, JPEG, GIF, WebP, TIFF or BMP): "
                           f"{type(exc).__name__}: {str(exc)[:120]}") from None
    upright = (h, w) if orientation in (5, 6, 7, 8) else (w, h)
    sof = _jpeg_sof(data) if fmt == "JPEG" else 0
    bits = data[24] if fmt == "PNG" and data[12:16] == b"IHDR" else 8
    return Header(fmt, mode, upright, orientation, icc, sof, bits)


def _orientation(im: Image.Image) -> int:
    """The EXIF orientation as far as the header tells (a PNG's getexif() would decode the
    whole picture looking for a late eXIf chunk)."""
    try:
        if im.format == "PNG":
            raw = im.info.get("exif")
            if not raw:
                return 1
            exif = Image.Exif()
            exif.load(raw)
            found = exif.get(0x0112, 1)
        elif im.format in ("JPEG", "MPO", "TIFF", "WEBP"):
            found = im.getexif().get(0x0112, 1)
        else:
            return 1
    except Exception:  # a damaged EXIF block: shown as stored
        return 1
    return found if found in range(1, 9) else 1


def _jpeg_sof(data: bytes) -> int:
    """The frame marker of a JPEG (0xC0 baseline, 0xC2 progressive, ...), 0 if none is found."""
    pos = 2
    while pos + 4 <= len(data) and data[pos] == 0xFF:
        marker = data[pos + 1]
        if marker == 0xFF:
            pos += 1
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return marker
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            pos += 2
            continue
        pos += 2 + int.from_bytes(data[pos + 2:pos + 4], "big")
    return 0


def _jpeg_components(data: bytes) -> int:
    pos = 2
    while pos + 4 <= len(data) and data[pos] == 0xFF:
        marker = data[pos + 1]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return data[pos + 9]
        pos += 2 + int.from_bytes(data[pos + 2:pos + 4], "big")
    return 3


def target_size(upright: tuple[int, int], need: tuple[float, float], slack: float) -> tuple[int, int] | None:
    """The pixels to resample to, or None when the picture has at most `slack` times the
    pixels `need`s (fractional pixels wide and high) on its larger side. Proportions are
    kept: the side that needs more pixels decides."""
    w, h = upright
    scale = max(need[0] / w, need[1] / h)
    if scale * slack >= 1:
        return None
    return max(1, math.ceil(w * scale - 1e-6)), max(1, math.ceil(h * scale - 1e-6))


def prepare(data: bytes, head: Header, size: tuple[int, int] | None, policy: Policy) -> Prepared:
    """The picture as a PDF will hold it (see the module docstring), resampled to `size`
    (None: kept as large as it is), with remarks on what was done to its colours."""
    notes: list[str] = []
    passed = passthrough(data, head, size)
    if passed is not None:
        return passed
    if head.format == "JPEG":
        im = _decoded(data, head, size, notes)
        if size is not None and im.size != size:
            im = _resampled(im, size, policy)
        return Prepared.make("jpeg", _jpeg(im, policy), im.size, how(head, size), notes=notes)
    im = _decoded(data, head, size, notes)
    if size is not None and im.size != size:
        im = _resampled(im, size, policy)   # RGBA and LA are resampled premultiplied
    alpha = b""
    if im.mode in ("RGBA", "LA"):
        channel = im.getchannel("A")
        if channel.getextrema() != (255, 255):
            alpha = _png(channel, policy.png_level)
        im = im.convert(im.mode[:-1])
    return Prepared.make("png", _png(im, policy.png_level), im.size, how(head, size), alpha, notes)


def passthrough(data: bytes, head: Header, size: tuple[int, int] | None) -> Prepared | None:
    """The picture as it is, when the PDF can hold it so (the module docstring), else None."""
    if size is not None or not (head.icc is None or _is_srgb(head.icc, head.mode)):
        return None
    if head.format == "JPEG" and head.orientation == 1 and head.mode in ("RGB", "L") and head.sof in PASS_SOF:
        return Prepared.make("jpeg", data, head.upright, "passthrough")
    if head.format == "PNG" and head.mode in ("RGB", "L") and head.bits == 8 and _png_plain(data):
        return Prepared.make("png", data, head.upright, "passthrough")
    return None


def how(head: Header, size: tuple[int, int] | None) -> str:
    """What preparing the picture does: converted, resampled or both."""
    plain = head.format != "JPEG" or (head.orientation == 1 and head.mode in ("RGB", "L")
                                      and (head.icc is None or _is_srgb(head.icc, head.mode)))
    return "resampled" if plain and size else "converted+resampled" if size else "converted"


def _resampled(im: Image.Image, size: tuple[int, int], policy: Policy) -> Image.Image:
    """LANCZOS over every source pixel; a draft first averages blocks of pixels when it
    shrinks the picture 4 times or more (Pillow's reducing_gap: about half the time)."""
    return im.resize(size, Image.Resampling.LANCZOS, reducing_gap=2.0 if policy.draft else None)


def _png_plain(data: bytes) -> bool:
    """A PNG whose IDAT a PDF can hold as it is: not interlaced, no palette or transparency chunk."""
    return data[28] == 0 and b"tRNS" not in _chunk_names(data) and b"PLTE" not in _chunk_names(data)


def _chunk_names(png: bytes) -> set[bytes]:
    pos, names = 8, set()
    while pos + 8 <= len(png):
        n = int.from_bytes(png[pos:pos + 4], "big")
        tag = png[pos + 4:pos + 8]
        if tag == b"IDAT":   # what matters comes before the pixels
            break
        names.add(tag)
        pos += 12 + n
    return names


def _decoded(data: bytes, head: Header, size, notes: list) -> Image.Image:
    """The picture decoded, upright, 8-bit and sRGB: L, LA, RGB or RGBA."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        opened = Image.open(io.BytesIO(data))
        if head.format == "JPEG" and size is not None:   # DCT scaling, never below the size wanted
            opened.draft(opened.mode, size if head.orientation in (1, 2, 3, 4) else size[::-1])
        opened.load()
    im: Image.Image = opened
    if head.orientation != 1:
        im = ImageOps.exif_transpose(im) or im
    icc = head.icc
    if im.mode in ("I;16", "I;16B", "I;16L", "I"):   # 16-bit grey: scaled, not clipped
        im = im.convert("I").point(lambda v: v * (1 / 257)).convert("L")
    elif im.mode == "1":
        im = im.convert("L")
    elif im.mode in ("P", "PA") or (im.mode in ("L", "RGB") and "transparency" in im.info):
        im = im.convert("RGBA")
    if im.mode == "CMYK":
        if icc is None and CMYK_FALLBACK.is_file():
            icc = CMYK_FALLBACK.read_bytes()
            notes.append("a CMYK picture without a colour profile: converted to RGB as if printed on SWOP "
                         "(save it as RGB to be sure of its colours)")
        elif icc is None:
            notes.append("a CMYK picture without a colour profile: its colours are approximate (save it as RGB)")
            return im.convert("RGB")
        return _to_srgb(im, icc, "RGB")
    if im.mode not in ("L", "LA", "RGB", "RGBA"):
        im = im.convert("RGBA" if "A" in im.mode or "a" in im.mode else "RGB")
    if icc is not None and not _is_srgb(icc, im.mode.rstrip("A")):
        alpha = im.getchannel("A") if im.mode in ("RGBA", "LA") else None
        colours = im.convert(im.mode.rstrip("A")) if alpha is not None else im
        try:
            im = _to_srgb(colours, icc, colours.mode)
        except ImageCms.PyCMSError:
            notes.append("its colour profile cannot be used: colours shown as if sRGB")
            im = colours
        if alpha is not None:
            im.putalpha(alpha)
    return im


def _to_srgb(im: Image.Image, icc: bytes, mode: str) -> Image.Image:
    """Through the picture's profile to sRGB (relative colorimetric, black point
    compensation); grey stays grey."""
    out = _through(im, icc, renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC,
                   flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)
    return out.convert("L") if mode == "L" else out


def _through(im: Image.Image, icc: bytes, **options) -> Image.Image:
    """`im` through the profile `icc` to sRGB (RGB)."""
    out = ImageCms.profileToProfile(im, ImageCms.ImageCmsProfile(io.BytesIO(icc)), _srgb(), outputMode="RGB",
                                    **options)
    if out is None:   # only when converting in place, which pnp never asks for
        raise ImageCms.PyCMSError("no picture came out of the colour conversion")
    return out


@lru_cache(maxsize=1)
def _srgb():
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


@lru_cache(maxsize=64)
def _is_srgb(icc: bytes, mode: str) -> bool:
    """Does the profile leave sRGB colours where they are (greys, primaries and their
    mixes within 1/255)? A broken profile does not."""
    if mode not in ("RGB", "L"):
        return False
    if mode == "L":
        probe = Image.frombytes("L", (16, 1), bytes(range(0, 256, 17)))
        expected = probe.convert("RGB").tobytes()
    else:
        values = (0, 64, 128, 192, 255)
        probe = Image.new("RGB", (len(values) ** 3, 1))
        probe.putdata([(r, g, b) for r in values for g in values for b in values])
        expected = probe.tobytes()
    try:
        out = _through(probe, icc)
    except Exception:
        return False
    return max(abs(a - b) for a, b in zip(expected, out.tobytes())) <= 1


def _jpeg(im: Image.Image, policy: Policy) -> bytes:
    """Fixed settings and no metadata: the same pixels give the same bytes."""
    if im.mode not in ("RGB", "L"):
        im = im.convert("RGB")
    out = io.BytesIO()
    im.save(out, "JPEG", quality=policy.jpeg_quality, subsampling=policy.subsampling, optimize=True)
    return out.getvalue()


def _png(im: Image.Image, level: int) -> bytes:
    return pngrows.png(im, level)


def idat(png: bytes) -> bytes:
    """The IDAT data of a PNG, joined: zlib data of its rows with PNG filters, what a PDF
    stream holds with /FlateDecode and /Predictor 15."""
    pos, parts = 8, []
    while pos + 8 <= len(png):
        n = int.from_bytes(png[pos:pos + 4], "big")
        if png[pos + 4:pos + 8] == b"IDAT":
            parts.append(png[pos + 8:pos + 8 + n])
        pos += 12 + n
    return b"".join(parts)
