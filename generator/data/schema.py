"""JSON Schema checks that report every problem with its file, line, card and field.

In: data read by `yamlsrc.read_yaml` and a schema. Out: a list of `Problem`s, worded
for designers ("unknown key 'colour' (accepted: name, rank, suit)").
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError

from ..errors import Problem
from ..guard import short_repr, shorten
from ..rendermemo import Memo
from .yamlsrc import line_of

# `integer` means a whole number as written: 1.0 is a number, not an integer (a count of 1.0 is a typo)
_TYPES = Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda _, v: isinstance(v, int) and not isinstance(v, bool))
Validator = validators.extend(Draft202012Validator, type_checker=_TYPES)

_ONE = {"additionalProperties", "contains", "if", "then", "else", "items", "not", "propertyNames",
        "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
_MANY = {"allOf", "anyOf", "oneOf", "prefixItems"}
_NAMED = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
KEYWORDS = set(Draft202012Validator.VALIDATORS) | _ONE | _MANY | _NAMED | {
    "$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "$comment", "title", "description",
    "default", "examples", "deprecated", "readOnly", "writeOnly", "contentEncoding", "contentMediaType"}

SCHEMA_DIR = Path(__file__).parents[1] / "assets" / "schemas"
NOT_BLANK = r"\S"  # a pattern for names: at least one visible character


def bundled(name: str) -> dict:
    """A schema shipped with pnp (game, deck, rules): a copy of its own for every caller."""
    return json.loads(_bundled_text(name))


@cache
def _bundled_text(name: str) -> str:
    return (SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8")


def schema_problem(schema: Any) -> str | None:
    """Why `schema` is not a valid JSON Schema, or None."""
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError, RecursionError):  # keys of mixed types, nesting: check it uncached
        return _schema_problem(schema)
    return _checked(key)


@lru_cache(maxsize=4096)
def _checked(key: str) -> str | None:
    """`_schema_problem` of a schema given as JSON: checking against the metaschema is slow."""
    return _schema_problem(json.loads(key))


def _schema_problem(schema: Any) -> str | None:
    try:
        if not plainly_valid(schema):   # jsonschema's metaschema walk: 20-80 ms for a deck's data schema
            Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return shorten(exc.message, 200)
    except RecursionError:
        return "the schema is nested too deeply"
    return _unknown_keyword(schema, ())


# What the 2020-12 metaschema asks of each keyword a schema plainly written uses (its
# vocabularies, as jsonschema_specifications ships them: tests/test_schema.py holds this
# table to them, and to jsonschema's verdicts); a keyword not here, or a value these do not
# plainly accept, is left to jsonschema's own check, which words the problem.
_FORMATS = Draft202012Validator.FORMAT_CHECKER


def _count(v: Any) -> bool:
    return type(v) is int and v >= 0


def _number(v: Any) -> bool:
    return type(v) in (int, float)


def _strings(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v) and len(set(v)) == len(v)


def _schemas(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(plainly_valid(x) for x in v)


def _named(v: Any) -> bool:
    return isinstance(v, dict) and all(plainly_valid(x) for x in v.values())


_SIMPLE_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
PLAIN: dict[str, Callable[[Any], bool]] = {
    **dict.fromkeys(("items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not",
                     "unevaluatedItems", "unevaluatedProperties", "contentSchema"), lambda v: plainly_valid(v)),
    **dict.fromkeys(("prefixItems", "allOf", "anyOf", "oneOf"), _schemas),
    **dict.fromkeys(("properties", "dependentSchemas", "$defs", "definitions"), _named),
    "patternProperties": lambda v: _named(v) and all(_FORMATS.conforms(k, "regex") for k in v),
    "type": lambda v: v in _SIMPLE_TYPES if isinstance(v, str) else (
        _strings(v) and bool(v) and all(t in _SIMPLE_TYPES for t in v)),
    "const": lambda v: True, "default": lambda v: True, "enum": lambda v: isinstance(v, list),
    "examples": lambda v: isinstance(v, list),
    "multipleOf": lambda v: _number(v) and v > 0,
    **dict.fromkeys(("maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"), _number),
    **dict.fromkeys(("maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains",
                     "maxProperties", "minProperties"), _count),
    "pattern": lambda v: isinstance(v, str) and _FORMATS.conforms(v, "regex"),
    **dict.fromkeys(("uniqueItems", "deprecated", "readOnly", "writeOnly"), lambda v: isinstance(v, bool)),
    "required": _strings,
    "dependentRequired": lambda v: isinstance(v, dict) and all(_strings(x) for x in v.values()),
    **dict.fromkeys(("title", "description", "$comment", "format", "contentEncoding", "contentMediaType"),
                    lambda v: isinstance(v, str)),
    "$ref": lambda v: isinstance(v, str) and _FORMATS.conforms(v, "uri-reference"),
    "$schema": lambda v: isinstance(v, str) and _FORMATS.conforms(v, "uri"),
}


def plainly_valid(schema: Any) -> bool:
    """Whether `schema` is a valid JSON Schema (2020-12) by `PLAIN` alone: True only when
    jsonschema's metaschema check would find nothing; False when it may (then ask it)."""
    if isinstance(schema, bool):
        return True
    try:
        return isinstance(schema, dict) and all(key in PLAIN and PLAIN[key](value) for key, value in schema.items())
    except RecursionError:
        return False


def _unknown_keyword(schema: Any, where: tuple) -> str | None:
    """A key JSON Schema does not know (`minimun: 1` would silently check nothing)."""
    if not isinstance(schema, dict):
        return None
    for key, value in schema.items():
        if key not in KEYWORDS:
            where_shown = f" in {shorten('.'.join(map(str, where)))}" if where else ""
            return f"unknown keyword '{shorten(str(key))}'{where_shown} (not JSON Schema; a typo?)"
        subs = ([value] if key in _ONE else value if key in _MANY and isinstance(value, list)
                else list(value.values()) if key in _NAMED and isinstance(value, dict) else [])
        for i, sub in enumerate(subs):
            name = list(value)[i] if key in _NAMED else (i if key in _MANY else None)
            found = _unknown_keyword(sub, (*where, key) + (() if name is None else (name,)))
            if found:
                return found
    return None


def check(data: Any, schema: dict, file: str,
          card_of: Callable[[tuple], tuple[str | None, int]] | None = None) -> list[Problem]:
    """Every way `data` breaks `schema`.

    :param card_of: maps a JSON path to (card id, length of the card's own path prefix) so
        that problems inside a card name the card and the field within it.
    """
    validator = Validator(schema)
    try:
        errors = [((), e) for e in validator.iter_errors(data)]
    except RecursionError:
        return [Problem(file, "the data or its schema is nested too deeply to check")]
    except Exception as exc:  # referencing's Unresolvable and kin: the schema itself is broken
        return [Problem(file, f"its schema cannot be applied: {shorten(str(exc), 200)}")]
    return _problems(data, errors, file, card_of)


def check_items(data: dict, key: str, item_schema: dict, file: str,
                card_of: Callable[[tuple], tuple[str | None, int]] | None,
                memo: Memo) -> list[Problem]:
    """`check` of data whose `key` holds a list, against {properties: {key: {items:
    item_schema}}}: the same problems, in the same order. While `pnp watch` rebuilds (`memo`
    is a remembering session's), an item that passed before, exactly as it is now, is not
    checked again (a deck of hundreds of cards, one of them edited)."""
    # the schema's digest: made only by a memo that keys by it
    schema_id = cache(lambda: hashlib.sha256(json.dumps(item_schema, sort_keys=True, default=repr).encode())
                      .hexdigest())
    errors = []
    try:
        # rooted at the whole schema, as `check` is: a "$ref" means what it meant there
        wrapped = {"type": "object", "properties": {key: {"type": "array", "items": item_schema}}}
        validator = Validator(wrapped).evolve(schema=item_schema)
        for i, item in enumerate(data[key]):
            errors.extend(memo.unless_passed(
                lambda item=item: ("passes", schema_id(), repr(item)),
                lambda i=i, item=item: [((key, i), e) for e in validator.iter_errors(item)]))
    except RecursionError:
        return [Problem(file, "the data or its schema is nested too deeply to check")]
    except Exception as exc:  # referencing's Unresolvable and kin: the schema itself is broken
        return [Problem(file, f"its schema cannot be applied: {shorten(str(exc), 200)}")]
    return _problems(data, errors, file, card_of)


def _problems(data, errors: list, file: str, card_of) -> list[Problem]:
    """(path prefix, jsonschema error) pairs as Problems, ordered by their paths."""
    problems = []
    errors = sorted(((prefix + tuple(e.absolute_path), e) for prefix, e in errors),  # card 10 after card 9
                    key=lambda pe: [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in pe[0]])
    told = set()   # jsonschema gives one `required` error per missing field, each listing them all
    for path, err in errors:
        card, prefix = card_of(path) if card_of else (None, 0)
        for message, sub in _explain(err):
            full = path + sub
            if (full, message) in told:
                continue
            told.add((full, message))
            field = ".".join(str(p) for p in full[prefix:]) or None
            problems.append(Problem(file, message, line=line_of(data, full), card=card, field=field))
    return problems


def _explain(err) -> list[tuple[str, tuple]]:
    """Designer wording for one jsonschema error, with any extra path (the unknown key)."""
    v, inst, sch = err.validator, err.instance, err.schema
    if v == "additionalProperties" and isinstance(inst, dict):
        accepted = sorted(sch.get("properties", {}))
        extra = [k for k in inst if k not in sch.get("properties", {})]
        return [(f"unknown key '{shorten(str(k))}' (accepted: {', '.join(accepted)})", (k,)) for k in extra]
    if v == "required":
        missing = [k for k in err.validator_value if k not in inst]
        return [(f"missing required field '{k}'", (k,)) for k in missing]
    if v == "type":
        want = err.validator_value if isinstance(err.validator_value, str) else " or ".join(err.validator_value)
        return [(f"expected {want}, got {_kind(inst)} {short_repr(inst)}", ())]
    if v == "enum":
        return [(f"{short_repr(inst)} is not one of {', '.join(map(short_repr, err.validator_value))}", ())]
    if v == "pattern" and err.validator_value == NOT_BLANK:
        return [(f"{short_repr(inst)} must have a visible character, not only spaces", ())]
    bounded = v in ("maximum", "exclusiveMaximum", "maxLength", "maxItems")
    if bounded and sch.get("description", "").startswith("at most"):
        return [(f"{short_repr(inst)} is too large: {sch['description']}", ())]
    if v in ("anyOf", "oneOf") and err.context:
        best = min(err.context, key=lambda e: len(list(e.absolute_path)))
        if sch.get("description"):
            return [(f"{short_repr(inst)} is not valid here: {sch['description']}", ())]
        return _explain(best)
    text = repr(inst)
    return [(err.message.replace(text, short_repr(inst)) if len(text) > 80 else err.message, ())]


def _kind(value: Any) -> str:
    for kind, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
                       (list, "list"), (dict, "mapping"), (type(None), "null")):
        if isinstance(value, kind):
            return name
    return type(value).__name__
