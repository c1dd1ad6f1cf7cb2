"""The cut file: every cut path of a sheets PDF as an SVG for cutting machines.

In: the `PagePlan`s of one paper. Out: SVG text (bytes) in millimetres, one layer
(an Inkscape layer group, which Cricut Design Space and Silhouette Studio import as
separate layers) per page of fronts, holding exactly the cut outlines of the faces on
that page: rectangles, rounded rectangles, circles and hexagons, board panels too. Backs
are cut from the front, so they have no layer. Hairline strokes, no fill: a cutter
follows the paths; positions are the sheet's, so the cut lines up with what is printed.
"""
from __future__ import annotations

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


def _text(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
