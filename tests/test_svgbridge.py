"""The CairoSVG bridge: every internal of CairoSVG pnp relies on, checked one by one, so that
an upgrade that breaks one fails here, by name, before any card is drawn wrong."""
from __future__ import annotations

import inspect
import io

import cairocffi as cairo
import cairosvg
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


def test_text_is_told_apart_through_the_module_globals_the_bridge_swaps():
    draw = inspect.getsource(cairosvg.surface.Surface.draw)
    assert "TAGS[node.tag](self, node)" in draw
    assert "TAGS[node.tag] == text" in draw and "text(self, node, draw_as_text=True)" in draw
    assert cairosvg.surface.TAGS["text"] is cairosvg.text.text is cairosvg.surface.text
    assert list(inspect.signature(cairosvg.text.text).parameters) == ["surface", "node", "draw_as_text"]


def test_drawing_swaps_the_text_drawer_only_while_it_runs():
    with svgbridge.drawing():
        assert cairosvg.surface.TAGS["text"] is svgbridge._text_once is cairosvg.surface.text
        assert cairosvg.surface.TAGS["tspan"] is svgbridge._text_once
    assert cairosvg.surface.TAGS["text"] is cairosvg.text.text is cairosvg.surface.text
    try:
        with svgbridge.drawing():
            raise RuntimeError("a face failed")
    except RuntimeError:
        pass
    assert cairosvg.surface.TAGS["tspan"] is cairosvg.text.text  # put back whatever happens


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
