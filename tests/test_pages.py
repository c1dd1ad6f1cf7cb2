"""The page comparison helper (tests/pages.py) finds what it is meant to find."""
from __future__ import annotations

import io

from reportlab.pdfgen import canvas

from tests.pages import differences, page_digests


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
