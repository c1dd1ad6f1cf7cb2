"""The rulebook as reportlab Platypus: title page, contents, numbered headings, running
header, page numbers, outline, styled tables and card figures.

In: parsed `Block`s and the rendered game. Out: the PDF bytes from reportlab and the
figure records (page, face key, box in pt) where card faces go; figures are drawn as
empty boxes here and filled with the vector faces afterwards, exactly as card sheets are.
"""
from __future__ import annotations

import io
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
from .rlbridge import shaping
from .source import plain_text
from .styles import ACCENT, HEAD_BG, RULE, STRIPE, fonts, styles

MARGIN = 20 * mm
SHORT_TABLE = 9  # rows; a table this short never splits across pages
START_HERE = 45 * mm  # a heading and the start of its long text or table stay on a page with this much left


class Figure(Flowable):
    """A row of card faces (trim size scaled to `width` each), recorded for later placement
    through `record(page, face, box)` (the rulebook's `record_figure`)."""

    def __init__(self, faces, width_mm: float, record, gap_mm: float = 4.0):
        super().__init__()
        self.faces = faces  # (face key, card id, trim_w, trim_h, bleed, corner)
        self.record = record
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
            self.record(self.canv.getPageNumber(), face, (ax, ay, self.card_w, h))
            x += self.card_w + self.gap


class Group(KeepTogether):
    """Flowables kept on one page, which a heading may join (`parts`: what it holds)."""

    def __init__(self, parts):
        super().__init__(parts)
        self.parts = list(parts)


class Heading(Paragraph):
    def __init__(self, text, style, level, number, key):
        super().__init__(f"{number}&nbsp;&nbsp;{text}" if number else text, style)
        self.level, self.plain, self.number, self.key = level, text, number, key


class Rulebook(BaseDocTemplate):
    def __init__(self, buf, game, paper: str, stamp: str = ""):
        w, h = paper_size(paper)
        super().__init__(buf, pagesize=(w * mm, h * mm), leftMargin=MARGIN, rightMargin=MARGIN,
                         topMargin=MARGIN + 4 * mm, bottomMargin=MARGIN, title=f"{game.title}: rules",
                         author="pnp", creator="pnp", invariant=1,
                         initialFontName=fonts()["normal"])  # else reportlab names unembedded Helvetica
        self.game_title = game.title
        self.stamp = stamp   # a version stamp, in every page's footer
        self.section = ""
        self.figures: list[tuple] = []             # (page, face, box) of each figure drawn
        self.headings: list[tuple[int, str, int]] = []   # (level, text, page)
        self.contents: list[tuple] = []    # the contents' entries of this pass, as the table of contents gets them
        self._last_pass: list[tuple[int, str, int]] = []   # the headings of the pass before
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
        self.contents = []
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
            entry = (flowable.level - 1, f"{flowable.number}  {flowable.plain}", self.page, flowable.key)
            self.contents.append(entry)
            self.notify("TOCEntry", entry)

    def record_figure(self, page: int, face, box) -> None:
        self.figures.append((page, face, box))

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
        self._stamp(canv, w)
        canv.restoreState()

    def _stamp(self, canv, w):
        if self.stamp:
            canv.setFont(self.st["body"].fontName, 6.5)
            canv.setFillColor(ACCENT)
            canv.drawRightString(w - MARGIN, MARGIN - 9 * mm, self.stamp)

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
        self._stamp(canv, w)
        canv.restoreState()


def build_pdf(game, blocks, figure_faces, paper: str, cover_faces,
              memo: RenderMemo | None = None, stamp: str = "") -> tuple[bytes, list, list]:
    """Lay out the rulebook. Returns (pdf bytes, figure records, headings seen); `memo` (a
    remembering session's) holds the contents of the last layout as the first guess;
    `stamp` (a version stamp) is in every page's footer."""
    buf = io.BytesIO()
    doc = Rulebook(buf, game, paper, stamp)
    st = doc.st
    story = _title(game, st, cover_faces, doc.record_figure)
    toc = TableOfContents(levelStyles=[st["toc1"], st["toc2"], st["toc3"]], dotsMinLevel=0)
    toc.tableStyle = TableStyle([("FONT", (0, 0), (-1, -1), st["toc2"].fontName, 9),
                                 ("VALIGN", (0, 0), (-1, -1), "TOP"),
                                 ("LEFTPADDING", (0, 0), (-1, -1), 0), ("RIGHTPADDING", (0, 0), (-1, -1), 0)])
    story += [Paragraph("Contents", st["toc_title"]), toc, PageBreak()]
    story += _body(blocks, st, figure_faces, doc.width, doc.record_figure)
    # Platypus lays the book out until its contents settle: three passes from an empty
    # contents page. While `pnp watch` rebuilds, the contents of the last layout are the
    # first guess; when the pages come out with those same contents, one pass was enough
    # (otherwise the passes go on). Both end on the same layout: a contents line is its
    # heading's text, its page number drawn after it by a callback, so how much room the
    # contents take depends on the headings alone, and with it every page after them.
    settled = ("rulebook contents", game.id, paper)
    guess = memo.recall(settled) if memo is not None else None
    if guess is not None:
        for entry in guess[0]:  # what the contents held at the end of the last layout
            toc.addEntry(*entry)
        doc.headings = list(guess[1])
    with shaping():   # kerning, no ligatures: they would not read back as text (rlbridge.py)
        doc.multiBuild(story)
    if memo is not None:
        memo.keep(settled, (tuple(doc.contents), tuple(doc.headings)))
    return buf.getvalue(), doc.figures, doc.headings


def _title(game, st, cover_faces, record):
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
        story.append(Figure(cover_faces, 44, record))
    story += [Spacer(1, 14 * mm), Paragraph("Rules of play", st["subtitle"]), NextPageTemplate("body"),
              PageBreak()]
    return story


def _body(blocks, st, figure_faces, width, record):
    """Flowables for the Markdown blocks; a heading always travels with what follows it."""
    story, heading = [], None
    for flowable in _flowables(blocks, st, figure_faces, width, record):
        if isinstance(flowable, Heading):
            if heading is not None:
                story.append(heading)
            heading = flowable
        elif heading is not None and not isinstance(flowable, CondPageBreak):
            if isinstance(flowable, Group):  # a figure or short table: all of it moves along
                # one flat group (a KeepTogether inside a KeepTogether always looks too tall to fit)
                story.append(Group([heading, *flowable.parts]))
            else:  # text, a list, a long table: start here if a fair part of the page is left
                story += [CondPageBreak(START_HERE), heading, flowable]
            heading = None
        else:
            story.append(flowable)
    if heading is not None:
        story.append(heading)
    return story


def _flowables(blocks, st, figure_faces, width, record):
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
            story.append(Group([table]) if len(b.items) <= SHORT_TABLE else table)
        elif b.kind == "rule":
            story.append(Spacer(1, 6))
        elif b.kind == "figure":
            faces, card_mm = figure_faces[n]
            parts = [Figure(faces, card_mm, record)]
            if b.text:
                parts.append(Paragraph(b.text, st["caption"]))
            story.append(Group(parts))
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
    cell, head = st["cell"], st["cell_head"]
    size = cell.fontSize
    widths = _column_widths(rows, width, size)
    while widths is None and size > MIN_CELL_SIZE:  # the words do not fit side by side: smaller type
        size = round(size - 0.4, 1)
        widths = _column_widths(rows, width, size)
    if size != cell.fontSize:
        lead = cell.leading * size / cell.fontSize
        cell = ParagraphStyle("cell_small", parent=cell, fontSize=size, leading=lead)
        head = ParagraphStyle("cell_head_small", parent=head, fontSize=size, leading=lead)
    if widths is None:  # even the smallest type is too wide: share by weight, words may break
        widths = _column_widths(rows, width, size, whole_words=False)
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


CELL_PAD = 6          # pt left and right inside a table cell
MIN_CELL_SIZE = 7.2   # pt: the smallest type a table shrinks to so that no cell breaks a word


def _column_widths(rows, width: float, size: float, whole_words: bool = True) -> list[float] | None:
    """Column widths (pt) for a table of `rows` in a column `width` wide, or None when the
    longest words of the columns, set at `size`, cannot stand side by side in it.

    Columns share the width by how much text they hold (within limits), so short tables stay
    short; but no column is narrower than its longest word (measured in the bold face, which
    is the wider), so a cell never breaks a word in two."""
    n = max(len(r) for r in rows)
    weights = [min(max(max((len(plain_text(r[c])) for r in rows if c < len(r)), default=4), 4), 42) + 3
               for c in range(n)]
    total = min(width, sum(weights) * 5.6 * size / 8.8)
    if not whole_words:
        return [total * w / sum(weights) for w in weights]
    bold, regular = fonts()["bold"], fonts()["normal"]
    least = [2 * CELL_PAD + 0.5 + max((max(stringWidth(word, bold, size), stringWidth(word, regular, size))
                                       for r in rows if c < len(r) for word in plain_text(r[c]).split()),
                                      default=0) for c in range(n)]
    if sum(least) > width:
        return None
    total = max(total, sum(least))
    fixed: dict[int, float] = {}
    while True:  # share what the fixed columns leave by weight; fix any column that falls short
        free = [c for c in range(n) if c not in fixed]
        room = total - sum(fixed.values())
        share = {c: room * weights[c] / sum(weights[k] for k in free) for c in free}
        short = [c for c in free if share[c] < least[c]]
        if not short:
            return [fixed[c] if c in fixed else share[c] for c in range(n)]
        for c in short:
            fixed[c] = least[c]
