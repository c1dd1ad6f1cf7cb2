"""Rule checks that need real logic, written in Python and named from rules files.

Each check gets a `CheckContext` and the rule's `args`, and yields `Failure`s. Register
one with `@register("name", args={...})`; a rules file uses it as `check: name`.

Every check declares its arguments as JSON Schemas: `args` says what may be written in
rules.yaml (checked when the rules load: a wrong type is an error naming the file, the line,
the rule and the argument, exit 2), and `selected(ctx, args, name, schema)` checks what a
JMESPath argument selects from the game's data before the check uses it (a wrong shape is a
rule that cannot run, exit 2). No check meets data it cannot handle.
"""
from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from ..data.schema import Validator
from ..data.schema import check as schema_check
from ..errors import Problem
from ..guard import shorten


class Check(Protocol):
    """A registered check: `check(ctx, args)` yields `Failure`s; `register` gives it `args_schema`."""
    args_schema: dict

    def __call__(self, ctx: Any, args: dict) -> Iterable[Failure]: ...


CHECKS: dict[str, Check] = {}

# what rules.yaml may write for an argument
SELECTION = {"anyOf": [{"type": "string"}, {"type": "object", "required": ["expr"], "additionalProperties": False,
                                            "properties": {"expr": {"type": "string"}}}],
             "description": "a JMESPath selection: text, or {expr: ...}"}
NUMBER = {"anyOf": [{"type": "number"}, SELECTION],
          "description": "a number, or a JMESPath selection of one"}
SYMBOLS = {"type": "array", "items": {"type": "string"}, "description": "a list of field symbols"}
QUARTER = {"anyOf": [SELECTION, {"type": "array", "items": {"type": "string"}}],
           "description": "a JMESPath selection, or a list of rows of field symbols"}


def _list_of(item: dict) -> dict:
    return {"anyOf": [SELECTION, {"type": "array", "items": item}],
            "description": "a JMESPath selection, or the list itself"}


@dataclass(frozen=True)
class Failure:
    found: Any
    expected: Any
    item: Any = None          # what to point at (a card, a table row, a list)
    fields: dict | None = None
    note: str | None = None   # said after the rule's message in every report (odds: the value and its bound)


def register(name: str, args: dict, required: tuple[str, ...] = ()):
    """Make `fn(ctx, args)` available to rules files as `check: name`. `args` maps each
    argument to the JSON Schema of what may be written for it; `required` ones must be given.
    Arguments not in `args` are refused (a typo would be silently ignored)."""
    schema = {"type": "object", "additionalProperties": False, "required": list(required), "properties": args}

    def wrap(fn):
        fn.args_schema = schema
        CHECKS[name] = fn
        return fn
    return wrap


def args_problems(rule_id: str, check_name: str, args: Any, file: str, line: int | None = None) -> list[Problem]:
    """Every way a rule's `args:` (as read by read_yaml, with lines; `line` is the rule's)
    breaks its check's schema, each naming the rule and the argument."""
    schema = CHECKS[check_name].args_schema
    args = args if args is not None else {}
    if _validator(schema).is_valid(args):
        return []
    problems = []
    missing = [a for a in schema["required"] if isinstance(args, dict) and a not in args]
    if missing:
        problems.append(Problem(file, f"check '{check_name}' needs args: {', '.join(missing)}",
                                line=getattr(args, "line", None) or line, field=f"rule {rule_id}"))
    for p in schema_check(args, {**schema, "required": []}, file):
        problems.append(Problem(file, p.message, line=p.line or line,
                                field=f"rule {rule_id}: args" + (f".{p.field}" if p.field else "")))
    return problems


def selected(ctx, args: dict, name: str, schema: dict, default: Any = None) -> Any:
    """The value of argument `name` (a JMESPath selection evaluated, or a literal), checked
    against `schema`. :raises ValueError: it does not match: the rule cannot run."""
    written = args.get(name, default)
    value = ctx.value(written)
    if _validator(schema).is_valid(value):
        return value
    wrong = schema_check(value, schema, "")
    if wrong:
        first = wrong[0]
        where = f" (at {shorten(first.field)})" if first.field else ""
        raise ValueError(f"args.{name} {shorten(repr(written))} gives {_kind(value)}, expected "
                         f"{schema.get('description', 'another shape')}: {first.message}{where}")
    return value


def _validator(schema: dict):
    """A validator of `schema`, made once per schema (making one costs more than most checks)."""
    return _validator_of(json.dumps(schema, sort_keys=True))


@functools.lru_cache(maxsize=256)
def _validator_of(key: str):
    """The validator of the schema written as `key` (JSON): a pure function of it."""
    return Validator(json.loads(key))


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "a mapping"
    return shorten(repr(value))


@register("ranges_cover", required=("rows", "from", "to"), args={
    "rows": _list_of({"type": "object"}), "low": {"type": "string"}, "high": {"type": "string"},
    "from": NUMBER, "to": NUMBER})
def ranges_cover(ctx, args) -> Iterable[Failure]:
    """Rows with a low and a high bound cover `from`..`to` exactly once (no gap, no overlap).

    args: rows (JMESPath list), low, high (keys of a row), from, to (numbers or {expr}).
    """
    lo_key, hi_key = args.get("low", "min"), args.get("high", "max")
    bound = {"type": "number"}
    rows = selected(ctx, args, "rows", {"type": "array", "items": {
        "type": "object", "required": [lo_key, hi_key], "properties": {lo_key: bound, hi_key: bound}},
        "description": f"a list of rows, each with numbers '{lo_key}' and '{hi_key}'"})
    start = selected(ctx, args, "from", dict(bound, description="a number"))
    end = selected(ctx, args, "to", dict(bound, description="a number"))
    expected = f"{start}..{end} covered once"
    spans = sorted(((r[lo_key], r[hi_key], r) for r in rows), key=lambda s: (s[0], s[1]))
    for lo, hi, row in spans:
        if lo > hi:
            yield Failure(f"{lo}..{hi} is empty (low above high)", expected, row)
    cursor = start
    previous = None
    for lo, hi, row in spans:
        if lo > cursor:
            yield Failure(f"gap {cursor}..{lo - 1}", expected, row)
        elif lo < cursor and previous is not None:
            yield Failure(f"overlap {lo}..{min(hi, cursor - 1)}", expected, row)
        cursor = max(cursor, hi + 1)
        previous = row
    if cursor <= end:
        yield Failure(f"gap {cursor}..{end}", expected, rows)
    if spans and (spans[0][0] < start or max(s[1] for s in spans) > end):
        yield Failure(f"range {spans[0][0]}..{max(s[1] for s in spans)} goes outside {start}..{end}",
                      expected, rows)


@register("enough_alike", required=("rows", "items", "match", "min"), args={
    "rows": _list_of({"type": "object"}), "items": _list_of({"type": "object"}),
    "match": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "a list of keys"},
    "min": NUMBER})
def enough_alike(ctx, args) -> Iterable[Failure]:
    """Each row finds at least `min` items that agree with it on every key in `match` (as many
    times `min` for a row written twice): every pile of a deal holds a card for every player.

    args: rows (JMESPath list of objects), items (JMESPath list), match (a list of keys),
    min (a number or {expr}).
    """
    objects = {"type": "array", "items": {"type": "object"}, "description": "a list of rows"}
    rows, items = selected(ctx, args, "rows", objects), selected(ctx, args, "items", objects)
    keys = list(args["match"])
    least = selected(ctx, args, "min", {"type": "number", "description": "a number"})
    same = Counter(repr([row.get(k) for k in keys]) for row in rows)
    for row in rows:
        want = least * same[repr([row.get(k) for k in keys])]
        found = sum(1 for item in items if all(item.get(k) == row.get(k) for k in keys))
        if found < want:
            yield Failure(found, want, row)
