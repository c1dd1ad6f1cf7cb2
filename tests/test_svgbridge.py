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
    pdf, keys, problems = draw_bundle([("k", svg, (100, 50))])
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
