"""Pictures prepared by the engine the build chose: Pillow (pictures.py) or libvips.

In: a picture's bytes, its `Header`, the size its placement needs and the `Policy` (whose
`engine` vipsbridge.chosen() set once for the build). Out: the `Prepared` picture, by the
rules of pictures.py whichever the engine (what passes through, what becomes a JPEG or
PNG data and an alpha); `describe`, the engine in words for `pnp build --timings`.

With libvips, a JPEG or PNG that is already 8-bit grey or RGB (with or without alpha, no
palette or transparent colour) in sRGB is decoded by libvips (a JPEG by DCT scaling when
that halves it or more); any other picture (CMYK, a colour profile to convert through,
16-bit, palette, GIF, WebP, TIFF, BMP) is decoded and made sRGB by Pillow as today, then
turned, resampled (Lanczos 3) and encoded by libvips. Against Pillow's pictures: the same
size and kind, pixels within the tolerance docs/architecture.md states (tests/test_picturevips.py).
"""
from __future__ import annotations

import PIL

from . import pictures, vipsbridge
from .pictures import Header, PictureError, Policy, Prepared


def prepare(data: bytes, head: Header, size: tuple[int, int] | None, policy: Policy) -> Prepared:
    """The picture as the PDF will hold it, by `policy.engine`."""
    if policy.engine != "vips":
        return pictures.prepare(data, head, size, policy)
    passed = pictures.passthrough(data, head, size)
    if passed is not None:
        return passed
    notes: list[str] = []
    jpeg = (policy.jpeg_quality, policy.subsampling) if head.format == "JPEG" else None
    stored = head.upright[::-1] if head.orientation in (5, 6, 7, 8) else head.upright
    if _vips_decodes(data, head):
        job = vipsbridge.Job(head.format, data, head.mode, stored, head.orientation, size, jpeg, policy.png_level,
                             policy.draft)
    else:   # decoded, upright and sRGB by Pillow (a JPEG by DCT scaling), as pictures.prepare does
        im = pictures._decoded(data, head, size, notes)
        job = vipsbridge.Job("", im.tobytes(), im.mode, im.size, 1, size, jpeg, policy.png_level, policy.draft)
    try:
        made, alpha, out = vipsbridge.run(job)
    except vipsbridge.VipsError as exc:
        raise PictureError(f"a {head.format} picture of {head.upright[0]} x {head.upright[1]} px cannot be "
                           f"prepared: {exc}") from None
    return Prepared.make("jpeg" if jpeg else "png", made, out, pictures.how(head, size), alpha, notes)


def _vips_decodes(data: bytes, head: Header) -> bool:
    """Is the picture one libvips decodes to what Pillow would (8-bit, sRGB, no palette)?"""
    srgb = head.icc is None or pictures._is_srgb(head.icc, head.mode.rstrip("A"))
    if head.format == "JPEG":
        return head.mode in ("L", "RGB") and srgb
    return (head.format == "PNG" and head.mode in ("L", "LA", "RGB", "RGBA") and head.bits == 8 and srgb
            and not {b"tRNS", b"PLTE"} & pictures._chunk_names(data))


def describe(engine: str) -> str:
    """Who prepares the build's pictures, in words."""
    if engine == "vips":
        return f"pictures prepared by {vipsbridge.version()}"
    why = "PNP_PICTURES=pillow" if vipsbridge.present() else "libvips is not installed"
    return f"pictures prepared by Pillow {PIL.__version__} ({why})"
