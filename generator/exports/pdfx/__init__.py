"""DriveThruCards' PDF/X-1a:2003: a print-shop PDF made CMYK, without transparency, and checked.

In: a pikepdf document whose pages place faces as Form XObjects (profiles.py builds it),
its title, the CMYK transform (`Cmyk`, Ghostscript's SWOP profile and a total ink limit)
and the resolution of what must become pixels. Out: the file's bytes (`PdfX.finish`), a
`FaceReport` per face (what became pixels), and the problems a print shop's preflight would
find in a written file (`pdfx_problems`) with the total ink of its pages (`page_inks`).

This is the package's whole surface; the modules inside are its own (nothing outside
`exports/pdfx/` imports them, `tests/test_house.py` checks): `convert` (`PdfX`, the
document), `paint` + `textmarks` (what each operator paints, and which are transparent),
`recolour` (content streams rewritten in CMYK), `cmyk` (the colour transform) and `check`
(the file read back as a preflight would). `paint` and `recolour` each take a content
stream's operators through one table (`OPERATORS`: operator -> method).
"""
from __future__ import annotations

from .check import page_inks, pdfx_problems
from .cmyk import Cmyk
from .convert import VERSION, FaceReport, PdfX

__all__ = ["VERSION", "Cmyk", "FaceReport", "PdfX", "page_inks", "pdfx_problems"]
