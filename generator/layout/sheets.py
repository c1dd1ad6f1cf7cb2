"""Sheets: every printed component imposed on pages of one paper size, as vector forms.

In: a `RenderedGame` and a paper name. Out: a `SheetsPDF`: the PDF bytes, the placement
map (every face drawn: page, card id, side, trim box in mm, cut shape) and the page plans
the cut file is made from. `pages.py` plans the pages (cards on grids, tokens packed,
boards in panels), `furniture.py` draws marks, cut lines and labels with reportlab, and
`forms.py` writes each face of the face bundles as a Form XObject placed beneath them,
clipped to its printed area, so text stays text, each distinct face is stored once, and the
bytes are reproducible. The PDF is written object by object (`pdfstream.py`), one face
bundle open at a time, so a deck of 10,000 distinct faces is laid out in a few tens of MB;
the placements are made from the plans only when the manifest is written.
"""
from __future__ import annotations

import io
import zlib
from dataclasses import dataclass

import pikepdf

from ..stopwatch import stage
from ..units import pt
from .forms import placement_content, write_forms
from .furniture import PAGES_PER_PDF, draw_furniture
from .modes import PrintMode, apply_mode
from .pages import plan_pages
from .pdfstream import PDFStream, Raw
from .plan import PagePlan, Placements


@dataclass(frozen=True)
class SheetsPDF:
    pdf: bytes
    pages: int
    placements: Placements     # a dict per face placed, made when read
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
    with stage("form placement"):
        writer = PDFStream()
        tree = writer.reserve()
        keys = dict.fromkeys(face.key for plan in plans for face in plan.faces)
        forms = write_forms(writer, rendered.faces_pdfs, rendered.page_of, keys)
    with stage("PDF assembly"):
        kids = []
        info = None
        pdf_pages = iter(())
        for plan in plans:
            pdf_page = next(pdf_pages, None)
            if pdf_page is None:  # the next PDF of furniture
                marks = pikepdf.open(io.BytesIO(furniture[len(kids) // PAGES_PER_PDF]))
                writer.new_source()
                if info is None and "/Info" in marks.trailer:
                    info = writer.copy(marks.trailer.Info)
                pdf_pages = iter(marks.pages)
                pdf_page = next(pdf_pages)
            snippets, used = [], {}
            for face in plan.faces:
                name, form = forms[face.key]
                used[name] = form
                matrix = face.matrix or (1, 0, 0, 1, pt(face.at[0]), pt(face.at[1]))
                snippets.append(placement_content(name, matrix, face.clip.pdf_path(pt(1))))
            kids.append(writer.add(_page(writer, pdf_page, tree, snippets, used)))
            writer.drain()
        writer.put(tree, {"/Type": Raw(b"/Pages"), "/Kids": kids, "/Count": len(kids)})
        root = writer.add({"/Type": Raw(b"/Catalog"), "/Pages": tree})
        pdf = writer.finish(root, info)
    components = tuple({"id": rc.card.id, "count": rc.card.count} for rc in rendered.cards)
    return SheetsPDF(pdf, len(plans), Placements(plans), components, tuple(plans))


def _page(writer: PDFStream, page: pikepdf.Page, tree, snippets: list[bytes], forms: dict) -> dict:
    """A furniture page with the faces drawn beneath its marks: the page's own entries, its
    resources with the faces' forms added, and the placements' content first."""
    entries = {k: v for k, v in page.obj.items() if k not in ("/Parent", "/Contents", "/Resources")}
    resources = dict(page.obj.Resources.items()) if "/Resources" in page.obj else {}
    xobjects = dict(resources["/XObject"].items()) if "/XObject" in resources else {}
    resources["/XObject"] = {**xobjects, **forms}
    contents = page.obj.get("/Contents")
    contents = [] if contents is None else list(contents) if isinstance(contents, pikepdf.Array) else [contents]
    if snippets:
        faces = zlib.compress(b"q\n" + b"\n".join(snippets) + b"\nQ", 6)
        contents.insert(0, writer.add_stream({"/Filter": Raw(b"/FlateDecode")}, faces))
    return {**entries, "/Parent": tree, "/Resources": resources, "/Contents": contents}
