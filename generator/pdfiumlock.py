"""PDFium, one call at a time.

In: PDF bytes. Out: a pypdfium2 document open while a block runs (`pdfium_document`),
holding `PDFIUM`. PDFium allows one call at a time in a process (two threads inside it at
once can abort the interpreter), so every pypdfium2 call in pnp holds this lock, and every
PDFium object is closed while it is held (never left to the garbage collector, which may
run on any thread). The preview server's threads, the exports and the seam check all draw
or read through it.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

import pypdfium2 as pdfium

PDFIUM = threading.RLock()   # held around every pypdfium2 call in pnp


@contextmanager
def pdfium_document(pdf: bytes):
    """A PDFium document of `pdf`, open while the block runs, the lock held throughout."""
    with PDFIUM:
        doc = pdfium.PdfDocument(pdf)
        try:
            yield doc
        finally:
            doc.close()   # closes its pages and bitmaps too
