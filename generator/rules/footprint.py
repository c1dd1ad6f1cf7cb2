"""What part of a game's rules document each rule reads, so its findings are kept by it.

In: a rule (its spec: every JMESPath expression in it and in its check's arguments) and
the game's `GameDocument`. Out: `rule_key(rule, document, digests)`: a key (a tuple of
text) that changes whenever anything the rule can read changes: the rule as written and
where, and the digest of each part of the document it reads (a deck by its id: its cards
as the document holds them and where each was written; every deck when it reads `cards`,
`printed`, `copies`, `decks` as a whole, or the document itself; `data` and `game` as a
whole). A rule's findings are a pure function of these, so a rebuild after a one-card
edit runs again only the rules that read the edited deck (rules/__init__.check_game).

The parts are told by walking each expression's syntax tree from the document's root:
`decks.<id>` reads one deck; a root or `decks` value that goes anywhere else (a
projection, a function, a comparison, a list) reads every deck. Anything the walk does
not know reads everything.
"""
from __future__ import annotations

import hashlib
import json

from jmespath.exceptions import JMESPathError

from ..data.yamlsrc import line_of
from .engine import COMPARATORS, EXPR_KEYS
from .functions import compile_expr

ALL = "*"                     # every deck, and the data and the game
_ROOT, _DECKS, _OTHER = "root", "decks", "other"
_EVERY_DECK = ("cards", "printed", "copies")   # root fields made of every deck
_PLAIN_CHILDREN = ("comparator", "and_expression", "or_expression", "not_expression", "multi_select_list",
                   "multi_select_dict", "key_val_pair", "function_expression", "flatten", "index_expression")


def parts_read(spec) -> frozenset[str]:
    """The parts of the document the rule `spec` reads: deck ids, "data", "game", or ALL."""
    if "check" not in spec and "select" not in spec and "for_each" not in spec:
        return frozenset({ALL})   # the rule judges the document itself
    reads: set[str] = set()
    sources = [spec.get(key) for key in EXPR_KEYS]   # JMESPath as written
    sources += [spec[key] for key in COMPARATORS if isinstance(spec.get(key), dict)]   # {expr: ...}
    sources += _strings(spec.get("args"))   # a check's: any text in them may be JMESPath, at any depth
    for source in sources:
        source = source.get("expr") if isinstance(source, dict) else source
        if not isinstance(source, str):
            continue
        try:
            tree = compile_expr(source).parsed
        except JMESPathError:   # the rule cannot run (its finding says why): keyed by everything
            return frozenset({ALL})
        _escape(_walk(tree, _ROOT, reads), reads)
    return frozenset(reads)


def _strings(value) -> list[str]:
    """Every text in `value` (a check's arguments), however deep."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _escape(value, reads: set) -> None:
    """`value` goes somewhere the walk does not follow: the root or `decks` read whole."""
    if value in (_ROOT, _DECKS):
        reads.add(ALL)


def _walk(node, at, reads: set):
    """The abstract value of `node` evaluated at `at` (_ROOT, _DECKS, a deck's id as
    ("deck", id), or _OTHER), adding to `reads` what it reads of the document."""
    if not isinstance(node, dict):
        reads.add(ALL)
        return _OTHER
    kind, children = node.get("type"), node.get("children") or []
    if kind == "field":
        name = node.get("value")
        if at == _ROOT:
            if name == "decks":
                return _DECKS
            if name in _EVERY_DECK:
                reads.add(ALL)
            elif name in ("data", "game"):
                reads.add(name)
            return _OTHER   # `it` (the selected item: read by the selection) or a field the document lacks
        if at == _DECKS:
            reads.add(f"deck:{name}")
        return _OTHER
    if kind in ("current", "identity"):
        return at
    if kind in ("literal", "index", "slice"):
        return _OTHER
    if kind in ("subexpression", "pipe"):
        value = at
        for child in children:
            value = _walk(child, value, reads)
        return value
    if kind in ("projection", "filter_projection", "value_projection"):
        _escape(_walk(children[0], at, reads), reads)   # each item of the left, then the right on it
        for child in children[1:]:
            _walk(child, _OTHER, reads)
        return _OTHER
    if kind == "expref":
        for child in children:
            _walk(child, _OTHER, reads)
        return _OTHER
    if kind in _PLAIN_CHILDREN:
        for child in children:
            _escape(_walk(child, at, reads), reads)
        return _OTHER
    reads.add(ALL)   # a node this walk does not know
    return _OTHER


def part_digests(game, document) -> dict[str, str]:
    """The digest of each part of `document` (a GameDocument of `game`): "deck:<id>" (its
    entry and where each of its cards was written), "data" (the tables and their files'
    text, which the findings' lines come from), "game"; and "id": the game's id."""
    out = {"id": game.id}
    decks = document.doc["decks"]
    for deck in game.decks:
        h = hashlib.sha256(_json(decks.get(deck.id)).encode())
        where = [deck.source.file, deck.source.line, line_of(deck.raw, ("cards",))]
        where += [(c.source.file, c.source.line) for c in deck.cards]
        h.update(_json(where).encode())
        out[f"deck:{deck.id}"] = h.hexdigest()
    h = hashlib.sha256(_json(document.doc["data"]).encode())
    for name in sorted(game.data_sources):
        try:
            h.update((game.root / game.data_sources[name]).read_bytes())
        except OSError as exc:
            h.update(repr(exc).encode())
    out["data"] = h.hexdigest()
    out["game"] = hashlib.sha256(_json(document.doc["game"]).encode()).hexdigest()
    return out


def rule_key(rule, reads: frozenset[str], digests: dict[str, str]) -> tuple:
    """The key of `rule`'s findings: the rule as written and where, and the digests of what it reads."""
    parts = sorted(set(digests) - {"id"}) if ALL in reads else sorted(reads)
    return ("rule findings", digests["id"], rule.id, rule.file, str(rule.line), rule.severity, _json(rule.spec),
            *(f"{part}={digests.get(part, 'absent')}" for part in parts))


def _json(value) -> str:
    return json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False)
