"""Page orders for simplex printers: fronts-then-backs and interleaved.

Each back must land behind its own front after the flip the mode states, read from the
placement map (and from what the PDF draws), with sheets that hold different numbers of
cards so a back landing on the wrong sheet shows."""
from __future__ import annotations

import pytest

from generator.session import Session
from generator.units import paper_size
from tests.conftest import run
from tests.test_exports import make_game
from tests.test_print_modes import TOL, build, check_drawing_matches


@pytest.fixture
def game(tmp_path):
    """Thirteen poker cards: two full sheets of nine on A4 would be 18; 9 + 4 here."""
    return make_game(tmp_path / "proj", [(f"c{i}", 1) for i in range(13)])


def long_edge_partner(front: dict, page_w: float) -> tuple[float, float]:
    """Where a front's back must be drawn for a flip on the long (vertical) edge."""
    return page_w - front["x_mm"] - front["w_mm"], front["y_mm"]


def sheets_of(entry):
    pages = {}
    for p in entry["placements"]:
        pages.setdefault(p["page"], []).append(p)
    return pages


def test_fronts_then_backs_prints_every_front_first_and_backs_in_sheet_order(game):
    entry, pdf = build(game, "--mode", "fronts-then-backs")
    assert entry["mode"] == "fronts-then-backs"
    pages = sheets_of(entry)
    sides = [{p["side"] for p in pages[n]} for n in sorted(pages)]
    assert sides == [{"front"}, {"front"}, {"back"}, {"back"}]
    w, _ = paper_size("a4")
    n_fronts = 2
    for number in (1, 2):
        fronts = {p["id"]: p for p in pages[number]}
        backs = {p["id"]: p for p in pages[number + n_fronts]}   # sheet k's back is page fronts + k
        assert set(fronts) == set(backs)
        for cid, f in fronts.items():
            x, y = long_edge_partner(f, w)
            assert abs(backs[cid]["x_mm"] - x) < TOL and abs(backs[cid]["y_mm"] - y) < TOL
    check_drawing_matches(entry, pdf)


def test_interleaved_pairs_each_front_page_with_its_back_page(game):
    entry, pdf = build(game, "--mode", "interleaved")
    assert entry["mode"] == "interleaved"
    pages = sheets_of(entry)
    assert [{p["side"] for p in pages[n]} for n in sorted(pages)] == [{"front"}, {"back"}] * 2
    w, _ = paper_size("a4")
    for number in (1, 3):
        backs = {p["id"]: p for p in pages[number + 1]}
        for f in pages[number]:
            x, y = long_edge_partner(f, w)
            assert abs(backs[f["id"]]["x_mm"] - x) < TOL and abs(backs[f["id"]]["y_mm"] - y) < TOL
    check_drawing_matches(entry, pdf)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["fronts-then-backs", "interleaved"])
def test_simplex_orders_take_a_back_offset(game, mode):
    entry, _ = build(game, "--mode", mode, "--back-offset", "0.5,-0.3")
    plain, _ = build(game, "--mode", mode)
    moved = {(p["id"], p["side"]): p for p in entry["placements"]}
    for p in plain["placements"]:
        q = moved[(p["id"], p["side"])]
        dx, dy = (0.5, -0.3) if p["side"] == "back" else (0, 0)
        assert abs(q["x_mm"] - p["x_mm"] - dx) < TOL and abs(q["y_mm"] - p["y_mm"] - dy) < TOL


def test_labels_name_each_backs_own_sheet(game):
    import pypdfium2 as pdfium

    from generator.data.load import load_game
    from generator.draw.render import render_game
    from generator.layout.modes import PrintMode
    from generator.layout.sheets import layout_sheets

    rendered = render_game(load_game(game, "ex", Session()), Session())
    sheets = layout_sheets(rendered, "a4", Session(), mode=PrintMode("fronts-then-backs"))
    assert [(p.side, p.sheet) for p in sheets.plans] == [("front", 1), ("front", 2), ("back", 1), ("back", 2)]
    doc = pdfium.PdfDocument(sheets.pdf)
    try:
        labels = [doc[n].get_textpage().get_text_range() for n in range(len(doc))]
    finally:
        doc.close()
    assert "sheet 1 of 2" in labels[2] and "sheet 2 of 2" in labels[3]


def test_kit_tells_players_how_to_print_in_two_runs(game):
    import io
    import zipfile

    result = run(game, "kit", "ex", "--paper", "a4", "--mode", "fronts-then-backs")
    assert result.exit_code == 0, result.output
    kit = game / "output" / "ex" / "exports" / "kit" / "ex-print-and-play.zip"
    with zipfile.ZipFile(io.BytesIO(kit.read_bytes())) as zf:
        readme = zf.read("READ-ME.txt").decode()
        assert "calibration-a4.pdf" in zf.namelist()
    assert "turn it over on its LONG edge" in readme
