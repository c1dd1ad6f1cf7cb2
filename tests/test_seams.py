"""Text on the seams of glued boards (layout/seams.py): the joins of each paper's panels, the
runs of text read back from the drawn face, and the warning `pnp validate` gives."""
from __future__ import annotations

import pytest

from generator.data.load import list_games, load_game
from generator.draw.facecache import FaceCache
from generator.draw.render import render_game
from generator.layout.boards import plan_board
from generator.layout.seams import CLEARANCE, seams, text_on_seams, text_runs
from generator.session import Session
from generator.units import PAPERS
from tests.conftest import REPO, edit, run


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_seams_are_the_edges_of_the_panels_on_top(paper):
    plan = plan_board(paper, PAPERS[paper], 500, 350, 3, 10)
    found = seams(plan)
    assert len(found) == (plan.cols - 1) + (plan.rows - 1)
    height = 350
    for seam in found:
        if seam.axis == "x":  # the left edge of a panel right of a join
            assert any(p.col > 0 and p.region[0] == pytest.approx(seam.at) for p in plan.panels)
        else:                 # the top edge of a panel below one, measured from the board's top
            assert any(p.row > 0 and height - (p.region[1] + p.region[3]) == pytest.approx(seam.at)
                       for p in plan.panels)
    assert seams(plan_board(paper, PAPERS[paper], 150, 100, 3, 10)) == []              # printed whole
    assert seams(plan_board(paper, PAPERS[paper], 350, 350, 0, 10, sections=(2, 2))) == []  # butted sections


@pytest.fixture(scope="module")
def drawn(drawn_faces):
    """Each shipped game rendered once for every test here, its faces as the run's one build
    rendered and drew them (the memo it kept, read only, and its face cache): {game: RenderedGame}."""
    from generator.data.editions import source_edition
    from generator.diskmemo import pack_name

    rendered = {}

    def get(game):
        if game not in rendered:
            session = Session()
            with session.kept_on_disk(drawn_faces.parent / "memo", drawn_faces.parent.parent,
                                      pack_name({game: None}), keep=False):
                assert session.warm
                rendered[game] = render_game(source_edition(load_game(REPO, game, session)), session,
                                             cache=FaceCache(drawn_faces))
            assert rendered[game].drawn == 0
        return rendered[game]
    return get


def test_text_runs_come_back_where_the_template_put_them(drawn):
    rendered = drawn("meta-olympia")
    rc = next(c for c in rendered.cards if c.card.id == "arena-mat")
    doc, page = rendered.page_of[rc.front]
    runs = dict(text_runs(rendered.faces_pdfs[doc], page, rc.deck.bleed))
    x0, y0, x1, y1 = runs["AWAY"]
    assert 95 < x0 < x1 < 165 and 15 < y0 < y1 < 35   # 11 mm capitals, centred over the Away half
    assert "HOME" in runs and "THEARENA·3DEFININGMOMENTS" in runs


@pytest.mark.parametrize("game", list_games(REPO))
def test_no_text_lies_on_a_seam_of_a_shipped_board(drawn, game):
    for paper in ("a4", "letter"):
        assert text_on_seams(drawn(game), paper) == [], paper


@pytest.mark.usefixtures("warm_project")   # validate draws through the face cache: only the edited board again
def test_validate_warns_about_a_word_on_a_seam(project):
    """A label moved onto the join between the first two columns of panels: a warning naming
    the card, the text and the panels; --strict makes it fail. Meta Olympia is cut to its
    board (the deck the warning is about, with the tables it draws from): the same
    `pnp validate` path, without drawing and checking the other eleven decks and the rulebook."""
    game = project / "cards/meta-olympia/game.yaml"
    text = game.read_text(encoding="utf-8")
    decks = text[text.index("decks:\n"):text.index("data:\n")]
    game.write_text(text.replace(decks, "decks:\n  - board.yaml\n").replace("rules: rules.yaml\nrulebook: rulebook.md\n", ""),
                    encoding="utf-8")
    for name in ("rules.yaml", "rulebook.md", "glossary.yaml"):   # no notes of files not read, of terms on no card
        (game.parent / name).unlink()
    edit(project / "templates/meta-olympia/board.svg.j2", "picks a spot first.", "picks a spot first. MIDFIELD MARKET")
    edit(project / "templates/meta-olympia/board.svg.j2", 'cx - 150, by + bh + 2, 300, 7,', 'cx - 150 - 100, by + bh + 2, 300, 7,')
    result = run(project, "validate", "meta-olympia", "--strict")   # a warning: --strict makes it fail
    assert result.exit_code == 1, result.output
    assert "warning" in result.output and "main-board" in result.output
    assert "text 'First to reach the end of the track pic…' lies on the seam between panels 1 and 2 on A4 " \
           "(x = 163.3 mm from the board's left edge)" in result.output
    findings = [line for line in result.output.splitlines() if ": warning: " in line or ": error: " in line]
    assert findings and all("lies on the seam" in line for line in findings), result.output   # the failure is the seam's
    assert CLEARANCE >= 1
