"""`pnp diff REF`: which components print differently than at git REF, as pictures for review.

In: the project folder, a git ref, the games, the output folder and an optional
`FaceCache`. Out: a `GameDiff` per game and edition (components changed, added, removed;
a game of several languages has one per language, named olympians-de...) and, for
the report, one PNG per changed component (its faces at REF on the left, now on the
right, fronts above the back), which `summary.py` puts on a page. Only the faces of changed
components are drawn.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

from ..changes import before as reference_of
from ..changes import changed_ids, current, face_list
from ..data.editions import chosen_languages, edition, languages_of, read_translation
from ..data.load import load_game
from ..draw.faces import draw_faces
from ..session import Session

SCALE = 100 / 72      # 100 dpi: enough to read a card's text in a review
GAP = 12


@dataclass
class GameDiff:
    game: str
    changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    images: dict = field(default_factory=dict)     # component id -> PNG bytes

    @property
    def any(self) -> bool:
        return bool(self.changed or self.added or self.removed)


@dataclass(frozen=True)
class Reference:
    """What a diff compares with: a git `ref` (or `last`, the last build) and, when git
    unpacked it already (before the jail of an untrusted run), the folder it is in."""

    ref: str
    tree: Path | None = None


def diff_games(root, game_id: str, reference: Reference, out_dir, session: Session, cache=None,
               languages=None) -> list[GameDiff]:
    """`diff_game` of every edition of a game (those of `languages`, else all)."""
    game = load_game(root, game_id, session)
    source = languages_of(game.meta)[0]
    return [diff_game(root, game_id, reference, out_dir, session, cache, "" if lang == source else lang)
            for lang in chosen_languages(game, languages)]


def diff_game(root, game_id: str, reference: Reference, out_dir, session: Session, cache=None,
              lang: str = "") -> GameDiff:
    """Compare one game's faces (`lang`: an edition's in another language than the cards are
    written in) now with those at the reference, and draw the changed components."""
    game = load_game(root, game_id, session)
    if lang:
        game = edition(game, lang, read_translation(game, lang))
    now, after, _ = current(game, session)
    old_game, before = reference_of(root, game_id, reference.ref, out_dir, lang, session, reference.tree)
    result = GameDiff(game.stem)
    for cid in changed_ids(before, after):
        (result.changed if cid in before else result.added).append(cid)
    result.removed = [cid for cid in before if cid not in after]
    shown = set(result.changed) | set(result.added)
    old = current(old_game, session)[0] if old_game is not None else None
    new_faces = _faces(now, shown, cache, session)
    old_faces = _faces(old, shown, cache, session) if old is not None else {}
    for cid in [c for c in after if c in shown]:
        result.images[cid] = _side_by_side(old_faces.get(cid, []), new_faces.get(cid, []))
    return result


def _faces(found, wanted: set, cache, session: Session) -> dict[str, list]:
    """{component: [PIL images of its faces]} for the wanted components of a rendered game."""
    from ..exports.raster import page_images  # PDFium, under its lock

    cards = [rc for rc in found.cards if rc.card.id in wanted]
    keys = {k for rc in cards for k in face_list(rc)}
    drawn = draw_faces({k: found.svgs[k] for k in keys}, session, found.sizes, found.roots, cache=cache)
    images = page_images(drawn.documents, drawn.page_of, SCALE)
    return {rc.card.id: [images[k] for k in face_list(rc) if k in images] for rc in cards}


def _side_by_side(before: list, after: list) -> bytes:
    """One PNG: before's faces in the left column, after's in the right (blank where absent)."""
    from PIL import Image, ImageDraw

    col_w = max([im.width for im in before + after] or [1])
    rows = max(len(before), len(after), 1)
    heights = [max([c[i].height for c in (before, after) if i < len(c)] or [1]) for i in range(rows)]
    sheet = Image.new("RGB", (2 * col_w + 3 * GAP, sum(heights) + (rows + 2) * GAP + 14), "white")
    pen = ImageDraw.Draw(sheet)
    pen.text((GAP, 4), "before", fill="#a00")
    pen.text((2 * GAP + col_w, 4), "after", fill="#070")
    y = 2 * GAP + 6
    for i, h in enumerate(heights):
        for col, faces in enumerate((before, after)):
            if i < len(faces):
                sheet.paste(faces[i], (GAP + col * (col_w + GAP), y))
        y += h + GAP
    out = io.BytesIO()
    sheet.save(out, format="PNG")
    return out.getvalue()
