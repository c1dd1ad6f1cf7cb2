"""A rebuild runs again only the rules that read what changed (rules/footprint.py), and
finds what a fresh check finds."""
from __future__ import annotations

from pathlib import Path

import pytest

import generator.rules as rules_module
from generator.data.load import load_game
from generator.errors import RulesFailed
from generator.rules import check_game
from generator.rules.footprint import ALL, parts_read
from generator.session import Session

RULES = """\
rules:
  - id: red-count
    message: "{found} red cards"
    select: decks.red.printed
    expect: length(it)
    min: 2
  - id: blue-cost
    message: "{name} costs {found}"
    for_each: decks.blue.cards
    expect: it.cost
    max: 5
  - id: every-card
    message: "{found} cards in all"
    select: printed
    expect: length(it)
    min: 1
  - id: table-rows
    message: "{found} rows"
    select: data.table
    expect: length(it)
    min: 1
"""


def _game(root: Path) -> Path:
    game = root / "cards" / "g"
    game.mkdir(parents=True)
    (root / "templates" / "g").mkdir(parents=True)
    (root / "templates" / "g" / "f.svg.j2").write_text("<svg/>")
    (game / "game.yaml").write_text("title: G\ndecks: [red.yaml, blue.yaml]\nrules: rules.yaml\n"
                                    "data:\n  table: {file: table.yaml, schema: table.schema.json}\n")
    (game / "table.yaml").write_text("- {n: 1}\n")
    (game / "table.schema.json").write_text('{"type": "array"}')
    deck = "deck: {id}\nname: {id}\nfront: f.svg.j2\nfields:\n  cost: {{type: integer}}\ncards:\n"
    (game / "red.yaml").write_text(deck.format(id="red") + "  - {name: R1, cost: 1}\n  - {name: R2, cost: 2}\n")
    (game / "blue.yaml").write_text(deck.format(id="blue") + "  - {name: B1, cost: 3}\n")
    (game / "rules.yaml").write_text(RULES)
    return game


@pytest.mark.parametrize("spec, parts", [
    ({"select": "decks.red.printed", "expect": "length(it)"}, {"deck:red"}),
    ({"for_each": "[decks.a.cards, decks.b.cards][]", "unique": "it.name"}, {"deck:a", "deck:b"}),
    ({"select": "printed[?deck=='red']", "expect": "length(it)"}, {ALL}),
    ({"select": "decks | values(@)", "expect": "length(it)"}, {ALL}),
    ({"select": "decks.*.printed[]", "expect": "length(it)"}, {ALL}),
    ({"select": "data.t", "expect": "length(it)", "min": {"expr": "game.players"}}, {"data", "game"}),
    ({"expect": "length(printed)", "min": 1}, {ALL}),   # no selection: the document itself
    ({"check": "draw_odds", "args": {"draw": {"from": "decks.red.printed", "cards": {"expr": "data.t.n"}},
                                     "where": "cost > `1`"}}, {"deck:red", "data"}),
    ({"select": "decks.red.printed", "expect": "length(it", "min": 1}, {ALL}),   # cannot be read: everything
])
def test_what_a_rule_reads(spec, parts):
    assert parts_read(spec) == parts


def test_only_the_rules_reading_an_edited_deck_run_again(tmp_path, monkeypatch):
    game_dir = _game(tmp_path)
    ran, loads = [], []
    run_rules, load_rules = rules_module.run_rules, rules_module.load_rules
    monkeypatch.setattr(rules_module, "run_rules",
                        lambda game, rules, gd=None: ran.extend(r.id for r in rules) or run_rules(game, rules, gd))
    monkeypatch.setattr(rules_module, "load_rules", lambda *a: loads.append(1) or load_rules(*a))
    session = Session(remember=True)

    def check():
        ran.clear()
        game = load_game(tmp_path, "g", Session())
        return check_game(game, memo=session.memo), check_game(game)   # the memo's, a fresh one's

    kept, fresh = check()
    assert sorted(ran) == sorted(["red-count", "blue-cost", "every-card", "table-rows"] * 2)
    assert kept == fresh and len(loads) == 2
    kept, fresh = check()   # nothing changed: nothing runs again, the rules file is not read again
    assert ran == ["red-count", "blue-cost", "every-card", "table-rows"] and kept == fresh and len(loads) == 3

    blue = game_dir / "blue.yaml"
    blue.write_text(blue.read_text().replace("cost: 3", "cost: 9"))   # a blue card now breaks blue-cost
    kept, fresh = check()
    assert ran[:2] == ["blue-cost", "every-card"]   # not red-count, not table-rows
    assert kept == fresh and [f.rule for f in kept.findings] == ["blue-cost"]
    line = kept.findings[0].line

    red = game_dir / "red.yaml"
    red.write_text(red.read_text().replace("R1", "R one"))   # an edit elsewhere: the finding is kept, and stops
    kept, fresh = check()
    assert ran[:2] == ["red-count", "every-card"] and kept == fresh
    with pytest.raises(RulesFailed, match="B1 costs 9"):
        kept.raise_if_failed()

    blue.write_text("# a comment moves every line\n" + blue.read_text())
    kept, fresh = check()
    assert ran[:2] == ["blue-cost", "every-card"] and kept == fresh and kept.findings[0].line == line + 1

    (game_dir / "rules.yaml").write_text(RULES.replace("max: 5", "max: 10"))
    kept, fresh = check()
    assert kept == fresh and not kept.findings and len(loads) == 8   # the edited rules file read again


def test_a_one_shot_build_keeps_findings_on_disk(tmp_path):
    """The findings are kept as plain data in the memo a one-shot build leaves (diskmemo.py)."""
    _game(tmp_path)
    game = load_game(tmp_path, "g", Session())
    first = Session()
    with first.kept_on_disk(tmp_path / "memo", tmp_path, "g"):
        report = check_game(game, memo=first.memo)
    again = Session()
    with again.kept_on_disk(tmp_path / "memo", tmp_path, "g"):
        assert again.memo.recall(_key(game, "red-count")) == ()
        assert check_game(game, memo=again.memo) == report


def _key(game, rule_id: str) -> tuple:
    from generator.rules.document import build_document
    from generator.rules.engine import load_rules
    from generator.rules.footprint import part_digests, rule_key

    rule = next(r for r in load_rules(game) if r.id == rule_id)
    return rule_key(rule, parts_read(rule.spec), part_digests(game, build_document(game)))

