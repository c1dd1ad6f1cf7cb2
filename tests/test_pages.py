"""The shipped games look the same or better: the first card of every deck, drawn as a build
draws it, compared with `tests/fixtures/pages/`, the same faces drawn before text boxes
were set by Pango (CairoSVG's own text: no kerning, no hyphenation). Kerning, ligatures and
hyphenation move glyphs by fractions of a millimetre and reflow a line here and there, so
the faces are compared softened (a blur of one pixel at 30 dpi) within a tolerance; a face
that changed more than that (a missing text box, a wrong colour, text in the wrong place)
fails, and its before | after | difference picture is written to look at.

After a deliberate change of the shipped games' look: `python -m tests.pages --pin-shipped`.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from tests.pages import SHIPPED, compare, shipped_faces, side_by_side

ROOT = Path(__file__).resolve().parents[1]
PINNED = ROOT / "tests" / "fixtures" / "pages"


@pytest.mark.parametrize("game", SHIPPED)
def test_shipped_faces_look_as_they_did_before_pango(game, tmp_path):
    now = shipped_faces(ROOT, game)
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
