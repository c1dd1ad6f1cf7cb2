"""The Pango bridge: every declaration and struct layout pnp adds to pangocffi and
pangocairocffi, checked against what Pango really does, so that an upgrade of Pango or of
the bindings that breaks one fails here, by name."""
from __future__ import annotations

from importlib.metadata import version

import cairocffi

from generator.draw import pangobridge as pb
from generator.draw.fonts import shipped
from generator.draw.textfit import TextSetter


def engine():
    return TextSetter(shipped(), {}).engine


def test_the_bindings_are_versions_the_bridge_was_checked_with():
    for name, tested in pb.TESTED.items():
        assert version(name) in tested, (
            f"{name} {version(name)} is not one pangobridge.py was checked with ({tested}): re-check its "
            "EXTRA_CDEF and struct mirrors against the new bindings, then add the version")
    have = tuple(int(v) for v in pb.versions()["pango"].split(".")[:2])
    assert have >= pb.PANGO_AT_LEAST


def test_the_font_map_is_fontconfigs_with_a_private_configuration():
    e = engine()
    kind = pb.ffi.string(pb.gobj.g_type_name_from_instance(e.fonts.pointer))
    assert kind == b"PangoCairoFcFontMap"
    for family, expected in (("Nimbus Sans", "DejaVuSans.ttf"), ("sans-serif", "Lato-Regular.ttf"),
                             ("Noto Sans Arabic", "NotoSansArabic-Regular.ttf")):
        font = e.fonts.load_font(f"{family} 10")
        path = pb.font_file(font)
        assert path.endswith(expected) and "/usr/share/fonts" not in path, (family, path)


def test_item_and_glyph_string_mirrors_read_real_runs():
    """PnpItem (analysis held by value) and PnpGlyphString: a wrong layout gives garbage
    fonts or glyph counts."""
    e = engine()
    laid = e.laid(TextSetter(shipped(), {}).spec("AV fi 日本", w=100, size=5))
    runs = pb.runs(laid.layout)
    files = [pb.font_file(pb.run_font(r)) for r in runs]
    assert files[0].endswith("Lato-Regular.ttf") and files[-1].endswith("NotoSansCJKjp-Regular.otf")
    glyphs = [g for r in runs for g in pb.glyphs(r)]
    assert len(glyphs) == 7                                   # A V space fi-ligature space 日 本
    assert all(0 < g < 20000 and 0 < adv < 20 * pb.SCALE for g, adv, _, _ in glyphs)
    clusters = pb.clusters(laid.layout, laid.text)
    assert (b"fi", (pb.glyphs(runs[0])[3][0],)) in [(t, g) for _, t, g in clusters]


def test_log_attribute_and_line_mirrors_find_legal_line_starts():
    e = engine()
    spec = TextSetter(shipped(), {}).spec("one two three four five six", w=12, size=5, hyphenate=False)
    laid = e.laid(spec)
    lines = pb.lines(laid.layout)
    breaks = pb.line_breaks(laid.layout)
    assert len(lines) >= 3 and len(breaks) == len(laid.text.decode()) + 1
    assert all(breaks[laid.char_at[start]] for start, _, _ in lines[1:])
    assert [laid.text[s:s + 3] for s, _, _ in lines[:2]] == [b"one", b"two"]
    assert breaks[0] is False and breaks[4] is True and breaks[5] is False   # before 't' of two, not inside it


def test_characters_no_font_has_come_back_as_unknown_glyphs():
    e = engine()
    laid = e.laid(TextSetter(shipped(), {}).spec("a\ue000b", w=100, size=5))
    assert pb.unknown_characters(laid.layout) == ["\ue000"]


def test_clusters_are_drawn_with_their_text():
    e = engine()
    font = e.fonts.load_font("Lato 10")
    laid = e.laid(TextSetter(shipped(), {}).spec("office", w=100, size=5, hyphenate=False))
    found = [(t, g) for _, t, g in pb.clusters(laid.layout, laid.text)]
    import io
    out = io.BytesIO()
    surface = cairocffi.PDFSurface(out, 100, 20)
    ctx = cairocffi.Context(surface)
    ctx.move_to(5, 10)
    pb.show_clusters(ctx, font, found, 5.0)
    surface.finish()
    import pypdfium2 as pdfium
    assert pdfium.PdfDocument(out.getvalue())[0].get_textpage().get_text_range() == "office"


def test_line_boxes_and_show_line_place_each_line_of_a_layout():
    """The rulebook's Pango text (rulebook/pangobook.py) draws a piece of a paragraph line by
    line: line_boxes must give each line's top, baseline and bottom in order, and show_line
    draw the very line asked for (its text read back from the PDF)."""
    import io

    import pypdfium2 as pdfium

    e = engine()
    layout = e.fonts.layout()
    text = "first line\u2028second line\u2028third"
    pb.pango.pango_layout_set_text(layout, text.encode(), -1)
    pb.text_attributes(layout, 12 * pb.SCALE, "en")
    pb.pango.pango_layout_context_changed(layout)
    boxes = pb.line_boxes(layout)
    assert len(boxes) == 3
    tops, baselines, bottoms = [b[3] for b in boxes], [b[4] for b in boxes], [b[5] for b in boxes]
    assert tops == sorted(tops) and all(t < b < d for t, b, d in zip(tops, baselines, bottoms))
    assert bottoms[0] - tops[0] == 12 * pb.SCALE   # the line height asked for
    out = io.BytesIO()
    surface = cairocffi.PDFSurface(out, 200, 40)
    ctx = cairocffi.Context(surface)
    ctx.move_to(10, 20)
    pb.show_line(ctx, layout, 1)
    surface.finish()
    page = pdfium.PdfDocument(out.getvalue())[0]
    assert page.get_textpage().get_text_range().strip() == "second line"
