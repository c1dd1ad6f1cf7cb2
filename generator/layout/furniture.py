"""The page furniture of a sheets PDF, drawn by reportlab over blank pages.

In: `PagePlan`s and the game's title. Out: PDFs (a few hundred pages each), one page per plan, holding
everything that is not a face: crop marks, cut outlines of round and hexagonal tokens,
glue strips and alignment ticks of board panels, a small assembly map, and the label.
Faces are placed beneath this furniture afterwards (`forms.py`), so marks stay on top.
The furniture does not depend on which faces a page holds, only on where they are: a
rebuild after a text edit (`pnp watch`) reuses the last pages drawn for the same plans.
"""
from __future__ import annotations

import dataclasses
import hashlib
import io

from ..units import pt
from .pdfpage import label_font, new_canvas
from .plan import PagePlan

LABEL_SIZE = 6.5  # pt
LABEL_FLOOR = 6.0  # pt: the legibility floor of print: min_text_pt's default; text of the furniture never goes below it
TICK = 4.0        # mm: length of an alignment tick


def furniture_key(pages: list[PagePlan], title: str, paper: str, crop_marks: bool, stamp: str = "",
                  draft: bool = False) -> str:
    """sha256 of all that decides the furniture: the plans without their faces and cuts."""
    key = hashlib.sha256(repr((title, paper, crop_marks, stamp) + (("draft",) if draft else ())).encode())
    for page in pages:  # page by page: no text of every page at once
        key.update(repr(dataclasses.replace(page, faces=(), cuts=None)).encode())
    return key.hexdigest()


def draw_furniture(pages: list[PagePlan], title: str, paper: str, crop_marks: bool, kept=None,
                   stamp: str = "", draft: bool = False) -> tuple[bytes, ...]:
    """The furniture: PDFs of at most PAGES_PER_PDF pages each, one page per plan in order.
    reportlab holds a document's pages until it saves, so sheets of thousands of pages are
    drawn a few hundred at a time. `kept` (a remembering session's `furniture`: `pnp
    watch`) gives back what it drew last time for the same key; a one-shot build keeps
    nothing. `stamp` (a version stamp) ends every page's label. `draft`: the label says the
    pictures are drafts, not for print (in red)."""
    key = furniture_key(pages, title, paper, crop_marks, stamp, draft)
    found = kept.get(key) if kept is not None else None
    if found is not None:
        return found
    sheets = sum(1 for p in pages if p.side == "front")
    drawn = tuple(_draw(pages[start:start + PAGES_PER_PDF], title, paper, crop_marks, sheets,
                        sum(1 for p in pages[:start] if p.side == "front"), stamp, draft)
                  for start in range(0, len(pages), PAGES_PER_PDF))
    if kept is not None:
        kept.put(key, drawn)
    return drawn


PAGES_PER_PDF = 400


def _draw(pages: list[PagePlan], title: str, paper: str, crop_marks: bool, sheets: int, sheet: int,
          stamp: str = "", draft: bool = False) -> bytes:
    """Pages of furniture; `sheets` in all, `sheet` of them before the first of these pages."""
    buf = io.BytesIO()
    first = pages[0]
    canvas = new_canvas(buf, (pt(first.width), pt(first.height)), title)
    for page in pages:
        canvas.setPageSize((pt(page.width), pt(page.height)))
        sheet += page.side == "front"
        number = page.sheet or sheet
        for x, y, w, h in page.glue:
            _glue(canvas, x, y, w, h)
        _fills(canvas, page.fills)
        if crop_marks:
            _lines(canvas, page.marks)
        _outlines(canvas, page)
        _registration(canvas, page.registration)
        _dashed(canvas, page.dashed)
        _ticks(canvas, page.ticks)
        if page.board_map:
            _board_map(canvas, page.width, page.board_map)
        side = page.how or ("fronts" if page.side == "front" else "backs (flip on the long edge)")
        stamped = f" · {stamp}" if stamp else ""
        if draft:
            _label(canvas, page, f"DRAFT: pictures at draft resolution, not for print · {title} · {page.title} · "
                                 f"sheet {number} of {sheets} · {side} · {paper.upper()}{stamped}",
                   "DRAFT: not for print")
        else:
            _label(canvas, page, f"{title} · {page.title} · sheet {number} of {sheets} · {side} · {paper.upper()} · "
                                 f"print at 100 % (actual size){stamped}",
                   short=f"{title} · {page.title} · {number}/{sheets} · {side} · {paper.upper()} · 100 %{stamped}")
        canvas.showPage()
    canvas.save()
    return buf.getvalue()


def _lines(canvas, segments) -> None:
    """Each line black on a white underlay, so it shows over dark bleed art too."""
    for width, grey in ((1.0, 1), (0.3, 0)):
        canvas.setLineWidth(width)
        canvas.setStrokeGray(grey)
        for x1, y1, x2, y2 in segments:
            canvas.line(pt(x1), pt(y1), pt(x2), pt(y2))


def _path(canvas, outline):
    path = canvas.beginPath()
    for seg in outline.segments():
        kind, nums = seg[0], [pt(v) for v in seg[1:]]
        if kind == "M":
            path.moveTo(*nums)
        elif kind == "L":
            path.lineTo(*nums)
        elif kind == "C":
            path.curveTo(*nums)
        else:
            path.close()
    return path


def _registration(canvas, marks) -> None:
    """A cutting machine's registration marks: filled black (on their white ground)."""
    if not marks:
        return
    canvas.saveState()
    for mark in marks:
        for grey, shapes in ((1, mark.white), (0, mark.shapes)):
            canvas.setFillGray(grey)
            for shape in shapes:
                path = canvas.beginPath()
                if shape[0] == "rect":
                    path.rect(*(pt(v) for v in shape[1:]))
                elif shape[0] == "disc":
                    path.circle(pt(shape[1]), pt(shape[2]), pt(shape[3]))
                else:  # a ring: the outer circle, the inner one cut out (even-odd)
                    path.circle(pt(shape[1]), pt(shape[2]), pt(shape[4]))
                    path.circle(pt(shape[1]), pt(shape[2]), pt(shape[3]))
                canvas.drawPath(path, stroke=0, fill=1, fillMode=0)
    canvas.restoreState()


def _fills(canvas, outlines) -> None:
    """Glue tabs and base flaps: light grey with the word GLUE or nothing."""
    if not outlines:
        return
    canvas.saveState()
    canvas.setFillGray(0.86)
    for outline in outlines:
        canvas.drawPath(_path(canvas, outline), stroke=0, fill=1)
    canvas.restoreState()


def _dashed(canvas, segments) -> None:
    """Fold lines: dashed, dark grey, thin."""
    if not segments:
        return
    canvas.saveState()
    canvas.setLineWidth(0.35)
    canvas.setStrokeGray(0.25)
    canvas.setDash(2, 1.5)
    for x1, y1, x2, y2 in segments:
        canvas.line(pt(x1), pt(y1), pt(x2), pt(y2))
    canvas.restoreState()


def _outlines(canvas, page: PagePlan) -> None:
    """Thin cut lines along round and hexagonal tokens (white underlay, dark line)."""
    if not page.outlines:
        return
    for width, grey in ((0.9, 1), (0.3, 0.15)):
        canvas.setLineWidth(width)
        canvas.setStrokeGray(grey)
        for outline in page.outlines:
            canvas.drawPath(_path(canvas, outline), stroke=1, fill=0)


def _glue(canvas, x, y, w, h) -> None:
    """A glue strip: pale grey with diagonal hatching and the word GLUE (covered once assembled)."""
    canvas.saveState()
    canvas.setFillGray(0.93)
    canvas.rect(pt(x), pt(y), pt(w), pt(h), stroke=0, fill=1)
    path = canvas.beginPath()
    path.rect(pt(x), pt(y), pt(w), pt(h))
    canvas.clipPath(path, stroke=0, fill=0)
    canvas.setStrokeGray(0.7)
    canvas.setLineWidth(0.5)
    step = 3.0
    k = -h
    while k < w:
        canvas.line(pt(x + k), pt(y), pt(x + k + h), pt(y + h))
        k += step
    canvas.setFillGray(0.35)
    canvas.setFont(label_font(), 7)
    if w >= h:
        canvas.drawCentredString(pt(x + w / 2), pt(y + h / 2 - 1), "GLUE UNDER THE NEXT PANEL")
    else:
        canvas.translate(pt(x + w / 2 + 1), pt(y + h / 2))
        canvas.rotate(90)
        canvas.drawCentredString(0, 0, "GLUE UNDER THE NEXT PANEL")
    canvas.restoreState()


def _ticks(canvas, ticks) -> None:
    """Alignment ticks: a line across the join with a small triangle pointing at it."""
    if not ticks:
        return
    canvas.saveState()
    canvas.setStrokeColorRGB(0.85, 0.0, 0.3)
    canvas.setFillColorRGB(0.85, 0.0, 0.3)
    canvas.setLineWidth(0.6)
    for x, y, side in ticks:
        vertical_join = side in ("under-v", "edge-left")
        if vertical_join:  # the join runs up the page: the tick is horizontal across it
            canvas.line(pt(x - TICK / 2), pt(y), pt(x + TICK / 2), pt(y))
            inward = 1 if side == "edge-left" else -1
            tri = [(x, y), (x + inward * 2.0, y + 1.2), (x + inward * 2.0, y - 1.2)]
        else:
            canvas.line(pt(x), pt(y - TICK / 2), pt(x), pt(y + TICK / 2))
            inward = -1 if side == "edge-top" else 1
            tri = [(x, y), (x - 1.2, y + inward * 2.0), (x + 1.2, y + inward * 2.0)]
        path = canvas.beginPath()
        path.moveTo(pt(tri[0][0]), pt(tri[0][1]))
        for px, py in tri[1:]:
            path.lineTo(pt(px), pt(py))
        path.close()
        canvas.drawPath(path, stroke=0, fill=1)
    canvas.restoreState()


def _board_map(canvas, width: float, board_map: tuple[int, int, int, int]) -> None:
    """Which panel goes where: a small grid in the corner of a page `width` wide with this panel filled."""
    cols, rows, col, row = board_map
    cell = min(5.0, max(3.2, 22.0 / max(cols, rows)))   # room for a number at LABEL_FLOOR
    x0 = width - 8.5 - cols * cell
    y0 = 4.5
    canvas.saveState()
    canvas.setLineWidth(0.4)
    canvas.setStrokeGray(0.3)
    canvas.setFont(label_font(), LABEL_FLOOR)
    for r in range(rows):
        for c in range(cols):
            x, y = x0 + c * cell, y0 + (rows - 1 - r) * cell
            here = (c, r) == (col, row)
            canvas.setFillGray(0.25 if here else 1)
            canvas.rect(pt(x), pt(y), pt(cell), pt(cell), stroke=1, fill=1)
            canvas.setFillGray(1 if here else 0.3)
            canvas.drawCentredString(pt(x + cell / 2), pt(y + cell / 2 - 0.75), str(r * cols + c + 1))
    canvas.restoreState()


def _label(canvas, page: PagePlan, text: str, draft: str = "", short: str = "") -> None:
    """The sheet's label, never under the legibility floor (`LABEL_FLOOR`); `draft`: a draft's
    shorter mark, `short`: the label in fewer words, used when the label has no room."""
    from reportlab.pdfbase.pdfmetrics import stringWidth  # with the canvas: not for furniture found in the memo

    label = page.label
    if label is None:
        return
    font, size = label_font(), LABEL_SIZE
    while stringWidth(text, font, size) > pt(label.room) and size > LABEL_FLOOR:
        size -= 0.25
    if stringWidth(text, font, size) > pt(label.room):
        shorter = draft or short
        if not shorter or stringWidth(shorter, font, size) > pt(label.room):
            return  # no room anywhere: the sheet goes without its label
        text = shorter
    canvas.saveState()
    if draft:
        canvas.setFillColorRGB(0.8, 0, 0)
    else:
        canvas.setFillGray(0.35)
    canvas.setFont(font, size)
    canvas.translate(pt(label.x), pt(label.y))
    canvas.rotate(label.angle)
    if label.angle == 0 and page.note:  # boards: label and note from the left
        canvas.drawString(0, 0, text)
        canvas.drawString(0, -pt(3.2), page.note)
    elif label.angle == 0 and label.x < page.width / 3:
        canvas.drawString(0, 0, text)
    else:
        canvas.drawCentredString(0, 0, text)
    canvas.restoreState()
