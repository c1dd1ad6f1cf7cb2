"""What a ported game brings (issue 38): the fonts people name (Arial, Times New Roman...)
drawn by shipped open faces, embedded and said once at the template line; font errors at
the template line; a game's own copy of a shipped family drawn instead of pnp's; `fonts:
system`, which warns. And units: lengths with units in templates and textbox(), and a
deck drawn in pixels printing at the size of its millimetre twin."""
from __future__ import annotations

import io

import pytest

from generator import units
from generator.draw import fonts
from tests.test_fonts import FRONT, embedded_fonts, renamed_font

NAMED = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="#fafafa"/>
  <text x="6" y="12" font-family="Arial" font-size="4">{{ card.name }}</text>
  {{ textbox(card.text, 6, 20, deck.trim_w - 6, 30, family="Times New Roman", bold=True, size="10pt") }}
</svg>
"""


def test_the_fonts_people_name_resolve_to_shipped_faces_a_games_own_first(tmp_path):
    shipped = fonts.shipped()
    expected = {"Arial": "LiberationSans", "Helvetica": "LiberationSans", "Times New Roman": "LiberationSerif",
                "Times": "LiberationSerif", "Courier New": "LiberationMono", "Georgia": "LiberationSerif",
                "Verdana": "DejaVuSans", "Serif": "LiberationSerif", "Sans": "LiberationSans",
                "Monospace": "LiberationMono", "serif": "LiberationSerif", "monospace": "LiberationMono",
                "sans-serif": "Lato-Regular"}
    assert {name: shipped.face(name).postscript_name for name in expected} == expected
    assert shipped.face("Arial", bold=True, italic=True).postscript_name == "LiberationSans-BoldItalic"
    rules = fonts.fontconfig_rules()   # what cairo's and Pango's fontconfig are told: the same
    assert all(f"<family>{n}</family><accept><family>{f}</family>" in rules for n, f in fonts.STAND_INS.items())
    own = tmp_path / "fonts"
    own.mkdir()
    renamed_font(fonts.FONT_DIR / "DejaVuSans.ttf", own / "Arial.ttf", "Arial")
    with_own = fonts.FontSet(fonts.FONT_DIR, own)
    assert with_own.face("Arial").path == own / "Arial.ttf" and with_own.stand_in("Arial") is None


def test_arial_is_drawn_with_liberation_sans_embedded_and_said_once_at_its_line(mini):
    from generator.data.load import load_game
    from generator.draw.render import render_game
    from generator.session import Session

    root = mini("- {id: a, name: Alpha, text: Some words}\n- {id: b, name: Beta, text: More words}", front=NAMED)
    rendered = render_game(load_game(root, "mini", Session()), Session())
    embedded = set().union(*(embedded_fonts(pdf) for pdf in rendered.faces_pdfs))
    assert {"LiberationSans", "LiberationSerif-Bold"} <= embedded, embedded
    assert [str(note) for note in rendered.notes] == [
        "templates/mini/front.svg.j2:3: font 'Arial' is drawn with Liberation Sans, the open face pnp ships "
        "in its place (the same widths: text fits as it did); to print with the font itself, put its TTF or OTF "
        "files in templates/<game>/fonts/",
        "templates/mini/front.svg.j2:4: font 'Times New Roman' is drawn with Liberation Serif, the open face "
        "pnp ships in its place (the same widths: text fits as it did); to print with the font itself, put its "
        "TTF or OTF files in templates/<game>/fonts/"]


def test_a_font_error_names_the_template_line_not_the_cards(mini):
    from generator.data.load import load_game
    from generator.draw.render import render_game
    from generator.errors import RenderError
    from generator.session import Session

    def problems(root) -> str:
        with pytest.raises(RenderError) as caught:
            render_game(load_game(root, "mini", Session()), Session())
        return "\n".join(map(str, caught.value.problems))

    root = mini("- {id: a, name: Alpha, text: hello}", front=FRONT.replace("FAMILY", "Pnp Absent Face"))
    found = problems(root)   # textbox() at line 4 fails before anything is drawn
    assert found.startswith("templates/mini/front.svg.j2:4: card a: front: font 'Pnp Absent Face' is not shipped"), found
    assert "(card data at cards/mini/deck.yaml:" in found, found   # the card, after the template
    front = root / "templates" / "mini" / "front.svg.j2"
    front.write_text(FRONT.replace(', family="FAMILY"', ', family="Lato"').replace("FAMILY", "Pnp Absent Face"))
    found = problems(root)   # the plain <text> at line 3, found while drawing
    assert found.startswith("templates/mini/front.svg.j2:3: card a: font 'Pnp Absent Face' is not shipped"), found


@pytest.mark.slow   # a fresh pnp process: a game's own Lato stays in its process's fontconfig
def test_a_games_own_copy_of_a_shipped_family_is_drawn_and_said(mini):
    from fontTools.ttLib import TTFont

    from tests.test_jail import pnp

    root = mini("- {id: a, name: Alpha, text: Some words}", front=FRONT.replace("FAMILY", "Lato"))
    folder = root / "templates" / "mini" / "fonts"
    folder.mkdir()
    font = TTFont(fonts.FONT_DIR / "DejaVuSans.ttf")   # DejaVu's shapes under Lato's name
    for record in font["name"].names:
        if record.nameID in (1, 16):
            record.string = "Lato"
        elif record.nameID == 6:
            record.string = "GameLato-Regular"
    font.save(folder / "GameLato.ttf")
    (folder / "LICENSE.txt").write_text("Bitstream Vera licence\n")
    done = pnp(root, "build", "--paper", "a4")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "font family 'Lato' is drawn with the game's own copy" in done.stderr
    embedded = embedded_fonts((root / "output" / "mini" / "mini-sheets-a4.pdf").read_bytes())
    assert "GameLato-Regular" in embedded, embedded   # (pnp's Lato prints the sheets' labels and the bold back)
    assert fonts.FontSet(fonts.FONT_DIR, folder).face("Lato").path == folder / "GameLato.ttf"   # measured as drawn


def test_two_games_with_their_own_copies_of_a_family_are_not_drawn_by_one_process(monkeypatch, tmp_path):
    """fontconfig holds one process's fonts: after a game whose own Lato it read, another
    game's Lato would be drawn with that copy, so the second game is refused, told why."""
    other = tmp_path / "other" / "fonts"
    monkeypatch.setattr(fonts, "_added", {(other, (frozenset({"Lato"}), (("GameLato.ttf", 1234),)))})
    assert fonts.drawn_by_another_game(fonts.shipped(), tmp_path / "mine" / "fonts") == [("Lato", str(other))]
    assert fonts.drawn_by_another_game(fonts.shipped(), other) == []   # its own folder, as watched


@pytest.mark.slow   # a fresh pnp process, jailed: the machine's fonts read through fontconfig
def test_fonts_system_draws_with_the_machines_fonts_embedded_and_warns(mini):
    from tests.test_jail import pnp

    shipped = {f.family for f in fonts.shipped().faces}
    face = next((f for f in map(fonts._system_face, fonts.system_font_files())
                 if f and f.family not in shipped and not f.bold and not f.italic), None)
    if face is None:
        pytest.skip("this machine has no font pnp does not ship")
    root = mini("- {id: a, name: Alpha, text: Some words}", front=FRONT.replace("FAMILY", face.family))
    game = root / "cards" / "mini" / "game.yaml"
    game.write_text(game.read_text() + "fonts: system\n")
    done = pnp(root, "build", "--paper", "a4", "--untrusted")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning: cards/mini/game.yaml:1: fonts: faces are drawn with this machine's fonts" in done.stderr, \
        done.stderr
    embedded = embedded_fonts((root / "output" / "mini" / "mini-sheets-a4.pdf").read_bytes())
    assert face.postscript_name in embedded, (face.postscript_name, embedded)


def test_lengths_with_units_in_a_templates_units():
    assert units.template_length("12pt") == pytest.approx(12 * 25.4 / 72)
    assert units.template_length("1in", "px", 300) == pytest.approx(300)
    assert units.template_length("300px", "mm", 300) == pytest.approx(25.4)
    assert units.template_length(7) == 7 and units.template_length(7, "px", 300) == 7   # bare: as today
    assert units.to_mm("825px", 300) == pytest.approx(69.85)
    with pytest.raises(ValueError, match="dpi"):
        units.to_mm("300px")


PX_DECK = "deck: px\nname: Pixels\nunits: px\ndpi: 300\nsize: {width: 750px, height: 1050px}\nbleed: 37.5px\nfront: px.svg.j2\n"
MM_DECK = "deck: mm\nname: Millimetres\nsize: {width: 2.5in, height: 3.5in}\nbleed: 0.125in\nfront: mm.svg.j2\n"
PX_FACE = """<svg xmlns="http://www.w3.org/2000/svg" width="825" height="1125">
  <rect x="75" y="75" width="675" height="975" fill="#cde" stroke="#000" stroke-width="6"/>
  <circle cx="412.5" cy="562.5" r="150" fill="#e53"/>
  <text x="120" y="200" font-family="Lato" font-size="{{ length('14pt') }}">{{ card.name }}</text>
  {{ textbox(card.text, 120, 800, 585, 200, size="12pt") }}
</svg>
"""
MM_FACE = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <rect x="6.35" y="6.35" width="57.15" height="82.55" fill="#cde" stroke="#000" stroke-width="0.508"/>
  <circle cx="34.925" cy="47.625" r="12.7" fill="#e53"/>
  <text x="10.16" y="16.933333" font-family="Lato" font-size="{{ length('14pt') }}">{{ card.name }}</text>
  {{ textbox(card.text, 10.16, 67.733333, 49.53, 16.933333, size=4.2333333) }}
</svg>
"""


def test_a_face_drawn_in_pixels_prints_at_the_size_of_its_millimetre_twin(tmp_path):
    import pypdfium2 as pdfium
    from PIL import ImageChops

    from generator.data.load import load_game
    from generator.draw.render import render_game
    from generator.session import Session

    root = tmp_path / "proj"
    (root / "cards" / "g").mkdir(parents=True)
    (root / "templates" / "g").mkdir(parents=True)
    (root / "cards" / "g" / "game.yaml").write_text("title: G\ndecks: [px.yaml, mm.yaml]\n")
    card = "fields:\n  text: {type: string}\ncards:\n  - {id: CARD, name: Alpha, text: Words set in points}\n"
    (root / "cards" / "g" / "px.yaml").write_text(PX_DECK + card.replace("CARD", "a"))
    (root / "cards" / "g" / "mm.yaml").write_text(MM_DECK + card.replace("CARD", "b"))
    (root / "templates" / "g" / "px.svg.j2").write_text(PX_FACE)
    (root / "templates" / "g" / "mm.svg.j2").write_text(MM_FACE)
    rendered = render_game(load_game(root, "g", Session()), Session())
    pages = []
    for rc in rendered.cards:
        bundle, page = rendered.page_of[rc.front]
        pdf = pdfium.PdfDocument(io.BytesIO(rendered.faces_pdfs[bundle]))
        pages.append((pdf[page].get_size(), pdf[page].render(scale=3).to_pil().convert("RGB")))
    (px_size, px_image), (mm_size, mm_image) = pages
    assert px_size == pytest.approx(mm_size) and px_size[0] == pytest.approx(69.85 * 72 / 25.4)
    diff = ImageChops.difference(px_image, mm_image).convert("L").point(lambda v: 255 if v > 64 else 0)
    assert diff.getbbox() is None or sum(diff.histogram()[255:]) < px_image.width * px_image.height * 0.001


def test_a_pixel_face_of_the_wrong_size_says_which(mini):
    root = mini("- {id: a, name: Alpha, text: hello}", deck_extra="units: px\ndpi: 300\n",
                front=PX_FACE.replace('"825"', '"800"'))
    from generator.data.load import load_game
    from generator.draw.render import render_game
    from generator.errors import RenderError
    from generator.session import Session

    with pytest.raises(RenderError) as caught:
        render_game(load_game(root, "mini", Session()), Session())
    assert "front: the face is 800 x 1125 px but the deck is" in str(caught.value.problems[0])
