"""Component kinds are one table (`generator/data/kinds.py`, with its planners in
`layout/pages.PLANNERS`): every kind answers every question a kind is asked, no other
module compares a deck's kind or layout with a word, and the docs list exactly the kinds
of the table."""
from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

from generator.data.kinds import KINDS, SHEET, Kind, kind_of
from generator.data.model import Deck, Source
from generator.layout.pages import PLANNERS
from generator.rulebook.words import KEYS as RULEBOOK_WORDS
from generator.rulebook.words import PLACEHOLDERS
from tests.astcache import walked

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "generator"
REGISTRY = {PACKAGE / "data" / "kinds.py"}
# the words a deck's kind is written with: the table's names and the words for people
KIND_WORDS = {k.name for k in KINDS} | {"cards", "reference", "tiles", "tokens", "mats"}


def _deck(kind: Kind, **more) -> Deck:
    extra = {"die": "d6", "edge": 16.0, "face_outline": ((0, 0), (1, 0), (1, 1))} if kind.per_face else {}
    given = {"trim_w": 63.0, "trim_h": 88.0, "corner": 3.0, **extra, **more}
    return Deck(id="d", name="D", kind=kind.name, bleed=3.0, safe=3.0, cards=(), source=Source("cards/g/d.yaml", 1),
                **given)


def test_every_kind_answers_every_question():
    names = [k.name for k in KINDS]
    assert len(set(names)) == len(names)
    assert set(PLANNERS) == set(names), "layout/pages.PLANNERS plans exactly the kinds of data/kinds.KINDS"
    schema = json.loads((PACKAGE / "assets" / "schemas" / "deck.schema.json").read_text())["properties"]
    for kind in KINDS:
        for f in dataclasses.fields(Kind):
            value = getattr(kind, f.name)
            assert value is not None or f.name == "geometry", (kind.name, f.name)
        assert kind.name and kind.words and kind.prints
        assert callable(PLANNERS[kind.name])
        assert bool(kind.keys) == (kind.geometry is not None), f"{kind.name}: keys of its own, worked out by load"
        for key in kind.keys:
            assert schema[key]["description"].startswith(f"kind: {kind.name}: "), key
        deck = _deck(kind)
        assert deck.layout == kind.name and deck.family is kind
        assert kind_of(kind.name) is kind
        listed = kind.listing(deck)
        assert isinstance(listed, str) and listed
        assert kind.size_word in RULEBOOK_WORDS
        assert set(kind.size(deck, str)) == PLACEHOLDERS[kind.size_word]
        assert kind.figure_designs >= 1
    # a key the schema gives to one kind is that kind's own
    for key, spec in schema.items():
        said = spec.get("description", "")
        if said.startswith("kind: "):
            owner = kind_of(said.split(":")[1].strip())
            assert owner is not SHEET and key in owner.keys, key
    for kind in KINDS[1:]:   # the schema's word on `kind:` names the kinds with layouts of their own
        assert f"{kind.name}" in schema["kind"]["description"], kind.name
    assert KINDS[0] is SHEET
    for word in ("cards", "tiles", "tokens", "reference", "sheet", "anything"):
        assert kind_of(word) is SHEET


def test_pnp_list_words_of_each_kind():
    board, dice = kind_of("board"), kind_of("dice")
    assert SHEET.listing(_deck(SHEET)) == "63 x 88 mm rect"
    assert SHEET.listing(_deck(SHEET, shape="circle", trim_h=63.0)) == "63 mm circle"
    assert board.listing(_deck(board)) == "63 x 88 mm board"
    assert board.listing(_deck(board, sections=(2, 2))) == "63 x 88 mm board in 2 x 2 sections"
    assert board.listing(_deck(board, shape="rounded", sections=(2, 2))) == "63 x 88 mm rounded (3 mm corners)"
    assert dice.listing(_deck(dice)) == "d6 nets, 16 mm edges"


def _kind_words(node: ast.AST) -> set[str]:
    """The words that make comparing `node` a kind question: any kind's word for `x.kind`,
    `x.layout` and `raw.get("kind", ...)`; a table's name for a bare `kind` or `layout` (a
    figure's kind may be `cards`)."""
    if isinstance(node, ast.Attribute) and node.attr in ("kind", "layout"):
        return KIND_WORDS
    if isinstance(node, ast.Name) and node.id in ("kind", "layout"):
        return {k.name for k in KINDS}
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value == "kind"):
        return KIND_WORDS
    return set()


def _words(node: ast.AST) -> set:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def kind_comparisons(source: str | Path) -> list[int]:
    """Lines of `source` (a module's text, or its file: read through tests/astcache.py) comparing a kind or a layout with a kind's word (`deck.layout ==
    "board"`, `kind in ("dice", "standee")`): questions the table answers."""
    found = []
    for node in walked(source) if isinstance(source, Path) else ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            asked = set().union(*(_kind_words(o) for o in operands))
            if any(_words(o) & asked for o in operands):
                found.append(node.lineno)
    return found


def test_only_the_table_compares_kinds():
    offenders = [f"{path.relative_to(REPO)}:{line}" for path in sorted(PACKAGE.rglob("*.py")) if path not in REGISTRY
                 for line in kind_comparisons(path)]
    assert not offenders, f"ask generator/data/kinds.py (deck.family) instead of comparing words: {offenders}"


def test_the_scan_sees_a_comparison():
    assert kind_comparisons('if deck.layout == "board":\n    pass\n') == [1]
    assert kind_comparisons('x = rc.deck.kind in ("dice", "standee")\n') == [1]
    assert kind_comparisons('x = "sheet" != layout\n') == [1]
    assert kind_comparisons('x = raw.get("kind", "cards") == "dice"\n') == [1]
    assert kind_comparisons('if b.kind == "figure":\n    pass\n') == []
    assert kind_comparisons('if kind not in ("card", "cards", "components"):\n    pass\n') == []


def _docs_table() -> list[str]:
    text = (REPO / "docs" / "reference.md").read_text(encoding="utf-8")
    section = text.split("## Component kinds", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| `")]


def test_the_docs_list_every_kind_and_no_other():
    rows = _docs_table()
    for kind in KINDS:
        keys = ", ".join(f"`{k}`" for k in kind.keys) or "—"
        assert f"| `{kind.name}` | {kind.words} | {keys} | {kind.prints} |" in rows, \
            f"docs/reference.md's Component kinds: the row of {kind.name} is not the table's"
    assert len(rows) == len(KINDS), "docs/reference.md lists a kind the table does not have"
