"""MetiKoro: every rule proven by a mutation, the board and the tiles drawn from their data,
the quarters reassembling the board, print-true output."""
from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET

import pypdfium2 as pdfium
import pytest
import yaml
from click.testing import CliRunner

from generator.cli import cli
from generator.data.load import load_game
from generator.draw import render as render_module
from generator.rulebook.source import render_markdown, rulebook_file
from generator.rules import check_game
from generator.rules.tracks import _line_problem, assemble_board, rotation_symmetry
from generator.session import Session
from tests.conftest import REPO, edit

GAME = "metikoro"
CARDS = REPO / "cards" / GAME

# For every rule: small edits to the real data that break that rule and no other (the same
# form as MUTATIONS in test_rules.py: (file, old, new), a list of them, or {"edits", "also"}
# where a fact is tied to another one).
MUTATIONS = {
    # ---- components
    "piece-counts": ("pieces.yaml", "    count: 20\n    lines: [[N, S, straight], [E, W, straight]]",
                     "    count: 21\n    lines: [[N, S, straight], [E, W, straight]]"),
    "piece-names-unique": ("pieces.yaml", "name: Switch 2", "name: Switch 1"),
    "orb-count": ("orbs.yaml", "count: 9}", "count: 8}"),
    "join-strips": ("join-strips.yaml", "name: Join strip, count: 4}", "name: Join strip, count: 3}"),
    # 170 mm: the strips of the two seams would overlap in the middle of the board
    "join-strips-fit": ("join-strips.yaml", "size: {width: 160mm,", "size: {width: 170mm,"),
    "platform-count": ("platforms.yaml", "player: purple}", "player: purple, count: 2}"),
    "platform-per-player": ("platforms.yaml", "player: purple}", "player: pink}"),
    "platform-slots": ("platforms.yaml", "defaults: {slots: 6}", "defaults: {slots: 7}"),
    "player-aids": ("reference.yaml", "count: 4}", "count: 3}"),
    # ---- track pieces
    # a fixed Source stop listed twice
    "track-lines-well-formed": ("tables.yaml", "lines: [[N, C, stop], [W, C, stop]]",
                                "lines: [[N, C, stop], [W, C, stop], [N, C, stop]]"),
    # the Curve turned a quarter: well formed, same symmetry, but not the published piece
    "pieces-match-geometry": ("pieces.yaml", "lines: [[N, E, arc], [S, W, arc]]\n    symmetry: 2",
                              "lines: [[E, S, arc], [W, N, arc]]\n    symmetry: 2"),
    "piece-symmetry": ("pieces.yaml", "lines: [[N, E, arc], [S, W, arc]]\n    symmetry: 2",
                       "lines: [[N, E, arc], [S, W, arc]]\n    symmetry: 4"),
    # ---- board
    # the Home curve turned round: it would run out of the Home into the Front Yard
    "home-curves-lead-home": ("tables.yaml", "lines: [[S, W, arc]]", "lines: [[W, S, arc]]"),
    # a Source stop facing its neighbouring Source field instead of the outside
    "source-stops-face-out": ("tables.yaml", "lines: [[N, C, stop], [W, C, stop]]", "lines: [[E, C, stop], [W, C, stop]]"),
    "board-fields": ("tables.yaml", '  - "F...S"', '  - "....S"'),
    "orb-spots": ("tables.yaml", "  - {x: 0, y: 1}\n", ""),
    # the Homes hold as many spots as orbs win: both move together
    "orbs-to-win": {"edits": [("tables.yaml", "orbs_to_win: 3", "orbs_to_win: 2")], "also": {"orb-spots"}},
    # ---- players and setup
    "player-range": ("game.yaml", 'players: "2-4"', 'players: "2-5"'),
    "player-colours": ("tables.yaml", '  - {id: purple, name: Purple, colour: "#CC79A7", light: "#f4dfea", ink: "#8e3f6b", mark: diamond, corner: 3}\n', ""),
    "player-colours-distinct": ("tables.yaml", 'colour: "#CC79A7"', 'colour: "#009E73"'),
    "player-corners-distinct": ("tables.yaml", "mark: diamond, corner: 3}", "mark: diamond, corner: 2}"),
    "corners-per-player-count": ("tables.yaml", "{players: 3, corners: [0, 1, 2]}", "{players: 3, corners: [0, 2]}"),
    "two-players-opposite": ("tables.yaml", "{players: 2, corners: [0, 2]}", "{players: 2, corners: [0, 1]}"),
    "source-orbs": ("tables.yaml", "orbs_in_source: 4", "orbs_in_source: 3"),
    "start-pieces-known": ("tables.yaml", "curve: 2, stop: 1}", "curves: 2, stop: 1}"),
    # six Crossings each for four players would need 24 of the 20, and overfill the platform
    "start-fits-box": {"edits": [("tables.yaml", "{crossing: 3,", "{crossing: 6,")], "also": {"start-fits-platform"}},
    "start-fits-platform": ("tables.yaml", "stop: 1}", "stop: 2}"),
}

# tests/test_rules.py demands a mutation for every rule of every shipped game: ours live here.

# The board as the fact sheet draws it (10 x 10, row 0 at the top).
FACT_BOARD = """
HHHFFFFHHH
HGGG..GGGH
HGG....GGH
FG......GF
F...SS...F
F...SS...F
FG......GF
HGG....GGH
HGGG..GGGH
HHHFFFFHHH
"""


def tables():
    return yaml.safe_load((CARDS / "tables.yaml").read_text())


def test_real_data_passes_every_rule_strictly():
    report = check_game(load_game(REPO, GAME, Session()), strict=True)
    assert report.findings == ()
    assert len(report.rules) == len(MUTATIONS)  # tests/test_rules.py runs each mutation


# ---- geometry --------------------------------------------------------------------------

def test_the_quarter_turned_four_times_is_the_fact_sheets_board():
    board = ["".join(row) for row in assemble_board(tables()["quarter"])]
    assert board == FACT_BOARD.split()


def test_whole_board_field_counts_come_from_the_quarter():
    cells = [c for row in assemble_board(tables()["quarter"]) for c in row]
    counts = {s: cells.count(s) for s in "HGFS."}
    assert counts == {".": 36, "G": 24, "H": 20, "F": 16, "S": 4}
    # and they follow the data: one more free field per quarter is four more on the board
    quarter = tables()["quarter"]
    quarter[3] = "F...."   # (1, 3) was a Front Yard field
    cells = [c for row in assemble_board(quarter) for c in row]
    assert (cells.count("."), cells.count("G")) == (40, 20)


@pytest.mark.parametrize("piece, symmetry", [("crossing", 1), ("curve", 2), ("stop", 1), ("switch-1", 2),
                                             ("switch-2", 4), ("switch-3", 1), ("bumper", 4)])
def test_symmetry_is_computed_from_the_published_lines(piece, symmetry):
    row = next(r for r in tables()["geometry"] if r["piece"] == piece)
    assert rotation_symmetry(row["lines"]) == symmetry


def test_a_line_written_backwards_is_the_same_line_and_a_turn_moves_every_line():
    assert rotation_symmetry([["E", "N", "arc"], ["W", "S", "arc"]]) == 2
    assert rotation_symmetry([["N", "S", "straight"]]) == 2
    assert rotation_symmetry([["N", "C", "stop"], ["S", "C", "stop"]]) == 2
    assert rotation_symmetry([["N", "N", "bounce"]]) == 4


@pytest.mark.parametrize("line, needle", [
    (["N", "E", "straight"], "neighbouring edges, so it is an arc"),
    (["N", "S", "arc"], "opposite edges, so it is a straight"),
    (["N", "N", "arc"], "two different edges"),
    (["N", "S", "stop"], "runs to the centre"),
    (["N", "S", "bounce"], "its own edge"),
    (["C", "N", "stop"], "must start at an edge"),
    (["N", "C", "loop"], "unknown kind"),
])
def test_malformed_lines_are_named(line, needle):
    assert needle in _line_problem(line)


@pytest.mark.parametrize("line", [["N", "S", "straight"], ["W", "E", "straight"], ["W", "N", "arc"],
                                  ["S", "E", "arc"], ["E", "C", "stop"], ["S", "S", "bounce"]])
def test_well_formed_lines_pass(line):
    assert _line_problem(line) is None


# ---- the art agrees with the data ------------------------------------------------------

def faces(root, monkeypatch) -> dict:
    """{(card id, side): SVG} exactly as the build draws them (the SVG handed to CairoSVG)."""
    seen = {}
    original = render_module.draw_faces

    def spy(svgs, *args, **kwargs):
        seen.update(svgs)
        return original(svgs, *args, **kwargs)
    monkeypatch.setattr(render_module, "draw_faces", spy)
    rendered = render_module.render_game(load_game(root, GAME, Session()), Session())
    return {(rc.card.id, side): seen[key] for rc in rendered.cards
            for side, key in (("front", rc.front), ("back", rc.back)) if key}


def drawn_lines(node) -> dict:
    """The track lines drawn in an SVG element (a tile, a board field): {data-line: (start, end, path)}."""
    out = {}
    for el in node.iter():
        tag = el.get("data-line")
        if tag is None:
            continue
        d = el.get("d")
        nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]
        assert tag not in out, f"{tag} drawn twice"
        out[tag] = ((nums[0], nums[1]), (nums[-2], nums[-1]), d)
    return out


def check_drawing(lines, drawn, x, y, s):
    """Each line of the data is drawn once, from its edge to where its kind says."""
    P = {"N": (x + s / 2, y), "E": (x + s, y + s / 2), "S": (x + s / 2, y + s), "W": (x, y + s / 2),
         "C": (x + s / 2, y + s / 2)}
    assert sorted(drawn) == sorted(f"{a}-{b}-{k}" for a, b, k in lines)
    close = lambda p, q: math.dist(p, q) < 0.01
    for a, b, kind in lines:
        start, end, d = drawn[f"{a}-{b}-{kind}"]
        assert close(start, P[a]), (a, b, kind, start)
        if kind == "bounce":   # a stub straight in from its edge, stopping short of the centre
            centre = P["C"]
            assert 0 < math.dist(start, end) < s / 2
            assert math.dist(end, centre) + math.dist(end, start) == pytest.approx(s / 2, abs=0.01)
            continue
        assert close(end, P[b]), (a, b, kind, end)
        if kind == "arc":      # a quarter circle of radius s/2 about the corner the edges share
            r, sweep = [float(v) for v in re.findall(r"A(\S+) \S+ 0 0 (\d)", d)[0]]
            assert r == pytest.approx(s / 2)
            corner = (x + s if "E" in (a, b) else x, y if "N" in (a, b) else y + s)
            cross = (start[0] - corner[0]) * (end[1] - corner[1]) - (start[1] - corner[1]) * (end[0] - corner[0])
            assert (cross > 0) == (sweep == 1), "the arc bends round the wrong centre"
        else:
            assert "A" not in d


@pytest.fixture(scope="module")
def shipped():
    """faces(REPO): the shipped game's faces as the build draws them, rendered and drawn once
    for the tests here that read them."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        return faces(REPO, monkeypatch)


@pytest.mark.slow
def test_every_tile_draws_exactly_its_lines(shipped):
    game = load_game(REPO, GAME, Session())
    deck = game.deck("pieces")
    svgs = shipped
    for card in deck.cards:
        svg = svgs[(card.id, "front")]
        b, s = deck.bleed, deck.trim_w
        check_drawing(card.fields["lines"], drawn_lines(ET.fromstring(svg)), b, b, s)


@pytest.mark.slow
def test_a_mutated_line_changes_both_the_verdict_and_the_drawing(project, monkeypatch):
    edit(project / "cards" / GAME / "pieces.yaml", "lines: [[N, E, arc], [S, W, arc]]",
         "lines: [[N, E, arc], [E, S, arc]]")
    report = check_game(load_game(project, GAME, Session()), strict=True)
    assert {f.rule for f in report.findings} == {"pieces-match-geometry", "piece-symmetry"}
    deck = load_game(project, GAME, Session()).deck("pieces")
    b, s = deck.bleed, deck.trim_w
    drawn = drawn_lines(ET.fromstring(faces(project, monkeypatch)[("curve", "front")]))
    assert sorted(drawn) == ["E-S-arc", "N-E-arc"]
    check_drawing([["N", "E", "arc"], ["E", "S", "arc"]], drawn, b, b, s)


def test_the_board_draws_its_fields_and_fixed_track_from_the_data(shipped):
    game = load_game(REPO, GAME, Session())
    deck, t = game.deck("board"), tables()
    svg = shipped[("board", "front")]
    grid = [["?"] * 10 for _ in range(10)]
    root = ET.fromstring(svg)
    for el in root.iter():
        if el.get("data-field"):
            grid[int(el.get("data-y"))][int(el.get("data-x"))] = el.get("data-field")
    assert ["".join(r) for r in grid] == FACT_BOARD.split()
    # the fixed pieces: every quarter draws the quarter's fixed lines in its own field, turned
    # with the quarter (the lines are drawn unturned inside a group turned k x 90 degrees)
    f, b, n = t["field_mm"], deck.bleed, 2 * len(t["quarter"]) - 1
    fields = {(int(el.get("data-x")), int(el.get("data-y"))): el for el in root.iter() if el.get("data-field")}
    fixed_lines = sum(len(p["lines"]) for p in t["fixed"])
    assert len([el for el in root.iter() if el.get("data-line")]) == 4 * fixed_lines
    for k in range(4):
        for p in t["fixed"]:
            X, Y = p["x"], p["y"]
            for _ in range(k):
                X, Y = n - Y, X
            group = fields[(X, Y)]
            x0, y0 = b + X * f, b + Y * f
            assert group.get("transform") == f"rotate({90 * k} {x0 + f / 2} {y0 + f / 2})"
            check_drawing(p["lines"], drawn_lines(group), x0, y0, f)


# ---- print ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def builds(tmp_path_factory, all_builds):
    """MetiKoro built twice from the repository (both papers), in two folders: the run's
    shared build of every game, and one more of its own."""
    out = tmp_path_factory.mktemp("again")
    result = CliRunner().invoke(cli, ["--root", str(REPO), "build", GAME, "--output", str(out)])
    assert result.exit_code == 0, result.output
    return [all_builds[GAME], out / GAME]


@pytest.mark.slow
def test_builds_are_byte_identical(builds):
    one, two = builds
    names = sorted(p.name for p in one.iterdir())
    assert names == sorted(p.name for p in two.iterdir()) and len(names) >= 5
    for name in names:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name


@pytest.mark.slow   # waits for two builds of MetiKoro
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_quarters_reassemble_the_board(builds, paper):
    folder = builds[0]
    manifest = json.loads((folder / "manifest.json").read_text())
    sheets = next(f for f in manifest["files"] if f["path"] == f"{GAME}-sheets-{paper}.pdf")
    parts = [p for p in sheets["placements"] if p["id"] == "board" and p["side"] == "front"]
    t = tables()
    side = 2 * len(t["quarter"]) * t["field_mm"]
    quarter = side / 2
    assert len(parts) == 4 and len({p["page"] for p in parts}) == 4
    assert sorted((p["board_x_mm"], p["board_y_mm"]) for p in parts) == \
        [(0, 0), (0, quarter), (quarter, 0), (quarter, quarter)]
    assert all((p["w_mm"], p["h_mm"]) == (quarter, quarter) for p in parts)
    # each page shows the quarter the manifest says: its outer corner field in that corner's colour
    colour = {p["corner"]: p["light"] for p in t["players"]}
    corner_of = {(0, quarter): 0, (quarter, quarter): 1, (quarter, 0): 2, (0, 0): 3}   # y up
    pdf = pdfium.PdfDocument(folder / f"{GAME}-sheets-{paper}.pdf")
    for p in parts:
        page = pdf[p["page"] - 1]
        scale = 4
        image = page.render(scale=scale).to_pil().convert("RGB")
        right = p["board_x_mm"] > 0
        top = p["board_y_mm"] > 0
        x_mm = p["x_mm"] + (p["w_mm"] - 3 if right else 3)
        y_mm = p["y_mm"] + (p["h_mm"] - 3 if top else 3)
        px = image.getpixel((round(x_mm / 25.4 * 72 * scale), round(image.height - y_mm / 25.4 * 72 * scale)))
        want = colour[corner_of[(p["board_x_mm"], p["board_y_mm"])]]
        want = tuple(int(want[i:i + 2], 16) for i in (1, 3, 5))
        assert max(abs(a - b) for a, b in zip(px, want)) < 12, (p, px, want)


@pytest.mark.slow   # waits for two builds of MetiKoro
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_join_strips_and_tiles_cut_one_by_one(builds, paper):
    """Four join strips hold the butted quarters together; the tiles stand a gutter apart
    (pieces.yaml `gutter:`), so each is cut on its own line and keeps its whole bleed."""
    manifest = json.loads((builds[0] / "manifest.json").read_text())
    sheets = next(f for f in manifest["files"] if f["path"] == f"{GAME}-sheets-{paper}.pdf")
    strips = [p for p in sheets["placements"] if p["id"] == "join-strip"]
    assert len(strips) == 4 and {(p["w_mm"], p["h_mm"]) for p in strips} == {(160, 24)}
    tiles = [p for p in sheets["placements"] if p["id"] in ("crossing", "curve") and p["page"] ==
             min(q["page"] for q in sheets["placements"] if q["id"] == "crossing")]
    xs = sorted({p["x_mm"] for p in tiles})
    gutter = yaml.safe_load((CARDS / "pieces.yaml").read_text())["gutter"]
    assert {round(b - a, 3) for a, b in zip(xs, xs[1:])} == {35 + float(gutter.removesuffix("mm"))}


@pytest.mark.slow   # waits for two builds of MetiKoro
def test_card_text_is_extractable_text(builds):
    pdf = pdfium.PdfDocument(builds[0] / f"{GAME}-sheets-a4.pdf")
    text = " ".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    for words in ("YOUR TURN", "ACTION PLATFORM", "THE PIECES", "METIKORO", "Curve with Bumpers"):
        assert words in text
    # fonts: tests/test_sheets.py checks every font of every shipped PDF, MetiKoro's included


def test_rulebook_prints_the_symmetry_from_the_data(project):
    def row(markdown, name):
        return next(line for line in markdown.splitlines() if line.startswith(f"| {name} |"))
    game = load_game(project, GAME, Session())
    assert "a quarter-turn only" in row(render_markdown(game, rulebook_file(game), Session()), "Curve")
    edit(project / "cards" / GAME / "pieces.yaml", "lines: [[N, E, arc], [S, W, arc]]\n    symmetry: 2",
         "lines: [[N, E, arc], [S, W, arc]]\n    symmetry: 4")
    game = load_game(project, GAME, Session())
    assert "any turn" in row(render_markdown(game, rulebook_file(game), Session()), "Curve")
