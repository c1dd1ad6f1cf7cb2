"""One bundle of faces drawn as the pages of one PDF.

In: (face key, SVG, size) for each face of a bundle, the primer (see `primer`), the
folders its pictures may come from, how pictures are embedded (`pictures.Policy`) and a
game's own fonts. Out: (PDF bytes, the face key of each page, problems as (face key,
message), the pictures each face places). Every bundle first draws a *primer* page
(the game's characters plus printable ASCII in every font style the faces use; never
placed) so that all bundles of a game embed identical font subsets, which layout stores
once (forms.py). Faces are drawn straight onto the next page (svgbridge.py), their
pictures as picturedraw.py prepares them.
"""
from __future__ import annotations

import html
import io
import re
import zlib
from pathlib import Path

import cairocffi as cairo

from ..guard import FACE_SECONDS, Deadline, TimeLimit
from . import pangobridge, svgbridge
from .art import ArtFetcher, ImageNotFound
from .fonts import GENERIC, for_game, shipped
from .glyphs import check_glyphs
from .picturedraw import Pictures
from .pictures import PictureError, Policy
from .textfit import engine_for, spec_of

CREATE_DATE = "2000-01-01T00:00:00Z"  # fixed, so the same input gives the same bytes
_ROOT_TAG = re.compile(r"<svg\b[^>]*>")
_TEXT = re.compile(r">([^<]+)<")
_FAMILY = re.compile(r"""font-family\s*[=:]\s*["']?([^"';>]+)""")
_FONT_TAG = re.compile(r"""<[a-z]+\s[^>]*font-family[^>]*>""")
_WEIGHT = re.compile(r"""font-weight\s*[=:]\s*["']?([a-z0-9]+)""")
_SLANT = re.compile(r"""font-style\s*[=:]\s*["']?([a-z]+)""")
_PANGO_TEXT = re.compile(r"<pnp:text\b([^>]*)>([^<]*)</pnp:text>")
_ATTRIBUTE = re.compile(r"""([a-z-]+)=(?:"([^"]*)"|'([^']*)')""")


def exact_pages(pdf: bytes, sizes: list, pictures: Pictures | None = None) -> bytes:
    """Each face page's MediaBox made the face's exact size: [0, H - h, w, H] on a page
    cairo made W x H whole points, the face drawn from its top-left corner (see
    `svgbridge.page_drawer`). `sizes` has (w, h) pt per page, None for pages left alone.
    In the same pass, the stubs of lossless pictures get their streams (`pictures.splice`)."""
    import pikepdf

    whole = svgbridge.whole
    stubs = pictures is not None and pictures.stubs
    if not stubs and all(size is None or (whole(size[0]) == size[0] and whole(size[1]) == size[1])
                         for size in sizes):
        return pdf
    with pikepdf.open(io.BytesIO(pdf)) as doc:
        for page, size in zip(doc.pages, sizes):
            if size is not None:
                top = float(page.mediabox[3])
                page.mediabox = pikepdf.Array([0, round(top - size[1], 6), round(size[0], 6), top])
        if stubs and pictures is not None:
            pictures.splice(doc)
        out = io.BytesIO()
        doc.save(out, deterministic_id=True, compress_streams=True)
    return out.getvalue()


def _unhinted(svg: str) -> str:
    """Text positions must come from unhinted metrics (what pnp measures): CairoSVG hints
    them unless told `text-rendering="geometricPrecision"`; add it to the root if absent."""
    head = _ROOT_TAG.search(svg)
    if head and "text-rendering" not in head.group(0):
        return svg[:head.end() - 1] + ' text-rendering="geometricPrecision"' + svg[head.end() - 1:]
    return svg


def primer(svgs, fonts=None, facts=None) -> tuple:
    """What page 0 of every bundle draws: (styles, characters, clusters): the characters of
    all the faces' plain `<text>` (and printable ASCII) in every font style those ask for
    (family, weight and slant written on one element) and the default, sans-serif; and every
    glyph cluster the faces' Pango text draws, font by font (the shaped glyphs: ligatures,
    Arabic forms, small capitals), each with its text, and in each of those fonts printable
    ASCII and the common ligatures. Every bundle then holds the same
    glyphs of the same fonts in the same order: identical font streams, stored once in the
    sheets. (A style only inherited from a parent element is not primed: its font is then
    stored once per bundle, correct but larger.) `facts` gives each face's `face_facts`
    (remembered while watching); default: worked out from `svgs`."""
    fonts = fonts or shipped()
    used = {("sans-serif", False, False)}
    chars = {chr(c) for c in range(33, 127)}
    clusters: dict[str, set] = {}
    for styles, text, shaped in (facts if facts is not None else (face_facts(svg, fonts) for svg in svgs)):
        used.update(styles)
        chars.update(text)
        for font, found in shaped:
            clusters.setdefault(font, set()).update(found)
    if clusters:   # printable ASCII and the common ligatures in every font the Pango text uses, like the
        engine = engine_for(fonts)   # plain text's styles: an edit seldom brings a glyph the game never had
        for font, found in clusters.items():
            found.update(engine.common_clusters(font))
    styles = sorted(s for s in {(n, b, f.italic) for f in fonts.faces for n, b in f.aliases}
                    | {(g, b, i) for g in GENERIC for b in (False, True) for i in (False, True)}
                    if (s[0].lower(), s[1], s[2]) in used)
    return (tuple(styles), "".join(sorted(c for c in chars if not c.isspace() and c.isprintable())),
            tuple((font, tuple(sorted(found))) for font, found in sorted(clusters.items())))


def face_facts(svg: str, fonts=None) -> tuple[frozenset, frozenset, tuple]:
    """The font styles (family, bold, italic) one face's plain text elements ask for, the
    characters of their text, and the glyph clusters of its Pango text, by font."""
    used = set()
    shaped: dict[str, set] = {}
    if "<pnp:text" in svg:
        engine = engine_for(fonts or shipped())
        for attributes, text in _PANGO_TEXT.findall(svg):
            found = {k: html.unescape(a or b) for k, a, b in _ATTRIBUTE.findall(attributes)}
            spec = spec_of(found, html.unescape(text))
            for font, cluster, glyphs in engine.clusters(spec):
                shaped.setdefault(font, set()).add((cluster, glyphs))
        svg = _PANGO_TEXT.sub("", svg)
    for tag in _FONT_TAG.findall(svg):
        named = _FAMILY.search(tag)
        if named is None:   # "font-family" in another attribute's value: the tag sets no font
            continue
        family = named.group(1).split(",")[0].strip().strip("'\"").lower()
        weight = _value(_WEIGHT, tag)
        bold = weight in ("bold", "bolder") or (weight.isdigit() and int(weight) >= 550)
        used.add((family, bold, _value(_SLANT, tag) in ("italic", "oblique")))
    chars: set[str] = set()
    for text in _TEXT.findall(svg):
        chars.update(html.unescape(text) if "&" in text else text)
    return frozenset(used), frozenset(chars), tuple((f, frozenset(c)) for f, c in sorted(shaped.items()))


def _value(pattern: re.Pattern[str], tag: str) -> str:
    """The weight or slant a tag sets; "normal" (the default of both) when it sets none."""
    found = pattern.search(tag)
    return found.group(1) if found else "normal"


class Facts:
    """The `face_facts` of many faces, merged as they come (what the primer page needs)."""

    def __init__(self):
        self.styles, self.chars, self.shaped = set(), set(), {}

    def add(self, facts: tuple) -> None:
        styles, chars, shaped = facts
        self.styles.update(styles)
        self.chars.update(chars)
        for font, found in shaped:
            self.shaped.setdefault(font, set()).update(found)

    def merged(self) -> tuple:
        return (frozenset(self.styles), frozenset(self.chars),
                tuple((font, frozenset(found)) for font, found in sorted(self.shaped.items())))


def _draw_primer(surface: cairo.PDFSurface, primer: tuple, engine) -> None:
    """Draw the primer page: the plain text's characters with the font requests and font
    options CairoSVG makes for text (text-rendering="geometricPrecision"), so cairo maps them
    to the same fonts; then each font's glyph clusters with the same Pango fonts the faces
    use. Every glyph lies on the page: cairo leaves out what falls outside it."""
    styles, chars, clusters = primer
    lines = [chars[i:i + 64] for i in range(0, len(chars), 64)] or [""]
    rows = [(font, found[i:i + 32]) for font, found in clusters for i in range(0, len(found), 32)]
    surface.set_size(100, 2 + len(styles) * len(lines) + len(rows))
    ctx = cairo.Context(surface)
    ctx.set_font_options(pangobridge.text_font_options())
    y = 1.0
    for name, bold, italic in styles:
        ctx.select_font_face(name, cairo.FONT_SLANT_ITALIC if italic else cairo.FONT_SLANT_NORMAL,
                             cairo.FONT_WEIGHT_BOLD if bold else cairo.FONT_WEIGHT_NORMAL)
        ctx.set_font_size(0.5)
        for line in lines:
            ctx.move_to(1, y)
            ctx.show_text(line)
            y += 1
    fonts = {}
    for font, found in rows:
        if font not in fonts:
            fonts[font] = engine.fonts.load_font(font)
        ctx.save()
        ctx.translate(1, y)
        ctx.scale(0.05, 0.05)   # Pango's nominal size 10 drawn at half a point
        ctx.move_to(0, 0)
        pangobridge.show_clusters(ctx, fonts[font], found, 5.0)
        ctx.restore()
        y += 1
    surface.show_page()


def draw_bundle(items, primer: tuple | None = None, roots: tuple[str, ...] = (),
                game_fonts: tuple | None = None, face_seconds: float | None = FACE_SECONDS,
                policy: Policy | None = None, memo=None):
    """Draw (key, svg, (w_mm, h_mm)) faces as the pages of one PDF (after the primer page
    when `primer` is given); a face that takes longer than `face_seconds` to draw is
    stopped, and named in the problems. Pictures are embedded as `policy` says
    (picturedraw.py), prepared ones taken from `memo` (a session's) when there.

    Returns (pdf bytes, keys drawn (None for the primer page), problems as (key, message),
    {face key: (picture placements, remarks)} of the faces that show pictures).
    """
    pictures = Pictures(policy, memo)
    with svgbridge.drawing(pictures):
        return _draw_pages(items, primer, fontset(game_fonts), ArtFetcher(roots),
                           Deadline(face_seconds, "drawing the face"), pictures)


def _draw_pages(items, primer, fonts, fetcher, deadline: Deadline, pictures: Pictures):
    text = engine_for(fonts)
    out = io.BytesIO()
    surface = cairo.PDFSurface(out, 100, 100)
    surface.set_metadata(cairo.PDF_METADATA_CREATE_DATE, CREATE_DATE)
    surface.set_metadata(cairo.PDF_METADATA_CREATOR, "pnp")
    keys: list[str | None] = []                  # each page's face, None for the primer and broken pages
    sizes: list[tuple[float, float] | None] = []  # each page's (w, h) pt, None to leave it
    problems: list[tuple[str, str]] = []
    shown: dict[str, tuple] = {}
    if primer is not None:
        _draw_primer(surface, primer, text)
        keys.append(None)
        sizes.append(None)
    for key, svg, size_mm in items:
        if isinstance(svg, bytes):  # SVGTexts.packed
            svg = zlib.decompress(svg).decode()
        try:
            tree = svgbridge.parse(_unhinted(svg).encode(), fetcher)
        except Exception as exc:  # the XML parser's own errors: a template produced bad SVG
            problems.append((key, f"template produced invalid SVG: {exc}"))
            continue
        problems.extend((key, m) for m in check_glyphs(tree, fonts))
        expected = tuple(v * 72 / 25.4 for v in size_mm) if size_mm else None
        started: list = []
        pictures.begin_face()
        try:
            with deadline.running():
                svgbridge.draw_page(surface, tree, expected, started, text)
        except svgbridge.WrongSize as exc:
            w, h = (v * 25.4 / 72 for v in exc.args)
            problems.append((key, f"the face is drawn {w:.2f} x {h:.2f} mm but must be {size_mm[0]:g} x "
                                  f"{size_mm[1]:g} mm (trim plus bleed): give the root <svg> "
                                  f'width="{{{{ deck.width }}}}mm" height="{{{{ deck.height }}}}mm"'))
        except (ImageNotFound, PictureError, TimeLimit) as exc:
            problems.append((key, str(exc)))
        except RecursionError:
            problems.append((key, "cannot draw the face: an element refers to itself (<use> loop?)"))
        except Exception as exc:  # anything CairoSVG, cairo or Pillow refuse in what a template drew
            problems.append((key, f"cannot draw the face: {type(exc).__name__}: {exc}"))
        else:
            surface.show_page()
            keys.append(key)
            sizes.append(started[0])
            placed, notes = pictures.end_face()
            if placed or notes:
                shown[key] = (placed, notes)
            continue
        if started:  # the failure came mid-drawing: close that page so the next face starts clean
            surface.show_page()
            keys.append(None)
            sizes.append(None)
    surface.finish()
    return exact_pages(out.getvalue(), sizes, pictures), keys, problems, shown


def fontset(game_fonts: tuple | None):
    """The fonts faces may use: shipped, plus a game's own ((templates dir, as shown) or None)."""
    return for_game(Path(game_fonts[0]), game_fonts[1], game_fonts[2:] == ("system",)) if game_fonts else shipped()
