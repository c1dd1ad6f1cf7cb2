"""A game's deck statistics: what `pnp stats`, the stats sheet and the preview's stats page show.

In: a loaded `Game` and what it declares to chart (`stats:` in game.yaml, or in rules.yaml,
which wins deck by deck). Out: plain data (`game_stats`): for every deck, over its printed
copies, each field's distribution (numbers: count, sum, mean, min, max and a histogram;
categories and lists: a tally), the `:icon:` uses in its text, cross-tables of two fields and
a cost curve; and that data as text or CSV (`as_text`, `as_csv`; JSON is `json.dumps` of it).

Without a declaration every field of a deck is charted, the first two category fields with
few values are crossed, and the curve is of the first of `cost`, `value`, `price` present
(a list's curve counts its items: a cost of three Energy is 3).
"""
from __future__ import annotations

import csv
import io
import math
import re
from collections import Counter
from pathlib import Path

from ..data.yamlsrc import read_yaml
from ..errors import Problem, collect

ICON = re.compile(r":([a-z][a-z0-9_-]*):")   # the card text's icon markup (draw/markup.py)
CURVE_FIELDS = ("cost", "value", "price")
CROSS_MOST = 8        # a default cross-table takes fields of at most this many values
SKIP = {"id", "name", "count", "deck"}
TEXT_CHARS = 40       # a field with a longer value is text (flavour, rules), not a category


TOP_STATS = re.compile(r"^stats:", re.M)


def declared(game) -> dict:
    """What the game declares to chart: {deck id: {fields, cross, curve}} from game.yaml's
    `stats:` and rules.yaml's (rules.yaml's deck entries win; both files' schemas check them).

    :raises InputError: a declaration names a deck or a field the game does not have."""
    out = {deck: (game.source.file, spec) for deck, spec in (game.meta.get("stats") or {}).items()}
    rules = game.cards_dir / str(game.meta.get("rules") or "")
    if game.meta.get("rules") and rules.is_file():
        shown = str(rules.relative_to(game.root))
        text = rules.read_text(encoding="utf-8")
        if TOP_STATS.search(text):   # read (with lines) only a rules file that declares charts
            raw = read_yaml(Path(rules), shown)
            out.update({deck: (shown, spec) for deck, spec in (raw.get("stats") or {}).items()})
    problems = []
    decks = {deck.id: deck for deck in game.decks}
    for deck_id, (file, spec) in out.items():
        if deck_id not in decks:
            problems.append(Problem(file, f"stats: no deck '{deck_id}' (decks: {', '.join(decks)})",
                                    line=getattr(spec, "line", None), field=f"stats.{deck_id}"))
            continue
        known = set(_field_names(decks[deck_id]))
        named = [*(spec.get("fields") or []), *(f for pair in spec.get("cross") or [] for f in pair),
                 *([spec["curve"]] if spec.get("curve") else [])]
        fields = ", ".join(sorted(known))
        problems.extend(Problem(file, f"stats: deck '{deck_id}' has no field '{name}' (fields: {fields})",
                                line=getattr(spec, "line", None), field=f"stats.{deck_id}")
                        for name in dict.fromkeys(named) if name not in known)
    collect("in the stats declared", problems)
    return {deck: spec for deck, (_, spec) in out.items()}


def game_stats(game, wanted: dict | None = None) -> dict:
    """The statistics of every deck of `game` (plain data: JSON as it is)."""
    wanted = declared(game) if wanted is None else wanted
    return {"game": game.id, "title": game.title,
            "decks": [deck_stats(deck, wanted.get(deck.id) or {}) for deck in game.decks]}


def deck_stats(deck, spec: dict) -> dict:
    printed = [card for card in deck.cards for _ in range(card.count)]
    names = list(spec.get("fields") or _field_names(deck))
    fields = {name: field_stats([card.fields.get(name) for card in printed]) for name in names}
    fields = {k: v for k, v in fields.items() if v["kind"] != "empty"}
    icons: Counter = Counter()
    for card in printed:
        for value in card.fields.values():
            for text in _texts(value):
                icons.update(ICON.findall(text))
    crosses = [list(pair) for pair in spec.get("cross") or _default_cross(fields)]
    curve = spec.get("curve", _default_curve(fields))
    return {"id": deck.id, "name": deck.name, "designs": len(deck.cards), "copies": len(printed),
            "fields": fields, "icons": dict(sorted(icons.items(), key=lambda kv: (-kv[1], _order(kv[0])))),
            "cross": [cross_table(printed, a, b) for a, b in crosses],
            "curve": _curve(printed, curve) if curve else None}


def _field_names(deck) -> list[str]:
    names = list((deck.raw.get("fields") or {}).keys())
    for card in deck.cards:
        names.extend(k for k in card.fields if k not in names)
    return [n for n in names if n not in SKIP]


def _texts(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _texts(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _texts(v)


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def field_stats(values: list) -> dict:
    """One field over the printed copies: numbers, a tally of categories, or of list items."""
    present = [v for v in values if v is not None]
    if not present:
        return {"kind": "empty"}
    if all(_number(v) for v in present):
        total = math.fsum(present)
        return {"kind": "number", "count": len(present), "sum": _plain(total), "mean": round(total / len(present), 4),
                "min": min(present), "max": max(present), "histogram": _histogram(present)}
    if all(isinstance(v, list) for v in present):
        items = Counter(_key(i) for v in present for i in v)
        return {"kind": "list", "count": len(present), "items": sum(items.values()),
                "tally": dict(sorted(items.items(), key=lambda kv: (-kv[1], _order(kv[0])))),
                "lengths": _histogram([len(v) for v in present])}
    tally = Counter(_key(v) for v in present)
    text = all(isinstance(v, str) for v in present) and (len(tally) > max(12, len(present) // 2) or
                                                        max(len(v) for v in present) > TEXT_CHARS)
    if text:   # free text (flavour, rules): its length, not its words
        return {"kind": "text", "count": len(present), "distinct": len(tally),
                "mean_length": round(sum(len(v) for v in present) / len(present), 1)}
    return {"kind": "category", "count": len(present), "distinct": len(tally),
            "tally": dict(sorted(tally.items(), key=lambda kv: (-kv[1], _order(kv[0]))))}


def _key(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def _plain(x: float):
    return int(x) if float(x).is_integer() else round(x, 4)


def _histogram(values: list) -> dict:
    """{value: copies} for whole numbers; else ten bins between min and max."""
    if all(float(v).is_integer() for v in values):
        c = Counter(int(v) for v in values)
        return {str(k): c.get(k, 0) for k in range(min(c), max(c) + 1)} if max(c) - min(c) <= 40 else \
            {str(k): n for k, n in sorted(c.items())}
    lo, hi = min(values), max(values)
    width = (hi - lo) / 10 or 1
    bins = Counter(min(int((v - lo) / width), 9) for v in values)
    return {f"{lo + i * width:.4g}..{lo + (i + 1) * width:.4g}": bins.get(i, 0) for i in range(10)}


def _default_cross(fields: dict) -> list[tuple[str, str]]:
    every = max((s["count"] for s in fields.values()), default=0)   # fields every card has
    small = [name for name, s in fields.items()
             if s["kind"] == "category" and s["distinct"] <= CROSS_MOST and s["count"] == every
             and s["distinct"] < s["count"]]
    return [(small[0], small[1])] if len(small) >= 2 else []


def _default_curve(fields: dict) -> str | None:
    return next((f for f in CURVE_FIELDS if fields.get(f, {}).get("kind") in ("number", "list")), None)


def cross_table(printed: list, a: str, b: str) -> dict:
    """Copies by the values of two fields: {a, b, rows: [values of a], columns, counts: [[n]]}."""
    pairs = Counter((_key(c.fields.get(a)), _key(c.fields.get(b))) for c in printed)
    rows = sorted({x for x, _ in pairs}, key=_order)
    cols = sorted({y for _, y in pairs}, key=_order)
    return {"a": a, "b": b, "rows": rows, "columns": cols,
            "counts": [[pairs.get((r, col), 0) for col in cols] for r in rows]}


def _order(key: str):
    """Numbers by value, before words in alphabetical order."""
    try:
        return (0, float(key), key)
    except ValueError:
        return (1, 0.0, key)


def _curve(printed: list, name: str) -> dict:
    """Copies by cost (a list's length: its items), from the cheapest to the dearest."""
    values = [c.fields.get(name) for c in printed]
    costs = [len(v) if isinstance(v, list) else v for v in values if v is not None]
    costs = [v for v in costs if _number(v)]
    return {"field": name, "histogram": _histogram(costs) if costs else {}}


def as_text(all_stats: list[dict]) -> str:
    out: list[str] = []
    for g in all_stats:
        out.append(f"{g['title']} ({g['game']})")
        for d in g["decks"]:
            out.append(f"  {d['name']} [{d['id']}]: {d['copies']} cards, {d['designs']} designs")
            for name, s in d["fields"].items():
                out.append(f"    {name}: {_describe(s)}")
            if d["icons"]:
                out.append("    icons in text: " + ", ".join(f":{k}: {n}" for k, n in d["icons"].items()))
            for x in d["cross"]:
                out.append(f"    {x['a']} x {x['b']}: " + "; ".join(
                    f"{r}: " + " ".join(f"{c}={n}" for c, n in zip(x["columns"], row) if n)
                    for r, row in zip(x["rows"], x["counts"])))
            if d["curve"]:
                out.append(f"    curve of {d['curve']['field']}: " + _bars(d["curve"]["histogram"]))
    return "\n".join(out)


def _describe(s: dict) -> str:
    if s["kind"] == "number":
        return (f"n={s['count']} sum={s['sum']} mean={s['mean']} min={s['min']} max={s['max']}; "
                + _bars(s["histogram"]))
    if s["kind"] == "list":
        return f"{s['items']} items on {s['count']} cards: " + ", ".join(f"{k} {n}" for k, n in s["tally"].items())
    if s["kind"] == "text":
        return f"text on {s['count']} cards, {s['distinct']} different, {s['mean_length']} characters on average"
    return ", ".join(f"{k} {n}" for k, n in s["tally"].items())


def _bars(histogram: dict) -> str:
    return " ".join(f"{k}:{n}" for k, n in histogram.items())


def as_csv(all_stats: list[dict]) -> str:
    """One row per number: game, deck, field, what, key, value (a spreadsheet's pivot table)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["game", "deck", "field", "measure", "key", "value"])
    for g in all_stats:
        for d in g["decks"]:
            w.writerow([g["game"], d["id"], "", "copies", "", d["copies"]])
            w.writerow([g["game"], d["id"], "", "designs", "", d["designs"]])
            for name, s in d["fields"].items():
                for measure in ("count", "sum", "mean", "min", "max", "items", "distinct", "mean_length"):
                    if measure in s:
                        w.writerow([g["game"], d["id"], name, measure, "", s[measure]])
                for measure in ("histogram", "tally", "lengths"):
                    for key, n in (s.get(measure) or {}).items():
                        w.writerow([g["game"], d["id"], name, measure, key, n])
            for key, n in d["icons"].items():
                w.writerow([g["game"], d["id"], "", "icon", key, n])
            for x in d["cross"]:
                for r, row in zip(x["rows"], x["counts"]):
                    for c, n in zip(x["columns"], row):
                        w.writerow([g["game"], d["id"], f"{x['a']} x {x['b']}", "cross", f"{r} x {c}", n])
            if d["curve"]:
                for key, n in d["curve"]["histogram"].items():
                    w.writerow([g["game"], d["id"], d["curve"]["field"], "curve", key, n])
    return buf.getvalue()
