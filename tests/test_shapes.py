"""Components beyond rectangular cards, built end to end from tests/fixtures/shapes: round and
hexagonal tokens with their own cut outlines, rounded cards, a board split into glued panels
and a board in sections; the placement map, the drawn forms and the cut file agree."""
from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest

from generator.layout.grid import choose_grid, crop_marks
from generator.shapes import Outline
from generator.units import PAPERS, PT_PER_MM
from tests.conftest import edit, run
from tests.test_packing import _gap

FIXTURE = Path(__file__).parent / "fixtures" / "shapes"
BLEED = {"card": 3.0, "orb": 1.5, "hx": 2.0, "fx": 2.0, "big": 3.0, "quart": 3.0}


@pytest.fixture(scope="module")
def shapes_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("shapes")
    for name in ("cards", "templates"):
        shutil.copytree(FIXTURE / name, root / name)
    result = run(root, "build")
    assert result.exit_code == 0, result.output
    return root


def _manifest(root):
    return json.loads((root / "output" / "shapes" / "manifest.json").read_text())


def _entry(root, path):
    return next(f for f in _manifest(root)["files"] if f["path"] == path)


def _outline(p) -> Outline:
    return Outline(p["shape"], p["x_mm"], p["y_mm"], p["w_mm"], p["h_mm"], p.get("corner_mm", 0.0),
                   p.get("orientation", "pointy"))


def _drawn(page, full=False):
    """(x, y) in mm of every face form placed on the page, in drawing order (or its whole
    `cm` matrix in pt with `full`)."""
    out, matrix = [], None
    for operands, op in pikepdf.parse_content_stream(page):
        if str(op) == "cm":
            matrix = [float(v) for v in operands]
        elif str(op) == "Do" and str(operands[0]).startswith("/Face"):
            out.append(tuple(matrix) if full else (matrix[4] / PT_PER_MM, matrix[5] / PT_PER_MM))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_manifest_carries_every_shape_and_counts(shapes_root, paper):
    info = _entry(shapes_root, f"shapes-sheets-{paper}.pdf")
    fronts = [p for p in info["placements"] if p["side"] == "front"]
    shapes = {p["id"]: (p["shape"], p.get("orientation"), p.get("corner_mm")) for p in fronts}
    assert shapes == {"card": ("rounded", None, 3.0), "orb": ("circle", None, None), "hx": ("hex", "pointy", None),
                      "fx": ("hex", "flat", None), "big": ("rect", None, None), "quart": ("rect", None, None),
                      "d12-red": ("polygon", None, None), "d6-blue": ("polygon", None, None),
                      "d8-like": ("polygon", None, None), "d8-green": ("polygon", None, None),
                      "hero-a": ("rect", None, None), "hero-b": ("rect", None, None)}
    faces = {i: sorted(p["face"] for p in fronts if p["id"] == i) for i in ("d12-red", "d6-blue", "d8-green")}
    assert faces == {"d12-red": list(range(1, 13)), "d6-blue": list(range(1, 7)), "d8-green": list(range(1, 9))}
    assert sorted(p["standee"] for p in fronts if p["id"] == "hero-a") == ["back", "front"]
    counts = {c["id"]: c["count"] for c in info["components"]}
    for card in ("card", "orb", "hx", "fx"):
        assert sum(1 for p in fronts if p["id"] == card) == counts[card]
    backs = [p for p in info["placements"] if p["side"] == "back"]
    assert {p["id"] for p in backs} == {"card", "orb", "fx"}  # hx and the boards have no back


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_placements_match_the_drawn_forms(shapes_root, paper):
    name = f"shapes-sheets-{paper}.pdf"
    info = _entry(shapes_root, name)
    pdf = pikepdf.open(shapes_root / "output" / "shapes" / name)
    assert len(pdf.pages) == info["pages"]
    for number, page in enumerate(pdf.pages, start=1):
        placed = [p for p in info["placements"] if p["page"] == number]
        drawn = _drawn(page)
        assert len(drawn) == len(placed)
        for (x, y), p in zip(drawn, placed):
            if "die" in p or "standee" in p:
                continue  # turned onto their polygons: test_die_faces_are_drawn_onto_their_net_polygons
            # a face's lower-left corner is its trim corner less the bleed (a board: its region's origin)
            fx = p["x_mm"] - p.get("board_x_mm", 0) - BLEED[p["id"]]
            fy = p["y_mm"] - p.get("board_y_mm", 0) - BLEED[p["id"]]
            assert abs(x - fx) < 0.01 and abs(y - fy) < 0.01, (number, p)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_round_and_hex_cut_paths_never_touch(shapes_root, paper):
    info = _entry(shapes_root, f"shapes-sheets-{paper}.pdf")
    by_page = {}
    for p in info["placements"]:
        if p["side"] == "front" and p["shape"] in ("circle", "hex"):
            by_page.setdefault(p["page"], []).append(_outline(p))
    assert len(by_page) >= 3
    page_w, page_h = PAPERS[paper]
    for outlines in by_page.values():
        for i, a in enumerate(outlines):
            assert 0 < a.x and a.x + a.w < page_w and 0 < a.y and a.y + a.h < page_h
            for b in outlines[i + 1:]:
                assert _gap(a, b) > 1.0


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_cut_file_holds_exactly_the_placement_map(shapes_root, paper):
    info = _entry(shapes_root, f"shapes-sheets-{paper}.pdf")
    cut = _entry(shapes_root, f"shapes-cut-{paper}.svg")
    tree = ET.parse(shapes_root / "output" / "shapes" / f"shapes-cut-{paper}.svg")
    ns = {"s": "http://www.w3.org/2000/svg"}
    layers = tree.getroot().findall("s:g", ns)
    front_pages = sorted({p["page"] for p in info["placements"] if p["side"] == "front"})
    kits = {p["page"] for p in info["placements"] if "die" in p or "standee" in p}
    assert [int(g.get("id").split("-")[1]) for g in layers] == front_pages
    assert cut["pages"] == len(layers)
    for layer in layers:
        number = int(layer.get("id").split("-")[1])
        fronts = [p for p in info["placements"] if p["page"] == number and p["side"] == "front"]
        paths = layer.findall("s:path", ns)
        if number in kits:  # one cut path around each die net or standee, enclosing its faces
            assert [p.get("data-id") for p in paths] == list(dict.fromkeys(p["id"] for p in fronts))
            continue
        assert [p.get("data-id") for p in paths] == [p["id"] for p in fronts]
        height = _page_height(shapes_root, paper, number)
        for path, p in zip(paths, fronts):
            assert path.get("data-shape") == p["shape"]
            nums = [float(v) for v in re.findall(r"-?\d+\.?\d*", path.get("d"))]
            xs, ys = nums[0::2], nums[1::2]
            # the path's extent is the trim box (y measured down from the top of the page)
            assert abs(min(xs) - p["x_mm"]) < 0.01 and abs(max(xs) - (p["x_mm"] + p["w_mm"])) < 0.01
            assert abs(min(ys) - (height - p["y_mm"] - p["h_mm"])) < 0.01
            assert abs(max(ys) - (height - p["y_mm"])) < 0.01


def _page_height(root, paper, number):
    pdf = pikepdf.open(root / "output" / "shapes" / f"shapes-sheets-{paper}.pdf")
    return float(pdf.pages[number - 1].MediaBox[3]) / PT_PER_MM


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_board_panels_reassemble_the_board(shapes_root, paper):
    info = _entry(shapes_root, f"shapes-sheets-{paper}.pdf")
    panels = [p for p in info["placements"] if p["id"] == "big"]
    assert len(panels) == panels[0]["panels"] >= 4
    # each panel shows its region of the board; together they cover 400 x 550 mm
    regions = [(p["board_x_mm"], p["board_y_mm"], p["w_mm"], p["h_mm"]) for p in panels]
    assert min(r[0] for r in regions) == 0 and max(r[0] + r[2] for r in regions) == pytest.approx(400, abs=0.1)
    assert min(r[1] for r in regions) == 0 and max(r[1] + r[3] for r in regions) == pytest.approx(550, abs=0.1)
    (width,) = {round(r[2], 3) for r in regions}  # panels of one size...
    xs = sorted({r[0] for r in regions})
    assert all(abs((a + width) - b - 10) < 0.01 for a, b in zip(xs, xs[1:]))  # ...overlapping by 10 mm
    sections = [p for p in info["placements"] if p["id"] == "quart"]
    assert sorted((p["board_x_mm"], p["board_y_mm"], p["w_mm"], p["h_mm"]) for p in sections) == [
        (0, 0, 175, 175), (0, 175, 175, 175), (175, 0, 175, 175), (175, 175, 175, 175)]


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_token_backs_register_behind_their_fronts(shapes_root, paper):
    info = _entry(shapes_root, f"shapes-sheets-{paper}.pdf")
    page_w = PAPERS[paper][0]
    fronts = [p for p in info["placements"] if p["side"] == "front" and p["id"] in ("orb", "fx", "card")]
    backs = [p for p in info["placements"] if p["side"] == "back"]
    assert len(fronts) == len(backs)
    for f, b in zip(fronts, backs):
        assert b["id"] == f["id"] and b["page"] == f["page"] + 1 and b["shape"] == f["shape"]
        assert abs((page_w - b["x_mm"] - b["w_mm"]) - f["x_mm"]) < 0.01 and abs(b["y_mm"] - f["y_mm"]) < 0.01


def test_token_back_pixels_land_behind_the_fronts(shapes_root):
    """A front page of discs and its back page mirrored: the discs cover the same pixels."""
    doc = pdfium.PdfDocument(shapes_root / "output" / "shapes" / "shapes-sheets-a4.pdf")
    info = _entry(shapes_root, "shapes-sheets-a4.pdf")
    page = next(p["page"] for p in info["placements"] if p["id"] == "orb")
    front = doc[page - 1].render(scale=0.5).to_pil().convert("L")
    back = doc[page].render(scale=0.5).to_pil().convert("L").transpose(0)
    inked_f = {(x, y) for x in range(front.width) for y in range(front.height) if front.getpixel((x, y)) < 245}
    inked_b = {(x, y) for x in range(back.width) for y in range(back.height) if back.getpixel((x, y)) < 245}
    assert len(inked_b) > 1000
    assert len(inked_f ^ inked_b) / len(inked_b) < 0.08


def test_crop_marks_only_where_cards_are():
    """Eleven cards: the second page holds two; no mark runs down its empty rows."""
    g = choose_grid("a4", 63, 88, 3)
    full, partial = crop_marks(g), crop_marks(g, filled=2)
    assert len(full) == 2 * len(g.cut_lines()[0]) + 2 * len(g.cut_lines()[1])
    top_row = g.trim_box(0)
    horizontal = {round(m[1], 3) for m in partial if m[1] == m[3]}
    vertical = {round(m[0], 3) for m in partial if m[0] == m[2]}
    assert horizontal == {round(top_row[1], 3), round(top_row[1] + 88, 3)}
    assert len(vertical) == 3 and len(partial) == 2 * 3 + 2 * 2
    for x1, y1, x2, y2 in partial:  # each mark starts next to a card on the page
        assert min(y1, y2) >= top_row[1] - 3 - 5 - 1e-6


def test_partial_rows_keep_their_outer_bleed():
    g = choose_grid("a4", 63, 88, 3)
    assert g.gutter == 0
    x, y, w, h = g.clip_box(0, filled=1)   # alone on the page: full bleed all round
    tx, ty, tw, th = g.trim_box(0)
    assert (round(tx - x, 6), round(ty - y, 6), round(w - tw, 6), round(h - th, 6)) == (3, 3, 6, 6)
    x, y, w, h = g.clip_box(0)  # with neighbours: cut back on the shared lines
    assert round(w - tw, 6) == 3 and round(h - th, 6) == 3


@pytest.mark.slow
def test_builds_of_shapes_are_byte_identical(shapes_root, tmp_path):
    out = tmp_path / "again"
    assert run(shapes_root, "build", "--output", str(out)).exit_code == 0
    for f in (shapes_root / "output" / "shapes").iterdir():
        assert (out / "shapes" / f.name).read_bytes() == f.read_bytes(), f.name


def test_list_shows_shapes_and_sizes(shapes_root):
    result = run(shapes_root, "list")
    assert result.exit_code == 0
    assert "orbs: Orbs, 80 x 25 mm circle" in result.output
    assert "hexes: Hexes, 30 x 40 x 46.2 mm hex (pointy-top)" in result.output  # sizes to one decimal
    assert "quarters: Quartered board, 1 x 350 x 350 mm board in 2 x 2 sections" in result.output


@pytest.mark.slow
@pytest.mark.parametrize("file, old, new, message", [
    ("orbs.yaml", "height: 25mm", "height: 26mm", "orbs.yaml:5: size: a circle needs width = height"),
    ("hexes.yaml", "height: 46.188mm", "height: 40mm", "a pointy-top hexagon 40 mm wide is 46.19 mm tall"),
    ("board.yaml", "back: null", "back: tokback.svg.j2", "a board prints one side only"),
    ("quarters.yaml", "cols: 2, rows: 2", "cols: 1, rows: 2", "section (board 350 x 350 mm in 1 x 2) does not fit"),
    ("orbs.yaml", "shape: circle", "shape: circle\noverlap: 5mm", "'overlap' applies to kind: board only"),
    ("hexes.yaml", "size: {width: 40mm, height: 46.188mm}", "size: {width: 400mm, height: 461.88mm}",
     "kind: board to split it across pages"),
])
def test_shape_mistakes_are_clear_errors(tmp_path, file, old, new, message):
    for name in ("cards", "templates"):
        shutil.copytree(FIXTURE / name, tmp_path / name)
    edit(tmp_path / "cards" / "shapes" / file, old, new)
    result = run(tmp_path, "build", "--paper", "a4")
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def _apply(m, x, y):
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def test_die_faces_are_drawn_onto_their_net_polygons(shapes_root):
    """Each die face form, drawn through its matrix, lands exactly on the polygon the manifest
    gives for that face, and prints that face's data: the printed die matches its data."""
    from generator.layout.dicenet import face_box
    name = "shapes-sheets-a4.pdf"
    info = _entry(shapes_root, name)
    pdf = pikepdf.open(shapes_root / "output" / "shapes" / name)
    doc = pdfium.PdfDocument(shapes_root / "output" / "shapes" / name)
    checked = 0
    for die, edge in (("d12", 16), ("d6", 18), ("d8", 24)):
        w, h, outline = face_box(die, edge, 1.0)
        for p in [p for p in info["placements"] if p.get("die") == die]:
            page = pdf.pages[p["page"] - 1]
            placed = [q for q in info["placements"] if q["page"] == p["page"]]
            m = _drawn(page, full=True)[placed.index(p)]
            # face coordinates (mm, y down) -> form points (y up) -> page points -> mm
            got = [_apply(m, x * PT_PER_MM, (h - y) * PT_PER_MM) for x, y in outline]
            got = [(x / PT_PER_MM, y / PT_PER_MM) for x, y in got]
            for gx, gy in got:  # every corner of the drawn face is a corner of the face's polygon
                assert min(abs(gx - x) + abs(gy - y) for x, y in p["points"]) < 0.01, p
            assert len(p["points"]) == len(outline)
            # the face's text is the die's data for that face, inside its polygon
            text = doc[p["page"] - 1].get_textpage()
            cx = sum(x for x, _ in p["points"]) / len(p["points"]) * PT_PER_MM
            cy = sum(y for _, y in p["points"]) / len(p["points"]) * PT_PER_MM
            inradius = {"d6": 0.5, "d8": 0.2887, "d12": 0.6882}[die] * edge
            r = 0.8 * inradius * PT_PER_MM
            inside = text.get_text_bounded(cx - r, cy - r, cx + r, cy + r).strip()
            data = {"d12-red": [str(i) for i in range(1, 13)], "d6-blue": [str(i) for i in range(1, 7)],
                    "d8-like": list("ABCDEF"), "d8-green": [str(i) for i in range(1, 9)]}[p["id"]]
            assert inside == data[p["face"] - 1], (p["id"], p["face"], inside)
            checked += 1
    assert checked == 12 + 6 + 6 + 8


def test_standee_back_is_the_front_turned_about_the_fold(shapes_root):
    info = _entry(shapes_root, "shapes-sheets-a4.pdf")
    for hero in ("hero-a", "hero-b"):
        front, back = (next(p for p in info["placements"] if p["id"] == hero and p["standee"] == s)
                       for s in ("front", "back"))
        assert front["page"] == back["page"] and (front["w_mm"], front["h_mm"]) == (back["w_mm"], back["h_mm"])
        # the two arts touch along the fold line (heads together), side by side or one above the other
        touching_x = abs(front["x_mm"] + front["w_mm"] - back["x_mm"]) < 0.01 or \
            abs(back["x_mm"] + back["w_mm"] - front["x_mm"]) < 0.01
        touching_y = abs(front["y_mm"] - back["y_mm"] - back["h_mm"]) < 0.01 or \
            abs(back["y_mm"] - front["y_mm"] - front["h_mm"]) < 0.01
        assert touching_x or touching_y
