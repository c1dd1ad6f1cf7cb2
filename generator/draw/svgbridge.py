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
  `data:` URIs; `cairosvg.colors.color` reads a colour as CairoSVG paints it (`colour`).
- `TAGS['image']` is `cairosvg.image.image`: while `drawing(pictures=...)` runs, raster
  pictures are drawn by `_draw_image` instead (SVG pictures, and a surface that maps its
  images, still by CairoSVG's own), with CairoSVG's geometry: `cairosvg.helpers.size`
  for x, y, width and height, `preserve_ratio(surface, node, width, height)` reading
  `node.image_width`/`image_height`, the same clip, opacity and `IMAGE_RENDERING`
  filter; the bytes come from `node.fetch_url(parse_url(node.get_href(), base), ...)`.
  What it paints comes from picturedraw.py (prepared once, passed to the PDF as is).
- CairoSVG's pure readers of attribute text, `helpers.normalize`, `url.parse_url` and
  `colors.color` (`_READERS`), each bound by name in the modules of `_READER_MODULES`: while
  `drawing()` runs, each of those names is bound to a remembering copy (`_REMEMBERING`; a
  URL read against a base is not remembered: that looks at the files there), so
  a string every face of a bundle repeats (a frame's path, a size in mm, a colour) is read
  once; and `surface.copy` (whose only use is `copy.deepcopy` of the text cursor, before
  every node) to `_CursorCopy`, which copies a cursor of plain numbers without deepcopy's
  walk. The same values come back, so the same bytes.
"""
from __future__ import annotations

import copy
import functools
import math
import os
from contextlib import contextmanager

import cairocffi as cairo
import cairosvg
import cairosvg.bounding_box
import cairosvg.colors
import cairosvg.defs
import cairosvg.helpers
import cairosvg.image
import cairosvg.parser
import cairosvg.path
import cairosvg.shapes
import cairosvg.surface
import cairosvg.text
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


def colour(value: str) -> tuple[float, float, float, float]:
    """A colour (a name, #rgb, #rrggbb, rgb(), rgba()) as red, green, blue and alpha from 0
    to 1, read as CairoSVG reads it when it paints."""
    return cairosvg.colors.color(value)


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


_cairosvg_image = cairosvg.image.image  # CairoSVG's own picture drawer
_SVG_START = (b"<svg ", b"<?xml", b"<!DOC", b"\x1f\x8b")


def _draw_image(pictures, surface, node) -> None:
    """An <image> drawn as CairoSVG's `image()` draws it (same place, clip, opacity and
    filter), its raster pictures painted from what `pictures` (a picturedraw.Pictures)
    prepared; SVG pictures, and a surface that maps its images, go to CairoSVG's own."""
    if surface.map_image:
        return _cairosvg_image(surface, node)
    base_url = node.get("{http://www.w3.org/XML/1998/namespace}base")
    if not base_url and node.url:
        base_url = os.path.dirname(node.url) + "/"
    href = node.get_href()
    data = node.fetch_url(cairosvg.url.parse_url(href, base_url), "image/*")
    if len(data) < 5:
        return None
    if not data.startswith((b"\x89PNG", b"\xff\xd8")) and (data.startswith(_SVG_START) or b"<svg" in data):
        return _cairosvg_image(surface, node)   # a vector picture: drawn as vectors (fetched again)
    shown = "a picture in a data: URI" if href.startswith("data:") else href
    head = pictures.header(data, f"image '{shown}'")
    x, y = size(surface, node.get("x"), "x"), size(surface, node.get("y"), "y")
    width, height = size(surface, node.get("width"), "x"), size(surface, node.get("height"), "y")
    node.image_width, node.image_height = head.upright
    width, height = width or node.image_width, height or node.image_height
    scale_x, scale_y, translate_x, translate_y = cairosvg.helpers.preserve_ratio(surface, node, width, height)
    context = surface.context
    # the whole picture's size on the page (pt: a bundle page's device units), whatever the transforms
    matrix = context.get_matrix()
    placed = (math.hypot(*matrix.transform_distance(scale_x * node.image_width, 0)),
              math.hypot(*matrix.transform_distance(0, scale_y * node.image_height)))
    if placed[0] < 1e-6 or placed[1] < 1e-6:
        return None
    image = pictures.surface(data, head, shown, placed, isinstance(context.get_target(), cairo.PDFSurface))
    pattern = cairo.SurfacePattern(image)
    pattern.set_filter(cairosvg.image.IMAGE_RENDERING.get(node.get("image-rendering"), cairo.FILTER_GOOD))
    if not (translate_x == 0 and translate_y == 0 and width == scale_x * node.image_width
            and height == scale_y * node.image_height):
        context.rectangle(x, y, width, height)
        context.clip()
    opacity = float(node.get("opacity", 1))
    context.save()
    context.translate(x, y)
    context.scale(scale_x, scale_y)
    context.translate(translate_x, translate_y)
    context.scale(node.image_width / image.get_width(), node.image_height / image.get_height())
    context.set_source(pattern)
    context.paint_with_alpha(opacity)
    context.restore()
    return None


# CairoSVG's readers of attribute text, pure functions of their arguments (strings, numbers),
# and the modules that bind them by name: remembered while faces are drawn (`drawing`)
_READERS = {"normalize": cairosvg.helpers.normalize, "parse_url": cairosvg.url.parse_url,
            "color": cairosvg.colors.color}
_OWN = dict(_READERS)   # what the modules bind (`_READERS` is what the remembering copies call)
_READER_MODULES = (cairosvg.helpers, cairosvg.surface, cairosvg.path, cairosvg.shapes, cairosvg.text,
                   cairosvg.bounding_box, cairosvg.defs, cairosvg.image)
REMEMBERED = 4096   # strings each reader remembers (a drawing worker's; the least recently used dropped)


def _remembering(name: str):
    @functools.lru_cache(maxsize=REMEMBERED, typed=True)
    def remembered(*args):
        return _READERS[name](*args)
    return remembered


def _parse_url(url, base=None):
    """`parse_url` remembered but where a base is given (it then looks at the files there)."""
    return _READERS["parse_url"](url, base) if base else _url(url)


_normalize, _url, _color = (_remembering(name) for name in _READERS)
_REMEMBERING = {"normalize": _normalize, "parse_url": _parse_url, "color": _color}
_PLAIN = (int, float)


class _CursorCopy:
    """`copy` as cairosvg.surface sees it while faces are drawn: its one use,
    `copy.deepcopy((cursor_position, cursor_d_position, text_path_width))` before every node,
    done without deepcopy's walk when the cursor holds plain numbers (as it does); anything
    else deep-copied as before."""

    @staticmethod
    def deepcopy(value, memo=None):
        if memo is None and type(value) is tuple and len(value) == 3:
            position, moved, width = value
            if type(width) in _PLAIN and _numbers(position) and _numbers(moved):
                return (list(position) if type(position) is list else position,
                        list(moved) if type(moved) is list else moved, width)
        return copy.deepcopy(value, memo)


def _numbers(value) -> bool:
    """Whether `value` is a list or tuple of plain numbers (deep-copied by copying the list)."""
    if type(value) is not list and type(value) is not tuple:
        return False
    for item in value:
        if type(item) not in _PLAIN:
            return False
    return True


@contextmanager
def drawing(pictures=None):
    """While faces are drawn: `<pnp:text>` drawn by `_draw_text` (an entry of CairoSVG's table
    of drawers, `cairosvg.surface.TAGS`, taken out again afterwards), and raster pictures by
    `_draw_image` with `pictures` (a picturedraw.Pictures; None: by CairoSVG). CairoSVG's
    own table is put back as it was afterwards, whatever happens; its `<text>` drawer is
    left as it is. CairoSVG's readers of attribute text are remembered meanwhile, and its
    cursor copied plainly (the module's docstring); bound back as they were afterwards."""
    images = [tag for tag, drawer in cairosvg.surface.TAGS.items() if drawer is _cairosvg_image] if pictures else []
    bound = [(module, name) for module in _READER_MODULES for name, own in _OWN.items()
             if getattr(module, name, None) is own]
    cairosvg.surface.TAGS[TEXT_TAG] = _draw_text
    for tag in images:
        cairosvg.surface.TAGS[tag] = functools.partial(_draw_image, pictures)
    for module, name in bound:
        setattr(module, name, _REMEMBERING[name])
    own_copy, cairosvg.surface.copy = cairosvg.surface.copy, _CursorCopy
    try:
        yield
    finally:
        cairosvg.surface.TAGS.pop(TEXT_TAG, None)
        for tag in images:
            cairosvg.surface.TAGS[tag] = _cairosvg_image
        for module, name in bound:
            setattr(module, name, _OWN[name])
        cairosvg.surface.copy = own_copy


