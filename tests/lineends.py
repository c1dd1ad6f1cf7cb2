"""The words at the ends of a PDF's lines, read back as a reader sees them (pypdfium2).

In: a PDF (path or bytes). Out: its text lines and the words hyphenated at a line's end.
PDFium's text joins a line that ends in a hyphen to the next and marks the join with
U+FFFE: each mark is one hyphenated line end ("play\\ufffeer" is "play-" at a line's end,
"er" on the next), and the marks in one joined line are hyphenated lines in a row. For
tests/test_typography.py and benchmarks/typography.py.
"""
from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium

MARK = "\ufffe"
BROKEN = re.compile(r"(\w*)" + MARK + r"(\w*)")


def text_lines(pdf) -> list[str]:
    """Every line of text as PDFium joins them (hyphenated line ends joined), page after page."""
    doc = pdfium.PdfDocument(pdf if isinstance(pdf, bytes) else str(Path(pdf)))
    try:
        out = []
        for page in doc:
            text = page.get_textpage().get_text_range()
            out += [line.strip() for line in text.replace("\r\n", "\n").split("\n") if line.strip()]
        return out
    finally:
        doc.close()


def hyphenated(pdf) -> tuple[int, list[tuple[str, int]]]:
    """(the number of printed lines, [("head-tail", hyphenated lines in a row it ends) of
    each word broken at a line's end])."""
    found = text_lines(pdf)
    words = []
    for line in found:
        for run, m in enumerate(BROKEN.finditer(line), start=1):
            words.append((f"{m.group(1)}-{m.group(2)}", run))
    return len(found) + len(words), words
