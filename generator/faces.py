"""Draw SVG faces with CairoSVG into vector PDF pages, shared fonts, in parallel chunks.

CairoSVG draws each face straight onto the next page of one cairo PDF per chunk (its
surface class is swapped for one that hands out that shared page), so each chunk embeds
every font subset once and no face is recorded and replayed.

In: face SVGs in order (key -> SVG text), the size each must have, and the folders its
<image> elements may read. Out: `FacesPDF`: one or more cairo PDFs whose pages are the
faces (each PDF embeds each font subset once), a map from face key to (document, page),
and the problems found (characters a font lacks, bad SVG, a face of the wrong size, a
missing image).

Chunks are fixed by the number of faces, never by the number of cores, so the bytes are
the same on every machine; on a machine with more cores they are simply drawn at once.
"""
from __future__ import annotations

import gc
import io
import math
import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from urllib.parse import unquote

import cairocffi as cairo
import cairosvg
import cairosvg.surface
import cairosvg.text

from .fonts import for_game, shipped
from .glyphs import check_glyphs

CREATE_DATE = "2000-01-01T00:00:00Z"  # fixed, so the same input gives the same bytes
_ROOT_TAG = re.compile(r"<svg\b[^>]*>")
FACES_PER_CHUNK = 300


@dataclass(frozen=True)
class FacesPDF:
    documents: tuple[bytes, ...]
    page_of: dict          # face key -> (document index, page index)
    problems: tuple        # (face key, message)


class _WrongSize(Exception):
    """The SVG's own size is not the face size its deck needs."""


def _page_drawer(deck: cairo.PDFSurface, expected_pt, started: list):
    """A CairoSVG surface class that draws straight onto the next page of `deck` (one PDF
    for many faces, so font subsets are shared), after checking the SVG's size. Appends to
    `started` once drawing on the page has begun."""

    class Page(cairosvg.surface.PDFSurface):
        def _create_surface(self, width, height):
            if expected_pt and (abs(width - expected_pt[0]) > 0.15 or abs(height - expected_pt[1]) > 0.15):
                raise _WrongSize(width, height)
            deck.set_size(width, height)
            started.append(True)
            return deck, width, height

        def finish(self):  # the page is shown by the caller; the deck is finished once
            pass

    return Page


_cairosvg_text = cairosvg.text.text


def _text_once(surface, node, draw_as_text=False):
    """CairoSVG draws every text node twice: once as glyph outlines (only used to stroke
    it or to size a gradient) and once as real text. Skip the first pass when the text is
    neither stroked nor gradient-filled; the page is byte-for-byte the same, a third faster."""
    if (not draw_as_text and surface.stroke_and_fill  # False while drawing a clip path
            and (node.get("stroke") or "none").strip() == "none"
            and not (node.get("fill") or "").strip().startswith("url(")):  # no gradient or pattern
        return None
    return _cairosvg_text(surface, node, draw_as_text)


def _use_text_drawer(fast: bool) -> None:
    """Install `_text_once` (or put CairoSVG's own text drawer back) for text nodes."""
    old, new = (_cairosvg_text, _text_once) if fast else (_text_once, _cairosvg_text)
    for tag, drawer in list(cairosvg.surface.TAGS.items()):
        if drawer is old:
            cairosvg.surface.TAGS[tag] = new
    cairosvg.surface.text = new


class ImageNotFound(Exception):
    """An <image> refers to a file that is missing or outside the project's folders."""


@dataclass(frozen=True)
class ArtFetcher:
    """CairoSVG url_fetcher: `data:` URIs, and files inside the game's template folders only."""

    roots: tuple[str, ...]

    def __call__(self, url: str, resource_type):
        if url.startswith("data:"):
            return cairosvg.url.fetch(url, resource_type)
        if not url.startswith("file://"):
            raise ImageNotFound(f"image '{url}' is not a file in the game's templates folder "
                                "(pnp never fetches from the network)")
        # CairoSVG made the href absolute against the working folder; it is meant relative to
        # the game's templates folder (no base URL is given: a '#' in a folder name would end it)
        href = os.path.relpath(unquote(url[len("file://"):]), os.getcwd())
        path = os.path.realpath(os.path.join(self.roots[0], href)) if self.roots else href
        shown = os.path.relpath(path, os.path.dirname(self.roots[0])) if self.roots else path
        if not any(path.startswith(os.path.realpath(r) + os.sep) for r in self.roots):
            raise ImageNotFound(f"image '{shown}' is outside the game's templates folder")
        if not os.path.isfile(path):
            raise ImageNotFound(f"image '{shown}' does not exist")
        with open(path, "rb") as fh:
            return fh.read()


def _unhinted(svg: str) -> str:
    """Text positions must come from unhinted metrics (what pnp measures): CairoSVG hints
    them unless told `text-rendering="geometricPrecision"`; add it to the root if absent."""
    head = _ROOT_TAG.search(svg)
    if head and "text-rendering" not in head.group(0):
        return svg[:head.end() - 1] + ' text-rendering="geometricPrecision"' + svg[head.end() - 1:]
    return svg


def _draw_chunk(items, fast_text: bool = True, roots: tuple[str, ...] = (), game_fonts: tuple | None = None):
    """Draw (key, svg, (w_mm, h_mm)) faces as the pages of one PDF.

    Returns (pdf bytes, keys drawn, problems as (key, message)).
    """
    _use_text_drawer(fast_text)
    fonts = for_game(Path(game_fonts[0]), game_fonts[1]) if game_fonts else shipped()
    fetcher = ArtFetcher(roots)
    out = io.BytesIO()
    surface = cairo.PDFSurface(out, 100, 100)
    surface.set_metadata(cairo.PDF_METADATA_CREATE_DATE, CREATE_DATE)
    surface.set_metadata(cairo.PDF_METADATA_CREATOR, "pnp")
    keys, problems = [], []
    for key, svg, size_mm in items:
        try:
            tree = cairosvg.parser.Tree(bytestring=_unhinted(svg).encode(), url_fetcher=fetcher)
        except Exception as exc:  # the XML parser's own errors: a template produced bad SVG
            problems.append((key, f"template produced invalid SVG: {exc}"))
            continue
        problems.extend((key, m) for m in check_glyphs(tree, fonts))
        expected = tuple(v * 72 / 25.4 for v in size_mm) if size_mm else None
        started: list = []
        try:
            _page_drawer(surface, expected, started)(tree, None, 96)
        except _WrongSize as exc:
            w, h = (v * 25.4 / 72 for v in exc.args)
            problems.append((key, f"the face is drawn {w:.2f} x {h:.2f} mm but must be {size_mm[0]:g} x "
                                  f"{size_mm[1]:g} mm (trim plus bleed): give the root <svg> "
                                  f'width="{{{{ deck.width }}}}mm" height="{{{{ deck.height }}}}mm"'))
        except ImageNotFound as exc:
            problems.append((key, str(exc)))
        except RecursionError:
            problems.append((key, "cannot draw the face: an element refers to itself (<use> loop?)"))
        except Exception as exc:  # anything CairoSVG, cairo or Pillow refuse in what a template drew
            problems.append((key, f"cannot draw the face: {type(exc).__name__}: {exc}"))
        else:
            surface.show_page()
            keys.append(key)
            continue
        if started:  # the failure came mid-drawing: close that page so the next face starts clean
            surface.show_page()
            keys.append(None)
    surface.finish()
    return out.getvalue(), keys, problems


def _load_fonts_once(fonts=None) -> None:
    """Make cairo resolve every shipped family (and the game's own) now, in this process."""
    surface = cairo.RecordingSurface(cairo.CONTENT_COLOR_ALPHA, (0, 0, 1, 1))
    ctx = cairo.Context(surface)
    for family in (fonts or shipped()).families:
        ctx.select_font_face(family)
        ctx.text_extents("A")


def draw_faces(svgs: dict[str, str], sizes: dict | None = None, roots: tuple[str, ...] = (),
               game_fonts: tuple | None = None) -> FacesPDF:
    """Draw every face; `sizes` (key -> (w, h) mm) are checked, `roots` are where <image> may read,
    `game_fonts` is (templates dir, as shown) of a game with fonts of its own."""
    sizes = sizes or {}
    items = [(k, svg, sizes.get(k)) for k, svg in svgs.items()]
    n_chunks = max(1, math.ceil(len(items) / FACES_PER_CHUNK))
    size = math.ceil(len(items) / n_chunks) if items else 0
    chunks = [items[i:i + size] for i in range(0, len(items), size)] or [[]]
    workers = min(len(chunks), os.cpu_count() or 1)
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        # workers inherit a ready fontconfig instead of racing to build its cache
        _load_fonts_once(for_game(Path(game_fonts[0]), game_fonts[1]) if game_fonts else None)
        gc.freeze()  # keep the parent's objects out of the workers' garbage collection: fewer pages copied
        try:
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                results = list(pool.map(partial(_draw_chunk, roots=roots, game_fonts=game_fonts), chunks))
        finally:
            gc.unfreeze()
    else:
        results = [_draw_chunk(chunk, roots=roots, game_fonts=game_fonts) for chunk in chunks]
    page_of, problems = {}, []
    for doc, (_, keys, found) in enumerate(results):
        page_of.update({k: (doc, page) for page, k in enumerate(keys) if k is not None})
        problems.extend(found)
    return FacesPDF(tuple(r[0] for r in results), page_of, tuple(problems))
