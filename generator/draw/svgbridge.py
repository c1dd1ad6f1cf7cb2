"""The one bridge to CairoSVG's internals: every touch of them is here, and
tests/test_svgbridge.py fails loudly when an upgrade breaks one.

In: SVG text, a url fetcher, a cairo PDF surface that collects many faces as its pages.
Out: parsed trees (`parse`) and faces drawn onto the next page of that surface
(`draw_page`). What pnp relies on, all of it tested against the pinned CairoSVG:

- `cairosvg.surface.PDFSurface._create_surface(width, height)` returns the cairo surface
  to draw on and the size; overriding it lets many faces share one PDF (one font subset),
  and `finish()` is overridden so that the shared PDF is finished once, by pnp.
- `cairosvg.surface.TAGS` maps a tag to its drawer, and `cairosvg.surface.text` is the
  text drawer `Surface.draw` compares them with, both module globals: while `drawing()`
  runs, plain text is drawn in one pass instead of CairoSVG's two (`_text_once`); both
  are put back as they were when drawing ends.
- `cairosvg.parser.Tree(bytestring=..., url_fetcher=...)` and `cairosvg.url.fetch` for
  `data:` URIs.
"""
from __future__ import annotations

import math
from contextlib import contextmanager

import cairocffi as cairo
import cairosvg
import cairosvg.parser
import cairosvg.surface
import cairosvg.text
import cairosvg.url

TESTED = ("2.9.1",)   # the CairoSVG versions this bridge was tested with (pyproject pins one)


def parse(svg: bytes, url_fetcher):
    """CairoSVG's tree of an SVG document, whose external files `url_fetcher` reads."""
    return cairosvg.parser.Tree(bytestring=svg, url_fetcher=url_fetcher)


def fetch_data_url(url: str, resource_type):
    """The bytes of a `data:` URI, decoded as CairoSVG decodes them."""
    return cairosvg.url.fetch(url, resource_type)


class WrongSize(Exception):
    """The SVG's own size is not the face size its deck needs."""


def page_drawer(deck: cairo.PDFSurface, expected_pt, started: list):
    """A CairoSVG surface class that draws straight onto the next page of `deck` (one PDF
    for many faces, so font subsets are shared), after checking the SVG's size. Appends the
    face's size in pt to `started` once drawing on the page has begun.

    cairo clips each page to its size cut down to whole points, which would leave the last
    fraction of a point of the bleed blank on the right and at the bottom: the page is made
    whole points large (the face drawn from its top-left corner) and `bundlepdf.exact_pages` then
    gives it its exact size back as its MediaBox."""

    class Page(cairosvg.surface.PDFSurface):
        def _create_surface(self, width, height):
            if expected_pt and (abs(width - expected_pt[0]) > 0.15 or abs(height - expected_pt[1]) > 0.15):
                raise WrongSize(width, height)
            deck.set_size(whole(width), whole(height))
            started.append((width, height))
            return deck, width, height

        def finish(self):  # the page is shown by the caller; the deck is finished once
            pass

    return Page


def whole(v: float) -> int:
    """The whole number of points a page needs to hold `v` pt (197.0000001 needs 197)."""
    return math.ceil(v - 1e-4)




def draw_page(deck, tree, expected_pt, started: list) -> None:
    """Draw a parsed face onto the next page of `deck` (see `page_drawer`)."""
    page_drawer(deck, expected_pt, started)(tree, None, 96)


_cairosvg_text = cairosvg.text.text  # CairoSVG's own drawer, as imported


def _text_once(surface, node, draw_as_text=False):
    """CairoSVG draws every text node twice: once as glyph outlines (only used to stroke
    it or to size a gradient) and once as real text. Skip the first pass when the text is
    neither stroked nor gradient-filled; the page is byte-for-byte the same, a third faster."""
    if (not draw_as_text and surface.stroke_and_fill  # False while drawing a clip path
            and (node.get("stroke") or "none").strip() == "none"
            and not (node.get("fill") or "").strip().startswith("url(")):  # no gradient or pattern
        return None
    return _cairosvg_text(surface, node, draw_as_text)


@contextmanager
def drawing(fast_text: bool = True):
    """While faces are drawn: text nodes drawn by `_text_once` (when `fast_text`), CairoSVG's
    own table put back afterwards, whatever happens."""
    if not fast_text:
        yield
        return
    # `Surface.draw` looks the drawer up in TAGS, then tells text from other shapes by
    # `TAGS[tag] == text` and draws it as text through the module's `text`: all must agree
    swapped = [tag for tag, drawer in cairosvg.surface.TAGS.items() if drawer is _cairosvg_text]
    for tag in swapped:
        cairosvg.surface.TAGS[tag] = _text_once
    cairosvg.surface.text = _text_once
    try:
        yield
    finally:
        for tag in swapped:
            cairosvg.surface.TAGS[tag] = _cairosvg_text
        cairosvg.surface.text = _cairosvg_text


