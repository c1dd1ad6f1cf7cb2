"""Tabletop Simulator custom decks: `pnp export tts`.

In: a `RenderedGame`, the URL the sheets will be found under (the file:// URL of the folder
they are written to, or `--base-url` where the designer uploads them) and a resolution.
Out: for each deck of cards, deck sheets (PNG, at most 10 x 7 cells and at most 4096 px on
a side; more sheets when the deck has more designs), its back (one image, or a back sheet of
the same grid when the backs differ: UniqueBack) and one saved object, `<game>.json`,
holding a custom deck per game deck that TTS imports from
Documents/My Games/Tabletop Simulator/Saves/Saved Objects.

Saved-object format (../shared/research/print-targets.md §1, and saves as TTS writes them,
e.g. ZONT3/tts-deck-generator tts_deckgen/save_data.py): {"ObjectStates": [deck...]}; a deck
is {"GUID", "Name": "DeckCustom", "DeckIDs": [...], "CustomDeck": {"<sheet>": {FaceURL,
BackURL, NumWidth, NumHeight, BackIsHidden, UniqueBack, Type}}, "ContainedObjects": [one
"Card" per copy, each with its own GUID]}; a card's id is sheet * 100 + its 0-based slot,
row-major. Sheet numbers count from 1 across the whole game, so two decks never share an
id. Every object's GUID is six hex digits derived from the game, deck, card and copy (the
same on every export; unique in the file). BackIsHidden is false: a card in another
player's hand shows TTS's "hidden" face, the last cell of its sheet (slot 70 of a full
10 x 7 sheet), which holds the deck's back; a sheet therefore holds at most 69 cards.
Dice, standees and boards are not cards and are left out.
"""
from __future__ import annotations

import hashlib
import json
import math

from PIL import Image

from . import ExportFile
from .png import face_box
from .raster import Rasteriser, pixels, png_bytes

MAX_COLS, MAX_ROWS = 10, 7       # the TTS deck-sheet grid
PER_SHEET = MAX_COLS * MAX_ROWS - 1   # the last cell is the hidden face
MAX_PX = 4096                    # TTS's texture limit on either side of a sheet
TTS_TYPE = {"rounded": 0, "rect": 1, "hex": 3, "circle": 4}   # CustomDeck Type: the card's outline in TTS
TRANSFORM = {"posX": 0, "posY": 1, "posZ": 0, "rotX": 0, "rotY": 180, "rotZ": 180,
             "scaleX": 1, "scaleY": 1, "scaleZ": 1}   # face down, as a deck is dealt


def sheet_grid(designs: int) -> tuple[int, int]:
    """(columns, rows) of a sheet holding `designs` faces (at most 10 x 7)."""
    cols = min(MAX_COLS, designs)
    rows = min(MAX_ROWS, math.ceil(designs / cols))
    return cols, rows


def cell_size(deck, cols: int, rows: int, dpi: int) -> tuple[int, int]:
    """Pixel size of one face on a sheet: its trim at `dpi`, scaled down (keeping its
    proportions) until the whole sheet fits 4096 px on both sides."""
    w, h = pixels(deck.trim_w, dpi), pixels(deck.trim_h, dpi)
    scale = min(1.0, MAX_PX / (cols * w), MAX_PX / (rows * h))
    return max(1, math.floor(w * scale)), max(1, math.floor(h * scale))


def guid(*parts: str, taken: set | None = None) -> str:
    """Six hex digits from what an object is (game, deck, card, copy): the same on every
    export; with `taken`, the next free one of a sequence when two would collide."""
    n = 0
    while True:
        value = hashlib.sha256("/".join((*parts, str(n)) if n else parts).encode()).hexdigest()[:6]
        if taken is None or value not in taken:
            if taken is not None:
                taken.add(value)
            return value
        n += 1


def tts_target(rendered, asked):
    """`pnp export tts` (exports/targets.py): URLs to `asked.base_url`, else the folder's file:// URL."""
    return tts_decks(rendered, asked.base_url or asked.folder.resolve().as_uri(), asked.dpi or 300,
                     shared=asked.base_url is not None)


def tts_decks(rendered, base_url: str, dpi: int = 300, shared: bool = False):
    """The sheets, backs and saved object of a game; returns (files, manifest summary).
    `shared`: `base_url` is where the designer uploads the files (--base-url)."""
    with Rasteriser(rendered) as raster:
        files, summary = _tts_decks(rendered, raster, base_url.rstrip("/"), dpi)
    summary["base_url"] = base_url.rstrip("/")
    if shared and files:
        images = [f.path for f in files if f.path.endswith(".png")]
        summary["notes"] = [f"upload {', '.join(images)} to {summary['base_url']}/ (each at exactly that URL), "
                            f"then share {rendered.game.stem}.json: it loads from Saves/Saved Objects"]
    return files, summary


def _tts_decks(rendered, raster, base_url: str, dpi: int):
    files, objects, sheet_no = [], [], 0
    taken: set[str] = set()
    decks: dict[str, list] = {}   # deck id -> its rendered cards
    for rc in rendered.cards:
        if rc.deck.family.card_exports and rc.card.count > 0:
            decks.setdefault(rc.deck.id, []).append(rc)
    for position, (deck_id, cards) in enumerate(decks.items()):
        deck = cards[0].deck
        shared_back = len({rc.back for rc in cards}) == 1
        custom, ids, names = {}, [], []
        hidden = next((rc.back for rc in cards if rc.back), None)
        for start in range(0, len(cards), PER_SHEET):
            chunk = cards[start:start + PER_SHEET]
            sheet_no += 1
            cols, rows = sheet_grid(len(chunk) + 1)
            cw, ch = cell_size(deck, cols, rows, dpi)
            keys = [rc.front for rc in chunk] + [None] * (cols * rows - 1 - len(chunk)) + [hidden]
            faces = _sheet(raster, deck, keys, cols, rows, cw, ch)
            face_name = f"{deck_id}-sheet{sheet_no}.png"
            files.append(ExportFile(face_name, png_bytes(faces, dpi), {
                "deck": deck_id, "kind": "tts-sheet", "sheet": sheet_no, "columns": cols, "rows": rows,
                "cell_px": [cw, ch], "width_px": faces.width, "height_px": faces.height,
                "ids": [rc.card.id for rc in chunk], "hidden_slot": cols * rows - 1}))
            if shared_back:
                back_name = f"{deck_id}-back.png"
                if start == 0:
                    back = _back(raster, deck, cards[0].back, cw, ch)
                    files.append(ExportFile(back_name, png_bytes(back, dpi), {
                        "deck": deck_id, "kind": "tts-back", "width_px": cw, "height_px": ch}))
            else:
                back_name = f"{deck_id}-backs{sheet_no}.png"
                backs = _sheet(raster, deck, [rc.back for rc in chunk] + [None] * (cols * rows - len(chunk)),
                               cols, rows, cw, ch)
                files.append(ExportFile(back_name, png_bytes(backs, dpi), {
                    "deck": deck_id, "kind": "tts-back-sheet", "sheet": sheet_no, "columns": cols, "rows": rows,
                    "width_px": backs.width, "height_px": backs.height}))
            custom[str(sheet_no)] = {
                "FaceURL": f"{base_url}/{face_name}", "BackURL": f"{base_url}/{back_name}",
                "NumWidth": cols, "NumHeight": rows, "BackIsHidden": False, "UniqueBack": not shared_back,
                "Type": TTS_TYPE.get(deck.shape, 1)}
            for slot, rc in enumerate(chunk):
                for copy in range(rc.card.count):
                    ids.append(sheet_no * 100 + slot)
                    names.append((rc.card.name, guid(rendered.game.id, deck_id, rc.card.id, str(copy), taken=taken)))
        objects.append(_deck_object(deck, custom, ids, names, position,
                                    guid(rendered.game.id, deck_id, taken=taken)))
    if not objects:
        return files, {"dpi": dpi, "decks": 0}
    saved = {"SaveName": rendered.game.title, "GameMode": "", "Date": "", "Table": "", "Sky": "",
             "Note": "", "Rules": "", "XmlUI": "", "LuaScript": "", "LuaScriptState": "",
             "ObjectStates": objects, "TabStates": {}, "VersionNumber": ""}
    data = (json.dumps(saved, indent=2, ensure_ascii=False) + "\n").encode()
    files.append(ExportFile(f"{rendered.game.stem}.json", data, {"kind": "tts-saved-object",
                                                              "decks": [o["Nickname"] for o in objects]}))
    return files, {"dpi": dpi, "decks": len(objects), "sheets": sheet_no}


def _sheet(raster, deck, keys, cols, rows, cw, ch) -> Image.Image:
    """Faces in reading order on a cols x rows grid of cw x ch cells (empty slots white)."""
    sheet = Image.new("RGB", (cols * cw, rows * ch), "white")
    for slot, key in enumerate(keys):
        if key is None:
            continue
        row, col = divmod(slot, cols)
        sheet.paste(raster.face(key, cw, ch, face_box(deck, bleed=False)), (col * cw, row * ch))
    return sheet


def _back(raster, deck, key, cw, ch) -> Image.Image:
    if key is None:
        return Image.new("RGB", (cw, ch), "white")
    return raster.face(key, cw, ch, face_box(deck, bleed=False))


def _deck_object(deck, custom: dict, ids: list[int], names: list[tuple[str, str]], position: int,
                 deck_guid: str) -> dict:
    """One deck (or a lone card: TTS has no deck of one) as a saved object."""
    transform = dict(TRANSFORM, posX=position * 3.0)
    cards = [{"GUID": card_guid, "Name": "Card", "Nickname": name, "CardID": cid, "Transform": dict(TRANSFORM),
              "Hands": True, "CustomDeck": {str(cid // 100): custom[str(cid // 100)]}}
             for cid, (name, card_guid) in zip(ids, names)]
    if len(cards) == 1:
        return dict(cards[0], Transform=transform, Nickname=deck.name)
    return {"GUID": deck_guid, "Name": "DeckCustom", "Nickname": deck.name, "Description": "",
            "Transform": transform, "Hands": False, "DeckIDs": ids, "CustomDeck": custom,
            "ContainedObjects": cards}
