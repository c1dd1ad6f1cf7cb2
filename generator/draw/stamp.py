"""Version stamps: one small line of real text on every face, so printed iterations can be
told apart on the table.

In: the stamp a build is asked for (`pnp build --stamp TEXT`, else game.yaml's `print:
stamp:`; off by default) with `{version}` and `{date}` in it, the project folder, and
`print: stamp_place:` (`safe`, the default, or `bleed`). Out: a `Stamp` (the text and where
it goes) whose `on(svg, deck)` adds the text to a face's SVG, and problems naming the
deck where it cannot fit.

- `{version}` is `git describe --tags --always` of the project, with `-dirty` when the
  game's cards or templates have uncommitted changes, or `unversioned` outside git.
- `{id}` is each card's short id (`cardid.py`: six characters of its content's digest), so
  a printed card is matched to its version (`pnp changes`); page footers leave it out.
- `{date}` is the date of the build's input, never the clock: `SOURCE_DATE_EPOCH` when it is
  set (the reproducible-builds convention, for giving it explicitly), else the committer
  date of the project's last commit, else `undated`.
So two builds of the same inputs draw the same stamp and write the same bytes; only a new
commit or an edit changes it. git is only read (`--no-optional-locks`: not even the index
is refreshed) and never reaches the network.

Placement, on every face (sheets, exports and the kit all draw these faces): `safe` puts
the line inside the trim at the bottom, in the margin between the cut and the safe area
(it stays on the cut card, away from the template's content); `bleed` puts it just below
the trim in the bleed, so it is cut away (on sheets where neighbours share a cut line only
the faces of the bottom row keep that strip). The text is Lato, at most 1.6 mm tall,
shrunk to the room the outline leaves at that height (circles, hexes and die faces too);
less than 0.9 mm is a problem naming the deck (a pointy-top hex has a corner at the
bottom: little room there). It is black (K only in a CMYK file) on a
small white label of its own, so it reads on dark art and needs no transparency. Page
footers (sheets and rulebooks) repeat the stamp.
"""
from __future__ import annotations

import functools
import math
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from ..errors import InputError, Problem
from ..guard import git_command, git_env
from ..shapes import Outline

PLACES = ("safe", "bleed")
MAX_TEMPLATE = 80     # characters of a stamp as written
SIZE, MIN_SIZE = 1.6, 0.9   # mm: font size of the line, and the least it may shrink to
FONT = "Lato"
FIELD = re.compile(r"\{(\w*)\}")
PAD = 0.3   # the white label reaches this many font sizes beyond the text on each side
ID_LENGTH = 6   # cardid.LENGTH: a short card id's characters


@dataclass(frozen=True)
class Stamp:
    text: str            # as page footers print it (without a card's id)
    place: str = "safe"
    face: str = ""       # as faces print it, `{id}` standing for each card's short id; "": `text`

    def on(self, svg: str, deck, card_id: str = "") -> str:
        """The face's SVG with the stamp drawn last (on top of the art), in its own coordinates;
        `card_id`: the card's short id (cardid.py), for a stamp with `{id}`."""
        element = stamp_element(self.for_card(card_id), deck)
        end = svg.rindex("</svg>")
        return svg[:end] + element + svg[end:]

    def for_card(self, card_id: str) -> Stamp:
        """The stamp a card's faces print: `{id}` filled with its short id."""
        return Stamp(self.face.replace("{id}", card_id), self.place) if self.face else self

    @property
    def widest(self) -> Stamp:
        """The stamp with the widest id it may print, to measure its room."""
        return self.for_card("W" * ID_LENGTH)


def stamp_of(game, asked: str | None = None) -> Stamp | None:
    """The stamp of a build of `game`: `asked` (the command line's; "" turns the game's off),
    else game.yaml's `print: stamp`; None when there is none."""
    settings = game.meta.get("print") or {}
    template = asked if asked is not None else settings.get("stamp")
    if not template:
        return None
    where = ("the command line's --stamp" if asked is not None else f"{game.source.file}: print: stamp")
    text = expand(str(template), game.root, game.id, where)
    footer = re.sub(r"\s*\{id\}\s*", " ", text).strip(" ·-|/,;:") if "{id}" in text else text
    stamp = Stamp(footer, settings.get("stamp_place", "safe"), text if "{id}" in text else "")
    problems = fit_problems(stamp, game)
    if problems:
        raise InputError(f"the stamp {text!r} cannot be drawn", problems)
    return stamp


def expand(template: str, root: Path, game_id: str, where: str = "the stamp") -> str:
    """`template` with `{version}` and `{date}` filled in, `{id}` (each card's short id) kept
    for the faces to fill; any other field is an error."""
    if len(template) > MAX_TEMPLATE:
        raise InputError(f"{where}: a stamp is at most {MAX_TEMPLATE} characters ({len(template)} given)")
    if any(ord(c) < 32 for c in template):
        raise InputError(f"{where}: a stamp is one line of text (no control characters)")
    unknown = sorted({m.group(1) for m in FIELD.finditer(template)} - {"version", "date", "id"})
    if unknown or template.count("{") != len(FIELD.findall(template)) or \
            template.count("}") != len(FIELD.findall(template)):
        raise InputError(f"{where}: {template!r}: a stamp may use {{version}}, {{date}} and {{id}} only"
                         + (f" (not {', '.join('{' + u + '}' for u in unknown)})" if unknown else ""))
    values = {}
    if "{version}" in template:
        values["version"] = version_of(root, game_id)
    if "{date}" in template:
        values["date"] = date_of(root)
    return FIELD.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def _git(root: Path, *args: str) -> str | None:
    """A read-only git command in the project, or None (no git, not a repository, an error);
    in an untrusted build, the answer git gave before the jail (`before_jail`)."""
    if _before.cache_info().currsize:
        return _before(str(root), args)
    return _run_git(root, *args)


def _run_git(root: Path | str, *args: str) -> str | None:
    try:
        done = subprocess.run(git_command(root, *args), capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL, env=git_env())
    except PermissionError:   # the jail of an untrusted build refuses to run a program
        raise InputError(f"the stamp needs `git {' '.join(args[:2])}`, which an untrusted build cannot run "
                         "(--untrusted, on where CI is set): give --stamp without {version} and {date}, set "
                         "SOURCE_DATE_EPOCH for {date}, or build with --trusted") from None
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@functools.lru_cache(maxsize=64)
def _before(root: str, args: tuple[str, ...]) -> str | None:
    return _run_git(root, *args)


def before_jail(root: Path) -> None:
    """Ask git now, before an untrusted build confines itself (no program runs in the jail),
    everything a stamp of any game of the project may need; the stamp reads these answers
    for the rest of this process (one build)."""
    from ..data.load import list_games

    for args in (DESCRIBE, LAST_DATE, *(_changed_args(g) for g in list_games(root))):
        _before(str(root), args)


DESCRIBE = ("describe", "--tags", "--always")
LAST_DATE = ("log", "-1", "--format=%cd", "--date=short")


def _changed_args(game_id: str) -> tuple[str, ...]:
    return ("status", "--porcelain", "--", f"cards/{game_id}", f"templates/{game_id}", "templates/_shared")


def version_of(root: Path, game_id: str) -> str:
    """`git describe --tags --always` of the project, `-dirty` when the game's own inputs
    have uncommitted changes; `unversioned` outside git."""
    described = _git(root, *DESCRIBE)
    if not described:
        return "unversioned"
    changed = _git(root, *_changed_args(game_id))
    return described + ("-dirty" if changed else "")


def date_of(root: Path) -> str:
    """SOURCE_DATE_EPOCH's date, else the last commit's, else `undated` (never today's)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        try:
            return time.strftime("%Y-%m-%d", time.gmtime(int(epoch)))
        except (ValueError, OverflowError, OSError):
            raise InputError(f"SOURCE_DATE_EPOCH={epoch!r} is not a number of seconds") from None
    return _git(root, *LAST_DATE) or "undated"


# --- where the line goes on a face ---------------------------------------------------------

def _band(stamp: Stamp, deck) -> tuple[float, float, Outline]:
    """(top, bottom) of the strip the line sits in (face coordinates, y down) and the outline
    whose width it must keep within."""
    b, h = deck.bleed, deck.trim_h
    trim = _outline(deck)
    if stamp.place == "bleed":
        return b + h, b + h + b, trim.grown(b)
    inset = max(deck.safe, 0.0)
    return b + h - inset, b + h, trim


def _outline(deck) -> Outline:
    """The cut in face coordinates, y down (die faces: their polygon)."""
    if deck.face_outline:
        return Outline.of_polygon(deck.face_outline)
    shape = deck.shape if deck.shape in ("circle", "hex", "rounded") else "rect"
    return Outline(shape, deck.bleed, deck.bleed, deck.trim_w, deck.trim_h, deck.corner, deck.orientation)


def _chord(outline: Outline, y: float) -> tuple[float, float] | None:
    """Left and right x where the horizontal line at `y` crosses the outline (None: it misses)."""
    if outline.shape == "circle":
        cx, cy = outline.centre
        r = outline.w / 2
        if abs(y - cy) >= r:
            return None
        half = math.sqrt(r * r - (y - cy) ** 2)
        return cx - half, cx + half
    if outline.shape == "rounded":
        x0, x1, r = outline.x, outline.x + outline.w, min(outline.corner, outline.w / 2, outline.h / 2)
        if not outline.y <= y <= outline.y + outline.h:
            return None
        edge = min(y - outline.y, outline.y + outline.h - y)
        inset = r - math.sqrt(max(r * r - (r - edge) ** 2, 0.0)) if edge < r else 0.0
        return x0 + inset, x1 - inset
    points = outline.polygon()
    xs = []
    for (xa, ya), (xb, yb) in zip(points, points[1:] + points[:1]):
        if min(ya, yb) <= y <= max(ya, yb) and ya != yb:
            xs.append(xa + (y - ya) * (xb - xa) / (yb - ya))
    return (min(xs), max(xs)) if len(xs) >= 2 else None


def layout(stamp: Stamp, deck) -> tuple[float, float, float] | None:
    """(centre x, baseline y, font size) of the line on a face of `deck`, or None when it
    cannot fit at MIN_SIZE."""
    from .fonts import shipped

    top, bottom, outline = _band(stamp, deck)
    size = min(SIZE, (bottom - top) * 0.8)
    face = shipped().face(FONT)
    per_mm = face.width(stamp.text, 1.0) + 2 * PAD   # width of the label at a size of 1 mm
    margin = 0.5   # from where the line meets the outline (the chord already keeps off round corners)
    for _ in range(8):   # the room narrows as the text grows taller: settle the size in a few steps
        cap = 0.72 * size
        baseline = (top + bottom) / 2 + cap / 2
        found = [_chord(outline, y) for y in (baseline - cap, baseline)]
        chords = [c for c in found if c is not None]
        if len(chords) < len(found):
            return None
        left, right = max(c[0] for c in chords), min(c[1] for c in chords)
        room = right - left - 2 * margin
        fitted = min(size, room / per_mm)
        if fitted >= size - 1e-6:
            break
        size = fitted
    if size < MIN_SIZE:
        return None
    return (left + right) / 2, baseline, size


def stamp_element(stamp: Stamp, deck) -> str:
    placed = layout(stamp, deck)
    if placed is None:  # fit_problems refuses such a stamp before anything is drawn
        raise ValueError(f"the stamp does not fit on a face of deck {deck.id}")
    from .fonts import shipped

    x, y, size = placed
    width = shipped().face(FONT).width(stamp.text, size) + 2 * PAD * size
    label = (f'<rect x="{x - width / 2:.3f}" y="{y - 0.92 * size:.3f}" width="{width:.3f}" height="{1.16 * size:.3f}" '
             f'rx="{0.2 * size:.3f}" fill="#ffffff"/>')
    return (f'<g data-pnp="stamp">{label}<text x="{x:.3f}" y="{y:.3f}" font-family="{FONT}" font-size="{size:.3f}" '
            f'text-anchor="middle" fill="#000000">{escape(stamp.text)}</text></g>')


def fit_problems(stamp: Stamp, game) -> list[Problem]:
    """A problem per deck whose faces have no room for the stamp, or whose font lacks one of
    its characters."""
    from ..data.yamlsrc import line_of
    from .fonts import shipped
    from .glyphs import missing_message

    face = shipped().face(FONT)
    stamp = stamp.widest
    missing = face.missing(stamp.text)
    if missing:
        return [Problem(game.source.file, missing_message(missing[0], face), field="stamp")]
    problems = []
    for deck in game.decks:
        if layout(stamp, deck) is None:
            where = "margin between the cut and the safe area" if stamp.place == "safe" else "bleed"
            problems.append(Problem(deck.source.file, f"deck {deck.id}: the stamp {stamp.text!r} does not fit in the "
                                    f"{where} at {MIN_SIZE} mm: shorten it, widen `safe`/`bleed`, or use "
                                    f"stamp_place: {'bleed' if stamp.place == 'safe' else 'safe'}",
                                    line=line_of(deck.raw, ("safe",) if stamp.place == "safe" else ("bleed",))))
    return problems
