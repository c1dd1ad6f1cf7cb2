"""Small packed components moved onto the sheet of others, where they fit.

In: a game's page plans in printing order (`pages.plan_pages`). Out: the same plans, but
where a deck of round or hexagonal tokens takes a single page (and its page of backs) and
its pieces fit in the room left on an earlier page of packed tokens of the same paper size,
they move there and their own page goes: two 16 mm score markers no longer take a sheet of
their own. Each moved piece keeps its bleed and at least `packing.MIN_GAP` (two bleeds) to
every cut path and stays inside the margins, above the label's room; a piece with a back
goes only onto a page whose backs are printed, its back placed mirrored as every back is
(long-edge flip), so fronts and backs stay registered. Nothing here draws.
"""
from __future__ import annotations

from dataclasses import replace

from ..shapes import Outline
from .grid import MIN_MARGIN
from .packing import LABEL_ROOM, MIN_GAP
from .plan import FaceOnPage, Label, PagePlan


def share_sheets(pages: list[PagePlan]) -> list[PagePlan]:
    """`pages` with every single-page deck of packed tokens moved onto an earlier page of
    packed tokens that has room for all of its pieces."""
    out: list[PagePlan] = []
    i = 0
    while i < len(pages):
        page = pages[i]
        back = pages[i + 1] if i + 1 < len(pages) and pages[i + 1].side == "back" else None
        after = i + (2 if back else 1)
        alone = (page.side == "front" and _packed(page) and bool(page.faces)
                 and not (after < len(pages) and pages[after].title == page.title))
        found = _host(out, page, back) if alone else None
        if found is None:
            out.extend([page] if back is None else [page, back])
        else:
            at, moved = found
            out[at] = _moved_onto(out[at], page, page, moved, out[at].outlines + tuple(moved.values()))
            if at + 1 < len(out) and out[at + 1].side == "back":   # the host's backs: the same label
                host_back = out[at + 1]
                if back is not None:
                    host_back = _moved_onto(host_back, page, back, moved, host_back.outlines)
                out[at + 1] = replace(host_back, label=out[at].label, title=out[at].title)
        i = after
    return out


def _host(out: list[PagePlan], page: PagePlan, back: PagePlan | None):
    """(index of the host page of fronts, {card: new cut outline}) or None: the last earlier
    page of packed tokens of the same size (with backs when `back` has faces) that takes
    every piece of `page`."""
    if out and out[-1].side == "back":
        at = len(out) - 2
    else:
        at = len(out) - 1
    if at < 0 or out[at].side != "front" or not _packed(out[at]):
        return None
    host = out[at]
    if (host.width, host.height) != (page.width, page.height) or host.title == page.title:
        return None
    host_back = out[at + 1] if at + 1 < len(out) else None
    if back is not None and back.faces and host_back is None:
        return None
    placed = [(o, _bleed_of(host, o)) for o in host.outlines]
    moved: dict[int, Outline] = {}
    for n, cut in enumerate(page.outlines):
        spot = _free_spot(host, placed, cut, _bleed_of(page, cut))
        if spot is None:
            return None
        moved[n] = spot
        placed.append((spot, _bleed_of(page, cut)))
    return at, moved


def _packed(page: PagePlan) -> bool:
    """A page of round or hexagonal tokens packed by `packing.pack` (not kits: their cuts are their own)."""
    return page.cuts is None and bool(page.outlines) and all(o.shape in ("circle", "hex") for o in page.outlines)


def _bleed_of(page: PagePlan, cut: Outline) -> float:
    for face in page.faces:
        if face.cut == cut:
            return cut.x - face.clip.x
    return 0.0


def _free_spot(host: PagePlan, placed: list[tuple[Outline, float]], cut: Outline, bleed: float) -> Outline | None:
    """The highest, then leftmost, place for `cut` clear of every placed piece by the gap
    its bleeds ask (bounding boxes: round pieces keep more), inside the margins, above the
    label's room. Candidates: the margins and the edges of the pieces placed."""
    low, left = MIN_MARGIN + LABEL_ROOM + bleed, MIN_MARGIN + bleed
    high, right = host.height - MIN_MARGIN - bleed - cut.h, host.width - MIN_MARGIN - bleed - cut.w
    gaps = [max(2 * max(b, bleed), MIN_GAP) for _, b in placed]
    xs = {left} | {o.x + o.w + g for (o, _), g in zip(placed, gaps)}
    ys = {high} | {o.y - g - cut.h for (o, _), g in zip(placed, gaps)}
    columns = sorted(x for x in xs if left - 1e-9 <= x <= right + 1e-9)
    for y in sorted((y for y in ys if low - 1e-9 <= y <= high + 1e-9), reverse=True):
        # only the pieces beside this row can be in the way: the rest are clear above or below
        row = [(o, g) for (o, _), g in zip(placed, gaps)
               if not (y + cut.h + g <= o.y + 1e-9 or o.y + o.h + g <= y + 1e-9)]
        for x in columns:
            if all(x + cut.w + g <= o.x + 1e-9 or o.x + o.w + g <= x + 1e-9 for o, g in row):
                return replace(cut, x=round(x, 4), y=round(y, 4))
    return None


def _mirror(cut: Outline, width: float) -> Outline:
    """A slot's back: its front mirrored across the page's vertical centre line (a long-edge
    flip), as `packing.Packing.outline` places it."""
    return replace(cut, x=round(width - cut.x - cut.w, 4))


def _moved_onto(host: PagePlan, donor: PagePlan, page: PagePlan, moved: dict[int, Outline],
                outlines: tuple) -> PagePlan:
    """`host` with the faces of `page` (the donor's page of fronts or of backs) at their new
    places: slot n of the donor goes to `moved[n]`, its back to that place mirrored."""
    fronts = page.side == "front"
    faces = list(host.faces)
    for face in page.faces:
        cut = face.cut if fronts else _mirror(face.cut, page.width)
        slot = next((n for n, o in enumerate(donor.outlines) if abs(o.x - cut.x) < 1e-3 and abs(o.y - cut.y) < 1e-3),
                    None)
        if slot is None:
            raise ValueError(f"face {face.card} is in no slot of its page")
        bleed = face.cut.x - face.clip.x
        new = moved[slot] if fronts else _mirror(moved[slot], page.width)
        faces.append(FaceOnPage(face.key, face.card, face.side, (new.x - bleed, new.y - bleed), new.grown(bleed),
                                new, face.extra))
    label = host.label
    if label is not None:   # under the lowest piece, as the packed page puts it
        lowest = min(f.clip.y for f in faces)
        label = Label(host.width / 2, lowest - 4.0, 0, host.width - 20) if lowest >= 7.5 else None
    return replace(host, faces=tuple(faces), outlines=outlines, label=label, title=f"{host.title} + {donor.title}")
