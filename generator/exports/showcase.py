"""Pictures of a game's cards for its page, as Squib makes them: `pnp export showcase` and
`pnp export hand`.

In: a `RenderedGame`, the cards asked (`--cards`, ids; default: the first card of each deck
exported as cards, up to SHOWN) and the picture's size in pixels (`--size WxH`). Out: one
PNG (transparent around the cards) and its manifest summary:

- showcase: the cards in a row, each turned away from the viewer (its far edge SCALE times
  its near one, as Squib's `showcase` draws), with a reflection below fading out;
- hand: the cards fanned as a hand holds them, each turned about a point below the hand.

Each card is its front's trim drawn by PDFium (raster.py) from the faces the build drew, at
the pixel size it takes in the picture, cut to its outline (rounded corners, a circle, a
hexagon); Pillow's `Image.transform` (PERSPECTIVE) puts it on its place (a rotation is a
perspective too), `Image.alpha_composite` lays the cards in order. No pixel is touched one at
a time here; the same inputs give the same bytes.
"""
from __future__ import annotations

import math

from PIL import Image, ImageDraw, ImageOps

from ..errors import InputError, Problem
from . import ExportFile
from .faces import _cut_out
from .raster import Rasteriser, png_bytes

SHOWN = 5                       # cards shown when none are asked
SIZES = {"showcase": (1600, 900), "hand": (1200, 1000)}
SCALE = 0.85                    # showcase: the far edge of a card, a share of the near one
TURN = 0.85                     # showcase: a card's width seen turned, a share of its width
STEP = 1.1                      # showcase: from one card to the next, a share of a turned card's width
REFLECTION = 0.25               # showcase: the reflection's height, a share of a card's
STRENGTH = 0.2                  # showcase: the reflection's opacity where it meets the card
GAP = 0.02                      # showcase: between a card and its reflection, a share of its height
SPREAD = 0.8                    # hand: the most angle (radians) from the first card to the last
SPREAD_EACH = 0.2               # hand: the angle from one card to the next, while the fan is narrower
RADIUS = 1.2                    # hand: from the pivot to a card's centre, in the tallest card's heights
MARGIN = 0.05                   # room around the cards, a share of the picture's smaller side


def showcase_target(rendered, asked):
    """`pnp export showcase` (exports/targets.py)."""
    return _picture(rendered, asked, "showcase")


def hand_target(rendered, asked):
    """`pnp export hand` (exports/targets.py)."""
    return _picture(rendered, asked, "hand")


def _picture(rendered, asked, kind: str):
    width, height = asked.size or SIZES[kind]
    shown = chosen(rendered, asked.cards)
    with Rasteriser(rendered) as raster:
        image = (showcase if kind == "showcase" else hand)(raster, shown, width, height)
    name = f"{kind}.png"
    ids = [rc.card.id for rc in shown]
    return ([ExportFile(name, png_bytes(image, 96), {"cards": ids, "width_px": width, "height_px": height})],
            {"picture": name, "cards": ids, "width_px": width, "height_px": height})


def chosen(rendered, asked: tuple[str, ...] | None) -> list:
    """The rendered cards to show: those `asked` (ids, or deck/id), in that order; else the first
    card of each deck exported as cards, then the next ones, up to SHOWN."""
    cards = [rc for rc in rendered.cards if rc.front and not rc.faces]
    if asked:
        found, unknown = [], []
        for wanted in asked:
            match = next((rc for rc in cards if wanted in (rc.card.id, f"{rc.deck.id}/{rc.card.id}")), None)
            (found.append(match) if match else unknown.append(wanted))
        if unknown:
            known = ", ".join(rc.card.id for rc in cards[:12]) + (", ..." if len(cards) > 12 else "")
            raise InputError(f"--cards: no card {', '.join(unknown)} with a front in {rendered.game.id}",
                             [Problem(rendered.game.source.file, f"--cards names no card with a front: "
                                      f"{', '.join(unknown)} (cards: {known})")])
        return found
    pool = [rc for rc in cards if rc.deck.family.card_exports and rc.card.count > 0] or cards
    firsts = list({rc.deck.id: rc for rc in reversed(pool)}.values())[::-1]
    rest = [rc for rc in pool if rc not in firsts]
    if not firsts:
        raise InputError(f"{rendered.game.id}: no card with a front to show")
    return (firsts + rest)[:SHOWN]


def card_image(raster: Rasteriser, rc, per_mm: float) -> Image.Image:
    """The front of `rc` (its trim) at `per_mm` pixels a mm, transparent outside its outline."""
    deck = rc.deck
    width, height = max(1, round(deck.trim_w * per_mm)), max(1, round(deck.trim_h * per_mm))
    image = raster.face(rc.front, width, height, (deck.bleed, deck.bleed, deck.trim_w, deck.trim_h))
    if deck.shape in ("circle", "hex"):
        return _cut_out(image, deck)
    mask = Image.new("L", (width, height), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, width - 1, height - 1), radius=deck.corner * per_mm, fill=255)
    out = image.convert("RGBA")
    out.putalpha(mask)
    return out


def showcase(raster: Rasteriser, shown: list, width: int, height: int) -> Image.Image:
    """The cards in a row standing on one floor (each as large as it prints beside the
    others), turned away to the right, each over its fading reflection."""
    sizes = [(rc.deck.trim_w, rc.deck.trim_h) for rc in shown]     # mm
    tallest = max(h for _, h in sizes)
    row = sum(w * TURN * STEP for w, _ in sizes[:-1]) + sizes[-1][0] * TURN
    margin = MARGIN * min(width, height)
    tall = tallest * (1 + GAP + REFLECTION)
    per_mm = min((height - 2 * margin) / tall, (width - 2 * margin) / row)
    x = (width - row * per_mm) / 2
    floor = (height - tall * per_mm) / 2 + tallest * per_mm
    canvas = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    for rc, (w_mm, h_mm) in zip(shown, sizes):
        card = card_image(raster, rc, per_mm)
        w, h = card.size
        near, far = h_mm * per_mm, h_mm * per_mm * SCALE
        right = x + w_mm * TURN * per_mm
        tl, bl = (x, floor - near), (x, floor)
        tr, br = (right, floor - (near + far) / 2), (right, floor - (near - far) / 2)
        _place(canvas, card, (tl, tr, br, bl))
        shine = ImageOps.flip(card).crop((0, 0, w, max(1, round(h * REFLECTION))))
        fade = Image.linear_gradient("L").resize(shine.size).point(lambda v: round((255 - v) * STRENGTH))
        shine.putalpha(Image.composite(fade, Image.new("L", shine.size, 0), shine.getchannel("A")))
        gap = GAP * tallest * per_mm
        low_l = (bl[0], bl[1] + gap + REFLECTION * near)
        low_r = (br[0], br[1] + gap + REFLECTION * far)
        _place(canvas, shine, ((bl[0], bl[1] + gap), (br[0], br[1] + gap), low_r, low_l))
        x += w_mm * TURN * STEP * per_mm
    return canvas


def hand(raster: Rasteriser, shown: list, width: int, height: int) -> Image.Image:
    """The cards fanned about a point below them (each as large as it prints beside the
    others), the first on the left, each over the one before."""
    n = len(shown)
    spread = min(SPREAD, SPREAD_EACH * (n - 1))
    angles = [0.0] if n == 1 else [-spread / 2 + spread * i / (n - 1) for i in range(n)]
    sizes = [(rc.deck.trim_w, rc.deck.trim_h) for rc in shown]     # mm
    reach = RADIUS * max(h for _, h in sizes)
    unit = [_turned(w, h, reach, angle) for (w, h), angle in zip(sizes, angles)]   # mm, the pivot at 0,0
    xs = [p[0] for quad in unit for p in quad]
    ys = [p[1] for quad in unit for p in quad]
    margin = MARGIN * min(width, height)
    per_mm = min((width - 2 * margin) / (max(xs) - min(xs)), (height - 2 * margin) / (max(ys) - min(ys)))
    ox = (width - (max(xs) - min(xs)) * per_mm) / 2 - min(xs) * per_mm
    oy = (height - (max(ys) - min(ys)) * per_mm) / 2 - min(ys) * per_mm
    canvas = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    for rc, quad in zip(shown, unit):
        card = card_image(raster, rc, per_mm)
        _place(canvas, card, tuple((ox + px * per_mm, oy + py * per_mm) for px, py in quad))
    return canvas


def _turned(w: float, h: float, reach: float, angle: float) -> tuple:
    """The corners (top-left, top-right, bottom-right, bottom-left) of a card w x h whose
    bottom edge's middle is `reach` - h / 2 above the pivot (0, 0), turned by `angle` about
    the pivot (y down)."""
    cos, sin = math.cos(angle), math.sin(angle)
    low = -(reach - h / 2)
    corners = ((-w / 2, low - h), (w / 2, low - h), (w / 2, low), (-w / 2, low))
    return tuple((x * cos - y * sin, x * sin + y * cos) for x, y in corners)


def _place(canvas: Image.Image, image: Image.Image, quad) -> None:
    """`image` drawn onto `canvas` with its corners (top-left, top-right, bottom-right,
    bottom-left) at `quad`, by Pillow's perspective transform of the quad's bounding box."""
    x0, y0 = math.floor(min(p[0] for p in quad)), math.floor(min(p[1] for p in quad))
    x1, y1 = math.ceil(max(p[0] for p in quad)), math.ceil(max(p[1] for p in quad))
    w, h = image.size
    local = [(px - x0, py - y0) for px, py in quad]
    coeffs = perspective(local, ((0, 0), (w, 0), (w, h), (0, h)))
    warped = image.transform((x1 - x0, y1 - y0), Image.Transform.PERSPECTIVE, coeffs,
                             Image.Resampling.BICUBIC, fillcolor=(0, 0, 0, 0))
    layer = Image.new("RGBA", canvas.size, (0, 0, 0, 0))
    layer.paste(warped, (x0, y0))
    canvas.alpha_composite(layer)


def perspective(dst, src) -> tuple[float, ...]:
    """Pillow's PERSPECTIVE data (a..h): the map from each point of `dst` (the picture) to
    the point of `src` (the card) at the same index, four points each: the eight equations
    x_s = (a x + b y + c) / (g x + h y + 1), y_s = (d x + e y + f) / (g x + h y + 1),
    solved by Gaussian elimination."""
    rows = []
    for (x, y), (u, v) in zip(dst, src):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, u])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, v])
    for col in range(8):
        pivot = max(range(col, 8), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(8):
            if r != col and rows[r][col]:
                k = rows[r][col] / rows[col][col]
                rows[r] = [a - k * b for a, b in zip(rows[r], rows[col])]
    return tuple(rows[i][8] / rows[i][i] for i in range(8))
