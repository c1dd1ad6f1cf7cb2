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

import hashlib
import io
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import pikepdf

from ..errors import InputError
from ..session import Session
from ..units import paper_size, pt
from .cutters import CutterError, cutter_sheet
from .forms import placement_content, write_forms
from .furniture import PAGES_PER_PDF, draw_furniture
from .modes import PrintMode, apply_mode
from .overlay import page_with_faces
from .pages import plan_for_cutter, plan_pages
from .pdfstream import PDFStream, Raw, Ref, Spooled
from .plan import PagePlan, Placements


@dataclass(frozen=True)
class SheetsPDF:
    pdf: bytes | Spooled       # Spooled: layout_sheets with a spool folder
    pages: int
    placements: Placements     # a dict per face placed, made when read
    components: tuple[dict, ...]
    plans: tuple[PagePlan, ...]


def layout_sheets(rendered, paper: str, session: Session, crop_marks: bool = True, mode: PrintMode | None = None,
                  spool: Path | None = None) -> SheetsPDF:
    """Impose every component of the game on `paper`, printed the way `mode` says
    (default: long-edge duplex, no offset). A remembering session's furniture and
    segments are reused where they would come out the same (see `_pages`). `spool`: a
    folder the PDF is written into as it is made (a `pdfstream.Spooled`, not bytes)."""
    mode = mode or PrintMode()
    with session.stage("page planning"):
        if mode.cutter:  # inside the machine's area, clear of its marks; it cuts, so no crop marks
            try:
                machine = cutter_sheet(mode.cutter, paper, *paper_size(paper))
            except CutterError as exc:
                raise InputError(f"--cutter {mode.cutter}: {exc}") from None
            pages, crop_marks = plan_for_cutter(rendered, paper, machine), False
        else:
            pages = plan_pages(rendered, paper, gutter_fold=mode.mode == "gutter-fold")
        plans = apply_mode(pages, mode, paper)
    with session.stage("furniture (reportlab)"):
        stamp = rendered.stamp.text if rendered.stamp else ""
        furniture = draw_furniture(plans, rendered.game.sheet_title, paper, crop_marks, session.furniture, stamp,
                                   draft=rendered.draft)
    with session.stage("form placement"):
        writer = PDFStream(spool=spool)
        tree = writer.reserve()
        keys = dict.fromkeys(face.key for plan in plans for face in plan.faces)
        forms = write_forms(writer, rendered.faces_pdfs, rendered.page_of, keys, session.segments,
                            session.font_digests)
    with session.stage("PDF assembly"):
        kids, info = _pages(writer, plans, furniture, forms, tree, session.segments)
        writer.put(tree, {"/Type": Raw(b"/Pages"), "/Kids": kids, "/Count": len(kids)})
        root = writer.add({"/Type": Raw(b"/Catalog"), "/Pages": tree})
        pdf = writer.finish(root, info)
    components = tuple({"id": rc.card.id, "count": rc.card.count} for rc in rendered.cards)
    return SheetsPDF(pdf, len(plans), Placements(plans), components, tuple(plans))


def _pages(writer: PDFStream, plans, furniture: tuple[bytes, ...], forms: dict, tree,
           segments) -> tuple[list, Ref | None]:
    """Each plan's page of furniture with its faces drawn beneath, one segment per page;
    returns the pages' references and the document information's. While `pnp watch`
    rebuilds, a page that would come out the same (the same furniture and placements at
    the same object number, with the same objects of its furniture PDF already written
    at the same numbers) is replayed."""
    kids, info, marks = [], None, None
    for index, plan in enumerate(plans):
        chunk, at = divmod(index, PAGES_PER_PDF)
        if at == 0:  # the next PDF of furniture
            writer.new_source()
            marks = None
            furniture_id = hashlib.sha256(furniture[chunk]).digest()
        snippets, used = [], {}
        for face in plan.faces:
            name, form, _ = forms[face.key]
            used[name] = form
            matrix = face.matrix or (1, 0, 0, 1, pt(face.at[0]), pt(face.at[1]))
            snippets.append(placement_content(name, matrix, face.clip.pdf_path(pt(1))))
        memo = (furniture_id, at, b"\n".join(snippets), tuple(used.items()), writer.next_number(), tree, info,
                tuple(writer.seen.items()))
        segment = segments.get(memo)
        if segment is not None:
            written, kid, info, seen = segment
            writer.replay(written)
            writer.seen.update(seen)
            kids.append(kid)
            continue
        if marks is None:
            marks = pikepdf.open(io.BytesIO(furniture[chunk]))
        mark = writer.mark()  # each page a segment of its own, watching or not: the same bytes
        seen_before = len(writer.seen)   # what the page adds to it comes after (it only grows)
        if info is None and "/Info" in marks.trailer:
            info = writer.copy(marks.trailer.Info)
        kids.append(writer.add_loose(page_with_faces(writer, marks.pages[at], tree, snippets, used)))
        segments.keep(memo, lambda mark=mark, info=info, before=seen_before: (
            writer.since(mark), kids[-1], info, dict(islice(writer.seen.items(), before, None))))
    writer.mark()
    return kids, info
