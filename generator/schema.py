"""JSON Schema checks that report every problem with its file, line, card and field.

In: data read by `yamlsrc.read_yaml` and a schema. Out: a list of `Problem`s, worded
for designers ("unknown key 'colour' (accepted: name, rank, suit)").
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from .errors import Problem
from .yamlsrc import line_of

SCHEMA_DIR = Path(__file__).parent / "schema"


@lru_cache(maxsize=None)
def bundled(name: str) -> dict:
    """A schema shipped with pnp (game, deck, rules)."""
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


def schema_problem(schema: Any) -> str | None:
    """Why `schema` is not a valid JSON Schema, or None."""
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return exc.message
    return None


def check(data: Any, schema: dict, file: str,
          card_of: Callable[[tuple], tuple[str | None, int]] | None = None) -> list[Problem]:
    """Every way `data` breaks `schema`.

    :param card_of: maps a JSON path to (card id, length of the card's own path prefix) so
        that problems inside a card name the card and the field within it.
    """
    problems = []
    validator = Draft202012Validator(schema)
    try:
        errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    except Exception as exc:  # referencing's Unresolvable and kin: the schema itself is broken
        return [Problem(file, f"its schema cannot be applied: {exc}")]
    for err in errors:
        path = tuple(err.absolute_path)
        card, prefix = card_of(path) if card_of else (None, 0)
        for message, sub in _explain(err):
            full = path + sub
            field = ".".join(str(p) for p in full[prefix:]) or None
            problems.append(Problem(file, message, line=line_of(data, full), card=card, field=field))
    return problems


def _explain(err) -> list[tuple[str, tuple]]:
    """Designer wording for one jsonschema error, with any extra path (the unknown key)."""
    v, inst, sch = err.validator, err.instance, err.schema
    if v == "additionalProperties" and isinstance(inst, dict):
        accepted = sorted(sch.get("properties", {}))
        extra = [k for k in inst if k not in sch.get("properties", {})]
        return [(f"unknown key '{k}' (accepted: {', '.join(accepted)})", (k,)) for k in extra]
    if v == "required":
        missing = [k for k in err.validator_value if k not in inst]
        return [(f"missing required field '{k}'", (k,)) for k in missing]
    if v == "type":
        want = err.validator_value if isinstance(err.validator_value, str) else " or ".join(err.validator_value)
        return [(f"expected {want}, got {_kind(inst)} {inst!r}", ())]
    if v == "enum":
        return [(f"{inst!r} is not one of {', '.join(map(repr, err.validator_value))}", ())]
    if v in ("anyOf", "oneOf") and err.context:
        best = min(err.context, key=lambda e: len(list(e.absolute_path)))
        if sch.get("description"):
            return [(f"{inst!r} is not valid here: {sch['description']}", ())]
        return _explain(best)
    return [(err.message, ())]


def _kind(value: Any) -> str:
    for kind, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
                       (list, "list"), (dict, "mapping"), (type(None), "null")):
        if isinstance(value, kind):
            return name
    return type(value).__name__
