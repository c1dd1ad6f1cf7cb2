"""Rule findings printed for people and for CI: text, JSON, GitHub annotations, JUnit XML.

In: `RulesReport`s (and load problems, reported as the `schema` rule). Out: a string.
Every format cuts what it quotes the same way (guard.shorten): a message to MESSAGE_CHARS
characters, a found or expected value to MESSAGE_CHARS of its JSON, a card or rule id to
SHOWN; a cut text ends with "… (N characters)". A 100 kB value is never echoed whole.
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from ..errors import Problem
from ..guard import MESSAGE_CHARS, shorten
from .engine import Finding
from .words import KINDS

FORMATS = ("text", "json", "github", "junit")


def from_problem(game: str, p: Problem, kind: str = "schema") -> Finding:
    """A load or drawing problem in the same shape as a rule finding (rule id `schema` or `render`)."""
    message = ": ".join(x for x in (p.field, p.message) if x)
    return Finding(kind, game, "error", message, p.file, p.line, (p.card,) if p.card else (), broken=True)


def message(f: Finding) -> str:
    """The finding's message, cut to MESSAGE_CHARS."""
    return shorten(f.message, MESSAGE_CHARS)


def title(f: Finding) -> str:
    """game/rule, each cut to SHOWN."""
    return f"{shorten(f.game)}/{shorten(f.rule)}"


def cards_shown(f: Finding, most: int = 8) -> str:
    """The first `most` card ids (each cut to SHOWN) and how many more."""
    return ", ".join(shorten(str(c)) for c in f.cards[:most]) + (
        f" (+{len(f.cards) - most} more)" if len(f.cards) > most else "")


def value(v):
    """A found or expected value for JSON: as it is, or (text, or the JSON text of a list or
    mapping) cut to MESSAGE_CHARS."""
    if isinstance(v, str):
        return shorten(v, MESSAGE_CHARS)
    text = json.dumps(v, ensure_ascii=False, default=str)
    return v if len(text) <= MESSAGE_CHARS else shorten(text, MESSAGE_CHARS)


def text_line(f: Finding) -> str:
    where = f.file + (f":{f.line}" if f.line else "")
    cards = f" [cards: {cards_shown(f)}]" if f.cards else ""
    return f"{where}: {f.severity}: {title(f)}: {message(f)}{cards}"


def as_json(f: Finding) -> dict:
    """The finding as JSON data, what it quotes cut as in every format."""
    data = f.as_dict()
    return {**data, "rule": shorten(f.rule), "message": message(f), "cards": [shorten(str(c)) for c in f.cards],
            "found": value(data["found"]), "expected": value(data["expected"])}


def render(reports: list, fmt: str) -> str:
    return {"text": _text, "json": _json, "github": _github, "junit": _junit}[fmt](reports)


def _text(reports) -> str:
    out: list[str] = []
    for r in reports:
        out.extend(text_line(f) for f in r.findings)
        out.append(f"{r.game}: {_summary(r)}" + (" — OK" if r.ok else ""))
    return "\n".join(out)


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _summary(r) -> str:
    """`3 rules, 0 errors, 1 warning`: the game's own rules (not the schema, drawing and word
    checks reported beside them), or that they could not run because the data could not be read."""
    rules = [rule for rule in r.rules if rule not in ("schema", "render") and rule not in KINDS]
    ran = _count(len(rules), "rule") if rules or "schema" not in r.rules else "rules not run (the data cannot be read)"
    return f"{ran}, {_count(len(r.errors), 'error')}, {_count(len(r.warnings), 'warning')}"


def _json(reports) -> str:
    data = {
        "ok": all(r.ok for r in reports),
        "errors": sum(len(r.errors) for r in reports),
        "warnings": sum(len(r.warnings) for r in reports),
        "games": [{"game": r.game, "ok": r.ok, "rules": list(r.rules),
                   "findings": [as_json(f) for f in r.findings]} for r in reports],
    }
    return json.dumps(data, indent=2, ensure_ascii=False)


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def _github(reports) -> str:
    out = []
    for r in reports:
        for f in r.findings:
            level = "error" if f in r.errors else "warning"
            props = [f"file={_escape_prop(f.file)}"]
            if f.line:
                props.append(f"line={f.line}")
            props.append(f"title={_escape_prop(title(f))}")
            cards = f" (cards: {cards_shown(f)})" if f.cards else ""
            out.append(f"::{level} {','.join(props)}::{_escape_data(message(f) + cards)}")
    return "\n".join(out)


def _junit(reports) -> str:
    suites = ET.Element("testsuites", name="pnp validate")
    total = failures = 0
    for r in reports:
        by_rule: dict[str, list[Finding]] = {rid: [] for rid in r.rules}
        for f in r.findings:
            by_rule.setdefault(f.rule, []).append(f)
        suite = ET.SubElement(suites, "testsuite", name=r.game)
        n_fail = 0
        for rid, found in by_rule.items():
            case = ET.SubElement(suite, "testcase", classname=f"pnp.{shorten(r.game)}", name=shorten(rid))
            errors = [f for f in found if f in r.errors]
            if errors:
                n_fail += 1
                fail = ET.SubElement(case, "failure", message=message(errors[0]), type="rule")
                fail.text = "\n".join(text_line(f) for f in errors)
            warnings = [f for f in found if f not in errors]
            if warnings:
                ET.SubElement(case, "system-out").text = "\n".join(text_line(f) for f in warnings)
        suite.set("tests", str(len(by_rule)))
        suite.set("failures", str(n_fail))
        suite.set("errors", "0")
        total += len(by_rule)
        failures += n_fail
    suites.set("tests", str(total))
    suites.set("failures", str(failures))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode")
