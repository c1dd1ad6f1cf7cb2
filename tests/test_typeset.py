"""Typesetting as a professional would (issue 39, items 3-5): numbers in right-to-left text in
one order on cards and in the rulebook, the legibility floor, one baseline for text of
different fonts on a line. Each is read back from the PDF that is drawn."""
from __future__ import annotations

import ctypes
import itertools
import math

import pypdfium2 as pdfium
import pypdfium2.raw as raw
import pytest
from reportlab.lib.styles import ParagraphStyle

from generator.draw.bundlepdf import draw_bundle
from generator.draw.fonts import shipped
from generator.draw.textfit import TextError, TextSetter
from tests.conftest import run

MM = 72 / 25.4
PT = 25.4 / 72   # mm
NUMBERS = set("0123456789+-\u2212\u2013\u00d7")
# a negative number, a range and a product in one Arabic sentence: "the result -2, then 31–60 and 3 × 10"
ARABIC = "النتيجة -2 ثم 31\u201360 و 3 \u00d7 10 و 2-6"


def _chars(pdf: bytes, number: int = 0) -> list[tuple[str, float, float, float]]:
    """(character, left x, baseline y from the page's top, font size) of each character drawn on a page, pt."""
    page = pdfium.PdfDocument(pdf)[number]
    height = page.get_mediabox()[3]   # the top edge: cairo draws from it (its box may start above 0)
    tp = page.get_textpage()
    out = []
    for i in range(tp.count_chars()):
        ch = tp.get_text_range(i, 1)
        if ch.strip():
            left = tp.get_charbox(i, loose=False)[0]
            ox, oy, m = ctypes.c_double(), ctypes.c_double(), raw.FS_MATRIX()
            raw.FPDFText_GetCharOrigin(tp, i, ox, oy)
            raw.FPDFText_GetMatrix(tp, i, m)
            out.append((ch, left, height - oy.value, raw.FPDFText_GetFontSize(tp, i) * abs(m.a * m.d - m.b * m.c) ** 0.5))
    return out


def _visual_numbers(pdf: bytes, number: int = 0) -> str:
    """The digits and signs of a one-line text as they stand on the page, left to right."""
    return "".join(ch for ch, *_ in sorted(_chars(pdf, number), key=lambda c: c[1]) if ch in NUMBERS)


def _face(markup: str) -> bytes:
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="100mm" height="40mm" viewBox="0 0 100 40">'
           f'{markup}</svg>')
    pdf, keys, problems, _ = draw_bundle([("k", svg, (100, 40))])
    assert not problems
    return pdf


def test_an_arabic_range_and_negative_number_read_the_same_on_a_card_and_in_the_rulebook():
    """One convention (draw/bidi.py): the sign stays on its number's left (-2, as in every
    edition), a range and a product are read from the right as the paragraph runs (31–60
    prints 60–31, 3 × 10 prints 10 × 3); the card and the book print the same order."""
    from generator.rulebook.pangobook import BookText
    card = _visual_numbers(_face(TextSetter(shipped(), {}, "ar").svg(ARABIC, x=2, y=2, w=96, h=10, size=4)))
    book = BookText("ar", True)
    style = ParagraphStyle("body", fontName="Lato-Regular", fontSize=10, leading=13)
    para = book.para(ARABIC, style)
    para.wrap(400, 100)
    book.place(1, (para.markup, para.ts, 400.0, 0, 1), (0, 0, 400, 20))
    pdf, placed = book.drawn()
    assert card == _visual_numbers(pdf) == "6-210\u00d7360\u201331-2"


def test_left_to_right_text_is_left_alone():
    from generator.draw.bidi import LRI, RLM, ordered
    assert ordered("-2 and 31–60", "en") == "-2 and 31–60"
    assert ordered("<b>-2</b> نقاط", "ar") == f"<b>{LRI}-2\u2069</b> نقاط"   # a tag is never split
    assert ordered("2-6 ب", "ar") == f"2{RLM}-6 ب"                       # a range's hyphen is no sign


FLOOR_FRONT = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  {{ textbox(card.text, 6, 20, 38.5, 5, size=3.5, min_size=1.2, max_lines=1, hyphenate=False) }}
  <text x="6" y="40" font-family="Lato" font-size="{{ 1.7 if card.id == 'small' else 3 }}">{{ card.id }}</text>
</svg>
"""


def test_the_legibility_floor_refuses_text_that_would_shrink_to_5_pt(mini):
    """The box fits its text at about 5 pt: without a floor it would print so; at the default
    floor (6 pt) the build fails naming the card and the size it needed."""
    text = "Battle, Exploration, Trojan Horse (one spare hand)"
    setter = TextSetter(shipped(), {}, "en", min_text_pt=0)
    unbounded = setter.svg(text, x=0, y=0, w=38.5, h=5, size=3.5, min_size=1.2, max_lines=1, hyphenate=False)
    assert 4.9 < float(unbounded.split(' size="')[1].split('"')[0]) / PT < 5.1
    with pytest.raises(TextError, match=r"legibility floor: it would shrink to 5\.0 pt, below print: min_text_pt 6"):
        TextSetter(shipped(), {}, "en", min_text_pt=6).svg(text, x=0, y=0, w=38.5, h=5, size=3.5, min_size=1.2, max_lines=1,
                                               hyphenate=False)
    root = mini(f"- {{id: tablet, name: Tablet, text: '{text}'}}", front=FLOOR_FRONT)
    result = run(root, "validate")
    assert result.exit_code != 0
    line = next(ln for ln in result.output.splitlines() if "legibility floor" in ln)
    assert "front (front.svg.j2): text under the legibility floor: it would shrink to 5.0 pt" in line
    assert "cards/mini/deck.yaml:10" in line and "tablet" in line


def test_text_set_small_on_purpose_is_a_warning_and_min_text_pt_moves_the_floor(mini):
    from generator.draw.textfit import small_text
    root = mini("- {id: small, name: Small, text: 'Fits'}", front=FLOOR_FRONT)
    result = run(root, "validate")
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if "min_text_pt" in ln)
    assert "warning" in line and "small" in line and "a font-size is set at 4.82 pt, below print: min_text_pt 6 pt" in line
    (root / "cards" / "mini" / "game.yaml").write_text("title: Mini\ndecks: [deck.yaml]\nprint: {min_text_pt: 4.5}\n")
    result = run(root, "validate")
    assert result.exit_code == 0 and "min_text_pt" not in result.output, result.output
    assert small_text('<svg width="10mm" height="5mm" viewBox="0 0 20 10"><pnp:text size="4">x</pnp:text></svg>',
                      6) == ["text 'x' is set at 5.67 pt, below print: min_text_pt 6 pt (players may not read it)"]


def test_text_of_different_fonts_on_one_line_shares_its_baseline():
    """valign='baseline': the first line's baseline at y, whatever the font (the reference
    cards' result names in EB Garamond beside numbers in Lato)."""
    setter = TextSetter(shipped(), {})
    cells = [setter.svg("Defeat", x=2, y=20, w=30, h=6, family="EB Garamond", size=4.4, valign="baseline"),
             setter.svg("31–60", x=35, y=20, w=20, h=5, family="Lato", size=3.2, valign="baseline"),
             setter.svg("-2", x=60, y=20, w=10, h=5, family="Lato Black", size=4, valign="baseline")]
    baselines = [y / MM for _, _, y, _ in _chars(_face("".join(cells)))]
    assert len(baselines) == 13 and all(abs(y - 20) < 0.005 for y in baselines), baselines


def _tokens(deck_id: str, size: float, bleed: float, n: int, backs: bool):
    from types import SimpleNamespace as NS
    deck = NS(id=deck_id, name=deck_id.title(), label=None, shape="circle", trim_w=size, trim_h=size, bleed=bleed,
              orientation="pointy")
    return [NS(deck=deck, card=NS(id=f"{deck_id}-{i}"), front=f"{deck_id}{i}f", back=f"{deck_id}{i}b" if backs else None)
            for i in range(n)]


@pytest.mark.parametrize("backs", [False, True])
def test_small_tokens_share_the_sheet_of_tokens_before_them_backs_registered(backs):
    """Meta Olympia's case: 18 tokens of 25 mm leave most of their last sheet empty; two 16 mm
    markers go there instead of onto a sheet of their own, clear of every cut path by two
    bleeds, inside the margins; a marker's back (when it has one) lands where its front does
    once the sheet is flipped on its long edge."""
    from generator.layout.grid import MIN_MARGIN
    from generator.layout.packing import MIN_GAP
    from generator.layout.pages import _token_pages
    from generator.layout.sharing import share_sheets
    planned = _token_pages(_tokens("tokens", 25, 1.5, 18, True), "a4") + \
        _token_pages(_tokens("markers", 16, 1.5, 2, backs), "a4")
    assert [p.side for p in planned] == ["front", "back", "front"] + ["back"] * backs
    shared = share_sheets(planned)
    assert [(p.side, p.title) for p in shared] == [("front", "Tokens + Markers"), ("back", "Tokens + Markers")]
    front, back = shared
    assert len(front.faces) == len(front.outlines) == 20
    cuts = [f.cut for f in front.faces]
    for a, b in itertools.combinations(cuts, 2):
        apart = math.hypot(a.x + a.w / 2 - b.x - b.w / 2, a.y + a.h / 2 - b.y - b.h / 2) - (a.w + b.w) / 2
        assert apart >= max(MIN_GAP, 3.0) - 1e-3   # circles: centres apart by both radii and the gap
    for f in front.faces:
        assert MIN_MARGIN - 1e-6 <= f.clip.x and f.clip.x + f.clip.w <= front.width - MIN_MARGIN + 1e-6
        assert f.clip.y >= MIN_MARGIN and f.clip.y + f.clip.h <= front.height - MIN_MARGIN + 1e-6
    assert front.label is not None and front.label.y < min(f.clip.y for f in front.faces) and front.label == back.label
    fronts = {f.card: f.cut for f in front.faces}
    assert len(back.faces) == 18 + 2 * backs
    for f in back.faces:   # every back where its front lands after a long-edge flip
        assert (round(front.width - f.cut.x - f.cut.w, 3), round(f.cut.y, 3)) == \
            (round(fronts[f.card].x, 3), round(fronts[f.card].y, 3))


def test_a_deck_that_does_not_fit_the_room_left_keeps_its_own_sheet():
    from generator.layout.packing import pack
    from generator.layout.pages import _token_pages
    from generator.layout.sharing import share_sheets
    full = _token_pages(_tokens("tokens", 25, 1.5, pack("a4", (210, 297), "circle", 25, 25, 1.5).per_page, True), "a4")
    planned = full + _token_pages(_tokens("markers", 40, 1.5, 2, False), "a4")
    assert len(full) == 2 and share_sheets(planned) == planned


def test_the_version_stamp_is_no_small_text():
    import inspect

    from generator.draw.stamp import stamp_element
    from generator.draw.textfit import small_text
    assert """<g data-pnp="stamp">""" in inspect.getsource(stamp_element)   # the mark small_text leaves out
    face = ('<svg width="63mm" height="88mm" viewBox="0 0 63 88"><text font-size="3">Card</text>'
            '<g data-pnp="stamp"><rect/><text x="1" y="2" font-size="1.600">v1.2</text></g></svg>')
    assert small_text(face, 6) == []
    assert small_text(face.replace('font-size="3"', 'font-size="2"'), 6) == [
        "a font-size is set at 5.67 pt, below print: min_text_pt 6 pt (players may not read it)"]


def test_no_shipped_sheet_prints_text_under_6_pt(all_builds):
    """The target of the legibility floor, read back from every sheet of every game and
    edition, both papers: no glyph under 6 pt (the cards, and the sheets' own labels)."""
    from tests.conftest import all_pdfs
    small = {}
    for game, name in all_pdfs():
        if "-sheets-" not in name:
            continue
        doc = pdfium.PdfDocument(all_builds[game] / name)
        for n in range(len(doc)):
            tp = doc[n].get_textpage()
            for i in range(tp.count_chars()):
                m = raw.FS_MATRIX()
                raw.FPDFText_GetMatrix(tp, i, m)
                pt = raw.FPDFText_GetFontSize(tp, i) * abs(m.a * m.d - m.b * m.c) ** 0.5
                if pt < 6 - 0.01 and tp.get_text_range(i, 1).strip():
                    small.setdefault(f"{name} p{n + 1}", f"{tp.get_text_range(i, 1)!r} at {pt:.2f} pt")
    assert not small, small
