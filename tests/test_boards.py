"""Boards on paper (layout/boards.py), tested alone: whole, sections, glued panels."""
from __future__ import annotations

import pytest

from generator.layout.boards import FOOT, SIDE_MARGIN, plan_board
from generator.layout.grid import DoesNotFit
from generator.units import PAPERS


def _cells(plan):
    return {(p.col, p.row): p for p in plan.panels}


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("w, h, overlap", [(420, 594, 10), (594, 420, 12), (500, 350, 10), (1000, 700, 15)])
def test_panels_reassemble_the_board_with_the_overlap_as_glue_strip(paper, w, h, overlap):
    plan = plan_board(paper, PAPERS[paper], w, h, 3, overlap)
    assert plan.mode == "panels" and len(plan.panels) == plan.cols * plan.rows > 1
    cells = _cells(plan)
    # the regions cover the board exactly: first at 0, last at the far edge
    assert min(p.region[0] for p in plan.panels) == 0 and min(p.region[1] for p in plan.panels) == 0
    assert max(p.region[0] + p.region[2] for p in plan.panels) == pytest.approx(w, abs=0.01)
    assert max(p.region[1] + p.region[3] for p in plan.panels) == pytest.approx(h, abs=0.01)
    for (col, row), p in cells.items():
        page_w, page_h = p.page_w, p.page_h
        x, y, cw, ch = p.cut_box
        assert (cw, ch) == (p.region[2], p.region[3])
        assert x - 3 >= SIDE_MARGIN - 0.01 and x + cw + 3 <= page_w - SIDE_MARGIN + 0.01
        assert y - 3 >= SIDE_MARGIN + FOOT - 0.01 and y + ch + 3 <= page_h - SIDE_MARGIN + 0.01
        right, below = cells.get((col + 1, row)), cells.get((col, row + 1))
        if right:  # neighbours overlap by exactly the glue strip, which this panel shows shaded
            assert p.region[0] + p.region[2] - right.region[0] == pytest.approx(overlap, abs=0.01)
            assert right.region[1] == p.region[1]
            assert (x + cw - overlap, y, overlap, ch) in p.glue
        if below:
            assert p.region[1] + overlap - (below.region[1] + below.region[3]) == pytest.approx(0, abs=0.01)
            assert (x, y, cw, overlap) in p.glue
        if not right and not below:
            assert p.glue == ()


def _board_points(panel, kinds):
    return sorted((round(x - panel.at[0] + panel.region[0], 3), round(y - panel.at[1] + panel.region[1], 3))
                  for x, y, kind in panel.ticks if kind in kinds)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_alignment_ticks_on_both_sides_of_every_join_meet_on_the_board(paper):
    plan = plan_board(paper, PAPERS[paper], 600, 800, 3, 10)
    cells = _cells(plan)
    joins = 0
    for (col, row), p in cells.items():
        if (col + 1, row) in cells:
            assert _board_points(p, {"under-v"}) == _board_points(cells[(col + 1, row)], {"edge-left"})
            assert len(_board_points(p, {"under-v"})) == 3
            joins += 1
        if (col, row + 1) in cells:
            assert _board_points(p, {"under-h"}) == _board_points(cells[(col, row + 1)], {"edge-top"})
            joins += 1
    assert joins == (plan.cols - 1) * plan.rows + plan.cols * (plan.rows - 1) > 0


def test_a_board_that_fits_prints_whole_and_landscape_when_that_fits():
    plan = plan_board("a4", PAPERS["a4"], 150, 200, 3)
    assert plan.mode == "whole" and len(plan.panels) == 1
    wide = plan_board("a4", PAPERS["a4"], 240, 150, 3)
    assert wide.mode == "whole" and wide.panels[0].page_w == 297  # turned to landscape paper


def test_fewest_pages_orientation_is_chosen():
    plan = plan_board("a4", PAPERS["a4"], 400, 550, 3, 10)
    portrait = plan_board("a4", (210.0, 210.0 * 297 / 210), 400, 550, 3, 10)
    assert len(plan.panels) <= len(portrait.panels)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_sections_butt_together_exactly(paper):
    plan = plan_board(paper, PAPERS[paper], 350, 350, 3, sections=(2, 2))
    assert plan.mode == "sections" and len(plan.panels) == 4
    regions = sorted(p.region for p in plan.panels)
    assert regions == [(0, 0, 175, 175), (0, 175, 175, 175), (175, 0, 175, 175), (175, 175, 175, 175)]
    assert all(p.glue == () for p in plan.panels)


def test_a_section_larger_than_the_paper_is_refused():
    with pytest.raises(DoesNotFit, match="section"):
        plan_board("a4", PAPERS["a4"], 600, 600, 3, sections=(2, 2))
