"""Component kinds: one table, one entry per way a deck is made into a component.

In: a deck's `kind:` word (cards, tiles, tokens, board, dice, standee...) and, for the
entries' questions, the deck's YAML or the `model.Deck`. Out: its `Kind`, which answers
every question pnp asks of a kind: the deck keys it alone takes and what load works out
of them, how its faces are drawn, its cut outline, how layout plans it (the planner is
looked up by `Kind.name` in `layout/pages.PLANNERS`), which exports take it, and its
words in `pnp list` and in the rulebook. A deck whose word is no entry's name is a
`sheet`: `kind: cards`, `tiles` and `tokens` are words for people, laid out alike.

A new kind is one entry in `KINDS`, one planner in `layout/pages.PLANNERS` (and its
geometry module), its keys in `assets/schemas/deck.schema.json`; `tests/test_kinds.py`
checks that every entry answers everything and that no other module compares a kind.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import units
from ..errors import Problem
from ..shapes import DICE, die_face_box
from .yamlsrc import line_of

Deck = Any   # a model.Deck (model asks this table; this table never imports model)


def _mm(value: float) -> str:
    """A size as a person reads it: millimetres to one decimal at most (25.8885 -> 25.9)."""
    return f"{round(value, 1):g}"


def _shape_words(deck: Deck, rect: str = "rect") -> str:
    """A deck's size and cut shape as a designer says it: '25 mm circle', '63 x 88 mm rect'."""
    if deck.shape == "circle":
        return f"{_mm(deck.trim_w)} mm circle"
    size = f"{_mm(deck.trim_w)} x {_mm(deck.trim_h)} mm"
    if deck.shape == "hex":
        return f"{size} hex ({deck.orientation}-top)"
    if deck.shape == "rounded":
        return f"{size} rounded ({deck.corner:g} mm corners)"
    return f"{size} {rect}"


def _board_words(deck: Deck) -> str:
    if deck.sections and deck.shape == "rect":
        return f"{_mm(deck.trim_w)} x {_mm(deck.trim_h)} mm board in {deck.sections[0]} x {deck.sections[1]} sections"
    return _shape_words(deck, "board")


def _dice_words(deck: Deck) -> str:
    return f"{deck.die} nets, {_mm(deck.edge or 0)} mm edges"


def _trim_size(deck: Deck, mm: Callable[[float], str]) -> dict[str, str]:
    return {"w": mm(deck.trim_w), "h": mm(deck.trim_h)}


def _die_size(deck: Deck, mm: Callable[[float], str]) -> dict[str, str]:
    return {"die": str(deck.die), "edge": mm(deck.edge or 0)}


def _board_geometry(raw, shown: str, bleed: float, problems: list[Problem]) -> dict[str, Any] | None:
    """A board's glue strip and the sections it is printed in exactly, if given."""
    extra: dict[str, Any] = {"overlap": units.to_mm(raw.get("overlap", 10))}
    if "sections" in raw:
        extra["sections"] = (raw["sections"]["cols"], raw["sections"]["rows"])
    return extra


def _dice_geometry(raw, shown: str, bleed: float, problems: list[Problem]) -> dict[str, Any] | None:
    """A die's face box from its solid and edge (its trim size, no corner, its polygon), or None."""
    line = line_of(raw, ("kind",))
    if "die" not in raw or "edge" not in raw or "size" in raw:
        problems.append(Problem(shown, "kind: dice takes `die` (d6, d8, d12) and `edge` (a face's edge length), "
                                       "not `size`", line=line, field="die"))
        return None
    edge = units.to_mm(raw["edge"])
    if not 5 <= edge <= 60:
        problems.append(Problem(shown, f"edge {edge:g} mm: a printable die face has an edge of 5 to 60 mm",
                                line=line_of(raw, ("edge",)), field="edge"))
        return None
    box_w, box_h, outline = die_face_box(raw["die"], edge, bleed)
    sides = DICE[raw["die"]][1]
    for i, c in enumerate(raw["cards"]):
        faces = c.get("faces") if isinstance(c, dict) else None
        if not isinstance(faces, list) or len(faces) != sides:
            found = f"{len(faces)} faces" if isinstance(faces, list) else "no `faces` list"
            problems.append(Problem(shown, f"a {raw['die']} has {sides} faces; the card has {found}",
                                    line=line_of(raw, ("cards", i)), card=c.get("id") if isinstance(c, dict) else None,
                                    field="faces"))
    return {"trim_w": box_w - 2 * bleed, "trim_h": box_h - 2 * bleed, "corner": 0.0, "die": raw["die"],
            "edge": edge, "face_outline": tuple((round(x, 4), round(y, 4)) for x, y in outline)}


@dataclass(frozen=True)
class Kind:
    """Everything pnp asks of one kind of component."""

    name: str                  # the layout's name (Deck.layout); a deck's `kind:` word, but for sheet
    words: str                 # what a designer writes as `kind:` (docs/reference.md)
    prints: str                # how it prints, for designers (docs/reference.md)
    listing: Callable[[Deck], str]   # its size and shape in `pnp list`
    keys: tuple[str, ...] = ()       # deck keys only this kind takes (deck.schema.json: "kind: <name>: ...")
    geometry: Callable[..., dict[str, Any] | None] | None = None  # load: Deck fields worked out of its keys
    gutter: bool = False       # takes `gutter` (rows and columns of rectangles on a sheet)
    per_face: bool = False     # the front template is drawn once per face (`face`, `face_number`); no back
    polygon: bool = False      # its cut outline is the polygon load worked out (Deck.face_outline), not its shape's
    gutter_fold: bool = False  # gutter-fold plans it on half the paper, fronts beside backs
    too_big: str = ""          # what to do when one does not fit the paper (after the layout's own words)
    seams: bool = False        # printed in glued panels: text a seam cuts is warned of
    card_exports: bool = False  # exported as cards: Tabletop Simulator decks, print-shop card products
    figure_designs: int = 4    # designs a rulebook's components figure shows of the deck
    shares_rows: bool = False  # decks of one design and one size share a components figure row
    wide_figure: bool = False  # pictured alone, it gets the text's width
    size_word: str = "size"    # the rulebook's word (rulebook/words.KEYS) for its size
    size: Callable[[Deck, Callable[[float], str]], dict[str, str]] = _trim_size  # that word's values


SHEET = Kind(
    "sheet", "any other word: `cards`, `reference`, `tiles`, `tokens`… (words for people)",
    "on sheets: rectangles in rows and columns with crop marks, round and hexagonal ones packed "
    "with their cut outlines; fronts and backs", _shape_words,
    gutter=True, gutter_fold=True, too_big="; use a smaller size, or kind: board to split it across pages",
    card_exports=True, shares_rows=True)
BOARD = Kind(
    "board", "`board`", "whole, in `sections`, or in panels glued along `overlap` strips; small ones "
    "like cards", _board_words, keys=("overlap", "sections"), geometry=_board_geometry, seams=True,
    wide_figure=True)
DICE_KIND = Kind(
    "dice", "`dice`", "as folding nets, one a card, its front template drawn once per face",
    _dice_words, keys=("die", "edge"), geometry=_dice_geometry, per_face=True, polygon=True, figure_designs=1,
    size_word="dice", size=_die_size)
STANDEE = Kind(
    "standee", "`standee`", "as fold-over standees with a base, front and back art back to back",
    _shape_words)

KINDS: tuple[Kind, ...] = (SHEET, BOARD, DICE_KIND, STANDEE)


def kind_of(word: str) -> Kind:
    """The kind a deck's `kind:` word asks for: the entry of that name, else a sheet."""
    return next((k for k in KINDS if k.name == word), SHEET)
