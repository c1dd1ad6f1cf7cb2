"""Home print modes: short-edge duplex, gutter-fold, fronts only, the back offset, any paper.
Each is checked in the placement map and in what the PDF draws (read from its content stream)."""
from __future__ import annotations

import json

import pikepdf
import pytest

from generator.units import PT_PER_MM, paper_size
from tests.conftest import run
from tests.test_exports import SHARED_BACK, make_game
from tests.test_sheets import placed_forms

MM = PT_PER_MM
TOL = 0.01  # mm


@pytest.fixture
def game(tmp_path):
    """Eleven poker cards (2.5 x 3.5 in, 1/8 in bleed): two sheets on A4."""
    return make_game(tmp_path / "proj", [(f"c{i}", 1) for i in range(11)])


def build(root, *args):
    result = run(root, "build", "ex", "--paper", "a4", *args)
    assert result.exit_code == 0, result.output
    folder = root / "output" / "ex"
    manifest = json.loads((folder / "manifest.json").read_text())
    entry = next(f for f in manifest["files"] if f["kind"] == "sheets")
    return entry, pikepdf.open(folder / entry["path"])


def drawn(page):
    """(a, d, x, y, w, h) of every face drawn on a page: the cm matrix's scale and the mm box
    the face's form covers once placed (turned faces included)."""
    out = []
    for _, (a, b, c, d, e, f), (x0, y0, x1, y1) in placed_forms(page):
        xs = sorted((e + a * x0, e + a * x1))
        ys = sorted((f + d * y0, f + d * y1))
        out.append((a, d, xs[0] / MM, ys[0] / MM, (xs[1] - xs[0]) / MM, (ys[1] - ys[0]) / MM))
    return out


def by_page(entry):
    pages = {}
    for p in entry["placements"]:
        pages.setdefault(p["page"], []).append(p)
    return pages


def check_drawing_matches(entry, pdf, bleed=3.175):
    """Every placement is drawn where the map says: the face's box is its trim box grown by the bleed."""
    pages = by_page(entry)
    for number, page in enumerate(pdf.pages, start=1):
        faces = drawn(page)
        placed = pages.get(number, [])
        assert len(faces) == len(placed)
        for (a, d, x, y, w, h), p in zip(faces, placed):
            assert (a, d) == ((-1, -1) if p.get("turned") == 180 else (1, 1))
            assert abs(x + bleed - p["x_mm"]) < TOL and abs(y + bleed - p["y_mm"]) < TOL
            assert abs(w - 2 * bleed - p["w_mm"]) < TOL and abs(h - 2 * bleed - p["h_mm"]) < TOL


def fronts_and_backs(entry):
    fronts = {(p["page"], p["id"]): p for p in entry["placements"] if p["side"] == "front"}
    backs = {p["id"]: p for p in entry["placements"] if p["side"] == "back"}
    return fronts, backs


def test_long_edge_is_the_default_and_backs_mirror_columns(game):
    entry, pdf = build(game)
    assert entry["mode"] == "duplex-long" and entry["back_offset_mm"] == [0, 0]
    w, _ = paper_size("a4")
    for (_, cid), f in fronts_and_backs(entry)[0].items():
        b = fronts_and_backs(entry)[1][cid]
        assert abs(b["x_mm"] - (w - f["x_mm"] - f["w_mm"])) < TOL and abs(b["y_mm"] - f["y_mm"]) < TOL
    check_drawing_matches(entry, pdf)


def test_short_edge_backs_register_after_a_flip_on_the_short_edge(game):
    entry, pdf = build(game, "--mode", "duplex-short")
    assert entry["mode"] == "duplex-short"
    _, h = paper_size("a4")
    fronts, backs = fronts_and_backs(entry)
    assert len(backs) == 11
    for (page, cid), f in fronts.items():
        b = backs[cid]
        assert b["page"] == page + 1 and b.get("turned") == 180
        # flipped over the short (horizontal) edge: x stays, y mirrors about the page's middle
        assert abs(b["x_mm"] - f["x_mm"]) < TOL
        assert abs(b["y_mm"] - (h - f["y_mm"] - f["h_mm"])) < TOL
    check_drawing_matches(entry, pdf)
    # the back page's crop marks are turned with it: its marks are the front page's, mirrored in y
    for number in (2, 4):
        back_page = pdf.pages[number - 1]
        assert any(a == -1 and d == -1 for a, d, *_ in drawn(back_page))


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["duplex-long", "duplex-short"])
def test_back_offset_moves_backs_by_exactly_that_much(game, mode):
    plain, plain_pdf = build(game, "--mode", mode)
    moved, moved_pdf = build(game, "--mode", mode, "--back-offset", "0.5,-0.3")
    assert moved["back_offset_mm"] == [0.5, -0.3]
    for p0, p1 in zip(plain["placements"], moved["placements"]):
        assert (p0["id"], p0["side"], p0["page"]) == (p1["id"], p1["side"], p1["page"])
        dx, dy = (0.5, -0.3) if p0["side"] == "back" else (0.0, 0.0)
        assert abs(p1["x_mm"] - p0["x_mm"] - dx) < 1e-6 and abs(p1["y_mm"] - p0["y_mm"] - dy) < 1e-6
    # and in the drawing: every back form placed 0.5 mm right and 0.3 mm lower, fronts untouched
    for page0, page1, side in zip(plain_pdf.pages, moved_pdf.pages, ["front", "back"] * 2):
        for f0, f1 in zip(drawn(page0), drawn(page1)):
            dx, dy = (0.5, -0.3) if side == "back" else (0.0, 0.0)
            assert abs(f1[2] - f0[2] - dx) < 1e-3 and abs(f1[3] - f0[3] - dy) < 1e-3
    check_drawing_matches(moved, moved_pdf)


def test_back_offset_from_game_yaml(game):
    path = game / "cards" / "ex" / "game.yaml"
    path.write_text(path.read_text() + "print:\n  back_offset: {x: -1.2, y: 0.4}\n")
    entry, _ = build(game)
    assert entry["back_offset_mm"] == [-1.2, 0.4]


def test_gutter_fold_backs_mirror_their_fronts_about_the_fold(game):
    entry, pdf = build(game, "--mode", "gutter-fold")
    assert entry["mode"] == "gutter-fold"
    long, short = 297.0, 210.0
    fold = long / 2
    fronts, backs = fronts_and_backs(entry)
    assert len(fronts) == len(backs) == 11
    for (page, cid), f in fronts.items():
        b = backs[cid]
        assert b["page"] == page, "a card's back is on the same page as its front"
        assert f["x_mm"] + f["w_mm"] <= fold - 2 and b["x_mm"] >= fold + 2, "fronts left, backs right of the fold"
        # the mirror image about the fold: same distance from it, same height
        assert abs((fold - (f["x_mm"] + f["w_mm"])) - (b["x_mm"] - fold)) < TOL
        assert abs(b["y_mm"] - f["y_mm"]) < TOL and b.get("turned") is None
    for page in pdf.pages:
        assert [float(v) for v in page.MediaBox] == pytest.approx([0, 0, long * MM, short * MM], abs=0.01)
    check_drawing_matches(entry, pdf)
    # the dashed fold line is drawn at the middle of the landscape page
    content = pdf.pages[0].Contents.read_bytes() if isinstance(pdf.pages[0].Contents, pikepdf.Stream) else b""
    ops = list(pikepdf.parse_content_stream(pdf.pages[0]))
    dashes = [i for i, (_, op) in enumerate(ops) if str(op) == "d" and len(ops[i][0][0]) > 0]
    assert dashes, content[:200]
    moves = [[float(v) for v in operands] for operands, op in ops[dashes[0]:] if str(op) == "m"]
    assert any(abs(x - fold * MM) < 0.05 for x, _ in moves)


def test_gutter_fold_cut_file_cuts_the_fronts_only(game):
    build(game, "--mode", "gutter-fold")
    svg = (game / "output" / "ex" / "ex-cut-a4.svg").read_text()
    assert svg.count("<path") == 11


def test_fronts_only_prints_no_backs(game):
    entry, pdf = build(game, "--mode", "fronts-only")
    assert {p["side"] for p in entry["placements"]} == {"front"}
    assert len(pdf.pages) == 2
    check_drawing_matches(entry, pdf)


def test_offset_needs_a_duplex_mode(game):
    result = run(game, "build", "ex", "--mode", "gutter-fold", "--back-offset", "1,0")
    assert result.exit_code == 2 and "back_offset" in result.output


@pytest.mark.slow
@pytest.mark.parametrize("paper, size", [("a3", (297, 420)), ("tabloid", (279.4, 431.8)), ("legal", (215.9, 355.6)),
                                         ("a5", (148, 210)), ("300x400mm", (300, 400)), ("11x17in", (279.4, 431.8))])
def test_any_paper_size(tmp_path, paper, size):
    root = make_game(tmp_path / "proj", [("a", 1), ("b", 1)], back=SHARED_BACK)
    result = run(root, "build", "ex", "--paper", paper)
    assert result.exit_code == 0, result.output
    name = {"11x17in": "279.4x431.8mm"}.get(paper, paper)
    pdf = pikepdf.open(root / "output" / "ex" / f"ex-sheets-{name}.pdf")
    box = [float(v) for v in pdf.pages[0].MediaBox]
    assert box[2] == pytest.approx(size[0] * MM, abs=0.01) and box[3] == pytest.approx(size[1] * MM, abs=0.01)


def test_custom_paper_in_game_yaml_and_bad_paper(tmp_path):
    root = make_game(tmp_path / "proj", [("a", 1)])
    path = root / "cards" / "ex" / "game.yaml"
    path.write_text(path.read_text() + "print:\n  papers: [a4, {width: 20cm, height: 25cm}]\n  mode: duplex-short\n")
    result = run(root, "build", "ex")
    assert result.exit_code == 0, result.output
    manifest = json.loads((root / "output" / "ex" / "manifest.json").read_text())
    sheets = {f["paper"]: f for f in manifest["files"] if f["kind"] == "sheets"}
    assert set(sheets) == {"a4", "200x250mm"} and sheets["a4"]["mode"] == "duplex-short"
    result = run(root, "build", "ex", "--paper", "b7")
    assert result.exit_code == 2 and "unknown paper" in result.output


# --- the duplex calibration page ------------------------------------------------------------

def _ink_box(pdf_path, page, region_mm):
    """Bounding box (mm) of the dark pixels of a page inside region_mm (x0, y0, x1, y1 from the top-left)."""
    import pypdfium2 as pdfium
    px_per_mm = 10
    image = pdfium.PdfDocument(str(pdf_path))[page].render(scale=px_per_mm * 25.4 / 72).to_pil().convert("L")
    x0, y0, x1, y1 = (int(v * px_per_mm) for v in region_mm)
    box = image.crop((x0, y0, x1, y1)).point(lambda v: 255 if v < 128 else 0).getbbox()
    return tuple(v / px_per_mm for v in box)


def test_calibration_points_register_under_both_flips():
    from generator.layout.calibration import points
    w, h = paper_size("letter")
    pts = {(round(x, 6), round(y, 6)) for x, y in points(w, h)}
    assert {(round(w - x, 6), y) for x, y in pts} == pts    # long-edge flip
    assert {(x, round(h - y, 6)) for x, y in pts} == pts    # short-edge flip


@pytest.mark.parametrize("mode", ["duplex-long", "duplex-short"])
def test_calibration_offset_moves_the_back_scales_exactly(tmp_path, mode):
    root = make_game(tmp_path / "proj", [("a", 1)])
    paths = []
    for offset in ("0,0", "2,-1.5"):
        out = tmp_path / offset.replace(",", "_")
        result = run(root, "calibrate", "--paper", "a4", "--mode", mode, "--back-offset", offset, "--output", str(out))
        assert result.exit_code == 0, result.output
        paths.append(out / "calibration" / f"calibration-a4-{mode}.pdf")
    pdf = pikepdf.open(paths[1])
    assert len(pdf.pages) == 2
    assert [float(v) for v in pdf.pages[0].MediaBox] == pytest.approx([0, 0, 210 * MM, 297 * MM], abs=0.01)
    # the upper part of the back (scales only, no text): its ink moves 2 mm right and 1.5 mm down
    region = (10, 10, 200, 200)
    x0, y0, x1, y1 = _ink_box(paths[0], 1, region)
    u0, v0, u1, v1 = _ink_box(paths[1], 1, region)
    assert (u0 - x0, u1 - x1) == pytest.approx((2.0, 2.0), abs=0.11)
    assert (v0 - y0, v1 - y1) == pytest.approx((1.5, 1.5), abs=0.11)   # y down in the image
    # the front does not move
    assert _ink_box(paths[0], 0, region) == _ink_box(paths[1], 0, region)


def test_calibration_is_for_duplex_only(tmp_path):
    root = make_game(tmp_path / "proj", [("a", 1)])
    result = run(root, "calibrate", "--mode", "gutter-fold")
    assert result.exit_code == 2


@pytest.mark.slow
def test_gutter_fold_names_the_half_page_when_a_card_is_too_big(tmp_path):
    root = make_game(tmp_path / "proj", [("a", 1)], deck_extra="size: {width: 150mm, height: 180mm}\n")
    result = run(root, "build", "ex", "--paper", "a4", "--mode", "gutter-fold")
    assert result.exit_code == 2
    assert "cards/ex/deck.yaml" in result.output and "half a A4 page" in result.output
    assert run(root, "build", "ex", "--paper", "a4").exit_code == 0  # duplex: it fits the whole page
