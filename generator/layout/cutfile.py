"""The cut file: every cut path of a sheets PDF as an SVG for cutting machines.

In: the `PagePlan`s of one paper. Out: SVG text (bytes) in millimetres, one layer
(an Inkscape layer group, which Cricut Design Space and Silhouette Studio import as
separate layers) per page of fronts, holding exactly the cut outlines of the faces on
that page: rectangles, rounded rectangles, circles and hexagons, board panels too. Backs
are cut from the front, so they have no layer. Hairline strokes, no fill: a cutter
follows the paths; positions are the sheet's, so the cut lines up with what is printed.

With a print-then-cut machine (cutters.py) the file also holds, in a layer of its own
first, the registration marks the sheets print (filled black, the same shapes at the same
places), for lining the cut up in the machine's software; that layer is printed, never cut.
`cut_dxf` writes the same cut paths and marks as DXF (R12 text, millimetres, y up), one
file per sheet, for Silhouette Studio's Basic Edition, which opens DXF but not SVG: layer
CUT holds the paths (curves as polylines of 0.05 mm chord error at most), layer
REGISTRATION the marks' outlines.
"""
from __future__ import annotations

import math
from xml.sax.saxutils import quoteattr

from .plan import PagePlan

HEADER = ('<?xml version="1.0" encoding="UTF-8"?>\n'
          '<svg xmlns="http://www.w3.org/2000/svg" '
          'xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" '
          'width="{w:g}mm" height="{h:g}mm" viewBox="0 0 {w:g} {h:g}">\n'
          '<title>{title}</title>\n')


def cut_svg(plans: list[PagePlan] | tuple, title: str) -> bytes:
    """One layer per page of fronts with its cut paths (mm, y down from the page's top)."""
    fronts = [(number, p) for number, p in enumerate(plans, start=1) if p.side == "front"]
    width = max((p.width for _, p in fronts), default=0)
    height = max((p.height for _, p in fronts), default=0)
    out = [HEADER.format(w=width, h=height, title=_text(f"{title}: cut paths, one layer per sheet"))]
    marks = next((p.registration for _, p in fronts if p.registration), ())
    if marks:
        out.append('<g id="registration" inkscape:groupmode="layer" '
                   'inkscape:label="registration marks (printed on every sheet: do not cut)" stroke="none">\n')
        out += [f"  {element}\n" for mark in marks for element in _mark_svg(mark, height)]
        out.append("</g>\n")
    for sheet, (number, plan) in enumerate(fronts, start=1):
        name = f"sheet {sheet} (page {number})"
        out.append(f'<g id="page-{number}" inkscape:groupmode="layer" inkscape:label={quoteattr(name)} '
                   'fill="none" stroke="#ff0000" stroke-width="0.1">\n')
        for card, cut in plan.cut_paths():
            out.append(f'  <path data-id={quoteattr(card)} data-shape="{cut.shape}" '
                       f'd="{cut.svg_path(plan.height)}"/>\n')
        out.append("</g>\n")
    out.append("</svg>\n")
    return "".join(out).encode()


def _mark_svg(mark, page_h: float) -> list[str]:
    """A mark's shapes as SVG (mm, y down): its white ground, then its black parts."""
    out = []
    for colour, shapes in (("#ffffff", mark.white), ("#000000", mark.shapes)):
        for shape in shapes:
            if shape[0] == "rect":
                _, x, y, w, h = shape
                out.append(f'<rect x="{x:.3f}" y="{page_h - y - h:.3f}" width="{w:.3f}" height="{h:.3f}" '
                           f'fill="{colour}" data-mark="{mark.kind}"/>')
            elif shape[0] == "disc":
                _, cx, cy, r = shape
                out.append(f'<circle cx="{cx:.3f}" cy="{page_h - cy:.3f}" r="{r:.3f}" fill="{colour}" '
                           f'data-mark="{mark.kind}"/>')
            else:
                _, cx, cy, r0, r1 = shape
                out.append(f'<circle cx="{cx:.3f}" cy="{page_h - cy:.3f}" r="{(r0 + r1) / 2:.3f}" fill="none" '
                           f'stroke="{colour}" stroke-width="{r1 - r0:.3f}" data-mark="{mark.kind}"/>')
    return out


def cut_dxf(plans) -> list[tuple[int, bytes]]:
    """(sheet number, DXF bytes) for each page of fronts: its cut paths and the marks."""
    files = []
    for sheet, plan in enumerate((p for p in plans if p.side == "front"), start=1):
        body = []
        for _, cut in plan.cut_paths():
            body += _polyline("CUT", _flatten(cut.segments()))
        for mark in plan.registration:
            for shape in mark.shapes:
                if shape[0] == "rect":
                    _, x, y, w, h = shape
                    body += _polyline("REGISTRATION", [(x, y), (x + w, y), (x + w, y + h), (x, y + h)])
                else:
                    for r in shape[3:]:
                        body += ["0", "CIRCLE", "8", "REGISTRATION", "10", _n(shape[1]), "20", _n(shape[2]),
                                 "30", "0", "40", _n(r)]
        head = ["0", "SECTION", "2", "HEADER", "9", "$ACADVER", "1", "AC1009", "9", "$INSUNITS", "70", "4",
                "9", "$MEASUREMENT", "70", "1", "0", "ENDSEC", "0", "SECTION", "2", "ENTITIES"]
        files.append((sheet, ("\n".join(head + body + ["0", "ENDSEC", "0", "EOF"]) + "\n").encode("ascii")))
    return files


def _polyline(layer: str, points) -> list[str]:
    out = ["0", "POLYLINE", "8", layer, "66", "1", "10", "0", "20", "0", "30", "0", "70", "1"]
    for x, y in points:
        out += ["0", "VERTEX", "8", layer, "10", _n(x), "20", _n(y), "30", "0"]
    return out + ["0", "SEQEND", "8", layer]


def _flatten(segments) -> list[tuple[float, float]]:
    """The outline's points, Bezier curves cut into straight pieces (0.05 mm from the curve at most)."""
    points, here = [], (0.0, 0.0)
    for seg in segments:
        if seg[0] in ("M", "L"):
            here = (seg[1], seg[2])
            points.append(here)
        elif seg[0] == "C":
            p0, p1, p2, p3 = here, seg[1:3], seg[3:5], seg[5:7]
            span = math.dist(p0, p1) + math.dist(p1, p2) + math.dist(p2, p3)
            steps = max(2, math.ceil(2 * math.sqrt(span)))   # a quarter circle: error 0.32 R / steps^2 <= 0.05
            for k in range(1, steps + 1):
                t = k / steps
                points.append(tuple((1 - t) ** 3 * a + 3 * (1 - t) ** 2 * t * b + 3 * (1 - t) * t * t * c + t ** 3 * d
                                    for a, b, c, d in zip(p0, p1, p2, p3)))
            here = points[-1]
    if len(points) > 1 and math.dist(points[0], points[-1]) < 1e-6:
        points.pop()   # closed by the polyline's flag
    return points


def _n(v: float) -> str:
    text = f"{v:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _text(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
