"""Load a game folder: YAML files in, a checked `Game` out.

In: `cards/<game>/game.yaml`, the deck files it lists and its data tables, plus the
templates folder `templates/<game>/`. Out: a frozen `model.Game`. Every file is checked
against its JSON Schema (a deck's cards against the fields the deck declares); all
problems are collected and raised together as one `InputError`.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .. import units
from ..errors import InputError, Problem, collect
from ..guard import (
    MAX_COPIES,
    MAX_COUNT,
    MAX_SIZE_MM,
    OutsideProject,
    is_file_inside,
    missing_message,
    read_text_inside,
    shorten,
)
from ..rendermemo import Memo
from ..session import Session
from ..shapes import hex_height
from .cardsource import read_cards, sides_problem, with_hints
from .editions import read_source_strings
from .kinds import KINDS, kind_of
from .model import Card, Deck, Game, Source
from .schema import NOT_BLANK, bundled, check, check_items, schema_problem
from .spreadsheet import CardRows, make_ids
from .yamlsrc import line_of, read_kept

CARD_KEYS = {
    "id": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.-]*$"},
    "name": {"type": "string", "minLength": 1, "pattern": NOT_BLANK},
    "count": {"type": "integer", "minimum": 0, "maximum": MAX_COUNT,
              "description": f"at most {MAX_COUNT:,} copies of one card"},
    "front": {"type": "string"},
    "back": {"type": ["string", "null"]},
}
DEFAULT_BLEED, DEFAULT_SAFE = 3.0, 3.0
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]")


def list_games(root: Path) -> list[str]:
    """Game ids: folders of cards/ that hold a game.yaml, in name order."""
    cards = root / "cards"
    return sorted(p.parent.name for p in cards.glob("*/game.yaml")) if cards.is_dir() else []


def load_game(root: Path, game_id: str, session: Session) -> Game:
    """Read and check one game; a remembering session's memo skips the schema check of
    cards that passed it before, exactly as they are now.

    :raises InputError: listing every problem found, each with file and line.
    """
    memo = session.memo
    cards_dir = root / "cards" / game_id
    game_file = cards_dir / "game.yaml"
    if not game_file.is_file():
        known = ", ".join(list_games(root)) or "none"
        raise InputError(f"no game '{game_id}' (games: {known})")
    rel = lambda p: str(p.relative_to(root))
    if not is_file_inside(root, game_file):
        raise InputError(missing_message(root, game_file, rel(game_file)))
    meta, digest = read_kept(game_file, rel(game_file), memo)
    problems = memo.unless_passed(lambda: ("game schema", digest), lambda: check(meta, bundled("game"), rel(game_file)))
    listed = [str(x).lower() for x in meta.get("languages") or []] if isinstance(meta, dict) else []
    if len(set(listed)) < len(listed):
        problems.append(Problem(rel(game_file), "a language is listed twice (languages are told apart without regard "
                                "to case: de and DE would share a file name)", line=line_of(meta, ("languages",)),
                                field="languages"))
    if isinstance(meta, dict) and "language" in meta and "languages" in meta:
        problems.append(Problem(rel(game_file), "language: is the one language of a game, languages: lists a game's "
                                "editions (the first is the language its cards are written in): keep one of them",
                                line=line_of(meta, ("languages",)), field="languages"))
    collect(f"in {rel(game_file)}", problems)
    for key, usual in (("rules", "rules.yaml"), ("rulebook", "rulebook.md")):
        if key not in meta and (cards_dir / usual).is_file():   # (`rules: null`: left out on purpose, said nothing)
            problems.append(Problem(rel(game_file), f"{usual} is not read: game.yaml names no {key} file (add "
                                    f"`{key}: {usual}` to use it)", field=key, severity="note"))

    templates_dir = root / "templates" / game_id
    data, data_sources = _load_data(meta, cards_dir, rel, problems, root, memo)
    strings = read_source_strings(root, cards_dir, meta, problems)
    decks = []
    seen_ids: dict[str, str] = {}   # card id -> where it was first seen (file:line)
    made: set[str] = set()          # the ids made from a card's name (or position)
    for i, name in enumerate(meta["decks"]):
        path = cards_dir / name
        if not is_file_inside(root, path):
            problems.append(Problem(rel(game_file), missing_message(root, path, f"deck file '{name}'"),
                                    line=line_of(meta, ("decks", i)), field="decks"))
            continue
        deck = _load_deck(path, rel(path), templates_dir, problems, memo, made)
        if deck is None:
            continue
        for card in deck.cards:
            if card.id in seen_ids:
                why = (" — made from a card's name: give one of them an `id:` (or another name)"
                       if card.id in made else "")
                problems.append(Problem(card.source.file, f"card id '{card.id}' is used twice "
                                        f"(also {seen_ids[card.id]}){why}", line=card.source.line, card=card.id,
                                        field="id"))
            seen_ids[card.id] = f"{card.source.file}:{card.source.line}"
        decks.append(deck)
    copies = sum(c.count for d in decks for c in d.cards)
    if copies > MAX_COPIES:
        problems.append(Problem(rel(game_file), f"the game prints {copies:,} components; pnp prints at most "
                                f"{MAX_COPIES:,} per game (lower some counts)", field="decks"))
    deck_ids = [d.id for d in decks]
    for d in decks:
        if deck_ids.count(d.id) > 1:
            problems.append(Problem(d.source.file, f"deck id '{d.id}' is used by more than one file",
                                    line=d.source.line, field="deck"))
    notes = tuple(p for p in problems if p.severity == "note")  # said once, with a good build
    collect(f"in cards/{game_id}/", [p for p in problems if p.severity != "note"])
    return Game(id=game_id, title=meta["title"], root=root, cards_dir=cards_dir,
                templates_dir=templates_dir, decks=tuple(decks), data=data,
                data_sources=data_sources, meta=meta, source=Source(rel(game_file), 1), notes=notes, strings=strings)


def _load_data(meta, cards_dir, rel, problems, root, memo: Memo):
    data, sources = {}, {}
    for name, spec in (meta.get("data") or {}).items():
        path, schema_path = cards_dir / spec["file"], cards_dir / spec["schema"]
        where = Problem(rel(cards_dir / "game.yaml"), "", line=line_of(meta, ("data", name)), field=f"data.{name}")
        if not is_file_inside(root, path) or not is_file_inside(root, schema_path):
            missing = (path, spec["file"]) if not is_file_inside(root, path) else (schema_path, spec["schema"])
            problems.append(_with(where, missing_message(root, missing[0], f"file '{missing[1]}'")))
            continue
        try:
            schema_text = read_text_inside(root, schema_path, rel(schema_path))
            schema = json.loads(schema_text)
        except OutsideProject as exc:
            problems.append(Problem(rel(schema_path), str(exc)))
            continue
        except (ValueError, RecursionError) as exc:
            problems.append(Problem(rel(schema_path), f"not valid JSON: {shorten(str(exc), 200)}"))
            continue
        bad = schema_problem(schema)
        if bad:
            problems.append(Problem(rel(schema_path), f"not a valid JSON Schema: {bad}"))
            continue
        try:
            value, digest = read_kept(path, rel(path), memo)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        key = ("data schema", digest, schema_text)
        problems.extend(memo.unless_passed(lambda key=key: key, lambda v=value, s=schema, p=rel(path): check(v, s, p)))
        data[name], sources[name] = value, rel(path)
    return data, sources


def _with(p: Problem, message: str) -> Problem:
    return Problem(p.file, message, line=p.line, card=p.card, field=p.field)


def _template_problem(templates_dir: Path, template: str) -> str | None:
    """Why a template name cannot be used (outside the project, missing), or None."""
    root = templates_dir.parent.parent
    path = templates_dir / template
    if is_file_inside(root, path):
        return None
    message = missing_message(root, path, f"template '{shorten(template)}'")
    return message.replace("does not exist", f"not found in {templates_dir.name}/")


def _text_problems(card: dict, shown: str, raw, i: int) -> list[Problem]:
    """Control characters in a card's text: SVG cannot hold them (a tab or newline is fine)."""
    found: list[Problem] = []
    stack: list[tuple[tuple, Any]] = [((k,), v) for k, v in card.items()]   # (path of keys, value)
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend(((*path, k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend(((*path, n), v) for n, v in enumerate(value))
        elif isinstance(value, str):
            hit = _CONTROL.search(value)  # the first one, in one pass
            if hit is not None:
                bad = hit.group()
                found.append(Problem(shown, f"control character U+{ord(bad):04X} cannot be printed (in "
                                     f"{shorten(value)!r})", line=line_of(raw, ("cards", i, *path)),
                                     card=str(card.get("id")), field=".".join(map(str, path))))
    return found


def _load_deck(path: Path, shown: str, templates_dir: Path, problems: list, memo: Memo,
               made: set[str]) -> Deck | None:
    try:
        raw, digest = read_kept(path, shown, memo)
    except InputError as exc:
        problems.extend(exc.problems)
        return None
    found = memo.unless_passed(lambda: ("deck schema", digest), lambda: check(raw, bundled("deck"), shown))
    if found:
        problems.extend(found)
        return None
    cards_schema, bad = card_schema(raw, shown, lambda check: memo.unless_passed(lambda: ("defaults", digest), check))
    if bad:
        problems.extend(bad)
        return None
    cards_file, table = shown, None  # where the cards were written: the deck, or its spreadsheet
    if isinstance(raw["cards"], dict):
        table = _cards_from_table(raw, path, shown, cards_schema, problems)
        if table is None:
            return None
        cards_file = table.file
    side = sides_problem(raw["cards"], table, shown, line_of(raw, ("cards",)),
                         lambda t: _template_problem(templates_dir, t) is None)
    if side is not None:
        problems.append(side)
        return None
    rows = table or CardRows(None, shown)
    if table is None:  # a YAML list: ids made as a sheet's are
        make_ids(raw["cards"], rows, positions=True)
    made.update(rows.made)

    def card_of(p):
        if len(p) >= 2 and p[0] == "cards" and isinstance(p[1], int):
            c = raw["cards"][p[1]]
            card = c.get("id") if isinstance(c, dict) else None
            return shorten(str(card)) if card not in (None, "") else f"#{p[1] + 1}", 2
        return None, 0

    found = with_hints(check_items(raw, "cards", cards_schema, cards_file, card_of, memo), table)
    if table is not None:  # a sheet's own row problems with the schema's, row by row, each told once
        found = [p for p in found if (p.line, (p.field or "").split(".")[0]) not in table.reported]
        found = sorted([*table.problems, *found], key=lambda p: p.line or 0)
    problems.extend(found)
    geometry = _geometry(raw, shown, problems)
    defaults = raw.get("defaults") or {}
    front, back = raw["front"], raw.get("back")
    for key, template in (("front", front), ("back", back)):
        why = _template_problem(templates_dir, template) if template is not None else None
        if why:
            problems.append(Problem(shown, why, line=line_of(raw, (key,)), field=key))
    unprintable = [p for i, c in enumerate(raw["cards"]) if isinstance(c, dict)
                   for p in _text_problems(c, cards_file, raw, i)]
    problems.extend(unprintable)
    if found or unprintable or geometry is None:
        return None
    cards = []
    for i, c in enumerate(raw["cards"]):
        line = line_of(raw, ("cards", i))
        for key in ("front", "back"):
            t = c.get(key)
            why = _template_problem(templates_dir, t) if t else None
            if why:
                problems.append(Problem(cards_file, why, line=line_of(raw, ("cards", i, key)), card=c["id"], field=key))
        own = not defaults and "front" not in c and "back" not in c  # the card as written is its fields
        fields = c if own else {**defaults, **{k: v for k, v in c.items() if k not in ("front", "back")}}
        cards.append(Card(id=c["id"], name=c["name"], count=c.get("count", 1),
                          front=c.get("front", front), back=c.get("back", back),
                          fields=fields, source=Source(cards_file, line), index=i))
    return Deck(id=raw["deck"], name=raw["name"], kind=raw.get("kind", "cards"), cards=tuple(cards),
                source=Source(shown, raw.line), raw=raw, **geometry)


def _cards_from_table(raw, path: Path, shown: str, schema: dict, problems: list):
    """Replace a deck's `cards: {from: ..., sheet: ...}` (or `{range: ...}`) by the cards of that
    spreadsheet, JSON or YAML file (see cardsource.py); returns its `CardRows` (problems with
    single rows are left in it, to be told with the schema's in row order), or None when the
    file cannot be used."""
    root = path.parents[2] if len(path.parents) > 2 else path.parent
    table = read_cards(raw["cards"], path.parent, root, schema["properties"], schema["required"], shown)
    problems.extend(table.notes)
    if table.cards is None:
        for p in table.problems:  # problems with the table itself point at the deck's `cards:` line when they have none
            problems.append(p if p.line else Problem(shown, f"{p.file}: {p.message}",
                                                     line=line_of(raw, ("cards",)), field="cards"))
        return None
    if not table.cards:
        problems.append(Problem(table.file, "the table has a header but no cards" if not table.mapped
                                else "no cards", line=1))
        return None
    raw["cards"] = table.cards
    return table


def card_schema(raw, shown, unless_passed=lambda check: check()):
    """The JSON Schema of one card of deck `raw` (its fields, the built-in keys, its required
    fields), and the problems with the deck's `fields:`, `required:` and `defaults:`
    (`unless_passed(check)`: the defaults' check, not made again for a deck that passed it)."""
    fields = raw.get("fields") or {}
    problems = []
    for name, sub in fields.items():
        if name in CARD_KEYS:
            problems.append(Problem(shown, f"'{name}' is built in; do not declare it",
                                    line=line_of(raw, ("fields", name)), field=f"fields.{name}"))
        bad = schema_problem(sub)
        if bad:
            problems.append(Problem(shown, f"not a valid JSON Schema: {bad}",
                                    line=line_of(raw, ("fields", name)), field=f"fields.{name}"))
    required = ["id", "name", *(raw.get("required") or [])]
    for i, name in enumerate(raw.get("required") or []):
        if name not in fields:
            problems.append(Problem(shown, f"required field '{name}' is not declared in fields",
                                    line=line_of(raw, ("required", i)), field="required"))
    defaults = raw.get("defaults") or {}
    for name in defaults:
        if name not in fields:
            problems.append(Problem(shown, f"default for undeclared field '{name}'",
                                    line=line_of(raw, ("defaults", name)), field="defaults"))
    if not problems:  # a default must be a value its field accepts
        wrapped = {"type": "object", "properties": {"defaults": {"type": "object", "properties": fields}}}
        problems.extend(unless_passed(lambda: check(raw, wrapped, shown)))
    spec = raw.get("cards")
    mapped = {str(k): {} for k in ((spec.get("fields") or {}) if isinstance(spec, dict) else {})
              if k not in CARD_KEYS and k not in fields}   # a field the deck maps but does not declare: any value
    schema = {"type": "object", "required": required, "additionalProperties": False,
              "properties": {**CARD_KEYS, **fields, **mapped}}
    return schema, problems


def _geometry(raw, shown, problems):
    kind = kind_of(raw.get("kind", "cards"))
    dpi = raw.get("dpi")   # lengths in px, templates drawn in px (`units: px`)
    if raw.get("units") == "px" and not dpi:
        problems.append(Problem(shown, "units: px needs the pixels' resolution: add dpi: (e.g. dpi: 300)",
                                line=line_of(raw, ("units",)), field="units"))
        return None
    try:
        size = raw.get("size", "poker")
        w, h = units.CARD_SIZES[size] if isinstance(size, str) else (
            units.to_mm(size["width"], dpi), units.to_mm(size["height"], dpi))
        bleed = units.to_mm(raw.get("bleed", DEFAULT_BLEED), dpi)
        safe = units.to_mm(raw.get("safe", DEFAULT_SAFE), dpi)
        corner = units.to_mm(raw.get("corner", 3.0 if w < 150 else 0.0), dpi)
    except (ValueError, KeyError) as exc:
        problems.append(Problem(shown, str(exc), line=line_of(raw, ("size",)), field="size"))
        return None
    if not all(0 <= v <= MAX_SIZE_MM for v in (w, h, bleed, safe, corner)):  # also inf and nan
        problems.append(Problem(shown, f"size {w:g} x {h:g} mm, bleed {bleed:g}, safe {safe:g}, corner {corner:g}: "
                                f"each must be 0 to {MAX_SIZE_MM:g} mm (2 m)", line=line_of(raw, ("size",)),
                                field="size"))
        return None
    shape, orientation = raw.get("shape", "rect"), raw.get("hex", "pointy")
    extra = {"shape": shape, "orientation": orientation}
    if dpi:
        extra.update(units=raw.get("units", "mm"), dpi=float(dpi))
    where = lambda key: line_of(raw, (key,)) or line_of(raw, ("size",))
    if shape == "circle" and abs(w - h) > 0.01:
        problems.append(Problem(shown, f"a circle needs width = height (its diameter); got {w:g} x {h:g} mm",
                                line=where("size"), field="size"))
        return None
    if shape == "hex" and abs(hex_height(w, orientation) - h) > 0.05:
        problems.append(Problem(
            shown, f"a {orientation}-top hexagon {w:g} mm wide is {hex_height(w, orientation):.2f} mm tall; "
                   f"got {h:g} mm (height = width x {'2/sqrt(3)' if orientation == 'pointy' else 'sqrt(3)/2'})",
            line=where("size"), field="size"))
        return None
    if "hex" in raw and shape != "hex":
        problems.append(Problem(shown, "'hex' applies to shape: hex only", line=where("hex"), field="hex"))
    for own in KINDS:
        for key in own.keys:
            if key in raw and kind is not own:
                problems.append(Problem(shown, f"'{key}' applies to kind: {own.name} only", line=where(key), field=key))
    if "gutter" in raw:
        if not kind.gutter or shape in ("circle", "hex"):
            problems.append(Problem(shown, "'gutter' applies to cards and tiles laid out in rows and columns "
                                    "(round and hexagonal tokens are packed, boards, dice and standees placed)",
                                    line=where("gutter"), field="gutter"))
        else:
            try:
                extra["gutter"] = units.to_mm(raw["gutter"])
            except (ValueError, KeyError) as exc:
                problems.append(Problem(shown, str(exc), line=where("gutter"), field="gutter"))
                return None
            if not 0 <= extra["gutter"] <= MAX_SIZE_MM:
                problems.append(Problem(shown, f"gutter {extra['gutter']:g} mm: must be 0 to {MAX_SIZE_MM:g} mm",
                                        line=where("gutter"), field="gutter"))
                return None
    own_geometry = kind.geometry(raw, shown, bleed, problems) if kind.geometry is not None else {}
    if own_geometry is None:
        return None
    w, h = own_geometry.pop("trim_w", w), own_geometry.pop("trim_h", h)
    corner = own_geometry.pop("corner", corner)
    extra.update(own_geometry)
    if w <= 0 or h <= 0 or 2 * safe >= min(w, h):
        problems.append(Problem(shown, f"size {w:g} x {h:g} mm with safe margin {safe:g} mm leaves no room",
                                line=line_of(raw, ("size",)), field="size"))
        return None
    return {"trim_w": w, "trim_h": h, "bleed": bleed, "safe": safe, "corner": corner, **extra}
