"""Sheets: every printed component imposed on pages of one paper size, as vector forms.

In: a `RenderedGame` and a paper name. Out: a `SheetsPDF`: the PDF bytes, the placement
map (every face drawn: page, card id, side, trim box in mm, cut shape) and the page plans
the cut file is made from. `pages.py` plans the pages (cards on grids, tokens packed,
boards in panels), `furniture.py` draws marks, cut lines and labels with reportlab, and
`forms.py` places each face of the faces PDF beneath them as a Form XObject, clipped to
its printed area, so text stays text, each distinct face is stored once, and the bytes
are reproducible.
"""
from __future__ import annotations

import io
from dataclasses import dataclass

import pikepdf

from ..stopwatch import stage
from ..units import pt
from .forms import FacePlacer, add_under
from .furniture import draw_furniture
from .modes import PrintMode, apply_mode
from .pages import plan_pages
from .pdfpage import save_pdf
from .plan import PagePlan


@dataclass(frozen=True)
class SheetsPDF:
    pdf: bytes
    pages: int
    placements: tuple[dict, ...]
    components: tuple[dict, ...]
    plans: tuple[PagePlan, ...]


def layout_sheets(rendered, paper: str, crop_marks: bool = True, mode: PrintMode | None = None) -> SheetsPDF:
    """Impose every component of the game on `paper`, printed the way `mode` says
    (default: long-edge duplex, no offset)."""
    mode = mode or PrintMode()
    with stage("page planning"):
        plans = apply_mode(plan_pages(rendered, paper, gutter_fold=mode.mode == "gutter-fold"), mode, paper)
    with stage("furniture (reportlab)"):
        furniture = draw_furniture(plans, rendered.game.title, paper, crop_marks)
    with stage("PDF assembly"):
        out = pikepdf.open(io.BytesIO(furniture))
    with stage("form placement"):
        placer = FacePlacer(out, rendered.faces_pdfs, rendered.page_of)
        placements = []
        for number, (plan, pdf_page) in enumerate(zip(plans, out.pages), start=1):
            snippets = []
            for face in plan.faces:
                matrix = face.matrix or (1, 0, 0, 1, pt(face.at[0]), pt(face.at[1]))
                snippets.append(placer.draw_at(pdf_page, face.key, matrix, face.clip.pdf_path(pt(1))))
                placements.append(face.placement(number))
            add_under(pdf_page, out, snippets)
    components = tuple({"id": rc.card.id, "count": rc.card.count} for rc in rendered.cards)
    with stage("PDF assembly"):
        pdf = save_pdf(out)
    return SheetsPDF(pdf, len(plans), tuple(placements), components, tuple(plans))



