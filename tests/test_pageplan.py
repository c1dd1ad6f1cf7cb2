"""The rulebook's page plan (generator/rulebook/pageplan.py): after an edit of the
rulebook's text, `pnp watch` draws the pages before the first changed block from the last
layout's plan and lays out only the pages from there on, with the same bytes as a layout
of the whole book."""
from __future__ import annotations

import pypdfium2 as pdfium
import pytest
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Paragraph

from generator.data.load import load_game
from generator.rulebook import pageplan
from generator.rulebook.rlbridge import RecordingFrame
from generator.session import Session
from tests.conftest import edit

MIDDLE = "Three kinds of project exist"   # "Launch Sites", page 11 of 19 on A4
END = "as long as the Timekeeper can stop them for a Time Out."   # the last section
FIRST = "A swarm of Meteors is falling toward Earth"   # the first page of the body


def test_the_frame_tells_where_it_draws_each_flowable(tmp_path):
    """reportlab's Frame.add draws a flowable through its drawOn(canvas, x, y, _sW=...)."""
    drawn = []
    frame = RecordingFrame(50, 60, 300, 400, drawn=lambda *d: drawn.append(d))
    para = Paragraph("Words to place", ParagraphStyle("body", fontSize=10, leading=12))
    assert frame.add(para, Canvas(str(tmp_path / "x.pdf")))
    assert drawn == [(para, 50 + frame._leftPadding, 60 + 400 - frame._topPadding - 12, 300 - 2 * 6 - para.width)]
    assert "drawOn" not in vars(para)   # left as reportlab left it


@pytest.fixture(scope="module")
def meteor_drawn(tmp_path_factory, drawn_faces):
    """(a copy of the project, Meteor loaded and its faces drawn once for the module): the
    tests edit only the rulebook, which a layout reads afresh."""
    import os
    import shutil

    from generator.draw.facecache import FaceCache
    from generator.draw.render import render_game
    from tests.conftest import REPO

    project = tmp_path_factory.mktemp("pageplan")
    for name in ("cards", "templates"):
        shutil.copytree(REPO / name, project / name)
    for entry in drawn_faces.glob("*/*.pdf"):
        folder = project / "output" / ".cache" / "faces" / entry.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        os.link(entry, folder / entry.name)
    game = load_game(project, "meteor", Session())
    return project, game, render_game(game, Session(), cache=FaceCache(project / "output" / ".cache" / "faces"))


@pytest.fixture(scope="module")
def shipped_layout(meteor_drawn):
    """(a remembering session that laid out Meteor's A4 rulebook as shipped, that layout):
    what `pnp watch` holds before the edit, laid out once for the module (`resumed`)."""
    import generator.rulebook as rulebook

    _, game, rendered = meteor_drawn
    watching = Session(remember=True)
    return watching, rulebook.layout_rulebook(game, rendered, "a4", watching)


def resumed(held: Session) -> Session:
    """A new remembering session holding what `held` holds: each map of the session and of
    its memo copied (the values shared: a layout reads them and puts new ones, never changes
    one), as if it had laid out what `held` did; `held` is left as it was."""
    from collections.abc import MutableMapping

    session = Session(remember=True)
    for mine, theirs in ((session, held), (session.memo, held.memo)):
        for name, value in vars(theirs).items():
            if isinstance(value, MutableMapping):
                getattr(mine, name).update(value)
    return session


@pytest.fixture
def meteor_book(meteor_drawn, monkeypatch):
    """(the project, lay out Meteor's A4 rulebook in a session, how many pages the last layout
    replayed); the rulebook is as shipped again after the test."""
    import generator.rulebook as rulebook

    project, game, rendered = meteor_drawn
    replayed = []
    real = pageplan.reuse

    def counted(*args):
        laid, index = real(*args)
        replayed.append(sum(isinstance(f, pageplan.Replay) for f in laid))
        return laid, index
    monkeypatch.setattr(pageplan, "reuse", counted)

    def lay_out(session):
        return rulebook.layout_rulebook(game, rendered, "a4", session)
    book = project / "cards" / "meteor" / "rulebook.md"
    shipped = book.read_bytes()
    yield project, lay_out, replayed
    book.write_bytes(shipped)


@pytest.mark.parametrize("marker, added, reused", [
    (END, " Or count it out aloud.", 15),
    (MIDDLE, " Each takes cards of its own.", 4),   # pages 8-10 start inside a split flowable
    (FIRST, " Quickly.", 0),
    (MIDDLE, " A much longer rule goes here, to push every later page on." * 80, 4),
], ids=["end", "middle", "first page", "page count"])
def test_only_the_pages_from_the_edit_on_are_laid_out_and_the_book_is_the_same(meteor_book, shipped_layout, marker,
                                                                               added, reused):
    project, lay_out, replayed = meteor_book
    held, before = shipped_layout
    watching = resumed(held)   # as `pnp watch` keeps one, after it laid out the book as shipped
    edit(project / "cards" / "meteor" / "rulebook.md", marker, marker + added)
    replayed.clear()
    after = lay_out(watching)
    assert replayed[0] >= reused > 0 or replayed[0] == reused == 0
    whole = lay_out(Session())   # laid out whole, from an empty contents page
    assert after.pdf == whole.pdf and after.placements == whole.placements and after.headings == whole.headings
    assert after.pdf != before.pdf
    text = " ".join(" ".join(p.get_textpage().get_text_range() for p in pdfium.PdfDocument(after.pdf)).split())
    assert added.strip().split(".")[0] in text
    if marker == MIDDLE and len(added) > 100:
        assert after.pages > before.pages   # the edit moved every later page on


def test_a_book_laid_out_again_from_its_plan_replays_again(meteor_book, shipped_layout):
    """Two edits in a row: the second layout's plan holds the pages the first one replayed."""
    project, lay_out, replayed = meteor_book
    watching = resumed(shipped_layout[0])   # it laid out the book as shipped
    for added in (" One.", " Two."):
        edit(project / "cards" / "meteor" / "rulebook.md", END, END + added)
        replayed.clear()
        after = lay_out(watching)
        assert replayed[0] >= 15
    assert after.pdf == lay_out(Session()).pdf
