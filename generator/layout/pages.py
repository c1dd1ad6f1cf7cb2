"""Every printed component turned into page plans, one planner per kind of layout
(`PLANNERS`, by the names of `data/kinds.KINDS`).

In: a `RenderedGame` and a paper. Out: `PagePlan`s in printing order. Cards, tiles and
rectangular tokens go on grids with crop marks (`grid.py`); round and hexagonal tokens are
packed with their own cut outlines (`packing.py`); boards print whole, in sections or in
glued panels (`boards.py`). A page of fronts is followed by its page of backs, mirrored for
a long-edge flip. Consecutive components of one geometry share pages.
"""
from __future__ import annotations

from dataclasses import replace
from itertools import groupby
from types import MappingProxyType

from ..data.yamlsrc import line_of
from ..errors import InputError, Problem
from ..shapes import Outline
from ..units import paper_size, pt
from .boards import MIN_MARGIN as BOARD_MARGIN
from .boards import plan_board
from .cutters import CutterSheet
from .grid import MARK_REACH, MIN_MARGIN, DoesNotFit, SheetGrid, choose_grid, crop_marks
from .kits import dice_pages, standee_pages
from .modes import half_paper, move_outline, move_page
from .packing import pack
from .plan import NO_EXTRA, FaceOnPage, Label, PagePlan
from .sharing import share_sheets

LABEL_ROOM = 5.0  # mm the page label needs below the crop marks
MARK_START, MARK_LEN = 1.0, 5.0


def plan_pages(rendered, paper: str, gutter_fold: bool = False) -> list[PagePlan]:
    """Fronts and backs of every component, page by page.

    :param gutter_fold: cards and tokens that have backs are planned on half the paper
        turned landscape (`modes.half_paper`), for `modes.apply_mode` to join each page of
        fronts to its page of backs.
    """
    copies = [rc for rc in rendered.cards for _ in range(rc.card.count)]
    if not copies:
        game = rendered.game
        raise InputError("nothing to print", [Problem(game.source.file, "every card has count 0: nothing to print",
                                                      line=1)])
    pages: list[PagePlan] = []
    geometry = lambda rc: (rc.deck.layout, rc.deck.shape, rc.deck.orientation,
                           rc.deck.trim_w, rc.deck.trim_h, rc.deck.bleed, rc.deck.corner, rc.deck.gutter)
    for _, run in groupby(copies, key=geometry):
        group = list(run)
        deck = group[0].deck
        kind = deck.family
        whole = paper
        if gutter_fold and kind.gutter_fold and any(rc.back for rc in group):
            paper = half_paper(whole)
        try:
            pages.extend(PLANNERS[kind.name](group, paper))
        except DoesNotFit as exc:
            hint = kind.too_big
            if paper != whole:
                hint = (f" (gutter-fold prints fronts and backs on half a {whole.upper()} page each); "
                        "use a smaller size or another print mode")
            raise InputError("1 problem in the layout", [Problem(
                deck.source.file, f"{exc}{hint}", line=line_of(deck.raw, ("size",)), field="size")]) from None
        paper = whole
    return share_sheets(pages)   # small packed pieces onto an earlier sheet of tokens with room for them


def plan_for_cutter(rendered, paper: str, sheet: CutterSheet) -> list[PagePlan]:
    """`plan_pages` inside the machine's area: each candidate area (cutters.py, best first)
    is planned as a paper of its own (grown by the margin the planners keep, so the
    components themselves fill the area), moved onto the real page; a plan whose faces
    leave the area or touch a mark's keep-out is dropped. The fewest pages win; the label
    goes where the machine leaves room; the page of fronts carries the marks."""
    best, failure = None, None
    for ax, ay, aw, ah in sheet.areas:
        m = MIN_MARGIN
        virtual = f"{aw + 2 * m:.4f}x{ah + 2 * m:.4f}mm"
        try:
            pages = plan_pages(rendered, virtual)
        except InputError as exc:
            failure = failure or exc
            continue
        placed = [_onto(p, sheet, ax - m, ay - m) for p in pages]
        if all(_inside(p, (ax, ay, aw, ah), sheet, (aw + 2 * m, ah + 2 * m), page) for p, page in zip(placed, pages)):
            if best is None or len(placed) < len(best):
                best = placed
    if best is None:
        why = f": {failure.problems[0].message}" if failure is not None and failure.problems else ""
        raise InputError("1 problem in the layout", [Problem(
            rendered.game.source.file, f"the components do not fit inside the {sheet.cutter}'s area on "
            f"{paper.upper()} paper ({sheet.areas[0][2]:.0f} x {sheet.areas[0][3]:.0f} mm, clear of its "
            f"registration marks){why}")])
    return best


def _onto(page: PagePlan, sheet: CutterSheet, dx: float, dy: float) -> PagePlan:
    """A page planned on an area, moved onto the real paper, with the machine's marks (fronts)."""
    moved = move_page(page, dx, dy)
    x, y, room = sheet.label
    return replace(moved, width=sheet.page_w, height=sheet.page_h,
                   glue=tuple((gx + dx, gy + dy, gw, gh) for gx, gy, gw, gh in page.glue),
                   ticks=tuple((tx + dx, ty + dy, side) for tx, ty, side in page.ticks),
                   cuts=None if page.cuts is None else tuple((c, move_outline(o, dx, dy)) for c, o in page.cuts),
                   label=Label(x, y, 0, room), marks=(),
                   registration=sheet.marks if page.side == "front" else ())


def _inside(page: PagePlan, area, sheet: CutterSheet, size, planned: PagePlan) -> bool:
    """Every face and cut of the page lies in the area, clear of the marks (and the planner
    used the area's paper as it is, not turned)."""
    if abs(planned.width - size[0]) > 0.01 or abs(planned.height - size[1]) > 0.01:
        return False
    ax, ay, aw, ah = area
    boxes = [(f.clip.x, f.clip.y, f.clip.w, f.clip.h) for f in page.faces]
    boxes += [(o.x, o.y, o.w, o.h) for _, o in page.cut_paths()] + [g for g in page.glue]
    return all(x >= ax - 1e-6 and y >= ay - 1e-6 and x + w <= ax + aw + 1e-6 and y + h <= ay + ah + 1e-6
               and sheet.clear_of_marks((x, y, w, h)) for x, y, w, h in boxes)


def _sheet_pages(group, paper: str) -> list[PagePlan]:
    """Rectangles on grids with crop marks; round and hexagonal ones packed."""
    if group[0].deck.shape in ("circle", "hex"):
        return _token_pages(group, paper)
    return _grid_pages(group, paper)


def _boards(group, paper: str) -> list[PagePlan]:
    """Boards whole, in sections or in glued panels; small ones (two to a page) like cards."""
    if _boards_share_pages(group[0].deck, paper):
        return _grid_pages(group, paper)
    return _board_pages(group, paper)


def _boards_share_pages(deck, paper) -> bool:
    """Small boards (two or more to a page) are laid out like cards, with crop marks."""
    if deck.sections:
        return False
    try:
        return choose_grid(paper, deck.trim_w, deck.trim_h, deck.bleed).per_page >= 2
    except DoesNotFit:
        return False


def _title(deck) -> str:
    return deck.label or deck.name


def _grid_pages(group, paper) -> list[PagePlan]:
    deck = group[0].deck
    grid, turned = _best_grid(paper, deck)
    pages = []
    title, label = _title(deck), _grid_label(grid)
    # a slot's place, outlines and turn, and a page's crop marks, are the same on every page
    # with as many faces: made once and shared (10,000 cards place 20,000 faces)
    slots: dict[tuple[int, bool, int], tuple] = {}
    marks: dict[tuple[int, bool], tuple] = {}
    for start in range(0, len(group), grid.per_page):
        chunk = group[start:start + grid.per_page]
        for side in ("front", "back"):
            back = side == "back"
            if back and not any(rc.back for rc in chunk):
                continue
            faces = []
            for slot, rc in enumerate(chunk):
                key = rc.back if back else rc.front
                if key is None:
                    continue
                place = slots.get((slot, back, len(chunk)))
                if place is None:
                    place = slots[slot, back, len(chunk)] = _grid_slot(grid, deck, slot, back, len(chunk), turned)
                at, clip, cut, extra, matrix = place
                faces.append(FaceOnPage(key, rc.card.id, side, at, clip, cut, extra, matrix))
            if (len(chunk), back) not in marks:
                marks[len(chunk), back] = tuple(crop_marks(grid, len(chunk), back))
            pages.append(PagePlan(grid.page_w, grid.page_h, side, title, tuple(faces), marks=marks[len(chunk), back],
                                  label=label))
    return pages


def _grid_slot(grid: SheetGrid, deck, slot: int, back: bool, filled: int, turned: bool) -> tuple:
    """(at, clip, cut, extra, matrix) of a face in `slot` of a grid page holding `filled` faces."""
    x, y, w, h = grid.trim_box(slot, back)
    cut = Outline(deck.shape, x, y, w, h, deck.corner if deck.shape == "rounded" else 0.0)
    clip = Outline("rect", *grid.clip_box(slot, back, filled=filled))
    at = (x - deck.bleed, y - deck.bleed)
    if turned:
        return at, clip, cut, MappingProxyType({"turned": 270 if back else 90}), _quarter_turn(at, deck, back)
    return at, clip, cut, NO_EXTRA, None


def _best_grid(paper: str, deck) -> tuple[SheetGrid, bool]:
    """The grid of the deck's components as drawn, or turned a quarter when more fit so
    (landscape cards on a portrait paper: 8 a page where 9 fit); True when turned."""
    grid = choose_grid(paper, deck.trim_w, deck.trim_h, deck.bleed, deck.gutter)
    if deck.trim_w == deck.trim_h:
        return grid, False
    try:
        turned = choose_grid(paper, deck.trim_h, deck.trim_w, deck.bleed, deck.gutter)
    except DoesNotFit:
        return grid, False
    return (turned, True) if turned.per_page > grid.per_page else (grid, False)


def _quarter_turn(at: tuple[float, float], deck, back: bool) -> tuple:
    """The `cm` (pt) that draws a face turned a quarter into the slot whose bleed box starts
    at `at`: a front counter-clockwise (its top to the left), a back clockwise, so that after
    the long-edge flip that lays each back behind its front (grid.cell) the back's top lies
    behind the front's top."""
    x, y = at
    if back:   # (u, v) -> (v, w - u): the face's top edge to the right
        return (0, -1, 1, 0, pt(x), pt(y + deck.width))
    return (0, 1, -1, 0, pt(x + deck.height), pt(y))   # (u, v) -> (h - v, u): its top edge to the left


def _grid_label(g: SheetGrid) -> Label | None:
    """Under the grid when the margin allows, else up the left margin between two cut lines
    of the middle row (Letter), never over a crop mark."""
    below = g.y0 - g.bleed - MARK_REACH
    if below >= LABEL_ROOM:
        return Label(g.page_w / 2, below - 3.2, 0, g.page_w - 20)
    if g.margin_x < 6:
        return None
    row = g.rows // 2
    middle = g.y0 + (g.rows - 1 - row) * (g.trim_h + g.gutter) + g.trim_h / 2
    return Label(g.x0 - g.bleed - 1.6, middle, 90, g.trim_h - 4)


def _token_pages(group, paper) -> list[PagePlan]:
    deck = group[0].deck
    packing = pack(paper, paper_size(paper), deck.shape, deck.trim_w, deck.trim_h, deck.bleed, deck.orientation)
    pages = []
    for start in range(0, len(group), packing.per_page):
        chunk = group[start:start + packing.per_page]
        lowest = min(y for _, y in packing.boxes[:len(chunk)]) - deck.bleed
        label = Label(packing.page_w / 2, lowest - 4.0, 0, packing.page_w - 20) if lowest >= 7.5 else None
        for side in ("front", "back"):
            back = side == "back"
            if back and not any(rc.back for rc in chunk):
                continue
            faces, outlines = [], []
            for slot, rc in enumerate(chunk):
                key = rc.back if back else rc.front
                cut = packing.outline(slot, back)
                outlines.append(cut)
                if key is not None:
                    faces.append(FaceOnPage(key, rc.card.id, side, (cut.x - deck.bleed, cut.y - deck.bleed),
                                            cut.grown(deck.bleed), cut))
            pages.append(PagePlan(packing.page_w, packing.page_h, side, _title(deck), tuple(faces),
                                  outlines=tuple(outlines) if not back else (), label=label))
    return pages


def _board_pages(group, paper) -> list[PagePlan]:
    pages = []
    for rc in group:
        deck = rc.deck
        if rc.back is not None:
            raise DoesNotFit("a board prints one side only: give its deck `back: null`")
        plan = plan_board(paper, paper_size(paper), deck.trim_w, deck.trim_h, deck.bleed, deck.overlap, deck.sections)
        total = len(plan.panels)
        for panel in plan.panels:
            x, y, w, h = panel.cut_box
            cut = Outline("rect", x, y, w, h)
            extra = {"panel": panel.number, "panels": total,
                     "board_x_mm": panel.region[0], "board_y_mm": panel.region[1]}
            face = FaceOnPage(rc.front, rc.card.id, "front", panel.to_page(-deck.bleed, -deck.bleed),
                              cut.grown(deck.bleed), cut, extra)
            if plan.mode == "whole":
                title, note = _title(deck), ""
            else:
                part = "section" if plan.mode == "sections" else "panel"
                title = f"{rc.card.label or rc.card.name} · {part} {panel.number} of {total}"
                note = ("sections butt together edge to edge: cut on the marks" if plan.mode == "sections" else
                        f"cut on the marks; glue the shaded strips under the next panel ({plan.overlap:g} mm "
                        "overlap), edge on the ticks")
            pages.append(PagePlan(
                panel.page_w, panel.page_h, "front", title, (face,), marks=tuple(_box_marks(cut, deck.bleed, panel)),
                label=Label(BOARD_MARGIN + 4, BOARD_MARGIN + 6.5, 0, panel.page_w * 0.6), glue=panel.glue,
                ticks=panel.ticks, board_map=None if total == 1 else (plan.cols, plan.rows, panel.col, panel.row),
                note=note))
    return pages


def _box_marks(cut: Outline, bleed: float, panel) -> list:
    """Crop marks at the four corners of one cut box, outside its bleed."""
    x0, y0, x1, y1 = cut.x, cut.y, cut.x + cut.w, cut.y + cut.h
    reach = bleed + MARK_LEN
    marks = []
    for x in (x0, x1):
        marks += [(x, y0 - MARK_START, x, max(y0 - reach, 0.0)), (x, y1 + MARK_START, x, min(y1 + reach, panel.page_h))]
    for y in (y0, y1):
        marks += [(x0 - MARK_START, y, max(x0 - reach, 0.0), y), (x1 + MARK_START, y, min(x1 + reach, panel.page_w), y)]
    return marks


# how each kind of `data/kinds.KINDS` becomes pages: its rendered copies and a paper -> plans
PLANNERS = MappingProxyType({"sheet": _sheet_pages, "board": _boards, "dice": dice_pages, "standee": standee_pages})
