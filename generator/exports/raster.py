"""Vector faces to pixels of an exact size, with PDFium.

In: the faces PDFs of a `RenderedGame`, a face key, a target size in pixels and the part of
the face (mm from its top-left corner) that must fill it. Out: an RGB `PIL.Image`. The
page is drawn through a matrix (FPDF_RenderPageBitmapWithMatrix) into a bitmap of exactly
the asked size, so a poker card with 1/8 in bleed at 300 dpi is 825 x 1125 px, never
824 or 826 from rounding a scale.
"""
from __future__ import annotations

import ctypes
import io

import pypdfium2 as pdfium
import pypdfium2.raw as raw
from PIL import Image

from ..units import PT_PER_MM

MM_PER_IN = 25.4


def pixels(mm: float, dpi: float) -> int:
    """The whole number of pixels `mm` takes at `dpi` (half a pixel rounds up)."""
    return int(mm / MM_PER_IN * dpi + 0.5 + 1e-9)


class Rasteriser:
    """Opens each faces PDF once and draws faces from it; same input, same pixels."""

    def __init__(self, rendered):
        self.docs = [pdfium.PdfDocument(doc) for doc in rendered.faces_pdfs]
        self.page_of = rendered.page_of
        self._cache: dict[tuple, Image.Image] = {}

    def face(self, key: str, width_px: int, height_px: int, box_mm: tuple[float, float, float, float]) -> Image.Image:
        """Face `key`, the part `box_mm` (x, y, w, h in mm from the face's top-left corner,
        y down; may reach outside the face to add white) scaled to width_px x height_px."""
        memo = (key, width_px, height_px, tuple(round(v, 6) for v in box_mm))
        if memo not in self._cache:
            doc, number = self.page_of[key]
            self._cache[memo] = _draw(self.docs[doc][number], width_px, height_px, box_mm)
        return self._cache[memo]


def _draw(page, width_px: int, height_px: int, box_mm) -> Image.Image:
    x, y, w, h = box_mm
    sx = width_px / (w * PT_PER_MM)
    sy = height_px / (h * PT_PER_MM)
    bitmap = pdfium.PdfBitmap.new_native(width_px, height_px, raw.FPDFBitmap_BGRx)
    raw.FPDFBitmap_FillRect(bitmap, 0, 0, width_px, height_px, 0xFFFFFFFF)
    matrix = raw.FS_MATRIX(sx, 0, 0, sy, -x * PT_PER_MM * sx, -y * PT_PER_MM * sy)
    clip = raw.FS_RECTF(0, 0, width_px, height_px)
    raw.FPDF_RenderPageBitmapWithMatrix(bitmap, page, ctypes.byref(matrix), ctypes.byref(clip), raw.FPDF_ANNOT)
    return bitmap.to_pil().convert("RGB")


def png_bytes(image: Image.Image, dpi: float) -> bytes:
    """PNG with its resolution recorded (print shops read it); no timestamps, so reproducible."""
    out = io.BytesIO()
    image.save(out, format="PNG", dpi=(dpi, dpi), optimize=False, compress_level=6)
    return out.getvalue()
