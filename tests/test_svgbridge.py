"""The CairoSVG bridge: every internal of CairoSVG pnp relies on, checked one by one, so that
an upgrade that breaks one fails here, by name, before any card is drawn wrong."""
from __future__ import annotations

import inspect
import io

import cairocffi as cairo
import cairosvg
import cairosvg.defs
import cairosvg.helpers
import cairosvg.surface
import cairosvg.text
import pypdfium2 as pdfium
import pytest

from generator.draw import svgbridge

FACE = ('<svg xmlns="http://www.w3.org/2000/svg" width="30mm" height="20mm" viewBox="0 0 30 20">'
        '<rect width="30" height="20" fill="#08f"/><text x="2" y="12" font-family="Lato" font-size="5">Hi</text></svg>')


def test_cairosvg_is_a_version_the_bridge_was_tested_with():
    assert cairosvg.__version__ in svgbridge.TESTED, (
        f"CairoSVG {cairosvg.__version__} is not one the bridge was tested with ({svgbridge.TESTED}): "
        "re-check every internal named in generator/draw/svgbridge.py, then add the version")


def test_pdf_surface_creates_its_cairo_surface_through_create_surface():
    init = inspect.getsource(cairosvg.surface.Surface.__init__)
    assert "self._create_surface(" in init, "Surface.__init__ no longer calls _create_surface"
    params = list(inspect.signature(cairosvg.surface.PDFSurface._create_surface).parameters)
    assert params == ["self", "width", "height"]
    assert "def finish(self)" in inspect.getsource(cairosvg.surface.Surface)


def test_elements_are_dispatched_through_the_tags_table_after_their_transform_clip_and_opacity():
    """`<pnp:text>` is drawn by pnp's entry in CairoSVG's TAGS: Surface.draw must look every
    node up there (namespaced tags as '{uri}local'), after applying transform, clip, mask
    and group opacity, and fill/stroke the path left behind only afterwards."""
    draw = inspect.getsource(cairosvg.surface.Surface.draw)
    order = [draw.index(s) for s in ("transform(", "push_group()", "clip_path = ", "TAGS[node.tag](self, node)",
                                     "fill_preserve()")]
    assert order == sorted(order), "Surface.draw no longer calls the drawer after transform, opacity and clip"
    assert "if node.tag in TAGS:" in draw
    from cairosvg.parser import Tree
    tree = Tree(bytestring=b'<svg xmlns="http://www.w3.org/2000/svg"><pnp:text xmlns:pnp="urn:pnp:text" x="1">a\n\nb'
                           b"</pnp:text></svg>")
    assert tree.children[0].tag == svgbridge.TEXT_TAG
    assert tree.children[0].text == "a\n\nb", "the element's text reaches the drawer as written (paragraphs)"
    for name in ("paint", "size"):
        assert callable(getattr(cairosvg.helpers, name))
    assert list(inspect.signature(cairosvg.defs.gradient_or_pattern).parameters) == ["surface", "node", "name",
                                                                                    "opacity"]


def test_drawing_adds_the_text_drawer_only_while_it_runs_and_leaves_cairosvgs_own():
    own = dict(cairosvg.surface.TAGS)
    with svgbridge.drawing():
        assert cairosvg.surface.TAGS[svgbridge.TEXT_TAG] is svgbridge._draw_text
        assert cairosvg.surface.TAGS["text"] is cairosvg.text.text is cairosvg.surface.text  # CairoSVG's own
    assert cairosvg.surface.TAGS == own
    try:
        with svgbridge.drawing():
            raise RuntimeError("a face failed")
    except RuntimeError:
        pass
    assert svgbridge.TEXT_TAG not in cairosvg.surface.TAGS  # taken out whatever happens


def test_pango_text_is_drawn_under_the_transform_clip_and_opacity_of_its_group():
    from generator.draw.bundlepdf import draw_bundle
    from generator.draw.fonts import shipped
    from generator.draw.textfit import TextSetter
    text = TextSetter(shipped(), {}).svg("Hook check", x=0, y=0, w=40, h=10, size=5)
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="100mm" height="50mm" viewBox="0 0 100 50">'
           '<defs><clipPath id="c"><rect x="30" y="20" width="60" height="20"/></clipPath></defs>'
           f'<g clip-path="url(#c)"><g transform="translate(30 20)" opacity="0.5">{text}</g></g>'
           '<rect x="30" y="20" width="3" height="3" fill="#f00"/></svg>')
    pdf, keys, problems, _ = draw_bundle([("k", svg, (100, 50))])
    assert not problems
    page = pdfium.PdfDocument(pdf)[0]
    tp = page.get_textpage()
    assert tp.get_text_range().strip() == "Hook check"
    left, bottom, right, top = tp.get_charbox(0)
    mm = 25.4 / 72
    assert abs(left * mm - 30) < 1.0, left * mm            # x: translate(30) + the box's x 0
    assert 20 < (page.get_height() - top) * mm < 22.5       # y: translate(20) + half the leading
    image = page.render(scale=4).to_pil().convert("RGB")
    inked = [image.getpixel((x, y)) for x in range(int(31 / mm * 4), int(55 / mm * 4))
             for y in range(int(21 / mm * 4), int(25 / mm * 4))]
    darkest = min(sum(p) for p in inked)
    assert 250 < darkest < 500, "black text at opacity 0.5 is mid grey"
    stem = image.getpixel((round(30.5 / mm * 4), round(22 / mm * 4)))   # where the H's stem is
    assert stem == (255, 0, 0), "the square drawn after the text lies above it (z-order)"


def test_faces_are_drawn_onto_the_pages_of_one_shared_pdf():
    out = io.BytesIO()
    deck = cairo.PDFSurface(out, 100, 100)
    for _ in range(2):
        started: list = []
        svgbridge.draw_page(deck, svgbridge.parse(FACE.encode(), None), (30 * 72 / 25.4, 20 * 72 / 25.4), started)
        assert started == [pytest.approx((30 * 72 / 25.4, 20 * 72 / 25.4))]
        deck.show_page()
    deck.finish()
    pdf = pdfium.PdfDocument(out.getvalue())
    assert len(pdf) == 2
    assert [round(v) for v in pdf[1].get_size()] == [svgbridge.whole(30 * 72 / 25.4), svgbridge.whole(20 * 72 / 25.4)]
    assert "Hi" in pdf[1].get_textpage().get_text_range()


def test_a_face_of_the_wrong_size_is_refused_before_it_is_drawn():
    deck = cairo.PDFSurface(io.BytesIO(), 100, 100)
    try:
        svgbridge.draw_page(deck, svgbridge.parse(FACE.encode(), None), (50.0, 50.0), [])
    except svgbridge.WrongSize as exc:
        assert abs(exc.args[0] - 30 * 72 / 25.4) < 1e-6
    else:
        raise AssertionError("a 30 x 20 mm face passed as 50 x 50 pt")


def test_data_urls_are_decoded_as_cairosvg_decodes_them():
    assert svgbridge.fetch_data_url("data:text/plain;base64,SGk=", "image") == b"Hi"


# ---- pictures: _draw_image follows CairoSVG's image() -----------------------------------

def test_raster_pictures_are_drawn_through_the_image_entry_of_tags():
    import cairosvg.image

    assert cairosvg.surface.TAGS["image"] is cairosvg.image.image
    assert list(inspect.signature(cairosvg.image.image).parameters) == ["surface", "node"]
    with svgbridge.drawing(pictures=object()):
        assert cairosvg.surface.TAGS["image"].func is svgbridge._draw_image
    assert cairosvg.surface.TAGS["image"] is cairosvg.image.image   # put back
    try:
        with svgbridge.drawing(pictures=object()):
            raise RuntimeError("a face failed")
    except RuntimeError:
        pass
    assert cairosvg.surface.TAGS["image"] is cairosvg.image.image


def test_cairosvg_image_still_has_the_geometry_the_bridge_copies():
    """_draw_image repeats these steps of image(); a change to any of them must be looked at."""
    import cairosvg.helpers
    import cairosvg.image
    import cairosvg.parser

    source = inspect.getsource(cairosvg.image.image)
    for step in ("base_url = node.get('{http://www.w3.org/XML/1998/namespace}base')",
                 "url = parse_url(node.get_href(), base_url)", "image_bytes = node.fetch_url(url, 'image/*')",
                 "if len(image_bytes) < 5:", "x, y = size(surface, node.get('x'), 'x'), size(surface, node.get('y'), 'y')",
                 "not surface.map_image", "IMAGE_RENDERING.get(\n        node.get('image-rendering'), cairo.FILTER_GOOD)",
                 "node.image_width = image_surface.get_width()", "width = width or node.image_width",
                 "preserve_ratio(\n        surface, node, width, height)", "surface.context.rectangle(x, y, width, height)",
                 "opacity = float(node.get('opacity', 1))", "surface.context.scale(scale_x, scale_y)",
                 "surface.context.translate(translate_x, translate_y)", "surface.context.paint_with_alpha(opacity)"):
        assert step in source, f"CairoSVG's image() changed: {step!r}"
    assert list(inspect.signature(cairosvg.helpers.preserve_ratio).parameters) == ["surface", "node", "width", "height"]
    assert "node.image_width, node.image_height" in inspect.getsource(cairosvg.helpers.preserve_ratio)
    assert list(inspect.signature(cairosvg.helpers.size).parameters)[:3] == ["surface", "string", "reference"]
    assert list(inspect.signature(cairosvg.url.parse_url).parameters) == ["url", "base"]
    assert set(cairosvg.image.IMAGE_RENDERING) == {"optimizeQuality", "optimizeSpeed"}
    assert hasattr(cairosvg.parser.Node, "get_href") and hasattr(cairosvg.parser.Node, "fetch_url")
    assert "self.map_image = map_image" in inspect.getsource(cairosvg.surface.Surface.__init__)


@pytest.mark.parametrize("placement", [
    'x="3" y="2" width="24" height="16"',                                             # meet, its own shape
    'x="0" y="5" width="30" height="10"',                                             # meet, centred across
    'x="3" y="2" width="24" height="10" preserveAspectRatio="xMidYMid slice"',        # sliced, clipped
    'x="1" y="1" width="10" height="18" preserveAspectRatio="xMinYMax meet"',
    'x="0" y="0" width="30" height="20" preserveAspectRatio="none" opacity="0.5"',
    'x="2" y="2" width="12" height="9" transform="rotate(20 8 6) scale(1.3)"',
    'x="5" y="4"',                                                                    # its own size, in px
])
def test_pictures_land_where_cairosvgs_own_drawer_puts_them(tmp_path, placement):
    from PIL import Image, ImageChops

    from generator.draw.picturedraw import Pictures

    picture = Image.linear_gradient("L").resize((90, 60)).convert("RGB")
    picture.paste((200, 30, 30), (10, 10, 40, 30))
    (tmp_path / "p.png").write_bytes(_png(picture))
    face = FACE.replace('<text', f'<image href="p.png" {placement}/><text')
    cairosvg_own, pnp = _both_drawers(face, tmp_path, Pictures())
    diff = ImageChops.difference(cairosvg_own, pnp)
    assert max(high for _, high in diff.getextrema()) <= 8, "the picture moved"


def _both_drawers(face: str, folder, pictures) -> list:
    """The face drawn with CairoSVG's own picture drawer, then with pnp's (`pictures`): both
    pages rendered at 4 px a point."""
    from generator.draw.art import ArtFetcher

    drawn = []
    for using in (None, pictures):
        out = io.BytesIO()
        deck = cairo.PDFSurface(out, 100, 100)
        with svgbridge.drawing(pictures=using):
            svgbridge.draw_page(deck, svgbridge.parse(face.encode(), ArtFetcher((str(folder),))), None, [])
        deck.show_page()
        deck.finish()
        pdf = out.getvalue() if using is None else _spliced(out.getvalue(), using)
        drawn.append(pdfium.PdfDocument(pdf)[0].render(scale=4).to_pil().convert("RGB"))
    return drawn


def _png(image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _spliced(pdf: bytes, pictures) -> bytes:
    from generator.draw.bundlepdf import exact_pages
    return exact_pages(pdf, [None], pictures)


def test_pictures_in_patterns_and_masks_are_drawn_as_cairosvg_draws_them(tmp_path):
    """CairoSVG draws a pattern or a mask on a surface of its own: the picture is painted
    there with its pixels, at full resolution, as CairoSVG's own drawer paints it."""
    from PIL import Image, ImageChops

    from generator.draw.picturedraw import Pictures

    picture = Image.linear_gradient("L").resize((90, 60)).convert("RGB")
    picture.paste((30, 200, 30), (50, 10, 80, 40))
    (tmp_path / "p.png").write_bytes(_png(picture))
    (tmp_path / "m.png").write_bytes(_png(picture.convert("L")))
    face = FACE.replace('<text', '<defs><pattern id="t" width="10" height="8" patternUnits="userSpaceOnUse">'
                        '<image href="p.png" width="10" height="8" preserveAspectRatio="none"/></pattern>'
                        '<mask id="m"><image href="m.png" width="30" height="20" preserveAspectRatio="none"/></mask>'
                        '</defs><rect width="30" height="20" fill="url(#t)"/>'
                        '<rect x="15" width="15" height="20" fill="#00f" mask="url(#m)"/><text')
    pictures = Pictures()
    cairosvg_own, pnp = _both_drawers(face, tmp_path, pictures)
    assert pictures.end_face() == ((), ())   # sizes on the page unknown there: no warning either way
    diff = ImageChops.difference(cairosvg_own, pnp)
    assert max(high for _, high in diff.getextrema()) <= 8


def test_colours_are_read_as_cairosvg_paints_them():
    assert svgbridge.colour("#ff8000") == (1.0, 128 / 255, 0.0, 1)
    assert svgbridge.colour("gold")[:3] == (1.0, 215 / 255, 0.0)
    assert svgbridge.colour("rgb(0, 51, 255)")[:3] == (0.0, 0.2, 1.0)
    assert svgbridge.colour("none")[3] == 0


def test_the_readers_drawing_remembers_are_cairosvgs_pure_readers_bound_where_the_bridge_binds_them():
    """`drawing()` binds a remembering copy of normalize, parse_url and color in the modules that
    bind them by name, and a plain copy of the text cursor as cairosvg.surface's `copy`: an
    upgrade that moves a reader, or copies anything else with `copy`, fails here."""
    import copy
    import re
    import sys

    import cairosvg.colors
    import cairosvg.url

    own = {"normalize": cairosvg.helpers.normalize, "parse_url": cairosvg.url.parse_url, "color": cairosvg.colors.color}
    assert svgbridge._OWN == own
    drawn_by = {m.__name__: sorted(n for n, f in own.items() if getattr(m, n, None) is f)
                for m in svgbridge._READER_MODULES}
    assert drawn_by == {"cairosvg.helpers": ["normalize", "parse_url"],
                        "cairosvg.surface": ["color", "normalize", "parse_url"],
                        "cairosvg.path": ["normalize", "parse_url"], "cairosvg.shapes": ["normalize"],
                        "cairosvg.text": ["normalize", "parse_url"], "cairosvg.bounding_box": ["normalize", "parse_url"],
                        "cairosvg.defs": ["parse_url"], "cairosvg.image": ["parse_url"]}
    others = {name for name, m in sys.modules.items() if name.startswith("cairosvg") and m not in svgbridge._READER_MODULES
              and any(getattr(m, n, None) is f for n, f in own.items())}
    assert others == {"cairosvg.colors", "cairosvg.url", "cairosvg.css", "cairosvg.parser"}   # parsing, not drawing
    for reader in own.values():   # pure: no state but the module's constants
        source = inspect.getsource(reader)
        assert "global " not in source and "self" not in source
    assert "os.path.is" in inspect.getsource(cairosvg.url.parse_url)   # why a URL with a base is not remembered
    surface = inspect.getsource(cairosvg.surface)
    assert re.findall(r"\bcopy\.\w+\(", surface) == ["copy.deepcopy("]
    assert ("save_cursor = copy.deepcopy(\n            (self.cursor_position, self.cursor_d_position,\n"
            "             self.text_path_width))") in surface
    with svgbridge.drawing():
        assert cairosvg.surface.normalize is svgbridge._normalize and cairosvg.surface.copy is svgbridge._CursorCopy
        assert cairosvg.helpers.size(None, "3") == 3.0
    assert cairosvg.surface.normalize is cairosvg.helpers.normalize and cairosvg.surface.copy is copy
    cursor = ([1, 2.5], (0, 0), 0)
    copied = svgbridge._CursorCopy.deepcopy(cursor)
    assert copied == cursor and copied[0] is not cursor[0]
