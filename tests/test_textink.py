"""Every text checked (issue 38): a plain SVG <text> whose ink leaves the card's trim, or the
<svg> viewport that holds it, is a warning of `pnp validate` naming the card and the template
line (`--strict` fails); its ink is measured as CairoSVG draws it."""
from __future__ import annotations

import io
from types import SimpleNamespace

import cairosvg
import pytest
from PIL import Image

from generator.draw import glyphink, textink
from generator.draw.fonts import shipped
from generator.draw.glyphink import Letters
from generator.rendermemo import RenderMemo
from tests.conftest import MINI_BACK, run

BACK = MINI_BACK.replace("BACK {{ card.id }}", "BACK")

FRONT = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  {% import "_parts.j2" as parts %}
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="#fafafa"/>
  <text x="6" y="12" font-family="Lato" font-size="4">{{ card.name }}</text>
  {{ parts.label(card.id) }}
</svg>
"""
PARTS = """{% macro label(text) %}
  <text x="{{ 60 }}" y="80" text-anchor="end" font-family="Lato Black" font-size="4">{{ text }}</text>
{% endmacro %}
"""


def _face(body: str, w: float = 69, h: float = 94) -> str:
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}">{body}</svg>'


@pytest.mark.slow   # a validate of a small game, end to end
def test_text_past_the_trim_is_a_warning_naming_the_card_and_the_template_line(mini):
    root = mini("""
        - {id: short, name: Short, text: a}
        - {id: long, name: A very long name that runs off the edge of the card, text: a}
        - {id: a-label-far-too-long-for-its-corner, name: Fine, text: a}
    """, front=FRONT, back=BACK)
    (root / "templates" / "mini" / "_parts.j2").write_text(PARTS)
    result = run(root, "validate", "--strict")   # the warnings fail it
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if "<text>" in line]
    assert len(lines) == 2, result.output
    name, label = sorted(lines, key=lambda line: "front.svg.j2" not in line)
    assert name.startswith("templates/mini/front.svg.j2:4: warning:") and "[cards: long]" in name
    assert "'A very long name" in name and "past the trim's right edge" in name and "textbox()" in name
    # the label comes from a macro: its line in the macro's file, the card that shows it
    assert label.startswith("templates/mini/_parts.j2:2: warning:") and "left edge" in label
    assert "[cards: a-label-far-too-long-for-its-corner]" in label
    assert "mini: 0 rules, 2 errors, 0 warnings" in result.output   # --strict counts them as errors


CASES = [
    '<text x="30" y="40" text-anchor="middle" font-family="Lato Black" font-size="6">Hello gjQ</text>',
    '<text x="60" y="40" text-anchor="end" font-family="Open Sans Condensed" font-weight="bold" font-size="5" '
    'letter-spacing="1">WIDE TEXT</text>',
    '<text x="20" y="30" font-family="Lato" font-style="italic" font-size="4" transform="rotate(-30 20 30)">'
    'Rotated words here</text>',
    '<g transform="translate(5 10) scale(1.5)"><text x="4" y="20" font-family="EB Garamond" font-size="5">'
    'Garamond <tspan dy="3" font-size="3">small</tspan> tail</text></g>',
    '<text x="10 20 30" y="50" dx="0 1" font-family="DejaVu Sans" style="font-size:5px">abcdef</text>',
]


@pytest.mark.parametrize("body", CASES)
def test_the_ink_measured_is_where_cairosvg_draws_it(body):
    """The bounds measured agree with the pixels CairoSVG paints to a twentieth of a mm
    (a rotated text's glyph boxes, turned, hold its ink: a little more)."""
    per_mm = 10
    svg = _face(body, 70, 90)
    png = cairosvg.svg2png(bytestring=svg.encode(), output_width=70 * per_mm, output_height=90 * per_mm,
                           background_color="white")
    drawn = Image.open(io.BytesIO(png)).convert("L").point(lambda v: 255 if v < 250 else 0).getbbox()
    x0, y0, x1, y1 = (v / per_mm for v in drawn)
    slack = 1.0 if "rotate" in body else 0.25
    # the ink is past each edge of a box drawn just inside it, by as much as it is measured
    for box, side, past in (((x0 + 1, 0, 70 - x0 - 1, 90), "left", 1), ((0, 0, x1 - 1, 90), "right", 1),
                            ((0, y0 + 1, 70, 90 - y0 - 1), "top", 1), ((0, 0, 70, y1 - 1), "bottom", 1)):
        found = textink.overflows(svg, box, Letters(shipped()))
        assert [o.side for o in found] == [side], (body, found)
        assert abs(found[0].past - past) <= slack, (body, side, found[0].past)
    assert textink.overflows(svg, (x0 - 0.2, y0 - 0.2, x1 - x0 + 0.4, y1 - y0 + 0.4), Letters(shipped())) == [] or \
        "rotate" in body


def test_a_nested_svg_viewport_is_a_box_the_text_must_stay_in():
    body = ('<svg x="10" y="10" width="20" height="10" viewBox="0 0 40 20">'
            '<text x="2" y="15" font-family="Lato" font-size="8">{}</text></svg>')
    assert textink.overflows(_face(body.format("Fits")), (3, 3, 63, 88), Letters(shipped())) == []
    found = textink.overflows(_face(body.format("Too wide here")), (3, 3, 63, 88), Letters(shipped()))
    assert [(o.box, o.side) for o in found] == [("its <svg> viewport", "right")]


def test_what_is_not_drawn_or_not_handled_is_not_checked():
    far = 'x="50" y="20" font-family="Lato" font-size="8"'
    for body in (f'<defs><text {far}>hidden</text></defs>', f'<text {far} display="none">none</text>',
                 f'<text {far} font-family="No Such Font">x</text>', f'<text {far} rotate="30">turned</text>'):
        assert textink.overflows(_face(body), (3, 3, 63, 88), Letters(shipped())) == [], body
    assert textink.overflows(_face(f'<text {far}>shown words</text>'), (3, 3, 63, 88), Letters(shipped()))


def test_the_template_line_is_the_one_whose_written_attributes_the_face_shows():
    source = ('<svg>\n  <text x="6" y="12" font-family="Lato">{{ a }}</text>\n'
              '  <text x="{{ x }}" y="80" text-anchor="end" font-family="Lato Black">{{ b }}</text>\n</svg>')
    face = '<text x="60" y="80" text-anchor="end" font-family="Lato Black">'
    assert textink.template_line(source, face) == (3, 3)
    assert textink.template_line(source, '<text x="6" y="12" font-family="Lato">')[1] == 2
    assert textink.template_line("<svg/>", face) == (-1, None)


def test_the_letters_a_build_met_are_kept_and_a_later_build_opens_no_font(monkeypatch):
    """A later build (`pnp watch`, or a one-shot rebuild through the disk memo) measures ink
    from the letters the memo kept by the font file's digest: fontTools opens no font."""
    memo = RenderMemo(10)
    svg = _face('<text x="40" y="20" font-family="Lato" font-size="8">Kept letters</text>')
    first = Letters(shipped(), memo)
    found = textink.overflows(svg, (3, 3, 30, 88), first)
    assert [o.side for o in found] == ["right"]
    first.keep()
    lato = shipped().face("Lato")

    def opened(*args):
        raise AssertionError("a font file opened")

    monkeypatch.setattr(glyphink, "_glyphs", opened)
    again = Letters(shipped(), memo)
    assert textink.overflows(svg, (3, 3, 30, 88), again) == found
    assert again.ink(lato, "Kept") == first.ink(lato, "Kept")
    with pytest.raises(AssertionError, match="opened"):
        again.letter(lato, "Q")   # a letter no build met: read from the font
    # what the memo holds under a font's key that is not letters is never used
    memo.keep((glyphink.INK, lato.sha256), {"K": (1, None), "e": "wide"})
    with pytest.raises(AssertionError, match="opened"):
        Letters(shipped(), memo).letter(lato, "K")


def test_a_font_file_changed_in_place_is_measured_again(tmp_path):
    """The letters are kept by the font file's bytes, not its path: another font written
    over the same file is read again, and measures as that font."""
    memo = RenderMemo(10)
    path = tmp_path / "Own.ttf"
    path.write_bytes(shipped().face("Lato").path.read_bytes())
    own = SimpleNamespace(path=path, sha256="")
    first = Letters(shipped(), memo)
    lato_w = first.ink(own, "W")
    first.keep()
    path.write_bytes(shipped().face("EB Garamond").path.read_bytes())
    again = Letters(shipped(), memo)
    assert again.ink(own, "W") == Letters(shipped()).ink(own, "W") != lato_w


def test_the_letters_go_through_the_disk_memo_and_are_kept_on_by_a_build_that_measures_none(
        tmp_path, monkeypatch):
    """A one-shot build's memo on disk: the letters one build measured are read back by the
    next, and a build that measured no text (nothing new to check) keeps them on."""
    from generator import diskmemo
    from generator.diskstore import Store

    store = Store(tmp_path / "memo", "memo", diskmemo.LIMIT_BYTES, tmp_path)
    lato = shipped().face("Lato")

    def build(measure):
        shelves = diskmemo.Shelves(store, "pack")
        shelves.load()
        letters = Letters(shipped(), diskmemo.DiskMemo(shelves))
        found = letters.ink(lato, "Kept") if measure else None
        letters.keep()
        letters.carry()
        shelves.save()
        return found

    kept = build(True)
    build(False)
    monkeypatch.setattr(glyphink, "_glyphs", lambda *a: pytest.fail("a font file opened"))
    assert build(True) == kept
