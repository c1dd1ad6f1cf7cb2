"""Home print modes: how the backs of a sheet meet their fronts.

In: the page plans `pages.py` makes for long-edge duplex (a page of fronts, then its page
of backs with the columns mirrored) and a `PrintMode`. Out: the plans for the mode:

- duplex-long: as planned; backs moved by `back_offset`.
- duplex-short: every back page turned 180° about the page's centre (x stays, y -> page_h
  - y - h, each face drawn turned 180°), so a flip on the short edge puts each back behind
  its front; then moved by `back_offset`.
- gutter-fold: components with backs are planned on half a landscape page (see
  `half_paper`); each page of fronts and its page of backs become one page, fronts on the
  left half, backs on the right, mirrored about the dashed fold line in the middle: fold,
  glue, cut. Components without backs keep their own pages.
- fronts-only: pages of backs are left out.
- fronts-then-backs (simplex printers that dislike card stock): every page of fronts
  first, in order, then every page of backs in the same sheet order, each laid out as for
  a long-edge flip: print the fronts, turn the printed stack over on its long edge as it
  came out (face-down output: sheet 1 at the bottom, so after the turn sheet 1 is on
  top, fronts up), put it back in the tray and print the backs.
- interleaved: each page of fronts followed by its page of backs (the duplex-long plans),
  for printing one sheet at a time on a simplex printer: print a front, feed the same
  sheet again turned over on its long edge, print its back.

`back_offset` (x, y in mm, +x right and +y up as the back page is printed) moves every
face, crop mark and cut outline of a back page, correcting a printer that misregisters
the second side; the calibration page (`calibration.py`) measures it. Pure plans: the
placement map and the drawing both come from them, so they agree.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..shapes import Outline
from ..units import paper_size, pt
from .plan import FaceOnPage, Label, PagePlan

MODES = ("duplex-long", "duplex-short", "gutter-fold", "fronts-only", "fronts-then-backs", "interleaved")  # the CLI's
TWO_SIDED = ("duplex-long", "duplex-short", "fronts-then-backs", "interleaved")   # a back offset applies
HOW = {
    "duplex-long": "backs (flip on the long edge)",
    "duplex-short": "backs (flip on the short edge)",
    "gutter-fold": "fronts | backs: fold on the dashed line, glue, then cut",
    "fronts-only": "fronts",
    "fronts-then-backs": "backs: print after all fronts, the printed stack turned over on its long edge",
    "interleaved": "backs: feed the sheet of the page before again, turned over on its long edge",
}


@dataclass(frozen=True)
class PrintMode:
    mode: str = "duplex-long"
    back_offset: tuple[float, float] = (0.0, 0.0)   # mm
    cutter: str | None = None    # a print-then-cut machine (cutters.py): its marks, its area

    @property
    def duplex(self) -> bool:
        """Both sides of a sheet printed (by the printer or by feeding it again)."""
        return self.mode in TWO_SIDED


def half_paper(paper: str) -> str:
    """The paper a gutter-fold half is planned on: the page turned landscape, cut in two
    across its long side, as a custom paper name (A4 -> 148.5x210mm)."""
    w, h = paper_size(paper)
    long, short = max(w, h), min(w, h)
    return f"{long / 2:g}x{short:g}mm"


def apply_mode(pages: list[PagePlan], mode: PrintMode, paper: str) -> list[PagePlan]:
    """The plans of long-edge duplex turned into the plans of `mode` (see the module doc)."""
    if mode.mode == "fronts-only":
        return [p for p in pages if p.side == "front"]
    if mode.mode == "gutter-fold":
        return _gutter_pages(pages, paper)
    if mode.mode == "fronts-then-backs":  # a stable sort: fronts in order, then backs in the same order
        pages = _fronts_then_backs(pages)
    out = []
    for page in pages:
        if page.side == "back":
            if mode.mode == "duplex-short":
                page = turn_page(page)
            dx, dy = mode.back_offset
            if dx or dy:
                page = move_page(page, dx, dy)
            page = replace(page, how=HOW[mode.mode])
        out.append(page)
    return out


def _fronts_then_backs(pages: list[PagePlan]) -> list[PagePlan]:
    """Every page of fronts, then every page of backs in the same order; each page keeps the
    number of its sheet (a page of backs follows its page of fronts in the plans)."""
    numbered, sheet = [], 0
    for page in pages:
        sheet += page.side == "front"
        numbered.append(replace(page, sheet=sheet))
    return [p for p in numbered if p.side == "front"] + [p for p in numbered if p.side == "back"]


# --- geometry of one page -------------------------------------------------------------------

def _map_outline(o: Outline, fx, fy, swap_box) -> Outline:
    """An outline with each point moved by (fx(x), fy(y)); `swap_box` gives the new x, y of
    its bounding box."""
    if o.shape == "polygon":
        return Outline.of_polygon([(fx(x), fy(y)) for x, y in o.points])
    x, y = swap_box(o)
    return replace(o, x=x, y=y)


def turn_outline(o: Outline, w: float, h: float) -> Outline:
    """Turned 180° about the centre of a w x h page (rect, rounded, circle and hex outlines
    are symmetric under a half turn, so only their box moves)."""
    return _map_outline(o, lambda x: w - x, lambda y: h - y, lambda o: (w - o.x - o.w, h - o.y - o.h))


def move_outline(o: Outline, dx: float, dy: float) -> Outline:
    return _map_outline(o, lambda x: x + dx, lambda y: y + dy, lambda o: (o.x + dx, o.y + dy))


def _face_matrix(face: FaceOnPage) -> tuple:
    return face.matrix or (1, 0, 0, 1, pt(face.at[0]), pt(face.at[1]))


def turn_face(face: FaceOnPage, w: float, h: float) -> FaceOnPage:
    """The face turned 180° about the page's centre: its matrix composed with the half turn."""
    a, b, c, d, e, f = _face_matrix(face)
    matrix = (-a, -b, -c, -d, pt(w) - e, pt(h) - f)
    at = None if face.at is None else (w - face.at[0] - _face_w(face), h - face.at[1] - _face_h(face))
    return replace(face, at=at, matrix=matrix, clip=turn_outline(face.clip, w, h), cut=turn_outline(face.cut, w, h),
                   extra={**face.extra, "turned": (face.extra.get("turned", 0) + 180) % 360})


def move_face(face: FaceOnPage, dx: float, dy: float) -> FaceOnPage:
    a, b, c, d, e, f = _face_matrix(face)
    at = None if face.at is None else (face.at[0] + dx, face.at[1] + dy)
    return replace(face, at=at, matrix=(a, b, c, d, e + pt(dx), f + pt(dy)),
                   clip=move_outline(face.clip, dx, dy), cut=move_outline(face.cut, dx, dy))


def _face_w(face: FaceOnPage) -> float:
    """Width of the drawn face (trim plus bleed both sides): its cut is centred in it."""
    return face.cut.w + 2 * (face.cut.x - face.at[0])


def _face_h(face: FaceOnPage) -> float:
    return face.cut.h + 2 * (face.cut.y - face.at[1])


def _segments(segs, fx, fy):
    return tuple((fx(x1), fy(y1), fx(x2), fy(y2)) for x1, y1, x2, y2 in segs)


def turn_page(page: PagePlan) -> PagePlan:
    w, h = page.width, page.height
    fx, fy = (lambda x: w - x), (lambda y: h - y)
    return replace(page, faces=tuple(turn_face(f, w, h) for f in page.faces), marks=_segments(page.marks, fx, fy),
                   outlines=tuple(turn_outline(o, w, h) for o in page.outlines),
                   dashed=_segments(page.dashed, fx, fy), fills=tuple(turn_outline(o, w, h) for o in page.fills))


def move_page(page: PagePlan, dx: float, dy: float) -> PagePlan:
    fx, fy = (lambda x: x + dx), (lambda y: y + dy)
    return replace(page, faces=tuple(move_face(f, dx, dy) for f in page.faces), marks=_segments(page.marks, fx, fy),
                   outlines=tuple(move_outline(o, dx, dy) for o in page.outlines),
                   dashed=_segments(page.dashed, fx, fy), fills=tuple(move_outline(o, dx, dy) for o in page.fills))


# --- gutter-fold ------------------------------------------------------------------------------

def _gutter_pages(pages: list[PagePlan], paper: str) -> list[PagePlan]:
    """Each page of fronts planned on a half page joined to its page of backs on the right half."""
    w, h = paper_size(paper)
    long, short = max(w, h), min(w, h)
    half = long / 2
    out, i = [], 0
    while i < len(pages):
        page = pages[i]
        backs = pages[i + 1] if i + 1 < len(pages) and pages[i + 1].side == "back" else None
        if backs is None or abs(page.width - half) > 0.01:
            out.append(page)  # no backs: the page as planned on the whole paper
            i += 1
            continue
        moved = move_page(backs, half, 0.0)
        label, fold_from = page.label, 0.0
        if label is not None and label.angle == 0:
            label = Label(long / 2, label.y, 0, long - 20)
            fold_from = label.y + 3.0  # the fold line stops above the label
        out.append(replace(
            page, width=long, height=short, faces=page.faces + moved.faces, marks=page.marks + moved.marks,
            outlines=page.outlines + moved.outlines, label=label,
            dashed=page.dashed + ((half, fold_from, half, short),),
            cuts=tuple((f.card, f.cut) for f in page.faces) if page.cuts is None else page.cuts,
            how=HOW["gutter-fold"]))
        i += 2
    return out
