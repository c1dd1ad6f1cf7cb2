"""PNG data of a prepared picture, as pnp writes it: every row Up-filtered, then zlib.

In: an 8-bit grey (L) or RGB Pillow image and a zlib level. Out: the PNG (IHDR, one
IDAT, IEND; no metadata), the same bytes for the same pixels in every process (with the
same zlib: `ZLIB`, part of the picture policy's digest).

Why one fixed filter: Pillow's encoder tries all five PNG filters on every row and keeps
the smallest (adaptive); on the art deck's paintings that search costs about as much as
zlib itself, and the Up filter alone (each byte minus the one above it) stores them 2 %
larger (docs/benchmarks.md, "Pictures by libvips"). libvips is asked for the same filter
(vipsbridge._png). The filtering is Pillow's own C (`ImageChops.subtract_modulo` over
the rows seen as grey bytes), so no row is touched by Python.
"""
from __future__ import annotations

import struct
import zlib

from PIL import Image, ImageChops

UP = 2                          # the PNG filter type of every row
ZLIB = zlib.ZLIB_RUNTIME_VERSION
SIGNATURE = b"\x89PNG\r\n\x1a\n"
COLOUR_TYPES = {"L": 0, "RGB": 2}


def png(im: Image.Image, level: int) -> bytes:
    """`im` (L or RGB) as a PNG whose rows are all Up-filtered, compressed at `level`."""
    kind = COLOUR_TYPES[im.mode]
    w, h = im.size
    row = w * len(im.mode)
    flat = Image.frombytes("L", (row, h), im.tobytes())   # each row's bytes, as grey pixels
    above = Image.new("L", (row, h), 0)                   # the row above each row (zeros above the first)
    if h > 1:
        above.paste(flat.crop((0, 0, row, h - 1)), (0, 1))
    rows = Image.new("L", (row + 1, h), UP)               # a filter byte before each row
    rows.paste(ImageChops.subtract_modulo(flat, above), (1, 0))
    packer = zlib.compressobj(level, zlib.DEFLATED, 15, 9, zlib.Z_DEFAULT_STRATEGY)
    data = packer.compress(rows.tobytes()) + packer.flush()
    return (SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, kind, 0, 0, 0))
            + _chunk(b"IDAT", data) + _chunk(b"IEND", b""))


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))
