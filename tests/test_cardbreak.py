"""Issue 39: card texts of three lines or more broken by total fit over Pango's widths
(draw/textlines.py), read back from the drawn PDF; right-to-left text keeps Pango's breaking."""
from __future__ import annotations

import statistics

import pytest
from lineends import hyphenated
from test_text import chars, drawn, face

from generator.draw import textlines
from generator.draw.fonts import shipped
from generator.draw.textfit import TextSetter

EN = ("When a player reveals an opportunity card, every opponent immediately discards their highest resource, "
      "then the dealer redistributes the remaining championship tokens according to the international regulations.")
DE = ("Die Mannschaftsaufstellung bestimmt Verteidigungsstrategien, Angriffsformationen, "
      "Auswechslungsmöglichkeiten und Trainingsmethoden gemeinsam.")


@pytest.fixture(scope="module")
def setter():
    return TextSetter(shipped(), {})


def printed(setter, monkeypatch, total: bool, text: str, w: float, lang: str) -> bytes:
    """The text fitted at 2.4 mm (no room to shrink) into a w mm box and drawn, broken by
    total fit or, as before, by Pango line by line."""
    monkeypatch.setattr(textlines, "TOTAL_FIT", total)
    setter.engine._fits.clear()   # the fits remembered were made with the other setting
    body = setter.svg(text, x=2, y=2, w=w, h=70, size=2.4, min_size=2.4, lang=lang)
    pdf, _ = drawn(face(body, w=w + 4, h=74))
    return pdf


def right_edges(pdf: bytes) -> list[float]:
    """The x of the last character of each printed line, top to bottom, in mm."""
    ends: dict[float, float] = {}
    for c, x, y in chars(pdf):
        if not c.isspace():
            ends[round(y, 1)] = max(ends.get(round(y, 1), 0.0), x)
    return [ends[y] for y in sorted(ends, reverse=True)]


def test_a_long_card_text_is_set_evener_by_total_fit(setter, monkeypatch):
    before = right_edges(printed(setter, monkeypatch, False, EN, 30, "en"))
    after = right_edges(printed(setter, monkeypatch, True, EN, 30, "en"))
    assert len(after) == len(before) >= 3
    assert statistics.pstdev(after[:-1]) < 0.8 * statistics.pstdev(before[:-1])   # the last line may be short


def test_never_three_hyphenated_lines_in_a_row_and_fewer_hyphens(setter, monkeypatch):
    lines, before = hyphenated(printed(setter, monkeypatch, False, DE, 26, "de"))
    assert max(run for _, run in before) >= 3                  # Pango, line by line: a ladder of hyphens
    lines, after = hyphenated(printed(setter, monkeypatch, True, DE, 26, "de"))
    assert lines >= 3 and after
    assert max(run for _, run in after) <= 2 and len(after) < len(before)


@pytest.mark.parametrize("text, lang", [("שחקן שמשחק קלף הגנה רשאי לבטל את ההתקפה של היריב בתור הבא", "he"),
                                        ("اللاعب الذي يلعب بطاقة الدفاع يمكنه إلغاء هجوم الخصم في الدور التالي", "ar")])
def test_right_to_left_keeps_pangos_breaking(setter, monkeypatch, text, lang):
    specs = []
    for total in (False, True):
        monkeypatch.setattr(textlines, "TOTAL_FIT", total)
        setter.engine._fits.clear()
        fitted = setter.engine.fit(setter.spec(text, w=22, size=3, lang=lang), 70, 3)
        assert fitted.lines >= 3
        specs.append(fitted.spec)
    assert specs[0] == specs[1] and not specs[1].breaks
