"""The one place pnp touches reportlab's internals: which OpenType features shape the rulebook.

In: nothing. Out: `shaping()`, a context manager while which Platypus paragraphs with
`shaping=1` are shaped by HarfBuzz with kerning (and what a script requires: Arabic's
joined forms, marks) but no ligatures.

reportlab 5.1 shapes such a paragraph by calling `reportlab.pdfbase.ttfonts.shapeFragWord`,
imported by name into `reportlab.platypus.paragraph`, whose default features are `kern`,
`liga` and `dlig`. reportlab writes a ligature glyph that no character maps to as a
private-use character, so text with one can no longer be found by search or copied: Lato's
standard f+j and its discretionary c+h and c+k (a caption's "chips" printed a fancy ch and
read back as "\ue000ips"). Pango's text boxes keep their ligatures (cairo maps them back to
their characters); the rulebook's shaped styles get kerning only. While `shaping()` runs, the
name in `paragraph`'s module calls the same function with `FEATURES`; it is put back
afterwards, whatever happens. `tests/test_rlbridge.py` fails when reportlab's function, its
features argument or the name `paragraph` calls it by changes (reportlab is pinned to 5.1).
"""
from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager

import reportlab.platypus.paragraph as platypus_paragraph
from reportlab.pdfbase import ttfonts

FEATURES = {"kern": True, "liga": False, "dlig": False}   # HarfBuzz applies liga unless told not to
_reportlab_shape = ttfonts.shapeFragWord


@contextmanager
def shaping() -> Iterator[None]:
    """Paragraphs laid out inside are shaped with `FEATURES`."""
    platypus_paragraph.shapeFragWord = functools.partial(_reportlab_shape, features=FEATURES)
    try:
        yield
    finally:
        platypus_paragraph.shapeFragWord = _reportlab_shape
