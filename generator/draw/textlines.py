"""A card text's lines chosen as a whole (total fit, linebreak.py) from Pango's own widths.

In: a `Laid` layout (pangotext.py: its text with the soft hyphens the typographer's rules
allow, at size NOMINAL, wrapped to the box's width) and the width of a hyphen. Out: `plan`,
where the lines should end: the spaces that become forced line breaks (U+2028, in the text
without soft hyphens), the soft hyphens kept (the others dropped, so Pango's own wrapping
breaks exactly there) and the offsets every line starts at, to check Pango set those lines.

The words' widths and those of the pieces a hyphenation leaves are read from the layout laid
out on one line (`pango_layout_index_to_pos`), so kerning, icons and bold runs count as drawn.
Right-to-left text and scripts that break without spaces (Thai, Japanese, Chinese...) keep
Pango's line-by-line breaking: `plan` gives None for them, and for texts under MIN_LINES lines.
"""
from __future__ import annotations

import unicodedata
from dataclasses import replace

from . import pangobridge as pb
from .linebreak import END, Word, total_fit

TOTAL_FIT = True     # False: every card text broken line by line by Pango, as before issue 39
MIN_LINES = 3        # shorter texts: first fit and total fit seldom differ, and fitting is hot
SPACE = b" "
SOFT = "\u00ad".encode()
SEGMENT_ENDS = (b"\n", "\u2028".encode())
OWN_BREAKING = frozenset({"ja", "zh", "ko", "th", "lo", "km", "my"})


def pango_breaks_it(text: str, lang: str) -> bool:
    """Whether the text keeps Pango's breaking: right to left, or no spaces between words."""
    if lang.split("-")[0].lower() in OWN_BREAKING:
        return True
    return any(unicodedata.bidirectional(c) in ("R", "AL") or unicodedata.east_asian_width(c) in ("W", "F")
               or "\u0e00" <= c <= "\u0eff" for c in text)


def _segments(text: bytes) -> list[tuple[int, int]]:
    """(start, end) bytes of each run of text between paragraph or forced line breaks."""
    out, start = [], 0
    for i in range(len(text) + 1):
        if i == len(text) or text[i:i + 1] == b"\n" or text[i:i + 3] == SEGMENT_ENDS[1]:
            if i > start:
                out.append((start, i))
            start = i + (3 if text[i:i + 3] == SEGMENT_ENDS[1] else 1)
    return out


def _words(text: bytes, start: int, end: int, hyphen_at: dict) -> list[tuple[int, int, list[int]]]:
    out, at = [], start
    while at < end:
        stop = text.find(SPACE, at, end)
        stop = end if stop < 0 else stop
        if stop > at:
            out.append((at, stop, [b for b in hyphen_at if at < b < stop]))
        at = stop + 1
    return out


def _letters(part: bytes) -> int:
    return sum(1 for c in part.replace(SOFT, b"").decode() if c.isalpha())


def plan(laid, hyphen: float, lang: str):
    """(spaces to force, soft hyphens to keep, line starts), offsets in the text without soft
    hyphens, or None when Pango's own breaking stays (see the module's docstring)."""
    text, width = laid.text, laid.width
    if width <= 0 or pango_breaks_it(text.decode(), lang):
        return None
    layout = laid.layout
    pb.pango.pango_layout_set_width(layout, -1)
    laid.width = -1
    try:
        segments = [(s, e, _words(text, s, e, laid.hyphen_at)) for s, e in _segments(text)]
        xs = pb.xs(layout, sorted({i for _, _, ws in segments for a, b, cuts in ws for i in (a, b, *cuts)}))
    finally:
        pb.pango.pango_layout_set_width(layout, width)
        laid.width = width
    plain = {}   # byte -> offset in the text without soft hyphens

    def offset(b: int) -> int:
        if b not in plain:
            plain[b] = laid.char_at[b] - sum(1 for h in laid.hyphen_at if h < b)
        return plain[b]

    spaces, kept, starts, lines = [], [], [], 0
    for _, _, ws in segments:
        if not ws:
            continue
        words = []
        for n, (a, b, cuts) in enumerate(ws):
            space = xs[ws[n + 1][0]] - xs[b] if n + 1 < len(ws) else 0.0
            words.append(Word(xs[b] - xs[a], space, tuple(
                (xs[c] - xs[a] + hyphen, xs[b] - xs[c],
                 min(_letters(text[a:c]), _letters(text[c:b])) < 3) for c in cuts)))
        ends = total_fit(words, width)
        lines += len(ends)
        starts.append(offset(ws[0][0]))
        for j, k in ends[:-1]:
            if k == END:
                spaces.append(offset(ws[j][1]))
                starts.append(offset(ws[j + 1][0]))
            else:
                cut = ws[j][2][k]
                kept.append(laid.hyphen_at[cut])
                starts.append(laid.hyphen_at[cut])
    if lines < MIN_LINES:
        return None
    return tuple(spaces), tuple(sorted(kept)), tuple(starts)


def even(engine, spec, fitted, h: float, max_lines):
    """`fitted` (an Engine's `Fitted` for `spec`) with its lines chosen as a whole at the size
    found, among the breaks `spec` allows, when that sets MIN_LINES lines or more and Pango
    then sets exactly those lines in the box; otherwise `fitted`, Pango's line by line."""
    if not TOTAL_FIT or fitted.lines < MIN_LINES or spec.letter_spacing:
        return fitted
    laid = engine.laid(replace(spec, size=fitted.spec.size))
    found = plan(laid, _hyphen(engine, spec), spec.lang)
    if found is None:
        return fitted
    spaces, kept, starts = found
    own = {engine._plain(laid, s) for s, _, _ in pb.lines(laid.layout)}
    if own.issuperset(starts) and len(own) - (laid.paragraphs - 1) == len(starts):
        return fitted   # Pango's own lines: kept as they were
    even = replace(fitted.spec, hyphenate=False, hyphens=kept, hyphenation=None, last_words=False, breaks=spaces)
    again = engine.laid(even)
    result = engine._measure(again, even, h, max_lines)
    got = {engine._plain(again, s) for s, _, _ in pb.lines(again.layout)}
    if result is None or result.lines != len(starts) or not got.issuperset(starts):
        return fitted   # Pango would set other lines (a width rounded, a word too long): keep its own
    return result


def _hyphen(engine, spec) -> int:
    """The width of a hyphen in the spec's font at the engine's nominal size, in Pango units."""
    dash = engine.laid(replace(spec, text="-", width=1000.0, size=10.0, hyphenate=False, hyphens=(), icons=(),
                               breaks=(), align="left", letter_spacing=0.0))
    return pb.lines(dash.layout)[0][2]
