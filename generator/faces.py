"""Draw SVG faces with CairoSVG into vector PDF pages, in bundles that can be cached.

CairoSVG draws each face straight onto the next page of one cairo PDF per bundle (its
surface class is swapped for one that hands out that shared page), so no face is
recorded and replayed.

In: face SVGs (key -> SVG text), the size each must have, the folders its <image>
elements may read, and optionally a `FaceCache`. Out: `FacesPDF`: the bundle PDFs whose
pages are the faces, a map from face key to (document, page), each face's draw key and
the problems found (characters a font lacks, bad SVG, a face of the wrong size, a
missing image).

Incremental builds. A face's *draw key* (drawkey.py) hashes everything that decides its
pixels; bundles.py decides which faces are drawn together, so that editing one card
changes one bundle and a warm build redraws only that one. Cold and warm builds assemble
the same bundles, so their output is byte-identical by construction. Every bundle first
draws a *primer* page (the game's characters plus printable ASCII in every font style
the faces use; never placed) so that all bundles of a game embed identical font subsets,
which layout stores once (forms.py).
"""
from __future__ import annotations

import html
import io
import math
import os
import re
import zlib
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

import cairocffi as cairo
import cairosvg
import cairosvg.surface
import cairosvg.text

from .bundles import SVGTexts, draw_key, plan_bundles
from .facecache import Bundles
from .drawkey import SALT, _game_fonts_digest
from .fonts import GENERIC, for_game, shipped
from .glyphs import check_glyphs

CREATE_DATE = "2000-01-01T00:00:00Z"  # fixed, so the same input gives the same bytes
_ROOT_TAG = re.compile(r"<svg\b[^>]*>")
_TEXT = re.compile(r">([^<]+)<")
_FAMILY = re.compile(r"""font-family\s*[=:]\s*["']?([^"';>]+)""")
_FONT_TAG = re.compile(r"""<[a-z]+\s[^>]*font-family[^>]*>""")
_WEIGHT = re.compile(r"""font-weight\s*[=:]\s*["']?([a-z0-9]+)""")
_SLANT = re.compile(r"""font-style\s*[=:]\s*["']?([a-z]+)""")
_NORMAL = re.compile("(normal)").match("normal")  # the default weight and slant


@dataclass(frozen=True)
class FacesPDF:
    documents: Bundles     # the bundle PDFs (read from the face cache when asked for)
    page_of: dict          # face key -> (document index, page index)
    problems: tuple        # (face key, message)
    draw_keys: dict = field(default_factory=dict)   # face key -> draw key (sha256 hex)
    drawn: int = 0         # bundles drawn by this build (the rest came from the cache)


class _WrongSize(Exception):
    """The SVG's own size is not the face size its deck needs."""


def _page_drawer(deck: cairo.PDFSurface, expected_pt, started: list):
    """A CairoSVG surface class that draws straight onto the next page of `deck` (one PDF
    for many faces, so font subsets are shared), after checking the SVG's size. Appends the
    face's size in pt to `started` once drawing on the page has begun.

    cairo clips each page to its size cut down to whole points, which would leave the last
    fraction of a point of the bleed blank on the right and at the bottom: the page is made
    whole points large (the face drawn from its top-left corner) and `_exact_pages` then
    gives it its exact size back as its MediaBox."""

    class Page(cairosvg.surface.PDFSurface):
        def _create_surface(self, width, height):
            if expected_pt and (abs(width - expected_pt[0]) > 0.15 or abs(height - expected_pt[1]) > 0.15):
                raise _WrongSize(width, height)
            deck.set_size(_whole(width), _whole(height))
            started.append((width, height))
            return deck, width, height

        def finish(self):  # the page is shown by the caller; the deck is finished once
            pass

    return Page


def _whole(v: float) -> int:
    """The whole number of points a page needs to hold `v` pt (197.0000001 needs 197)."""
    return math.ceil(v - 1e-4)


def _exact_pages(pdf: bytes, sizes: list) -> bytes:
    """Each face page's MediaBox made the face's exact size: [0, H - h, w, H] on a page
    cairo made W x H whole points, the face drawn from its top-left corner (see
    `_page_drawer`). `sizes` has (w, h) pt per page, None for pages left alone."""
    import pikepdf

    if all(size is None or (_whole(size[0]) == size[0] and _whole(size[1]) == size[1]) for size in sizes):
        return pdf
    with pikepdf.open(io.BytesIO(pdf)) as doc:
        for page, size in zip(doc.pages, sizes):
            if size is not None:
                top = float(page.mediabox[3])
                page.mediabox = pikepdf.Array([0, round(top - size[1], 6), round(size[0], 6), top])
        out = io.BytesIO()
        doc.save(out, deterministic_id=True, compress_streams=True)
    return out.getvalue()


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


def primer(svgs, fonts=None, facts=None) -> tuple:
    """What page 0 of every bundle draws: (styles, characters): the characters of all the
    faces (and printable ASCII) in every font style the faces ask for (family, weight and
    slant written on one element) and the default, sans-serif. Every bundle then holds the
    same glyphs of the same fonts in the same order: identical font streams, stored once in
    the sheets. (A style only inherited from a parent element is not primed: its font is
    then stored once per bundle, correct but larger.) `facts` gives each face's
    `face_facts` (remembered while watching); default: worked out from `svgs`."""
    used = {("sans-serif", False, False)}
    chars = {chr(c) for c in range(33, 127)}
    for styles, text in (facts if facts is not None else map(face_facts, svgs)):
        used.update(styles)
        chars.update(text)
    styles = sorted(s for s in {(n, b, f.italic) for f in (fonts or shipped()).faces for n, b in f.aliases}
                    | {(g, b, i) for g in GENERIC for b in (False, True) for i in (False, True)}
                    if (s[0].lower(), s[1], s[2]) in used)
    return tuple(styles), "".join(sorted(c for c in chars if not c.isspace() and c.isprintable()))


def face_facts(svg: str) -> tuple[frozenset, frozenset]:
    """The font styles (family, bold, italic) one face's elements ask for, and the
    characters of its text."""
    used = set()
    for tag in _FONT_TAG.findall(svg):
        family = _FAMILY.search(tag).group(1).split(",")[0].strip().strip("'\"").lower()
        weight = (_WEIGHT.search(tag) or _NORMAL).group(1)
        bold = weight in ("bold", "bolder") or (weight.isdigit() and int(weight) >= 550)
        used.add((family, bold, (_SLANT.search(tag) or _NORMAL).group(1) in ("italic", "oblique")))
    chars = set()
    for text in _TEXT.findall(svg):
        chars.update(html.unescape(text) if "&" in text else text)
    return frozenset(used), frozenset(chars)


def _draw_primer(surface: cairo.PDFSurface, primer: tuple) -> None:
    """Draw the primer page with the font requests and font options CairoSVG makes for
    text (text-rendering="geometricPrecision"), so cairo maps them to the same fonts.
    Every glyph lies on the page: cairo leaves out what falls outside it."""
    styles, chars = primer
    lines = [chars[i:i + 64] for i in range(0, len(chars), 64)] or [""]
    surface.set_size(100, 2 + len(styles) * len(lines))
    ctx = cairo.Context(surface)
    options = ctx.get_font_options()
    options.set_antialias(cairo.ANTIALIAS_BEST)
    options.set_hint_style(cairo.HINT_STYLE_NONE)
    options.set_hint_metrics(cairo.HINT_METRICS_OFF)
    ctx.set_font_options(options)
    y = 1.0
    for name, bold, italic in styles:
        ctx.select_font_face(name, cairo.FONT_SLANT_ITALIC if italic else cairo.FONT_SLANT_NORMAL,
                             cairo.FONT_WEIGHT_BOLD if bold else cairo.FONT_WEIGHT_NORMAL)
        ctx.set_font_size(0.5)
        for line in lines:
            ctx.move_to(1, y)
            ctx.show_text(line)
            y += 1
    surface.show_page()


def _draw_chunk(items, primer: tuple | None = None, fast_text: bool = True, roots: tuple[str, ...] = (),
                game_fonts: tuple | None = None):
    """Draw (key, svg, (w_mm, h_mm)) faces as the pages of one PDF (after the primer page
    when `primer` is given).

    Returns (pdf bytes, keys drawn (None for the primer page), problems as (key, message)).
    """
    _use_text_drawer(fast_text)
    fonts = _fontset(game_fonts)
    fetcher = ArtFetcher(roots)
    out = io.BytesIO()
    surface = cairo.PDFSurface(out, 100, 100)
    surface.set_metadata(cairo.PDF_METADATA_CREATE_DATE, CREATE_DATE)
    surface.set_metadata(cairo.PDF_METADATA_CREATOR, "pnp")
    keys, problems, sizes = [], [], []
    if primer is not None:
        _draw_primer(surface, primer)
        keys.append(None)
        sizes.append(None)
    for key, svg, size_mm in items:
        if isinstance(svg, bytes):  # SVGTexts.packed
            svg = zlib.decompress(svg).decode()
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
            sizes.append(started[0])
            continue
        if started:  # the failure came mid-drawing: close that page so the next face starts clean
            surface.show_page()
            keys.append(None)
            sizes.append(None)
    surface.finish()
    return _exact_pages(out.getvalue(), sizes), keys, problems


def _fontset(game_fonts: tuple | None):
    """The fonts faces may use: shipped, plus a game's own ((templates dir, as shown) or None)."""
    return for_game(Path(game_fonts[0]), game_fonts[1]) if game_fonts else shipped()


def draw_faces(svgs: dict[str, str], sizes: dict | None = None, roots: tuple[str, ...] = (),
               cache=None, progress=None, game_fonts: tuple | None = None) -> FacesPDF:
    """Draw every face; `sizes` (key -> (w, h) mm) are checked, `roots` are where <image> may read,
    `game_fonts` is (templates dir, as shown) of a game with fonts of its own.

    :param cache: a `FaceCache`: bundles found there are not drawn; bundles drawn without
        problems are stored.
    :param progress: called as progress(bundles to draw, all bundles); returns a context
        manager yielding advance(n), called once per bundle drawn (see progress.py).
    """
    from .drawpool import draw_bundles

    from .rendermemo import MEMO

    sizes = sizes or {}
    own = _game_fonts_digest(game_fonts)
    draw_keys = {k: draw_key(svgs, k, sizes.get(k), roots, own) for k in svgs}
    facts = ((MEMO.derived(("face facts", k), lambda k=k: face_facts(svgs[k])) for k in svgs)
             if isinstance(svgs, SVGTexts) else None)  # one face at a time: not held unless watching
    primer_page = primer(svgs.values(), _fontset(game_fonts), facts)
    bundles = plan_bundles(svgs, draw_keys, sizes, SALT + repr(primer_page))
    n_bundles = len(bundles)
    results: list = [None] * n_bundles   # (bytes, or the cache key once stored; keys drawn; problems)
    if cache is not None:
        for i, (bkey, group) in enumerate(bundles):
            if cache.get(bkey) is not None:
                results[i] = (bkey, [None] + [k for k, _, _ in group], [])
    todo = [i for i, r in enumerate(results) if r is None]
    with (progress(len(todo), n_bundles) if progress else nullcontext(lambda n=1: None)) as advance:
        for i, (data, keys, found) in zip(todo, draw_bundles([bundles[i][1] for i in todo], primer_page, roots,
                                                              game_fonts)):
            if cache is not None and not found and None not in keys[1:]:
                cache.put(bundles[i][0], data)
                data = bundles[i][0]  # read back from the cache when laid out: not held in memory
            results[i] = (data, keys, found)
            advance(1)
    page_of, problems = {}, []
    for doc, (_, keys, found) in enumerate(results):
        page_of.update({k: (doc, page) for page, k in enumerate(keys) if k is not None})
        problems.extend(found)
    return FacesPDF(Bundles(cache, [r[0] for r in results]), page_of, tuple(problems), draw_keys, len(todo))
