"""The rules validator: real decks pass, every rule can fail, CI formats are well formed."""
from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET

import pytest
import yaml

from generator.load import list_games, load_game
from generator.rules import check_game
from tests.conftest import REPO, edit, run

# For every rule of every game: one small edit to the real data that breaks that rule and
# no other. (file in cards/<game>/, text to replace once, replacement)
MUTATIONS = {
    "olympians": {
        "deck-size": ("playing-cards.yaml", "rank: 1, favor: 0, title: Recruit}\n  - {id: arrows-2",
                      "rank: 1, favor: 0, title: Recruit, count: 2}\n  - {id: arrows-2"),
        "suit-sizes": ("playing-cards.yaml",
                       "- {id: arrows-1, name: \"1 of Arrows\", suit: Arrows, rank: 1, favor: 0, title: Recruit}",
                       "- {id: eris, name: Eris, suit: Olympians, rank: 15, favor: 0, title: Strife}"),
        "rank-unique-in-suit": ("playing-cards.yaml", "suit: Arrows, rank: 2,", "suit: Arrows, rank: 1,"),
        "battle-ranks": ("playing-cards.yaml", "suit: Arrows, rank: 1,", "suit: Arrows, rank: 7,"),
        "favor-total": ("playing-cards.yaml", "suit: Arrows, rank: 1, favor: 0,", "suit: Arrows, rank: 1, favor: 1,"),
        "five-of-helmets": [
            ("playing-cards.yaml", "suit: Helmets, rank: 5, favor: 10,", "suit: Helmets, rank: 5, favor: 11,"),
            ("playing-cards.yaml", "suit: Helmets, rank: 6, favor: 11,", "suit: Helmets, rank: 6, favor: 10,"),
        ],
        "favor-on-most-cards": [
            ("playing-cards.yaml", "rank: 14\n    favor: 3", "rank: 14\n    favor: 0"),
            ("playing-cards.yaml", "rank: 13\n    favor: 3", "rank: 13\n    favor: 0"),
            ("playing-cards.yaml", "rank: 12\n    favor: 3", "rank: 12\n    favor: 0"),
            ("playing-cards.yaml", "rank: 11\n    favor: 3", "rank: 11\n    favor: 0"),
            ("playing-cards.yaml", "rank: 10\n    favor: 2", "rank: 10\n    favor: 0"),
            ("playing-cards.yaml", "rank: 9\n    favor: 2", "rank: 9\n    favor: 0"),
            ("playing-cards.yaml", "rank: 6\n    favor: 11", "rank: 6\n    favor: 27"),
        ],
        "reference-cards": ("reference.yaml", "  - id: contest-play\n",
                            "  - {id: extra, name: Extra, layout: text, heading: More, text: More.}\n"
                            "  - id: contest-play\n"),
        "reference-tablets": ("reference.yaml", "name: Dealing Tablet", "name: Deal Tablet"),
        "dealing-uses-whole-deck": ("tables.yaml", "hands: 4, cards: 7, box: 4", "hands: 4, cards: 8, box: 4"),
        "victory-covers-all-favor": ("tables.yaml", "min: 91,", "min: 92,"),
        "hoplite-half": ("tables.yaml", "max: 119, hero: 4, hoplite: 2", "max: 119, hero: 4, hoplite: 3"),
        "hero-threshold": ("tables.yaml", "hero_needs: 61", "hero_needs: 60"),
    },
}


def rule_ids(game):
    path = REPO / "cards" / game / "rules.yaml"
    return [r["id"] for r in yaml.safe_load(path.read_text())["rules"]]


@pytest.mark.parametrize("game", list_games(REPO))
def test_real_decks_pass(game):
    report = check_game(load_game(REPO, game))
    assert report.findings == ()
    assert len(report.rules) >= 10


@pytest.mark.parametrize("game", sorted(MUTATIONS))
def test_every_rule_has_a_mutation(game):
    assert sorted(rule_ids(game)) == sorted(MUTATIONS[game])


CASES = [(g, r) for g, rules in sorted(MUTATIONS.items()) for r in rules]


@pytest.mark.parametrize("game, rule", CASES, ids=[f"{g}/{r}" for g, r in CASES])
def test_each_rule_catches_its_mutation(project, game, rule):
    edits = MUTATIONS[game][rule]
    for file, old, new in edits if isinstance(edits, list) else [edits]:
        edit(project / "cards" / game / file, old, new)
    report = check_game(load_game(project, game))
    failed = {f.rule for f in report.findings}
    assert failed == {rule}, [str(f) for f in report.findings]
    for f in report.findings:
        assert f.file.startswith(f"cards/{game}/") and f.line, f
        assert f.message and not re.search(r"\{\w+\}", f.message), f.message


def test_findings_name_expected_and_found_and_cards(project):
    edit(project / "cards/olympians/playing-cards.yaml", "suit: Arrows, rank: 2,", "suit: Arrows, rank: 1,")
    edit(project / "cards/olympians/playing-cards.yaml", "suit: Helmets, rank: 5, favor: 10,",
         "suit: Helmets, rank: 5, favor: 9,")
    report = check_game(load_game(project, "olympians"))
    by_rule = {f.rule: f for f in report.findings}
    assert by_rule["favor-total"].message == "favor total is 119, expected 120"
    assert (by_rule["favor-total"].found, by_rule["favor-total"].expected) == (119, 120)
    unique = by_rule["rank-unique-in-suit"]
    assert unique.cards == ("arrows-1", "arrows-2") and unique.line == 23
    helmets = by_rule["five-of-helmets"]
    assert helmets.cards == ("helmets-5",) and helmets.file == "cards/olympians/playing-cards.yaml"


def test_table_findings_point_at_the_row(project):
    edit(project / "cards/olympians/tables.yaml", "hands: 4, cards: 7, box: 4", "hands: 4, cards: 8, box: 4")
    (f,) = check_game(load_game(project, "olympians")).findings
    assert (f.file, f.line) == ("cards/olympians/tables.yaml", 9)
    assert f.message == "4 players (Partners): 4 hands x 8 cards + 4 in the box = 36, expected 32"


def break_two(project):
    edit(project / "cards/olympians/tables.yaml", "hero_needs: 61", "hero_needs: 60")
    edit(project / "cards/olympians/tables.yaml", "min: 91,", "min: 92,")


def test_exit_codes(project, mini):
    assert run(REPO, "validate", "olympians").exit_code == 0
    break_two(project)
    assert run(project, "validate", "olympians").exit_code == 1
    root = mini("- {id: a, name: A, text: [oops")
    assert run(root, "validate").exit_code == 2
    assert run(REPO, "validate", "nosuchgame").exit_code == 2


def test_strict_makes_warnings_fail(project):
    edit(project / "cards/olympians/rules.yaml", "  - id: hero-threshold\n", "  - id: hero-threshold\n    severity: warning\n")
    edit(project / "cards/olympians/tables.yaml", "hero_needs: 61", "hero_needs: 60")
    result = run(project, "validate", "olympians")
    assert result.exit_code == 0 and "warning: olympians/hero-threshold" in result.output
    assert run(project, "validate", "olympians", "--strict").exit_code == 1
    assert run(project, "build", "olympians", "--strict").exit_code == 1


def test_json_report_round_trips(project):
    break_two(project)
    result = run(project, "validate", "olympians", "--format", "json")
    data = json.loads(result.output)
    assert json.loads(json.dumps(data)) == data
    assert data["ok"] is False and data["errors"] == 2
    (game,) = data["games"]
    rules = {f["rule"] for f in game["findings"]}
    assert rules == {"hero-threshold", "victory-covers-all-favor"}
    f = next(f for f in game["findings"] if f["rule"] == "hero-threshold")
    assert f["file"] == "cards/olympians/tables.yaml" and f["line"] and f["found"] == 60


GITHUB = re.compile(r"^::(error|warning) file=[^,:]+,line=\d+,title=[^:,]+::[^\n]+$")


def test_github_annotations_point_at_yaml_lines(project):
    break_two(project)
    result = run(project, "validate", "olympians", "--format", "github")
    lines = result.output.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        assert GITHUB.match(line), line
        assert "file=cards/olympians/tables.yaml" in line


def test_junit_report_parses(project):
    break_two(project)
    result = run(project, "validate", "olympians", "--format", "junit")
    root = ET.fromstring(result.output.split("\n", 1)[1])
    suite = root.find("testsuite")
    assert suite.get("name") == "olympians"
    assert int(suite.get("tests")) == len(rule_ids("olympians"))
    failed = {c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None}
    assert failed == {"hero-threshold", "victory-covers-all-favor"}
    assert root.get("failures") == "2"


def test_schema_error_in_ci_formats(mini):
    root = mini("- {id: a, name: A}")
    result = run(root, "validate", "--format", "github")
    assert result.exit_code == 2
    assert result.output.startswith("::error file=cards/mini/deck.yaml,line=10,title=mini/schema::")
    result = run(root, "validate", "--format", "junit")
    assert ET.fromstring(result.output.split("\n", 1)[1]).find("testsuite/testcase/failure") is not None


def test_rules_file_problems_are_input_errors(project):
    rules = project / "cards/olympians/rules.yaml"
    edit(rules, "expect: length(it)\n    equals: 32\n\n  - id: suit-sizes",
         "expect: length(it\n    equals: 32\n\n  - id: suit-sizes")
    result = run(project, "validate", "olympians")
    assert result.exit_code == 2
    assert ("cards/olympians/rules.yaml:8: error: olympians/schema: rule deck-size: bad JMESPath in 'expect': "
            "Invalid jmespath expression: Incomplete expression: 'length(it'") in result.output
    shutil.copy(REPO / "cards/olympians/rules.yaml", rules)
    edit(rules, "  - id: deck-size\n", "  - id: deck-size\n    colour: red\n")
    result = run(project, "validate", "olympians")
    assert result.exit_code == 2 and "unknown key 'colour'" in result.output
