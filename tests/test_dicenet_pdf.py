"""A drawn check of the die nets: the three nets packed on A4 pages with reportlab, each face
drawn through its transform the way the layout places a rendered face (a form in points,
y up), clipped to its bleed polygon; tabs grey, folds dashed, the cut path solid.

Run `python tests/test_dicenet_pdf.py OUT.pdf` to write the PDF for a look."""
from __future__ import annotations

import sys

import pypdfium2 as pdfium
from reportlab.lib.colors import Color
from reportlab.pdfgen.canvas import Canvas

from generator.layout import dicenet, plane
from generator.units import PAPERS, PT_PER_MM

K = PT_PER_MM
MARGIN = 10.0
SAMPLES = [("d6", 20.0), ("d8", 25.0), ("d12", 18.0)]


def _path(canvas, pts):
    p = canvas.beginPath()
    p.moveTo(pts[0][0] * K, pts[0][1] * K)
    for x, y in pts[1:]:
        p.lineTo(x * K, y * K)
    p.close()
    return p


def _draw_face(canvas, face, face_w, face_h, outline):
    """Stand-in for a rendered face: a full-bleed tint, its number and an 'up' bar, drawn in
    the face form's own space (pt, y up)."""
    canvas.saveState()
    canvas.clipPath(_path(canvas, face.clip), stroke=0, fill=0)
    canvas.transform(*plane.form_cm(face.transform, face_h))
    hue = (face.number * 0.37) % 1.0
    canvas.setFillColor(Color(0.75 + 0.2 * hue, 0.85, 0.95 - 0.2 * hue))
    canvas.rect(0, 0, face_w * K, face_h * K, stroke=0, fill=1)
    cx, cy = plane.centroid([(x, -y) for x, y in outline])
    cx, cy = cx * K, (face_h + cy) * K
    canvas.setFillColor(Color(0, 0, 0))
    canvas.setFont("Helvetica-Bold", 14)
    canvas.drawCentredString(cx, cy - 5, str(face.number))
    canvas.rect(cx - 1, cy + 9, 2, 5, stroke=0, fill=1)  # "up"
    canvas.restoreState()


def draw_nets(path, samples=SAMPLES, paper="a4", bleed=1.0) -> list[list[int]]:
    """Draw the nets packed on pages; returns the face numbers drawn on each page."""
    page_w, page_h = PAPERS[paper]
    nets = [dicenet.net(die, edge, bleed) for die, edge in samples]
    spots = dicenet.pack_nets(nets, page_w - 2 * MARGIN, page_h - 2 * MARGIN, gap=5.0)
    canvas = Canvas(str(path), pagesize=(page_w * K, page_h * K), invariant=1)
    pages: list[list[int]] = []
    for page in range(max(s.page for s in spots) + 1):
        pages.append([])
        for n, s in zip(nets, spots):
            if s.page != page:
                continue
            placed = n.placed(MARGIN + s.x, MARGIN + s.y, s.rotated)
            fw, fh, outline = dicenet.face_box(n.die, n.edge, n.bleed)
            canvas.setFillColor(Color(0.8, 0.8, 0.8))
            for t in placed.tabs:
                canvas.drawPath(_path(canvas, t.polygon), stroke=0, fill=1)
            for face in placed.faces:
                _draw_face(canvas, face, fw, fh, outline)
                pages[-1].append(face.number)
            canvas.setLineWidth(0.4)
            canvas.setDash(2, 2)
            for (x1, y1), (x2, y2) in placed.fold_edges:
                canvas.line(x1 * K, y1 * K, x2 * K, y2 * K)
            canvas.setDash()
            canvas.drawPath(_path(canvas, placed.cut_path), stroke=1, fill=0)
        canvas.showPage()
    canvas.save()
    return pages


def test_nets_drawn_with_every_face_number(tmp_path):
    out = tmp_path / "nets.pdf"
    pages = draw_nets(out)
    pdf = pdfium.PdfDocument(str(out))
    assert len(pdf) == len(pages) >= 1
    for page, numbers in zip(pdf, pages):
        words = page.get_textpage().get_text_range().split()
        assert sorted(int(w) for w in words) == sorted(numbers)
    assert sorted(n for p in pages for n in p) == sorted([*range(1, 7), *range(1, 9), *range(1, 13)])


def test_nets_rendered_land_inside_the_paper(tmp_path):
    """Every drawn pixel is inside the page margin: packing and `placed` agree with the page."""
    out = tmp_path / "nets.pdf"
    draw_nets(out, paper="letter")
    pdf = pdfium.PdfDocument(str(out))
    for page in pdf:
        img = page.render(scale=1).to_pil().convert("L")
        w, h = img.size
        m = int(MARGIN * K) - 3  # a stroke's half width and anti-aliasing
        ink = img.point(lambda v: 255 if v < 250 else 0).getbbox()
        assert ink is not None
        assert ink[0] >= m and ink[1] >= m and ink[2] <= w - m and ink[3] <= h - m


if __name__ == "__main__":
    print(draw_nets(sys.argv[1]))
