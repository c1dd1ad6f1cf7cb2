"""Meta Olympia: every rule proven to fail, the manifest matches the data, numbers in
the rulebook and on the player aids come from the die's faces and the tables."""
from __future__ import annotations

import json
import re
from collections import Counter

import pypdfium2 as pdfium
import pytest
import yaml

from generator.data.load import load_game
from generator.rulebook.source import render_markdown, rulebook_file
from generator.rules import check_game
from generator.session import Session
from tests.conftest import REPO, edit, run

GAME = "meta-olympia"
CARDS = REPO / "cards" / GAME
RUST = '{id: die-rust,   name: Rust die,   colour: "#c1440e", faces: *faces}'
FACES = "[goal, counter, boost4, goal, special, counter, injury, goal, boost8, counter, boost4, special]"


def _rust(faces):
    """The Rust die given faces of its own instead of the shared set."""
    return ("dice.yaml", RUST, RUST.replace("*faces", faces))


def _card(file, card_id):
    """The real text of one card in a deck file: its `  - ` item up to the next item or comment."""
    lines = (CARDS / file).read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if re.search(rf"\bid: {re.escape(card_id)}[,\s]", line))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("     ")), len(lines))
    return "".join(lines[start:end])


def _drop(file, *card_ids):
    return [(file, _card(file, c), "") for c in card_ids]


def _sub(file, pattern, replacement, count=0):
    """A regular-expression edit (for a change that touches many cards the same way)."""
    def apply(root):
        path = root / "cards" / GAME / file
        text, n = re.subn(pattern, replacement, path.read_text(encoding="utf-8"), count=count)
        assert n, f"{pattern!r} matches nothing in {file}"
        path.write_text(text, encoding="utf-8")
    return apply


# For every rule: an edit of the real data that breaks that rule and no other. A list holds
# several edits; {"edits": [...], "also": {...}} names rules that must fail with it because
# one fact is the sum of others (a total and its parts).
MUTATIONS = {
    # ---- card totals
    # five athletes gone: 49, while the roster's piles (two Rookies worth 2 spare), tiers and
    # the 128 total still hold
    "athlete-cards": _drop("athletes.yaml", "ath-deshawn-price", "ath-rosa-lindqvist", "ath-ilse-brandt",
                           "ath-gunnar-holm", "ath-diego-santos"),
    "tactic-cards": [("tactics.yaml", "name: Re-Roll\n    count: 3", "name: Re-Roll\n    count: 1"),
                     ("tactics.yaml", "name: Medic\n    count: 3", "name: Medic\n    count: 2")],
    "sponsor-cards": _drop("sponsors.yaml", "sp-lava-tube-labs"),
    "scrimmage-cards": _drop("scrimmage.yaml", "scr-ceres-comets"),
    # 50 + 30 + 24 + 24 is exactly 128: the total can only fall if a deck falls below its own minimum
    "all-cards": {"edits": _drop("athletes.yaml", "ath-deshawn-price", "ath-rosa-lindqvist", "ath-gunnar-holm",
                                 "ath-diego-santos")
                  + [("tactics.yaml", "name: Re-Roll\n    count: 3", "name: Re-Roll\n    count: 1"),
                     ("tactics.yaml", "name: Medic\n    count: 3", "name: Medic\n    count: 2")],
                  "also": {"tactic-cards"}},
    "unique-names": ("tactics.yaml", "name: Timeout,", "name: Red Card,"),
    # ---- athletes
    "pro-above-rookie": ("athletes.yaml", "name: Gunnar Holm,     value: 4,", "name: Gunnar Holm,     value: 3,"),
    "all-star-above-pro": ("athletes.yaml", "name: Zara Quinn,      value: 7,", "name: Zara Quinn,      value: 6,"),
    # ---- the starting roster: one Rookie from each pile (type and value) for every player
    # a pile of Offensive Rookies worth 1 instead of Defensive ones worth 3: four Offensive
    # piles, and that pile is now dealt twice (8 cards of 4)
    "roster-three-and-three": {"edits": [("tables.yaml", "- {type: Defensive, value: 3}",
                                          "- {type: Offensive, value: 1}")],
                               "also": {"roster-piles-deal-everyone"}},
    # a Defensive Rookie worth 3 gone: three left for four players
    "roster-piles-deal-everyone": _drop("athletes.yaml", "ath-sana-qureshi"),
    "roster-fills-the-hand": ("tables.yaml", "hand_size: 6", "hand_size: 7"),
    "rookies-have-no-special": ("athletes.yaml", "position: Back,    colony: Gusev}",
                                'position: Back,    colony: Gusev, special: "Counter 1."}'),
    "specials-exist": _sub("athletes.yaml", r',?\s*special: "[^"]*"', ""),
    "combo-says-its-kind": ("athletes.yaml", 'combo: "After a Defensive teammate: counter 1.", combo_type: Defensive}',
                            'combo: "After a Defensive teammate: counter 1."}'),
    "every-tier-and-type": [("athletes.yaml", "id: ath-ilse-brandt,", "id: ath-ilse-brandt, type: Offensive,"),
                            ("athletes.yaml", "id: ath-tomas-reyes,", "id: ath-tomas-reyes, type: Offensive,")],
    # ---- tactics and sponsors
    "cited-cards-exist": ("tables.yaml", "  - {deck: tactics, name: Medic}\n",
                          "  - {deck: tactics, name: Medic}\n  - {deck: tactics, name: Hat Trick}\n"),
    # Medic renamed everywhere: the card and its citation agree, but the injury rules need a Medic
    "recovery-tactics-cited": [("tactics.yaml", "name: Medic\n", "name: Field Doctor\n"),
                               ("tables.yaml", "name: Medic}", "name: Field Doctor}")],
    "majors-for-setup": ("tables.yaml", "majors_revealed: 2", "majors_revealed: 10"),
    # nine Minors become Majors (scored at game end, as Majors are): five Minors left
    "minor-sponsors": _sub("sponsors.yaml", r"level: Minor, when: [A-Za-z ]+?,", "level: Major, when: Game end,", 9),
    "majors-pay-at-game-end": ("sponsors.yaml", "id: sp-ares-aerospace,", "id: sp-ares-aerospace, when: Match end,"),
    "minors-pay-when-met": ("sponsors.yaml", "name: Rover Repairs,    level: Minor, when: Match end",
                            "name: Rover Repairs,    level: Minor, when: Game end"),
    "sponsors-pay-something": ("sponsors.yaml", 'prestige: 1, goal: "Win a match without any',
                               'goal: "Win a match without any'),
    "scrimmage-tiers": _sub("scrimmage.yaml", r"tier: 4,", "tier: 3,"),
    # ---- stage tiles
    # a thirteenth tile is a thirteenth border too
    "stage-tiles": {"edits": [("stage-tiles.yaml", "  - {id: tile-4-white,",
                               "  - {id: tile-5-black, name: Recruit, action: recruit, border: black, stage: 4, "
                               "place: Spare Lot}\n  - {id: tile-4-white,")],
                    "also": {"tracks-use-every-tile", "tile-borders", "track-one-of-each-border"}},
    "tracks-use-every-tile": ("tables.yaml", "tiles_per_track: 3", "tiles_per_track: 4"),
    # four of each border follows from one of each per track: a wrong border breaks both
    "tile-borders": {"edits": [("stage-tiles.yaml", "action: fundraise,  border: black, stage: 1,",
                                "action: fundraise,  border: grey, stage: 1,")],
                     "also": {"track-one-of-each-border"}},
    "track-one-of-each-border": [("stage-tiles.yaml", "border: black, stage: 1,", "border: black, stage: 2,"),
                                 ("stage-tiles.yaml", "border: grey,  stage: 2,", "border: grey,  stage: 1,")],
    "every-action-on-a-tile": [("stage-tiles.yaml", "action: free-day,   border: white", "action: fundraise,  border: white"),
                               ("stage-tiles.yaml", "action: free-day,   border: grey", "action: fundraise,  border: grey")],
    # ---- tokens
    "token-counts": ("tokens.yaml", "token: popularity, count: 24", "token: popularity, count: 23"),
    "score-markers": ("score-markers.yaml", "side: Home}", "side: Away}"),
    # ---- the die
    "four-dice": ("dice.yaml", "  - {id: die-basalt,", "  - {id: die-spare, name: Spare die, colour: \"#ffffff\", faces: *faces}\n  - {id: die-basalt,"),
    "dice-alike": _rust(FACES.replace("boost4, special]", "special, boost4]")),
    # the shared set of faces, so the four dice stay alike
    "goal-on-three-faces": ("dice.yaml", "faces: &faces " + FACES, "faces: &faces " + FACES.replace("[goal, counter,", "[goal, goal,")),
    "every-symbol-on-the-die": ("dice.yaml", "faces: &faces " + FACES, "faces: &faces " + FACES.replace("injury", "counter")),
    "popularity-tiers": ("tables.yaml", "{tokens: 3, dice: 3}", "{tokens: 3, dice: 2}"),
    "popularity-dice-in-the-box": ("tables.yaml", "  - {tokens: 4, dice: 4}\n",
                                   "  - {tokens: 4, dice: 4}\n  - {tokens: 5, dice: 5}\n"),
    # ---- tournaments
    "round-robin-4-players": ("tables.yaml", "round: 3, matches: [[2, 4], [3, 1]]", "round: 3, matches: [[2, 1], [3, 4]]"),
    "round-robin-3-players": ("tables.yaml", "round: 3, matches: [[3, 1]]", "round: 3, matches: [[1, 2]]"),
    # the same six pairs, but spot 1 plays twice in round 1 and spot 4 twice in round 3
    "one-match-per-spot-per-round": [("tables.yaml", "round: 1, matches: [[1, 2], [3, 4]]", "round: 1, matches: [[1, 2], [3, 1]]"),
                                     ("tables.yaml", "round: 3, matches: [[2, 4], [3, 1]]", "round: 3, matches: [[2, 4], [3, 4]]")],
    "brackets-cover-the-spots": ("tables.yaml", "spots: [3, 4]", "spots: [2, 4]"),
    "match-win-pays": ("tables.yaml", "credits: 1, popularity: 2}", "credits: 1, popularity: 3}"),
    "match-draw-pays": ("tables.yaml", "{result: Draw, prestige: 0, credits: 0, popularity: 1}",
                        "{result: Draw, prestige: 0, credits: 0, popularity: 2}"),
    "tile-capacity": ("tables.yaml", "  - {players: 2, figurines: 1}\n", ""),
    # ---- set-up and scoring
    "starting-purse": ("tables.yaml", "  credits: 3\n  popularity: 1\n", "  credits: 4\n  popularity: 1\n"),
    "final-conversion": ("tables.yaml", "credits_per_prestige: 3", "credits_per_prestige: 4"),
    # ---- odds: five more Dual Rookies stay in the deck after the rosters (and a player has
    # only Rookies to look at in the opening market 1.3 times in 100)
    "opening-market-shows-a-star": ("athletes.yaml", "id: ath-ilse-brandt,", "count: 6, id: ath-ilse-brandt,"),
}


# tests/test_rules.py checks that every rule of every game has a mutation: ours live here.


def rule_ids():
    return [r["id"] for r in yaml.safe_load((CARDS / "rules.yaml").read_text())["rules"]]


def test_real_data_passes_every_rule():
    report = check_game(load_game(REPO, GAME, Session()), strict=True)
    assert report.findings == ()
    assert len(report.rules) == len(rule_ids()) == len(MUTATIONS) >= 40  # tests/test_rules.py runs each mutation


# ---- the build --------------------------------------------------------------------

def _data():
    return load_game(REPO, GAME, Session())


def _sheets(all_builds, paper):
    manifest = json.loads((all_builds[GAME] / "manifest.json").read_text())
    return next(f for f in manifest["files"] if f["kind"] == "sheets" and f["paper"] == paper)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_manifest_lists_every_component_with_its_count(all_builds, paper):
    sheets = _sheets(all_builds, paper)
    expected = {}
    for deck_file in yaml.safe_load((CARDS / "game.yaml").read_text())["decks"]:
        for card in yaml.safe_load((CARDS / deck_file).read_text())["cards"]:
            expected[card["id"]] = card.get("count", 1)
    assert {c["id"]: c["count"] for c in sheets["components"]} == expected
    fronts = Counter(p["id"] for p in sheets["placements"] if p["side"] == "front")
    boards = {"main-board", "arena-mat"}
    dice = {c for c in expected if c.startswith("die-")}
    figures = {c for c in expected if c.startswith("fig-")}
    flat = {c: n for c, n in expected.items() if c not in boards | dice | figures}
    assert {c: n for c, n in fronts.items() if c in flat} == flat  # every copy of every card, tile, token
    assert all(fronts[c] == 12 * expected[c] for c in dice)        # twelve faces per die
    assert all(fronts[c] == 2 * expected[c] for c in figures)      # a standee's two sides
    for board in boards:                                            # panels that cover the whole board
        panels = [p for p in sheets["placements"] if p["id"] == board]
        assert len(panels) == panels[0]["panels"] > 1


def test_components_print_at_their_true_size(all_builds):
    sheets = _sheets(all_builds, "a4")
    sizes = {}
    for p in sheets["placements"]:
        sizes.setdefault(p["id"].split("-")[0], set()).add((p["w_mm"], p["h_mm"]))
    for prefix in ("ath", "tac", "sp", "scr", "aid"):
        assert sizes[prefix] == {(63.0, 88.0)}, prefix
    assert sizes["tile"] == {(60.0, 60.0)}
    assert sizes["token"] == {(25.0, 25.0)}
    assert sizes["marker"] == {(16.0, 16.0)}  # stands on one number of a dial's ring (19 mm)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_score_marker_for_each_dial_is_printed_and_the_rulebook_says_so(all_builds, paper):
    sheets = _sheets(all_builds, paper)
    components = {c["id"]: c["count"] for c in sheets["components"]}
    assert components["marker-away"] == components["marker-home"] == 1
    sides = Counter(p["side"] for p in sheets["placements"] if p["id"].startswith("marker-"))
    assert sides == {"front": 2}  # one side: they lie on the mat
    text = " ".join(_text(all_builds[GAME] / f"{GAME}-rulebook-{paper}.pdf").split())
    assert "2 score markers (Away and Home), one for each dial of the arena mat" in text
    assert "Each team puts its score marker on 0 of its dial" in text


def test_every_club_is_dealt_the_same_starting_roster():
    """The roster's piles (type and value) deal one Rookie to each player of the largest game,
    so all clubs start with the same types and values; the rulebook says how, from the data."""
    game = _data()
    tables = game.data["tables"]
    rookies = [c for c in game.deck("athletes").cards if c.fields["tier"] == "Rookie"]
    piles = Counter((c.fields["type"], c.fields["value"]) for c in rookies for _ in range(c.count))
    for row in tables["setup"]["roster"]:
        assert piles[(row["type"], row["value"])] >= tables["setup"]["max_players"], row
    text = " ".join(render_markdown(game, rulebook_file(game), Session()).split())
    assert ("deal every player one card from each, face down. So every club starts with the same make-up of 6 "
            "athletes: 3 Defensive Rookies worth 1, 2 and 3 Credits and 3 Offensive Rookies worth 1, 2 and 3 "
            "Credits, 12 Credits in all.") in text
    assert "the better of" not in text and "back face down under the pile" not in text  # Recruit, Fundraise


def _text(path, pages=None):
    doc = pdfium.PdfDocument(path)
    return " ".join(doc[i].get_textpage().get_text_range() for i in (pages or range(len(doc))))


def _pct(n, total):
    return f"{100 * n / total:.1f} %"


def test_rulebook_prints_odds_counted_from_the_die(all_builds):
    tables = yaml.safe_load((CARDS / "tables.yaml").read_text())
    faces = yaml.safe_load((CARDS / "dice.yaml").read_text())["cards"][0]["faces"]
    text = " ".join(_text(all_builds[GAME] / f"{GAME}-rulebook-a4.pdf").split())
    for symbol in tables["symbols"]:
        n = faces.count(symbol["id"])
        assert f"{symbol['name']} {symbol['text']} {n} of {len(faces)} {_pct(n, len(faces))}" in text, symbol["id"]
    miss = (len(faces) - faces.count("goal")) / len(faces)
    for tier in tables["popularity_tiers"]:
        assert f"{tier['tokens']} Popularity {tier['dice']} {100 * (1 - miss ** tier['dice']):.1f} %" in text
    for row in tables["round_robin"]:
        matches = ", ".join(f"{a} v {b}" for a, b in row["matches"])
        assert f"{row['players']} {row['round']} {matches}" in text


def test_rulebook_odds_follow_the_faces(project):
    """Change the die and the rulebook's table changes with it (nothing typed by hand)."""
    edit(project / "cards" / GAME / "dice.yaml", "faces: &faces " + FACES,
         "faces: &faces " + FACES.replace("boost4, special]", "special, special]"))
    game = load_game(project, GAME, Session())
    text = render_markdown(game, rulebook_file(game), Session())
    assert "| **Special Ability** | " in text and "| 3 of 12 | 25.0 % |" in text
    assert "(3 of 12 faces, 25.0 %)" in text  # the injury cure


def test_a_d12_with_thirteen_faces_is_refused(project):
    """Faces summing to 12 is held by the engine: a thirteenth face is an input error."""
    edit(project / "cards" / GAME / "dice.yaml", RUST, RUST.replace("*faces", FACES.replace("[goal,", "[goal, goal,")))
    result = run(project, "validate", GAME)
    assert result.exit_code == 2 and "a d12 has 12 faces; the card has 13 faces" in result.output


def test_player_aids_carry_the_die_and_the_schedule(all_builds):
    sheets = _sheets(all_builds, "a4")
    pages = sorted({p["page"] - 1 for p in sheets["placements"] if p["id"] in ("aid-match", "aid-finals")
                    and p["side"] == "front"})
    text = " ".join(_text(all_builds[GAME] / f"{GAME}-sheets-a4.pdf", pages).split())
    tables = yaml.safe_load((CARDS / "tables.yaml").read_text())
    faces = yaml.safe_load((CARDS / "dice.yaml").read_text())["cards"][0]["faces"]
    assert f"{faces.count('goal')} in {len(faces)} · {round(100 * faces.count('goal') / len(faces))}%" in text
    for row in tables["round_robin"]:
        for a, b in row["matches"]:
            assert f"{a} v {b}" in text
