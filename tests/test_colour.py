"""`pnp check colour` (and `validate --strict`): suits told apart by colour alone are flagged
under the simulation that confuses them, and cleared by an icon; grey text on grey fails
WCAG's contrast; the printable sheet shows every simulation. The colour-science bridge is
pinned to the numbers colorspacious gives. (The shipped games: docs/colour.md.)"""
from __future__ import annotations

import numpy as np
import pypdfium2 as pdfium
import pytest

from generator.colourcheck import check_colour, contrast
from generator.data.load import load_game
from generator.draw import cvdbridge
from generator.session import Session
from tests.conftest import edit, run

SUITS = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="{{ {1: '#d62728', 2: '#2ca02c'}[card.cost] }}"/>
  <rect x="8" y="8" width="{{ deck.width - 16 }}" height="30" fill="#ffffff"/>
  <text x="10" y="20" font-family="Lato" font-size="5" fill="#000">{{ card.text }}</text>
  ICON
</svg>
"""
ICONS = """{% if card.cost == 1 %}<svg x="20" y="50" width="20" height="20" viewBox="0 0 10 10"><circle cx="5" cy="5" r="5" fill="#fff"/></svg>
  {% else %}<svg x="20" y="50" width="20" height="20" viewBox="0 0 10 10"><path d="M5 0 L10 10 L0 10 Z" fill="#fff"/></svg>{% endif %}"""
CARDS = """- {id: r1, name: One, text: One, cost: 1}
- {id: r2, name: Two, text: Two, cost: 1}
- {id: g1, name: Three, text: Three, cost: 2}
- {id: g2, name: Four, text: Four, cost: 2}"""


def _game(mini, front: str, cards: str = CARDS):
    root = mini(cards, front=front)
    (root / "cards" / "mini" / "game.yaml").write_text("title: Mini\ndecks: [deck.yaml]\ndistinguish: [cost]\n")
    return root, load_game(root, "mini", Session())


def test_the_bridge_gives_colorspaciouss_numbers():
    assert cvdbridge.version() in cvdbridge.TESTED
    red, green = np.array([214, 39, 40]) / 255, np.array([44, 160, 44]) / 255
    seen = {s: float(cvdbridge.delta_e(cvdbridge.ucs(cvdbridge.simulate(red, s)),
                                       cvdbridge.ucs(cvdbridge.simulate(green, s)))) for s in cvdbridge.SIMULATIONS}
    assert seen == pytest.approx({"protanopia": 26.19, "deuteranopia": 5.17, "tritanopia": 65.29,
                                  "greyscale": 11.39}, abs=0.01)
    assert float(cvdbridge.delta_e(cvdbridge.ucs(red), cvdbridge.ucs(green))) == pytest.approx(59.22, abs=0.01)


def test_suits_told_apart_by_red_and_green_alone_are_flagged_and_icons_clear_them(mini):
    _, game = _game(mini, SUITS.replace("ICON", ""))
    found = check_colour(game, Session(), sheet=False).problems
    assert [p.severity for p in found] == ["error"]
    assert "cost '1' and '2' differ by colour only" in found[0].message and "deuteranopia" in found[0].message
    assert found[0].card == "r1"
    _, game = _game(mini, SUITS.replace("ICON", ICONS))
    assert check_colour(game, Session(), sheet=False).problems == []


def test_grey_text_on_grey_fails_and_the_strict_validate_says_so(mini):
    assert float(contrast(np.array([0x84 / 255] * 3), np.array([0x55 / 255] * 3))) == pytest.approx(2.0, abs=0.02)
    front = SUITS.replace("ICON", ICONS).replace('fill="#000">', 'fill="{{ card.ink }}">').replace(
        'fill="#ffffff"', 'fill="#555555"')
    front = front.replace("{{ card.ink }}", "{{ '#848484' if card.id == 'r2' else '#ffffff' }}")
    root, game = _game(mini, front)
    found = check_colour(game, Session(), sheet=False).problems
    assert [(p.card, p.severity) for p in found] == [("r2", "error")]   # white on #555 is 7.5:1
    assert "'Two' has contrast 2.0:1" in found[0].message
    strict = run(root, "validate", "--strict", "mini")
    assert strict.exit_code == 1 and "contrast 2.0:1" in strict.output


def test_an_error_is_not_hidden_behind_a_warning_at_the_same_place(mini):
    """White text at the same place on every card: on r1's grey a warning (3.5:1), on r2's
    lighter grey an error (2.3:1), which must be reported too (a box many cards share is
    reported once per severity; Meta Olympia's ALL-STAR pill hid behind ROOKIE's)."""
    front = SUITS.replace("ICON", ICONS).replace('fill="#000">', 'fill="#ffffff">').replace(
        'fill="#ffffff"/>', "fill=\"{{ {'r1': '#8a8a8a', 'r2': '#aaaaaa'}.get(card.id, '#333333') }}\"/>")
    root, game = _game(mini, front)
    found = check_colour(game, Session(), sheet=False).problems
    assert [(p.card, p.severity) for p in found] == [("r1", "warning"), ("r2", "error")]


def test_text_under_half_fill_opacity_is_a_watermark_not_measured():
    """A faint slot number (fill-opacity 0.35, as MetiKoro's platforms print them) is not
    read as full-strength text; full-strength text beside it still is."""
    from generator.draw.colourfacts import face_facts

    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="20mm" height="20mm" viewBox="0 0 20 20">'
           '<text x="2" y="8" font-size="4" fill="#e69f00" fill-opacity="0.35">1</text>'
           '<g fill-opacity="0.4"><text x="2" y="12" font-size="4" fill="#e69f00">2</text></g>'
           '<text x="2" y="16" font-size="4" fill="#e69f00">3</text></svg>')
    assert [(b.text, b.colour is None) for b in face_facts(svg).texts] == [("1", True), ("2", True), ("3", False)]


def test_the_texts_anti_aliased_edges_are_not_the_face_behind_it():
    """White text on basalt grey (11:1) at the check's 1.6 px a mm is mostly anti-aliased
    edges, blends of white and grey: the face behind is the grey, not the blends (Meta
    Olympia's die labels measured 3.9:1 before); grey text too faint still fails."""
    from generator.colourcheck import text_contrast
    from generator.draw.colourfacts import TextBox

    basalt = np.array([0x3b, 0x3b, 0x46]) / 255
    mixes = [1.0] * 20 + list(np.linspace(0.35, 0.8, 45)) + [0.0] * 35   # text, its edges, the face
    face = np.array([[m * np.ones(3) + (1 - m) * basalt for m in mixes]])
    box = TextBox((0, 0, 100, 1), (1.0, 1.0, 1.0), 3.5, True, "COUNTER")
    assert text_contrast(box, face, (100, 1)) == pytest.approx(float(contrast(np.ones(3), basalt)), rel=0.01)
    grey = TextBox((0, 0, 100, 1), (0.42, 0.42, 0.46), 3.5, True, "COUNTER")
    assert text_contrast(grey, face, (100, 1)) < 3


def test_a_small_digit_that_covers_its_own_box_is_measured_against_its_surround():
    """A 2.9 mm white digit on a teal chip (4.7:1) covers its own box, 3 px by 5, with its
    edges at the check's resolution: the pixel around the box is the chip (Meteor's
    retrofit chips measured 2.9:1 before)."""
    from generator.colourcheck import text_contrast
    from generator.draw.colourfacts import TextBox

    teal = np.array([0x22, 0x80, 0x7e]) / 255
    face = np.tile(teal, (7, 7, 1))
    face[1:6, 2:5] = [m * np.ones(3) + (1 - m) * teal for m in (0.9, 0.6, 0.75)]   # the digit's blends
    box = TextBox((2 / 1.6, 1 / 1.6, 5 / 1.6, 6 / 1.6), (1.0, 1.0, 1.0), 2.9, True, "2")
    assert text_contrast(box, face, (7 / 1.6, 7 / 1.6)) == pytest.approx(float(contrast(np.ones(3), teal)), rel=0.01)


@pytest.mark.slow   # the command, its sheet written and read back
def test_a_small_digit_is_measured_as_printed_not_as_a_blur(mini):
    """A 2.9 mm white digit on a #737373 chip (Meteor's retrofit damage chips) is 4.7:1 as
    printed; at the check's 40 dpi its strokes blur into the chip and it measured 4.4:1:
    small text is measured again around its box at FINE_DPI."""
    assert float(contrast(np.array([1.0] * 3), np.array([0x73 / 255] * 3))) == pytest.approx(4.74, abs=0.01)
    front = SUITS.replace("ICON", ICONS).replace(
        '<text x="10" y="20" font-family="Lato" font-size="5" fill="#000">{{ card.text }}</text>',
        '{% for x in [8, 14.3, 20.6] %}<rect x="{{ x }}" y="16" width="5.6" height="3.5" rx="0.7" fill="#737373"/>'
        '<text x="{{ x + 3.9 }}" y="18.85" text-anchor="middle" font-family="Lato Black" font-size="2.9" '
        'fill="#ffffff">{{ card.cost + loop.index }}</text>{% endfor %}')
    _, game = _game(mini, front)
    assert check_colour(game, Session(), sheet=False).problems == []


def test_the_sheet_shows_each_simulation(mini):
    root, _ = _game(mini, SUITS.replace("ICON", ""))
    result = run(root, "check", "colour", "mini", "--paper", "a4")
    assert result.exit_code == 1 and "differ by colour only" in result.output
    pdf = pdfium.PdfDocument(root / "output" / "mini" / "mini-colour-a4.pdf")
    text = pdf[0].get_textpage().get_text_range()
    assert all(name in text for name in ("as printed", *cvdbridge.SIMULATIONS))
    assert "cost 1 (r1)" in text and "cost 2 (g1)" in text   # a row a suit
    pixels = np.asarray(pdf[0].render(scale=1).to_pil().convert("RGB"), dtype=float)
    assert (np.abs(pixels[..., 0] - pixels[..., 1]) > 60).any()   # the red as printed, in colour


def test_the_shipped_games_tell_their_pieces_apart_and_read_well(tmp_path, warm):
    """Every shipped game passes the colour check (no error: `validate --strict` passes):
    Olympians' suits have their own icons and names, King of the Pitch's crowns, dice and
    cubes their team's name or initial, Meteor's Energies their icons; every text box is
    above WCAG's 4.5:1 (or 3:1, large; no warning either). `pnp check colour GAME` after the
    run's build of the five games: nothing drawn or rendered again."""
    from generator.data.load import list_games
    from tests.conftest import REPO

    out = warm(tmp_path / "output")
    for game_id in list_games(REPO):
        result = run(REPO, "check", "colour", game_id, "--no-sheet", "--output", str(out))
        assert result.exit_code == 0, result.output
        assert result.output.strip().splitlines() == [f"{game_id}: colour: 0 errors, 0 warnings"], result.output
    declared = {g: load_game(REPO, g, Session()).meta.get("distinguish") for g in ("olympians", "king-of-the-pitch")}
    assert declared == {"olympians": ["suit"], "king-of-the-pitch": ["team", "colour"]}


def test_check_colour_after_a_build_renders_only_what_changed_and_leaves_the_builds_memo(mini, monkeypatch):
    """The faces come from what the last `pnp build` of the game kept (output/.cache/memo),
    read only: after an edit, only the edited card's faces are rendered again, and the
    build's pack is as the build left it."""
    from generator.draw import render

    root, _ = _game(mini, SUITS.replace("ICON", ""))
    assert run(root, "build", "mini", "--paper", "a4").exit_code == 0
    memo = root / "output" / ".cache" / "memo"
    kept = {p: p.read_bytes() for p in memo.rglob("*") if p.is_file()}
    rendered = []
    real = render._render_face
    monkeypatch.setattr(render, "_render_face", lambda *a, **k: rendered.append(a[3].id) or real(*a, **k))
    assert run(root, "check", "colour", "mini", "--no-sheet").exit_code == 1   # red and green alone
    assert rendered == []
    edit(root / "cards" / "mini" / "deck.yaml", "text: Three", "text: Three more")
    run(root, "check", "colour", "mini", "--no-sheet")
    assert sorted(set(rendered)) == ["g1"]
    assert {p: p.read_bytes() for p in memo.rglob("*") if p.is_file()} == kept


def test_check_colour_of_one_game_reads_what_a_build_of_every_game_kept(mini, monkeypatch):
    """`pnp build` (every game), then `pnp check colour GAME`: the faces of the whole
    project's build are read, not rendered again; after `pnp build GAME` of each game, a
    check of several reads each game's own."""
    import shutil

    from generator.draw import render

    root, _ = _game(mini, SUITS.replace("ICON", ""))
    for kind in ("cards", "templates"):
        shutil.copytree(root / kind / "mini", root / kind / "other")
    assert run(root, "build", "--paper", "a4").exit_code == 0
    rendered = []
    real = render._render_face
    monkeypatch.setattr(render, "_render_face", lambda *a, **k: rendered.append(a[3].id) or real(*a, **k))
    assert run(root, "check", "colour", "other", "--no-sheet").exit_code == 1
    assert rendered == []
    # each game built alone (`pnp build GAME`), then one check of both: each game's own pack is read
    apart = root / "apart"
    for game in ("mini", "other"):
        assert run(root, "build", game, "--paper", "a4", "--output", str(apart)).exit_code == 0
    rendered.clear()
    assert run(root, "check", "colour", "mini", "other", "--no-sheet", "--output", str(apart)).exit_code == 1
    assert rendered == []


def test_eight_bit_faces_are_measured_to_the_same_numbers():
    """The check measures faces as drawn, 8-bit: luminance looked up per value and medians
    counted give exactly the numbers of the faces as 0-to-1 floats (the sort and the powers
    they replace), text on a face of anti-aliased blends and on a flat face (both medians:
    an even and an odd count)."""
    from generator.colourcheck import luminance, text_contrast
    from generator.draw.colourfacts import TextBox

    rng = np.random.default_rng(7)
    values = np.stack([np.arange(256, dtype=np.uint8)] * 3, axis=1)
    assert np.array_equal(luminance(values), luminance(values / 255.0))
    face = np.tile(np.array([0x22, 0x80, 0x7e], dtype=np.uint8), (40, 61, 1))
    face[10:30, 5:55] = rng.integers(180, 256, (20, 50, 3), dtype=np.uint8)   # text and its blends
    for colour in ((1.0, 1.0, 1.0), (0.1, 0.5, 0.5), (0.0, 0.0, 0.0)):
        for box in ((0, 0, 61, 40), (1, 1, 60, 40), (3, 8, 50, 31)):
            text = TextBox(box, colour, 3.0, False, "x")
            assert text_contrast(text, face, (61, 40)) == text_contrast(text, face / 255.0, (61, 40))


def test_each_face_is_loaded_once_for_the_face_and_its_small_texts(mini, monkeypatch):
    """A face is drawn at the check's resolution, then its small text's parts again finer,
    its page loaded once for them all (loading a page parses its content)."""
    import pypdfium2 as pdfium

    from generator.draw.render import draw_found, render_svgs

    _, game = _game(mini, SUITS.replace("ICON", ICONS).replace('font-size="5"', 'font-size="3"'))
    loaded = []
    real = pdfium.PdfDocument.get_page
    monkeypatch.setattr(pdfium.PdfDocument, "get_page", lambda self, n: loaded.append(n) or real(self, n))
    session = Session()
    assert check_colour(game, session, sheet=False).problems == []
    found = render_svgs(game, session)
    faces = {k for rc in draw_found(game, found, session).cards for k in (rc.front, rc.back) if k}
    assert len(loaded) == len(faces) == 8   # four fronts, four backs
