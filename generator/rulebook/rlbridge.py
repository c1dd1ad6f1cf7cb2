"""The one place pnp touches reportlab's internals: which OpenType features shape the rulebook,
and a paragraph's fragments and lines as breaking.py reads and cuts them.

In: nothing. Out: `shaping()`, a context manager while which Platypus paragraphs with
`shaping=1` are shaped by HarfBuzz with kerning (and what a script requires: Arabic's
joined forms, marks) but no ligatures or contextual alternates, and every document starts
from the same private-use numbering.

reportlab 5.1 shapes such a paragraph by calling `reportlab.pdfbase.ttfonts.shapeFragWord`,
imported by name into `reportlab.platypus.paragraph`, whose default features are `kern`,
`liga` and `dlig`. reportlab writes a ligature glyph that no character maps to as a
private-use character, so text with one can no longer be found by search or copied: Lato's
standard f+j and its discretionary c+h and c+k (a caption's "chips" printed a fancy ch and
read back as "\ue000ips"), and EB Garamond's contextual alternates (`calt`: the long-tailed
Q of "Quest", the round final s of "heroes"). Pango's text boxes keep their ligatures (cairo maps them back to
their characters); the rulebook's shaped styles get kerning only. While `shaping()` runs, the
name in `paragraph`'s module calls the same function with `FEATURES`; it is put back
afterwards, whatever happens.

reportlab numbers the private-use characters it gives such glyphs per font object, for the
life of the process (`TTFont.__hbUnis`, `__hbPrivate`, and the characters it adds to the
font's face): a rulebook then printed differently after another game's rulebook had
numbered some first. `shaping()` forgets them on entry and exit, so each document numbers
its own from U+E000 (an Arabic edition needs them: its joined forms have no character of
their own). `tests/test_rlbridge.py` fails when reportlab's function, its
features argument or the name `paragraph` calls it by changes (reportlab is pinned to 5.1).

`RecordingFrame` is a Platypus frame that tells where it draws each flowable (the page
plan, pageplan.py): reportlab's `Frame.add` (an alias of `Frame._add`) places a flowable
by calling its `drawOn(canvas, x, y, _sW=spare width)`; tests/test_pageplan.py fails when
it no longer does.
"""
from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager

import reportlab.platypus.paragraph as platypus_paragraph
from reportlab.pdfbase import pdfmetrics, ttfonts
from reportlab.platypus import Frame

# HarfBuzz applies liga, clig and calt unless told not to
FEATURES = {"kern": True, "liga": False, "dlig": False, "clig": False, "calt": False}
_reportlab_shape = ttfonts.shapeFragWord


@contextmanager
def shaping() -> Iterator[None]:
    """Paragraphs laid out inside are shaped with `FEATURES`."""
    _forget_private_characters()
    platypus_paragraph.shapeFragWord = functools.partial(_reportlab_shape, features=FEATURES)
    try:
        yield
    finally:
        platypus_paragraph.shapeFragWord = _reportlab_shape
        _forget_private_characters()


def private_characters_given() -> bool:
    """Whether the document being shaped gave any glyph a private-use character (call inside
    `shaping()`): its paragraphs then draw characters the next document numbers anew."""
    return any(getattr(font, "_TTFont__hbUnis", None) for font in map(pdfmetrics.getFont,
                                                                     pdfmetrics.getRegisteredFontNames()))


def _forget_private_characters() -> None:
    """Take back the private-use characters reportlab gave glyphs of registered fonts, and
    restart their numbering at U+E000."""
    for name in pdfmetrics.getRegisteredFontNames():
        font = pdfmetrics.getFont(name)
        given = getattr(font, "_TTFont__hbUnis", None)
        if not isinstance(font, ttfonts.TTFont) or given is None:
            continue   # not a TrueType font, or never shaped
        face = font.face
        for uchar in given.values():
            gid = face.charToGlyph.pop(uchar, None)
            face.charWidths.pop(uchar, None)
            if gid is not None:
                face.glyphToChar.pop(gid, None)   # a glyph is given one only when it has no character
        given.clear()
        font._TTFont__hbPrivate = 0xE000


class RecordingFrame(Frame):
    """A frame that calls `drawn(flowable, x, y, spare width)` for each flowable it draws,
    before drawing it as reportlab would (unless `drawn` returns False: a pass that only
    measures where each flowable goes)."""

    def __init__(self, *args, drawn, **kwargs):
        super().__init__(*args, **kwargs)
        self.drawn = _Shared(drawn)   # reportlab deep-copies the frame to measure a group

    def add(self, flowable, canv, trySplit=0):
        def draw(canvas, x, y, _sW=0):
            if self.drawn.call(flowable, x, y, _sW) is not False:
                type(flowable).drawOn(flowable, canvas, x, y, _sW=_sW)
        own = vars(flowable)   # not setattr: an indenter (a list's split item) passes that to what it holds
        own["drawOn"] = draw
        try:
            return super().add(flowable, canv, trySplit)
        finally:
            own.pop("drawOn", None)


class _Shared:
    """A callback that a deep copy of the frame shares (not a copy of the document)."""

    def __init__(self, call):
        self.call = call

    def __deepcopy__(self, memo):
        return self


# A Platypus paragraph's fragments as its parser makes them (rulebook/breaking.py sets their
# lines): each has `text`, `fontName`, `fontSize` and `clone(**changes)`; a `<br/>` is a
# fragment with `lineBreak` set; the lines of a paragraph once wrapped are `blPara.lines`.

def fragment_text(fragment) -> str:
    """A fragment's own text ("" for a line break's)."""
    return getattr(fragment, "text", "") or ""


def is_line_break(fragment) -> bool:
    return bool(getattr(fragment, "lineBreak", False))


def fragment_font(fragment) -> tuple[str, float]:
    """(font name, size) a fragment is set in."""
    return fragment.fontName, fragment.fontSize


def fragment_with(fragment, text: str, line_break: bool = False):
    """A copy of `fragment` holding `text` (with `line_break`: a `<br/>`)."""
    return fragment.clone(text=text, lineBreak=True) if line_break else fragment.clone(text=text)


def wrapped_lines(paragraph) -> int:
    """How many lines a wrapped (or split) paragraph holds."""
    return len(paragraph.blPara.lines)
