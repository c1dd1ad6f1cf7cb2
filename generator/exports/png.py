"""One image per face: `pnp export png`.

In: a `RenderedGame`, a resolution and whether the bleed is kept. Out: `ExportFile`s, one
PNG per face named `<deck>/<card>-front.png`, `-back.png` (dice: `-face1.png`...), sized
exactly (trim plus bleed, or trim alone, at `dpi`), drawn from the same vector faces as the
sheets. Each manifest entry says which card and side it is, its pixel size and how many
copies the game prints.
"""
from __future__ import annotations

from . import ExportFile
from .raster import Rasteriser, pixels, png_bytes


def card_sides(rc) -> list[tuple[str, str]]:
    """(side, face key) of every face a card prints: front and back, or each die face."""
    if rc.faces:
        return [(f"face{n}", key) for n, key in enumerate(rc.faces, start=1) if key]
    return [(side, key) for side, key in (("front", rc.front), ("back", rc.back)) if key]


def face_box(deck, bleed: bool) -> tuple[float, float, float, float]:
    """The part of a face an image shows (mm from the face's top-left): all of it, or the trim."""
    if bleed:
        return 0.0, 0.0, deck.width, deck.height
    return deck.bleed, deck.bleed, deck.trim_w, deck.trim_h


def png_target(rendered, asked):
    """`pnp export png` (exports/targets.py): one PNG per face at `asked.dpi` (300)."""
    dpi = asked.dpi or 300
    return face_pngs(rendered, dpi, asked.bleed), {"dpi": dpi, "bleed": asked.bleed}


def face_pngs(rendered, dpi: int = 300, bleed: bool = True, raster: Rasteriser | None = None) -> list[ExportFile]:
    if raster is None:
        with Rasteriser(rendered) as own:
            return face_pngs(rendered, dpi, bleed, own)
    files = []
    for rc in rendered.cards:
        deck = rc.deck
        box = face_box(deck, bleed)
        w_px, h_px = pixels(box[2], dpi), pixels(box[3], dpi)
        for side, key in card_sides(rc):
            image = raster.face(key, w_px, h_px, box)
            files.append(ExportFile(f"{deck.id}/{rc.card.id}-{side}.png", png_bytes(image, dpi), {
                "deck": deck.id, "id": rc.card.id, "side": side, "count": rc.card.count,
                "width_px": w_px, "height_px": h_px, "dpi": dpi, "bleed": bleed,
                "trim_mm": [deck.trim_w, deck.trim_h], "bleed_mm": deck.bleed if bleed else 0.0}))
    return files
