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
from reportlab.pdfbase.pdfmetrics import stringWidth

from ..errors import InputError, Problem
from ..yamlsrc import line_of
from ..units import pt
from .forms import FacePlacer, add_under
from .grid import MARK_REACH, DoesNotFit, SheetGrid, choose_grid
from .grid import crop_marks as grid_marks
from .pdfpage import label_font, new_canvas, save_pdf

LABEL_ROOM = 5.0  # mm the page label needs below the crop marks
LABEL_SIZE = 6.5  # pt


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
    if not copies:
        game = rendered.game
        raise InputError("nothing to print", [Problem(game.source.file, "every card has count 0: nothing to print",
                                                      line=1)])
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
                line=line_of(deck.raw, ("size",)),
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
    sheets = sum(1 for p in pages if p.side == "front")
    sheet = 0
    for page in pages:
        g = page.grid
        canvas.setPageSize((pt(g.page_w), pt(g.page_h)))
        sheet += page.side == "front"
        side = "fronts" if page.side == "front" else "backs (flip on the long edge)"
        if crop_marks:
            _draw_marks(canvas, grid_marks(g))
        _label(canvas, g, f"{title} · sheet {sheet} of {sheets} · {side} · {paper.upper()} · "
                          "print at 100 % (actual size)")
        canvas.showPage()
    canvas.save()
    return buf.getvalue()


def _draw_marks(canvas, marks) -> None:
    """Each mark black on a white underlay, so it shows over dark bleed art too."""
    for width, grey in ((1.0, 1), (0.3, 0)):
        canvas.setLineWidth(width)
        canvas.setStrokeGray(grey)
        for x1, y1, x2, y2 in marks:
            canvas.line(pt(x1), pt(y1), pt(x2), pt(y2))


def _label(canvas, g: SheetGrid, text: str) -> None:
    """The sheet's label: under the grid when the margin allows, else up the left margin
    between two cut lines (Letter), never over a crop mark."""
    font, size = label_font(), LABEL_SIZE
    canvas.setFillGray(0.35)
    below = g.y0 - g.bleed - MARK_REACH  # free paper under the crop marks
    if below >= LABEL_ROOM:
        canvas.setFont(font, size)
        canvas.drawCentredString(pt(g.page_w / 2), pt(below - 3.2), text)
        return
    span = g.trim_h - 4  # between two horizontal cut lines of the middle row
    while stringWidth(text, font, size) > pt(span) and size > 4.5:
        size -= 0.25
    if g.margin_x < 6 or stringWidth(text, font, size) > pt(span):
        return  # no room anywhere: the sheet goes without its label
    row = g.rows // 2
    middle = g.y0 + (g.rows - 1 - row) * (g.trim_h + g.gutter) + g.trim_h / 2
    canvas.saveState()
    canvas.translate(pt(g.x0 - g.bleed - 1.6), pt(middle))
    canvas.rotate(90)
    canvas.setFont(font, size)
    canvas.drawCentredString(0, 0, text)
    canvas.restoreState()
