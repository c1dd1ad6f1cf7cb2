"""The one bridge to CairoSVG's internals: every touch of them is here, and
tests/test_svgbridge.py fails loudly when an upgrade breaks one.

In: SVG text, a url fetcher, a cairo PDF surface that collects many faces as its pages.
Out: parsed trees (`parse`) and faces drawn onto the next page of that surface
(`draw_page`). What pnp relies on, all of it tested against the pinned CairoSVG:

- `cairosvg.surface.PDFSurface._create_surface(width, height)` returns the cairo surface
  to draw on and the size; overriding it lets many faces share one PDF (one font subset),
  and `finish()` is overridden so that the shared PDF is finished once, by pnp.
- `cairosvg.surface.TAGS` maps a tag to its drawer (`Surface.draw` calls
  `TAGS[node.tag](surface, node)` once it has applied the node's transform, clip, mask and
  group opacity, and names an element of another namespace `{uri}local`): while `drawing()`
  runs it holds one more entry, pnp's `<pnp:text>` (Pango text, textfit.py), drawn by
  `_draw_text` with CairoSVG's own `helpers.paint`, `helpers.size` and
  `defs.gradient_or_pattern`. Nothing of CairoSVG is replaced: its `<text>` is drawn by
  CairoSVG's own code.
- `cairosvg.parser.Tree(bytestring=..., url_fetcher=...)` and `cairosvg.url.fetch` for
  `data:` URIs.
"""
from __future__ import annotations

import copy
import math
from contextlib import contextmanager

import cairocffi as cairo
import cairosvg
import cairosvg.parser
import cairosvg.surface
import cairosvg.url
from cairosvg.defs import gradient_or_pattern
from cairosvg.helpers import paint, size

from . import textfit

TESTED = ("2.9.1",)   # the CairoSVG versions this bridge was tested with (pyproject pins one)
TEXT_TAG = f"{{{textfit.NS}}}text"


def parse(svg: bytes, url_fetcher):
    """CairoSVG's tree of an SVG document, whose external files `url_fetcher` reads."""
    return cairosvg.parser.Tree(bytestring=svg, url_fetcher=url_fetcher)


def fetch_data_url(url: str, resource_type):
    """The bytes of a `data:` URI, decoded as CairoSVG decodes them."""
    return cairosvg.url.fetch(url, resource_type)


class WrongSize(Exception):
    """The SVG's own size is not the face size its deck needs."""


def page_drawer(deck: cairo.PDFSurface, expected_pt, started: list, text=None):
    """A CairoSVG surface class that draws straight onto the next page of `deck` (one PDF
    for many faces, so font subsets are shared), after checking the SVG's size. Appends the
    face's size in pt to `started` once drawing on the page has begun.

    cairo clips each page to its size cut down to whole points, which would leave the last
    fraction of a point of the bleed blank on the right and at the bottom: the page is made
    whole points large (the face drawn from its top-left corner) and `bundlepdf.exact_pages` then
    gives it its exact size back as its MediaBox."""

    class Page(cairosvg.surface.PDFSurface):
        pnp_text = text   # the Pango engine that draws <pnp:text> (pangotext.Engine)

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




def draw_page(deck, tree, expected_pt, started: list, text=None) -> None:
    """Draw a parsed face onto the next page of `deck` (see `page_drawer`), its `<pnp:text>`
    with the Pango engine `text`."""
    page_drawer(deck, expected_pt, started, text)(tree, None, 96)


def _draw_text(surface, node) -> None:
    """CairoSVG's drawer for pnp's `<pnp:text>` (textfit.element): the text laid out by the
    Pango engine of the page (`pnp_text`), shown on the page's cairo context once CairoSVG
    has applied the element's and its ancestors' transforms, clips, masks and group opacity.
    The fill is set as CairoSVG sets a shape's (colours, gradients and patterns, whose
    objectBoundingBox is the text's box); no path is left for CairoSVG to fill or stroke."""
    engine = getattr(surface, "pnp_text", None)
    if engine is None:
        raise ValueError("text from textbox() cannot be drawn inside a pattern, marker or mask")
    if not surface.stroke_and_fill or node.get("display") == "none" or node.get("visibility") == "hidden":
        return   # inside a <clipPath> (text does not clip), or not shown
    spec = textfit.spec_of(node, node.text or "")
    x, y = size(surface, node.get("x"), "x"), size(surface, node.get("y"), "y")
    opacity = float(node.get("fill-opacity", 1)) * float(node.get("opacity", 1))
    ctx = surface.context
    ctx.save()
    source, colour = paint(node.get("fill", "black"))
    box = copy.copy(node)   # a gradient's objectBoundingBox: CairoSVG works it out for a <rect>
    box.tag = "rect"
    box["height"] = repr(engine.height(spec))
    if not gradient_or_pattern(surface, box, source, opacity):
        ctx.set_source_rgba(*surface.map_color(colour, opacity))
    engine.draw(ctx, spec, x, y)
    ctx.restore()


@contextmanager
def drawing():
    """While faces are drawn: `<pnp:text>` drawn by `_draw_text` (an entry of CairoSVG's table
    of drawers, `cairosvg.surface.TAGS`, taken out again afterwards, whatever happens).
    CairoSVG's own drawers, `<text>` among them, are left as they are."""
    cairosvg.surface.TAGS[TEXT_TAG] = _draw_text
    try:
        yield
    finally:
        cairosvg.surface.TAGS.pop(TEXT_TAG, None)
