"""Page comparisons: render PDF pages to pixels and compare them within a tolerance.

A reusable helper for tests and for people: `render` draws a page (pypdfium2), `compare`
measures how two renderings differ, `compare_pdfs` does it page by page, and `side_by_side`
writes before | after | difference as one PNG to look at. `page_digests` is a digest of
each page's pixels (what a byte pin keeps beside its sha256: test_bytes.py) and
`differences` names the pages of two PDFs that differ beyond a tolerance.

    python -m tests.pages BEFORE.pdf AFTER.pdf [--dpi 50] [--out DIR] [--pages 1,3]

prints, for each page, the share of pixels that changed by more than the tolerance and the
mean change, and writes the side-by-side PNGs into DIR.

`shipped_faces` draws the first card of every deck of a shipped game as a build draws it
(tests/test_pages.py compares them with `tests/fixtures/pages/`, drawn before the text
engine changed); `python -m tests.pages --pin-shipped` draws them anew into that folder.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import sys
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image, ImageChops, ImageFilter

from generator.session import Session


def render(pdf, page: int = 0, dpi: float = 50) -> Image.Image:
    """Page `page` (from 0) of `pdf` (bytes or a path) as an RGB image at `dpi`."""
    data = pdf if isinstance(pdf, bytes) else Path(pdf).read_bytes()
    doc = pdfium.PdfDocument(data)
    try:
        return doc[page].render(scale=dpi / 72).to_pil().convert("RGB")
    finally:
        doc.close()


def pages(pdf) -> int:
    data = pdf if isinstance(pdf, bytes) else Path(pdf).read_bytes()
    doc = pdfium.PdfDocument(data)
    try:
        return len(doc)
    finally:
        doc.close()


@dataclass(frozen=True)
class Difference:
    changed: float      # share of pixels whose largest channel difference passes the tolerance
    mean: float         # mean channel difference, 0-255
    largest: int        # largest channel difference, 0-255
    same_size: bool

    def within(self, changed: float = 0.01, mean: float = 2.0) -> bool:
        return self.same_size and self.changed <= changed and self.mean <= mean


def compare(a: Image.Image, b: Image.Image, tolerance: int = 48, blur: float = 0.0) -> Difference:
    """How `b` differs from `a`. `blur` (a radius in pixels) first softens both, so text that
    moved by a fraction of a pixel (kerning, another rasteriser) is not counted as changed."""
    if a.size != b.size:
        return Difference(1.0, 255.0, 255, False)
    if blur:
        a, b = a.filter(ImageFilter.GaussianBlur(blur)), b.filter(ImageFilter.GaussianBlur(blur))
    channels = ImageChops.difference(a, b).split()
    largest = ImageChops.lighter(ImageChops.lighter(channels[0], channels[1]), channels[2])
    histogram = largest.histogram()
    total = sum(histogram)
    changed = sum(histogram[tolerance + 1:]) / total
    mean = sum(sum(c.histogram()[v] * v for v in range(256)) for c in channels) / (3 * total)
    return Difference(changed, mean, max(v for v in range(256) if histogram[v]), True)


def compare_pdfs(before, after, dpi: float = 50, tolerance: int = 48, blur: float = 0.0,
                 only: list[int] | None = None) -> list[Difference]:
    """`compare` of every page (or the pages `only`, from 0) of two PDFs."""
    n = pages(before)
    if pages(after) != n:
        raise AssertionError(f"{n} pages before, {pages(after)} after")
    return [compare(render(before, p, dpi), render(after, p, dpi), tolerance, blur) for p in (only or range(n))]


DPI = 40   # enough to see a moved line or a changed glyph on an A4 page, small to keep


def page_images(pdf: bytes, dpi: float = DPI) -> list[Image.Image]:
    """Every page as an RGB image, `dpi` pixels per inch."""
    doc = pdfium.PdfDocument(pdf)
    try:
        return [page.render(scale=dpi / 72).to_pil().convert("RGB") for page in doc]
    finally:
        doc.close()


def page_digests(pdf: bytes, dpi: float = DPI) -> list[str]:
    """sha256 (first 16 hex) of each page's size and pixels at `dpi`."""
    return [hashlib.sha256(f"{im.size}".encode() + im.tobytes()).hexdigest()[:16]
            for im in page_images(pdf, dpi)]


@dataclass(frozen=True)
class PageDifference:
    page: int            # from 1
    what: str            # "size", "missing", "pixels"
    share: float = 0.0   # of the page's pixels that differ by more than the tolerance
    most: int = 0        # the largest difference of one channel (0-255)

    def __str__(self) -> str:
        if self.what != "pixels":
            return f"page {self.page}: {self.what}"
        return f"page {self.page}: {self.share:.2%} of its pixels differ (by up to {self.most}/255)"


def differences(old: bytes, new: bytes, dpi: float = DPI, tolerance: int = 0,
                share: float = 0.0) -> list[PageDifference]:
    """The pages of `new` that differ from those of `old`: a different count or size, or
    more than `share` of the pixels differing by more than `tolerance` in a channel."""
    before, after = page_images(old, dpi), page_images(new, dpi)
    found = [PageDifference(n, "missing") for n in range(min(len(before), len(after)) + 1,
                                                         max(len(before), len(after)) + 1)]
    for n, (a, b) in enumerate(zip(before, after), start=1):
        d = compare(a, b, tolerance)
        if not d.same_size:
            found.append(PageDifference(n, "size"))
        elif d.changed > share:
            found.append(PageDifference(n, "pixels", d.changed, d.largest))
    return sorted(found, key=lambda d: d.page)


def side_by_side(a: Image.Image, b: Image.Image, path: Path) -> Path:
    """before | after | difference (amplified), as one PNG."""
    diff = ImageChops.difference(a, b.resize(a.size)).point(lambda v: min(255, v * 4))
    out = Image.new("RGB", (a.width * 3 + 20, a.height), "white")
    for n, im in enumerate((a, b.resize(a.size), ImageChops.invert(diff))):
        out.paste(im, (n * (a.width + 10), 0))
    path.parent.mkdir(parents=True, exist_ok=True)
    out.save(path)
    return path


def to_png(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, "PNG")
    return buf.getvalue()


SHIPPED = ("olympians", "meteor", "meta-olympia", "king-of-the-pitch", "metikoro")
FACES_DPI = 30


def shipped_faces(root: Path, game_id: str, dpi: float = FACES_DPI, session: Session | None = None) -> dict[str, Image.Image]:
    """The front of the first card of every deck of a game, drawn as a build draws faces
    (Jinja, text fitting, one bundle with its primer page), as images at `dpi`. `session`:
    the one whose memo renders the SVGs (say, what a build kept on disk); else a fresh one."""
    import tempfile

    from generator.data.editions import source_edition
    from generator.data.load import load_game
    from generator.draw import fonts
    from generator.draw.bundlepdf import draw_bundle, primer
    from generator.draw.render import render_svgs

    fonts.activate(Path(tempfile.mkdtemp(prefix="pnp-pages-")))   # the fontconfig plain <text> is drawn with
    game = source_edition(load_game(root, game_id, Session()))   # in the language it is written in, as a build draws it
    found = render_svgs(game, session or Session())
    first = {}
    for rc in found.cards:
        if rc.front is not None:
            first.setdefault(rc.deck.id, rc)
    items = [(f"{deck}--{rc.card.id}", found.svgs[rc.front], found.sizes[rc.front]) for deck, rc in first.items()]
    pdf, keys, problems, _ = draw_bundle(items, primer=primer([svg for _, svg, _ in items]), roots=found.roots)
    assert not problems, problems
    return {key: render(pdf, page, dpi) for page, key in enumerate(keys) if key}


def pin_shipped(root: Path) -> None:
    """Draw every shipped game's faces into tests/fixtures/pages/ (after a deliberate change)."""
    for game in SHIPPED:
        folder = root / "tests" / "fixtures" / "pages" / game
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.png"):
            old.unlink()
        for name, image in shipped_faces(root, game).items():
            image.save(folder / f"{name}.png", optimize=True)
        print(f"pinned {game}")


def main(argv=None) -> int:
    if argv is None and sys.argv[1:2] == ["--pin-shipped"]:
        pin_shipped(Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parents[1])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--dpi", type=float, default=50)
    ap.add_argument("--tolerance", type=int, default=48)
    ap.add_argument("--blur", type=float, default=0.0)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--pages", help="1-based page numbers, comma separated")
    args = ap.parse_args(argv)
    only = [int(p) - 1 for p in args.pages.split(",")] if args.pages else list(range(pages(args.before)))
    for p in only:
        a, b = render(args.before, p, args.dpi), render(args.after, p, args.dpi)
        d = compare(a, b, args.tolerance, args.blur)
        print(f"page {p + 1}: {d.changed:7.2%} of pixels changed, mean {d.mean:5.2f}, largest {d.largest}")
        if args.out:
            side_by_side(a, b, args.out / f"{Path(args.after).stem}-p{p + 1}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
