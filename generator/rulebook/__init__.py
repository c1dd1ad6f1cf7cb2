"""Rulebook: the game's Markdown rules, laid out as a printable PDF that cannot drift
from the cards.

In: a loaded `Game` and its `RenderedGame`. Out: a `RulebookPDF` (or None when the game
has no rulebook): bytes, page count, and the card faces shown as figures with where they
were drawn (for the manifest). Steps: Jinja over the Markdown (numbers and tables from the
YAML) -> Markdown blocks -> Platypus pages (title, contents, numbered headings, outline)
-> the real rendered card faces placed as vector forms in the figure boxes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from xml.sax.saxutils import escape

from ..draw.fonts import shipped
from ..draw.glyphs import missing_message
from ..errors import InputError, Problem
from ..guard import read_text_inside
from ..layout.forms import bundle_identity
from ..layout.overlay import place_under
from ..session import Session
from ..shapes import Outline
from .book import build_pdf
from .source import Block, parse_blocks, plain_text, render_markdown, rulebook_file

SINGLE_MM, ROW_MM, COMPONENT_MM, BOARD_MM = 50.0, 44.0, 30.0, 120.0


@dataclass(frozen=True)
class RulebookPDF:
    pdf: bytes
    pages: int
    components: tuple
    placements: tuple
    headings: tuple   # (level, text, page)


def layout_rulebook(game, rendered, paper: str, session: Session | None = None) -> RulebookPDF | None:
    """The game's rulebook on `paper`, with its figures' faces placed, or None when the game
    has none. A remembering session gives back its finished book, or its Platypus layout,
    when they would come out the same."""
    path = rulebook_file(game)
    if path is None:
        return None
    session = session or Session()
    memo = session.memo
    blocks = _expand_components(parse_blocks(render_markdown(game, path, session), memo), rendered)
    source = read_text_inside(game.root, path, str(path.relative_to(game.root)))  # read as render_markdown did
    faces = {rc.card.id: rc for rc in rendered.cards}
    figure_faces, problems = {}, []
    for n, b in enumerate(blocks):
        if b.kind != "figure":
            continue
        kind, ids = b.figure
        missing = [i for i in ids if i not in faces]
        for i in missing:
            problems.append(Problem(str(path.relative_to(game.root)), f"figure names unknown card '{i}'",
                                    line=_source_line(source, i)))
        if not ids and kind != "components":
            problems.append(Problem(str(path.relative_to(game.root)), "figure names no card",
                                    line=_source_line(source, kind + ":")))
        found = [i for i in ids if i in faces]
        chosen = [_face(faces[i]) for i in found]
        width = SINGLE_MM if len(chosen) == 1 else (COMPONENT_MM if kind == "components" else ROW_MM)
        if len(chosen) == 1 and faces[found[0]].deck.layout == "board":  # a board gets the text's width
            trim_w, trim_h = chosen[0][2], chosen[0][3]
            width = BOARD_MM * min(1.0, trim_w / trim_h * 1.2)
        figure_faces[n] = (chosen, width)
    problems.extend(_missing_glyphs(blocks, source, str(path.relative_to(game.root))))
    if problems:
        raise InputError(f"{len(problems)} problem{'s' if len(problems) > 1 else ''} in the rulebook", problems)
    cover = _cover(rendered)
    used = sorted({f[0] for f in cover} | {f[0] for chosen, _ in figure_faces.values() for f in chosen})
    # the finished book, remembered while `pnp watch` rebuilds: its text and figures, and each
    # face it shows as the sheets have it (bundle bytes and page)
    forms = [(k, bundle_identity(rendered.faces_pdfs, rendered.page_of[k][0]), *rendered.page_of[k]) for k in used]
    whole = repr((game.title, dict(game.meta), paper, blocks, cover, sorted(figure_faces.items()), forms,
                  _stamp(rendered)))
    return memo.derived(("rulebook", whole),
                        lambda: _placed(game, blocks, figure_faces, paper, cover, faces, rendered, session), few=True)


def _placed(game, blocks, figure_faces, paper, cover, faces, rendered, session: Session) -> RulebookPDF:
    """The laid out pages with the faces placed in their figure boxes."""
    pdf_bytes, figures, headings = _laid_out(game, blocks, figure_faces, paper, cover, faces, session,
                                             _stamp(rendered))
    placed, placements = [], []
    for page, face, (x, y, w, h) in figures:
        key, card_id, trim_w, trim_h, bleed, corner, shape, orientation = face
        s = w / trim_w  # points per mm of card
        box = (x - bleed * s, y - bleed * s, w + 2 * bleed * s, h + 2 * bleed * s)
        cut = Outline(shape if shape in ("circle", "hex") else "rounded", x, y, w, h, corner * s, orientation)
        placed.append((page, key, box, cut.pdf_path(1)))
        placements.append({"page": page, "id": card_id, "side": "front", "x_mm": round(x / 72 * 25.4, 3),
                           "y_mm": round(y / 72 * 25.4, 3), "w_mm": round(w / 72 * 25.4, 3),
                           "h_mm": round(h / 72 * 25.4, 3)})
    pdf, pages = place_under(pdf_bytes, rendered.faces_pdfs, rendered.page_of, placed, session.segments)
    shown = sorted({p["id"] for p in placements})
    components = tuple({"id": i, "count": sum(1 for p in placements if p["id"] == i)} for i in shown)
    return RulebookPDF(pdf, pages, components, tuple(placements), tuple(headings))


def _laid_out(game, blocks, figure_faces, paper, cover, faces, session: Session, stamp: str = ""):
    """build_pdf, or the pages it gave last time for the same text, figure sizes and cards:
    the Platypus layout does not depend on what a face shows, only on which card it is and
    its size, so a card edit that leaves the rulebook's text alone (`pnp watch`) skips it.
    The figures come back with the faces as they are now."""
    def by_card(face):
        return face[1:]  # everything but the face key: card id, sizes, bleed, corner, shape
    key = repr((game.title, dict(game.meta), paper, blocks, [by_card(f) for f in cover],
                sorted((n, [by_card(f) for f in chosen], width) for n, (chosen, width) in figure_faces.items()),
                stamp))
    laid_out = session.rulebooks.get(key)
    if laid_out is None:
        laid_out = build_pdf(game, blocks, figure_faces, paper, cover, session.memo, stamp)
        session.rulebooks.put(key, laid_out)  # kept while `pnp watch` rebuilds
    pdf_bytes, figures, headings = laid_out
    return pdf_bytes, [(page, _face(faces[face[1]]), box) for page, face, box in figures], headings


def _stamp(rendered) -> str:
    """The version stamp the faces carry, for every page's footer ("" when there is none)."""
    stamp = getattr(rendered, "stamp", None)
    return stamp.text if stamp is not None else ""


def _face(rc):
    d = rc.deck
    return (rc.front, rc.card.id, d.trim_w, d.trim_h, d.bleed, d.corner, d.shape, d.orientation)


def _cover(rendered):
    """Three cards of the first deck, spread across it, for the title page."""
    first = [rc for rc in rendered.cards if rc.deck is rendered.cards[0].deck]
    if not first:
        return []
    picks = sorted({0, len(first) // 2, len(first) - 1})
    return [_face(first[i]) for i in picks]


def _expand_components(blocks, rendered):
    """`![..](components:)` becomes one figure row per deck: a few of its designs, with counts."""
    out = []
    for b in blocks:
        if b.kind == "figure" and b.figure[0] == "components":
            for deck in rendered.game.decks:
                seen, ids = set(), []
                for rc in rendered.cards:
                    if rc.deck is deck and rc.front not in seen and len(ids) < 4:
                        seen.add(rc.front)
                        ids.append(rc.card.id)
                copies = sum(c.count for c in deck.cards)
                caption = escape(f"{copies} × {deck.name} ({deck.trim_w:g} × {deck.trim_h:g} mm)")
                out.append(Block("figure", text=caption, figure=("components", tuple(ids)), line=b.line))
        else:
            out.append(b)
    return out


def _missing_glyphs(blocks, source: str, shown: str) -> list[Problem]:
    """Characters the rulebook's fonts lack (reportlab would print an empty box)."""
    fonts = shipped()
    problems, seen = [], set()
    for b in blocks:
        texts = [b.text] + [c for row in b.items if isinstance(row, list) for c in row] + \
                [i for i in b.items if isinstance(i, str)]
        face = fonts.face("EB Garamond") if b.kind == "heading" and b.level <= 2 else fonts.face("Lato")
        for text in texts:
            plain = plain_text(re.sub(r"<font[^>]*>.*?</font>", "", text))
            for ch in face.missing(plain):
                if (ch, face.postscript_name) not in seen:
                    seen.add((ch, face.postscript_name))
                    problems.append(Problem(shown, missing_message(ch, face), line=_source_line(source, ch)))
    return problems


def _source_line(source: str, needle: str) -> int | None:
    for n, line in enumerate(source.splitlines(), start=1):
        if needle in line:
            return n
    return None
