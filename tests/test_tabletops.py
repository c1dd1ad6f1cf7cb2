"""Virtual tabletops: Tabletop Simulator decks shared from a web folder (URLs under
--base-url, a stable six-hex GUID on every object, the hidden face in the last cell) and one
image per face for Tabletopia and others (every face of a deck one size, at most 4000 px)."""
from __future__ import annotations

import json
import re

import pytest
from PIL import Image

from tests.conftest import run
from tests.test_exports import SHARED_BACK, make_game

BASE = "https://example.org/decks/ex"


def tts(root, *args):
    result = run(root, "export", "tts", "ex", *args)
    assert result.exit_code == 0, result.output
    folder = root / "output" / "ex" / "exports" / "tts"
    return result, folder, json.loads((folder / "ex.json").read_text())


def objects(saved):
    for obj in saved["ObjectStates"]:
        yield obj
        yield from obj.get("ContainedObjects", [])


@pytest.fixture
def game(tmp_path):
    return make_game(tmp_path / "proj", [("a", 2), ("b", 1), ("c", 3)], back=SHARED_BACK)


def test_base_url_guids_and_the_hidden_face(game):
    result, folder, saved = tts(game, "--base-url", BASE + "/")
    (deck,) = saved["ObjectStates"]
    sheet = deck["CustomDeck"]["1"]
    assert sheet["FaceURL"] == f"{BASE}/things-sheet1.png" and sheet["BackURL"] == f"{BASE}/things-back.png"
    assert all(c["CustomDeck"]["1"]["FaceURL"].startswith(BASE + "/") for c in deck["ContainedObjects"])
    # the export says what to upload where
    assert "upload things-sheet1.png, things-back.png to https://example.org/decks/ex/" in result.output
    # a six-hex GUID on the deck and every card, all different
    guids = [o["GUID"] for o in objects(saved)]
    assert len(guids) == 1 + 6 and len(set(guids)) == len(guids)
    assert all(re.fullmatch(r"[0-9a-f]{6}", g) for g in guids)
    # the hidden face: the last cell of the sheet (BackIsHidden false) holds the deck's back
    assert sheet["BackIsHidden"] is False and (sheet["NumWidth"], sheet["NumHeight"]) == (4, 1)
    faces = Image.open(folder / "things-sheet1.png").convert("RGB")
    back = Image.open(folder / "things-back.png").convert("RGB")
    cw = faces.width // 4
    assert faces.crop((3 * cw, 0, 4 * cw, faces.height)).tobytes() == back.tobytes()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["base_url"] == BASE
    assert next(f for f in manifest["files"] if f["kind"] == "tts-sheet")["hidden_slot"] == 3


def test_guids_are_the_same_on_every_export_and_urls_default_to_the_folder(game, tmp_path):
    _, folder, first = tts(game)
    assert first["ObjectStates"][0]["CustomDeck"]["1"]["FaceURL"] == (folder / "things-sheet1.png").resolve().as_uri()
    _, _, again = tts(game, "--base-url", BASE)
    assert [o["GUID"] for o in objects(first)] == [o["GUID"] for o in objects(again)]
    other = make_game(tmp_path / "other", [("a", 2), ("b", 1), ("c", 3)], back=SHARED_BACK)
    (other / "cards" / "ex" / "deck.yaml").write_text(
        (other / "cards" / "ex" / "deck.yaml").read_text().replace("deck: things", "deck: stuff"))
    _, _, renamed = tts(other)
    assert {o["GUID"] for o in objects(renamed)}.isdisjoint({o["GUID"] for o in objects(first)})


@pytest.mark.parametrize("url", ["ftp://example.org/x", "example.org/x", "file:///etc"])
def test_base_url_must_be_a_web_folder(game, url):
    result = run(game, "export", "tts", "ex", "--base-url", url)
    assert result.exit_code == 2 and "--base-url" in result.output


def test_tabletopia_one_size_per_deck_ten_px_a_mm_at_most_4000(tmp_path):
    root = make_game(tmp_path / "proj", [("a", 2), ("b", 1)], back=SHARED_BACK,
                     deck_extra="size: {width: 63mm, height: 88mm}\n")
    (root / "cards" / "ex" / "game.yaml").write_text("title: Ex\ndecks: [deck.yaml, board.yaml, tokens.yaml]\n")
    (root / "cards" / "ex" / "board.yaml").write_text(
        "deck: board\nname: Board\nkind: board\nsize: {width: 600mm, height: 420mm}\nback: null\n"
        "front: front.svg.j2\nfields:\n  text: {type: string}\ncards:\n  - {id: map, name: Map, text: the map}\n")
    (root / "cards" / "ex" / "tokens.yaml").write_text(
        "deck: coins\nname: Coins\nshape: circle\nsize: {width: 20mm, height: 20mm}\nfront: front.svg.j2\n"
        "back: back.svg.j2\nfields:\n  text: {type: string}\ncards:\n  - {id: gold, name: Gold, text: g, count: 5}\n"
        "  - {id: iron, name: Iron, text: i, count: 5}\n")
    result = run(root, "export", "tabletopia", "ex")
    assert result.exit_code == 0, result.output
    folder = root / "output" / "ex" / "exports" / "tabletopia"
    manifest = json.loads((folder / "manifest.json").read_text())
    decks = {d["deck"]: d for d in manifest["decks"]}
    assert (decks["things"]["width_px"], decks["things"]["height_px"]) == (630, 880)   # 10 px a mm
    assert (decks["board"]["width_px"], decks["board"]["height_px"]) == (4000, 2800)   # scaled to 4000
    assert decks["board"]["scale"] == pytest.approx(4000 / 6000, abs=1e-4)
    assert decks["things"]["back"] == "things/back.png" and decks["board"]["back"] is None
    for deck in decks.values():
        paths = [deck["back"]] if deck["back"] else []
        for card in deck["cards"]:
            paths += [card[s] for s in ("front", "back") if s in card]
        assert len(set(paths)) == len(set(paths) | {f["path"] for f in manifest["files"] if f["deck"] == deck["deck"]})
        for path in set(paths):
            image = Image.open(folder / path)
            assert image.size == (deck["width_px"], deck["height_px"])
            assert max(image.size) <= 4000
    # a round token is see-through outside its circle
    coin = Image.open(folder / "coins" / "gold-front.png")
    assert coin.mode == "RGBA" and coin.getpixel((0, 0))[3] == 0 and coin.getpixel((100, 100))[3] == 255
    assert {c["id"]: c["count"] for c in decks["coins"]["cards"]} == {"gold": 5, "iron": 5}


def test_faces_target_takes_a_dpi(game):
    result = run(game, "export", "--target", "faces", "ex", "--dpi", "100")
    assert result.exit_code == 0, result.output
    folder = game / "output" / "ex" / "exports" / "faces"
    manifest = json.loads((folder / "manifest.json").read_text())
    (deck,) = manifest["decks"]
    assert (deck["width_px"], deck["height_px"]) == (250, 350)   # 2.5 x 3.5 in at 100 dpi
    assert Image.open(folder / "things" / "a-front.png").size == (250, 350)
