"""libvips through pyvips: the only module that knows pyvips (tests/test_vipsbridge.py pins
what it relies on, and fails on an upgrade).

In: a `Job`: a picture's encoded bytes (a JPEG or PNG libvips decodes) or its pixels
(decoded by Pillow: 8-bit L, LA, RGB or RGBA), its EXIF turn, the size to resample to
and how to encode it. Out: the encoded picture (JPEG, or PNG data and an alpha PNG, b""
when opaque) and its size; whether libvips is there (`present`, without starting it) and
which (`version`).

- libvips is the system's, Debian's libvips42 (8.14 on Debian 12) installed by `make`,
  loaded by pyvips in its ABI mode (libvips.so.42): its version is in the picture
  policy's digest (another version may give other bytes); one worker thread
  (`concurrency_set(1)`: pnp runs a process per core already), no operation cache, the
  untrusted loaders blocked, its modules never loaded (`NO_MODULES`), no metadata saved
  (`strip` before 8.15, `keep` since: `_no_metadata`); pictures are decoded by the loader
  named for their format (never sniffed), after checking libvips reads the size Pillow
  read (guard.py's bound was applied to it).
- libvips keeps its worker threads for the life of a process, and a process forked from
  one that used them hangs at its first picture. So it runs only in a process that forks
  no drawing worker later: a drawing worker (a multiprocessing child) runs it itself;
  any other process (a build drawing a few bundles itself, `pnp watch`) asks one helper
  process, forked once, that does nothing else.
"""
from __future__ import annotations

import ctypes
import importlib.util
import multiprocessing
import os
import threading
from functools import lru_cache
from typing import NamedTuple

from .. import distributions
from ..errors import InputError

JPEG_SHRINKS = (8, 4, 2)   # the DCT scalings libjpeg decodes at
LIBRARY = "libvips.so.42"   # the name pyvips (ABI mode) loads on Linux
# libvips' home, where it looks for its modules (Debian's: ImageMagick, poppler, OpenSlide,
# HEIF, JPEG XL), none of which pnp uses: under /dev/null, which no folder can ever be
NO_MODULES = "/dev/null"


class VipsError(Exception):
    """libvips refused a picture; the message says why."""


class Job(NamedTuple):
    """A picture to prepare: `encoded` (a JPEG or PNG, `fmt`) or `pixels` (`mode`, `stored`
    size); `turn`: its EXIF orientation; `size`: pixels wanted, upright (None: as it is)."""

    fmt: str                       # "JPEG" or "PNG" for encoded bytes, "" for pixels
    data: bytes                    # the encoded picture, or its pixels (row by row)
    mode: str                      # L, LA, RGB or RGBA (pixels), or the mode Pillow read
    stored: tuple[int, int]        # the picture's size as stored (before its turn)
    turn: int                      # EXIF orientation, 1: upright
    size: tuple[int, int] | None   # to resample to (upright), None: kept
    jpeg: tuple[int, int] | None   # (quality, subsampling) to save a JPEG, None: a PNG
    png_level: int
    draft: bool                    # large reductions averaged in blocks first


def present() -> bool:
    """Is libvips there (pyvips installed, the system's libvips.so.42 loads), without mapping
    it into this process."""
    return importlib.util.find_spec("pyvips") is not None and _system_version() is not None


@lru_cache(maxsize=1)
def _system_version() -> tuple[int, int, int] | None:
    """(major, minor, micro) of the system's libvips, or None where the dynamic loader finds
    none. Read in a child forked for it (vips_version needs no vips_init): mapped into this
    process, libvips and its libraries would be in every drawing worker forked from it,
    about 12 MB of a 3,000-card build's process tree, though the deck has no picture."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: load, answer, leave without any of the parent's cleanup
        try:
            lib = ctypes.CDLL(LIBRARY)
            lib.vips_version.restype, lib.vips_version.argtypes = ctypes.c_int, [ctypes.c_int]
            os.write(write, ".".join(str(lib.vips_version(n)) for n in range(3)).encode())
        except BaseException:
            pass
        os._exit(0)
    os.close(write)
    try:
        with os.fdopen(read, "rb") as answer:
            said = answer.read(64)
    finally:
        os.waitpid(pid, 0)
    if not said:
        return None
    major, minor, micro = (int(n) for n in said.split(b"."))
    return major, minor, micro


def _libvips_version() -> tuple[int, int, int]:
    """(major, minor, micro) of the system's libvips."""
    found = _system_version()
    if found is None:
        raise VipsError(f"libvips is not installed ({LIBRARY} not found): apt-get install libvips42")
    return found


def chosen() -> str:
    """The engine that prepares pictures, chosen once per build: "vips" where libvips is
    there, else "pillow"; PNP_PICTURES=pillow (or =vips: libvips or an error) decides instead."""
    asked = os.environ.get("PNP_PICTURES", "") or "auto"
    if asked not in ("auto", "vips", "pillow"):
        raise InputError(f"PNP_PICTURES={asked!r}: pnp prepares pictures with 'vips' or 'pillow' (or 'auto')")
    if asked == "vips" and not present():
        raise InputError("PNP_PICTURES=vips, but libvips is not installed (make installs Debian's libvips42)")
    return "pillow" if asked == "pillow" or not present() else "vips"


@lru_cache(maxsize=1)
def version() -> str:
    """Which libvips and pyvips prepare pictures (what their bytes depend on)."""
    return f"libvips {'.'.join(map(str, _libvips_version()))} (pyvips {distributions.version('pyvips')})"


def _no_metadata(libvips: tuple[int, int, int]) -> dict[str, object]:
    """The save option that leaves out every piece of metadata: `keep` since libvips 8.15,
    `strip` before it."""
    return {"keep": "none"} if libvips[:2] >= (8, 15) else {"strip": True}


def run(job: Job) -> tuple[bytes, bytes, tuple[int, int]]:
    """(encoded picture, alpha PNG or b"", size) for `job`, by libvips in a process safe for it.

    :raises VipsError: libvips could not read or make the picture."""
    if multiprocessing.parent_process() is not None:   # a drawing worker (or the helper): never forks
        return _made(job)
    return _helper().ask(job)


class _Helper:
    """A process of its own, forked before this one ever loads libvips's threads."""

    def __init__(self):
        context = multiprocessing.get_context("fork")
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs,), name="pnp-pictures", daemon=True)
        self.process.start()
        theirs.close()
        self.owner = os.getpid()
        self.lock = threading.Lock()   # one picture at a time on the pipe, whichever thread asks

    def ask(self, job: Job):
        with self.lock:
            try:
                self.conn.send(job)
                ok, answer = self.conn.recv()
            except (EOFError, OSError) as exc:   # the helper died (killed, out of memory)
                self.close()
                raise VipsError(f"the process preparing pictures with libvips ended ({exc or type(exc).__name__})") \
                    from None
            except BaseException:   # out of time, interrupted: never reused half-way through an answer
                self.close()
                raise
        if not ok:
            raise VipsError(answer)
        return answer

    def close(self) -> None:
        global _HELPER
        _HELPER = None
        self.conn.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join()


_HELPER: _Helper | None = None


def _helper() -> _Helper:
    global _HELPER
    if _HELPER is None or _HELPER.owner != os.getpid() or not _HELPER.process.is_alive():
        if _HELPER is not None and _HELPER.owner == os.getpid():
            _HELPER.close()
        _HELPER = _Helper()
    return _HELPER


def _serve(conn) -> None:
    """The helper: jobs in, pictures out, until the process that forked it lets go."""
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        answer: tuple[bool, object]
        try:
            answer = (True, _made(job))
        except Exception as exc:   # said to the process that asked, which goes on (the helper too)
            answer = (False, str(exc) if isinstance(exc, VipsError) else f"{type(exc).__name__}: {exc}")
        conn.send(answer)


@lru_cache(maxsize=1)
def _vips():
    """pyvips, loaded and set up once in this process."""
    os.environ.setdefault("VIPS_WARNING", "0")   # a damaged picture is an error, not lines on stderr
    os.environ["VIPSHOME"] = NO_MODULES
    try:
        import pyvips
    except (ImportError, OSError) as exc:   # installed, but not loadable here: said, never Pillow instead
        raise VipsError(f"libvips cannot be loaded ({exc}); PNP_PICTURES=pillow prepares pictures with Pillow") \
            from None
    loaded = pyvips.version(0), pyvips.version(1), pyvips.version(2)
    if loaded != _libvips_version():   # version() names the system's: pictures' keys must say which made them
        raise VipsError(f"pyvips loaded libvips {'.'.join(map(str, loaded))}, not the system's "
                        f"{'.'.join(map(str, _libvips_version()))} (pip's pyvips-binary? pip uninstall pyvips-binary)")

    pyvips.concurrency_set(1)
    pyvips.cache_set_max(0)
    pyvips.block_untrusted_set(True)
    return pyvips


def _made(job: Job) -> tuple[bytes, bytes, tuple[int, int]]:
    vips = _vips()
    try:
        im = _decoded(vips, job)
        im = _upright(im, job.turn)
        if job.size is not None and (im.width, im.height) != job.size:
            im = _resampled(im, job.size, job.draft)
        im = im.copy_memory()
        if job.jpeg is not None:
            quality, subsampling = job.jpeg
            data = im.jpegsave_buffer(Q=quality, subsample_mode="off" if subsampling == 0 else "on",
                                      optimize_coding=True, **_no_metadata(_libvips_version()))
            return data, b"", (im.width, im.height)
        alpha = b""
        if im.bands in (2, 4):
            if im[im.bands - 1].min() < 255:
                alpha = _png(im[im.bands - 1].copy(interpretation="b-w"), job.png_level)
            im = im.extract_band(0, n=im.bands - 1)
        return _png(im, job.png_level), alpha, (im.width, im.height)
    except vips.Error as exc:
        raise VipsError(f"libvips: {' '.join(str(exc.detail or exc.message).split())[:200]}") from None


def _decoded(vips, job: Job):
    """The picture as libvips reads it, 8-bit, as stored (JPEGs by DCT scaling when that
    halves them or more, never below the size wanted)."""
    bands = len(job.mode)
    if not job.fmt:
        im = vips.Image.new_from_memory(job.data, job.stored[0], job.stored[1], bands, "uchar")
        return im.copy(interpretation="b-w" if bands <= 2 else "srgb")
    load = vips.Image.jpegload_buffer if job.fmt == "JPEG" else vips.Image.pngload_buffer
    access = "sequential" if job.turn == 1 else "random"
    im = load(job.data, access=access, fail_on="error")
    if (im.width, im.height) != job.stored or im.bands != bands or im.format != "uchar":
        raise VipsError(f"libvips reads a {im.width} x {im.height} picture of {im.bands} {im.format} bands where "
                        f"its header says {job.stored[0]} x {job.stored[1]} {job.mode}")
    shrink = _shrink(job) if job.fmt == "JPEG" else 1
    if shrink > 1:
        im = load(job.data, access=access, fail_on="error", shrink=shrink)
    return im


def _shrink(job: Job) -> int:
    if job.size is None:
        return 1
    w, h = job.stored
    want = job.size if job.turn in (1, 2, 3, 4) else job.size[::-1]
    return next((n for n in JPEG_SHRINKS if -(-w // n) >= want[0] and -(-h // n) >= want[1]), 1)


def _upright(im, turn: int):
    """The picture turned as its EXIF orientation says (as Pillow's exif_transpose does)."""
    if turn in (5, 6, 7, 8):
        im = im.rot("d90" if turn in (5, 6) else "d270")
    elif turn == 3:
        im = im.rot("d180")
    if turn in (2, 5, 7):
        im = im.fliphor()
    elif turn == 4:
        im = im.flipver()
    return im


def _resampled(im, size: tuple[int, int], draft: bool):
    """Lanczos (3 lobes) over every source pixel, alpha premultiplied; a draft first
    averages blocks when it shrinks 4 times or more (libvips' gap, as Pillow's reducing_gap)."""
    alpha = im.bands in (2, 4)
    if alpha:
        im = im.premultiply()
    out = im.resize(size[0] / im.width, vscale=size[1] / im.height, kernel="lanczos3", gap=2.0 if draft else 0.0)
    if (out.width, out.height) != size:   # libvips rounds the scale's product: never off here, but checked
        raise VipsError(f"libvips resampled to {out.width} x {out.height}, not {size[0]} x {size[1]}")
    if alpha:
        out = out.unpremultiply()
    return out.rint().cast("uchar") if out.format != "uchar" else out   # rounded, not cut


def _png(im, level: int) -> bytes:
    """8-bit grey or RGB, not interlaced, every row Up-filtered (as pngrows.py); no metadata."""
    return im.pngsave_buffer(compression=level, filter="up", interlace=False, **_no_metadata(_libvips_version()))
