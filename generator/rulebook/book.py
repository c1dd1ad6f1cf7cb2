"""The rulebook as reportlab Platypus: title page, contents, numbered headings, running
header, page numbers, outline, styled tables and card figures.

In: parsed `Block`s, the rendered game (or edition) and the rulebook's own words in its
language (words.py). Out: the PDF bytes from reportlab, the figure records (page, face
key, box in pt) where card faces go, and, for a book in a language reportlab cannot set
(pangobook.py: right to left, or a script its fonts lack), the text Pango set and where
it goes. Figures are drawn as empty boxes here and filled with the vector faces
afterwards, exactly as card sheets are; the Pango text is laid over its pages the same way.
"""
from __future__ import annotations

import io
from xml.sax.saxutils import escape

from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    KeepTogether,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    TableStyle,
)
from reportlab.platypus.tableofcontents import TableOfContents

from ..data.editions import direction_of
from ..draw.glyphs import needs_pango
from ..draw.hyphenate import for_game, keep_points, remembering_points
from ..rendermemo import Kept
from ..session import Session
from ..units import paper_size
from . import pageplan
from .breaking import keep_lines, remembering_lines
from .kept import contents_key
from .pangobook import BookText, PangoHeading
from .rlbridge import RecordingFrame, private_characters_given, shaping
from .source import book_text, plain_text
from .styles import ACCENT, RULE, fonts, styles
from .tables import SHORT_TABLE, listing, para, table
from .words import fill

MARGIN = 20 * mm
START_HERE = 45 * mm  # a heading and the start of its long text or table stay on a page with this much left


class Figure(Flowable):
    """A row of card faces (trim size scaled to `width` each), recorded for later placement
    through `record(page, face, box)` (the rulebook's `record_figure`)."""

    def __init__(self, faces, width_mm: float, record, gap_mm: float = 4.0, rtl: bool = False):
        super().__init__()
        self.faces = faces  # (face key, card id, trim_w, trim_h, bleed, corner)
        self.rtl = rtl      # a book that runs right to left shows a row's first card on the right
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
        order = list(zip(self.faces, self.heights))
        for face, h in (reversed(order) if self.rtl else order):
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


class Contents(TableOfContents):
    """The contents page; in a book set by Pango, its entries are too."""

    def __init__(self, text: BookText | None = None, **kwargs):
        super().__init__(**kwargs)
        self.text = text

    def wrap(self, avail_w, avail_h):
        if self.text is None:
            return super().wrap(avail_w, avail_h)
        entries = self._lastEntries or [(0, "", 0, None)]
        self._table = self.text.contents(entries, self.levelStyles, self.levelStyles[0], avail_w)
        self.width, self.height = self._table.wrapOn(self.canv, avail_w, avail_h)
        return self.width, self.height


class Rulebook(BaseDocTemplate):
    def __init__(self, buf, game, paper: str, words: dict, text: BookText | None = None, stamp: str = "",
                 hyphenation=None):
        w, h = paper_size(paper)
        super().__init__(buf, pagesize=(w * mm, h * mm), leftMargin=MARGIN, rightMargin=MARGIN,
                         topMargin=MARGIN + 4 * mm, bottomMargin=MARGIN, title=fill(words["rules"], title=game.title),
                         author="pnp", creator="pnp", invariant=1,
                         initialFontName=fonts()["normal"])  # else reportlab names unembedded Helvetica
        self.game_title = game.title
        self.words = words
        self.text = text   # the Pango text of a book reportlab cannot set, else None
        self.stamp = stamp   # a version stamp, in every page's footer
        self.section = ""
        self.figures: list[tuple] = []             # (page, face, box) of each figure drawn
        self.headings: list[tuple[int, str, int]] = []   # (level, text, page)
        self.contents: list[tuple] = []    # the contents' entries of this pass, as the table of contents gets them
        self._last_pass: list[tuple[int, str, int]] = []   # the headings of the pass before
        self.plan: pageplan.Plan | None = None   # what this layout draws on each page, when kept
        self.sketched: int | None = None   # the body's start, when the first pass draws nothing (sketch)
        self.passes = 0
        frame = RecordingFrame(self.leftMargin, self.bottomMargin, self.width, self.height, id="body",
                               drawn=self._drawn)
        self.addPageTemplates([PageTemplate("title", [frame], onPage=self._title_page),
                               PageTemplate("body", [frame], onPage=self._body_page)])
        self.st = styles(game.meta.get("language", "en"), hyphenation or for_game(game))

    def handle_documentBegin(self):
        # multiBuild lays the book out until the contents settle; keep the last pass's headings
        # so each running header can name the section a page starts (or opens) with
        self._last_pass = list(self.headings)
        self.figures = []
        self.headings = []
        self.contents = []
        self.section = ""
        if self.text is not None:
            self.text.begin()
        if self.plan is not None:
            self.plan.begin()
        super().handle_documentBegin()

    def handle_flowable(self, flowables):
        if self.plan is not None and flowables:
            self.plan.handled(flowables[0], self.page)
        super().handle_flowable(flowables)

    def _drawn(self, flowable, x, y, spare) -> bool:
        """Record a draw in the page plan; whether to draw it (not in a sketch: `sketch`)."""
        if self.plan is not None and not isinstance(flowable, pageplan.Replay):
            self.plan.drawn(flowable, x, y, spare, self.page)
        return not (self.sketched is not None and self.passes == 1)

    def sketch(self, story: list, body: int) -> None:
        """Lay out the first pass without drawing it, and draw the second from its page plan
        (pageplan.replayed) instead of laying the body out again: a cold layout's first pass
        only finds each heading's page (it is never the last: its contents lack them)."""
        self.sketched = body
        if self.plan is None:
            self.plan = pageplan.Plan({id(f): k for k, f in enumerate(story)})

    def build(self, flowables, *args, **kwargs):   # one pass of multiBuild
        self.passes += 1
        if self.sketched is not None and self.passes == 2:
            flowables[:] = pageplan.replayed(self.plan, flowables, self.sketched, self.replay) or flowables
        super().build(flowables, *args, **kwargs)

    def replay(self, flowable, x, y, spare):
        """Draw a flowable of an earlier layout where the frame drew it then, as the frame
        and the build loop would (pageplan.Replay)."""
        if isinstance(flowable, Figure):
            flowable.record = self.record_figure
        self._drawn(flowable, x, y, spare)
        flowable._frame = self.frame   # what the frame gives a flowable it draws
        flowable.canv = self.canv
        try:
            flowable.drawOn(self.canv, x, y, _sW=spare)
        finally:   # as the frame leaves it
            for name in ("canv", "_frame"):
                if hasattr(flowable, name):
                    delattr(flowable, name)
        self.afterFlowable(flowable)

    def para(self, markup: str, style: ParagraphStyle):
        return para(markup, style, self.text)

    def afterFlowable(self, flowable):
        if isinstance(flowable, (Heading, PangoHeading)):
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
        section = plain_text(self._section_on(doc.page))
        if self.text is None:
            canv.drawString(MARGIN, h - MARGIN + 2 * mm, self.game_title)
            canv.drawRightString(w - MARGIN, h - MARGIN + 2 * mm, section)
        else:   # the title at the start of the line: on the right when the book runs right to left
            start, end = (w - MARGIN, MARGIN) if self.text.rtl else (MARGIN, w - MARGIN)
            self.text.line(canv, self.game_title, self.st["running"], start, h - MARGIN + 2 * mm,
                           "end" if self.text.rtl else "start")
            self.text.line(canv, section, self.st["running"], end, h - MARGIN + 2 * mm,
                           "start" if self.text.rtl else "end")
        canv.setStrokeColor(RULE)
        canv.setLineWidth(0.5)
        canv.line(MARGIN, h - MARGIN + 0.5 * mm, w - MARGIN, h - MARGIN + 0.5 * mm)
        canv.drawCentredString(w / 2, MARGIN - 9 * mm, f"— {doc.page} —")
        self._stamp(canv, w)
        canv.restoreState()


def build_pdf(game, blocks, figure_faces, paper: str, cover_faces, words: dict,
              session: Session, stamp: str = "") -> tuple[bytes, list, list, tuple | None]:
    """Lay out the rulebook. Returns (pdf bytes, figure records, headings seen, the Pango
    text or None: (its PDF, where each piece goes)); a remembering `session` holds the
    contents of the last layout as the first guess (its memo) and the last layout's page
    plan (its rulebooks: the pages before the first changed block are drawn from it, not
    laid out); `stamp` (a version stamp) is in every page's footer."""
    memo = session.memo
    buf = io.BytesIO()
    lang = game.language
    rtl = direction_of(lang) == "rtl"
    text = BookText(lang, rtl) if needs_pango(rtl, book_text(game, blocks, words)) else None
    hyphenation = remembering_points(for_game(game), memo)   # the points of the words met before, kept
    book = (game.id, lang, paper)
    hyphenation = remembering_lines(hyphenation, memo, book)   # and the lines of paragraphs set before
    doc = Rulebook(buf, game, paper, words, text, stamp, hyphenation)
    st = doc.st
    story = _title(game, st, cover_faces, doc.record_figure, doc.para, words, rtl)
    toc = Contents(text, levelStyles=[st["toc1"], st["toc2"], st["toc3"]], dotsMinLevel=0)
    toc.tableStyle = TableStyle([("FONT", (0, 0), (-1, -1), st["toc2"].fontName, 9),
                                 ("VALIGN", (0, 0), (-1, -1), "TOP"),
                                 ("LEFTPADDING", (0, 0), (-1, -1), 0), ("RIGHTPADDING", (0, 0), (-1, -1), 0)])
    story += [doc.para(escape(words["contents"]), st["toc_title"]), toc, PageBreak()]
    body = len(story)
    flowables, tags = _body(blocks, st, figure_faces, doc.width, doc.record_figure, text)
    story += flowables
    planned = ("rulebook page plan", game.id, lang, paper)
    plans = session.rulebooks if text is None else None
    marks = tuple(repr((b, [f[1:] for f in figure_faces[n][0]] if n in figure_faces else None, figure_faces.get(n,
                  (0, 0))[1])) for n, b in enumerate(blocks))
    laid = story
    if isinstance(plans, Kept):   # a book set by Pango is laid out whole (its text is set as it goes)
        laid, index = pageplan.reuse(plans.get(planned), marks, story, body, doc.replay)
        doc.plan = pageplan.Plan(index)
    # Platypus lays the book out until its contents settle. A cold layout starts from the
    # contents' lines without their page numbers: two passes (from an empty contents page it
    # took three). While `pnp watch` rebuilds, the contents of the last layout are the first
    # guess; when the pages come out with those same contents, one pass was enough
    # (otherwise the passes go on). All end on the same layout: a contents line is its
    # heading's text, its page number drawn after it by a callback, so how much room the
    # contents take depends on the headings alone, and with it every page after them.
    settled = contents_key(book)
    guess = memo.recall(settled)
    if guess is not None:
        for entry in guess[0]:  # what the contents held at the end of the last layout
            toc.addEntry(*entry)
        doc.headings = list(guess[1])
    else:   # the contents' lines as they will read, page numbers to come: the first pass lays
        lines = _contents_lines(laid)   # out every page where it stays, the second draws it
        for entry in lines:
            toc.addEntry(*entry)
        if lines and laid is story:   # (from the first pass's plan: doc.sketch)
            doc.sketch(story, body)
    with shaping():   # kerning, no ligatures: they would not read back as text (rlbridge.py)
        doc.multiBuild(laid)
        if private_characters_given():   # its paragraphs hold characters numbered for this document only
            doc.plan = None
    memo.keep(settled, (tuple(doc.contents), tuple(doc.headings)))
    keep_points(hyphenation, memo)
    keep_lines(hyphenation, memo, book, len(story))
    if isinstance(plans, Kept) and doc.plan is not None:
        doc.plan.index = {}   # the ids of this story's flowables: of no use once it is laid out
        plans[planned] = pageplan.Laid(doc.plan, marks, pageplan.bounds_of(tags), body)
    return buf.getvalue(), doc.figures, doc.headings, text.drawn() if text is not None else None


def _contents_lines(story) -> list[tuple]:
    """The contents' entries of the headings in `story` (those inside a group too) as
    `Rulebook.afterFlowable` makes them, each on page 0: how much room the contents take
    depends on the lines alone, not on their page numbers."""
    parts = [p for f in story for p in (f.parts if isinstance(f, Group) else (f,))]
    return [(h.level - 1, f"{h.number}  {h.plain}", 0, h.key) for h in parts if isinstance(h, (Heading, PangoHeading))]



def _title(game, st, cover_faces, record, para, words, rtl: bool = False):
    meta = game.meta
    facts = " · ".join(x for x in (
        fill(words["players"], players=meta["players"]) if meta.get("players") else "",
        meta.get("playing_time", ""), fill(words["ages"], ages=meta["ages"]) if meta.get("ages") else "") if x)
    story = [Spacer(1, 38 * mm), para(escape(game.title), st["title"])]
    if meta.get("subtitle"):
        story.append(para(escape(meta["subtitle"]), st["subtitle"]))
    if facts:
        story.append(para(escape(facts), st["facts"]))
    story.append(Spacer(1, 16 * mm))
    if cover_faces:
        story.append(Figure(cover_faces, 44, record, rtl=rtl))
    story += [Spacer(1, 14 * mm), para(escape(words["rules_of_play"]), st["subtitle"]), NextPageTemplate("body"),
              PageBreak()]
    return story


def _body(blocks, st, figure_faces, width, record, text=None):
    """Flowables for the Markdown blocks; a heading always travels with what follows it."""
    story, tags, heading = [], [], None   # tags: the last block that made each flowable what it is
    for flowable, n in _flowables(blocks, st, figure_faces, width, record, text):
        if isinstance(flowable, (Heading, PangoHeading)):
            if heading is not None:
                story.append(heading)
                tags.append(n)
            heading = flowable
        elif heading is not None and not isinstance(flowable, CondPageBreak):
            if isinstance(flowable, Group):  # a figure or short table: all of it moves along
                # one flat group (a KeepTogether inside a KeepTogether always looks too tall to fit)
                story.append(Group([heading, *flowable.parts]))
                tags.append(n)
            else:  # text, a list, a long table: start here if a fair part of the page is left
                story += [CondPageBreak(START_HERE), heading, flowable]
                tags += [n, n, n]
            heading = None
        else:
            story.append(flowable)
            tags.append(n)
    if heading is not None:
        story.append(heading)
        tags.append(len(blocks))
    return story, tags


def _flowables(blocks, st, figure_faces, width, record, text=None):
    story, counters = [], [0, 0, 0]   # (flowable, its block)
    for n, b in enumerate(blocks):
        if b.kind == "heading":
            level = min(b.level, 3)
            counters[level - 1] += 1
            for k in range(level, 3):
                counters[k] = 0
            number = ".".join(str(c) for c in counters[:level])
            if level == 1 and story:
                story.append((CondPageBreak(70 * mm), n))
            story.append((Heading(b.text, st[f"h{level}"], level, number, f"h{n}") if text is None else
                          PangoHeading(b.text, st[f"h{level}"], level, number, f"h{n}", text), n))
        elif b.kind in ("paragraph", "quote"):
            story.append((para(b.text, st["body" if b.kind == "paragraph" else "quote"], text), n))
        elif b.kind == "list":
            story.append((listing(b, st, text), n))
        elif b.kind == "table":
            laid = table(b.items, st, width, text)
            story.append((Group([laid]) if len(b.items) <= SHORT_TABLE else laid, n))
        elif b.kind == "rule":
            story.append((Spacer(1, 6), n))
        elif b.kind == "figure":
            faces, card_mm = figure_faces[n]
            parts = [Figure(faces, card_mm, record, rtl=text is not None and text.rtl)]
            if b.text:
                parts.append(para(b.text, st["caption"], text))
            story.append((Group(parts), n))
    return story


