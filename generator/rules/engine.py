"""Run a game's rules file against its data.

In: a loaded `Game` and its `rules.yaml` (declarative rules: JMESPath selections with
comparators, uniqueness, group counts, or a named Python check). Out: a list of
`Finding`s, each naming the rule, the file and line to edit, the cards involved and the
value found against the value expected.
"""
from __future__ import annotations

import json
import math
import string
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jmespath.exceptions import JMESPathError

from ..data.schema import bundled, check
from ..data.yamlsrc import line_of, read_yaml
from ..errors import InputError, Problem, collect
from ..guard import is_file_inside, missing_message, short_repr, shorten
from . import drawchecks, tracks  # noqa: F401  (register the odds and track checks on CHECKS)
from .checks import CHECKS, Failure, args_problems
from .document import GameDocument, Location, build_document
from .functions import compile_expr, search

COMPARATORS = ("equals", "min", "max", "above", "below", "one_of")
EXPR_KEYS = ("select", "for_each", "expect", "unique", "group_by")


@dataclass(frozen=True)
class Finding:
    rule: str
    game: str
    severity: str
    message: str
    file: str
    line: int | None
    cards: tuple[str, ...] = ()
    found: Any = None
    expected: Any = None
    broken: bool = False    # the rule itself could not run (a rules-file mistake, not a deck one)

    def as_dict(self) -> dict:
        return {"rule": self.rule, "game": self.game, "severity": self.severity, "message": self.message,
                "file": self.file, "line": self.line, "cards": list(self.cards),
                "found": _plain(self.found), "expected": _plain(self.expected), "broken": self.broken}


@dataclass(frozen=True)
class Rule:
    id: str
    spec: dict
    severity: str
    file: str
    line: int | None
    compiled: dict


def rules_path(game) -> Path | None:
    name = game.meta.get("rules")
    if not name:
        return None   # a rules file is read only where game.yaml names it
    path = game.cards_dir / name
    if not is_file_inside(game.root, path):
        raise InputError("missing rules file", [Problem(game.source.file, missing_message(
            game.root, path, f"rules file '{name}'"), line=line_of(game.meta, ("rules",)), field="rules")])
    return path


def load_rules(game, known_fields: set[str] | None = None) -> list[Rule]:
    """Parse and check a game's rules file; every problem is reported with its line.

    :param known_fields: every key the game's data has; a rule naming any other field has a
        typo (JMESPath would quietly read it as null and the rule would judge nothing).
    """
    path = rules_path(game)
    if path is None:
        return []
    shown = str(path.relative_to(game.root))
    raw = read_yaml(path, shown)
    problems = check(raw, bundled("rules"), shown)
    collect(f"in {shown}", problems)
    rules, seen = [], set()
    for i, spec in enumerate(raw["rules"]):
        line = line_of(raw, ("rules", i))
        if spec["id"] in seen:
            problems.append(Problem(shown, f"rule id '{spec['id']}' is used twice", line=line, field="id"))
        seen.add(spec["id"])
        compiled, sources = {}, []  # sources: (label, where, compiled) of every expression in the rule
        for key in EXPR_KEYS + COMPARATORS:
            source = spec.get(key)
            if isinstance(source, dict):
                source = source.get("expr")
            if not isinstance(source, str) or key in COMPARATORS and not isinstance(spec.get(key), dict):
                continue
            where = line_of(raw, ("rules", i, key))
            compiled[key] = _compile(source, shown, where, spec["id"], key, problems)
            sources.append((key, where, compiled[key]))
        for arg, value in (spec.get("args") or {}).items():  # a check's selections are JMESPath too
            source = value.get("expr") if isinstance(value, dict) else value
            if isinstance(source, str):
                where = line_of(raw, ("rules", i, "args", arg))
                sources.append((f"args.{arg}", where, _compile(source, shown, where, spec["id"], f"args.{arg}",
                                                               problems)))
        problems.extend(Problem(shown, message, line=line_of(raw, ("rules", i, key)), field=f"rule {spec['id']}")
                        for key, message in _shape_problems(spec))
        if spec.get("check") in CHECKS:
            problems.extend(args_problems(spec["id"], spec["check"], spec.get("args"), shown, line))
        if known_fields is not None:
            parsed = [(label, where, expr.parsed) for label, where, expr in sources if expr is not None]
            made = set().union(*(_fields_in(p)[1] for _, _, p in parsed))  # keys the rule makes ({s: suit})
            for label, where, tree in parsed:
                for name in sorted(_fields_in(tree)[0] - known_fields - made - {"it"}):
                    problems.append(Problem(shown, f"'{name}' in {label} is not a field of any card, deck or table "
                                            "(a typo?)", line=where, field=f"rule {spec['id']}"))
        rules.append(Rule(spec["id"], spec, spec.get("severity", "error"), shown, line, compiled))
    collect(f"in {shown}", problems)
    return rules


def _shape_problems(spec) -> list[tuple[str, str]]:
    """What JSON Schema cannot say about a rule: (key, message) for each mistake."""
    found = []
    comparators = [k for k in COMPARATORS if k in spec]
    if "expect" in spec and not comparators:
        found.append(("expect", f"'expect' needs a comparator to judge it ({', '.join(COMPARATORS)})"))
    if comparators and "expect" not in spec:
        found.append((comparators[0], f"'{comparators[0]}' only goes with 'expect'"))
    for key in ("min", "max", "above", "below"):
        value = spec.get(key)
        if key in spec and not isinstance(value, dict) and (isinstance(value, bool) or
                                                             not isinstance(value, (int, float))):
            found.append((key, f"'{key}' must be a number or {{expr: ...}}, not {short_repr(value)}"))
    if "one_of" in spec and not isinstance(spec["one_of"], (list, dict)):
        found.append(("one_of", f"'one_of' must be a list or {{expr: ...}}, not {short_repr(spec['one_of'])}"))
    for name in _placeholders(spec["message"]):
        if not name.isidentifier():
            found.append(("message", f"placeholder {{{name}}} in the message: use plain names such as "
                                     "{found}, {expected} or an item's field"))
    if "check" in spec and spec["check"] not in CHECKS:  # the args of a known one: checks.args_problems
        found.append(("check", f"unknown check '{spec['check']}' (known: {', '.join(sorted(CHECKS))})"))
    return found


def _fields_in(node) -> tuple[set[str], set[str]]:
    """(field names a compiled JMESPath expression reads, keys it makes: `{s: suit}` makes `s`)."""
    read, made = set(), set()

    def walk(n):
        if isinstance(n, dict):
            if n.get("type") == "field":
                read.add(n["value"])
            elif n.get("type") == "key_val_pair":
                made.add(n["value"])
            for child in n.get("children", []):
                walk(child)
    walk(node)
    return read, made


def known_fields(doc, game) -> set[str]:
    """Every key anywhere in the rules' document, and every field a deck declares."""
    keys: set[str] = set()
    stack = [doc]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            keys.update(k for k in value if isinstance(k, str))
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    for deck in game.decks:
        keys.update((deck.raw.get("fields") or {}).keys())
    for spec in (game.meta.get("data") or {}).values():  # optional fields a table's schema allows
        try:
            keys |= _schema_properties(json.loads((game.cards_dir / spec["schema"]).read_text(encoding="utf-8")))
        except (OSError, ValueError, RecursionError):
            pass  # the loader has already reported a schema it cannot read
    return keys


def _schema_properties(schema) -> set[str]:
    names: set[str] = set()
    if isinstance(schema, dict):
        names.update(k for k in (schema.get("properties") or {}) if isinstance(k, str))
        for value in schema.values():
            names |= _schema_properties(value)
    elif isinstance(schema, list):
        for value in schema:
            names |= _schema_properties(value)
    return names


def _placeholders(message: str) -> list[str]:
    try:
        return [name for _, name, _, _ in string.Formatter().parse(message) if name is not None]
    except ValueError as exc:
        return [f"(bad braces: {exc})"]


def _compile(source, file, line, rule_id, key, problems):
    try:
        return compile_expr(source)
    except JMESPathError as exc:
        reason = str(exc).splitlines()[0].rstrip(":")
        problems.append(Problem(file, f"bad JMESPath in '{key}': {shorten(reason)}: {short_repr(source)}", line=line,
                                field=f"rule {rule_id}"))
        return None


def run_rules(game, rules: list[Rule], gd: GameDocument | None = None) -> list[Finding]:
    gd = gd or build_document(game)
    findings = []
    for rule in rules:
        try:
            findings.extend(_run(rule, game.id, gd))
        except (JMESPathError, TypeError, LookupError, ValueError, AttributeError, _Unresolved) as exc:
            reason = " ".join(str(exc).split())
            if "copies" in json.dumps(rule.spec, default=str):
                reason += " (`copies` is a number, as in templates; the list of printed cards is `printed`)"
            findings.append(Finding(rule.id, game.id, "error", f"the rule cannot run: {reason}",
                                    rule.file, rule.line, broken=True))
    return findings


class _Unresolved(Exception):
    """A rule's path selects nothing (null): most likely a typo in a deck or table name."""


class _Ctx:
    """Evaluation context for one rule: JMESPath over the document with `it` bound."""

    def __init__(self, rule: Rule, gd: GameDocument, it: Any = None):
        self.rule, self.gd, self.it = rule, gd, it

    def eval(self, key_or_compiled, it=None):
        compiled = self.rule.compiled[key_or_compiled] if isinstance(key_or_compiled, str) else key_or_compiled
        return search(compiled, {**self.gd.doc, "it": self.it if it is None else it})

    def value(self, literal_or_expr, it=None):
        """A check's argument: a JMESPath string or {expr: ...} evaluated, anything else as written.

        A selection that comes out null means its path is wrong: the rule cannot run."""
        source = literal_or_expr.get("expr") if isinstance(literal_or_expr, dict) else literal_or_expr
        if not isinstance(source, str):
            return literal_or_expr
        found = search(compile_expr(source), {**self.gd.doc, "it": self.it if it is None else it})
        if found is None:
            raise _Unresolved(f"'{source}' selects nothing (null): check the names in it")
        return found


def _run(rule: Rule, game_id: str, gd: GameDocument):
    spec = rule.spec
    ctx = _Ctx(rule, gd)
    if "check" in spec:
        for failed in CHECKS[spec["check"]](ctx, spec.get("args") or {}):
            yield _finding(rule, game_id, gd, failed)
        return
    if "for_each" in spec:
        items = ctx.eval("for_each")
        if items is None:
            raise _Unresolved(f"for_each '{spec['for_each']}' selects nothing (null): check the names in it")
        if not isinstance(items, list):
            items = [items]
        if "unique" in spec:
            yield from _unique(rule, game_id, gd, ctx, items)
        elif "group_by" in spec:
            yield from _groups(rule, game_id, gd, ctx, items)
        else:
            for item in items:
                failure = _compare(rule, ctx, item)
                if failure:
                    yield _finding(rule, game_id, gd, failure)
        return
    selection = ctx.eval("select") if "select" in spec else gd.doc
    if selection is None:
        raise _Unresolved(f"select '{spec['select']}' selects nothing (null): check the names in it")
    failure = _compare(rule, ctx, selection)
    if failure:
        yield _finding(rule, game_id, gd, failure)


def _compare(rule: Rule, ctx: _Ctx, it) -> Failure | None:
    found = ctx.eval("expect", it)
    wanted, values, ok = [], [], True
    for key in COMPARATORS:
        if key not in rule.spec:
            continue
        exp = ctx.eval(key, it) if key in rule.compiled else rule.spec[key]
        ok = _passes(key, found, exp) and ok
        wanted.append(_describe(key, exp))
        values.append((key, exp))
    if ok:
        return None
    # a single `equals` keeps the plain value (JSON reports); otherwise words ("at least 3")
    expected = values[0][1] if len(values) == 1 and values[0][0] == "equals" else " and ".join(wanted)
    return Failure(found, expected, it)


def _passes(key, found, exp) -> bool:
    if key == "equals":
        return _same(found, exp)
    if key == "one_of":
        return isinstance(exp, list) and any(_same(found, e) for e in exp)
    if not (_is_number(found) and _is_number(exp)):
        return False  # a count compared with nothing (or with text) is never in range
    return {"min": found >= exp, "max": found <= exp, "above": found > exp, "below": found < exp}[key]


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _same(a, b) -> bool:
    """Equality for rule values: true is not 1, and 0.1 + 0.2 is 0.3."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if _is_number(a) and _is_number(b):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def _describe(key, exp) -> str:
    return {"equals": f"{_plain(exp)}", "min": f"at least {exp}", "max": f"at most {exp}",
            "above": f"more than {exp}", "below": f"less than {exp}", "one_of": f"one of {_plain(exp)}"}[key]


def _unique(rule, game_id, gd, ctx, items):
    groups = defaultdict(list)
    for item in items:
        groups[repr(_plain(ctx.eval("unique", item)))].append(item)
    for key, same in groups.items():
        if len(same) > 1:
            yield _finding(rule, game_id, gd, Failure(f"{len(same)} items share {key}", "each only once", same,
                                                      fields=_fields(same[0])))


def _groups(rule, game_id, gd, ctx, items):
    found = Counter()
    members = defaultdict(list)
    for item in items:
        key = _plain(ctx.eval("group_by", item))
        found[str(key)] += 1
        members[str(key)].append(item)
    wanted = {str(k): v for k, v in rule.spec["counts"].items()}
    for group in sorted(set(found) | set(wanted)):
        have, want = found.get(group, 0), wanted.get(group)
        if want is None:
            yield _finding(rule, game_id, gd, Failure(f"{have} x {group}", f"no {group}", members[group],
                                                      fields={"group": group}))
        elif have != want:
            yield _finding(rule, game_id, gd, Failure(have, want, members.get(group) or items,
                                                      fields={"group": group}))


def _finding(rule: Rule, game_id: str, gd: GameDocument, failure: Failure) -> Finding:
    loc = gd.locate(failure.item) if failure.item is not None else Location()
    fields = dict(_fields(failure.item))
    fields.update(failure.fields or {})
    fields.update(found=_plain(failure.found), expected=_plain(failure.expected))
    message = string.Formatter().vformat(rule.spec["message"], (), _Lenient(fields))
    if failure.note:
        message += f" ({failure.note})"
    return Finding(rule.id, game_id, rule.severity, message, loc.file or rule.file,
                   loc.line if loc.file else rule.line, loc.cards, _plain(failure.found), _plain(failure.expected))


def _fields(item) -> dict:
    return dict(item) if isinstance(item, dict) else {}


class _Lenient(dict):
    def __missing__(self, key):
        return "{" + key + "}"


def _plain(value):
    """YAML-loaded subclasses to plain JSON values (for messages and reports)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
