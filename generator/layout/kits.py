"""Page plans for components that are cut, folded and glued: die nets and standees.

In: the rendered copies of one dice or standee deck and a paper. Out: `PagePlan`s (all
fronts: these print on one side). Each die is a net from `dicenet.py` with every face drawn
from the die's data, rotated onto its polygon and clipped to it, grey glue tabs, dashed
folds and one solid cut path; each standee is a fold-over from `standee.py` with its front
art turned about the fold and its back art upright, base flaps, dashed folds and a cut
path. Nets and standees are shelf-packed, turned a quarter where that fits more.
"""
from __future__ import annotations

from ..shapes import Outline
from ..units import paper_size
from .dicenet import net, pack_nets
from .grid import MIN_MARGIN
from .plan import FaceOnPage, Label, PagePlan
from .plane import form_cm
from .standee import pack_standees, standee

MARGIN = MIN_MARGIN + 2.0   # mm from the paper edge to a net or standee
FOOT = 9.0                  # mm kept under them for the label
GAP = 4.0                   # mm between two cut paths
DICE_NOTE = "cut along the solid lines, fold every dashed line, glue the grey tabs inside"
STANDEE_NOTE = "cut along the solid line, fold the dashed lines: the figure at the top, the base flaps outwards"


def dice_pages(group, paper: str) -> list[PagePlan]:
    deck = group[0].deck
    nets = [net(deck.die, deck.edge, deck.bleed)] * len(group)   # one die's net, placed anew for each

    def draw(rc, placed):
        faces = [FaceOnPage(rc.faces[face.number - 1], rc.card.id, "front", None, Outline.of_polygon(face.clip),
                            Outline.of_polygon(face.polygon), {"die": deck.die, "face": face.number},
                            matrix=form_cm(face.transform, deck.height)) for face in placed.faces]
        return faces, [t.polygon for t in placed.tabs], placed.fold_edges

    return _pages(group, nets, pack_nets, paper, draw, f"{deck.name} ({deck.die} nets)", DICE_NOTE)


def standee_pages(group, paper: str) -> list[PagePlan]:
    deck = group[0].deck
    kits = [standee(deck.trim_w, deck.trim_h, deck.bleed)] * len(group)   # placed anew for each

    def draw(rc, placed):
        # a standee without a back template shows its front art on both sides
        faces = [FaceOnPage(key, rc.card.id, "front", None, Outline("rect", *side.clip), Outline("rect", *side.trim),
                            {"standee": art}, matrix=form_cm(side.transform, deck.height))
                 for art, side, key in (("front", placed.front, rc.front), ("back", placed.back, rc.back or rc.front))]
        return faces, placed.flaps, [placed.fold_line, *placed.flap_folds]

    return _pages(group, kits, pack_standees, paper, draw, f"{deck.name} (standees)", STANDEE_NOTE)


def _pages(group, kits, pack, paper, draw, title, note) -> list[PagePlan]:
    """Pages of kits (nets or standees) shelf-packed by `pack`: `draw(card, placed kit)` gives
    its faces, its grey areas (polygons) and its folds (segments); each kit is cut along its
    outline."""
    page_w, page_h = paper_size(paper)
    spots = pack(kits, page_w - 2 * MARGIN, page_h - 2 * MARGIN - FOOT, gap=GAP)
    pages = []
    for page in range(max(s.page for s in spots) + 1):
        faces, fills, dashed, cuts = [], [], [], []
        for rc, kit, spot in zip(group, kits, spots):
            if spot.page != page:
                continue
            placed = kit.placed(MARGIN + spot.x, MARGIN + FOOT + spot.y, spot.rotated)
            drawn, grey, folds = draw(rc, placed)
            faces += drawn
            fills += [Outline.of_polygon(p) for p in grey]
            dashed += [(a[0], a[1], b[0], b[1]) for a, b in folds]
            cuts.append((rc.card.id, Outline.of_polygon(placed.cut_path)))
        pages.append(PagePlan(page_w, page_h, "front", title, tuple(faces), outlines=tuple(c for _, c in cuts),
                              label=Label(MARGIN, MARGIN + 4.0, 0, page_w * 0.7), note=note, fills=tuple(fills),
                              dashed=tuple(dashed), cuts=tuple(cuts)))
    return pages
