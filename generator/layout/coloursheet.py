"""The colour check's printable sheet: faces as each simulation sees them, side by side.

In: rows of faces (a title, then the face as printed and as each simulation of
`draw/cvdbridge.SIMULATIONS` sees it, as RGB images of one size) and a paper. Out: the PDF's
bytes and its page count: one column a way of seeing, one row a face, its title (the card
and what it must be told apart by) beneath; the columns' names at the top of every page.
"""
from __future__ import annotations

import io

from reportlab.lib.utils import ImageReader

from ..units import PT_PER_MM, paper_size
from .pdfpage import new_canvas, register

MARGIN = 12.0      # mm
HEADER = 9.0       # mm: the columns' names
CAPTION = 5.0      # mm under each row
GAP = 3.0          # mm between columns and rows


def colour_sheet_pdf(rows: list[tuple[str, list]], columns: tuple[str, ...], paper: str,
                     title: str) -> tuple[bytes, int]:
    """The sheet of `rows` ((caption, [image a column]), in order), `columns` naming them."""
    width_mm, height_mm = paper_size(paper)
    buf = io.BytesIO()
    canvas = new_canvas(buf, (width_mm * PT_PER_MM, height_mm * PT_PER_MM), title)
    font, bold = register("Lato"), register("Lato", bold=True)
    cell = (width_mm - 2 * MARGIN - GAP * (len(columns) - 1)) / len(columns)
    pages, y = 0, None
    for caption, images in rows:
        w_px, h_px = images[0].size
        face_h = cell * h_px / w_px
        if y is None or y - face_h - CAPTION < MARGIN:
            if y is not None:
                canvas.showPage()
            pages += 1
            y = height_mm - MARGIN
            canvas.setFont(bold, 11)
            canvas.drawString(MARGIN * PT_PER_MM, y * PT_PER_MM - 10, f"{title}: how the faces look to colour-blind "
                                                                     "players and on a grey printer")
            y -= HEADER
            canvas.setFont(bold, 8)
            for n, name in enumerate(columns):
                canvas.drawCentredString((MARGIN + n * (cell + GAP) + cell / 2) * PT_PER_MM, (y - 2) * PT_PER_MM, name)
            y -= 4
        for n, image in enumerate(images):
            canvas.drawImage(ImageReader(image), (MARGIN + n * (cell + GAP)) * PT_PER_MM, (y - face_h) * PT_PER_MM,
                             cell * PT_PER_MM, face_h * PT_PER_MM)
        canvas.setFont(font, 7)
        canvas.drawString(MARGIN * PT_PER_MM, (y - face_h - 3.5) * PT_PER_MM, caption[:160])
        y -= face_h + CAPTION + GAP
    canvas.showPage()
    canvas.save()
    return buf.getvalue(), max(pages, 1)
