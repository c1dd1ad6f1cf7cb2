"""Landscape cards turned onto the sheet where more fit (issue 38): 88 x 63 mm cards print 9
to an A4 page turned, 8 as drawn; each back still lies behind its front after the flip, turned
so that its top lies behind the front's top. Read back from the PDF's content streams."""
from __future__ import annotations

import json

import pikepdf
import pytest

from generator.units import PT_PER_MM, paper_size
from tests.conftest import run
from tests.test_exports import make_game
from tests.test_sheets import placed_forms

LANDSCAPE = "size: {width: 88mm, height: 63mm}\nbleed: 3mm\n"
TOL = 0.01   # mm


def _drawn(page):
    """(linear part (a, b, c, d) of the cm, the mm box the form covers on the page) of every face."""
    out = []
    for _, (a, b, c, d, e, f), (x0, y0, x1, y1) in placed_forms(page):
        xs = [e + a * x + c * y for x in (x0, x1) for y in (y0, y1)]
        ys = [f + b * x + d * y for x in (x0, x1) for y in (y0, y1)]
        box = (min(xs) / PT_PER_MM, min(ys) / PT_PER_MM, (max(xs) - min(xs)) / PT_PER_MM,
               (max(ys) - min(ys)) / PT_PER_MM)
        out.append(((a, b, c, d), box))
    return out


def _up(linear, flip):
    """Where a face's up (0, 1) points on the page, seen from the front after the flip."""
    x, y = linear[2], linear[3]
    return {"long": (-x, y), "short": (x, -y)}.get(flip, (x, y))


@pytest.mark.parametrize("mode", ["duplex-long", pytest.param("duplex-short", marks=pytest.mark.slow)])
def test_landscape_cards_turn_where_more_fit_and_backs_still_register(tmp_path, mode):
    root = make_game(tmp_path / "proj", [(f"c{i}", 1) for i in range(9)], deck_extra=LANDSCAPE)
    built = run(root, "build", "ex", "--paper", "a4", "--mode", mode)
    assert built.exit_code == 0, built.output
    folder = root / "output" / "ex"
    entry = next(f for f in json.loads((folder / "manifest.json").read_text())["files"] if f["kind"] == "sheets")
    pdf = pikepdf.open(folder / entry["path"])
    assert len(pdf.pages) == 2                       # 9 on one sheet (8 if not turned): fronts, backs
    page_w, page_h = paper_size("a4")
    placed = {(p["side"], p["id"]): p for p in entry["placements"]}
    drawn = {}
    for number, page in enumerate(pdf.pages, start=1):
        ours = [p for p in entry["placements"] if p["page"] == number]
        faces = _drawn(page)
        assert len(faces) == len(ours) == 9
        for p, (linear, (x, y, w, h)) in zip(ours, faces):
            # the form covers the cut box grown by the bleed: turned, 63 + 6 wide and 88 + 6 high
            assert abs(x + 3 - p["x_mm"]) < TOL and abs(y + 3 - p["y_mm"]) < TOL
            assert abs(w - 69) < TOL and abs(h - 94) < TOL and (p["w_mm"], p["h_mm"]) == (63, 88)
            drawn[(p["side"], p["id"])] = linear
    flip = "long" if mode == "duplex-long" else "short"
    for i in range(9):
        front, back = placed[("front", f"c{i}")], placed[("back", f"c{i}")]
        assert front["turned"] == 90 and drawn[("front", f"c{i}")] == (0, 1, -1, 0)   # its top to the left
        if flip == "long":   # the back at the mirrored slot
            assert abs(back["x_mm"] - (page_w - front["x_mm"] - front["w_mm"])) < TOL
            assert abs(back["y_mm"] - front["y_mm"]) < TOL
        else:
            assert abs(back["x_mm"] - front["x_mm"]) < TOL
            assert abs(back["y_mm"] - (page_h - front["y_mm"] - front["h_mm"])) < TOL
        # seen through the paper after the flip, the back's top points where the front's does
        assert _up(drawn[("back", f"c{i}")], flip) == _up(drawn[("front", f"c{i}")], "none") == (-1, 0)
        assert back["turned"] == (270 if flip == "long" else 90)
