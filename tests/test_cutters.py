"""Print-then-cut: each machine's registration marks at their published places (the geometry
alone, then on the printed page, read back as pixels, and in the cut files), components
inside the machine's area and clear of the marks, backs still behind their fronts."""
from __future__ import annotations

import json
import re

import pypdfium2 as pdfium
import pytest

from generator.layout.cutters import CRICUT_AREA, CutterError, cutter_sheet
from generator.units import paper_size
from tests.conftest import kit_of, run
from tests.test_exports import make_game

LETTER, A4 = paper_size("letter"), paper_size("a4")


def boxes(sheet):
    return {(m.kind, m.corner): (m.x, m.y, m.w, m.h) for m in sheet.marks}


def test_silhouette_type_1_marks_at_studios_places():
    for w, h in (LETTER, A4):
        sheet = cutter_sheet("silhouette", "x", w, h)
        marks = boxes(sheet)
        assert marks[("square", "top-left")] == (10, h - 15, 5, 5)      # 5 mm square, its corner 10 mm in
        x, y, bw, bh = marks[("corner", "top-right")]                   # L: outer corner 10 mm in, 20 mm arms
        assert (round(x + bw - 0.25, 6), round(y + bh - 0.25, 6)) == (round(w - 10, 6), round(h - 10, 6))
        assert round(bw, 6) == round(bh, 6) == 20.25
        x, y, bw, bh = marks[("corner", "bottom-left")]
        assert (x + 0.25, y + 0.25) == (10, 10) and bw == bh == 20.25
        assert len(sheet.marks) == 3   # nothing in the bottom-right corner
        for ax, ay, aw, ah in sheet.areas:   # centred, so duplex backs still register
            assert abs(ax + aw / 2 - w / 2) < 1e-9 and abs(ay + ah / 2 - h / 2) < 1e-9
            assert ax >= 10 and ay >= 10


def test_cricut_border_around_the_print_then_cut_area_on_letter_and_a4_only():
    for w, h in (LETTER, A4):
        sheet = cutter_sheet("cricut", "x", w, h)
        (area,) = sheet.areas
        assert area[2:] == pytest.approx((6.75 * 25.4, 9.25 * 25.4)) == CRICUT_AREA
        assert area[0] == pytest.approx((w - area[2]) / 2) and area[1] == pytest.approx((h - area[3]) / 2)
        (border,) = sheet.marks
        assert border.kind == "border" and border.x < area[0] and border.x + border.w > area[0] + area[2]
    with pytest.raises(CutterError, match="Letter or A4"):
        cutter_sheet("cricut", "a5", *paper_size("a5"))


def test_scanncut_bullseyes_12_and_13_98_mm_from_the_edges():
    w, h = A4
    sheet = cutter_sheet("scanncut", "a4", w, h)
    centres = {m.corner: next((s[1], s[2]) for s in m.shapes if s[0] == "disc") for m in sheet.marks}
    assert centres == {"top-left": (12, h - 13.98), "top-right": (w - 12, h - 13.98),
                       "bottom-right": (w - 12, 13.98), "bottom-left": (12, 13.98)}


def dark(image, x_mm, y_mm, page_h, scale):
    """Is the pixel at (x, y) mm (from the lower-left) dark?"""
    px = image.getpixel((int(x_mm / 25.4 * 72 * scale), int((page_h - y_mm) / 25.4 * 72 * scale)))
    return sum(px[:3]) < 200


@pytest.fixture
def game(tmp_path):
    return make_game(tmp_path / "proj", [(f"c{i}", 1) for i in range(7)])


def built(root, *args):
    result = run(root, "build", "ex", *args)
    assert result.exit_code == 0, result.output
    folder = root / "output" / "ex"
    manifest = json.loads((folder / "manifest.json").read_text())
    return folder, manifest


@pytest.mark.slow
@pytest.mark.parametrize("machine,paper", [("silhouette", "letter"), ("cricut", "a4"), ("scanncut", "letter")])
def test_marks_print_where_the_geometry_says_and_the_cut_files_agree(game, machine, paper):
    folder, manifest = built(game, "--paper", paper, "--cutter", machine)
    w, h = paper_size(paper)
    sheet = cutter_sheet(machine, paper, w, h)
    entry = next(f for f in manifest["files"] if f["kind"] == "sheets")
    assert entry["cutter"] == machine and entry["registration"] == [m.manifest() for m in sheet.marks]
    # on paper: render page 1 (fronts) and page 2 (backs); the marks are ink on fronts only
    scale = 4
    doc = pdfium.PdfDocument(str(folder / entry["path"]))
    fronts, backs = (doc[n].render(scale=scale).to_pil().convert("RGB") for n in (0, 1))
    doc.close()
    for mark in sheet.marks:
        for shape in mark.shapes:
            if shape[0] == "rect":
                _, x, y, rw, rh = shape
                probe = (x + rw / 2, y + rh / 2)
            elif shape[0] == "disc":
                probe = shape[1:3]
            else:   # in the ring's ink, and in the white gap inside it
                probe = (shape[1] + (shape[3] + shape[4]) / 2, shape[2])
                assert not dark(fronts, shape[1] + shape[3] - 0.5, shape[2], h, scale)
            assert dark(fronts, *probe, h, scale), (mark.kind, shape)
            assert not dark(backs, *probe, h, scale)
    if machine == "silhouette":   # just outside the square: paper
        assert not dark(fronts, 10 - 1.0, h - 12.5, h, scale) and not dark(fronts, 16.0, h - 12.5, h, scale)
    # every face inside the machine's area and clear of the marks; backs behind their fronts
    fronts_at = {p["id"]: p for p in entry["placements"] if p["side"] == "front"}
    for p in entry["placements"]:
        box = (p["x_mm"] - 3.175, p["y_mm"] - 3.175, p["w_mm"] + 6.35, p["h_mm"] + 6.35)
        assert sheet.clear_of_marks(box)
        assert any(box[0] >= ax - 1e-6 and box[1] >= ay - 1e-6 and box[0] + box[2] <= ax + aw + 1e-6
                   and box[1] + box[3] <= ay + ah + 1e-6 for ax, ay, aw, ah in sheet.areas)
        if p["side"] == "back":
            f = fronts_at[p["id"]]
            assert abs(p["x_mm"] - (w - f["x_mm"] - f["w_mm"])) < 0.01 and abs(p["y_mm"] - f["y_mm"]) < 0.01
    # the cut SVG: a layer of the same marks (y down) before the cut paths
    svg = (folder / f"ex-cut-{paper}.svg").read_text()
    layer = svg[svg.index('id="registration"'):svg.index("</g>")]
    rects = [tuple(float(v) for v in m) for m in
             re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="#000000"', layer)]
    want = [(s[1], h - s[2] - s[4], s[3], s[4]) for m in sheet.marks for s in m.shapes if s[0] == "rect"]
    assert [v for r in rects for v in r] == pytest.approx([v for r in want for v in r], abs=0.001)
    assert svg.index('id="registration"') < svg.index('id="page-1"')
    dxfs = sorted(folder.glob(f"ex-cut-{paper}-sheet*.dxf"))
    if machine == "silhouette":   # Studio's Basic Edition opens DXF: the same marks and cuts
        assert [d.name for d in dxfs] == [f"ex-cut-{paper}-sheet{n}.dxf" for n in range(1, len(dxfs) + 1)]
        text = dxfs[0].read_text().split("\n")
        assert text[:4] == ["0", "SECTION", "2", "HEADER"] and text[-2:] == ["EOF", ""]
        vertices = [(float(text[i + 4]), float(text[i + 6])) for i in range(len(text) - 6)
                    if text[i] == "VERTEX" and text[i + 2] == "REGISTRATION"]
        square = sheet.marks[0].shapes[0]
        assert (square[1], square[2]) in vertices and (square[1] + 5, square[2] + 5) in vertices
        cuts = [(float(text[i + 4]), float(text[i + 6])) for i in range(len(text) - 6)
                if text[i] == "VERTEX" and text[i + 2] == "CUT"]
        first = next(p for p in entry["placements"] if p["page"] == 1)
        assert (first["x_mm"], first["y_mm"]) in [(round(x, 3), round(y, 3)) for x, y in cuts]
    else:
        assert dxfs == []


@pytest.mark.slow
def test_a_cutter_needs_a_flat_sheet_and_a_paper_it_takes(game):
    result = run(game, "build", "ex", "--cutter", "silhouette", "--mode", "gutter-fold")
    assert result.exit_code == 2 and "gutter-fold" in result.output
    result = run(game, "build", "ex", "--cutter", "cricut", "--paper", "a5")
    assert result.exit_code == 2 and "Letter or A4" in result.output
    (game / "cards" / "ex" / "game.yaml").write_text("title: Ex\ndecks: [deck.yaml]\nprint: {cutter: lasercut}\n")
    result = run(game, "build", "ex")
    assert result.exit_code == 2 and "cutter" in result.output


@pytest.mark.slow
def test_game_yaml_cutter_and_the_kit_tells_players(game):
    (game / "cards" / "ex" / "game.yaml").write_text("title: Ex\ndecks: [deck.yaml]\nprint: {cutter: silhouette}\n")
    files = kit_of(game, "ex", "letter")
    names, readme = list(files), files["READ-ME.txt"].decode()
    assert "ex-cut-letter-sheet1.dxf" in names and "inset 10 mm" in readme
