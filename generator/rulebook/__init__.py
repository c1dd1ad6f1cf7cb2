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
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from ..data.editions import direction_of
from ..draw.fonts import shipped
from ..draw.glyphs import missing_message, needs_pango
from ..draw.hyphenate import for_game as hyphenation_of
from ..errors import InputError, Problem
from ..guard import read_text_inside
from ..layout.forms import bundle_identity
from ..layout.overlay import place_under
from ..layout.pdfpage import whole_points
from ..session import Session
from ..shapes import Outline
from .kept import contents_key, lines_key
from .source import Block, book_text, parse_blocks, plain_text, render_markdown, rulebook_file
from .words import fill
from .words import problems as problems_of_words
from .words import words as rulebook_words

SINGLE_MM, ROW_MM, COMPONENT_MM, BOARD_MM = 50.0, 44.0, 30.0, 120.0


def words_file(game) -> str:
    """Where a game's (or edition's) own rulebook words are written."""
    return f"cards/{game.id}/i18n/{game.language}.yaml"


def rulebook_warnings(game) -> list[Problem]:
    """The warnings of a game's rulebook that do not stop it: words pnp has not in its language."""
    if rulebook_file(game) is None:
        return []
    return [p for p in problems_of_words(game, words_file(game)) if p.severity == "warning"]


@dataclass(frozen=True)
class RulebookPDF:
    pdf: bytes
    pages: int
    components: tuple
    placements: tuple
    headings: tuple   # (level, text, page)


def layout_rulebook(game, rendered, paper: str, session: Session, kept: dict | None = None) -> RulebookPDF | None:
    """The game's rulebook on `paper`, with its figures' faces placed, or None when the game
    has none. A remembering session gives back its finished book, or its Platypus layout,
    when they would come out the same. `kept`: a dict the caller keeps while it lays out
    the same `game` and `rendered` on its papers: what does not depend on the paper (the
    Jinja, the Markdown, the figures' faces, the checks) is made for the first only."""
    path = rulebook_file(game)
    if path is None:
        return None
    made = (kept or {}).get("rulebook")
    if made is None or made[0] is not game or made[1] is not rendered or made[2] != path:
        made = (game, rendered, path, _prepared(game, rendered, path, session))
        if kept is not None:
            kept["rulebook"] = made
    blocks, figure_faces, cover, words, forms = made[3]
    memo = session.memo
    # the finished book, remembered while `pnp watch` rebuilds: its text and figures, and each
    # face it shows as the sheets have it (bundle bytes and page)
    whole = repr((game.title, dict(game.meta), paper, blocks, cover, sorted(figure_faces.items()), forms,
                  _stamp(rendered), words, hyphenation_of(game).key()))
    book = _Book(game, blocks, figure_faces, paper, cover, words)
    faces = {rc.card.id: rc for rc in rendered.cards}
    # what a layout of this book keeps for the next (its paragraphs' line ends, its contents),
    # kept on by a build that finds the book laid out (a layout again keeps what it made)
    named = (game.id, game.language, paper)
    memo.carry(lines_key(hyphenation_of(game), named))
    memo.carry(contents_key(named))
    return memo.derived(("rulebook", whole), lambda: _placed(book, faces, rendered, session), few=True)


def _prepared(game, rendered, path, session: Session) -> tuple:
    """What a rulebook is laid out from, whatever the paper: its blocks (Jinja and Markdown
    done, components expanded), the faces each figure shows, the cover's, its words and
    the face bundles it shows.

    :raises InputError: the problems of its text, words, figures and glyphs."""
    words = rulebook_words(game)
    word_problems = [p for p in problems_of_words(game, words_file(game)) if p.severity == "error"]
    memo = session.memo
    shown = str(path.relative_to(game.root))
    parsed = parse_blocks(render_markdown(game, path, session), memo, shown, session.limits)
    source = read_text_inside(game.root, path, shown)  # read as render_markdown did
    decks = {d.id for d in game.decks}
    problems = word_problems + [Problem(shown, f"'components:' takes decks to leave out, as -{i.lstrip('-')}; "
                               f"'{i}' is {'no deck' if i.lstrip('-') not in decks else 'not one'}",
                        line=_source_line(source, i))
                for b in parsed if b.kind == "figure" and b.figure[0] == "components"
                for i in b.figure[1] if not i.startswith("-") or i[1:] not in decks]
    blocks = _expand_components(parsed, rendered, words)
    faces = {rc.card.id: rc for rc in rendered.cards}
    figure_faces = {}
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
        chosen = [f for i in found for f in _faces_shown(faces[i])]
        width = SINGLE_MM if len(chosen) == 1 else ROW_MM
        if kind == "components" and chosen:  # the longer side as long as a card's (30 x 42 mm)
            w, h = chosen[0][2], chosen[0][3]
            width = COMPONENT_MM * 88 / 63 * w / max(w, h)
        if len(chosen) == 1 and faces[found[0]].deck.family.wide_figure:  # a board gets the text's width
            trim_w, trim_h = chosen[0][2], chosen[0][3]
            width = BOARD_MM * min(1.0, trim_w / trim_h * 1.2)
        if chosen:  # never larger than life: a 22 mm token is pictured 22 mm wide, not 50
            width = min(width, max(f[2] for f in chosen))
        figure_faces[n] = (chosen, width)
    rtl = direction_of(game.language) == "rtl"
    by_pango = needs_pango(rtl, book_text(game, blocks, words))
    problems.extend(_missing_glyphs(blocks, source, str(path.relative_to(game.root)), by_pango and game.language))
    if problems:
        raise InputError(f"{len(problems)} problem{'s' if len(problems) > 1 else ''} in the rulebook", problems)
    cover = _cover(rendered)
    used = sorted({f[0] for f in cover} | {f[0] for chosen, _ in figure_faces.values() for f in chosen})
    forms = [(k, bundle_identity(rendered.faces_pdfs, rendered.page_of[k][0]), *rendered.page_of[k]) for k in used]
    return blocks, figure_faces, cover, words, forms


@dataclass(frozen=True)
class _Book:
    """What a rulebook is laid out from: the game, its blocks, the faces each figure shows
    (block number -> (faces, width)), the paper, the cover's faces and the book's words."""
    game: Any
    blocks: list
    figure_faces: dict
    paper: str
    cover: list
    words: dict


def _placed(book: _Book, faces, rendered, session: Session) -> RulebookPDF:
    """The laid out pages with the faces placed in their figure boxes (and, in a book set by
    Pango, its text over them)."""
    pdf_bytes, figures, headings, text = _laid_out(book, faces, session, _stamp(rendered))
    placed, placements = [], []
    for page, face, (x, y, w, h) in figures:
        key, card_id, trim_w, trim_h, bleed, corner, shape, orientation, outline, _ = face
        s = w / trim_w  # points per mm of card
        box = (x - bleed * s, y - bleed * s, w + 2 * bleed * s, h + 2 * bleed * s)
        if outline:  # a die face: its polygon (face mm, y down from the bleed corner) on the page
            cut = Outline.of_polygon([(box[0] + px * s, box[1] + box[3] - py * s) for px, py in outline])
        else:
            cut = Outline(shape if shape in ("circle", "hex") else "rounded", x, y, w, h, corner * s, orientation)
        placed.append((page, key, box, cut.pdf_path(1)))
        placements.append({"page": page, "id": card_id, "side": "front", "x_mm": round(x / 72 * 25.4, 3),
                           "y_mm": round(y / 72 * 25.4, 3), "w_mm": round(w / 72 * 25.4, 3),
                           "h_mm": round(h / 72 * 25.4, 3)})
    faces_pdfs, page_of, over = rendered.faces_pdfs, rendered.page_of, []
    if text is not None:   # the text Pango set: one more document of pages, each piece over its page
        text_pdf, pieces = text
        faces_pdfs = WithText(faces_pdfs, text_pdf)
        page_of = {**page_of, **{key: (len(faces_pdfs) - 1, n) for n, key in enumerate(dict.fromkeys(
            key for _, key, _ in pieces))}}
        for page, key, (x, top, w, h) in pieces:
            fw, fh = whole_points(w), whole_points(h)
            over.append((page, key, (x, top - h, w, h), b"%.4f %.4f %d %d re" % (x, top - fh, fw, fh)))
    pdf, pages = place_under(pdf_bytes, faces_pdfs, page_of, placed, session.segments, session.font_digests, over)
    shown = sorted({p["id"] for p in placements})
    components = tuple({"id": i, "count": sum(1 for p in placements if p["id"] == i)} for i in shown)
    return RulebookPDF(pdf, pages, components, tuple(placements), tuple(headings))


def _laid_out(book: _Book, faces, session: Session, stamp: str = ""):
    """build_pdf, or the pages it gave last time for the same text, figure sizes and cards:
    the Platypus layout does not depend on what a face shows, only on which card it is and
    its size, so a card edit that leaves the rulebook's text alone (`pnp watch`) skips it.
    The figures come back with the faces as they are now."""
    def by_card(face):
        return face[1:]  # everything but the face key: card id, sizes, bleed, corner, shape
    game, blocks, figure_faces, paper, cover, words = (book.game, book.blocks, book.figure_faces, book.paper,
                                                       book.cover, book.words)
    key = repr((game.title, dict(game.meta), paper, blocks, [by_card(f) for f in cover],
                sorted((n, [by_card(f) for f in chosen], width) for n, (chosen, width) in figure_faces.items()),
                stamp, words, hyphenation_of(game).key()))   # a rename changes the words kept whole
    laid_out = session.rulebooks.get(key)
    if laid_out is None:
        laid_out = build_pdf(game, blocks, figure_faces, paper, cover, words, session, stamp)
        session.rulebooks.put(key, laid_out)  # kept while `pnp watch` rebuilds
    pdf_bytes, figures, headings, text = laid_out
    return pdf_bytes, [(page, _face(faces[face[1]], face[-1]), box) for page, face, box in figures], headings, text


def build_pdf(game, blocks, figure_faces, paper, cover, words, session: Session, stamp: str = ""):
    """`book.build_pdf`: Platypus (reportlab's regexes, 0.1-0.2 s) imported only when a
    rulebook's pages are laid out again, never by a rebuild whose book the memo holds."""
    from .book import build_pdf as laid_out

    return laid_out(game, blocks, figure_faces, paper, cover, words, session, stamp)


def _stamp(rendered) -> str:
    """The version stamp the faces carry, for every page's footer ("" when there is none)."""
    stamp = getattr(rendered, "stamp", None)
    return stamp.text if stamp is not None else ""


def _face(rc, die_face=None):
    """What a figure needs of a face: its key, card, sizes, cut shape and (a die's) face number."""
    d = rc.deck
    key = rc.front if die_face is None else rc.faces[die_face]
    outline = tuple(d.face_outline) if die_face is not None else ()
    return (key, rc.card.id, d.trim_w, d.trim_h, d.bleed, d.corner, d.shape, d.orientation, outline, die_face)


def _faces_shown(rc) -> list:
    """The faces a figure shows for a card: its front; a die, each of its different faces
    (a die pictured by one face says nothing about the others)."""
    if not rc.faces:
        return [_face(rc)]
    first: dict[str, int] = {}   # each different face -> the first face number showing it
    for n, symbol in enumerate(rc.card.fields.get("faces") or ()):
        first.setdefault(repr(symbol), n)
    return [_face(rc, n) for n in first.values()]


def _cover(rendered):
    """Three cards of the first deck, spread across it, for the title page."""
    first = [rc for rc in rendered.cards if rc.deck is rendered.cards[0].deck]
    if not first:
        return []
    picks = sorted({0, len(first) // 2, len(first) - 1})
    return [_face(first[i]) for i in picks]


def _expand_components(blocks, rendered, words: dict):
    """`![..](components:)` becomes one figure row per deck: a few of its designs, with counts
    and sizes (a die: one die's faces). Decks of one design and the same size share a row.
    `components:-board,-arena` leaves those decks out (pictured in figures of their own)."""
    out = []
    for b in blocks:
        if not (b.kind == "figure" and b.figure[0] == "components"):
            out.append(b)
            continue
        left_out = {i[1:] for i in b.figure[1] if i.startswith("-")}
        rows: list[list] = []  # [ids, captions, deck] per figure row
        for deck in rendered.game.decks:
            if deck.id in left_out:
                continue
            seen: set = set()
            ids: list[str] = []
            for rc in rendered.cards:
                if rc.deck is deck and rc.front not in seen and len(ids) < deck.family.figure_designs:
                    seen.add(rc.front)
                    ids.append(rc.card.id)
            copies = sum(c.count for c in deck.cards)
            last = rows[-1] if rows else None
            if (len(ids) == 1 and last and len(last[0]) < 4 and len(last[1]) == len(last[0])
                    and deck.family is last[2].family and deck.family.shares_rows
                    and _size(deck, words) == _size(last[2], words)):
                last[0].append(ids[0])   # a row of one-design decks of the same size
                last[1].append(f"{copies} × {deck.name}")
            else:
                rows.append([ids, [f"{copies} × {deck.name}"], deck])
        for ids, names, deck in rows:
            caption = escape(f"{', '.join(names)} ({_size(deck, words)})")
            out.append(Block("figure", text=caption, figure=("components", tuple(ids)), line=b.line))
    return out


def mm_text(value: float) -> str:
    """A size as a person reads it: millimetres to one decimal at most (25.8885 -> 25.9)."""
    return f"{round(value, 1):g}"


def _size(deck, words: dict) -> str:
    kind = deck.family
    return fill(words[kind.size_word], **kind.size(deck, mm_text))


class WithText(Sequence):
    """A game's face bundles and one more document: the rulebook's text set by Pango."""

    def __init__(self, bundles, text: bytes):
        self.bundles, self.text = bundles, text
        self.entries = (*getattr(bundles, "entries", [None] * len(bundles)), text)   # (forms.bundle_identity)

    def __len__(self) -> int:
        return len(self.bundles) + 1

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self.text if index in (len(self.bundles), -1) else self.bundles[index]


def _missing_glyphs(blocks, source: str, shown: str, pango_lang: str | bool = False) -> list[Problem]:
    """Characters the rulebook's fonts lack (reportlab would print an empty box); in a book
    set by Pango (`pango_lang`: its language), characters that no shipped font has."""
    if pango_lang:
        return _missing_anywhere(blocks, source, shown, str(pango_lang))
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


def _missing_anywhere(blocks, source: str, shown: str, lang: str) -> list[Problem]:
    from .pangobook import BookText
    from .styles import styles

    text = BookText(lang, False)
    style = text.style(styles(lang)["body"])
    every = "".join(plain_text(t) for b in blocks for t in [b.text, *(c for row in b.items if isinstance(row, list)
                                                                      for c in row),
                                                            *(i for i in b.items if isinstance(i, str))])
    problems = []
    for ch in text.missing(every, style):
        problems.append(Problem(shown, f"character {ch!r} (U+{ord(ch):04X} {unicodedata.name(ch, '?')}) is in no "
                                       "font pnp ships", line=_source_line(source, ch)))
    return problems


def _source_line(source: str, needle: str) -> int | None:
    for n, line in enumerate(source.splitlines(), start=1):
        if needle in line:
            return n
    return None
