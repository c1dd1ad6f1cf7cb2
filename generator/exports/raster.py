"""Vector faces to pixels of an exact size, with PDFium.

In: the faces PDFs of a `RenderedGame`, a face key, a target size in pixels and the part of
the face (mm from its top-left corner) that must fill it. Out: an RGB `PIL.Image` (or its
pixels as an 8-bit array, for the colour check). The page is drawn through a matrix
(FPDF_RenderPageBitmapWithMatrix) into a bitmap of exactly the asked size, so a poker card
with 1/8 in bleed at 300 dpi is 825 x 1125 px, never 824 or 826 from rounding a scale.

Every pypdfium2 call here holds `PDFIUM` (pdfiumlock.py: PDFium allows one call at a time in
a process). The preview server's threads draw through `page_png` here.
"""
from __future__ import annotations

import ctypes
import io
from collections.abc import Sequence

import pypdfium2 as pdfium
import pypdfium2.raw as raw
from PIL import Image

from ..errors import InputError, Problem
from ..guard import too_many_pixels
from ..pdfiumlock import PDFIUM, pdfium_document
from ..units import PT_PER_MM

MM_PER_IN = 25.4


def pixels(mm: float, dpi: float) -> int:
    """The whole number of pixels `mm` takes at `dpi` (half a pixel rounds up)."""
    return int(mm / MM_PER_IN * dpi + 0.5 + 1e-9)


class Rasteriser:
    """Opens each faces PDF once and draws faces from it; same input, same pixels.
    Use it in a `with` block (or call `close()`): its documents are closed holding the lock."""

    def __init__(self, rendered) -> None:
        with PDFIUM:
            self.docs = [pdfium.PdfDocument(doc) for doc in rendered.faces_pdfs]
        self.page_of = rendered.page_of
        self.cards = rendered.cards
        self._cache: dict[tuple, Image.Image] = {}
        self._open: tuple | None = None   # (face key, its page): the colour check draws one face's parts in a row

    def _problem(self, key: str, message: str) -> Problem:
        """`message` about face `key`, naming its deck and card."""
        for rc in self.cards:
            if key in (rc.front, rc.back, *rc.faces):
                side = "front" if key == rc.front else "back" if key == rc.back else "a face"
                return Problem(rc.card.source.file, f"deck {rc.deck.id}, {side}: {message}",
                               line=rc.card.source.line, card=rc.card.id)
        return Problem("the export", message)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        with PDFIUM:
            self._let_go()
            for doc in self.docs:
                doc.close()
            self.docs = []

    def face(self, key: str, width_px: int, height_px: int, box_mm: tuple[float, float, float, float]) -> Image.Image:
        """Face `key`, the part `box_mm` (x, y, w, h in mm from the face's top-left corner,
        y down; may reach outside the face to add white) scaled to width_px x height_px."""
        memo = (key, width_px, height_px, tuple(round(v, 6) for v in box_mm))
        if memo not in self._cache:
            self._cache[memo] = self._drawn(key, width_px, height_px, box_mm, _image)
        return self._cache[memo]

    def face_pixels(self, key: str, width_px: int, height_px: int, box_mm: tuple[float, float, float, float]):
        """`face`'s pixels as an 8-bit RGB array (height x width x 3), not kept: the colour
        check measures each part it draws once."""
        return self._drawn(key, width_px, height_px, box_mm, _array)

    def _drawn(self, key: str, width_px: int, height_px: int, box_mm, copy):
        problem = too_many_pixels(width_px, height_px, width_px / box_mm[2] * MM_PER_IN)
        if problem:
            raise InputError("1 face is too large to export", [self._problem(key, problem)])
        with PDFIUM:
            return _draw(self._page(key), width_px, height_px, box_mm, copy)

    def _page(self, key: str):
        """Face `key`'s page, kept open until another face is drawn (call it holding PDFIUM):
        loading a page parses its content, as long as drawing a small part of it."""
        if self._open is None or self._open[0] != key:
            self._let_go()
            doc, number = self.page_of[key]
            self._open = (key, self.docs[doc][number])
        return self._open[1]

    def _let_go(self) -> None:
        if self._open is not None:
            self._open[1].close()
            self._open = None


def _image(bitmap) -> Image.Image:
    return bitmap.to_pil().convert("RGB")   # a copy: the bitmap's memory is freed after


def _array(bitmap):
    return bitmap.to_numpy()[:, :, 2::-1].copy()   # BGRx to RGB, a copy


def _draw(page, width_px: int, height_px: int, box_mm, copy=_image):
    """`box_mm` of `page` in a width_px x height_px RGB image (`copy`: as an array; call it
    holding PDFIUM)."""
    x, y, w, h = box_mm
    sx = width_px / (w * PT_PER_MM)
    sy = height_px / (h * PT_PER_MM)
    bitmap = pdfium.PdfBitmap.new_native(width_px, height_px, raw.FPDFBitmap_BGRx)
    try:
        raw.FPDFBitmap_FillRect(bitmap, 0, 0, width_px, height_px, 0xFFFFFFFF)
        matrix = raw.FS_MATRIX(sx, 0, 0, sy, -x * PT_PER_MM * sx, -y * PT_PER_MM * sy)
        clip = raw.FS_RECTF(0, 0, width_px, height_px)
        raw.FPDF_RenderPageBitmapWithMatrix(bitmap, page, ctypes.byref(matrix), ctypes.byref(clip), raw.FPDF_ANNOT)
        return copy(bitmap)
    finally:
        bitmap.close()


def page_image(pdf: bytes, number: int, scale: float) -> Image.Image:
    """Page `number` of `pdf` drawn at `scale` pixels per point, as an RGB image."""
    return page_images([pdf], {0: (0, number)}, scale)[0]


def page_images(pdfs: Sequence[bytes], pages: dict, scale: float) -> dict:
    """{key: RGB image} of `pages` ({key: (index in `pdfs`, page number)}) drawn at `scale`
    pixels per point; each PDF is opened once."""
    images = {}
    for index, pdf in enumerate(pdfs):
        wanted = [(key, number) for key, (doc_index, number) in pages.items() if doc_index == index]
        if not wanted:
            continue
        with pdfium_document(pdf) as doc:
            for key, number in wanted:
                page = doc[number]
                w_pt, h_pt = page.get_size()
                problem = too_many_pixels(round(w_pt * scale), round(h_pt * scale), scale * 72)
                if problem:
                    page.close()
                    raise InputError(f"page {number + 1} is too large to draw: {problem}")
                bitmap = page.render(scale=scale)
                images[key] = bitmap.to_pil().convert("RGB")   # a copy, kept after the close
                bitmap.close()
                page.close()
    return images


def page_png(pdf: bytes, number: int, scale: float) -> bytes:
    """Page `number` of `pdf` drawn at `scale` pixels per point, as PNG bytes."""
    out = io.BytesIO()
    page_image(pdf, number, scale).save(out, format="PNG")
    return out.getvalue()


def png_bytes(image: Image.Image, dpi: float) -> bytes:
    """PNG with its resolution recorded (print shops read it); no timestamps, so reproducible."""
    out = io.BytesIO()
    image.save(out, format="PNG", dpi=(dpi, dpi), optimize=False, compress_level=6)
    return out.getvalue()
