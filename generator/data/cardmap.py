"""A deck's `fields:` mapping under `cards:`: each card field as a JMESPath into the item read.

In: the `cards:` mapping of a deck (`fields: {FIELD: EXPRESSION}`, `count: EXPRESSION or
NUMBER`, `select: EXPRESSION`) and, one at a time, the items a data file holds (a JSON or
YAML mapping, a spreadsheet's row as {header: cell}). Out: compiled `Expr`s (problems with
them name the deck's line), and each field's value in an item. JMESPath is a query language
with no side effects: an expression is data, never code. Besides JMESPath's own functions
(`join`, `starts_with`, `to_string`...), `split(@, ' | ')` and `trim(@)` (JEP 14's string
functions) cut texts such as "property | AC | 18" into their parts.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jmespath
from jmespath import exceptions, functions

from ..errors import Problem
from ..guard import shorten
from .yamlsrc import line_of

MAX_EXPRESSION = 1000   # characters of one expression


class _Functions(functions.Functions):
    @functions.signature({"types": ["string"]}, {"types": ["string"]})
    def _func_split(self, text, sep):
        return text.split(sep) if sep else list(text)

    @functions.signature({"types": ["string"]})
    def _func_trim(self, text):
        return text.strip()


OPTIONS = jmespath.Options(custom_functions=_Functions())


class MapError(Exception):
    """An expression that cannot be applied to an item (message for designers)."""


@dataclass(frozen=True)
class Expr:
    """One compiled expression: its text, JMESPath's parsed form, or a constant (`count: 2`)."""

    text: str
    parsed: Any = None
    constant: Any = None

    def value(self, item: Any) -> Any:
        """The expression applied to `item` (plain dicts and lists); None: not given."""
        if self.parsed is None:
            return self.constant
        try:
            return self.parsed.search(item, options=OPTIONS)
        except exceptions.JMESPathError as exc:
            raise MapError(f"`{shorten(self.text)}`: {shorten(str(exc).splitlines()[-1], 200)}") from None
        except (ValueError, TypeError, RecursionError) as exc:
            raise MapError(f"`{shorten(self.text)}`: {shorten(str(exc), 200)}") from None

    def path(self) -> tuple | None:
        """The keys and indexes of an expression that only walks into the item (`front.name`,
        `lines[0]`), for the line of the value; None for any other expression."""
        return _path(self.parsed.parsed) if self.parsed is not None else None

    def names(self) -> set[str]:
        """Every key name the expression reads (the keys of an item it uses)."""
        found: set[str] = set()
        stack = [self.parsed.parsed] if self.parsed is not None else []
        while stack:
            node = stack.pop()
            if node.get("type") == "field":
                found.add(node["value"])
            stack.extend(c for c in node.get("children", ()) if isinstance(c, dict))
        return found


def _path(node: dict) -> tuple | None:
    kind = node.get("type")
    if kind == "field":
        return (node["value"],)
    if kind == "index":
        return (node["value"],)
    if kind in ("subexpression", "index_expression"):
        steps: tuple = ()
        for child in node["children"]:
            sub = _path(child) if child.get("type") != "identity" else ()
            if sub is None:
                return None
            steps += sub
        return steps
    return None


def compile_one(text: Any, deck_file: str, spec: dict, where: tuple) -> tuple[Expr | None, Problem | None]:
    """`text` (an expression from the deck's `cards:` at `where`) compiled, or its problem."""
    line = line_of(spec, where)
    key = ".".join(map(str, ("cards", *where)))
    if isinstance(text, (int, float)) and not isinstance(text, bool) and where == ("count",):
        return Expr(str(text), constant=text), None
    if not isinstance(text, str) or not text.strip():
        return None, Problem(deck_file, f"expected a JMESPath expression (a text such as `title` or "
                             f"`front.name`), got {shorten(repr(text))}", line=line, field=key)
    if len(text) > MAX_EXPRESSION:
        return None, Problem(deck_file, f"the expression is {len(text):,} characters long; pnp reads at most "
                             f"{MAX_EXPRESSION:,}", line=line, field=key)
    try:
        return Expr(text, parsed=jmespath.compile(text)), None
    except exceptions.JMESPathError as exc:
        reason = str(exc).splitlines()[0].replace("Invalid jmespath expression: ", "").rstrip(": ")
        quote = " (a key with spaces is written in double quotes: '\"Card Title\"')" if " " in text else ""
        return None, Problem(deck_file, f"`{shorten(text)}` is not a JMESPath expression: {shorten(reason, 200)}"
                             + quote, line=line, field=key)


def compile_fields(spec: dict, deck_file: str) -> tuple[dict[str, Expr], list[Problem]]:
    """The `fields:` of a deck's `cards:` (and its `count:`, the field `count`) compiled."""
    out: dict[str, Expr] = {}
    problems: list[Problem] = []
    wanted = dict(spec.get("fields") or {})
    if "count" in spec:
        if "count" in wanted:
            problems.append(Problem(deck_file, "`count:` and `fields: {count: ...}` say the same: keep one",
                                    line=line_of(spec, ("count",)), field="cards.count"))
        wanted["count"] = spec["count"]
    for name, text in wanted.items():
        where = ("count",) if name == "count" and "count" in spec else ("fields", name)
        expr, bad = compile_one(text, deck_file, spec, where)
        if bad:
            problems.append(bad)
        elif expr is not None:
            out[str(name)] = expr
    return out, problems


def plain_copy(data: Any, originals: dict[int, Any]) -> Any:
    """`data` as plain dicts and lists (JMESPath's functions know no others), noting in
    `originals` the line-remembering original of each copied mapping or list (by the copy's id)."""
    if isinstance(data, dict):
        out: Any = {k: plain_copy(v, originals) for k, v in data.items()}
    elif isinstance(data, list):
        out = [plain_copy(v, originals) for v in data]
    else:
        return data
    originals[id(out)] = data
    return out


def line_in(original: Any, expr: Expr) -> int | None:
    """The line of the value `expr` reads from an item (the item's own line when unknown)."""
    path = expr.path()
    return line_of(original, path) if path is not None else getattr(original, "line", None)
