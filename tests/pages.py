"""Pages rendered and compared, so that "renders pixel for pixel as before" is a test.

In: PDF bytes. Out: each page rendered with PDFium at a given resolution (`page_images`),
a digest of each page's pixels (`page_digests`: what a byte pin keeps beside its sha256)
and the pages of two PDFs that differ beyond a tolerance (`differences`). Used by the
byte pin of the benchmark deck (test_bytes.py) and by any test comparing a shipped game
before and after a change of how it is drawn.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pypdfium2 as pdfium
from PIL import Image, ImageChops

DPI = 40   # enough to see a moved line or a changed glyph on an A4 page, small to keep


def page_images(pdf: bytes, dpi: float = DPI) -> list[Image.Image]:
    """Every page as an RGB image, `dpi` pixels per inch."""
    doc = pdfium.PdfDocument(pdf)
    try:
        return [page.render(scale=dpi / 72).to_pil().convert("RGB") for page in doc]
    finally:
        doc.close()


def page_digests(pdf: bytes, dpi: float = DPI) -> list[str]:
    """sha256 (first 16 hex) of each page's size and pixels at `dpi`."""
    return [hashlib.sha256(f"{im.size}".encode() + im.tobytes()).hexdigest()[:16]
            for im in page_images(pdf, dpi)]


@dataclass(frozen=True)
class PageDifference:
    page: int            # from 1
    what: str            # "size", "missing", "pixels"
    share: float = 0.0   # of the page's pixels that differ by more than the tolerance
    most: int = 0        # the largest difference of one channel (0-255)

    def __str__(self) -> str:
        if self.what != "pixels":
            return f"page {self.page}: {self.what}"
        return f"page {self.page}: {self.share:.2%} of its pixels differ (by up to {self.most}/255)"


def differences(old: bytes, new: bytes, dpi: float = DPI, tolerance: int = 0,
                share: float = 0.0) -> list[PageDifference]:
    """The pages of `new` that differ from those of `old`: a different count or size, or
    more than `share` of the pixels differing by more than `tolerance` in a channel."""
    before, after = page_images(old, dpi), page_images(new, dpi)
    found = [PageDifference(n, "missing") for n in range(min(len(before), len(after)) + 1,
                                                         max(len(before), len(after)) + 1)]
    for n, (a, b) in enumerate(zip(before, after), start=1):
        if a.size != b.size:
            found.append(PageDifference(n, "size"))
            continue
        diff = ImageChops.difference(a, b)
        most = max(high for _, high in diff.getextrema())
        if most <= tolerance:
            continue
        r, g, b = diff.split()
        mask = ImageChops.lighter(ImageChops.lighter(r, g), b).point(lambda v: 255 if v > tolerance else 0)
        off = mask.histogram()[255] / (a.size[0] * a.size[1])
        if off > share:
            found.append(PageDifference(n, "pixels", off, most))
    return sorted(found, key=lambda d: d.page)
