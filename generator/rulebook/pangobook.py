"""A rulebook's text set by Pango, for languages reportlab cannot set: written right to
left (Arabic, Hebrew) or in a script its fonts lack (Japanese).

In: paragraphs in the rulebook's inline markup (`<b>`, `<i>`, `<font face>`, `<br/>`,
entities) with the reportlab `ParagraphStyle` they would have had. Out: Platypus
flowables that measure, split and place text by Pango (`PangoParagraph`, `PangoHeading`
and `BookText.contents`), and, once the book is laid out, one PDF drawn by cairo holding
every piece of text placed on the last pass as a page of its own (`BookText.drawn`),
which rulebook/__init__.py lays over the reportlab pages, as it lays the figures' faces
beneath them.

Pango does what reportlab's shaping cannot: bidi by FriBidi (a paragraph runs from the
side its first strong character says; `left` alignment is its start), Arabic joining,
line breaks by UAX #14 (Japanese punctuation never starts a line), and a fallback chain
through the shipped Noto fonts for every character Lato or EB Garamond lack. Text stays
text: cairo writes each glyph with its characters (ToUnicode), and the pieces of text
are drawn into one document, so each font is embedded once.
"""
from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

import cairocffi as cairo
from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY, TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Flowable, Paragraph, Table, TableStyle

from ..draw import pangobridge as pb
from ..draw.bidi import ordered
from ..draw.bundlepdf import CREATE_DATE
from ..draw.fonts import shipped
from ..draw.textfit import engine_for
from ..layout.pdfpage import whole_points as whole

ALIGN = {TA_CENTER: 1, TA_RIGHT: 2}   # PangoAlignment; left (the start) and justify are 0
_TAG = re.compile(r"<(/?)([a-zA-Z]+)([^>]*?)/?>")
_FACE = re.compile(r"""face\s*=\s*["']([^"']+)["']""")
_NAMED_FONTS = {"DejaVuSans": "DejaVu Sans"}


@dataclass(frozen=True)
class TextStyle:
    """What Pango needs of a paragraph style."""

    family: str
    bold: bool
    italic: bool
    size: float          # pt
    leading: float       # pt
    align: int           # reportlab's TA_*
    color: tuple[float, float, float]


def pango_markup(markup: str) -> str:
    """The rulebook's reportlab markup as Pango markup."""
    def tag(m: re.Match) -> str:
        closing, name, attrs = m.group(1), m.group(2).lower(), m.group(3)
        if name in ("b", "i"):
            return f"<{closing}{name}>"
        if name == "br":
            return "\u2028"
        if name == "font":
            if closing:
                return "</span>"
            face = _FACE.search(attrs)
            family = _NAMED_FONTS.get(face.group(1), face.group(1)) if face else "Lato"
            return f"<span font_family={quoteattr(family)}>"
        return ""   # links and anything else: the words only
    return _TAG.sub(tag, markup.replace("&nbsp;", "\u00a0"))


@dataclass
class Laid:
    layout: object
    lines: list          # (start, x, width, top, baseline, bottom) in pt
    widest: float        # the widest line, pt


class BookText:
    """The Pango side of one rulebook: its layouts, and the pieces of text placed on the pass
    being laid out (Platypus lays a book out until its contents settle)."""

    def __init__(self, lang: str, rtl: bool):
        self.engine = engine_for(shipped())
        self.lang, self.rtl = lang, rtl
        self.placed: list[tuple[int, tuple, tuple]] = []   # (page, piece, (x, top y, w, h) pt)
        self._laid: dict[tuple, Laid] = {}

    def begin(self) -> None:
        """A new layout pass: what the last one placed is forgotten."""
        self.placed = []

    def style(self, style: ParagraphStyle) -> TextStyle:
        face = next(f for f in shipped().faces if f.postscript_name == style.fontName)
        color = style.textColor
        return TextStyle(face.family, face.bold, face.italic, float(style.fontSize), float(style.leading),
                         int(style.alignment), (float(color.red), float(color.green), float(color.blue)))

    def laid(self, markup: str, ts: TextStyle, width: float) -> Laid:
        key = (markup, ts, round(width, 4))
        found = self._laid.get(key)
        if found is None:
            found = self._laid[key] = self._layout(markup, ts, width)
        return found

    def _layout(self, markup: str, ts: TextStyle, width: float) -> Laid:
        pango, scale = pb.pango, pb.SCALE
        layout = self.engine.fonts.layout()
        desc = pango.pango_font_description_new()
        families = ",".join(dict.fromkeys((ts.family, *self.engine.fallback)))
        pango.pango_font_description_set_family(desc, families.encode())
        pango.pango_font_description_set_absolute_size(desc, ts.size * scale)
        if ts.bold:
            pango.pango_font_description_set_weight(desc, pango.PANGO_WEIGHT_BOLD)
        if ts.italic:
            pango.pango_font_description_set_style(desc, pango.PANGO_STYLE_ITALIC)
        pango.pango_layout_set_font_description(layout, desc)
        pango.pango_font_description_free(desc)
        # in a book that runs right to left, so does every paragraph, even one that begins with a
        # number or a Latin word; signed numbers as on the cards (draw/bidi.py)
        pango.pango_layout_set_markup(layout, pango_markup(ordered(markup, self.lang)).encode(), -1)
        pango.pango_layout_set_wrap(layout, pango.PANGO_WRAP_WORD)
        pango.pango_layout_set_auto_dir(layout, True)
        pango.pango_layout_set_alignment(layout, ALIGN.get(ts.align, 0))
        pango.pango_layout_set_justify(layout, ts.align == TA_JUSTIFY)
        if width > 0:
            pango.pango_layout_set_width(layout, round(width * scale))
        pb.text_attributes(layout, round(ts.leading * scale), self.lang)
        pango.pango_layout_context_changed(layout)
        lines = [(start, x / scale, w / scale, top / scale, base / scale, bottom / scale)
                 for start, x, w, top, base, bottom in pb.line_boxes(layout)]
        return Laid(layout, lines, max((w for _, _, w, *_ in lines), default=0.0))

    def least_width(self, markup: str, ts: TextStyle) -> float:
        """The width of the longest piece of the text no line may break inside (a word; in
        Japanese, mostly a character)."""
        return self.laid(markup, ts, 0.001).widest

    def missing(self, text: str, ts: TextStyle) -> list[str]:
        """Characters of `text` that no shipped font has."""
        return sorted(set(pb.unknown_characters(self.laid(escape(text), ts, 0).layout)))

    def place(self, page: int, piece: tuple, box: tuple) -> None:
        self.placed.append((page, piece, box))

    def para(self, markup: str, style: ParagraphStyle, link: str | None = None) -> PangoParagraph:
        return PangoParagraph(markup, style, self, link=link)

    def line(self, canvas, text: str, style: ParagraphStyle, x: float, baseline: float, anchor: str = "start"):
        """One line of text on the page being drawn (running heads), its baseline at `baseline`
        pt, starting at x (`anchor` start), ending at x (end) or centred on it."""
        ts = self.style(style)
        markup = escape(text)
        laid = self.laid(markup, ts, 0)
        start, lx, w, top, base, bottom = laid.lines[0]
        left = {"start": x, "end": x - w, "center": x - w / 2}[anchor]
        self.place(canvas.getPageNumber(), (markup, ts, 0.0, 0, 1), (left - lx, baseline + base - top, w + lx,
                                                                       bottom - top))

    def drawn(self) -> tuple[bytes, list[tuple[int, str, tuple]]]:
        """Every piece placed on the last pass drawn as a page of one PDF, and where each goes:
        (page number from 1, piece key, (x, top y, w, h) pt). Pieces that are the same are
        drawn once."""
        out = io.BytesIO()
        surface = cairo.PDFSurface(out, 10, 10)
        surface.set_metadata(cairo.PDF_METADATA_CREATE_DATE, CREATE_DATE)
        surface.set_metadata(cairo.PDF_METADATA_CREATOR, "pnp")
        keys: dict[tuple, str] = {}
        placements = []
        for page, piece, box in self.placed:
            key = keys.get(piece)
            if key is None:
                key = keys[piece] = f"text:{len(keys)}:{_digest(piece)}"
                self._draw(surface, piece, box)
            placements.append((page, key, box))
        surface.finish()
        return out.getvalue(), placements

    def _draw(self, surface, piece: tuple, box: tuple) -> None:
        markup, ts, width, first, last = piece
        laid = self.laid(markup, ts, width)
        top = laid.lines[first][3]
        surface.set_size(whole(box[2]), whole(box[3]))
        ctx = cairo.Context(surface)
        ctx.set_source_rgb(*ts.color)
        for n in range(first, last):
            start, x, w, _line_top, baseline, bottom = laid.lines[n]
            ctx.move_to(x, baseline - top)
            pb.show_line(ctx, laid.layout, n)
        surface.show_page()

    def table_widths(self, rows: list[list[str]], head: ParagraphStyle, cell: ParagraphStyle, width: float,
                     pad: float) -> list[float] | None:
        """Column widths: none narrower than its longest unbreakable piece of text, the rest of
        `width` shared by how much text each column holds; None when even those do not fit."""
        n = max(len(r) for r in rows)
        heads, cells = self.style(head), self.style(cell)
        least = [2 * pad + 0.5 + max((self.least_width(r[c], heads if i == 0 else cells)
                                      for i, r in enumerate(rows) if c < len(r)), default=0) for c in range(n)]
        if sum(least) > width:
            return None
        weights = [max(sum(self.laid(r[c], cells, 0).widest for r in rows[1:] if c < len(r)), 1.0) for c in range(n)]
        spare = width - sum(least)
        natural = [max(self.laid(r[c], heads if i == 0 else cells, 0).widest + 2 * pad + 0.5
                       for i, r in enumerate(rows) if c < len(r)) for c in range(n)]
        if sum(natural) <= width:
            return natural   # every cell on one line: the table is no wider than it must be
        return [least[c] + spare * weights[c] / sum(weights) for c in range(n)]

    def contents(self, entries, styles: list[ParagraphStyle], number: ParagraphStyle, width: float) -> Table:
        """The table of contents: each heading (a link to it) and its page number."""
        rows = []
        for level, text, page, key in entries:
            title = self.para(text, styles[min(level, len(styles) - 1)], link=key)
            page_number = Paragraph(str(page), ParagraphStyle("toc_page", parent=number, alignment=TA_RIGHT
                                                               if not self.rtl else 0))
            rows.append([page_number, title] if self.rtl else [title, page_number])
        widths = [width - 36, 36] if not self.rtl else [36, width - 36]
        table = Table(rows, colWidths=widths)
        table.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), number.fontName, number.fontSize),   # not Helvetica
                                   ("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                                   ("RIGHTPADDING", (0, 0), (-1, -1), 0), ("TOPPADDING", (0, 0), (-1, -1), 0),
                                   ("BOTTOMPADDING", (0, 0), (-1, -1), 1)]))
        return table


def _digest(piece: tuple) -> str:
    return hashlib.sha256(repr(piece).encode()).hexdigest()[:12]


class PangoParagraph(Flowable):
    """A paragraph measured, split and placed by Pango (drawn once the book is laid out)."""

    def __init__(self, markup: str, style: ParagraphStyle, book: BookText, lines: tuple[int, int] | None = None,
                 link: str | None = None):
        super().__init__()
        self.markup, self.style, self.book, self.lines, self.link = markup, style, book, lines, link
        self.ts = book.style(style)

    def _indents(self) -> tuple[float, float]:
        left, right = float(self.style.leftIndent), float(self.style.rightIndent)
        return (right, left) if self.book.rtl else (left, right)

    def _laid(self, avail_w: float) -> Laid:
        left, right = self._indents()
        return self.book.laid(self.markup, self.ts, avail_w - left - right)

    def _span(self, laid: Laid) -> tuple[int, int]:
        return self.lines or (0, len(laid.lines))

    def wrap(self, avail_w, avail_h):
        laid = self._laid(avail_w)
        first, last = self._span(laid)
        self.width, self.height = avail_w, laid.lines[last - 1][5] - laid.lines[first][3]
        return self.width, self.height

    def split(self, avail_w, avail_h):
        laid = self._laid(avail_w)
        first, last = self._span(laid)
        top = laid.lines[first][3]
        fit = first
        while fit < last and laid.lines[fit][5] - top <= avail_h + 1e-6:
            fit += 1
        if last - first >= 4:   # no line alone at the foot of a page or the head of the next
            fit = min(fit, last - 2)
        if fit - first < (2 if last - first >= 4 else last - first) or fit == last:
            return []
        return [PangoParagraph(self.markup, self.style, self.book, (first, fit), self.link),
                PangoParagraph(self.markup, self.style, self.book, (fit, last), self.link)]

    def getSpaceBefore(self):
        return 0 if self.lines and self.lines[0] else self.style.spaceBefore

    def getSpaceAfter(self):
        return self.style.spaceAfter

    def draw(self):
        laid = self._laid(self.width)
        first, last = self._span(laid)
        left, right = self._indents()
        width = self.width - left - right
        x, y = self.canv.absolutePosition(left, self.height)
        self.book.place(self.canv.getPageNumber(), (self.markup, self.ts, round(width, 4), first, last),
                        (x, y, width, self.height))
        if self.link:
            self.canv.linkRect("", self.link, (left, 0, left + width, self.height), relative=1)


class PangoHeading(PangoParagraph):
    def __init__(self, text, style, level, number, key, book: BookText):
        super().__init__(f"{number}&nbsp;&nbsp;{text}" if number else text, style, book)
        self.level, self.plain, self.number, self.key = level, text, number, key
