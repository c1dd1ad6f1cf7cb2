"""Text set by Pango, read back from the PDF: kerning, ligatures, features, hyphenation,
right-to-left Arabic, Japanese line breaking, fallback fonts, real (selectable) text,
identical bytes, and one set of font subsets for every bundle."""
from __future__ import annotations

import ctypes
import hashlib
import io
import subprocess
import sys
import textwrap

import pikepdf
import pypdfium2 as pdfium
import pypdfium2.raw as raw
import pytest

from generator.draw import pangobridge as pb
from generator.draw.bundlepdf import draw_bundle, face_facts, primer
from generator.draw.fonts import shipped
from generator.draw.textfit import TextDoesNotFit, TextSetter, TextStyle

MM = 72 / 25.4


@pytest.fixture(scope="module")
def setter():
    return TextSetter(shipped(), {})


def face(body: str, w: float = 80, h: float = 70) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}">'
            f"{body}</svg>")


def drawn(*svgs: str, primed: bool = False) -> tuple[bytes, list]:
    """The faces drawn as one bundle (as a build draws them); the pages they are on."""
    page = primer(svgs, shipped()) if primed else None
    pdf, keys, problems, _ = draw_bundle([(f"k{n}", svg, None) for n, svg in enumerate(svgs)], page)
    assert not problems, problems
    return pdf, [n for n, k in enumerate(keys) if k]


def chars(pdf: bytes, page: int = 0) -> list[tuple[str, float, float]]:
    """(character, origin x, origin y) in mm, as a PDF reader finds them."""
    doc = pdfium.PdfDocument(pdf)
    tp = doc[page].get_textpage()
    x, y = ctypes.c_double(), ctypes.c_double()
    out = []
    for i in range(tp.count_chars()):
        raw.FPDFText_GetCharOrigin(tp.raw, i, ctypes.byref(x), ctypes.byref(y))
        out.append((tp.get_text_range(i, 1), x.value / MM, y.value / MM))
    return out


def text_of(pdf: bytes, page: int = 0) -> str:
    return pdfium.PdfDocument(pdf)[page].get_textpage().get_text_range()


def test_kerning_pulls_a_kerned_pair_closer_than_an_unkerned_one(setter):
    body = setter.svg("AVAH", x=5, y=5, w=70, h=20, size=10)
    pdf, _ = drawn(face(body))
    (a1, x1, _), (v, x2, _), (a2, x3, _), (h, x4, _) = chars(pdf)
    assert a1 + v + a2 + h == "AVAH"   # selectable, searchable text
    av, ah = x2 - x1, x4 - x3          # both pairs start with the same A
    assert av < ah - 0.3, (av, ah)     # Lato kerns AV by about -0.05 em: 0.5 mm at this size
    off = setter.svg("AVAH", x=5, y=5, w=70, h=20, size=10, features="kern 0")
    (_, x1, _), (_, x2, _), *_ = chars(drawn(face(off))[0])
    assert abs((x2 - x1) - ah) < 0.01  # kerning is what moved it


def test_ligatures_are_drawn_and_still_read_as_their_letters(setter):
    pdf, _ = drawn(face(setter.svg("office", x=5, y=5, w=70, h=20, size=10)))
    found = chars(pdf)
    assert "".join(c for c, _, _ in found) == "office"
    f1, f2, i = found[1:4]
    assert f1[1] == f2[1] == i[1], "f, f and i come from one ligature glyph"
    assert pdfium.PdfDocument(pdf)[0].get_textpage().search("office").get_next()
    plain = chars(drawn(face(setter.svg("office", x=5, y=5, w=70, h=20, size=10, features="liga 0")))[0])
    assert len({x for _, x, _ in plain[1:4]}) == 3   # 'liga 0' sets three letters


def test_opentype_features_choose_figures_and_small_capitals():
    garamond = TextSetter(shipped(), {})
    def ink_height(features):
        spec = garamond.spec("1234567890", w=100, size=10, family="EB Garamond", features=features)
        laid = garamond.engine.laid(spec)
        ink, logical = pb.ffi.new("PangoRectangle *"), pb.ffi.new("PangoRectangle *")
        pb.pango.pango_layout_get_extents(laid.layout, ink, logical)
        return ink.height
    assert ink_height("lnum") < ink_height("") * 0.9   # old-style figures by default, lining on request
    spec = garamond.spec("Small Capitals", w=100, size=10, family="EB Garamond", features={"text": "smcp"})
    plain = garamond.spec("Small Capitals", w=100, size=10, family="EB Garamond")
    assert {g for _, _, gs in garamond.engine.clusters(spec) for g in gs} != \
        {g for _, _, gs in garamond.engine.clusters(plain) for g in gs}


@pytest.mark.slow
def test_a_long_german_word_is_hyphenated_in_a_narrow_box_at_a_fixed_size(setter):
    word = "Donaudampfschifffahrtsgesellschaftskapitän"
    body = setter.svg(word, x=5, y=5, w=22, h=30, size=4, lang="de")   # min_size = size: no shrinking
    assert 'hyphens="' in body and 'lang="de"' in body
    pdf, _ = drawn(face(body))
    found = text_of(pdf)   # pdfium joins a word hyphenated across lines, marking each break with U+FFFE
    assert found.count("\ufffe") >= 2
    assert found.replace("\ufffe", "") == word                                        # the word, whole, underneath
    assert len({round(y, 1) for _, _, y in chars(pdf)}) >= 3                          # on three lines or more
    with pytest.raises(TextDoesNotFit):
        setter.svg(word, x=5, y=5, w=22, h=30, size=4, lang="de", hyphenate=False)


def test_shrinking_within_its_range_comes_before_hyphenating(setter):
    """Issue 39: card text shrinks within its allowed range before it hyphenates (Meteor's
    "differ-ent", Meta Olympia's "spon-sors" fitted a little smaller without a break)."""
    text = "Unverzichtbare Spielregeln gelten"
    spec = setter.spec(text, w=18, size=4, lang="de")
    fitted = setter.engine.fit(spec, 30, 2)
    assert fitted.spec.size < 4 and not fitted.spec.hyphens   # smaller, every word whole
    floor = setter.engine.fit(spec, 30, 4)                       # no room to shrink: it hyphenates
    assert floor.spec.size == 4 and floor.spec.hyphens


def test_arabic_is_drawn_right_to_left_in_joined_forms(setter):
    word = "سلام"
    body = setter.svg(word, x=5, y=5, w=70, h=20, size=8)
    pdf, _ = drawn(face(body))
    found = [(c, x) for c, x, _ in chars(pdf) if not c.isspace()]
    x_of = {c: x for c, x in found if c in word}
    assert x_of["س"] > x_of["ل"] > x_of["م"], "the first letter is the rightmost"
    joined = setter.engine.clusters(setter.spec(word, w=70, size=8))
    alone = [setter.engine.clusters(setter.spec(ch, w=70, size=8))[0][2][0] for ch in word]
    drawn_glyphs = [g for _, _, glyphs in joined for g in glyphs]
    assert drawn_glyphs != alone and len(drawn_glyphs) < len(word)   # initial/medial forms, lam-alef ligature
    assert all("Arabic" in font for font, _, _ in joined)
    laid = setter.engine.laid(setter.spec(word, w=70, size=8))
    assert all(pb.run_level(run) % 2 == 1 for run in pb.runs(laid.layout))   # right to left
    assert sorted(c for c, _ in found) == sorted(word)                          # every letter is in the text layer


def test_a_right_to_left_paragraph_starts_at_the_right(setter):
    body = setter.svg("שלום", x=5, y=5, w=70, h=20, size=8)    # align left means: at the start
    xs = [x for c, x, _ in chars(drawn(face(body))[0]) if not c.isspace()]
    assert min(xs) > 50


def test_japanese_breaks_lines_by_uax14(setter):
    text = "サイコロを振って、出た目の数だけ進みます。「勝利」の条件を満たしたら、ゲームは終わりです。"
    for width in (14, 17, 20, 23, 26, 29):
        spec = setter.spec(text, w=width, size=4, lang="ja")
        fitted = setter.engine.fit(spec, 200, 4)
        laid = setter.engine.laid(fitted.spec)
        starts = [laid.text[s:].decode()[:1] for s, _, _ in pb.lines(laid.layout)]
        assert len(starts) > 1
        assert not set(starts[1:]) & set("、。」）！？ー"), (width, starts)
    body = setter.svg(text, x=5, y=5, w=20, h=60, size=4, lang="ja")
    pdf, _ = drawn(face(body))
    lines = text_of(pdf).split("\r\n")
    assert len(lines) > 2 and "".join(lines) == text
    assert not any(line[:1] in "、。」）" for line in lines[1:])
    assert pdfium.PdfDocument(pdf)[0].get_textpage().search("勝利").get_next()


def test_a_character_the_font_lacks_is_drawn_by_the_next_font(setter):
    assert "♞" not in "".join(chr(c) for c in shipped().face("Lato").advances)
    pdf, _ = drawn(face(setter.svg("Shooting ♞ star", x=5, y=5, w=70, h=20, size=6)))
    assert "Shooting ♞ star" in text_of(pdf)
    with pikepdf.open(io.BytesIO(pdf)) as doc:
        fonts = {str(f.BaseFont).split("+")[-1] for f in doc.pages[0].Resources.Font.values()}
    assert {"Lato-Regular", "DejaVuSans"} <= fonts
    for script, sample in (("Devanagari", "पासा फेंको"), ("Thai", "ทอยลูกเต๋า"), ("Hebrew", "שלום")):
        runs = setter.engine.clusters(setter.spec(f"Roll {sample}", w=70, size=6))
        assert any(script in font for font, _, _ in runs) and any("Lato" in font for font, _, _ in runs)


def test_fonts_are_embedded_subset_with_their_text(setter):
    body = setter.svg("AV office ★ سلام 日本", x=5, y=5, w=70, h=30, size=6)
    pdf, _ = drawn(face(body))
    with pikepdf.open(io.BytesIO(pdf)) as doc:
        for font in doc.pages[0].Resources.Font.values():
            assert "+" in str(font.BaseFont), "subset"
            assert "/ToUnicode" in font, "text stays text"
            descriptor = font.get("/FontDescriptor") or font.DescendantFonts[0].FontDescriptor
            assert any(k in descriptor for k in ("/FontFile2", "/FontFile3")), "embedded"
    assert "日本" in text_of(pdf) and "office" in text_of(pdf)


SCRIPT = textwrap.dedent("""
    import hashlib, sys
    from generator.draw.bundlepdf import draw_bundle, primer
    from generator.draw.fonts import shipped
    from generator.draw.textfit import TextSetter
    body = TextSetter(shipped(), {}).svg(sys.argv[1], x=5, y=5, w=50, h=60, size=5, min_size=3, lang="de",
                                         align="justify", letter_spacing=0.02)
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="60mm" height="70mm" viewBox="0 0 60 70">'
           f'<g transform="rotate(3 30 35)">{body}</g></svg>')
    pdf = draw_bundle([("k", svg, (60, 70))], primer([svg], shipped()))[0]
    print(hashlib.sha256(pdf).hexdigest())
""")


@pytest.mark.slow
def test_the_same_text_gives_the_same_bytes_in_fresh_processes():
    text = ("AV office Donaudampfschifffahrtsgesellschaft ★ gewinnt **zwei** *Karten*.\n\n"
            "سلام عليكم שלום पासा ทอยลูกเต๋า 日本語のテキスト。")
    digests = {subprocess.run([sys.executable, "-c", SCRIPT, text], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"}).stdout.strip()
               for seed in ("1", "2", "3")}
    assert len(digests) == 1 and len(next(iter(digests))) == 64


def _font_streams(pdf: bytes, page: int) -> dict[str, str]:
    """Embedded font program -> sha256 of its bytes, for the fonts a page uses."""
    out = {}
    with pikepdf.open(io.BytesIO(pdf)) as doc:
        for font in doc.pages[page].Resources.Font.values():
            descriptor = font.get("/FontDescriptor") or font.DescendantFonts[0].FontDescriptor
            stream = next(descriptor[k] for k in ("/FontFile2", "/FontFile3") if k in descriptor)
            out[str(font.BaseFont).split("+")[-1] + str(font.Subtype)] = hashlib.sha256(stream.read_bytes()).hexdigest()
    return out


def test_the_primer_gives_every_bundle_the_same_font_subsets(setter):
    """Two bundles drawing different faces of one game embed byte-identical font programs
    (shaped glyphs included: ligatures, Arabic forms, small capitals), so the sheets store
    each font once."""
    one = face(setter.svg("office AV **bold** سلام", x=5, y=5, w=70, h=30, size=6))
    two = face(setter.svg("Tea *fi* ★ 日本 Small Caps", x=5, y=5, w=70, h=30, size=6, features={"text": "smcp"}))
    page = primer([one, two], shipped())
    a = draw_bundle([("a", one, None)], page)[0]
    b = draw_bundle([("b", two, None)], page)[0]
    streams_a, streams_b = _font_streams(a, 0), _font_streams(b, 0)
    assert streams_a and streams_a == streams_b
    unprimed = draw_bundle([("a", one, None)])[0]
    assert _font_streams(unprimed, 0) != streams_a   # without the primer the subsets differ
    assert face_facts(one, shipped())[2], "the face's shaped clusters are part of its facts"


def test_a_text_box_takes_the_keywords_of_its_style_and_refuses_any_other(setter):
    """textbox()'s keywords are TextStyle's fields; a misspelt one is refused as Python refuses
    an unknown keyword (the message the designer has always had), and spec() takes only
    those that set the text, not how it fills a box."""
    styled = setter.svg("a", x=0, y=0, w=40, h=10, **{f: getattr(TextStyle(), f) for f in
                                                      TextStyle.__dataclass_fields__})
    assert styled == setter.svg("a", x=0, y=0, w=40, h=10)   # the defaults are the style's
    with pytest.raises(TypeError, match=r"^TextSetter\.svg\(\) got an unexpected keyword argument 'colour'$"):
        setter.svg("a", x=0, y=0, w=40, h=10, colour="#fff")
    with pytest.raises(TypeError, match=r"^TextSetter\.spec\(\) got an unexpected keyword argument 'valign'$"):
        setter.spec("a", w=40, valign="top")
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'h'"):
        setter.svg("a", x=0, y=0, w=40)
