"""Card sheets: rendered faces imposed on A4 or Letter pages as vector forms.

In: a `RenderedGame` and a paper name. Out: a `SheetsPDF`: the PDF bytes and the
placement map (every face drawn: page, card id, side and trim box in mm). reportlab draws
the page furniture (crop marks, a label); pikepdf places each face page of the faces PDF
as a Form XObject under an explicit name, clipped to its printed area, so text stays
text, each distinct face is stored once, and the bytes are reproducible. For duplex,
every page of fronts is followed by its page of backs, mirrored for a long-edge flip.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from itertools import groupby

import pikepdf

from ..errors import InputError, Problem
from ..units import pt
from .forms import FacePlacer, add_under
from .grid import DoesNotFit, SheetGrid, choose_grid
from .pdfpage import label_font, new_canvas, save_pdf

MARK_GAP = 0.5   # mm between the outer bleed and the start of a crop mark
MARK_MAX = 5.0   # mm, longest crop mark
LABEL_ROOM = 5.0  # mm the page label needs below the crop marks


@dataclass(frozen=True)
class Placement:
    page: int
    id: str
    side: str
    x_mm: float
    y_mm: float
    w_mm: float
    h_mm: float


@dataclass(frozen=True)
class SheetsPDF:
    pdf: bytes
    pages: int
    placements: tuple[Placement, ...]
    components: tuple[dict, ...]


@dataclass(frozen=True)
class _Page:
    grid: SheetGrid
    side: str                       # "front" or "back"
    items: tuple                    # (slot, RenderedCard)


def plan_pages(rendered, paper: str) -> list[_Page]:
    """Fronts and backs, page by page. Decks of one geometry share sheets."""
    copies = [rc for rc in rendered.cards for _ in range(rc.card.count)]
    pages = []
    geometry = lambda rc: (rc.deck.trim_w, rc.deck.trim_h, rc.deck.bleed)  # noqa: E731
    for (w, h, b), group in groupby(copies, key=geometry):
        group = list(group)
        try:
            grid = choose_grid(paper, w, h, b)
        except DoesNotFit as exc:
            deck = group[0].deck
            raise InputError("1 problem in the layout", [Problem(
                deck.source.file, f"{exc}; use a smaller size (boards larger than a page are not split yet)",
                line=deck.raw.lines.get("size", deck.source.line) if hasattr(deck.raw, "lines") else None,
                field="size")]) from None
        for start in range(0, len(group), grid.per_page):
            chunk = tuple(enumerate(group[start:start + grid.per_page]))
            pages.append(_Page(grid, "front", chunk))
            if any(rc.back for _, rc in chunk):
                pages.append(_Page(grid, "back", tuple((s, rc) for s, rc in chunk if rc.back)))
    return pages


def layout_sheets(rendered, paper: str, crop_marks: bool = True) -> SheetsPDF:
    """Impose every card of the game on `paper`."""
    pages = plan_pages(rendered, paper)
    furniture = _draw_furniture(pages, rendered.game.title, paper, crop_marks)
    out = pikepdf.open(io.BytesIO(furniture))
    placer = FacePlacer(out, rendered.faces_pdfs, rendered.page_of)
    placements = []
    for number, (page, pdf_page) in enumerate(zip(pages, out.pages), start=1):
        back = page.side == "back"
        snippets = []
        for slot, rc in page.items:
            key = rc.back if back else rc.front
            if key is None:
                continue
            x, y, w, h = page.grid.trim_box(slot, back)
            b = rc.deck.bleed
            box = (pt(x - b), pt(y - b), pt(w + 2 * b), pt(h + 2 * b))
            snippets.append(placer.draw(pdf_page, key, box, tuple(pt(v) for v in page.grid.clip_box(slot, back))))
            placements.append(Placement(number, rc.card.id, page.side, round(x, 3), round(y, 3), w, h))
        add_under(pdf_page, out, snippets)
    components = tuple({"id": rc.card.id, "count": rc.card.count} for rc in rendered.cards)
    return SheetsPDF(save_pdf(out), len(pages), tuple(placements), components)


def _draw_furniture(pages: list[_Page], title: str, paper: str, crop_marks: bool) -> bytes:
    """Blank pages with crop marks and a label, drawn by reportlab."""
    buf = io.BytesIO()
    first = pages[0].grid if pages else choose_grid(paper, 63, 88, 3)
    canvas = new_canvas(buf, (pt(first.page_w), pt(first.page_h)), title)
    font = label_font()
    sheets = sum(1 for p in pages if p.side == "front")
    sheet = 0
    for page in pages:
        g = page.grid
        canvas.setPageSize((pt(g.page_w), pt(g.page_h)))
        sheet += page.side == "front"
        if crop_marks:
            _crop_marks(canvas, g)
        below_marks = g.margin_y - MARK_GAP - min(MARK_MAX, g.margin_y - MARK_GAP)
        if below_marks >= LABEL_ROOM:
            side = "fronts" if page.side == "front" else "backs (flip on the long edge)"
            canvas.setFont(font, 6.5)
            canvas.setFillGray(0.35)
            canvas.drawCentredString(
                pt(g.page_w / 2), pt(below_marks - 3.2),
                f"{title} · sheet {sheet} of {sheets} · {side} · {paper.upper()} · print at 100 % (actual size)")
        canvas.showPage()
    canvas.save()
    return buf.getvalue()


def _crop_marks(canvas, g: SheetGrid) -> None:
    """Marks in the margin, on every cut line, outside the bleed."""
    canvas.setLineWidth(0.3)
    canvas.setStrokeGray(0)
    xs, ys = g.cut_lines()
    bottom, top = g.y0 - g.bleed, g.y0 + g.grid_h + g.bleed
    left, right = g.x0 - g.bleed, g.x0 + g.grid_w + g.bleed
    length_y = min(MARK_MAX, g.margin_y - MARK_GAP)
    length_x = min(MARK_MAX, g.margin_x - MARK_GAP)
    for x in xs:
        canvas.line(pt(x), pt(bottom - MARK_GAP), pt(x), pt(bottom - MARK_GAP - length_y))
        canvas.line(pt(x), pt(top + MARK_GAP), pt(x), pt(top + MARK_GAP + length_y))
    for y in ys:
        canvas.line(pt(left - MARK_GAP), pt(y), pt(left - MARK_GAP - length_x), pt(y))
        canvas.line(pt(right + MARK_GAP), pt(y), pt(right + MARK_GAP + length_x), pt(y))
