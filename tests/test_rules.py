"""The rules validator: real decks pass, every rule can fail, CI formats are well formed."""
from __future__ import annotations

import importlib
import json
import re
import shutil
import xml.etree.ElementTree as ET

import pytest
import yaml

from generator.data.load import list_games, load_game
from generator.rules import check_game
from generator.session import Session
from tests.conftest import REPO, edit, game_copy, run


def _tail(game, file, start):
    """The real text of cards/<game>/<file> from `start` to its end (to cut a file short)."""
    text = (REPO / "cards" / game / file).read_text(encoding="utf-8")
    return text[text.index(start):]


def _card(game, file, card_id):
    """The real text of one card in a deck file: its `  - ` item up to the next one."""
    lines = (REPO / "cards" / game / file).read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if re.match(rf"  - {{?id: {re.escape(card_id)}[,\s]", line))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("    ")), len(lines))
    return "".join(lines[start:end])


# For every rule of every game: small edits to the real data that break that rule and no
# other. An edit is (file in cards/<game>/, text to replace once, replacement); a list holds
# several edits. Where a fact is the sum of others (a deck total and its parts), no edit can
# break one without the other: such an entry is {"edits": [...], "also": {rules that must fail
# with it}}, and the test still demands exactly that set of failures.
MUTATIONS = {
    "olympians": {
        "deck-size": ("playing-cards.yaml", "rank: 1, favor: 0, title: Recruit}\n  - {id: arrows-2",
                      "rank: 1, favor: 0, title: Recruit, count: 2}\n  - {id: arrows-2"),
        "suit-sizes": ("playing-cards.yaml",
                       "- {id: arrows-1, name: \"1 of Arrows\", suit: Arrows, rank: 1, favor: 0, title: Recruit}",
                       "- {id: eris, name: Eris, suit: Olympians, rank: 15, favor: 0, title: Strife, emblem: apple}"),
        "rank-unique-in-suit": ("playing-cards.yaml", "suit: Arrows, rank: 2,", "suit: Arrows, rank: 1,"),
        "gods-have-emblems": ("playing-cards.yaml", "    emblem: hearth\n", ""),
        "emblems-distinct": ("playing-cards.yaml", "    emblem: hearth\n", "    emblem: thunderbolt\n"),
        "battle-ranks": ("playing-cards.yaml", "suit: Arrows, rank: 1,", "suit: Arrows, rank: 7,"),
        "favor-total": ("playing-cards.yaml", "suit: Arrows, rank: 1, favor: 0,", "suit: Arrows, rank: 1, favor: 1,"),
        "five-of-helmets": [
            ("playing-cards.yaml", "suit: Helmets, rank: 5, favor: 10,", "suit: Helmets, rank: 5, favor: 11,"),
            ("playing-cards.yaml", "suit: Helmets, rank: 6, favor: 11,", "suit: Helmets, rank: 6, favor: 10,"),
        ],
        # fewer cards with Favor also make a hand without any likelier
        "favor-on-most-cards": {"also": {"hand-without-favor-is-rare"}, "edits": [
            ("playing-cards.yaml", "rank: 14\n    favor: 3", "rank: 14\n    favor: 0"),
            ("playing-cards.yaml", "rank: 13\n    favor: 3", "rank: 13\n    favor: 0"),
            ("playing-cards.yaml", "rank: 12\n    favor: 3", "rank: 12\n    favor: 0"),
            ("playing-cards.yaml", "rank: 11\n    favor: 3", "rank: 11\n    favor: 0"),
            ("playing-cards.yaml", "rank: 10\n    favor: 2", "rank: 10\n    favor: 0"),
            ("playing-cards.yaml", "rank: 9\n    favor: 2", "rank: 9\n    favor: 0"),
            ("playing-cards.yaml", "rank: 6\n    favor: 11", "rank: 6\n    favor: 27"),
        ]},
        # three more 1s of Arrows (35 cards): six hands of five then miss an Olympian 1 deal in 3
        "every-hand-holds-an-olympian": {"edits": [(
            "playing-cards.yaml", "rank: 1, favor: 0, title: Recruit}\n  - {id: arrows-2",
            "rank: 1, favor: 0, title: Recruit, count: 4}\n  - {id: arrows-2")], "also": {"deck-size"}},
        # three Olympians lose their Favor to a fourth (the total stays 120): 15 cards without
        # Favor, and a hand of five without any comes 1.5 times in 100
        "hand-without-favor-is-rare": [
            ("playing-cards.yaml", "rank: 14\n    favor: 3", "rank: 14\n    favor: 0"),
            ("playing-cards.yaml", "rank: 13\n    favor: 3", "rank: 13\n    favor: 0"),
            ("playing-cards.yaml", "rank: 12\n    favor: 3", "rank: 12\n    favor: 0"),
            ("playing-cards.yaml", "rank: 11\n    favor: 3", "rank: 11\n    favor: 12"),
        ],
        "reference-cards": ("reference.yaml", "  - id: contest-play\n",
                            "  - {id: extra, name: Extra, layout: text, heading: More, text: More.}\n"
                            "  - id: contest-play\n"),
        "reference-tablets": ("reference.yaml", "name: Dealing Tablet", "name: Deal Tablet"),
        "dealing-uses-whole-deck": ("tables.yaml", "hands: 4, cards: 7, box: 4", "hands: 4, cards: 8, box: 4"),
        "victory-covers-all-favor": ("tables.yaml", "min: 91,", "min: 92,"),
        "hoplite-half": ("tables.yaml", "max: 119, hero: 4, hoplite: 2", "max: 119, hero: 4, hoplite: 3"),
        "hero-threshold": ("tables.yaml", "hero_needs: 61", "hero_needs: 60"),
        "hero-takes-the-box": ("tables.yaml", "hero_swaps: 2 ", "hero_swaps: 3 "),
    },
    "meteor": {
        # ---- counts per component
        # A spare zone card printed and a timer bought for it: only the zone count is wrong.
        "zone-cards": [("zones.yaml", "  - id: zone-1\n", "  - id: zone-1\n    count: 2\n"),
                       ("tables.yaml", "quantity: 5,", "quantity: 6,")],
        "zone-numbers": ("zones.yaml", "    zone: 3\n", "    zone: 2\n"),
        "leader-cards": ("leaders.yaml", "accent: gold}", "accent: gold, count: 2}"),
        # energy-colours counts every copy by type, and the Resource Deck is Energy + Rocket +
        # Technology: no change to the Energy total can leave either of them intact.
        "energy-cards": {"edits": [("energy.yaml", "count: 15", "count: 16")],
                         "also": {"energy-colours", "resource-deck-size"}},
        "energy-colours": [("energy.yaml", "count: 15", "count: 14"), ("energy.yaml", "count: 12", "count: 13")],
        # the Resource Deck total includes the Rockets
        "rocket-cards": {"edits": [("rockets.yaml", "count: 4,", "count: 5,")], "also": {"resource-deck-size"}},
        # the Resource Deck total includes the Technology
        "technology-cards": {"edits": [("technology.yaml", "  - id: tech-assembly-plant\n",
                                        "  - id: tech-assembly-plant\n    count: 2\n")],
                             "also": {"resource-deck-size"}},
        # the Resource Deck is the sum of three decks that each have their own total
        "resource-deck-size": {"edits": [("rockets.yaml", "count: 3, damage: 1", "count: 2, damage: 1")],
                               "also": {"rocket-cards"}},
        # meteor-ranges counts every copy by its back (unlisted backs fail too)
        "standard-meteors": {"edits": [("meteors.yaml", "name: Cinder,  size: 1,",
                                        "name: Cinder,  count: 2, size: 1,")],
                             "also": {"meteor-ranges"}},
        "meteor-ranges": ("meteors.yaml", 'size: 3, range_low: 1, range_high: 3, designation: "2030 GV7"',
                          'size: 3, range_low: 3, range_high: 5, designation: "2030 GV7"'),
        "boss-cards": ("bosses.yaml", _card("meteor", "bosses.yaml", "boss-hydra"), ""),
        "power-cards": ("powers.yaml", _card("meteor", "powers.yaml", "power-recycler"), ""),
        "challenge-cards": ("challenges.yaml", _card("meteor", "challenges.yaml", "challenge-butterfingers"), ""),
        "retrofit-reference-cards": ("retrofit.yaml", "count: 5}", "count: 4}"),
        "setup-card": ("setup.yaml", "name: Set Up}", "name: Set Up, count: 2}"),
        "unique-names": ("rockets.yaml", "name: Spark,", "name: Sparkler,"),
        # ---- Meteors
        "meteor-size-in-range": ("meteors.yaml", "name: Cinder,  size: 1,", "name: Cinder,  size: 4,"),
        # a backwards range holds no size at all, and its back is not one of the four
        "meteor-range-order": {"edits": [("meteors.yaml", 'range_low: 3, range_high: 5, designation: "2029 TS8"',
                                          'range_low: 5, range_high: 3, designation: "2029 TS8"')],
                               "also": {"meteor-size-in-range", "meteor-ranges"}},
        # a giant whose back is not its size shows a back that is not one of the four
        "giants-double-sided": {"edits": [("meteors.yaml", "size: 6, range_low: 6,", "size: 6, range_low: 5,")],
                                "also": {"meteor-ranges"}},
        "meteor-traits-known": ("tables.yaml", "{id: armored,", "{id: armoured,"),
        "some-meteors-have-traits": [
            ("meteors.yaml", f'"{designation}", trait: {trait}', f'"{designation}"')
            for designation, trait in [("2030 PM2", "splitting"), ("2033 EM8", "splitting"), ("2029 CR5", "armored"),
                                       ("2032 BS8", "splitting"), ("2029 OB2", "brittle"), ("2030 HH7", "armored"),
                                       ("2033 IS3", "dense"), ("2028 LV7", "armored")]
        ],
        "boss-goes-to-11": ("bosses.yaml", "size: 11", "size: 10"),
        # ---- Energy costs and Rockets
        # The deck's own schema stops damage 6, so the designer widens it too; a sixth damage
        # value is then also a value outside 1-5 and a new set of Rocket Retrofits.
        "rocket-damage-range": {"edits": [("rockets.yaml", "minimum: 1, maximum: 5,", "minimum: 1, maximum: 6,"),
                                          ("rockets.yaml", "damage: 5, cost: [atomic, atomic, chemical]}",
                                           "damage: 6, cost: [atomic, atomic, chemical, chemical]}")],
                                "also": {"every-damage-exists", "rocket-retrofits"}},
        # four damage values allow fewer Rocket Retrofits
        "every-damage-exists": {"edits": [("rockets.yaml", "damage: 1, cost: [chemical]}",
                                           "damage: 2, cost: [chemical, chemical]}"),
                                          ("rockets.yaml", "damage: 1, cost: [fuel]}",
                                           "damage: 2, cost: [fuel, fuel]}")],
                                "also": {"rocket-retrofits"}},
        "costs-use-the-four-energy-types": [
            ("technology.yaml", "items: {enum: [chemical, fuel, atomic, electrical]}",
             "items: {enum: [chemical, fuel, atomic, electrical, solar]}"),
            ("technology.yaml", "cost: [atomic, fuel]", "cost: [atomic, solar]"),
        ],
        "cost-not-empty": [("technology.yaml", "minItems: 1\n    maxItems: 5", "minItems: 0\n    maxItems: 5"),
                           ("technology.yaml", "cost: [atomic, fuel]", "cost: []")],
        "rocket-cost-scales-with-damage": ("rockets.yaml", "cost: [chemical, chemical, fuel, fuel]",
                                           "cost: [chemical, fuel, fuel]"),
        "energy-power-table": ("tables.yaml", "{id: electrical,", "{id: electric,"),
        "communications-satellite": ("technology.yaml", "name: Communications Satellite",
                                     "name: Communication Satellite"),
        # ---- Retrofits: cards_in sets both Retrofit counts at once
        "energy-retrofits": {"edits": [("tables.yaml", "cards_in: 4", "cards_in: 3")], "also": {"rocket-retrofits"}},
        "rocket-retrofits": {"edits": [("tables.yaml", "cards_in: 4", "cards_in: 5")], "also": {"energy-retrofits"}},
        "retrofit-draws-add-up": ("tables.yaml", "{players: 3, builder: 3,", "{players: 3, builder: 4,"),
        "retrofit-draws-every-player-count": ("tables.yaml", "    - {players: 4, builder: 2, others_each: 1}\n", ""),
        # ---- Set-up chart
        # the 5-player game dropped from both tables (the Retrofit draws must match the chart)
        "setup-player-counts": [("tables.yaml", "  - {players: 5, dealt: 4,  meteors: 8, zone_draw: 1}\n", ""),
                                ("tables.yaml", "    - {players: 5, builder: 1, others_each: 1}\n", "")],
        # a deal that does not fit the deck has no odds either
        "setup-deal-fits-deck": {"edits": [("tables.yaml", "{players: 1, dealt: 10,", "{players: 1, dealt: 100,")],
                                 "also": {"every-dealt-hand-holds-energy"}},
        "setup-meteors-fit": ("tables.yaml", "meteors: 8,", "meteors: 28,"),
        # the chart's 5 players are pinned by setup-player-counts, the 5 leaders by leader-cards
        "setup-leaders-for-everyone": {"edits": [("leaders.yaml",
                                                  _card("meteor", "leaders.yaml", "site-sriharikota"), "")],
                                       "also": {"leader-cards"}},
        # 5 players need 5 of each, and 13 Powers / 11 Challenges are pinned: an unfinished Power deck
        "advanced-cards-for-everyone": {"edits": [("powers.yaml",
                                                   _tail("meteor", "powers.yaml", "  - id: power-astronomer\n"), "")],
                                        "also": {"power-cards"}},
        "one-timer-per-zone": ("tables.yaml", "quantity: 5,", "quantity: 4,"),
        # ---- Variants
        "solo-removals-exist": ("tables.yaml", 'name: "Secret Agent"', 'name: "Secret Agents"'),
        "solo-removal-count": ("tables.yaml", '  - {deck: challenges, name: "Weak Military"}\n',
                               '  - {deck: challenges, name: "Weak Military"}\n'
                               '  - {deck: challenges, name: "Red Tape"}\n'),
        # a cited card renamed (the solo list follows, the rulebook does not)
        "advanced-names-cited-by-rules": [("powers.yaml", "name: Universal Aid", "name: Universal Help"),
                                          ("tables.yaml", '"Universal Aid"', '"Universal Help"')],
        # ---- Odds: one Chemical Energy left of 15 (the counts pinned by the facts fail with it)
        "solo-opening-hand-builds-a-rocket": {"edits": [("energy.yaml", "count: 15", "count: 1")],
                                              "also": {"energy-cards", "energy-colours", "resource-deck-size",
                                                       "every-dealt-hand-holds-energy"}},
        # five players dealt three cards each
        "every-dealt-hand-holds-energy": ("tables.yaml", "{players: 5, dealt: 4,", "{players: 5, dealt: 3,"),
        "challenges-cited-by-rules": [("challenges.yaml", "name: War Hawks", "name: Warhawks"),
                                      ("tables.yaml", '"War Hawks"', '"Warhawks"')],
    },
}


def rule_ids(game):
    path = REPO / "cards" / game / "rules.yaml"
    return [r["id"] for r in yaml.safe_load(path.read_text())["rules"]]


@pytest.mark.parametrize("game", list_games(REPO))
def test_real_decks_pass(game):
    report = check_game(load_game(REPO, game, Session()))
    assert report.findings == ()
    assert len(report.rules) >= 10


def game_mutations(game: str) -> dict:
    """A game's mutations: here for the first two games, else in tests/test_<game>.py."""
    if game in MUTATIONS:
        return MUTATIONS[game]
    module = importlib.import_module(f"tests.test_{game.replace('-', '_')}")
    return module.MUTATIONS


@pytest.mark.parametrize("game", list_games(REPO))
def test_every_rule_has_a_mutation(game):
    assert sorted(rule_ids(game)) == sorted(game_mutations(game))


CASES = [(g, r) for g in list_games(REPO) for r in sorted(game_mutations(g))]


@pytest.fixture
def project(tmp_path):
    """conftest's `project` holding Olympians alone, the one game the tests here break."""
    return game_copy(tmp_path, "olympians")


@pytest.fixture(scope="module")
def game_copies(tmp_path_factory):
    """{game: a private copy of that game alone}, made once for this worker's cases."""
    return {}


@pytest.fixture
def game_project(game_copies, tmp_path_factory, game):
    """A private copy of the one game under test: a game's load and rules read only its
    own folders (a read of another game's would fail here). One copy a game serves this
    worker's cases one after another, as a designer's project takes edit after edit: a
    case's edits are undone when it ends (every file of the game's cards as shipped again,
    no other left), and the templates are never edited."""
    if game not in game_copies:
        game_copies[game] = game_copy(tmp_path_factory.mktemp(f"rules-{game}"), game)
    root = game_copies[game]
    yield root
    def files(folder):
        return {p.relative_to(folder): p for p in folder.rglob("*") if p.is_file()}
    shipped, copy = files(REPO / "cards" / game), files(root / "cards" / game)
    for name, path in copy.items():
        if name not in shipped:
            path.unlink()
        elif path.read_bytes() != shipped[name].read_bytes():
            path.write_bytes(shipped[name].read_bytes())
    assert files(root / "cards" / game).keys() == shipped.keys()


@pytest.fixture(scope="module")
def watching():
    """watching(game): a remembering Session for `game`, one for all of this worker's cases
    of it, as `pnp watch` keeps one while a designer saves edit after edit. It has checked
    the game as shipped first (from the repository, not a case's copy: its memo is keyed by
    what the files hold and where in the project they are, never by the project's folder),
    so a case's check parses, schema-checks and runs again only what its edit changed
    (data/yamlsrc, rules/footprint.py): every case then also shows the memo catches the
    mutation."""
    sessions: dict[str, Session] = {}

    def session_of(game: str) -> Session:
        if game not in sessions:
            session = Session(remember=True)
            shipped = check_game(load_game(REPO, game, session), strict=True, memo=session.memo)
            assert shipped.findings == (), [str(f) for f in shipped.findings]
            sessions[game] = session
        return sessions[game]
    return session_of


@pytest.mark.slow
@pytest.mark.parametrize("game, rule", CASES, ids=[f"{g}/{r}" for g, r in CASES])
def test_each_rule_catches_its_mutation(game_project, game, rule, watching):
    project = game_project
    spec = game_mutations(game)[rule]
    also = set()
    if isinstance(spec, dict):
        spec, also = spec["edits"], set(spec.get("also", ()))
    for item in spec if isinstance(spec, list) else [spec]:
        if callable(item):  # a mutation that needs code: item(project root)
            item(project)
        else:
            file, old, new = item
            edit(project / "cards" / game / file, old, new)
    session = watching(game)
    report = check_game(load_game(project, game, session), strict=True, memo=session.memo)
    failed = {f.rule for f in report.findings}
    assert failed == {rule} | also, [str(f) for f in report.findings]
    for f in report.findings:
        assert f.file.startswith(f"cards/{game}/") and f.line, f
        assert f.line <= len((project / f.file).read_text(encoding="utf-8").splitlines()), f
        assert f.message and not re.search(r"\{\w+\}", f.message), f.message


def test_findings_name_expected_and_found_and_cards(project):
    edit(project / "cards/olympians/playing-cards.yaml", "suit: Arrows, rank: 2,", "suit: Arrows, rank: 1,")
    edit(project / "cards/olympians/playing-cards.yaml", "suit: Helmets, rank: 5, favor: 10,",
         "suit: Helmets, rank: 5, favor: 9,")
    report = check_game(load_game(project, "olympians", Session()))
    by_rule = {f.rule: f for f in report.findings}
    assert by_rule["favor-total"].message == "favor total is 119, expected 120"
    assert (by_rule["favor-total"].found, by_rule["favor-total"].expected) == (119, 120)
    unique = by_rule["rank-unique-in-suit"]
    arrows_2 = next(n for n, line in enumerate((REPO / "cards/olympians/playing-cards.yaml").read_text().splitlines(), 1)
                    if "{id: arrows-2," in line)
    assert unique.cards == ("arrows-1", "arrows-2") and unique.line == arrows_2
    helmets = by_rule["five-of-helmets"]
    assert helmets.cards == ("helmets-5",) and helmets.file == "cards/olympians/playing-cards.yaml"


def test_table_findings_point_at_the_row(project):
    edit(project / "cards/olympians/tables.yaml", "hands: 4, cards: 7, box: 4", "hands: 4, cards: 8, box: 4")
    (f,) = check_game(load_game(project, "olympians", Session())).findings
    assert (f.file, f.line) == ("cards/olympians/tables.yaml", 9)
    assert f.message == "4 players (partners): 4 hands x 8 cards + 4 in the box = 36, expected 32"


def break_two(project):
    edit(project / "cards/olympians/tables.yaml", "hero_needs: 61", "hero_needs: 60")
    edit(project / "cards/olympians/tables.yaml", "min: 91,", "min: 92,")


def test_exit_codes(project, mini):
    assert run(REPO, "validate", "olympians", "--no-render").exit_code == 0   # drawn too: test_preflight's full validation
    break_two(project)
    assert run(project, "validate", "olympians", "--no-render").exit_code == 1
    root = mini("- {id: a, name: A, text: [oops")
    assert run(root, "validate").exit_code == 2
    assert run(REPO, "validate", "nosuchgame").exit_code == 2


def test_strict_makes_warnings_fail(project):
    edit(project / "cards/olympians/rules.yaml", "  - id: hero-threshold\n", "  - id: hero-threshold\n    severity: warning\n")
    edit(project / "cards/olympians/tables.yaml", "hero_needs: 61", "hero_needs: 60")
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 0 and "warning: olympians/hero-threshold" in result.output
    assert run(project, "validate", "olympians", "--no-render", "--strict").exit_code == 1
    assert run(project, "build", "olympians", "--strict", "--lang", "en").exit_code == 1


def test_json_report_round_trips(project):
    break_two(project)
    result = run(project, "validate", "olympians", "--no-render", "--format", "json")
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
    result = run(project, "validate", "olympians", "--no-render", "--format", "github")
    lines = result.output.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        assert GITHUB.match(line), line
        assert "file=cards/olympians/tables.yaml" in line


def test_junit_report_parses(project):
    break_two(project)
    result = run(project, "validate", "olympians", "--no-render", "--format", "junit")
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
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 2
    assert ("cards/olympians/rules.yaml:8: error: olympians/schema: rule deck-size: bad JMESPath in 'expect': "
            "Invalid jmespath expression: Incomplete expression: 'length(it'") in result.output
    shutil.copy(REPO / "cards/olympians/rules.yaml", rules)
    edit(rules, "  - id: deck-size\n", "  - id: deck-size\n    colour: red\n")
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 2 and "unknown key 'colour'" in result.output


def test_yaml_lists_are_arrays_to_jmespath(project):
    """Data read from YAML must type-check like any JSON array (length, sort, sum...)."""
    rules = project / "cards/olympians/rules.yaml"
    rules.write_text(rules.read_text() + """
  - id: dealing-rows
    message: "dealing table has {found} rows, expected {expected}"
    select: data.tables.dealing
    expect: length(sort_by(it, &players))
    equals: 6
""")
    report = check_game(load_game(project, "olympians", Session()))
    assert report.findings == () and "dealing-rows" in report.rules


def add_rule(project, text):
    rules = project / "cards/olympians/rules.yaml"
    rules.write_text(rules.read_text() + text)


@pytest.mark.parametrize("rule, needle", [
    ("  - {id: x, message: m, select: decks.cards, expect: length(it)}", "'expect' needs a comparator"),
    ("  - {id: x, message: m, for_each: cards, unique: it.id, equals: 3}", "'equals' only goes with 'expect'"),
    ("  - {id: x, message: 'got {0}', select: cards, expect: length(it), equals: 36}", "placeholder {0}"),
    ("  - {id: x, message: 'got {found.x}', select: cards, expect: length(it), equals: 36}", "placeholder {found.x}"),
    ("  - {id: x, message: m, select: cards, expect: length(it), min: '30'}", "'min' must be a number"),
    ("  - {id: x, message: m, select: cards, expect: length(it), one_of: 'Arrows Shields'}", "'one_of' must be a list"),
    ("  - {id: x, message: m, check: ranges_cover, args: {rows: data.tables.victory}}",
     "check 'ranges_cover' needs args: from, to"),
    ("  - {id: x, message: m, check: no_such_check}", "unknown check 'no_such_check'"),
    ("  - {id: x, message: m, select: cards, expect: 'sum(it[].favr)', equals: 120}",
     "'favr' in expect is not a field of any card, deck or table (a typo?)"),
    ("  - {id: x, message: m, for_each: 'decks.\"playing-cards\".cards', expect: it.rank, max: {expr: it.rnak}}",
     "'rnak' in max is not a field"),
])
def test_rules_that_could_never_fail_or_never_run_are_refused(project, rule, needle):
    add_rule(project, "\n" + rule + "\n")
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 2, result.output
    assert needle in result.output and "cards/olympians/rules.yaml:" in result.output


def test_a_rule_that_selects_nothing_cannot_pass_quietly(project):
    # every name is a real field, but not on this path: only running the rule can tell
    add_rule(project, '\n  - {id: typo, message: m, for_each: data.decks, unique: it.id}\n')
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 2
    assert "olympians/typo: the rule cannot run: for_each 'data.decks' selects nothing" in result.output
    result = run(project, "build", "olympians")
    assert result.exit_code == 2 and "rules that cannot run" in result.output


def test_comparisons_keep_types_apart(project):
    add_rule(project, """
  - {id: bool-is-not-one, message: m, select: cards, expect: "length(it) > `0`", equals: 1}
  - {id: one-is-not-bool, message: m, select: cards, expect: "length(it[?rank == `99`])", equals: false}
  - {id: float-sum, message: m, select: cards, expect: "add(`0.1`, `0.2`)", equals: 0.3}
  - {id: one-of-bool, message: m, select: cards, expect: "`true`", one_of: [1]}
""")
    failed = {f.rule for f in check_game(load_game(project, "olympians", Session())).findings}
    assert failed == {"bool-is-not-one", "one-is-not-bool", "one-of-bool"}


def test_findings_across_files_name_a_line_of_the_file_they_name(project):
    add_rule(project, '\n  - {id: names, message: "{name} twice", for_each: cards, unique: it.name}\n')
    edit(project / "cards/olympians/reference.yaml", "name: Contest Play", "name: Zeus")
    (f,) = check_game(load_game(project, "olympians", Session())).findings
    lines = (project / f.file).read_text().splitlines()
    assert "Zeus" in lines[f.line - 1] or "zeus" in lines[f.line - 1], (f.file, f.line)
    assert set(f.cards) == {"zeus", "contest-play"}


def test_validate_render_catches_what_only_drawing_finds(project, warm):
    warm(project / "output")   # the caches the run's build left: validate draws what the edit changed
    edit(project / "cards/olympians/playing-cards.yaml", "title: Ruler of the Sky",
         "title: Ruler of the Sky, the Clouds, the Storms, the Thunder and the Lightning Bolts")
    assert run(project, "validate", "olympians", "--no-render").exit_code == 0  # rules cannot see a text box
    assert run(project, "validate", "olympians", "--lang", "en").exit_code == 2  # validate draws the cards by default
    result = run(project, "validate", "olympians", "--render", "--format", "github", "--lang", "en")
    assert result.exit_code == 2
    assert GITHUB.match(result.output.strip().splitlines()[0])
    assert "title=olympians/render::" in result.output and "text does not fit" in result.output
    assert not (project / "output" / "olympians").exists()  # nothing printed


def test_the_field_check_knows_made_keys_and_optional_table_fields(project):
    schema = project / "cards/olympians/tables.schema.json"
    schema.write_text(schema.read_text().replace('"deal": {', '"note": {"type": "string"}, "deal": {', 1))
    add_rule(project, """
  - id: pairs-unique
    message: m
    for_each: 'decks."playing-cards".cards[].{s: suit, r: rank}'
    unique: "[it.s, it.r]"
  - id: notes-short
    message: m
    for_each: data.tables.dealing[?note]
    expect: length(it.note)
    max: 40
""")
    report = check_game(load_game(project, "olympians", Session()))
    assert report.findings == () and {"pairs-unique", "notes-short"} <= set(report.rules)


def test_check_arguments_are_checked_like_expressions(project):
    add_rule(project, "\n  - {id: x, message: m, check: ranges_cover, "
                      "args: {rows: data.tables.victroy, low: min, high: max, from: 0, to: 120}}\n")
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 2 and "'victroy' in args.rows is not a field" in result.output
    shutil.copy(REPO / "cards/olympians/rules.yaml", project / "cards/olympians/rules.yaml")
    add_rule(project, "\n  - {id: x, message: m, check: ranges_cover, "
                      "args: {rows: data.decks, low: min, high: max, from: 0, to: 120}}\n")
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 2 and "'data.decks' selects nothing" in result.output


def test_list_fields_of_cards_are_arrays_to_rules():
    """A card's list field (a die's faces) reaches JMESPath as an array, like data tables."""
    from generator.rules.document import build_document
    from generator.rules.functions import compile_expr, search
    doc = build_document(load_game(REPO, "meta-olympia", Session())).doc
    assert search(compile_expr("decks.dice.cards[].length(faces)"), doc) == [12, 12, 12, 12]
    assert sorted(search(compile_expr("unique(decks.dice.cards[0].faces)"), doc)) == sorted(
        set(load_game(REPO, "meta-olympia", Session()).deck("dice").cards[0].fields["faces"]))


def test_every_registered_check_has_an_args_schema_and_is_listed_in_the_reference():
    from generator.data.schema import schema_problem
    from generator.rules.checks import CHECKS

    reference = (REPO / "docs" / "reference.md").read_text()
    for name, fn in CHECKS.items():
        assert schema_problem(fn.args_schema) is None, name
        assert fn.args_schema["additionalProperties"] is False and fn.args_schema["properties"]
        assert f"| `{name}` |" in reference, f"docs/reference.md does not list the check {name}"
        for arg in fn.args_schema["required"]:
            assert f"**`{arg}`**" in reference.split(f"| `{name}` |")[1].split("\n")[0], (name, arg)
