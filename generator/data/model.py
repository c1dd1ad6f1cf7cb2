"""The game as pnp understands it: plain frozen values passed from stage to stage.

Produced by `load`, read by every later stage, changed by none.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..shapes import face_outline
from .kinds import Kind, kind_of
from .yamlsrc import plain


@dataclass(frozen=True, slots=True)
class Source:
    """Where something was written: a file (relative to the project) and a line."""

    file: str
    line: int | None = None


@dataclass(frozen=True, slots=True)
class Card:
    """One component design; `count` copies are printed."""

    id: str
    name: str
    count: int
    front: str                 # template file, relative to templates/<game>/
    back: str | None           # template file, or None for a blank back
    fields: Mapping[str, Any]  # every key of the card as written (plus deck defaults)
    source: Source
    index: int                 # position in its deck file
    label: str = ""            # an edition's: the name sheets print in their slug line (the source's)

    def context(self) -> dict:
        """What templates see as `card`."""
        return dict(plain(dict(self.fields)), id=self.id, name=self.name, count=self.count)


@dataclass(frozen=True)
class Deck:
    """A set of components that share a size, a bleed and (by default) templates."""

    id: str
    name: str
    kind: str                  # cards, reference, tiles, tokens...: free words for people
    trim_w: float              # mm
    trim_h: float
    bleed: float
    safe: float
    corner: float              # corner radius of the cut, mm (drawn by templates, guides only)
    cards: tuple[Card, ...]
    source: Source
    raw: Mapping[str, Any] = field(repr=False, default_factory=dict)
    shape: str = "rect"            # rect, rounded, circle, hex: the cut outline
    orientation: str = "pointy"    # hex: pointy- or flat-top
    overlap: float = 10.0          # board: glue strip between panels, mm
    gutter: float | None = None    # cards, tiles: space between trim boxes on a sheet (None: pnp chooses)
    sections: tuple[int, int] | None = None  # board: (cols, rows) sections printed exactly
    die: str | None = None         # dice: d6, d8, d12
    edge: float | None = None      # dice: edge length of a face, mm
    face_outline: tuple = ()       # dice: the face polygon in face coordinates (mm, y down)
    label: str = ""                # an edition's: the name sheets print in their slug line (the source's)
    units: str = "mm"              # what its templates are drawn in: mm, or px at `dpi` (units.TEMPLATE_UNITS)
    dpi: float | None = None       # the resolution its pixels are at (`units: px`, lengths in px)

    @property
    def family(self) -> Kind:
        """Its kind's entry in `kinds.KINDS`: what pnp does with a deck of this kind."""
        return kind_of(self.kind)

    @property
    def layout(self) -> str:
        """How the deck is laid out: sheet (cards, tiles, tokens), board, dice or standee."""
        return self.family.name

    @property
    def width(self) -> float:
        """Width of a drawn face, bleed included (the SVG viewBox width)."""
        return self.trim_w + 2 * self.bleed

    @property
    def height(self) -> float:
        return self.trim_h + 2 * self.bleed

    def context(self) -> dict:
        """What templates see as `deck`."""
        b, s = self.bleed, self.safe
        return {
            "id": self.id, "name": self.name, "kind": self.kind,
            "width": self.width, "height": self.height, "bleed": b, "safe": s,
            "trim_w": self.trim_w, "trim_h": self.trim_h, "corner": self.corner,
            # boxes as x, y, w, h in face coordinates (origin at the bleed corner)
            "trim": (b, b, self.trim_w, self.trim_h),
            "safe_box": (b + s, b + s, self.trim_w - 2 * s, self.trim_h - 2 * s),
            "designs": len(self.cards), "copies": sum(c.count for c in self.cards),
            "shape": self.shape, "hex": self.orientation,
            "outline": list(self.face_outline) or face_outline(self.shape, b, self.trim_w, self.trim_h, self.corner,
                                                               self.orientation),
            "die": self.die, "edge": self.edge,
            **({"units": self.units, "dpi": self.dpi, "px": self._in_px()} if self.dpi else {}),
        }

    def _in_px(self) -> dict:
        """The deck's lengths in pixels at its dpi (for a template drawn in pixels)."""
        k = self.dpi / 25.4 if self.dpi else 1.0
        return {"width": self.width * k, "height": self.height * k, "trim_w": self.trim_w * k,
                "trim_h": self.trim_h * k, "bleed": self.bleed * k, "safe": self.safe * k}


@dataclass(frozen=True)
class Game:
    """Everything loaded from cards/<game>/ plus where its templates live."""

    id: str
    title: str
    root: Path                   # project root
    cards_dir: Path
    templates_dir: Path
    decks: tuple[Deck, ...]
    data: Mapping[str, Any]      # named data tables (game.yaml `data:`), for templates and rules
    data_sources: Mapping[str, str]
    meta: Mapping[str, Any]      # game.yaml as written (title, players, ...)
    source: Source
    notes: tuple = ()            # Problems of severity "note": things said once (a guessed encoding, ...)
    strings: Mapping[str, Any] = field(default_factory=dict)   # what templates print through t(), in its language
    edition: str = ""            # an edition's language when it is not the one the cards are written in
    slug: str = ""               # an edition's: the title sheets print in their slug line ("Olympians [de]")

    @property
    def sheet_title(self) -> str:
        """The title the sheets and cut files name the game by (for whoever prints and cuts)."""
        return self.slug or self.title

    @property
    def language(self) -> str:
        """The language of this game's (or edition's) words, BCP 47."""
        return str(self.meta.get("language") or (self.meta.get("languages") or ["en"])[0])

    @property
    def stem(self) -> str:
        """How its files begin: the game id, and an edition's language (olympians-de)."""
        return f"{self.id}-{self.edition}" if self.edition else self.id

    def deck(self, deck_id: str) -> Deck:
        for d in self.decks:
            if d.id == deck_id:
                return d
        raise KeyError(deck_id)

    def context(self) -> dict:
        """What templates and the rulebook see as `game`."""
        return {
            **{k: plain(v) for k, v in self.meta.items() if k not in ("decks", "data")},
            "id": self.id, "title": self.title, "data": plain(self.data),
            "decks": {d.id: _deck_entry(d) for d in self.decks},
        }


def _deck_entry(deck: Deck) -> dict:
    """A deck as templates and the rulebook see it in `game.decks`: its context, `cards` (one
    per design) and `printed` (one per printed copy), as in rules."""
    cards = [c.context() for c in deck.cards]
    printed = [ctx for ctx, card in zip(cards, deck.cards) for _ in range(card.count)]
    return {**deck.context(), "cards": cards, "printed": printed}
