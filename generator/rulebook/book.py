"""The rulebook as reportlab Platypus: title page, contents, numbered headings, running
header, page numbers, outline, styled tables and card figures.

In: parsed `Block`s and the rendered game. Out: the PDF bytes from reportlab and the
figure records (page, face key, box in pt) where card faces go; figures are drawn as
empty boxes here and filled with the vector faces afterwards, exactly as card sheets are.
"""
from __future__ import annotations

import io
import re
from xml.sax.saxutils import escape

from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    KeepTogether,
    ListFlowable,
    ListItem,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.tableofcontents import TableOfContents

from ..rendermemo import RenderMemo
from ..units import paper_size
from .source import plain_text
from .styles import ACCENT, HEAD_BG, RULE, STRIPE, fonts, styles

MARGIN = 20 * mm
SHORT_TABLE = 9  # rows; a table this short never splits across pages
CELL_PAD = 6     # pt left and right of a table cell's text
START_HERE = 45 * mm  # a heading and the start of its long text or table stay on a page with this much left


class Figure(Flowable):
    """A row of card faces (trim size scaled to `width` each), recorded for later placement."""

    def __init__(self, faces, width_mm: float, gap_mm: float = 4.0):
        super().__init__()
        self.faces = faces  # (face key, card id, trim_w, trim_h, bleed, corner)
        self.card_w = width_mm * mm
        self.gap = gap_mm * mm
        scale = [self.card_w / (f[2] * mm) for f in faces]
        self.heights = [f[3] * mm * s for f, s in zip(faces, scale)]

    def wrap(self, avail_w, avail_h):
        n = len(self.faces)
        self.total_w = n * self.card_w + (n - 1) * self.gap
        if self.total_w > avail_w:  # shrink to the column
            factor = avail_w / self.total_w
            self.card_w *= factor
            self.gap *= factor
            self.heights = [h * factor for h in self.heights]
            self.total_w = avail_w
        self.width, self.height = avail_w, max(self.heights)
        return self.width, self.height

    def draw(self):
        x = (self.width - self.total_w) / 2
        for face, h in zip(self.faces, self.heights):
            ax, ay = self.canv.absolutePosition(x, self.height - h)
            self.canv._doctemplate.figures.append(
                (self.canv.getPageNumber(), face, (ax, ay, self.card_w, h)))
            x += self.card_w + self.gap


class Heading(Paragraph):
    def __init__(self, text, style, level, number, key):
        super().__init__(f"{number}&nbsp;&nbsp;{text}" if number else text, style)
        self.level, self.plain, self.number, self.key = level, text, number, key


class Rulebook(BaseDocTemplate):
    def __init__(self, buf, game, paper: str):
        w, h = paper_size(paper)
        super().__init__(buf, pagesize=(w * mm, h * mm), leftMargin=MARGIN, rightMargin=MARGIN,
                         topMargin=MARGIN + 4 * mm, bottomMargin=MARGIN, title=f"{game.title}: rules",
                         author="pnp", creator="pnp", invariant=1,
                         initialFontName=fonts()["normal"])  # else reportlab names unembedded Helvetica
        self.game_title = game.title
        self.section = ""
        self.figures = []
        self.headings = []
        self._last_pass = []
        frame = Frame(self.leftMargin, self.bottomMargin, self.width, self.height, id="body")
        self.addPageTemplates([PageTemplate("title", [frame], onPage=self._title_page),
                               PageTemplate("body", [frame], onPage=self._body_page)])
        self.st = styles(game.meta.get("language", "en"))

    def handle_documentBegin(self):
        # multiBuild lays the book out until the contents settle; keep the last pass's headings
        # so each running header can name the section a page starts (or opens) with
        self._last_pass = list(self.headings)
        self.figures = []
        self.headings = []
        self.section = ""
        super().handle_documentBegin()

    def afterFlowable(self, flowable):
        if isinstance(flowable, Heading):
            if flowable.level == 1:
                self.section = flowable.plain
            self.headings.append((flowable.level, flowable.plain, self.page))
            self.canv.bookmarkPage(flowable.key)
            self.canv.addOutlineEntry(plain_text(flowable.number + " " + flowable.plain), flowable.key,
                                      level=flowable.level - 1, closed=flowable.level > 1)
            self.notify("TOCEntry", (flowable.level - 1, f"{flowable.number}  {flowable.plain}", self.page,
                                     flowable.key))

    def _section_on(self, page: int) -> str:
        opened = [text for level, text, p in self._last_pass if level == 1 and p <= page]
        return opened[-1] if opened else self.section

    def _title_page(self, canv, doc):
        w, h = doc.pagesize
        canv.saveState()
        canv.setStrokeColor(RULE)
        canv.setLineWidth(1.2)
        canv.rect(12 * mm, 12 * mm, w - 24 * mm, h - 24 * mm)
        canv.setLineWidth(0.4)
        canv.rect(14 * mm, 14 * mm, w - 28 * mm, h - 28 * mm)
        canv.restoreState()

    def _body_page(self, canv, doc):
        w, h = doc.pagesize
        canv.saveState()
        canv.setFont(self.st["body"].fontName, 8.2)
        canv.setFillColor(ACCENT)
        canv.drawString(MARGIN, h - MARGIN + 2 * mm, self.game_title)
        canv.drawRightString(w - MARGIN, h - MARGIN + 2 * mm, plain_text(self._section_on(doc.page)))
        canv.setStrokeColor(RULE)
        canv.setLineWidth(0.5)
        canv.line(MARGIN, h - MARGIN + 0.5 * mm, w - MARGIN, h - MARGIN + 0.5 * mm)
        canv.drawCentredString(w / 2, MARGIN - 9 * mm, f"— {doc.page} —")
        canv.restoreState()


def build_pdf(game, blocks, figure_faces, paper: str, cover_faces,
              memo: RenderMemo | None = None) -> tuple[bytes, list, list]:
    """Lay out the rulebook. Returns (pdf bytes, figure records, headings seen); `memo` (a
    remembering session's) holds the contents of the last layout as the first guess."""
    buf = io.BytesIO()
    doc = Rulebook(buf, game, paper)
    st = doc.st
    story = _title(game, st, cover_faces)
    toc = TableOfContents(levelStyles=[st["toc1"], st["toc2"], st["toc3"]], dotsMinLevel=0)
    toc.tableStyle = TableStyle([("FONT", (0, 0), (-1, -1), st["toc2"].fontName, 9),
                                 ("VALIGN", (0, 0), (-1, -1), "TOP"),
                                 ("LEFTPADDING", (0, 0), (-1, -1), 0), ("RIGHTPADDING", (0, 0), (-1, -1), 0)])
    story += [Paragraph("Contents", st["toc_title"]), toc, PageBreak()]
    story += _body(blocks, st, figure_faces, doc.width)
    # Platypus lays the book out until its contents settle: three passes from an empty
    # contents page. While `pnp watch` rebuilds, the contents of the last layout are the
    # first guess; when the pages come out with those same contents, one pass was enough
    # (otherwise the passes go on). Both end on the same layout: a contents line is its
    # heading's text, its page number drawn after it by a callback, so how much room the
    # contents take depends on the headings alone, and with it every page after them.
    settled = ("rulebook contents", game.id, paper)
    guess = memo.recall(settled) if memo is not None else None
    if guess is not None:
        toc._entries, doc.headings = list(guess[0]), list(guess[1])
    doc.multiBuild(story)
    if memo is not None:
        memo.keep(settled, (tuple(toc._entries), tuple(doc.headings)))
    return buf.getvalue(), doc.figures, doc.headings


def _title(game, st, cover_faces):
    meta = game.meta
    facts = " · ".join(x for x in (
        f"{meta['players']} players" if meta.get("players") else "",
        meta.get("playing_time", ""), f"ages {meta['ages']}" if meta.get("ages") else "") if x)
    story = [Spacer(1, 38 * mm), Paragraph(escape(game.title), st["title"])]
    if meta.get("subtitle"):
        story.append(Paragraph(escape(meta["subtitle"]), st["subtitle"]))
    if facts:
        story.append(Paragraph(escape(facts), st["facts"]))
    story.append(Spacer(1, 16 * mm))
    if cover_faces:
        story.append(Figure(cover_faces, 44))
    story += [Spacer(1, 14 * mm), Paragraph("Rules of play", st["subtitle"]), NextPageTemplate("body"),
              PageBreak()]
    return story


def _body(blocks, st, figure_faces, width):
    """Flowables for the Markdown blocks; a heading always travels with what follows it."""
    story, heading = [], None
    for flowable in _flowables(blocks, st, figure_faces, width):
        if isinstance(flowable, Heading):
            if heading is not None:
                story.append(heading)
            heading = flowable
        elif heading is not None and not isinstance(flowable, CondPageBreak):
            if isinstance(flowable, KeepTogether):  # a figure or short table: all of it moves along
                # one flat group (a KeepTogether inside a KeepTogether always looks too tall to fit)
                story.append(KeepTogether([heading, *flowable._content]))
            else:  # text, a list, a long table: start here if a fair part of the page is left
                story += [CondPageBreak(START_HERE), heading, flowable]
            heading = None
        else:
            story.append(flowable)
    if heading is not None:
        story.append(heading)
    return story


def _flowables(blocks, st, figure_faces, width):
    story, counters = [], [0, 0, 0]
    for n, b in enumerate(blocks):
        if b.kind == "heading":
            level = min(b.level, 3)
            counters[level - 1] += 1
            for k in range(level, 3):
                counters[k] = 0
            number = ".".join(str(c) for c in counters[:level])
            if level == 1 and story:
                story.append(CondPageBreak(70 * mm))
            story.append(Heading(b.text, st[f"h{level}"], level, number, f"h{n}"))
        elif b.kind == "paragraph":
            story.append(Paragraph(b.text, st["body"]))
        elif b.kind == "quote":
            story.append(Paragraph(b.text, st["quote"]))
        elif b.kind == "list":
            story.append(_list(b, st))
        elif b.kind == "table":
            table = _table(b.items, st, width)
            story.append(KeepTogether([table]) if len(b.items) <= SHORT_TABLE else table)
        elif b.kind == "rule":
            story.append(Spacer(1, 6))
        elif b.kind == "figure":
            faces, card_mm = figure_faces[n]
            parts = [Figure(faces, card_mm)]
            if b.text:
                parts.append(Paragraph(b.text, st["caption"]))
            story.append(KeepTogether(parts))
    return story


def _list(block, st):
    items = []
    for item in block.items:
        if isinstance(item, str):
            items.append(ListItem(Paragraph(item, st["bullet"]), leftIndent=14))
        else:
            items.append(ListItem(_list(item, st), leftIndent=14))
    kind = "1" if block.ordered else "bullet"
    return ListFlowable(items, bulletType=kind, start="•" if not block.ordered else None, leftIndent=14,
                        bulletFontName=st["body"].fontName, bulletFontSize=8.5, bulletColor=ACCENT,
                        spaceAfter=4)


def _table(rows, st, width):
    n = max(len(r) for r in rows)
    # columns share the width by how much text they hold (within limits), so short tables stay short
    weights = [min(max(max((len(plain_text(r[c])) for r in rows if c < len(r)), default=4), 4), 42) + 3
               for c in range(n)]
    total = min(width, sum(weights) * 5.6)
    cell, head = st["cell"], st["cell_head"]
    # every column has the room of its longest word (a cell never breaks inside a word): when the
    # words need more than the page gives, the table's text is set smaller until they fit
    for size in (cell.fontSize, 8.2, 7.6, 7.0, 6.4):
        cell = ParagraphStyle("cell", parent=st["cell"], fontSize=size, leading=size * 1.27)
        head = ParagraphStyle("cell_head", parent=st["cell_head"], fontSize=size, leading=size * 1.27)
        least = [max((_longest_word(r[c], head if k == 0 else cell) for k, r in enumerate(rows) if c < len(r)),
                     default=0) + 2 * CELL_PAD + 1 for c in range(n)]
        if sum(least) <= width:
            break
    widths = [max(total * w_ / sum(weights), low) for w_, low in zip(weights, least)]
    if sum(widths) > width:   # the longest words fit; the rest of the room is shared by weight
        spare = width - sum(least)
        widths = [low + spare * w_ / sum(weights) for w_, low in zip(weights, least)]
    data = [[Paragraph(c, head if r == 0 else cell) for c in row] for r, row in enumerate(rows)]
    table = Table(data, colWidths=widths, repeatRows=1, hAlign="LEFT")
    style = [("FONT", (0, 0), (-1, -1), cell.fontName, cell.fontSize),  # not Helvetica
             ("BACKGROUND", (0, 0), (-1, 0), HEAD_BG),
             ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
             ("LINEBELOW", (0, -1), (-1, -1), 0.8, RULE),
             ("TOPPADDING", (0, 0), (-1, -1), 3.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 3.5),
             ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD), ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD)]
    style += [("BACKGROUND", (0, r), (-1, r), STRIPE) for r in range(2, len(rows), 2)]
    table.setStyle(TableStyle(style))
    table.spaceBefore, table.spaceAfter = 3, 9
    return table




def _longest_word(markup: str, style) -> float:
    """The width of the widest word of a cell's text in its style (bold where it is bold),
    measured without kerning: never less than it is drawn."""
    widest = 0.0
    for word in re.split(r"\s+", markup.replace("&nbsp;", " ")):
        plain = plain_text(word)
        if plain:
            name = style.fontName
            if "<b>" in word or "</b>" in word or "<strong>" in word:
                name = fonts()["bold"]
            widest = max(widest, stringWidth(plain, name, style.fontSize))
    return widest
