"""Draw SVG faces with CairoSVG into vector PDF pages, shared fonts, in parallel chunks.

In: face SVGs in order (key -> SVG text). Out: `FacesPDF`: one or more cairo PDFs whose
pages are the faces (each PDF embeds each font subset once), a map from face key to
(document, page), and the problems found (characters a font lacks, bad SVG).

Chunks are fixed by the number of faces, never by the number of cores, so the bytes are
the same on every machine; on a machine with more cores they are simply drawn at once.
"""
from __future__ import annotations

import io
import math
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import cairocffi as cairo
import cairosvg
import cairosvg.surface
import cairosvg.text

from .fonts import shipped
from .glyphs import check_glyphs

CREATE_DATE = "2000-01-01T00:00:00Z"  # fixed, so the same input gives the same bytes
FACES_PER_CHUNK = 300


@dataclass(frozen=True)
class FacesPDF:
    documents: tuple[bytes, ...]
    page_of: dict          # face key -> (document index, page index)
    problems: tuple        # (face key, message)


class _Recording(cairosvg.surface.PDFSurface):
    """CairoSVG drawing into a vector recording, replayed onto a faces PDF page."""

    surface_class = staticmethod(
        lambda output, w, h: cairo.RecordingSurface(cairo.CONTENT_COLOR_ALPHA, (0, 0, w, h)))

    def finish(self):
        pass


_cairosvg_text = cairosvg.text.text


def _text_once(surface, node, draw_as_text=False):
    """CairoSVG draws every text node twice: once as glyph outlines (only used to stroke
    it or to size a gradient) and once as real text. Skip the first pass when the text is
    neither stroked nor gradient-filled; the page is byte-for-byte the same, a third faster."""
    if (not draw_as_text and node.get("stroke") in (None, "none")
            and not str(node.get("fill", "")).startswith("url(")):
        return None
    return _cairosvg_text(surface, node, draw_as_text)


def _use_text_drawer(fast: bool) -> None:
    """Install `_text_once` (or put CairoSVG's own text drawer back) for text nodes."""
    old, new = (_cairosvg_text, _text_once) if fast else (_text_once, _cairosvg_text)
    for tag, drawer in list(cairosvg.surface.TAGS.items()):
        if drawer is old:
            cairosvg.surface.TAGS[tag] = new
    cairosvg.surface.text = new


def _draw_chunk(items: list[tuple[str, str]], fast_text: bool = True):
    """Draw (key, svg) faces as the pages of one PDF: (pdf bytes, keys drawn, problems)."""
    _use_text_drawer(fast_text)
    fonts = shipped()
    out = io.BytesIO()
    surface = cairo.PDFSurface(out, 100, 100)
    surface.set_metadata(cairo.PDF_METADATA_CREATE_DATE, CREATE_DATE)
    surface.set_metadata(cairo.PDF_METADATA_CREATOR, "pnp")
    ctx = cairo.Context(surface)
    keys, problems = [], []
    for key, svg in items:
        try:
            tree = cairosvg.parser.Tree(bytestring=svg.encode())
        except Exception as exc:  # the XML parser's own errors: a template produced bad SVG
            problems.append((key, f"template produced invalid SVG: {exc}"))
            continue
        problems.extend((key, m) for m in check_glyphs(tree, fonts))
        recording = _Recording(tree, None, 96)
        surface.set_size(recording.width, recording.height)
        ctx.set_source_surface(recording.cairo, 0, 0)
        ctx.paint()
        surface.show_page()
        keys.append(key)
    surface.finish()
    return out.getvalue(), keys, problems


def draw_faces(svgs: dict[str, str]) -> FacesPDF:
    items = list(svgs.items())
    n_chunks = max(1, math.ceil(len(items) / FACES_PER_CHUNK))
    size = math.ceil(len(items) / n_chunks) if items else 0
    chunks = [items[i:i + size] for i in range(0, len(items), size)] or [[]]
    workers = min(len(chunks), os.cpu_count() or 1)
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            results = list(pool.map(_draw_chunk, chunks))
    else:
        results = [_draw_chunk(chunk) for chunk in chunks]
    page_of, problems = {}, []
    for doc, (_, keys, found) in enumerate(results):
        page_of.update({k: (doc, page) for page, k in enumerate(keys)})
        problems.extend(found)
    return FacesPDF(tuple(r[0] for r in results), page_of, tuple(problems))
