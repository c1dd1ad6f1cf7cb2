"""Card data kept in a spreadsheet: the rows of a CSV, TSV, XLSX or ODS sheet in, cards out.

In: a deck whose `cards:` is `{from: FILE, sheet: NAME, columns: {HEADER: FIELD},
strict_columns: BOOL}` (FILE relative to the deck's folder), the deck's field schemas and its
required fields. Out: a `CardRows`: the cards as a `LineList` of `LineDict`s, one per row, whose
"line" is the row number in the sheet, typed by each field's JSON Schema so that `load` checks
them exactly like cards written in YAML; the problems with the sheet (one line each: a header
problem once at the header row, a row problem at its row); notes (columns ignored, an encoding
guessed); and the (row, field) cells already reported, which the schema check leaves alone.

Headers as people write them: matched to the fields ignoring case, spaces, `_` and `-`
(`Playing Time` is `playing_time`); `qty`, `quantity`, `copies` are the `count`; `columns:`
renames any header to a field; `id` is optional (made from the name: `stone-wall`,
`stone-wall-2`); columns the deck does not use are ignored with one note (an error under
`strict_columns: true`); a header that looks like a misspelt field is an error saying so;
`fields: {FIELD: HEADER or JMESPath}` and `count: HEADER` read a field from any column (or
several: a JMESPath over the row as {header: cell}), that column then read as nothing else.

Cell syntax: an empty cell means "not given"; integer / number fields: `3`, `2.5`; boolean
fields: `true`/`false`, `yes`/`no`, `1`/`0`; list fields: items separated by `;`; object
fields: JSON (`{"gold": 2}`); icons in text: `:name:`; a line break in a cell is one in the text.
"""
from __future__ import annotations

import difflib
import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Problem
from .cardmap import MapError, compile_fields
from .sheetbase import SheetError, Table, blank
from .tablefile import read_table
from .yamlsrc import LineDict, LineList, line_of

TRUE, FALSE = {"true", "yes", "y", "1", "x"}, {"false", "no", "n", "0", ""}
COUNT_HEADERS = ("qty", "quantity", "copies", "count")
SAVE_AGAIN = "open and save the file in your spreadsheet program"


@dataclass
class CardRows:
    """What `cards_from_table` read: `cards` is None when the sheet cannot be used at all."""

    cards: LineList | None
    file: str                                                 # the sheet as shown in problems
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)
    reported: set[tuple[int, str]] = field(default_factory=set)  # (row, field): said already
    mapped: bool = False                                      # read from JSON/YAML or a range (cardsource)
    keys: dict[str, str] = field(default_factory=dict)        # field -> the header (or key) it was read from
    exprs: dict = field(default_factory=dict)                 # field -> cardmap.Expr (the deck's `fields:`)
    made: set[str] = field(default_factory=set)               # the ids made from names (or positions)
    item_keys: list[str] = field(default_factory=list)        # JSON/YAML: the keys the items have


def header_key(text: str) -> str:
    """A header or field name as compared: case, spaces, `_` and `-` do not count."""
    return re.sub(r"[\s_\-]+", "", str(text)).casefold()


def cards_from_table(spec: dict, deck_dir: Path, root: Path, fields: dict, required: list[str],
                     deck_file: str) -> CardRows:
    """The cards of a deck whose `cards:` is `{from:, sheet:, columns:, strict_columns:}`.

    :param fields: the deck's field schemas, built-in card keys included.
    :param required: the fields every card must have (`id` among them is made from the name).
    :param deck_file: the deck as shown in problems (for mistakes in `columns:`).
    """
    source = (deck_dir / spec["from"]).resolve()
    try:
        shown = str(source.relative_to(root.resolve()))
    except ValueError:
        shown = spec["from"]
    out = CardRows(None, shown)
    if not source.is_relative_to(deck_dir.resolve()):
        out.problems.append(Problem(shown, "a card table must be inside the game's cards folder", field="cards.from"))
        return out
    if not source.exists():
        out.problems.append(Problem(shown, f"card table '{spec['from']}' does not exist", field="cards.from"))
        return out
    try:
        table = read_table(source, spec.get("sheet"))
    except SheetError as exc:
        out.problems.append(Problem(shown, str(exc), field="cards.from"))
        return out
    out.notes.extend(Problem(shown, note, severity="note") for note in table.notes)
    names = match_columns(table, spec, fields, required, deck_file, out)
    if names is None:
        return out
    out.cards = _cards(table, names, fields, out)
    if out.exprs:
        _mapped_cells(table, out.cards, fields, out)
    make_ids(out.cards, out)
    _unsaved_formulas(table, names, out)
    return out


def match_columns(table: Table, spec: dict, fields: dict, required: list[str], deck_file: str,
                  out: CardRows) -> list[str | None] | None:
    """The field of each column of `table` (None: ignored), or None when the header has a
    problem (each added to `out.problems` once, at the header row)."""
    header, line = table.header, table.header_row
    by_key = {header_key(f): f for f in fields}
    out.exprs, bad = table_fields(spec, header, deck_file)
    out.problems.extend(bad)
    used = {header_key(n) for e in out.exprs.values() for n in e.names()}
    renames = {}
    for given, target in (spec.get("columns") or {}).items():
        where = line_of(spec, ("columns", given))
        if target not in fields:
            out.problems.append(Problem(deck_file, f"`{given}: {target}`: this deck has no field '{target}'"
                                        + _did_you_mean(target, list(fields)), line=where, field="cards.columns"))
        elif header_key(given) not in {header_key(h) for h in header}:
            out.problems.append(Problem(deck_file, f"`{given}: {target}`: {out.file} has no column '{given}' "
                                        f"(columns: {', '.join(h for h in header if h)})", line=where,
                                        field="cards.columns"))
        renames[header_key(given)] = target
    names: list[str | None] = []
    unknown = []
    for col, text in enumerate(header):
        key = header_key(text)
        name = renames.get(key) or by_key.get(key) or ("count" if key in COUNT_HEADERS else None)
        if key in used or name in out.exprs:
            names.append(None)  # read by the deck's `fields:` (or its field is), not by its name
            continue
        if name:
            out.keys[name] = text
        if not text:
            if any(col < len(cells) and not blank(cells[col]) for _, cells in table.rows):
                out.problems.append(Problem(out.file, f"column {column_letters(col)} has values but no header",
                                            line=line))
        elif name is None:
            unknown.append(text)
        names.append(name)
    for name in dict.fromkeys(n for n in names if n):
        headed = [header[c] for c, n in enumerate(names) if n == name]
        if len(headed) > 1:
            out.problems.append(Problem(out.file, f"two columns are headed '{headed[0]}'" if len(set(headed)) == 1
                                        else f"columns {' and '.join(repr(h) for h in headed)} are both the field "
                                             f"`{name}`", line=line, field=name))
    free = [f for f in fields if f not in names]
    ignored, meant = [], set()
    for text in unknown:
        guess = _close(text, free)
        if guess:
            meant.add(guess)
            out.problems.append(Problem(out.file, f"column '{text}' is not a field of this deck: did you mean "
                                        f"`{guess}`?", line=line))
        elif spec.get("strict_columns"):
            out.problems.append(Problem(out.file, f"column '{text}' is not a field of this deck (strict_columns); "
                                        f"fields: {', '.join(fields)}", line=line))
        else:
            ignored.append(text)
    for name in required:
        if name not in names and name not in meant and name != "id" and name not in out.exprs:
            out.problems.append(Problem(out.file, f"no column for the required field `{name}` (columns: "
                                        f"{', '.join(h for h in header if h)})" + _did_you_mean(name, ignored),
                                        line=line))
    if ignored:
        out.notes.append(Problem(out.file, f"columns this deck does not use, ignored: {', '.join(ignored)} "
                                 "(declare them in `fields:` to use them)", line=line, severity="note"))
    return None if out.problems else names


def _close(text: str, candidates: list[str]) -> str | None:
    keys = {header_key(c): c for c in candidates}
    found = difflib.get_close_matches(header_key(text), list(keys), n=1, cutoff=0.75)
    return keys[found[0]] if found else None


def _did_you_mean(text: str, candidates: list[str]) -> str:
    guess = _close(text, candidates)
    return f"; did you mean `{guess}`?" if guess else ""


def _cards(table: Table, names: list[str | None], fields: dict, out: CardRows) -> LineList:
    """One card per row, typed; ids made from names where the sheet gives none."""
    cards = LineList()
    cards.line, cards.lines = table.header_row, []
    for number, cells in table.rows:
        card = LineDict()
        card.line, card.lines = number, {}
        for col, name in enumerate(names):
            value = cells[col] if col < len(cells) else None
            if name is None or blank(value):
                continue
            card[name] = typed(value, fields.get(name) or {})
            card.lines[name] = number
        extra = [c for c in range(len(names), len(cells)) if not blank(cells[c])]
        if extra:
            cells_shown = ", ".join(f"{column_letters(c)}{number}" for c in extra[:5])
            out.problems.append(Problem(out.file, f"cell{'s' if len(extra) > 1 else ''} {cells_shown} beyond the "
                                        "last column: give the column a header, or empty the cells", line=number))
        cards.append(card)
        cards.lines.append(number)
    return cards


def table_fields(spec: dict, header: list[str], deck_file: str) -> tuple[dict, list[Problem]]:
    """A sheet's `fields:` (and `count:`) compiled: a value naming a header (as `columns:` does,
    ignoring case, spaces, `_` and `-`) is that column, any other a JMESPath over the row."""
    by_key = {header_key(h): h for h in header if h}
    quoted = dict(spec)
    for key in ("fields", "count"):
        if key not in spec:
            continue
        given = {"count": spec[key]} if key == "count" else spec[key]
        fixed = {k: ('"' + by_key[header_key(v)].replace('"', '\\"') + '"' if isinstance(v, str)
                     and header_key(v) in by_key else v) for k, v in given.items()}
        quoted[key] = fixed["count"] if key == "count" else fixed
    return compile_fields(quoted, deck_file)


def _mapped_cells(table: Table, cards: LineList, fields: dict, out: CardRows) -> None:
    """The deck's `fields:` applied to each row, as {header: cell} (empty cells left out)."""
    for card, (number, cells) in zip(cards, table.rows):
        row = {h: c for h, c in zip(table.header, cells) if h and not blank(c)}
        for name, expr in out.exprs.items():
            try:
                value = expr.value(row)
            except MapError as exc:
                out.problems.append(Problem(out.file, f"the field `{name}`: {exc}", line=number, field=name))
                continue
            if value is not None:
                card[name] = value if isinstance(value, (list, dict)) else typed(value, fields.get(name) or {})
                card.lines[name] = number


def make_ids(cards: LineList, out: CardRows, positions: bool = False) -> None:
    """Cards without an id get one made from their name, unique in the sheet and the same from
    one build to the next: `stone-wall`, then `stone-wall-2` for a second Stone Wall. A card
    whose name makes no id (no name, or no letter or digit pnp can write in one) gets one from
    its position with `positions` (`card-3`; its missing name is the schema check's to tell),
    else a sheet's row gives it (`row-12`) and a row without a name is an error."""
    taken = {c["id"] for c in cards if isinstance(c, dict) and isinstance(c.get("id"), str)}
    for position, card in enumerate(cards, start=1):
        if not isinstance(card, LineDict) or "id" in card:
            continue
        name = card.get("name")
        if (not isinstance(name, str) or not name.strip()) and not positions:
            out.problems.append(Problem(out.file, "the row has no name (a card's id is made from its name when "
                                        "the sheet has no id)", line=card.line, field="name"))
            out.reported.update({(card.line, "name"), (card.line, "id")})
            continue
        base = (slug(name) if isinstance(name, str) else "") or (f"card-{position}" if positions
                                                                 else f"row-{card.line}")
        made, n = base, 1
        while made in taken:
            n += 1
            made = f"{base}-{n}"
        taken.add(made)
        out.made.add(made)
        card["id"] = made
        card.lines["id"] = card.line


def slug(name: str) -> str:
    """`Stone Wall!` -> `stone-wall`; accents dropped (`Café` -> `cafe`)."""
    plain = unicodedata.normalize("NFKD", name.replace("ß", "ss")).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")


def _unsaved_formulas(table: Table, names: list[str | None], out: CardRows) -> None:
    """One problem per column whose formulas were saved without their values."""
    by_field: dict[str, list[tuple[int, int, str]]] = {}
    for number, col, formula in table.unsaved:
        name = names[col] if col < len(names) else None
        if name:
            by_field.setdefault(name, []).append((number, col, formula))
            out.reported.add((number, name))
    for name, found in by_field.items():
        cells = ", ".join(f"{column_letters(c)}{n}" for n, c, _ in found[:6]) + (
            f" and {len(found) - 6} more" if len(found) > 6 else "")
        one = len(found) == 1
        out.problems.append(Problem(out.file, f"cell{'' if one else 's'} {cells} hold{'s' if one else ''} a formula "
                                    f"({found[0][2]}) whose value was never saved: {SAVE_AGAIN}",
                                    line=found[0][0], field=name))


def column_letters(index: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA: the column as spreadsheets name it."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _types(schema: dict) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return kind
    if "enum" in schema:
        return sorted({_json_type(v) for v in schema["enum"]})
    if "const" in schema:
        return [_json_type(schema["const"])]
    return []


def _json_type(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"


def typed(value, schema: dict):
    """A cell's value as its field's JSON Schema wants it; a cell that cannot be read as
    that type is kept as it is, so the schema check names the row and column."""
    kinds = _types(schema)
    if isinstance(value, str):
        value = value.strip()
    if "array" in kinds:
        if isinstance(value, str):
            items = [p.strip() for p in value.split(";")]
            return [typed(p, schema.get("items") or {}) for p in items if p]
        return [typed(value, schema.get("items") or {})]
    if "object" in kinds and isinstance(value, str) and value.startswith("{"):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    if isinstance(value, bool):
        return value if ("boolean" in kinds or not kinds) else str(value).lower()
    if isinstance(value, float) and value.is_integer() and "integer" in kinds:
        return int(value)
    if isinstance(value, (int, float)):
        if "string" in kinds and not ({"integer", "number"} & set(kinds)):
            return _number_text(value)
        return value
    if not isinstance(value, str):  # dates and other spreadsheet types: their text
        return str(value)
    for kind in kinds:
        if kind == "integer" and re.fullmatch(r"[+-]?\d{1,18}", value):
            return int(value)
        if kind == "number" and re.fullmatch(r"[+-]?(\d{1,30}(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?", value):
            number = float(value)
            return int(number) if number.is_integer() and re.fullmatch(r"[+-]?\d+", value) else number
        if kind == "boolean" and value.lower() in TRUE | FALSE - {""}:
            return value.lower() in TRUE
        if kind == "null" and value.lower() in ("null", "none", "~"):
            return None
    return value


def _number_text(value) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
