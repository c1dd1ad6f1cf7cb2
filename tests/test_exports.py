"""Exports: one PNG per face at exact pixel sizes, Tabletop Simulator decks (sheet geometry
and the saved object TTS reads), print-shop profiles (their numbers, PDF page boxes)."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest
from PIL import Image

from generator.exports.profiles import PROFILES
from generator.exports.tts import MAX_COLS, MAX_PX, MAX_ROWS
from tests.conftest import MINI_BACK, MINI_FRONT, run

POKER = "size: {width: 2.5in, height: 3.5in}\nbleed: 0.125in\n"
SHARED_BACK = MINI_BACK.replace("BACK {{ card.id }}", "BACK")


def make_game(root: Path, cards: list[tuple[str, int]], back: str = MINI_BACK, deck_extra: str = POKER) -> Path:
    """A one-deck game of poker cards (2.5 x 3.5 in, 1/8 in bleed): (id, count) each."""
    (root / "cards" / "ex").mkdir(parents=True)
    (root / "templates" / "ex").mkdir(parents=True)
    (root / "cards" / "ex" / "game.yaml").write_text("title: Ex\ndecks: [deck.yaml]\n")
    lines = "".join(f"  - {{id: {cid}, name: Card {cid}, text: text of {cid}, count: {n}}}\n" for cid, n in cards)
    (root / "cards" / "ex" / "deck.yaml").write_text(
        "deck: things\nname: Things\nfront: front.svg.j2\nback: back.svg.j2\n" + deck_extra +
        "fields:\n  text: {type: string}\nrequired: [text]\ncards:\n" + lines)
    (root / "templates" / "ex" / "front.svg.j2").write_text(MINI_FRONT)
    (root / "templates" / "ex" / "back.svg.j2").write_text(back)
    return root


@pytest.fixture
def game(tmp_path):
    return make_game(tmp_path / "proj", [("a", 2), ("b", 1), ("c", 3)])


def exported(root, *args):
    result = run(root, "export", *args)
    assert result.exit_code == 0, result.output
    return result


def manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def test_png_sizes_are_exact_with_and_without_bleed(game):
    exported(game, "png", "ex")
    folder = game / "output" / "ex" / "exports" / "png"
    files = manifest(folder)["files"]
    assert {(f["id"], f["side"]) for f in files} == {(c, s) for c in "abc" for s in ("front", "back")}
    for f in files:
        image = Image.open(folder / f["path"])
        assert image.size == (825, 1125) == (f["width_px"], f["height_px"])
        assert image.mode == "RGB"
        assert abs(image.info["dpi"][0] - 300) < 0.01
    assert {f["count"] for f in files if f["id"] == "c"} == {3}
    # the back's dark fill reaches the bleed edge; the front is light
    back = Image.open(folder / "things" / "a-back.png")
    assert back.getpixel((2, 2)) == (0x33, 0x33, 0x55)
    assert Image.open(folder / "things" / "a-front.png").getpixel((412, 1000))[0] > 240

    exported(game, "png", "ex", "--no-bleed", "--dpi", "150")
    files = manifest(folder)["files"]
    assert len(files) == 6
    for f in files:
        assert Image.open(folder / f["path"]).size == (375, 525)  # 2.5 x 3.5 in at 150 dpi


@pytest.mark.slow
def test_png_export_is_reproducible(game):
    folder = game / "output" / "ex" / "exports" / "png"
    exported(game, "png", "ex")
    first = {p.name: p.read_bytes() for p in folder.rglob("*.png")}
    cached = sorted((game / "output" / ".cache" / "faces").glob("*/*.pdf"))
    assert cached, "an export draws through the face cache, as a build does"
    exported(game, "png", "ex")   # its faces from the face cache: the same pictures
    assert first == {p.name: p.read_bytes() for p in folder.rglob("*.png")}
    assert sorted((game / "output" / ".cache" / "faces").glob("*/*.pdf")) == cached   # none drawn again


def test_export_needs_a_target(game):
    result = run(game, "export", "ex")
    assert result.exit_code == 2
    assert "pnp export png" in result.output


def _tts(root):
    exported(root, "tts", "ex")
    folder = root / "output" / "ex" / "exports" / "tts"
    return folder, json.loads((folder / "ex.json").read_text())


@pytest.mark.slow
def test_tts_sheets_split_at_ten_by_seven(tmp_path):
    cards = [(f"k{i:02d}", 1 + i % 3) for i in range(75)]
    root = make_game(tmp_path / "proj", cards, back=SHARED_BACK)
    folder, saved = _tts(root)
    (deck,) = saved["ObjectStates"]
    assert deck["Name"] == "DeckCustom"
    assert set(deck["Transform"]) == {f"{k}{a}" for k in ("pos", "rot", "scale") for a in "XYZ"}
    custom = deck["CustomDeck"]
    for sheet in custom.values():  # the fields and types TTS reads from a custom deck
        assert {"FaceURL", "BackURL", "NumWidth", "NumHeight", "BackIsHidden", "UniqueBack", "Type"} <= set(sheet)
        assert isinstance(sheet["NumWidth"], int) and 1 <= sheet["NumWidth"] <= MAX_COLS
        assert isinstance(sheet["NumHeight"], int) and 1 <= sheet["NumHeight"] <= MAX_ROWS
        assert sheet["Type"] == 1  # a rectangular card
    assert sorted(custom) == ["1", "2"]
    one, two = custom["1"], custom["2"]
    assert (one["NumWidth"], one["NumHeight"]) == (MAX_COLS, MAX_ROWS)
    assert (two["NumWidth"], two["NumHeight"]) == (7, 1)   # 69 + 6 cards: 6 and the hidden face
    for sheet in (one, two):
        assert sheet["FaceURL"].startswith("file:///") and sheet["BackURL"] == one["BackURL"]
        path = Path(sheet["FaceURL"][len("file://"):])
        image = Image.open(path)
        assert image.width <= MAX_PX and image.height <= MAX_PX
        assert image.width % sheet["NumWidth"] == 0 and image.height % sheet["NumHeight"] == 0
        assert sheet["BackIsHidden"] is False and sheet["UniqueBack"] is False   # the last cell is the hidden face
    # a full sheet: 10 x 7 cells of 409 x 573 px (2.5 x 3.5 in trim scaled to fit 4096)
    assert Image.open(Path(one["FaceURL"][7:])).size == (4090, 4011)
    # ids: sheet x 100 + slot, row-major, repeated for copies, in the deck's order (69 cards a sheet)
    expected = [(1 if i < 69 else 2) * 100 + i % 69 for i, (_, n) in enumerate(cards) for _ in range(n)]
    assert deck["DeckIDs"] == expected
    assert [c["CardID"] for c in deck["ContainedObjects"]] == expected
    assert all(c["Name"] == "Card" and str(c["CardID"] // 100) in c["CustomDeck"] for c in deck["ContainedObjects"])
    assert Image.open(Path(one["BackURL"][7:])).size == (409, 573)


@pytest.mark.slow
def test_tts_sheet_cells_hold_the_cards_in_order(game):
    folder, saved = _tts(game)
    (deck,) = saved["ObjectStates"]
    sheet = deck["CustomDeck"]["1"]
    assert (sheet["NumWidth"], sheet["NumHeight"]) == (4, 1)   # three cards and the hidden face
    assert sheet["UniqueBack"] is True  # the backs say BACK a, BACK b, BACK c: a back sheet of the same grid
    faces = Image.open(Path(sheet["FaceURL"][7:]))
    backs = Image.open(Path(sheet["BackURL"][7:]))
    assert faces.size == backs.size == (4 * 750, 1050)
    assert deck["DeckIDs"] == [100, 100, 101, 102, 102, 102]
    # each cell is that card's own front, trimmed: compare with its PNG export cut to the trim
    exported(game, "png", "ex", "--no-bleed")
    for slot, cid in enumerate("abc"):
        own = Image.open(game / "output" / "ex" / "exports" / "png" / "things" / f"{cid}-front.png")
        cell = faces.crop((slot * 750, 0, slot * 750 + 750, 1050))
        assert own.size == cell.size and own.tobytes() == cell.tobytes()


def test_tts_lone_card_is_a_card(tmp_path):
    root = make_game(tmp_path / "proj", [("solo", 1)])
    _, saved = _tts(root)
    (obj,) = saved["ObjectStates"]
    assert obj["Name"] == "Card" and obj["CardID"] == 100 and "1" in obj["CustomDeck"]


# --- print-shop profiles ---------------------------------------------------------------------

def test_profile_tables_hold_the_shops_numbers():
    tgc, mpc, dtc = PROFILES["tgc"], PROFILES["mpc"], PROFILES["dtc"]
    assert tgc.dpi == mpc.dpi == 300
    for p in tgc.products:  # The Game Crafter: (trim + 1/8 in a side) at 300 dpi
        assert p.canvas == tuple(round((v + 0.25) * 300) for v in p.trim_in)
    poker = {p.name: p for p in tgc.products}["poker"]
    assert poker.canvas == (825, 1125)
    for p in mpc.products:  # MakePlayingCards: 36 px a side at 300 dpi
        assert p.canvas == tuple(round(v * 300) + 72 for v in p.trim_in)
    assert {p.name: p for p in mpc.products}["poker"].canvas == (822, 1122)
    for p in dtc.products:  # DriveThruCards: pages of trim + 1/8 in a side
        assert p.canvas == tuple(v + 0.25 for v in p.trim_in)
    assert {p.name: p for p in dtc.products}["poker"].canvas == (2.75, 3.75)


@pytest.mark.parametrize("profile, size", [("tgc", (825, 1125)), ("mpc", (822, 1122))])
def test_image_profiles_write_the_shops_pixel_sizes(game, profile, size):
    exported(game, "--profile", profile, "ex")
    folder = game / "output" / "ex" / "exports" / profile
    info = manifest(folder)
    assert info["dpi"] == 300 and info["skipped"] == []
    images = list(folder.rglob("*.png"))
    assert len(images) == len(info["files"]) == 6
    for path in images:
        image = Image.open(path)
        assert image.size == size and image.mode == "RGB"
    entry = {f["path"]: f for f in info["files"]}
    if profile == "tgc":
        assert {"things/a.png", "things/a-back.png", "things/c.png"} <= set(entry)
    else:
        assert {"things/front/001-a.png", "things/back/003-c.png"} <= set(entry)
        assert entry["things/front/003-c.png"]["count"] == 3
    assert all(f["scale"] == 1.0 for f in info["files"])  # trim and bleed are the shop's own


def test_tgc_shared_back_is_one_file_and_euro_poker_is_scaled_to_cover(tmp_path):
    root = make_game(tmp_path / "proj", [("a", 2), ("b", 1)], back=SHARED_BACK,
                     deck_extra="size: poker\nbleed: 3mm\n")  # 63 x 88 mm
    exported(root, "--profile", "tgc", "ex")
    folder = root / "output" / "ex" / "exports" / "tgc"
    files = {f["path"]: f for f in manifest(folder)["files"]}
    assert set(files) == {"things/a.png", "things/b.png", "things/back.png"}
    assert files["things/back.png"]["count"] == 3
    assert Image.open(folder / "things" / "back.png").size == (825, 1125)
    # 69 x 94 mm of face must cover 69.85 x 95.25 mm: scaled by 95.25 / 94
    assert files["things/a.png"]["scale"] == round(95.25 / 94, 4)


def test_profile_skips_decks_the_shop_does_not_print(tmp_path):
    root = make_game(tmp_path / "proj", [("a", 1)], deck_extra="size: {width: 30mm, height: 30mm}\n")
    result = run(root, "export", "--profile", "mpc", "ex")
    assert result.exit_code == 2
    assert "cards/ex/deck.yaml" in result.output and "MakePlayingCards prints no 30 x 30 mm" in result.output


def test_dtc_pdf_one_card_per_page_with_page_boxes(game):
    exported(game, "--profile", "dtc", "ex")
    folder = game / "output" / "ex" / "exports" / "dtc"
    info = manifest(folder)["files"][0]
    pdf = pikepdf.open(folder / "things.pdf")
    assert len(pdf.pages) == info["pages"] == 2 * (2 + 1 + 3)  # back and front of every copy
    assert info["cards"][:4] == [["a", "back"], ["a", "front"], ["a", "back"], ["a", "front"]]
    for page in pdf.pages:
        assert "/TrimBox" in page.obj and "/BleedBox" in page.obj
        assert [float(v) for v in page.MediaBox] == [0, 0, 198, 270]        # 2.75 x 3.75 in
        assert [float(v) for v in page.BleedBox] == [0, 0, 198, 270]
        assert [float(v) for v in page.TrimBox] == [9, 9, 189, 261]        # 1/8 in inside
    # vector faces: the card's text is text
    doc = pdfium.PdfDocument(str(folder / "things.pdf"))
    assert "BACK a" in doc[0].get_textpage().get_text_range()
    assert "Card a" in doc[1].get_textpage().get_text_range()
    # the page shows the whole face: the dark back reaches the page corner (in CMYK now:
    # PDFium draws it back to within a few levels of the template's #335)
    image = doc[0].render(scale=2).to_pil().convert("RGB")
    assert all(abs(a - b) <= 6 for a, b in zip(image.getpixel((2, 2)), (0x33, 0x33, 0x55)))


# --- the print-and-play kit ------------------------------------------------------------------

@pytest.mark.slow
def test_kit_zips_sheets_cut_files_calibration_and_a_readme(game):
    import zipfile
    result = run(game, "kit", "ex", "--paper", "a4", "--paper", "letter")
    assert result.exit_code == 0, result.output
    path = game / "output" / "ex" / "exports" / "kit" / "ex-print-and-play.zip"
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        assert names == sorted(["READ-ME.txt", "calibration-a4.pdf", "calibration-letter.pdf", "ex-cut-a4.svg",
                                "ex-cut-letter.svg", "ex-sheets-a4.pdf", "ex-sheets-letter.pdf"])
        readme = zf.read("READ-ME.txt").decode()
        sheets = zf.read("ex-sheets-a4.pdf")
    assert "100 %" in readme and "LONG edge" in readme and "ex-sheets-a4.pdf" in readme and "crop marks" in readme
    assert "pnp build" not in readme and "side 2" in readme  # players have no pnp: how to compensate a duplex offset
    assert len(pikepdf.open(io.BytesIO(sheets)).pages) == 2
    first = path.read_bytes()
    cached = sorted((game / "output" / ".cache" / "faces").glob("*/*.pdf"))
    assert cached, "a kit draws through the face cache, as a build does"
    assert run(game, "kit", "ex", "--paper", "a4", "--paper", "letter").exit_code == 0
    assert path.read_bytes() == first, "the kit is reproducible (its faces from the face cache now)"
    assert sorted((game / "output" / ".cache" / "faces").glob("*/*.pdf")) == cached   # none drawn again
    # nothing is written outside output/
    assert sorted(p.name for p in game.iterdir()) == ["cards", "output", "templates"]


def test_kit_in_gutter_fold_has_no_calibration_and_says_fold(game):
    import zipfile
    result = run(game, "kit", "ex", "--paper", "a4", "--mode", "gutter-fold")
    assert result.exit_code == 0, result.output
    with zipfile.ZipFile(game / "output" / "ex" / "exports" / "kit" / "ex-print-and-play.zip") as zf:
        assert "calibration-a4.pdf" not in zf.namelist()
        assert "fold it" in zf.read("READ-ME.txt").decode()


def test_kit_of_a_real_game_includes_its_rulebook(tmp_path, warm):
    import zipfile

    from tests.conftest import REPO
    warm(tmp_path)   # a kit, not a drawing, is tested: faces drawn already
    result = run(REPO, "kit", "olympians", "--paper", "a4", "--lang", "en", "--output", str(tmp_path))
    assert result.exit_code == 0, result.output
    with zipfile.ZipFile(tmp_path / "olympians" / "exports" / "kit" / "olympians-print-and-play.zip") as zf:
        assert "olympians-rulebook-a4.pdf" in zf.namelist()
        assert "olympians-rulebook-a4.pdf" in zf.read("READ-ME.txt").decode()
