"""Rendering: fitted text stays inside its box, errors name the card, fonts are the shipped ones."""
from __future__ import annotations

import io

import cairosvg
import pikepdf
import pypdfium2 as pdfium
import pytest

from generator.fonts import shipped
from generator.textfit import TextDoesNotFit, TextSetter, read_icon
from tests.conftest import MINI_FRONT, run

COIN = read_icon("coin", '<svg viewBox="0 0 10 10"><circle cx="5" cy="5" r="5" fill="#d4a017"/></svg>')


def _svg(body: str, w=70, h=100) -> bytes:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}" '
            f'text-rendering="geometricPrecision">{body}</svg>').encode()


@pytest.mark.parametrize("text, family", [
    ("Deal 3 damage & draw 2 cards.", "Lato"),
    ("When AVAWAY enters play, each opponent discards a card. **Then** gain 2 :coin: and *draw* "
     "until you hold five; Wyvern fjord tactics apply to every LTA tile.", "Lato"),
    ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut "
     "labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco.\n\n"
     "A second paragraph, set in the same face.", "EB Garamond"),
])
def test_fitted_text_is_drawn_inside_its_box(text, family):
    box = (10.0, 40.0, 49.0, 30.0)
    setter = TextSetter(shipped(), {"coin": COIN})
    markup = setter.svg(text, x=box[0], y=box[1], w=box[2], h=box[3], family=family, size=4.0, min_size=1.8)
    pdf = pdfium.PdfDocument(cairosvg.svg2pdf(bytestring=_svg(str(markup))))
    page = pdf[0]
    textpage = page.get_textpage()
    mm = 72 / 25.4
    height = page.get_height()
    n = textpage.count_chars()
    assert n > 10
    for i in range(n):
        if textpage.get_text_range(i, 1).isspace():
            continue
        left, bottom, right, top = textpage.get_charbox(i, loose=False)
        assert left / mm >= box[0] - 0.05
        assert right / mm <= box[0] + box[2] + 0.05, textpage.get_text_range(i, 1)
        assert (height - top) / mm >= box[1] - 0.05
        assert (height - bottom) / mm <= box[1] + box[3] + 0.05
    extracted = textpage.get_text_range().replace("\r", "").replace("\n", " ")
    assert " ".join(extracted.split()).startswith(" ".join(text.replace("**", "").split())[:20])


def test_measured_width_matches_drawn_width():
    face = shipped().face("Lato", bold=True)
    text = "AVAWAY Tyrant of Wyvern fjord"
    svg = _svg(f'<text x="5" y="20" font-family="Lato" font-weight="bold" font-size="5">{text}</text>', w=150)
    page = pdfium.PdfDocument(cairosvg.svg2pdf(bytestring=svg))[0]
    tp = page.get_textpage()
    left = tp.get_charbox(0, loose=False)[0]
    last = tp.count_chars() - 1
    right_origin = tp.get_charbox(last, loose=True)[2]
    drawn = (right_origin - left) / (72 / 25.4)
    measured = face.width(text, 5)
    assert abs(drawn - measured) / measured < 0.01


def test_text_that_cannot_fit_raises():
    setter = TextSetter(shipped(), {})
    with pytest.raises(TextDoesNotFit, match="minimum size 2"):
        setter.svg("word " * 300, x=0, y=0, w=40, h=20, size=3, min_size=2)
    with pytest.raises(TextDoesNotFit, match="unknown icon ':nope:'"):
        setter.svg("a :nope: b", x=0, y=0, w=40, h=20, size=3)


@pytest.mark.parametrize("family, bold, italic", [
    ("Lato", False, False), ("Lato", True, False), ("Lato", False, True), ("Lato", True, True),
    ("Lato Black", False, False), ("EB Garamond", False, False), ("EB Garamond", False, True),
    ("Open Sans Condensed", True, False), ("DejaVu Sans", False, False), ("sans-serif", False, False),
    ("serif", False, False),
])
def test_cairo_draws_with_the_face_we_measure(family, bold, italic):
    """The hermetic fontconfig resolves each request to exactly the file pnp measures with."""
    face = shipped().face(family, bold, italic)
    attrs = f'font-family="{family}"' + (' font-weight="bold"' if bold else "") + (
        ' font-style="italic"' if italic else "")
    pdf = pikepdf.open(io.BytesIO(cairosvg.svg2pdf(bytestring=_svg(f'<text x="5" y="20" {attrs}>Hamburg</text>'))))
    names = [str(f.BaseFont).split("+")[-1] for f in pdf.pages[0].Resources.Font.values()]
    assert names == [face.postscript_name]


def test_unshipped_font_and_missing_glyph_fail_naming_the_card(mini):
    front = MINI_FRONT.replace('font-family="Lato"', 'font-family="Comic Sans MS"')
    root = mini("- {id: a, name: Alpha, text: ok}", front=front)
    result = run(root, "build")
    assert result.exit_code == 2
    assert "card a: font 'Comic Sans MS' is not shipped with pnp" in result.output
    root = mini("- {id: star, name: \"Shooting ★ Star\", text: ok}")
    result = run(root, "build")
    assert result.exit_code == 2
    assert "cards/mini/deck.yaml:10: card star: character '★' (U+2605 BLACK STAR) is not in font Lato-Regular" \
        in result.output


def test_overflowing_text_fails_naming_the_card(mini):
    root = mini("- {id: long, name: Long, text: '" + "many words " * 200 + "'}")
    result = run(root, "build")
    assert result.exit_code == 2
    assert "cards/mini/deck.yaml:10: card long: front (front.svg.j2): text does not fit" in result.output


def test_template_errors_name_card_and_template(mini):
    root = mini("- {id: a, name: Alpha, text: ok}", front=MINI_FRONT.replace("{{ card.name }}", "{{ card.cost }}"))
    result = run(root, "build")
    assert result.exit_code == 2
    assert "templates/mini/front.svg.j2:3: card a: front: card data has no attribute 'cost'" in result.output
    root = mini("- {id: a, name: Alpha, text: ok}", front=MINI_FRONT.replace("{{ card.name }}", "{{ card.name }"))
    result = run(root, "build")
    assert result.exit_code == 2
    assert "templates/mini/front.svg.j2:3: card a: template syntax error" in result.output
    assert "Traceback" not in result.output


def test_guides_draw_trim_and_safe_lines(mini):
    root = mini("- {id: a, name: Alpha, text: ok}")
    assert run(root, "build", "--guides", "--paper", "a4").exit_code == 0
    proof = root / "output" / "mini" / "mini-proof-a4.pdf"
    page = pdfium.PdfDocument(proof)[0].render(scale=2).to_pil().convert("RGB")
    colours = {c for _, c in page.getcolors(maxcolors=1 << 22)}
    assert any(r > 200 and g < 40 and 50 < b < 110 for r, g, b in colours)  # the red trim line
    clean = root / "output" / "mini" / "mini-sheets-a4.pdf"
    assert not clean.exists()  # proofs never replace the print files
