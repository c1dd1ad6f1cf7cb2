"""What every PDF pnp writes shares: a reproducible reportlab canvas, the shipped fonts
registered with reportlab, and a deterministic pikepdf save. reportlab is imported when a
canvas is made (a rebuild that copies every sheet from the last build's memo makes none)."""
from __future__ import annotations

import io
from functools import cache
from typing import TYPE_CHECKING

import pikepdf

from ..draw.fonts import shipped

if TYPE_CHECKING:
    from reportlab.pdfgen.canvas import Canvas


def new_canvas(buf, pagesize, title: str) -> Canvas:
    """A canvas whose output does not depend on the clock (invariant=1) and which uses
    only shipped fonts (reportlab would otherwise reference unembedded Helvetica)."""
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(buf, pagesize=pagesize, invariant=1, pageCompression=1,
                    initialFontName=label_font(), initialFontSize=10)
    canvas.setTitle(title)
    canvas.setCreator("pnp")
    canvas.setProducer("pnp (reportlab, pikepdf)")
    return canvas


@cache
def register(family: str, bold: bool = False, italic: bool = False) -> str:
    """Register a shipped face with reportlab (same file CairoSVG uses); return its name."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    face = shipped().face(family, bold, italic)
    name = face.postscript_name
    if name not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(name, str(face.path)))
    return name


def label_font() -> str:
    return register("Lato")


def save_pdf(pdf: pikepdf.Pdf) -> bytes:
    """Save with fixed options and a content-derived /ID, so equal input gives equal bytes."""
    out = io.BytesIO()
    pdf.remove_unreferenced_resources()
    pdf.save(out, compress_streams=True, deterministic_id=True,
             object_stream_mode=pikepdf.ObjectStreamMode.generate)
    return out.getvalue()


def whole_points(v: float) -> int:
    """A page size cairo writes exactly: whole points, never less than the piece (a rulebook's
    text set by Pango, pangobook.py, and the pieces placed over its pages)."""
    return max(1, -int(-v // 1))
