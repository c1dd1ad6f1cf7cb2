"""Squib's pictures (issue 38): `pnp export showcase` (a row of cards in perspective over a
reflection) and `pnp export hand` (a fan), one PNG of the asked size from the faces the
build drew."""
from __future__ import annotations

import io
import json
from types import SimpleNamespace

import pytest
from PIL import Image

from generator.exports import showcase as sc
from generator.exports.raster import png_bytes
from tests.conftest import run

COLOURS = {"red": (200, 30, 30), "blue": (30, 30, 200), "green": (30, 160, 30)}


class _Faces:
    """A Rasteriser's stand-in: each face a plain colour of the asked size."""

    def face(self, key, w, h, box):
        return Image.new("RGB", (w, h), COLOURS[key])


def _card(key: str, w: float = 63, h: float = 88):
    deck = SimpleNamespace(id="d", trim_w=w, trim_h=h, bleed=3, corner=3, shape="rect")
    return SimpleNamespace(front=key, faces=(), deck=deck, card=SimpleNamespace(id=key))


def _mask(image, colour):
    """Where `colour` is drawn opaquely (alpha over 200), as a black and white image."""
    from PIL import ImageChops

    bands = [band.point(lambda v, want=want: 255 if abs(v - want) < 40 else 0)
             for band, want in zip(image.split()[:3], colour)]
    mask = image.getchannel("A").point(lambda v: 255 if v > 200 else 0)
    for band in bands:
        mask = ImageChops.multiply(mask, band)
    return mask


def _span(mask, column=None, row=None):
    """(first, last) drawn pixel along a column (rows) or a row (columns); None: none."""
    w, h = mask.size
    box = mask.crop((column, 0, column + 1, h) if column is not None else (0, row, w, row + 1)).getbbox()
    return None if box is None else ((box[1], box[3] - 1) if column is not None else (box[0], box[2] - 1))


def test_showcase_turns_each_card_away_over_a_fading_reflection():
    image = sc.showcase(_Faces(), [_card("red"), _card("blue")], 800, 400)
    assert image.size == (800, 400) and image.mode == "RGBA"
    red, blue = _mask(image, COLOURS["red"]), _mask(image, COLOURS["blue"])
    assert red.getbbox() and blue.getbbox() and red.getbbox()[2] <= blue.getbbox()[0]   # in order, apart
    left, right = red.getbbox()[0], red.getbbox()[2] - 1
    near, far = (_span(red, column=x) for x in (left + 20, right - 20))
    assert far[1] - far[0] < (near[1] - near[0]) * 0.9       # the far edge is shorter: perspective
    floor = near[1]
    column = [image.getpixel((left + 20, y)) for y in range(floor + 2, 400)]
    shine = [a for *_, a in column if a]
    assert shine and max(shine) <= 0.2 * 255 + 2 and shine[-1] < shine[0] / 2   # a reflection, fading out
    first = next(p for p in column if p[3])
    assert first[0] > 150 and first[2] < 100                                     # of the red card
    assert png_bytes(sc.showcase(_Faces(), [_card("red"), _card("blue")], 800, 400), 96) == png_bytes(image, 96)


def test_hand_fans_the_cards_each_over_the_one_before():
    image = sc.hand(_Faces(), [_card("red"), _card("green"), _card("blue")], 600, 500)
    assert image.size == (600, 500)
    red, green, blue = (_mask(image, COLOURS[name]) for name in ("red", "green", "blue"))
    assert red.getbbox()[0] < green.getbbox()[0] < blue.getbbox()[0]
    # the outer cards lean away from the middle: the first's highest corner is its top-right,
    # the last's its top-left
    r, b = red.getbbox(), blue.getbbox()
    assert _span(red, row=r[1] + 2)[0] > (r[0] + r[2]) / 2 and _span(blue, row=b[1] + 2)[1] < (b[0] + b[2]) / 2
    top = _span(green, row=green.getbbox()[1] + 3)
    assert top[1] - top[0] > 0.6 * (green.getbbox()[2] - green.getbbox()[0])   # the middle one's top is level
    # the last card is over the middle one where they overlap: green's right part is covered
    row = green.getbbox()[1] + 60
    assert _span(blue, row=row)[1] > _span(green, row=row)[1]
    assert _span(green, row=row)[1] < _span(blue, row=row)[0] + 5


def test_the_perspective_sends_each_corner_of_the_quad_to_the_card_corner():
    quad = ((10, 5), (90, 15), (95, 80), (5, 100))
    a, b, c, d, e, f, g, h = sc.perspective(quad, ((0, 0), (63, 0), (63, 88), (0, 88)))
    for (x, y), (u, v) in zip(quad, ((0, 0), (63, 0), (63, 88), (0, 88))):
        w = g * x + h * y + 1
        assert abs((a * x + b * y + c) / w - u) < 1e-9 and abs((d * x + e * y + f) / w - v) < 1e-9


@pytest.mark.slow   # two exports of a small game, end to end (the pictures' geometry is tested above)
def test_export_showcase_and_hand_write_one_png_of_the_asked_size(mini):
    root = mini("""
        - {id: a, name: Alpha, text: First.}
        - {id: b, name: Beta, text: Second.}
    """)
    made = run(root, "export", "showcase", "--cards", "b,a", "--size", "480x270")
    assert made.exit_code == 0, made.output
    folder = root / "output" / "mini" / "exports"
    picture = Image.open(folder / "showcase" / "showcase.png")
    assert picture.size == (480, 270) and picture.mode == "RGBA"
    assert picture.getchannel("A").getbbox()                   # cards drawn on a transparent ground
    manifest = json.loads((folder / "showcase" / "manifest.json").read_text())
    assert manifest["cards"] == ["b", "a"] and (manifest["width_px"], manifest["height_px"]) == (480, 270)
    made = run(root, "export", "hand", "--size", "300x260")
    assert made.exit_code == 0, made.output
    fan = Image.open(io.BytesIO((folder / "hand" / "hand.png").read_bytes()))
    assert fan.size == (300, 260)
    assert json.loads((folder / "hand" / "manifest.json").read_text())["cards"] == ["a", "b"]
    unknown = run(root, "export", "hand", "--cards", "zz")
    assert unknown.exit_code != 0 and "--cards names no card with a front: zz" in unknown.output
    assert "Traceback" not in unknown.output
    wrong = run(root, "export", "png", "--size", "300x200")
    assert wrong.exit_code == 2 and "--cards and --size are for `pnp export showcase|hand`" in wrong.output
