"""Sheets: exact paper, placements that agree with what is drawn, duplex registration,
vector text, embedded fonts, clean PDF syntax, byte-identical rebuilds."""
from __future__ import annotations

import functools
import io
import json

import pikepdf
import pypdfium2 as pdfium
import pytest

from generator.draw.fonts import shipped
from generator.layout.grid import choose_grid
from generator.session import Session
from generator.units import PAPERS, PT_PER_MM
from tests.conftest import REPO, all_pdfs, run

MM = PT_PER_MM


def manifest(folder):
    return json.loads((folder / "manifest.json").read_text())


def entry(folder, path):
    return next(f for f in manifest(folder)["files"] if f["path"] == path)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_page_size_is_exact(olympians_build, paper):
    pdf = pikepdf.open(olympians_build / f"olympians-sheets-{paper}.pdf")
    w, h = PAPERS[paper]
    for page in pdf.pages:
        box = [float(v) for v in page.MediaBox]
        assert box[0] == 0 and box[1] == 0
        assert abs(box[2] - w * MM) < 0.01 and abs(box[3] - h * MM) < 0.01


def placed_forms(page):
    """(form name, cm matrix, form BBox) of every form a page draws, from its content stream;
    the BBox as the form's own /Matrix (a move: faces.py) puts it in the space `cm` maps."""
    forms = {str(k): v for k, v in page.Resources.XObject.items()}
    matrix = None
    for operands, op in pikepdf.parse_content_stream(page):
        if str(op) == "cm":
            matrix = [float(v) for v in operands]
        elif str(op) == "Do":
            form = forms[str(operands[0])]
            a, b, c, d, e, f = [float(v) for v in form.get("/Matrix", [1, 0, 0, 1, 0, 0])]
            assert (a, b, c, d) == (1, 0, 0, 1), "a face form only ever moves its page"
            x0, y0, x1, y1 = [float(v) for v in form.BBox]
            yield str(operands[0]), matrix, [x0 + e, y0 + f, x1 + e, y1 + f]


def drawn_faces(page):
    """(form name, x, y, w, h in mm, (b, c)) of every face placed on a page."""
    out = []
    for name, (a, b, c, d, e, f), (x0, y0, x1, y1) in placed_forms(page):
        out.append((name, (e + a * x0) / MM, (f + d * y0) / MM, a * (x1 - x0) / MM, d * (y1 - y0) / MM, (b, c)))
    return out


@functools.cache
def _decks(game) -> tuple:
    """The game's decks as loaded from its own data (read once a process: the parametrised
    tests here ask for the same game a PDF at a time; they only read it)."""
    from generator.data.load import load_game
    return load_game(REPO, game, Session()).decks


def _bleeds(game):
    """card id -> the bleed of its deck, from the game's own data."""
    return {c.id: d.bleed for d in _decks(game) for c in d.cards}


@pytest.mark.parametrize("game, name", [p for p in all_pdfs() if "-sheets-" in p[1]])
def test_placements_match_what_is_drawn(all_builds, game, name):
    folder = all_builds[game]
    info = entry(folder, name)
    pdf = pikepdf.open(folder / name)
    assert info["pages"] == len(pdf.pages)
    bleeds = _bleeds(game)
    by_page = {}
    for p in info["placements"]:
        by_page.setdefault(p["page"], []).append(p)
    for number, page in enumerate(pdf.pages, start=1):
        drawn = drawn_faces(page)
        placed = by_page.get(number, [])
        assert len(drawn) == len(placed)
        for (_, x, y, w, h, turn), p in zip(drawn, placed):
            if "die" in p or "standee" in p:
                continue  # faces turned onto polygons: tests/test_shapes.py checks their matrices
            assert turn == (0, 0), "cards, tokens and boards are placed unrotated"
            bleed = bleeds[p["id"]]
            # the face is the trim box plus its bleed on every side (a board panel: the whole board,
            # placed so that the panel's region lands in its cut box)
            assert abs(x + bleed + p.get("board_x_mm", 0) - p["x_mm"]) < 0.1
            assert abs(y + bleed + p.get("board_y_mm", 0) - p["y_mm"]) < 0.1
            if "panel" not in p:
                assert abs(w - 2 * bleed - p["w_mm"]) < 0.1 and abs(h - 2 * bleed - p["h_mm"]) < 0.1
    for card, count in ((c["id"], c["count"]) for c in info["components"]):  # every copy printed
        mine = [p for p in info["placements"] if p["id"] == card and p["side"] == "front"]
        if not mine:
            assert count == 0, card
        elif "die" in mine[0]:
            assert len(mine) == count * max(p["face"] for p in mine), card
        elif "standee" in mine[0]:
            assert len(mine) == 2 * count, card
        else:
            assert len(mine) == count * mine[0].get("panels", 1), card


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_trim_boxes_follow_the_grid_and_stay_on_paper(olympians_build, paper):
    grid = choose_grid(paper, 63, 88, 3)
    fronts = [p for p in entry(olympians_build, f"olympians-sheets-{paper}.pdf")["placements"] if p["side"] == "front"]
    page_w, page_h = PAPERS[paper]
    for i, p in enumerate(fronts):
        x, y, w, h = grid.trim_box(i % 9)
        assert abs(x - p["x_mm"]) < 0.01 and abs(y - p["y_mm"]) < 0.01
        assert p["x_mm"] - 3 >= 4 and p["x_mm"] + 63 + 3 <= page_w - 4
        assert p["y_mm"] - 3 >= 4 and p["y_mm"] + 88 + 3 <= page_h - 4


@pytest.mark.parametrize("game, name", [p for p in all_pdfs() if "-sheets-" in p[1]])
def test_every_back_lands_behind_its_front_after_a_long_edge_flip(all_builds, game, name):
    with_backs = {c.id for d in _decks(game) if d.layout == "sheet" for c in d.cards if c.back}
    info = entry(all_builds[game], name)
    page_w = PAPERS["a4" if name.endswith("-a4.pdf") else "letter"][0]
    fronts = [p for p in info["placements"] if p["side"] == "front" and p["id"] in with_backs]
    backs = [p for p in info["placements"] if p["side"] == "back"]
    assert len(fronts) == len(backs) == sum(c["count"] for c in info["components"] if c["id"] in with_backs)
    for f, b in zip(fronts, backs):
        assert b["id"] == f["id"] and b["page"] == f["page"] + 1
        # flipping over the vertical (long) edge maps x to page_w - x - w; y is unchanged
        assert abs((page_w - b["x_mm"] - b["w_mm"]) - f["x_mm"]) < 0.1
        assert abs(b["y_mm"] - f["y_mm"]) < 0.1


@pytest.mark.slow
def test_back_pixels_register_with_front_pixels(tmp_path, mini):
    """Pixel check: a front with a dot in its top-left corner and a back with the dot in its
    top-right corner line up once the back page is mirrored (as duplex printing does)."""
    front = ('<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" '
             'viewBox="0 0 {{ deck.width }} {{ deck.height }}"><rect width="100%" height="100%" fill="#fff"/>'
             '<rect x="8" y="8" width="10" height="10" fill="#f00"/></svg>')
    back = front.replace('x="8"', 'x="{{ deck.width - 18 }}"').replace("#f00", "#00f")
    root = mini("\n".join(f"- {{id: c{i}, name: C{i}, text: t}}" for i in range(5)), front=front, back=back)
    assert run(root, "build", "--paper", "a4").exit_code == 0
    doc = pdfium.PdfDocument(root / "output" / "mini" / "mini-sheets-a4.pdf")
    f = doc[0].render(scale=1).to_pil().convert("RGB")
    b = doc[1].render(scale=1).to_pil().convert("RGB").transpose(0)  # mirror left-right
    red = {(x, y) for x in range(f.width) for y in range(f.height) if f.getpixel((x, y)) == (255, 0, 0)}
    blue = {(x, y) for x in range(b.width) for y in range(b.height) if b.getpixel((x, y)) == (0, 0, 255)}
    assert len(red) > 100
    assert len(red ^ blue) / len(red) < 0.1


def test_card_text_is_vector_and_extractable(olympians_build):
    doc = pdfium.PdfDocument(olympians_build / "olympians-sheets-a4.pdf")
    text = "\n".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    for needle in ("ZEUS", "Ruler of the Sky", "CHAMPION", "of Helmets", "DEALING TABLET",
                   "Conquest", "91–119", "Pandora's Box", "must follow the led suit"):
        assert needle in text, needle
    pdf = pikepdf.open(olympians_build / "olympians-sheets-a4.pdf")
    images = [k for page in pdf.pages for k in _xobjects(page) if k.get("/Subtype") == "/Image"]
    assert images == []  # nothing was rasterised


def _xobjects(obj, seen=None):
    seen = set() if seen is None else seen
    res = obj.obj.get("/Resources") if isinstance(obj, pikepdf.Page) else obj.get("/Resources")
    for x in (res.get("/XObject", {}) if res is not None else {}).values():
        if x.objgen in seen:
            continue
        seen.add(x.objgen)
        yield x
        yield from _xobjects(x, seen)


def _fonts(pdf):
    found = {}
    for page in pdf.pages:
        holders = [page.obj, *_xobjects(page)]  # fonts live in the face forms
        for h in holders:
            res = h.get("/Resources")
            if res is not None and "/Font" in res:
                for font in res.Font.values():
                    found[font.objgen] = font
    return list(found.values())


@pytest.mark.parametrize("game, name", all_pdfs())
def test_every_font_is_embedded_and_shipped(all_builds, game, name):
    pdf = pikepdf.open(all_builds[game] / name)
    fonts = _fonts(pdf)
    assert fonts
    names = set()
    for font in fonts:
        descendants = font.get("/DescendantFonts")
        desc = (descendants[0] if descendants else font).get("/FontDescriptor")
        if font.get("/Subtype") == "/Type3":
            continue
        assert desc is not None, font
        assert any(k in desc for k in ("/FontFile", "/FontFile2", "/FontFile3")), font.BaseFont
        names.add(str(font.BaseFont).split("+")[-1])
    assert names <= {f.postscript_name for f in shipped().faces}, names


@pytest.mark.parametrize("game, name", all_pdfs())
def test_pdf_syntax_is_clean(all_builds, game, name):
    assert pikepdf.open(all_builds[game] / name).check_pdf_syntax() == []


def test_faces_are_stored_once(olympians_build):
    pdf = pikepdf.open(olympians_build / "olympians-sheets-a4.pdf")
    back_page = pdf.pages[1]
    placed = [str(ins.operands[0]) for ins in pikepdf.parse_content_stream(back_page, "Do")]
    assert len(placed) == 9
    forms = {back_page.Resources.XObject[name].objgen for name in placed}
    assert len(forms) == 1  # nine copies of the shared back: one form


def test_two_builds_are_byte_identical(tmp_path, olympians_build, warm):
    """A second build of Olympians (both papers; the English and French editions) writes what
    the run's shared build wrote: its sheets and books laid out again, its faces those the
    shared build drew (tests/test_cache.py draws them again in a test process, tests/test_bytes.py
    in fresh processes, the Arabic and Japanese editions too)."""
    out = warm(tmp_path / "again")
    assert run(REPO, "build", "olympians", "--lang", "en", "--lang", "fr", "--output", str(out)).exit_code == 0
    outs = [olympians_build, out / "olympians"]
    names = sorted(p.name for p in outs[1].iterdir() if p.name != "manifest.json")
    assert len(names) == 2 * 2 * 3
    for name in names:
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name


def test_count_prints_copies_and_escaping_works(mini):
    root = mini("""
        - {id: salt, name: "Salt & Pepper", text: "Season <everything> & enjoy", count: 3}
        - {id: plain, name: Plain, text: ok}
    """)
    result = run(root, "build", "--paper", "letter")
    assert result.exit_code == 0, result.output
    folder = root / "output" / "mini"
    info = entry(folder, "mini-sheets-letter.pdf")
    fronts = [p["id"] for p in info["placements"] if p["side"] == "front"]
    assert fronts == ["salt", "salt", "salt", "plain"]
    assert {"id": "salt", "count": 3} in info["components"]
    text = pdfium.PdfDocument(folder / "mini-sheets-letter.pdf")[0].get_textpage().get_text_range()
    assert text.count("Salt & Pepper") == 3 and "Season <everything> & enjoy" in text


def test_square_tiles_and_small_tokens_are_laid_out_by_size(mini):
    root = mini("\n".join(f"- {{id: t{i}, name: T{i}, text: t}}" for i in range(12)),
                deck_extra="size: {width: 50mm, height: 50mm}\nbleed: 2mm\n")
    assert run(root, "build", "--paper", "a4").exit_code == 0
    info = entry(root / "output" / "mini", "mini-sheets-a4.pdf")
    fronts = [p for p in info["placements"] if p["side"] == "front" and p["page"] == 1]
    grid = choose_grid("a4", 50, 50, 2)
    assert (grid.cols, grid.rows, grid.gutter) == (3, 5, 4.0)  # full bleed kept: a gutter of two bleeds
    assert len(fronts) == 12 and {(p["w_mm"], p["h_mm"]) for p in fronts} == {(50, 50)}
    xs = sorted({p["x_mm"] for p in fronts})
    assert [round(b - a, 3) for a, b in zip(xs, xs[1:])] == [54.0, 54.0]


@pytest.mark.slow
def test_a_deck_chooses_its_own_gutter(mini):
    """`gutter:` on a deck: every neighbour that far apart (scissors can follow each face's own
    cut), and each face keeps its full bleed; 0 shares the cut lines (a guillotine's layout)."""
    cards = "\n".join(f"- {{id: t{i}, name: T{i}, text: t}}" for i in range(12))
    for gutter, step in (("6mm", 41.0), ("0mm", 35.0)):
        root = mini(cards, deck_extra=f"size: {{width: 35mm, height: 35mm}}\nbleed: 2mm\ngutter: {gutter}\n")
        assert run(root, "build", "--paper", "a4").exit_code == 0
        info = entry(root / "output" / "mini", "mini-sheets-a4.pdf")
        xs = sorted({p["x_mm"] for p in info["placements"] if p["side"] == "front" and p["page"] == 1})
        assert {round(b - a, 3) for a, b in zip(xs, xs[1:])} == {step}, gutter
    grid = choose_grid("a4", 35, 35, 2, 6.0)
    assert grid.gutter == 6.0 and grid.clip_box(0, False)[2] == 35 + 2 * 2  # the whole bleed
    assert choose_grid("a4", 35, 35, 2).per_page > grid.per_page


def test_a_gutter_on_a_packed_or_placed_component_is_refused(mini):
    root = mini("- {id: a, name: A, text: t}", deck_extra="shape: circle\nsize: {width: 25mm, height: 25mm}\n"
                "gutter: 4mm\n")
    result = run(root, "validate")
    assert result.exit_code == 2 and "'gutter' applies to cards and tiles laid out in rows and columns" in result.output


def test_component_larger_than_the_paper_is_a_clear_error(mini):
    root = mini("- {id: board, name: Board, text: t}", deck_extra="size: {width: 400mm, height: 300mm}\n")
    result = run(root, "build")
    assert result.exit_code == 2
    assert "cards/mini/deck.yaml:5: size: a 400 x 300 mm component with 3 mm bleed does not fit on A4" \
        in result.output


def test_faces_keep_their_exact_size():
    """The faces PDF (drawn through CairoSVG internals) has pages of the face size with bleed."""
    import io

    from generator.draw.faces import draw_faces
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="69mm" height="94mm" viewBox="0 0 69 94">'
           '<rect width="69" height="94" fill="#f00"/><text x="5" y="20" font-family="Lato">Size</text></svg>')
    faces = draw_faces({"k": svg}, Session())
    pdf = pikepdf.open(io.BytesIO(faces.documents[0]))
    box = [float(v) for v in pdf.pages[1].MediaBox]  # page 0 of a bundle is its font primer
    assert abs(box[2] - box[0] - 69 * MM) < 0.001 and abs(box[3] - box[1] - 94 * MM) < 0.001
    assert faces.page_of == {"k": (0, 1)}


@pytest.mark.parametrize("size", [(69, 94), (69.5, 94.9), (72, 97)])
def test_the_bleed_is_printed_to_the_very_edge_of_every_face(size):
    """cairo clips a page to whole points: the last fraction of a point of bleed (right and
    bottom) must still be drawn, in the faces PDF and on the sheets."""
    from generator.draw.faces import draw_faces
    from generator.layout.forms import FacePlacer

    w, h = size
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}">'
           f'<rect width="{w}" height="{h}" fill="#f00"/></svg>')
    faces = draw_faces({"k": svg}, Session())
    page = pdfium.PdfDocument(faces.documents[0])[1]
    image = page.render(scale=8).to_pil().convert("RGB")
    assert abs(image.width - w * MM * 8) <= 1 and abs(image.height - h * MM * 8) <= 1
    for xy in ((image.width - 1, image.height // 2), (image.width // 2, image.height - 1),
               (image.width - 1, image.height - 1), (0, 0)):
        assert image.getpixel(xy)[1] < 40, f"{xy} of the face is not red: {image.getpixel(xy)}"
    # placed as a form at (10, 10) pt on a page, it covers exactly its own box
    out = pikepdf.new()
    out.add_blank_page(page_size=(300, 320))
    placer = FacePlacer(out, faces.documents, faces.page_of)
    snippet = placer.draw_at(out.pages[0], "k", (1, 0, 0, 1, 10, 10), b"0 0 300 320 re")
    out.pages[0].contents_add(out.make_stream(snippet))
    buf = io.BytesIO()
    out.save(buf)
    sheet = pdfium.PdfDocument(buf.getvalue())[0].render(scale=4).to_pil().convert("RGB")
    right, top = (10 + w * MM) * 4, 320 * 4 - (10 + h * MM) * 4
    assert sheet.getpixel((int(right) - 2, 600))[1] < 40 and sheet.getpixel((int(right) + 2, 600))[1] > 200
    assert sheet.getpixel((200, int(top) + 2))[1] < 40 and sheet.getpixel((200, int(top) - 2))[1] > 200
    # the left and bottom edges at (10, 10) pt: 40 px in, 1240 px down
    assert sheet.getpixel((42, 1000))[1] < 40 and sheet.getpixel((38, 1000))[1] > 200
    assert sheet.getpixel((200, 1236))[1] < 40 and sheet.getpixel((200, 1244))[1] > 200


@pytest.mark.parametrize("paper, size", [("a4", (63, 88)), ("letter", (63, 88)), ("a4", (70, 70)),
                                         ("letter", (57, 89)), ("a4", (44, 63))])
def test_every_cut_line_gets_printable_crop_marks_on_all_four_sides(paper, size):
    from generator.layout.grid import crop_marks
    grid = choose_grid(paper, *size, 3)
    page_w, page_h = PAPERS[paper]
    xs, ys = grid.cut_lines()
    marks = crop_marks(grid)
    assert len(marks) == 2 * len(xs) + 2 * len(ys)
    printable = 4.2  # mm most desktop printers cannot print at the paper's edge
    for x1, y1, x2, y2 in marks:
        # a mark never touches a trim box: it starts outside the grid's trim area
        assert not (grid.x0 < x1 < grid.x0 + grid.grid_w and grid.y0 < y1 < grid.y0 + grid.grid_h)
        # and a good part of it is on the printable area
        lo_x, hi_x = sorted((x1, x2))
        lo_y, hi_y = sorted((y1, y2))
        visible_x = min(hi_x, page_w - printable) - max(lo_x, printable)
        visible_y = min(hi_y, page_h - printable) - max(lo_y, printable)
        assert (visible_x >= 2 and lo_y == hi_y) or (visible_y >= 2 and lo_x == hi_x), (x1, y1, x2, y2)


def test_face_forms_keep_the_pages_transparency_group(olympians_build):
    """Faces are cairo pages with a transparency group; the forms made from them keep it,
    so soft masks and opacity blend the same on the sheet as on the face."""
    pdf = pikepdf.open(olympians_build / "olympians-sheets-a4.pdf")
    forms = [x for name, x in pdf.pages[0].Resources.XObject.items() if name.startswith("/Face")]
    assert forms and all(f.get("/Group", {}).get("/S") == "/Transparency" for f in forms)


def test_furniture_is_reused_for_the_same_plans_and_redrawn_when_a_mark_moves():
    """While `pnp watch` rebuilds (the memo is on); a one-shot build keeps nothing."""
    import dataclasses

    from generator.layout.furniture import draw_furniture, furniture_key
    from generator.layout.plan import FaceOnPage, PagePlan
    from generator.session import Session
    from generator.shapes import Outline

    box = Outline("rect", 10, 10, 63, 88)
    face = FaceOnPage("k1", "c1", "front", (7, 7), box, box)
    plan = PagePlan(210, 297, "front", "Deck", (face,), marks=((0, 10, 5, 10),))
    other_face = dataclasses.replace(plan, faces=(dataclasses.replace(face, key="k2", card="c2"),))
    moved = dataclasses.replace(plan, marks=((0, 11, 5, 11),))
    assert furniture_key([plan], "T", "a4", True) == furniture_key([other_face], "T", "a4", True)
    assert furniture_key([plan], "T", "a4", True) != furniture_key([moved], "T", "a4", True)
    assert furniture_key([plan], "T", "a4", True) != furniture_key([plan], "T", "letter", True)
    assert draw_furniture([plan], "T", "a4", True) is not draw_furniture([plan], "T", "a4", True)  # not kept
    kept = Session(remember=True).furniture
    first = draw_furniture([plan], "T", "a4", True, kept)
    assert draw_furniture([other_face], "T", "a4", True, kept) is first       # not drawn again
    redrawn = draw_furniture([moved], "T", "a4", True, kept)
    with pikepdf.open(io.BytesIO(redrawn[0])) as new, pikepdf.open(io.BytesIO(first[0])) as old:
        assert new.pages[0].Contents.read_bytes() != old.pages[0].Contents.read_bytes()


def test_furniture_drawn_in_several_pdfs_gives_the_same_pages(mini, monkeypatch):
    """Sheets of thousands of pages get their furniture a few hundred pages at a time; the
    pages look the same and say the same as when drawn in one PDF."""
    import io

    import pikepdf
    import pypdfium2 as pdfium

    from generator.data.load import load_game
    from generator.draw.render import render_game
    from generator.layout import furniture, sheets

    root = mini("\n".join(f'- {{id: c{i}, name: "Card {i}", text: "Words {i}."}}' for i in range(40)))
    rendered = render_game(load_game(root, "mini", Session()), Session())
    whole = sheets.layout_sheets(rendered, "a4", Session())
    monkeypatch.setattr(furniture, "PAGES_PER_PDF", 3)
    monkeypatch.setattr(sheets, "PAGES_PER_PDF", 3)
    pieces = sheets.layout_sheets(rendered, "a4", Session())
    assert whole.pages == pieces.pages > 3
    assert pikepdf.open(io.BytesIO(pieces.pdf)).check_pdf_syntax() == []
    a, b = pdfium.PdfDocument(whole.pdf), pdfium.PdfDocument(pieces.pdf)
    for i in range(whole.pages):
        assert a[i].get_textpage().get_text_range() == b[i].get_textpage().get_text_range()
        assert a[i].render(scale=0.5).to_pil().tobytes() == b[i].render(scale=0.5).to_pil().tobytes()
