"""How the shipped rulebooks' lines are broken: hyphens and evenness, measured.

    python benchmarks/typography.py                      # paragraphs: first fit vs total fit
    python benchmarks/typography.py BEFORE AFTER         # and two builds' PDFs, read back

Paragraphs: every paragraph, quote and list item of each shipped rulebook set by reportlab
(every edition but those Pango sets: Arabic, Japanese), broken at the A4 frame's width with
the typographer's rules (draw/hyphenate.py) line by line (first fit) and as a whole (total
fit, draw/linebreak.py): lines, hyphenated lines per 100, and the spread (standard
deviation) of the fill of the lines a paragraph's end does not leave short. PDFs: the words
hyphenated at line ends in each rulebook and sheet of two output folders (tests/lineends.py),
per 100 printed lines, and the longest run of hyphenated lines. docs/typography.md has the
numbers.
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from generator.data.load import list_games  # noqa: E402
from generator.draw.glyphs import needs_pango  # noqa: E402
from generator.draw.hyphenate import for_game  # noqa: E402
from generator.pipeline import load_editions  # noqa: E402
from generator.rulebook.breaking import WholeParagraph, measure  # noqa: E402
from generator.rulebook.source import parse_blocks, render_markdown, rulebook_file  # noqa: E402
from generator.rulebook.styles import styles  # noqa: E402
from generator.session import Session  # noqa: E402

A4_FRAME = (210 - 2 * 20) * 72 / 25.4   # pt: the body frame on A4 (book.MARGIN each side)


def paragraphs(edition):
    """(markup, style) of every paragraph, quote and list item of an edition's rulebook."""
    path = rulebook_file(edition)
    if path is None:
        return []
    blocks = parse_blocks(render_markdown(edition, path, Session()))
    if needs_pango(False, "".join(b.text for b in blocks)):
        return []
    st = styles(edition.language, for_game(edition))
    out = []
    for b in blocks:
        if b.kind in ("paragraph", "quote"):
            out.append((b.text, st["body" if b.kind == "paragraph" else "quote"]))
        elif b.kind == "list":
            out += [(i, st["bullet"]) for i in _items(b.items)]
    return out


def _items(items):
    for i in items:
        if isinstance(i, str):
            yield i
        else:
            yield from _items(i.items)


def compare(edition) -> dict | None:
    found = paragraphs(edition)
    if not found:
        return None
    out = {}
    for whole in (False, True):
        lines = hyphens = 0
        fills: list[float] = []
        for markup, style in found:
            p = WholeParagraph(markup, style, hyphenation=style.whole)
            width = A4_FRAME - style.leftIndent - style.rightIndent - (14 if style.name == "bullet" else 0)
            n, h, f = measure(p.source, (width, width), style.whole, whole)
            lines, hyphens, fills = lines + n, hyphens + h, fills + f
        out["total" if whole else "first"] = (lines, 100 * hyphens / lines, statistics.pstdev(fills),
                                              statistics.mean(fills))
    return out


def pdfs(before: Path, after: Path) -> None:
    from lineends import hyphenated

    print(f"{'file':44} {'before':>22} {'after':>22}")
    for pdf in sorted(after.glob("*/*-a4.pdf")):
        row = []
        for folder in (before, after):
            path = folder / pdf.parent.name / pdf.name
            lines, words = hyphenated(path)
            row.append(f"{len(words):3} /{lines:5} ({100 * len(words) / lines:4.1f}) run {max([r for _, r in words] or [0])}")
        print(f"{pdf.name:44} {row[0]:>22} {row[1]:>22}")


def main(argv: list[str]) -> None:
    print(f"{'game':22} {'lang':4} {'first fit: lines, hyph/100, fill sd':38} {'total fit'}")
    for game_id in list_games(ROOT):
        _, editions, _ = load_editions(ROOT, game_id, None, Session())
        for edition in editions:
            found = compare(edition)
            if found:
                cells = ["{:5} {:5.2f} {:.4f} (mean {:.3f})".format(*found[k]) for k in ("first", "total")]
                print(f"{game_id:22} {edition.language:4} {cells[0]:38} {cells[1]}")
    if len(argv) == 2:
        pdfs(Path(argv[0]), Path(argv[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
