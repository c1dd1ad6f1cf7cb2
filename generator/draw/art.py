"""Pictures a face draws (`<image>`): where they may come from, and how big they may be.

In: the href CairoSVG hands its url fetcher, and the folders a game's pictures may live
in. Out: the picture's bytes, or `ImageNotFound` saying why it cannot be used: `data:`
URIs and regular files inside the game's template folders only, never the network, a
device, a FIFO or a link out of the project; at most MAX_IMAGE_BYTES on disk and
MAX_IMAGE_PIXELS once decoded, both checked before the picture is decoded. A fetcher
draws one bundle: a file it read is read again only when it changed (its inode, size or
time), so a background on every face is read and checked once a bundle, and the same
bytes object comes back each time (picturedraw.py remembers its header and sha256 by it).
"""
from __future__ import annotations

import io
import os
import warnings
from dataclasses import dataclass, field
from urllib.parse import unquote

from cachetools import LRUCache

from ..guard import MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS, OutsideProject, read_bytes_inside
from .svgbridge import fetch_data_url

KEPT_BYTES = MAX_IMAGE_BYTES   # the files a fetcher keeps read (a bundle shows a few pictures; one always fits)


class ImageNotFound(Exception):
    """An <image> that cannot be drawn: missing, outside the project's folders, not a
    regular file, or too large; the message names the picture."""


@dataclass(frozen=True)
class ArtFetcher:
    """CairoSVG url_fetcher: `data:` URIs, and files inside the game's template folders only."""

    roots: tuple[str, ...]
    read: LRUCache = field(default_factory=lambda: LRUCache(KEPT_BYTES, getsizeof=len), compare=False,
                           repr=False)   # (path, stat) -> bytes, this bundle's

    def __call__(self, url: str, resource_type):
        if url.startswith("data:"):
            data = fetch_data_url(url, resource_type)
            check_pixels(data, "a picture in a data: URI")
            return data
        if not url.startswith("file://"):
            raise ImageNotFound(f"image '{url[:80]}' is not a file in the game's templates folder "
                                "(pnp never fetches from the network)")
        # CairoSVG made the href absolute against the working folder; it is meant relative to
        # the game's templates folder (no base URL is given: a '#' in a folder name would end it)
        href = os.path.relpath(unquote(url[len("file://"):]), os.getcwd())
        if not self.roots:
            raise ImageNotFound(f"image '{href}' has no templates folder to come from")
        written = os.path.normpath(os.path.join(self.roots[0], href))
        seen = _identity(written)
        if seen is not None and seen in self.read:   # read (and checked) before, unchanged since
            return self.read[seen]
        shown = os.path.relpath(written, os.path.dirname(self.roots[0]))
        real = os.path.realpath(written)
        root = next((r for r in self.roots if real.startswith(os.path.realpath(r) + os.sep)), None)
        if root is None:
            raise ImageNotFound(f"image '{shown}' is outside the game's templates folder")
        if not os.path.lexists(written):
            raise ImageNotFound(f"image '{shown}' does not exist")
        try:
            data = read_bytes_inside(root, written, MAX_IMAGE_BYTES, f"image {shown}")
        except OutsideProject as exc:
            raise ImageNotFound(str(exc)) from None
        check_pixels(data, f"image '{shown}'")
        if seen is not None and seen == _identity(written):   # the file read is the one seen before reading
            self.read[seen] = data
        return data


def _identity(path: str) -> tuple | None:
    """The file at `path` as it is now (its device, inode, size and time), or None."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def check_pixels(data: bytes, shown: str) -> None:
    """Refuse a raster picture of more than MAX_IMAGE_PIXELS, read from its header alone
    (a 1 MB PNG can hold 400 million pixels: decoding it would take minutes and gigabytes)."""
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as picture:
                width, height = picture.size
    except Image.DecompressionBombError:  # over twice Pillow's own bound, which is below pnp's
        bound = Image.MAX_IMAGE_PIXELS or 0   # set, or Pillow would not have raised
        raise ImageNotFound(f"{shown} has over {2 * bound // 1_000_000} megapixels; "
                            f"{_AT_MOST}") from None
    except Exception:  # not a raster Pillow knows (an SVG, or broken): CairoSVG says what it is
        return
    if width * height > MAX_IMAGE_PIXELS:
        raise ImageNotFound(f"{shown} is {width:,} x {height:,} px ({width * height / 1e6:.0f} megapixels); "
                            f"{_AT_MOST}")


_AT_MOST = (f"pnp draws pictures of at most {MAX_IMAGE_PIXELS // 1_000_000} megapixels "
            "(scale it down to what it prints at)")
