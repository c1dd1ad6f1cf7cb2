"""Text on the seams of boards printed in glued panels: what `pnp validate` warns about.

In: a `RenderedGame` and a paper. Out: `Problem`s (warnings), one per run of text on a
board's face that a seam between two glued panels would cut: the seam is where the top
panel's edge lies (the strip under it is glue), so a word across it is printed on two
pieces of paper and never quite lines up. The joins come from the same `plan_board` the
sheets are laid out with, so they move with the paper; the text is read from the drawn
face (pdfium's text runs), so whatever a template writes is seen, however it was placed.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import Problem
from ..pdfiumlock import pdfium_document
from ..units import paper_size
from .boards import BoardPlan, plan_board

CLEARANCE = 2.0   # mm: text closer to a seam than this is cut by a join glued a little off
PT = 25.4 / 72


@dataclass(frozen=True)
class Seam:
    axis: str        # "x": a vertical seam at x mm from the board's left edge; "y": horizontal, from its top
    at: float
    panels: tuple[int, ...]   # the panel numbers either side of it, for the message


def seams(plan: BoardPlan) -> list[Seam]:
    """The seams of a board printed in glued panels (none when it prints whole or in sections),
    in board mm from its top-left corner: the left edge of every panel right of a join, the top
    edge of every panel below one (those panels lie on top)."""
    if plan.mode != "panels":
        return []
    first = plan.panels[0]
    step_x, step_y = first.region[2] - plan.overlap, first.region[3] - plan.overlap
    found = []
    for c in range(1, plan.cols):
        found.append(Seam("x", round(c * step_x, 4), tuple(p.number for p in plan.panels if p.col in (c - 1, c))))
    for r in range(1, plan.rows):
        found.append(Seam("y", round(r * step_y, 4), tuple(p.number for p in plan.panels if p.row in (r - 1, r))))
    return found


def text_runs(pdf: bytes, page: int, bleed: float) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Each run of text on a drawn face with its box (x0, y0, x1, y1), in mm from the trim's
    top-left corner, y down. A run is letters that follow one another closely, in any
    direction (turned text too); a wide gap (more than two letters) starts a new one,
    so two words either side of an emblem are two runs."""
    with pdfium_document(pdf) as doc:
        face = doc[page]
        height = face.get_height()
        text = face.get_textpage()
        runs, current, last, size = [], None, None, 0.0   # current: [letters, left, bottom, right, top], pt, y up
        for i in range(text.count_chars()):
            letter = text.get_text_range(i, 1)
            left, bottom, right, top = box = text.get_charbox(i)
            if letter.isspace() or right <= left or top <= bottom:
                if current is not None and not current[0].endswith(" "):
                    current[0] += " "
                continue
            if current is not None and not _follows(tuple(current[1:]), last, box, size, letter):
                runs.append(current)
                current = None
            if current is None:
                current, size = [letter, left, bottom, right, top], 0.0
            else:
                current[0] += letter
                current[1:] = [min(current[1], left), min(current[2], bottom), max(current[3], right),
                               max(current[4], top)]
            last, size = box, max(size, top - bottom, right - left)
        if current is not None:
            runs.append(current)
    out = []
    for letters, left, bottom, right, top in runs:
        words = letters.split()
        # letter-spaced capitals come back a letter at a time: "M A R K E T" reads MARKET
        words = "".join(words) if len(words) > 2 and all(len(w) == 1 for w in words) else " ".join(words)
        out.append((words, (left * PT - bleed, (height - top) * PT - bleed,
                            right * PT - bleed, (height - bottom) * PT - bleed)))
    return out


def _follows(line, last, box, size, letter) -> bool:
    """Letter box `box` continues a run whose letters span `line` and end with `last` (boxes
    as left, bottom, right, top): beside the last letter on the run's line, above or below it
    in turned text, or touching it corner to corner in slanted text; no more than two letters
    away, and (a letter or digit) not twice as large or small as the run's letters."""
    def overlaps(lo1, hi1, lo2, hi2):  # by half the second's extent
        return min(hi1, hi2) - max(lo1, lo2) >= 0.5 * (hi2 - lo2)

    if letter.isalnum() and not 0.5 < max(box[3] - box[1], box[2] - box[0]) / size < 2:
        return False
    gap_x, gap_y = max(box[0] - last[2], last[0] - box[2]), max(box[1] - last[3], last[1] - box[3])
    across, down = line[2] - line[0], line[3] - line[1]   # a run of several letters has a direction
    if overlaps(line[1], line[3], box[1], box[3]) and (last == line or across >= down):
        return gap_x <= 2 * size
    if overlaps(line[0], line[2], box[0], box[2]) and (last == line or down >= across):
        return gap_y <= 2 * size
    return gap_x <= 0.5 * size and gap_y <= 0.5 * size


def text_on_seams(rendered, paper: str) -> list[Problem]:
    """A warning for every run of text on a board that a seam of its panels on `paper` cuts."""
    problems = []
    for rc in rendered.cards:
        deck = rc.deck
        if not deck.family.seams or deck.sections:
            continue
        try:
            plan = plan_board(paper, paper_size(paper), deck.trim_w, deck.trim_h, deck.bleed, deck.overlap)
        except ValueError:
            continue  # a board that does not fit is reported by the layout itself
        board_seams = seams(plan)
        if not board_seams or rc.front not in rendered.page_of:
            continue
        doc, page = rendered.page_of[rc.front]
        for words, box in text_runs(rendered.faces_pdfs[doc], page, deck.bleed):
            x0, y0, x1, y1 = box
            for seam in board_seams:
                lo, hi = (x0, x1) if seam.axis == "x" else (y0, y1)
                if lo - CLEARANCE < seam.at < hi + CLEARANCE:
                    panels = " and ".join(str(n) for n in _panels_under(plan, deck.trim_h, box, seam))
                    problems.append(Problem(
                        rc.card.source.file,
                        f"text '{words if len(words) <= 40 else words[:39] + '…'}' lies on the seam between "
                        f"panels {panels} on {paper.upper()} "
                        f"({seam.axis} = {seam.at:.1f} mm from the board's {'left' if seam.axis == 'x' else 'top'} "
                        "edge): keep text off the joins", line=rc.card.source.line, card=rc.card.id))
    return problems


def _panels_under(plan, board_h, box, seam) -> list[int]:
    """The panels either side of `seam` that show part of `box` (board mm, top-left, y down)."""
    x0, y0, x1, y1 = box
    hits = []
    for p in plan.panels:
        px, py, pw, ph = p.region
        top = board_h - py - ph   # the region's top edge, y down
        if p.number in seam.panels and px < x1 and x0 < px + pw and top < y1 and y0 < top + ph:
            hits.append(p.number)
    return hits
