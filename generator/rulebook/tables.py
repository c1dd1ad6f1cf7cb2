"""The rulebook's lists and tables as Platypus flowables.

In: a list or table `Block` (inline markup in its items and cells), the book's styles
and, for a book set by Pango (pangobook.py), its `BookText`. Out: a `ListFlowable` or a
`Table`. A table's columns are never narrower than their longest word, so a cell never
breaks one (the type shrinks to `MIN_CELL_SIZE` first); in a book that runs right to
left, its first column is on the right and bullets stand right of their items.
"""
from __future__ import annotations

from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import ListFlowable, ListItem, Paragraph, Table, TableStyle

from .breaking import WholeParagraph
from .source import plain_text
from .styles import ACCENT, HEAD_BG, RULE, STRIPE, fonts

SHORT_TABLE = 9       # rows; a table this short never splits across pages
CELL_PAD = 6          # pt left and right inside a table cell
MIN_CELL_SIZE = 7.2   # pt: the smallest type a table shrinks to so that no cell breaks a word
INDENT = 14           # pt a list item stands in from its bullet's side


def para(markup: str, style: ParagraphStyle, text=None):
    """A paragraph set by reportlab (running text broken as a whole: breaking.py), or by Pango
    in a book that `text` sets."""
    if text is not None:
        return text.para(markup, style)
    whole = getattr(style, "whole", None)
    return WholeParagraph(markup, style, hyphenation=whole) if whole is not None else Paragraph(markup, style)


def listing(block, st, text=None) -> ListFlowable:
    rtl = text is not None and text.rtl
    side = {"rightIndent": INDENT, "leftIndent": 0} if rtl else {"leftIndent": INDENT}
    items = []
    for item in block.items:
        if isinstance(item, str):
            items.append(ListItem(para(item, st["bullet"], text), **side))
        else:
            items.append(ListItem(listing(item, st, text), **side))
    kind = "1" if block.ordered else "bullet"
    extra = {"bulletDir": "rtl", "bulletFormat": ".%s" if block.ordered else None} if rtl else {}
    return ListFlowable(items, bulletType=kind, start="•" if not block.ordered else None, spaceAfter=4,
                        bulletFontName=st["body"].fontName, bulletFontSize=8.5, bulletColor=ACCENT, **side,
                        **{k: v for k, v in extra.items() if v is not None})


def table(rows, st, width, text=None) -> Table:
    cell, head = st["cell"], st["cell_head"]
    size = cell.fontSize

    def widths_at(size, whole_words=True):
        if text is None:
            return _column_widths(rows, width, size, whole_words)
        return text.table_widths(rows, _sized(head, size), _sized(cell, size), width, CELL_PAD) \
            if whole_words else [width / len(rows[0])] * len(rows[0])
    widths = widths_at(size)
    while widths is None and size > MIN_CELL_SIZE:  # the words do not fit side by side: smaller type
        size = round(size - 0.4, 1)
        widths = widths_at(size)
    cell, head = _sized(cell, size), _sized(head, size)
    if widths is None:  # even the smallest type is too wide: share by weight, words may break
        widths = widths_at(size, whole_words=False)
    data = [[para(c, head if r == 0 else cell, text) for c in row] for r, row in enumerate(rows)]
    if text is not None and text.rtl:   # the first column on the right
        data, widths = [list(reversed(row)) for row in data], list(reversed(widths))
    out = Table(data, colWidths=widths, repeatRows=1, hAlign="RIGHT" if text is not None and text.rtl else "LEFT")
    style = [("FONT", (0, 0), (-1, -1), cell.fontName, cell.fontSize),  # not Helvetica
             ("BACKGROUND", (0, 0), (-1, 0), HEAD_BG),
             ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
             ("LINEBELOW", (0, -1), (-1, -1), 0.8, RULE),
             ("TOPPADDING", (0, 0), (-1, -1), 3.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 3.5),
             ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD), ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD)]
    style += [("BACKGROUND", (0, r), (-1, r), STRIPE) for r in range(2, len(rows), 2)]
    out.setStyle(TableStyle(style))
    out.spaceBefore, out.spaceAfter = 3, 9
    return out


def _sized(style: ParagraphStyle, size: float) -> ParagraphStyle:
    if size == style.fontSize:
        return style
    return ParagraphStyle(f"{style.name}_small", parent=style, fontSize=size,
                          leading=style.leading * size / style.fontSize)


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
