"""`pnp check colour` (and `pnp validate --strict`): can every player tell the cards apart,
and read them, on every printer?

In: a loaded `Game` (its `distinguish:` fields in game.yaml), the session and the build's
face cache. Out: a `ColourCheck`: its problems, each naming the card, and the rows of its
printable sheet (`write_sheet`: `output/<game>/<game>-colour-<paper>.pdf`, laid out by
layout/coloursheet.py, written by the export stage). Every face is drawn small
(`DPI`, through the face cache: a check after a build draws nothing again; small text,
around its box, again at `FINE_DPI`) and seen as
each of `cvdbridge.SIMULATIONS` sees it:

- **told apart**: in each deck, the cards of two values of a `distinguish:` field (two
  suits) must share a non-colour cue that the other lacks (an icon's shape, a word: the
  cues every card of a value prints, draw/colourfacts.py) or else differ by `MIN_DELTA_E`
  (CAM02-UCS) under every simulation, measured where the two values' typical faces (the
  pixel-wise median of their cards) differ as printed;
- **read**: the text of every text box against the face drawn behind it (the median of the
  box's pixels that are not the text's colour), by WCAG 2.x's contrast ratio: below 3:1 is
  an error (text no one reads in a dim room), below 4.5:1 a warning unless the text is large
  (18 pt, or 14 pt bold), for which 3:1 is enough.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .data.model import Game
from .draw import cvdbridge
from .draw.colourfacts import Facts, TextBox, face_facts
from .errors import Problem
from .session import Session

if TYPE_CHECKING:
    from .draw.render import RenderedCard

DPI = 40                 # the faces measured: 1.6 px a mm
FINE_DPI = 300           # small text is measured again here, around its box (at DPI a 3 mm digit is a blur)
SMALL_MM = 12 * 25.4 / 72   # text below this size (12 pt) is small
SHEET_DPI = 110          # the faces on the printable sheet
MIN_DELTA_E = 15.0       # CAM02-UCS: two values told apart by colour alone differ by this under every simulation
DIFFERS = 10.0           # CAM02-UCS: where two typical faces differ as printed
MIN_CONTRAST, LARGE_CONTRAST = 4.5, 3.0
FAILS = 3.0              # below this contrast, an error
LARGE_MM, LARGE_BOLD_MM = 18 * 25.4 / 72, 14 * 25.4 / 72
COLUMNS = ("as printed", *cvdbridge.SIMULATIONS)


@dataclass(frozen=True)
class ColourCheck:
    game: Game
    problems: list[Problem]
    rows: list[tuple[str, list]]     # the sheet's rows: (caption, [image as printed, then each simulation])


def check_colour(game: Game, session: Session, cache=None, sheet: bool = True) -> ColourCheck:
    """The colour check of one edition of a game (`sheet`: with the rows of its sheet)."""
    from .draw.render import draw_found, render_svgs
    from .exports.raster import Rasteriser, pixels

    found = render_svgs(game, session)
    rendered = draw_found(game, found, session, cache)
    owners: dict[str, RenderedCard] = {}
    for rc in rendered.cards:
        for key in (rc.front, rc.back, *rc.faces):
            if key is not None:
                owners.setdefault(key, rc)
    facts = {key: session.memo.derived(("colour facts", key), lambda key=key: face_facts(found.svgs[key]))
             for key in owners}
    problems: list[Problem] = []
    rows: list[tuple[str, list]] = []
    with Rasteriser(rendered) as raster:
        def image(key: str, dpi: float = DPI):
            w, h = found.sizes[key]
            return raster.face(key, pixels(w, dpi), pixels(h, dpi), (0.0, 0.0, w, h))
        faces: dict[str, np.ndarray] = {}   # each face once at DPI, 8-bit RGB
        seen: set = set()
        def fine(key: str, box: TextBox) -> tuple[TextBox, np.ndarray, tuple[float, float]]:
            """The face around a small text box, drawn at FINE_DPI, and the box on it."""
            w, h = found.sizes[key]
            pad = 25.4 / DPI   # the pixel more on each side that `text_contrast` reads at DPI
            x0, y0 = max(box.box[0] - pad, 0.0), max(box.box[1] - pad, 0.0)
            x1, y1 = min(box.box[2] + pad, w), min(box.box[3] + pad, h)
            if x1 <= x0 or y1 <= y0:
                return box, faces[key], (w, h)
            part = raster.face_pixels(key, max(pixels(x1 - x0, FINE_DPI), 1), max(pixels(y1 - y0, FINE_DPI), 1),
                                      (x0, y0, x1 - x0, y1 - y0))
            moved = replace(box, box=(box.box[0] - x0, box.box[1] - y0, box.box[2] - x0, box.box[3] - y0))
            return moved, part, (x1 - x0, y1 - y0)
        for key, rc in owners.items():   # a face and its small text's parts in a row: its page loaded once
            w, h = found.sizes[key]
            faces[key] = raster.face_pixels(key, pixels(w, DPI), pixels(h, DPI), (0.0, 0.0, w, h))
            problems += _contrast_problems(rc, key, facts[key], faces[key], found.sizes[key], seen,
                                           lambda box, key=key: fine(key, box))
        for field in game.meta.get("distinguish") or ():
            for deck in game.decks:
                groups = _groups(rendered.cards, deck, field)
                if len(groups) < 2:
                    continue
                problems += _told_apart(deck, field, groups, facts, faces)
                if sheet:
                    rows += [(f"{deck.name}: {field} {value} ({cards[0].card.id})",
                              _seen(image(cards[0].front, SHEET_DPI))) for value, cards in groups.items()]
        if sheet and not rows:   # nothing to tell apart: the first faces of each deck
            for deck in game.decks:
                fronts = list(dict.fromkeys(rc.front for rc in rendered.cards if rc.deck is deck and rc.front))
                rows += [(f"{deck.name}: {owners[key].card.id}", _seen(image(key, SHEET_DPI))) for key in fronts[:3]]
    return ColourCheck(game, problems, rows)


def _groups(cards, deck, field: str) -> dict[str, list]:
    """The deck's cards (with a front) by their value of `field`, in the deck's order."""
    groups: dict[str, list] = {}
    for rc in cards:
        value = rc.card.fields.get(field)
        if rc.deck is deck and rc.front is not None and value is not None:
            groups.setdefault(str(value), []).append(rc)
    return groups


def _seen(image) -> list:
    """The face as printed, then as each simulation sees it."""
    from PIL import Image

    rgb = np.asarray(image, dtype=np.float64) / 255.0
    return [image] + [Image.fromarray(np.round(cvdbridge.simulate(rgb, s) * 255).astype(np.uint8))
                      for s in cvdbridge.SIMULATIONS]


def _told_apart(deck, field: str, groups: dict, facts: dict, faces: dict) -> list[Problem]:
    """A problem for each two values of `field` in `deck` told apart by colour alone, and
    by too little of it under some simulation."""
    cues = {v: frozenset.intersection(*(facts[rc.front].cues for rc in cards)) for v, cards in groups.items()}
    typical = {v: np.median(np.stack([faces[rc.front] for rc in cards]) / 255.0, axis=0) for v, cards in groups.items()}
    problems = []
    for a, b in combinations(groups, 2):
        if cues[a] != cues[b]:
            continue   # an icon or a word tells them apart
        first = groups[a][0]
        where = f"deck {deck.id}: {field} {a!r} and {b!r}"
        if typical[a].shape != typical[b].shape:
            continue
        printed = cvdbridge.delta_e(cvdbridge.ucs(typical[a]), cvdbridge.ucs(typical[b]))
        region = printed > DIFFERS
        if not region.any():
            problems.append(Problem(first.card.source.file, f"{where} look the same: no colour, icon or word tells "
                                    "them apart", line=first.card.source.line, card=first.card.id))
            continue
        worst = min((float(np.median(cvdbridge.delta_e(cvdbridge.ucs(cvdbridge.simulate(typical[a], s))[region],
                                                        cvdbridge.ucs(cvdbridge.simulate(typical[b], s))[region]))), s)
                     for s in cvdbridge.SIMULATIONS)
        if worst[0] < MIN_DELTA_E:
            problems.append(Problem(
                first.card.source.file, f"{where} differ by colour only, and look alike in {worst[1]} "
                f"(ΔE {worst[0]:.1f} < {MIN_DELTA_E:g}): give each {field} an icon or a word of its own",
                line=first.card.source.line, card=first.card.id))
    return problems


def _linear(rgb: np.ndarray) -> np.ndarray:
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


_LINEAR = _linear(np.arange(256) / 255.0)   # each 8-bit value linear, as `_linear` makes it of value / 255


def luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG 2.x's relative luminance of sRGB colours (0 to 1; 8-bit ones: 0 to 255, the
    same numbers as of rgb / 255, looked up)."""
    lin = _LINEAR[rgb] if rgb.dtype == np.uint8 else _linear(rgb)
    return lin @ np.array([0.2126, 0.7152, 0.0722])


def _median(pixels: np.ndarray, chosen: np.ndarray | None = None) -> np.ndarray:
    """np.median(pixels[chosen] / 255, axis=0) of 8-bit pixels (`chosen`: their indices;
    None: all), counted: exactly its numbers, without its sort; np.median of others."""
    if chosen is not None:
        pixels = np.take(pixels, chosen, axis=0)
    if pixels.dtype != np.uint8:
        return np.median(pixels, axis=0)
    n = len(pixels)
    counts = [np.bincount(channel, minlength=256) for channel in np.ascontiguousarray(pixels.T)]
    below = np.cumsum(counts, axis=1)   # of each channel, how many are <= each value
    low, high = ((below <= k).sum(axis=1) / 255.0 for k in ((n - 1) // 2, n // 2))   # the middle two values
    return low if n % 2 else (low + high) / 2   # np.median's mean of the middle two


def _middle(values: np.ndarray) -> float:
    """np.median(values) of a flat array without NaN: the same numbers, one partition."""
    n = len(values)
    if n % 2:
        return float(np.partition(values, n // 2)[n // 2])
    low, high = np.partition(values, (n // 2 - 1, n // 2))[n // 2 - 1:n // 2 + 1]
    return float((low + high) / 2)


def contrast(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """WCAG 2.x's contrast ratio of colours (1 to 21)."""
    return _ratio(luminance(a), luminance(b))


def _ratio(la, lb):
    high, low = np.maximum(la, lb), np.minimum(la, lb)
    high += 0.05   # in place: the same numbers as (high + 0.05) / (low + 0.05), fewer arrays made
    low += 0.05
    high /= low
    return high


def text_contrast(box: TextBox, face: np.ndarray, size_mm: tuple[float, float]) -> float | None:
    """The contrast of a text box's colour with the face behind it (None: the box is off the
    face, or its colour is a gradient or faint); `face`: RGB, 0 to 1 or 8-bit."""
    if box.colour is None:
        return None
    h, w = face.shape[:2]
    sx, sy = w / size_mm[0], h / size_mm[1]
    x0, y0, x1, y1 = box.box
    # a pixel more on each side: small text at DPI covers its own box with its edges
    c0, c1 = max(int(x0 * sx) - 1, 0), min(int(np.ceil(x1 * sx)) + 1, w)
    r0, r1 = max(int(y0 * sy) - 1, 0), min(int(np.ceil(y1 * sy)) + 1, h)
    if c1 <= c0 or r1 <= r0:
        return None
    pixels = face[r0:r1, c0:c1].reshape(-1, 3)
    colour = np.array(box.colour)
    ratios = _ratio(luminance(pixels), luminance(colour))
    behind = np.flatnonzero(ratios >= 1.4)   # not the text's own pixels
    if len(behind) < 0.1 * len(pixels):
        return float(contrast(_median(pixels), colour))
    # the text's anti-aliased edges (and a shape of the text's colour beside it) blend towards
    # its colour: the face behind is the farther half of what is not the text
    far = ratios[behind]
    background = _median(pixels, behind[far >= _middle(far)])
    return float(contrast(background, colour))


def _contrast_problems(rc, key: str, facts: Facts, face: np.ndarray, size_mm, seen: set, fine) -> list[Problem]:
    """The face's text boxes below WCAG's contrast; `fine(box)` draws a small box's part of
    the face again at FINE_DPI (the box on it, it, its size in mm)."""
    problems = []
    side = "front" if key == rc.front else "back" if key == rc.back else "a face"
    for box in facts.texts:
        small = box.colour is not None and box.size < SMALL_MM
        ratio = text_contrast(*fine(box)) if small else text_contrast(box, face, size_mm)
        large = box.size >= LARGE_MM or (box.bold and box.size >= LARGE_BOLD_MM)
        needed = LARGE_CONTRAST if large else MIN_CONTRAST
        if ratio is None or ratio >= needed:   # None: off the face, or a colour not measured
            continue
        shown = " ".join(box.text.split())
        shown = shown if len(shown) <= 40 else shown[:39] + "…"
        # a box many cards share: once (and an error is not hidden behind a warning)
        once = (rc.deck.id, side, tuple(round(v) for v in box.box), box.colour, ratio < FAILS)
        if once in seen:
            continue
        seen.add(once)
        problems.append(Problem(
            rc.card.source.file, f"{side}: text {shown!r} has contrast {ratio:.1f}:1 with what is behind it "
            f"(WCAG asks {needed:g}:1{' for large text' if large else ''})", line=rc.card.source.line,
            card=rc.card.id, severity="error" if ratio < FAILS else "warning"))
    return problems


def write_sheet(out_dir: Path, checked: ColourCheck, paper: str) -> list[Path]:
    """The check's printable sheet, `<game>-colour-<paper>.pdf`, merged into the game's files."""
    from .exports.files import Artifact, write_game
    from .layout.coloursheet import colour_sheet_pdf

    game = checked.game
    data, pages = colour_sheet_pdf(checked.rows, COLUMNS, paper, game.sheet_title)
    artifact = Artifact(f"{game.stem}-colour-{paper}.pdf", data, "colour", paper, pages)
    return [p for p in write_game(out_dir, game.id, [artifact], merge=True) if p.suffix == ".pdf"]
