"""The page comparison helper (tests/pages.py) finds what it is meant to find, and the
shipped games look the same or better: the first card of every deck, drawn as a build
draws it, compared with `tests/fixtures/pages/`, the same faces drawn before text boxes
were set by Pango (CairoSVG's own text: no kerning, no hyphenation). Kerning, ligatures and
hyphenation move glyphs by fractions of a millimetre and reflow a line here and there, so
the faces are compared softened (a blur of one pixel at 30 dpi) within a tolerance; a face
that changed more than that (a missing text box, a wrong colour, text in the wrong place)
fails, and its before | after | difference picture is written to look at.

After a deliberate change of the shipped games' look: `python -m tests.pages --pin-shipped`.
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from reportlab.pdfgen import canvas

from tests.pages import SHIPPED, compare, differences, page_digests, shipped_faces, side_by_side

ROOT = Path(__file__).resolve().parents[1]
PINNED = ROOT / "tests" / "fixtures" / "pages"


@pytest.mark.parametrize("game", SHIPPED)
def test_shipped_faces_look_as_they_did_before_pango(game, tmp_path, drawn_faces):
    from generator.diskmemo import pack_name
    from generator.session import Session

    session = Session()   # the face SVGs the run's build of the game rendered, kept on disk (read only)
    with session.kept_on_disk(drawn_faces.parent / "memo", drawn_faces.parent.parent, pack_name({game: None}),
                              keep=False):
        assert session.warm, "the run's build kept no memo of the game"
        now = shipped_faces(ROOT, game, session=session)
    pinned = {p.stem: p for p in sorted((PINNED / game).glob("*.png"))}
    assert set(now) == set(pinned), "the decks changed: re-pin with python -m tests.pages --pin-shipped"
    worst = []
    for name, image in now.items():
        before = Image.open(pinned[name]).convert("RGB")
        found = compare(before, image, tolerance=64, blur=1.0)
        if not found.within(changed=0.03, mean=4.0):
            worst.append(f"{name}: {found.changed:.1%} changed, mean {found.mean:.2f} "
                         f"(see {side_by_side(before, image, tmp_path / f'{name}.png')})")
    assert not worst, "\n".join(worst)


def _pdf(*lines, pages=1) -> bytes:
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(200, 200), invariant=1)
    for _ in range(pages):
        for x in lines:
            c.line(x, 20, x, 180)
        c.showPage()
    c.save()
    return buf.getvalue()


def test_the_same_drawing_compares_equal_even_when_the_bytes_differ():
    a, b = _pdf(50), _pdf(50).replace(b"ReportLab", b"ReportLAB")
    assert a != b and differences(a, b) == [] and page_digests(a) == page_digests(b)


def test_a_moved_line_an_added_page_and_a_tolerance():
    assert [d.page for d in differences(_pdf(50), _pdf(60))] == [1]
    assert [(d.page, d.what) for d in differences(_pdf(50), _pdf(50, pages=2))] == [(2, "missing")]
    moved = differences(_pdf(50), _pdf(60), dpi=72)[0]
    assert moved.what == "pixels" and 0 < moved.share < 0.05 and moved.most > 100
    assert differences(_pdf(50), _pdf(60), share=0.5) == []  # a small change under the allowed share
