"""One image per face for virtual tabletops: `pnp export tabletopia` and `pnp export faces`.

In: a `RenderedGame`, the target and a resolution (None: the target's own). Out:
`ExportFile`s, one PNG per face, and a manifest summary a tabletop importer can read:
`decks`, each with its kind, shape, trim size in mm, the one pixel size every face of the
deck has, its shared back (or none) and per card its count and the files of its faces.

- tabletopia: Tabletopia builds a stack from one image per face, a shared back once, and
  needs every face of a stack the same pixel size, at most 4000 x 4000 px; its default
  scale is 10 px a mm (help.tabletopia.com, "How to prepare graphics";
  ../shared/research/user-asks.md §4). So: the trim (no bleed: the image is the piece) at
  10 px a mm.
- faces: the same files at `--dpi` (default 300), for Tabletop Playground (local images or
  web URLs, one per card: tabletopplayground.com knowledge base, "Web images"), Screentop
  (one image per card face, as a component's variants) or any importer that takes one
  image per face.

A deck whose faces would pass 4000 px on a side is scaled down as a whole (every face by the
same factor; `scale` in the manifest). Round and hexagonal pieces are transparent outside
their outline; cards and tiles are opaque rectangles.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from ..shapes import Outline
from . import ExportFile
from .png import card_sides
from .raster import Rasteriser, png_bytes

MAX_PX = 4000
TABLETOPIA_PX_PER_MM = 10


def faces_target(rendered, asked):
    """`pnp export tabletopia` and `pnp export faces` (exports/targets.py)."""
    return face_images(rendered, asked.target, asked.dpi)


@dataclass(frozen=True)
class _Frame:
    """How every face of one deck becomes an image: the deck (its shape), the pixel size, the
    box of the face drawn (its trim, mm) and the pixels a mm written in the PNG."""
    deck: Any
    w: int
    h: int
    box: tuple[float, float, float, float]
    px_per_mm: float


def face_images(rendered, target: str, dpi: int | None = None):
    """The images of every face and the summary (decks) of the manifest."""
    per_mm = TABLETOPIA_PX_PER_MM if target == "tabletopia" and dpi is None else (dpi or 300) / 25.4
    files, decks = [], []
    with Rasteriser(rendered) as raster:
        by_deck: dict[str, list] = {}
        for rc in rendered.cards:
            if rc.card.count > 0:
                by_deck.setdefault(rc.deck.id, []).append(rc)
        for deck_id, cards in by_deck.items():
            deck = cards[0].deck
            w, h = deck_size(deck.trim_w, deck.trim_h, per_mm)
            scale = w / (deck.trim_w * per_mm)
            box = (deck.bleed, deck.bleed, deck.trim_w, deck.trim_h)
            frame = _Frame(deck, w, h, box, per_mm * scale)
            backs = {rc.back for rc in cards}
            shared = len(backs) == 1 and cards[0].back is not None and not deck.family.per_face
            entry = {"deck": deck_id, "name": deck.name, "kind": deck.kind, "shape": deck.shape,
                     "trim_mm": [deck.trim_w, deck.trim_h], "width_px": w, "height_px": h,
                     "scale": round(scale, 4), "back": f"{deck_id}/back.png" if shared else None, "cards": []}
            if shared:
                files.append(_file(f"{deck_id}/back.png", raster, cards[0].back, frame,
                                   {"deck": deck_id, "side": "back", "count": sum(rc.card.count for rc in cards)}))
            for rc in cards:
                card = {"id": rc.card.id, "name": rc.card.name, "count": rc.card.count}
                for side, key in card_sides(rc):
                    if side == "back" and shared:
                        card["back"] = entry["back"]
                        continue
                    path = f"{deck_id}/{rc.card.id}-{side}.png"
                    files.append(_file(path, raster, key, frame,
                                       {"deck": deck_id, "id": rc.card.id, "side": side, "count": rc.card.count}))
                    card[side] = path
                entry["cards"].append(card)
            decks.append(entry)
    summary = {"px_per_mm": round(per_mm, 4), "max_px": MAX_PX, "decks": decks}
    if target == "tabletopia":
        summary["notes"] = ["Tabletopia: upload each deck's fronts (and back.png) as one stack of its own; every "
                            "face of a deck has the same size (manifest: decks)"]
    return files, summary


def deck_size(trim_w: float, trim_h: float, per_mm: float) -> tuple[int, int]:
    """The pixel size of every face of a deck: its trim at `per_mm`, scaled down (keeping its
    proportions) until neither side passes MAX_PX."""
    w, h = trim_w * per_mm, trim_h * per_mm
    scale = min(1.0, MAX_PX / w, MAX_PX / h)
    return max(1, min(MAX_PX, math.floor(w * scale + 0.5))), max(1, min(MAX_PX, math.floor(h * scale + 0.5)))


def _file(path, raster, key, frame: _Frame, entry) -> ExportFile:
    image = raster.face(key, frame.w, frame.h, frame.box)
    if frame.deck.shape in ("circle", "hex"):
        image = _cut_out(image, frame.deck)
    return ExportFile(path, png_bytes(image, frame.px_per_mm * 25.4),
                      {**entry, "width_px": frame.w, "height_px": frame.h})


def _cut_out(image: Image.Image, deck) -> Image.Image:
    """The piece with everything outside its outline transparent."""
    w, h = image.size
    mask = Image.new("L", (w, h), 0)
    draw = ImageDraw.Draw(mask)
    if deck.shape == "circle":
        draw.ellipse((0, 0, w - 1, h - 1), fill=255)
    else:
        outline = Outline("hex", 0, 0, w, h, orientation=deck.orientation)
        draw.polygon([(x, h - y) for x, y in outline.polygon()], fill=255)
    out = image.convert("RGBA")
    out.putalpha(mask)
    return out
