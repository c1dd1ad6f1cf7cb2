"""The rulebook's running text broken into lines paragraph by paragraph, not line by line.

In: a paragraph's markup, its reportlab style and the book's `Hyphenation`
(draw/hyphenate.py). Out: `WholeParagraph`, a reportlab `Paragraph` whose lines are those
draw/linebreak.total_fit chooses over reportlab's own measured widths (the words of its
fragments, the spaces between them, the hyphenations the typographer's rules allow): each
line's end is a line break and, where it hyphenates, a hyphen, in the fragments reportlab then
sets as given (its own hyphenation off). Split across pages, the first part keeps the lines
chosen and the rest is broken again as a paragraph of its own. `words_of` and `measure`
give a paragraph's words and its lines by either method (tests, benchmarks/typography.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Paragraph

from ..draw.hyphenate import Hyphenation, looked_up
from ..draw.linebreak import END, Word, fills, first_fit, total_fit
from .kept import lines_key
from .rlbridge import fragment_font, fragment_text, fragment_with, is_line_break, wrapped_lines

SPACES = " \n\t"
SENTENCE_ENDS = ".!?:"


def _text(f) -> str:
    """A fragment's text; a line break (`<br/>`) counts as a newline."""
    return "\n" if is_line_break(f) else fragment_text(f)


def _segments(pieces) -> tuple[str, list]:
    """The paragraph's plain text and, per character, the piece (text, font, size) it is set in."""
    text, owner = [], []
    for piece in pieces:
        t = piece[0]
        text.append(t)
        owner += [piece] * len(t)
    return "".join(text), owner


def _width(text: str, owner: list, a: int, b: int) -> float:
    out, i = 0.0, a
    while i < b:
        f = owner[i]
        j = i
        while j < b and owner[j] is f:
            j += 1
        out += stringWidth(text[i:j], *f[1:])
        i = j
    return out


def _short(part: str) -> bool:
    return sum(ch.isalpha() for ch in part) < 3


def words_of(frags, hyphenation: Hyphenation | None) -> tuple[list[Word], list[tuple[int, int, tuple, bool]]]:
    """The paragraph's words (draw/linebreak.Word) and where each lies in its plain text:
    (start, end, the offsets of its allowed hyphenations, whether a line must end after it).
    Remembered by the fragments' text and fonts: a paragraph on another paper (another
    width) has the same words."""
    pieces = tuple((_text(f), *fragment_font(f)) for f in frags)
    # the hyphenation without its layout's line ends: the cache below would hold them alive
    words, where = _words(pieces, replace(hyphenation, lines=None) if hyphenation is not None else None)
    if hyphenation is not None and hyphenation.known is not None:
        _learn(pieces, where, hyphenation)
    return list(words), list(where)


def _learn(pieces: tuple, where, hyphenation: Hyphenation) -> None:
    """Ask `hyphenation` about each word of a paragraph `_words` remembered: the points it
    knows are what a build's memo keeps (hyphenate.keep_points), so that a one-shot rebuild
    asks the dictionary about new words only, also after another build in this process."""
    text = "".join(piece[0] for piece in pieces)
    for n, (a, b, _, last) in enumerate(where):
        if not last:
            hyphenation.points(text[a:b], n == 0 or text[where[n - 1][1] - 1] in SENTENCE_ENDS)


@lru_cache(maxsize=1024)
def _words(pieces: tuple, hyphenation: Hyphenation | None) -> tuple[tuple, tuple]:
    text, owner = _segments(pieces)
    spans, i = [], 0
    while i < len(text):
        if text[i] in SPACES:
            i += 1
            continue
        j = i
        while j < len(text) and text[j] not in SPACES:
            j += 1
        spans.append((i, j))
        i = j
    words, where = [], []
    for n, (a, b) in enumerate(spans):
        last = n == len(spans) - 1 or "\n" in text[b:spans[n + 1][0]]
        starts = n == 0 or text[spans[n - 1][1] - 1] in SENTENCE_ENDS
        cuts = () if last or hyphenation is None else hyphenation.points(text[a:b], starts)
        heads = tuple((_width(text, owner, a, a + c) + stringWidth("-", *owner[a + c - 1][1:]),
                       _width(text, owner, a + c, b), _short(text[a:a + c]) or _short(text[a + c:b])) for c in cuts)
        space = 0.0 if last else stringWidth(" ", *owner[b][1:]) if b < len(owner) else 0.0
        words.append(Word(_width(text, owner, a, b), space, heads))
        where.append((a, b, cuts, last))
    return tuple(words), tuple(where)


def _ends(frags, widths, hyphenation, whole: bool):
    """The words, where they lie, and where each line ends (as draw/linebreak gives them),
    the text between two forced line breaks broken as a paragraph of its own."""
    words, where = words_of(frags, hyphenation)
    ends, start = [], 0
    for n, (*_, last) in enumerate(where):
        if last:
            part = (total_fit if whole else first_fit)(words[start:n + 1], widths if not start else widths[1])
            ends += [(j + start, k) for j, k in part]
            start = n + 1
    return words, where, ends


def _cut(frags, breaks: list[tuple[int, bool, int, bool]]) -> list:
    """The fragments with a line break at each of `plan`'s line ends (but the text's own): the
    text up to the offset (and a hyphen), a break, the text from the next line's offset."""
    ends = {end: hyphen for end, hyphen, _, forced in breaks if not forced}
    gaps = [(end, nxt) for end, _, nxt, forced in breaks if nxt > end and not forced]
    out, at = [], 0
    for f in frags:
        t = fragment_text(f)
        if not t:
            out.append(f)
            at += len(_text(f))
            continue
        piece: list[str] = []
        for k, ch in enumerate(t):
            here = at + k
            if here in ends:
                out += [fragment_with(f, "".join(piece) + ("-" if ends[here] else "")),
                        fragment_with(f, "", line_break=True)]
                piece = []
            if not any(end <= here < nxt for end, nxt in gaps):   # not the spaces at a line's end
                piece.append(ch)
        if piece:
            out.append(fragment_with(f, "".join(piece)))
        at += len(t)
    return out


def plan(frags, widths, hyphenation: Hyphenation | None, whole: bool = True) -> list[tuple[int, bool, int, bool]]:
    """Where the lines end: (offset, hyphenated, next line's offset, whether the text's own
    line break ends it) of every line but the last; as an earlier layout set the same
    paragraph at the same widths, when the hyphenation's `lines` (LineEnds) kept it."""
    kept = hyphenation.lines if hyphenation is not None and isinstance(hyphenation.lines, LineEnds) else None
    if kept is not None and hyphenation is not None:
        pieces = tuple((_text(f), *fragment_font(f)) for f in frags)
        words = {part for word in "".join(p[0] for p in pieces).split() for part in looked_up(word)}
        key = (pieces, tuple(widths), whole, hyphenation.protected_among(words))
        found = kept.get(key)
        if found is not None:
            return list(found)
    _, where, ends = _ends(frags, widths, hyphenation, whole)
    out = []
    for j, k in ends[:-1]:
        a, b, cuts, forced = where[j]
        if k == END:
            out.append((b, False, where[j + 1][0], forced))
        else:
            out.append((a + cuts[k], True, a + cuts[k], False))
    if kept is not None:
        kept.now[key] = tuple(out)
    return out


@dataclass
class LineEnds:
    """The line ends (`plan`) of the paragraphs an earlier layout of the book set (`before`,
    as the session's memo kept them) and of those this layout set (`now`, what it keeps).
    A paragraph's are a pure function of its key: its text, fonts and sizes, the widths, the
    method, and the protected words among its own (the hyphenation's rules are the memo
    key's), so an edited card name lays out again only the paragraphs that print it."""
    before: dict
    now: dict = field(default_factory=dict)

    def get(self, key) -> tuple | None:
        found = self.now.get(key)
        if found is None:
            found = self.before.get(key)
            if found is not None:
                self.now[key] = found
        return found


def remembering_lines(hyphenation: Hyphenation, memo, book: tuple) -> Hyphenation:
    """`hyphenation`, knowing the line ends of the paragraphs `memo` kept for `book` (game,
    language, paper: `keep_lines`)."""
    return replace(hyphenation, lines=LineEnds(memo.recall_map(lines_key(hyphenation, book), _is_plan)))


def keep_lines(hyphenation: Hyphenation, memo, book: tuple, size: int) -> None:
    """Keep in `memo` the line ends of the paragraphs this layout set, and of those it drew
    from an earlier layout's pages (pageplan: not broken again) while the value stays within
    about twice the size of the book (`size`: its story's flowables; else this layout's alone)."""
    if isinstance(hyphenation.lines, LineEnds):
        now = hyphenation.lines.now
        kept = {**hyphenation.lines.before, **now}
        memo.keep(lines_key(hyphenation, book), kept if len(kept) <= 2 * max(len(now), size) + 64 else dict(now))


def _is_plan(key, value) -> bool:
    return isinstance(key, tuple) and isinstance(value, tuple) and all(
        isinstance(end, tuple) and len(end) == 4 and type(end[0]) is int and type(end[1]) is bool
        and type(end[2]) is int and type(end[3]) is bool for end in value)


def measure(frags, widths, hyphenation: Hyphenation | None, whole: bool = True) -> tuple[int, int, list[float]]:
    """(lines, hyphenated lines, fill of every line but the last) of a paragraph set either way."""
    words, where, ends = _ends(frags, widths, hyphenation, whole)
    filled = fills(words, ends, widths)
    inner = [f for (j, _), f in zip(ends, filled) if not where[j][3]]   # the lines a paragraph's end leaves short
    return len(ends), sum(1 for _, k in ends if k != END), inner


class WholeParagraph(Paragraph):
    """A reportlab paragraph broken as a whole (see the module's docstring)."""

    def __init__(self, text, style=None, bulletText=None, frags=None, caseSensitive=1, encoding="utf8",
                 hyphenation: Hyphenation | None = None, fixed: list | None = None):
        super().__init__(text, style, bulletText, frags, caseSensitive, encoding)
        self.hyphenation = hyphenation
        self.source = self.frags
        self.fixed = fixed        # the lines chosen already (the first part of a split paragraph)
        self.planned: tuple | None = None

    def _widths(self, avail: float) -> tuple[float, float]:
        s = self.style
        return (avail - s.leftIndent - s.firstLineIndent - s.rightIndent, avail - s.leftIndent - s.rightIndent)

    def wrap(self, availWidth, availHeight):
        widths = self._widths(availWidth)
        if self.planned is None or self.planned[0] != widths:
            breaks = self.fixed if self.fixed is not None else plan(self.source, widths, self.hyphenation)
            self.planned = (widths, breaks)
            self.frags = _cut(self.source, breaks)
        return super().wrap(availWidth, availHeight)

    def split(self, availWidth, availHeight):
        parts = super().split(availWidth, availHeight)
        if len(parts) != 2 or self.planned is None:
            return parts
        lines = wrapped_lines(parts[0])
        breaks = self.planned[1]
        if not 0 < lines <= len(breaks):
            return parts
        cut = breaks[lines - 1]
        head, tail = _slice(self.source, cut)
        first = WholeParagraph(None, parts[0].style, self.bulletText, head, hyphenation=self.hyphenation,
                               fixed=[b for b in breaks[:lines - 1]])
        rest = WholeParagraph(None, parts[1].style, None, tail, hyphenation=self.hyphenation)
        return [first, rest]


def _slice(frags, cut: tuple[int, bool, int, bool]) -> tuple[list, list]:
    """The fragments before a line's end (with its hyphen) and from the next line's start."""
    end, hyphen, nxt, _ = cut
    head: list = []
    tail: list = []
    at = 0
    for f in frags:
        t = fragment_text(f)
        a, b = at, at + len(_text(f))
        if not t:
            if a < end or (a == end and a == b):
                head.append(f)
            elif a >= nxt:
                tail.append(f)
        else:
            if a < end:
                head.append(fragment_with(f, t[:end - a]) if b > end else f)
            if b > nxt:
                tail.append(fragment_with(f, t[max(0, nxt - a):]) if a < nxt else f)
        at = b
    if hyphen:
        last = max(i for i, f in enumerate(head) if fragment_text(f))
        head[last] = fragment_with(head[last], fragment_text(head[last]) + "-")
    return head, tail
