"""Card data in any shape, declared: where a deck's cards come from when `cards:` is a mapping.

In: a deck's `cards:` mapping, the deck's folder, the project root, the deck's field
schemas and required fields. `{from: FILE}` reads a spreadsheet (spreadsheet.py) or a JSON
or YAML file, whose list of cards `select:` picks (a JMESPath; default: the file itself,
when it is a list); `{range: 10, name: "Soldier {n}"}` makes a run of cards with no data
file (nanDECK's ranges). For both, `fields:` maps each card field to a JMESPath into the item
(cardmap.py) and `count:` gives the copies; keys of an item that name a field are read as
that field, other keys are ignored with one note. Out: a `spreadsheet.CardRows` whose cards
are LineDicts carrying the lines of the file they were read from; ids made from the names
(else the position) where none is given. Also `sides_problem`: the one error for a card list
whose `front`/`back` hold texts or per-side data rather than template names.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import InputError, Problem
from ..guard import MAX_COPIES, data_bounds, shorten
from .cardmap import Expr, MapError, compile_fields, line_in, plain_copy
from .jsonsrc import read_json
from .spreadsheet import COUNT_HEADERS, CardRows, cards_from_table, header_key, make_ids, typed
from .yamlsrc import LineDict, LineList, line_of, read_yaml

DATA_FORMATS = {".json": "json", ".yaml": "yaml", ".yml": "yaml"}
SHEET_ONLY = ("sheet", "columns", "strict_columns")
_NUMBER = re.compile(r"\{n(?::0(\d))?\}")   # a range's name pattern: {n}, {n:02}


def read_cards(spec: dict, deck_dir: Path, root: Path, fields: dict, required: list[str],
               deck_file: str) -> CardRows:
    """The cards a deck's `cards:` mapping stands for (see the module's docstring)."""
    if "range" in spec:
        return cards_from_range(spec, fields, deck_file)
    kind = DATA_FORMATS.get(Path(spec["from"]).suffix.lower())
    if kind is None:
        if "select" in spec:
            return CardRows(None, spec["from"], [Problem(
                deck_file, "`select:` picks the list of cards in a JSON or YAML file; each row of a spreadsheet "
                "is a card", line=line_of(spec, ("select",)), field="cards.select")])
        return cards_from_table(spec, deck_dir, root, fields, required, deck_file)
    return cards_from_data(spec, kind, deck_dir, root, fields, deck_file)


def _source(spec: dict, deck_dir: Path, root: Path, out: CardRows) -> Path | None:
    source = (deck_dir / spec["from"]).resolve()
    if not source.is_relative_to(deck_dir.resolve()):
        out.problems.append(Problem(out.file, "a card file must be inside the game's cards folder",
                                    field="cards.from"))
        return None
    if not source.is_file():
        out.problems.append(Problem(out.file, f"card file '{spec['from']}' does not exist", field="cards.from"))
        return None
    return source


def cards_from_data(spec: dict, kind: str, deck_dir: Path, root: Path, fields: dict, deck_file: str) -> CardRows:
    """The cards of a JSON or YAML file: `cards: {from:, select:, fields:, count:}`."""
    try:
        shown = str((deck_dir / spec["from"]).resolve().relative_to(root.resolve()))
    except ValueError:
        shown = spec["from"]
    out = CardRows(None, shown, mapped=True)
    wrong = [k for k in SHEET_ONLY if k in spec]
    if wrong:
        out.problems.append(Problem(deck_file, f"`{wrong[0]}:` is for spreadsheets; a {kind.upper()} file's keys "
                                    "are mapped to fields with `fields: {FIELD: KEY}`", line=line_of(spec, (wrong[0],)),
                                    field=f"cards.{wrong[0]}"))
        return out
    exprs, bad = compile_fields(spec, deck_file)
    select = None
    if "select" in spec:
        select, why = _select(spec, deck_file)
        bad += [why] if why else []
    out.problems.extend(bad)
    source = _source(spec, deck_dir, root, out)
    if source is None or bad:
        return out
    try:
        data = read_json(source, shown) if kind == "json" else read_yaml(source, shown)
    except InputError as exc:
        out.problems.extend(exc.problems)
        return out
    originals: dict[int, Any] = {}
    doc = plain_copy(data, originals)
    try:
        items = select.value(doc) if select is not None else doc
    except MapError as exc:
        out.problems.append(Problem(deck_file, f"select: {exc}", line=line_of(spec, ("select",)), field="cards.select"))
        return out
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        out.problems.append(_not_a_list(items, doc, select, shown, deck_file, spec))
        return out
    lines = getattr(originals.get(id(items)), "lines", None) or []
    out.cards = _mapped(items, [getattr(originals.get(id(i)), "line", None) or (lines[n] if n < len(lines) else 1)
                                for n, i in enumerate(items)],
                        originals, exprs, fields, out)
    if not out.problems and not out.cards:
        out.problems.append(Problem(shown, "the list of cards is empty", line=getattr(data, "line", 1)))
    if out.problems:
        out.cards = None
    return out


def _select(spec: dict, deck_file: str):
    from .cardmap import compile_one

    return compile_one(spec["select"], deck_file, spec, ("select",))


def _not_a_list(items, doc, select, shown: str, deck_file: str, spec: dict) -> Problem:
    """Where the list of cards is not: what was found, and where lists of mappings are."""
    found = "nothing" if items is None else f"a {type(items).__name__.replace('dict', 'mapping')}"
    if isinstance(items, list):
        found = "a list whose items are not all mappings (one card is one mapping of its fields)"
    lists = _lists_of_cards(doc)
    hint = (f"; lists of cards in the file: {', '.join(lists[:6])} (say which with `select: {lists[0]}`)"
            if lists else "")
    if select is not None:
        return Problem(deck_file, f"`select: {shorten(select.text)}` gives {found} in {shown}, not a list of cards"
                       + hint, line=line_of(spec, ("select",)), field="cards.select")
    return Problem(shown, f"the file holds {found}, not a list of cards" + (hint or "; say where the list is with "
                   "`select:` (a JMESPath such as `cards` or `deck.items`)"), line=1)


def _lists_of_cards(doc: Any) -> list[str]:
    """The JMESPaths of the lists of mappings in `doc`, the shallowest first (three levels down)."""
    found, level = [], [("", doc)]
    for _ in range(3):
        deeper = []
        for path, node in level:
            for key, value in (node.items() if isinstance(node, dict) else ()):
                step = key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(key)) else '"' + str(key) + '"'
                here = f"{path}.{step}" if path else step
                if isinstance(value, list) and value and all(isinstance(i, dict) for i in value):
                    found.append(here)
                elif isinstance(value, dict):
                    deeper.append((here, value))
        level = deeper
    return found


def _mapped(items: list[dict], item_lines: list[int], originals: dict, exprs: dict[str, Expr], fields: dict,
            out: CardRows) -> LineList:
    """Each item as a card: its keys that name fields, then the mapped fields; ids made."""
    by_key = {header_key(f): f for f in fields}
    by_key.update({header_key(h): "count" for h in COUNT_HEADERS if "count" not in exprs})
    consumed = set().union(*(e.names() for e in exprs.values())) if exprs else set()
    ignored: dict[str, None] = {}
    failed: dict[str, list] = {}   # field -> [(line, message)...]: said once, with how many cards
    cards = LineList()
    cards.line, cards.lines = item_lines[0] if item_lines else 1, []
    for item, line in zip(items, item_lines):
        original = originals.get(id(item), item)
        card = LineDict()
        card.line, card.lines = line, {}
        for key, value in item.items():
            name = by_key.get(header_key(key)) if key not in consumed else None
            if name is None or name in exprs:
                if key not in consumed:
                    ignored[str(key)] = None
                continue
            out.keys.setdefault(name, str(key))
            if value is not None:
                card[name] = _coerce(value, fields.get(name) or {})
                card.lines[name] = line_of(original, (key,)) or line
        for name, expr in exprs.items():
            try:
                value = expr.value(item)
            except MapError as exc:
                failed.setdefault(name, []).append((line, str(exc)))
                continue
            if value is not None:
                card[name] = _coerce(value, fields.get(name) or {})
                card.lines[name] = line_in(original, expr) or line
        cards.append(card)
        cards.lines.append(line)
    for name, where in failed.items():
        more = f" (and {len(where) - 1} more card{'s' if len(where) > 2 else ''})" if len(where) > 1 else ""
        out.problems.append(Problem(out.file, f"the field `{name}`: {where[0][1]}{more}", line=where[0][0], field=name))
    out.item_keys = list(dict.fromkeys(str(k) for i in items[:20] for k in i))
    too_big = data_bounds(cards)
    if too_big:
        out.problems.append(Problem(out.file, f"the mapped cards: {too_big}"))
    if ignored:
        out.notes.append(Problem(out.file, f"keys this deck does not use, ignored: {', '.join(list(ignored)[:12])} "
                                 "(declare them in `fields:`, or map them with `cards: {fields: {FIELD: KEY}}`)",
                                 line=cards.line, severity="note"))
    make_ids(cards, out, positions=True)
    return cards


def _coerce(value: Any, schema: dict) -> Any:
    """A text where the field wants a number, a boolean or a list read as a cell is."""
    return typed(value, schema) if isinstance(value, str) and schema.get("type") not in (None, "string") else value


def cards_from_range(spec: dict, fields: dict, deck_file: str) -> CardRows:
    """A run of cards with no data file: `cards: {range: 10, name: "Soldier {n}", fields:, count:}`.
    Each card is the item {n: its number, position: 1, 2, ...} to `fields:`; `{n}` (or `{n:02}`,
    zero-padded) in the name is its number."""
    out = CardRows(None, deck_file, mapped=True)
    where = line_of(spec, ("range",))
    bounds = _range(spec["range"])
    if bounds is None:
        out.problems.append(Problem(deck_file, f"range: {shorten(repr(spec['range']))} is not a range: write a "
                                    "count (`range: 10`: 1 to 10) or `range: 3..12`", line=where, field="cards.range"))
        return out
    first, last = bounds
    if not 0 < last - first + 1 <= MAX_COPIES:
        out.problems.append(Problem(deck_file, f"range {first}..{last} makes {last - first + 1:,} cards; a range "
                                    f"makes 1 to {MAX_COPIES:,}", line=where, field="cards.range"))
        return out
    exprs, bad = compile_fields(spec, deck_file)
    out.problems.extend(bad)
    if bad:
        return out
    pattern = str(spec["name"])
    cards = LineList()
    cards.line, cards.lines = where or 1, []
    for position, n in enumerate(range(first, last + 1), start=1):
        card = LineDict()
        card.line, card.lines = where or 1, {}
        card["name"] = numbered(pattern, n)
        card.lines["name"] = line_of(spec, ("name",))
        for name, expr in exprs.items():
            try:
                value = expr.value({"n": n, "position": position})
            except MapError as exc:
                out.problems.append(Problem(deck_file, f"the field `{name}`: {exc}", line=line_of(
                    spec, ("fields", name)), field=f"cards.fields.{name}"))
                return out
            if value is not None:
                card[name] = _coerce(value, fields.get(name) or {})
                card.lines[name] = line_of(spec, ("count",) if name == "count" and "count" in spec
                                           else ("fields", name))
        cards.append(card)
        cards.lines.append(card.line)
    make_ids(cards, out, positions=True)
    out.cards = None if out.problems else cards
    return out


def numbered(pattern: str, n: int) -> str:
    """A range's name pattern with its number: `Soldier {n}` -> `Soldier 7`, `{n:02}` -> `07`
    (no other braces are read: the pattern is data, never a format string)."""
    return _NUMBER.sub(lambda m: str(n).zfill(int(m.group(1) or 0)), pattern)


def _range(value: Any) -> tuple[int, int] | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return 1, value
    hit = re.fullmatch(r"\s*(-?\d{1,9})\s*\.\.\s*(-?\d{1,9})\s*", str(value))
    return (int(hit.group(1)), int(hit.group(2))) if hit else None


def _is_text(value: Any, is_template: Callable[[str], bool]) -> bool:
    """A front/back value that is not a template's name: data, or a text (spaces, no file ending)."""
    if value is None:
        return False
    if not isinstance(value, str):
        return True
    return not is_template(value) and (bool(re.search(r"\s", value.strip())) or "." not in value)


def sides_problem(cards: Any, rows: CardRows | None, deck_file: str, deck_line: int | None,
                  is_template: Callable[[str], bool]) -> Problem | None:
    """One problem for cards whose `front`/`back` hold texts or per-side data (a YAML list of
    `{front: {name, desc}, back: {desc}}`, a quiz sheet's Front and Back columns) instead of the
    names of templates, saying how to map them to fields; None when every one names a template."""
    if not isinstance(cards, list):
        return None
    found = [(c, side) for c in cards if isinstance(c, dict) for side in ("front", "back")
             if side in c and _is_text(c[side], is_template)]
    if not found:
        return None
    first, side = found[0]
    keys = rows.keys if rows is not None else {}
    sides = [s for s in ("front", "back") if any(s == f for _, f in found)]
    suggest: dict[str, str] = {}
    for s in sides:
        sample = next(c[s] for c, f in found if f == s)
        key = keys.get(s, s)
        key = key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else '"' + key + '"'
        if isinstance(sample, dict):
            for k in list(sample)[:4]:
                target = "name" if k in ("name", "title") and "name" not in first and "name" not in suggest \
                    else f"{s}_{k}"
                suggest[target] = f"{key}.{k}"
        else:
            suggest[f"{s}_{'lines' if isinstance(sample, list) else 'text'}"] = key
    mapping = ", ".join(f"{k}: {v}" for k, v in suggest.items())
    shown_key = keys.get(side, side)
    what = ("per-side data (a mapping)" if isinstance(first[side], dict) else "a list" if isinstance(first[side], list)
            else f"a text ({shorten(repr(first[side]), 40)})")
    many = f"{len({id(c) for c, _ in found})} cards, the first here"
    why = (f"`{shown_key}` holds {what}, not the name of a template ({many}): a card's `front:` and `back:` name "
           "the templates it is drawn with. ")
    field = next((k for k in suggest if k != "name"), "name")
    if rows is None:
        how = (f"To draw per-side data, move the list into a file of its own beside this deck (say cards.yaml) "
               f"and map each side's data to fields: `cards: {{from: cards.yaml, fields: {{{mapping}}}}}`; the "
               f"template then draws {{{{ card.{field} }}}}")
        return Problem(deck_file, why + how, line=getattr(first, "line", deck_line), field=side)
    how = (f"Map it to fields of their own in the deck: `cards: {{from: {Path(rows.file).name}, fields: "
           f"{{{mapping}}}}}`; the template then draws {{{{ card.{field} }}}}")
    return Problem(rows.file, why + how, line=getattr(first, "line", None), field=side)


def with_hints(problems: list[Problem], rows: CardRows | None) -> list[Problem]:
    """Schema problems of cards read from a data file: a field missing from many cards said once,
    with how to map it from the keys the items have."""
    if rows is None or not rows.mapped:
        return problems
    out: list[Problem] = []
    missing: dict[str, list[Problem]] = {}
    for p in problems:
        hit = re.fullmatch(r"missing required field '([^']+)'", p.message)
        if hit:
            missing.setdefault(hit.group(1), []).append(p)
        else:
            out.append(p)
    for name, found in missing.items():
        first = found[0]
        many = f" ({len(found)} cards, the first here)" if len(found) > 1 else ""
        keys = rows.item_keys
        guess = next((k for k in keys if header_key(k) in _LIKE.get(name, ())), "KEY")
        known = f" (the items' keys: {', '.join(keys[:10])})" if keys else ""
        out.append(Problem(first.file, f"missing required field '{name}'{many}: map it from a key of the "
                           f"items{known} with `cards: {{fields: {{{name}: {guess}}}}}`", line=first.line,
                           card=first.card if not many else None, field=first.field))
    return sorted(out, key=lambda p: p.line or 0)


_LIKE = {"name": ("title", "name", "cardname", "cardtitle", "label", "heading")}
