"""King of the Pitch: every rule proven to fail, the manifest counts the data, and the Help
card and the rulebook print the numbers of tables.yaml (change a table, both change)."""
from __future__ import annotations

import json
import re

import pypdfium2 as pdfium
import pytest

from generator.data.load import load_game
from generator.rules import check_game
from generator.session import Session
from tests.conftest import REPO, edit, run

GAME = "king-of-the-pitch"
P, T = "players.yaml", "tables.yaml"

# For every rule: small edits to the real data that break that rule. An entry is (file,
# old text, new text), a list of them, or {"edits": [...], "also": {rules}} where the fact is
# the sum of others (a deck total and its parts) and no edit can break one alone.
MUTATIONS = {
    # ---- the 108 cards
    "box-cards": {"edits": [("help.yaml", "name: Help}", "name: Help, count: 2}")], "also": {"help-card"}},
    "player-tiers": {"edits": [(P, 'name: "Tomás Okafor", tier: gold,', 'name: "Tomás Okafor", tier: silver,')],
                     "also": {"shirt-number-tiers"}},
    # the gold no. 1 plays no. 2: still 11 gold players, but number 1 has none and number 2 two
    "shirt-number-tiers": (P, 'name: "Tomás Okafor", tier: gold, number: 1,', 'name: "Tomás Okafor", tier: gold, number: 2,'),
    "captain-cards": {"edits": [("captains.yaml", 'numbers: [1]}', 'numbers: [1], count: 2}')],
                      "also": {"box-cards", "a-diamond-chip-per-captain"}},
    "match-cards": {"edits": [("match.yaml", "price: silver, count: 2,", "price: silver, count: 3,")],
                    "also": {"box-cards"}},
    "var-cards": {"edits": [("var.yaml", "count: 5}", "count: 6}")], "also": {"box-cards"}},
    "bonus-cards": {"edits": [("bonus.yaml", "count: 5}", "count: 6}")], "also": {"box-cards"}},
    "transfer-cards": {"edits": [("transfer.yaml", "count: 5}", "count: 6}")], "also": {"box-cards"}},
    "help-card": {"edits": [("help.yaml", "name: Help}", "name: Help, count: 0}")], "also": {"box-cards"}},
    "unique-player-names": (P, '"Erik Lindqvist"', '"Tomás Okafor"'),
    # ---- captains and prices
    "captain-positions": ("captains.yaml", "numbers: [9, 11]", "numbers: [9, 10, 11]"),
    "transfer-costs-one-gold": ("transfer.yaml", "price: gold,", "price: silver,"),
    "direct-transfer-costs-two-gold": (T, "transfer_direct_gold: 2", "transfer_direct_gold: 3"),
    "price-within-one-tier": (P, 'name: "Daichi Takahashi", tier: bronze, number: 1, price: bronze',
                              'name: "Daichi Takahashi", tier: bronze, number: 1, price: gold'),
    # ---- the player-count table against the box
    # (the MATCH cards' in_deck still count for 2 to 5 teams: they no longer fit the table)
    "player-counts": {"edits": [(T, "  - {players: 2, match: 15, var: 2, bonus: 2, transfer: 0, gold: 1, silver: 1, bronze: 1}\n", "")],
                      "also": {"match-cards-by-fixture"}},
    # a sixth team has no colour; a row for it is also outside 2-5 players
    "teams-for-everyone": {"edits": [(T, "bronze: 2}\n\n# Turn", "bronze: 2}\n  - {players: 6, match: 21, var: 5, "
                                      "bonus: 5, transfer: 0, gold: 2, silver: 2, bronze: 2}\n\n# Turn")],
                           "also": {"player-counts", "match-cards-by-fixture"}},
    # (the MATCH cards' in_deck still make 21 for five teams)
    "match-cards-fit": {"edits": [(T, "{players: 5, match: 21,", "{players: 5, match: 22,")],
                        "also": {"match-cards-by-fixture"}},
    # a Friendly more with four teams: 20 MATCH cards where the table says 19
    "match-cards-by-fixture": ("match.yaml", "in_deck: [6, 7, 7, 8]", "in_deck: [6, 7, 8, 8]"),
    # five teams take a third Cup final (and one Derby fewer): only two are printed
    "match-fixtures-fit": [("match.yaml", "in_deck: [1, 1, 2, 2]", "in_deck: [1, 1, 2, 3]"),
                           ("match.yaml", "in_deck: [3, 3, 3, 4]", "in_deck: [3, 3, 3, 3]")],
    "var-cards-fit": (T, "var: 5, bonus: 5,", "var: 6, bonus: 5,"),
    "bonus-cards-fit": (T, "bonus: 5, transfer: 5,", "bonus: 6, transfer: 5,"),
    "transfer-cards-fit": (T, "transfer: 5, gold", "transfer: 6, gold"),
    # six teams with captains: more captains than the box holds (and no sixth colour)
    "captains-for-transfers": {"edits": [(T, "bronze: 2}\n\n# Turn", "bronze: 2}\n  - {players: 6, match: 21, var: 5, "
                                          "bonus: 5, transfer: 5, gold: 2, silver: 2, bronze: 2}\n\n# Turn")],
                               "also": {"player-counts", "teams-for-everyone", "match-cards-by-fixture"}},
    "gold-cubes-fit": (T, "transfer: 5, gold: 2,", "transfer: 5, gold: 3,"),
    "silver-cubes-fit": (T, "gold: 2, silver: 2,", "gold: 2, silver: 3,"),
    "bronze-cubes-fit": (T, "gold: 2, silver: 2, bronze: 2}", "gold: 2, silver: 2, bronze: 3}"),
    # ---- cubes
    "cube-colours": [("cubes.yaml", "colour: gold,   count: 12}", "colour: gold,   count: 11}"),
                     ("cubes.yaml", "colour: silver, count: 12}", "colour: silver, count: 13}")],
    "cube-total": {"edits": [("cubes.yaml", "colour: bronze, count: 12}", "colour: bronze, count: 13}")],
                   "also": {"cube-colours"}},
    # ---- the board, levels and dice
    "shirt-numbers-on-the-board": (T, "  - {number: 11, zone: attack,   role: Left wing,      spot: [119.4, 79.2]}\n", ""),
    # number 8 back where it used to stand: 21.4 mm from number 5, for 22 mm chips
    "spots-a-chip-apart": (T, "spot: [97, 60]}", "spot: [91.4, 60]}"),
    # the goalkeeper's circle half off the pitch
    "spots-on-the-formation": (T, "spot: [21.4, 60]}", "spot: [8, 60]}"),
    "one-midfielder": (T, "{number: 6,  zone: defence,", "{number: 6,  zone: midfield,"),
    "levels-cover-the-column": (T, "column_top: 18", "column_top: 19"),
    "levels-in-order": {"edits": [(T, "  - {level: gold,   name: Gold,   from: 12, to: 15, d6: 4, d8: 0}\n"
                                      "  - {level: crown,  name: Crown,  from: 16, to: 18, d6: 4, d8: 1}\n",
                                   "  - {level: crown,  name: Crown,  from: 16, to: 18, d6: 4, d8: 1}\n"
                                   "  - {level: gold,   name: Gold,   from: 12, to: 15, d6: 4, d8: 0}\n")],
                        "also": {"dice-by-level"}},
    "dice-by-level": (T, "to: 15, d6: 4,", "to: 15, d6: 3,"),
    "dice-a-team-owns": (T, "dice_per_team: {d6: 4,", "dice_per_team: {d6: 3,"),
    "values-table": (T, "own: 2, opposite: 0,", "own: 3, opposite: 0,"),
    "wins-needed": {"edits": [(T, "wins_needed: 5 ", "wins_needed: 4 ")], "also": {"a-crown-per-win"}},
    # ---- chips, crowns and boards
    "chip-tiers": [("chips.yaml", "tier: bronze,  count: 22}", "tier: bronze,  count: 21}"),
                   ("chips.yaml", "tier: silver,  count: 22}", "tier: silver,  count: 23}")],
    "chip-total": {"edits": [("chips.yaml", "tier: gold,    count: 11}", "tier: gold,    count: 12}")],
                   "also": {"chip-tiers"}},
    "a-diamond-chip-per-captain": {"edits": [("chips.yaml", "tier: diamond, count: 5}", "tier: diamond, count: 6}")],
                                   "also": {"chip-tiers", "chip-total"}},
    "crown-teams": [("crowns.yaml", "team: blue,   count: 5}", "team: blue,   count: 4}"),
                    ("crowns.yaml", "team: green,  count: 5}", "team: green,  count: 6}")],
    "crown-total": {"edits": [("crowns.yaml", "team: red,    count: 5}", "team: red,    count: 6}")],
                    "also": {"crown-teams", "a-crown-per-win"}},
    # a sixth win to reach: five crowns per team are too few
    "a-crown-per-win": {"edits": [(T, "wins_needed: 5 ", "wins_needed: 6 ")], "also": {"wins-needed"}},
    "a-board-per-team": ("team-boards.yaml", "name: Orange team board, team: orange}", "name: Orange team board, team: red}"),
    "supporters-boards": ("supporters.yaml", "team: neutral, count: 2}", "team: neutral, count: 1}"),
    "d6-per-team": ("dice.yaml", "faces: [1, 2, 3, 4, 5, 6], count: 4}\n  - {id: d6-green", "faces: [1, 2, 3, 4, 5, 6], count: 3}\n  - {id: d6-green"),
    "d8-per-team": ("dice-d8.yaml", "name: Red d8,    team: red,", "name: Red d8,    team: blue,"),
    "d6-faces": ("dice.yaml", "team: red,    faces: [1, 2, 3, 4, 5, 6]", "team: red,    faces: [1, 2, 3, 4, 6, 6]"),
    "d8-faces": ("dice-d8.yaml", "team: green,  faces: [1, 2, 3, 4, 5, 6, 7, 8]", "team: green,  faces: [1, 2, 3, 4, 5, 6, 8, 7]"),
    # ---- odds: a market line of three cards shows two players far less often
    "opening-market-shows-players": (T, "market_size: 5 ", "market_size: 3 "),
}

# tests/test_rules.py checks that every rule of every game has a mutation: ours live here.


def test_real_data_passes_every_rule():
    report = check_game(load_game(REPO, GAME, Session()), strict=True)
    assert report.findings == () and len(report.rules) == len(MUTATIONS)


# ---- the built files ------------------------------------------------------------------

def text_of(path) -> str:
    doc = pdfium.PdfDocument(path)
    return " ".join(" ".join(doc[i].get_textpage().get_text_range().split()) for i in range(len(doc)))


def test_manifest_counts_equal_the_data(all_builds):
    game = load_game(REPO, GAME, Session())
    expected = {card.id: card.count for deck in game.decks for card in deck.cards}
    manifest = json.loads((all_builds[GAME] / "manifest.json").read_text())
    sheets = [f for f in manifest["files"] if f["kind"] == "sheets"]
    assert {f["paper"] for f in sheets} == {"a4", "letter"}
    for f in sheets:
        assert {c["id"]: c["count"] for c in f["components"]} == expected
        fronts = {}
        for p in f["placements"]:
            if p["side"] == "front":
                fronts[p["id"]] = fronts.get(p["id"], 0) + 1
        boards = {c.id for d in game.decks if d.kind == "board" for c in d.cards}
        sides = {c.id: len(c.fields["faces"]) for d in game.decks if d.kind == "dice" for c in d.cards}
        for cid, n in expected.items():
            if cid not in boards:  # a board split into panels is placed once per panel; a die once per face
                assert fronts[cid] == n * sides.get(cid, 1), cid
    cards = sum(n for cid, n in expected.items() if not cid.startswith(("cube-", "chip-", "crown-", "team-board",
                                                                           "supporters-", "pitch", "d6-", "d8-")))
    assert cards == 108


def test_faces_are_their_true_size(all_builds):
    manifest = json.loads((all_builds[GAME] / "manifest.json").read_text())
    want = {"gold-1-okafor": (63, 88), "help-card": (63, 88), "cube-gold": (16, 16), "chip-gold": (22, 22),
            "crown-red": (20, 20), "team-board-blue": (220, 150)}
    for f in manifest["files"]:
        if f["kind"] != "sheets":
            continue
        seen = {p["id"]: (p["w_mm"], p["h_mm"]) for p in f["placements"] if p["id"] in want}
        for cid, (w, h) in want.items():
            assert seen[cid] == pytest.approx((w, h), abs=0.05), cid


@pytest.mark.usefixtures("warm_project")   # a build, not a drawing, is tested: faces drawn already
def test_help_card_and_rulebook_print_the_tables(all_builds, project):
    """The level bands and the deck by player count are printed from tables.yaml: change them
    and both the Help card and the rulebook change."""
    before_sheets = text_of(all_builds[GAME] / f"{GAME}-sheets-a4.pdf")
    before_book = text_of(all_builds[GAME] / f"{GAME}-rulebook-a4.pdf")
    assert "12–15" in before_sheets and "12 to 15" in before_book
    assert "Diamond 4 +1 other 2 Def · 3 Att" in before_sheets
    tables = project / "cards" / GAME / "tables.yaml"
    edit(tables, "from: 7,  to: 11,", "from: 7,  to: 10,")
    edit(tables, "from: 12, to: 15,", "from: 11, to: 15,")
    edit(tables, "{players: 3, match: 17,", "{players: 3, match: 18,")
    edit(project / "cards" / GAME / "match.yaml", "in_deck: [6, 7, 7, 8]", "in_deck: [6, 8, 7, 8]")  # a Friendly more
    result = run(project, "build", GAME, "--paper", "a4")
    assert result.exit_code == 0, result.output
    sheets = text_of(project / "output" / GAME / f"{GAME}-sheets-a4.pdf")
    book = text_of(project / "output" / GAME / f"{GAME}-rulebook-a4.pdf")
    assert "12–15" not in sheets and "11–15" in sheets and "7–10" in sheets
    assert "12 to 15" not in book and "11 to 15" in book and "7 to 10" in book
    assert "18" in sheets.split("TRANSF.")[1][:40]            # the Help card's player-count table
    assert "| 3 | 18 |" not in book and re.search(r"\b3 18 3 3\b", book)
    assert "Friendly Bronze cube 6 of 8 8 of 8 7 of 8 8 of 8" in " ".join(book.split())  # MATCH cards by fixture


def test_the_formation_circles_stand_a_chip_apart_as_drawn(drawn_faces):
    """The circles a team board draws (its white discs, r 11.2) are where tables.yaml puts the
    spots, and no two are nearer than a round chip is wide (number 5 and 8 once stood 21.2 mm
    apart for 22 mm chips). The faces' SVG as the run's build rendered them (the memo it
    kept, read only)."""
    import itertools
    import math

    from generator.data.editions import source_edition
    from generator.diskmemo import pack_name
    from generator.draw.render import render_svgs

    session = Session()
    with session.kept_on_disk(drawn_faces.parent / "memo", drawn_faces.parent.parent, pack_name({GAME: None}),
                              keep=False):
        assert session.warm
        game = source_edition(load_game(REPO, GAME, session))
        found = render_svgs(game, session)
    chip = game.deck("chips").trim_w
    board = next(rc for rc in found.cards if rc.card.id == "team-board-blue")
    svg = found.svgs[board.front]
    centres = [(float(x), float(y)) for x, y in
               re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="11.2" fill="#ffffff"/>', svg)]
    positions = game.data["tables"]["positions"]
    assert len(centres) == len(positions) == 11
    offsets = {(round(cx - p["spot"][0], 3), round(cy - p["spot"][1], 3)) for (cx, cy), p in zip(centres, positions)}
    assert len(offsets) == 1  # one formation origin: the drawing follows the data
    closest = min(math.dist(a, b) for a, b in itertools.combinations(centres, 2))
    assert closest >= chip, f"two circles stand {closest:.1f} mm apart for {chip} mm chips"


def test_setup_says_which_match_cards_make_the_deck_for_each_number_of_teams():
    """15, 17 or 19 of the 21 MATCH cards: the rulebook lists each fixture's copies for each
    player count, from the cards' in_deck, and each column adds up to the player-count table."""
    from generator.rulebook.source import render_markdown, rulebook_file

    game = load_game(REPO, GAME, Session())
    text = render_markdown(game, rulebook_file(game), Session())
    counts = game.data["tables"]["player_counts"]
    cards = game.deck("match").cards
    for card in cards:
        row = " | ".join(f"{n} of {card.count}" for n in card.fields["in_deck"])
        assert f"| {card.fields['fixture']} | {card.fields['price'].capitalize()} cube | {row} |" in text
    for i, r in enumerate(counts):
        assert sum(c.fields["in_deck"][i] for c in cards) == r["match"]
    assert "some MATCH cards stay in the box" in text
