"""The files of `pnp changes`: the changelog sheet, the reprint pack and the errata as JSON.

In: an `errata.Errata` with its two versions, the project, the build's options, a session and
the face cache. Out: the artifacts (written by `exports/files.write_game` into
output/<game>/, merged with the game's other files): `<game>-changes-<paper>.pdf` (the
changelog sheet, `layout/changelog.py`), `<game>-reprint-<paper>.pdf` (only the faces to
print again, each with its back, laid out and duplex-registered as the game's sheets are,
`layout/sheets.py`: the copies a change asks for, a count +1 one copy) and
`<game>-changes.json` (`errata.as_data`: every change and the pull list). Only the new
version's game is drawn whole (its faces come from the face cache where a build drew them);
of the old one, the faces of removed cards only.
"""
from __future__ import annotations

import dataclasses
import io
import json

from .changes import current, describe
from .draw.faces import draw_faces
from .draw.render import render_game
from .draw.stamp import stamp_of
from .errata import NOW, Errata, Version, as_data
from .errata import describe as in_words
from .errors import InputError
from .exports.files import Artifact
from .layout.changelog import changelog_pdf
from .layout.sheets import layout_sheets
from .printing import game_papers, print_mode_of
from .session import Session

SCALE = 200 / 72   # the changelog's faces: 200 dpi


def artifacts(e: Errata, old: Version, new: Version, root, options, session: Session, cache=None) -> list[Artifact]:
    """The changelog sheets, the reprint pack (when anything is to be printed) and the JSON."""
    game = new.game if new.game is not None else old.game
    if game is None:   # errata() refuses a game absent from both versions
        raise InputError(f"{e.game}: no such game at {e.old} nor at {e.new}")
    stem = game.stem
    papers = game_papers(game, options)
    data = json.dumps(as_data(e), indent=1, ensure_ascii=False).encode() + b"\n"
    out = [Artifact(f"{stem}-changes.json", data, "changes", "", 0)]
    rendered = None
    if new.game is not None:
        rendered = render_game(new.game, session, cache=cache, stamp=stamp_of(new.game, _stamp(new, root, options)),
                               pictures=options.pictures(root))
    entries = _entries(e, rendered, old, session, cache)
    for paper in papers:
        pdf, pages = changelog_pdf(game.title, (e.old, e.new), entries, paper)
        out.append(Artifact(f"{stem}-changes-{paper}.pdf", pdf, "changes", paper, pages))
    reprint = {c.id: c.reprint for c in e.changes if c.reprint}
    if rendered is not None and reprint:
        cards = tuple(dataclasses.replace(rc, card=dataclasses.replace(rc.card, count=reprint[rc.card.id]))
                      for rc in rendered.cards if rc.card.id in reprint)
        subset = dataclasses.replace(rendered, cards=cards)
        crop_marks = (game.meta.get("print") or {}).get("crop_marks", True)
        mode = print_mode_of(game, options)
        for paper in papers:
            sheets = layout_sheets(subset, paper, session, crop_marks=crop_marks, mode=mode)
            out.append(Artifact(f"{stem}-reprint-{paper}.pdf", sheets.pdf, "reprint", paper, sheets.pages,
                                components=list(sheets.components), placements=sheets.placements,
                                extra={"mode": mode.mode, "back_offset_mm": list(mode.back_offset),
                                       "from": e.old, "to": e.new}))
    return out


def _stamp(new: Version, root, options) -> str | None:
    """The stamp asked for, its `{version}` the version B's (a git ref's `git describe`), as a
    build of B would print it; None: the game's own (`stamp_of`)."""
    template = options.stamp
    if template is None and new.game is not None:
        template = (new.game.meta.get("print") or {}).get("stamp")
    if new.label == NOW or not template or "{version}" not in str(template):
        return options.stamp
    return str(template).replace("{version}", describe(root, new.label))


def _entries(e: Errata, rendered, old: Version, session: Session, cache) -> list[dict]:
    """Each change as the changelog sheet takes it, with the PNG of the face it shows: the new
    front (the back for a back only change); a removed card's old front."""
    shown = {}
    if rendered is not None:
        by_id = {rc.card.id: rc for rc in rendered.cards}
        for c in e.changes:
            rc = by_id.get(c.id)
            if rc is not None:
                shown[c.id] = (rc.back if c.kinds == ("back",) and rc.back else rc.front, rc.deck)
        images = _pngs(rendered.faces_pdfs, rendered.page_of, {k for k, _ in shown.values()})
    else:
        images = {}
    gone = [c.id for c in e.changes if "removed" in c.kinds]
    if gone and old.game is not None:
        found = current(old.game, session)[0]
        old_cards = {rc.card.id: rc for rc in found.cards if rc.card.id in gone}
        keys = {rc.front for rc in old_cards.values() if rc.front}
        drawn = draw_faces({k: found.svgs[k] for k in keys}, session, found.sizes, found.roots, cache=cache)
        images.update(_pngs(drawn.documents, drawn.page_of, keys))
        shown.update({cid: (rc.front, rc.deck) for cid, rc in old_cards.items()})
    entries = []
    for c in e.changes:
        key, deck = shown.get(c.id, (None, None))
        ident = c.short[1] or c.short[0]
        was = f" (was {c.short[0]})" if c.short[0] and c.short[1] and c.short[0] != c.short[1] else ""
        heading = f"  {c.deck}{f' · id {ident}' if ident else ''}{was} · {in_words(c)} · " \
                  f"print {c.reprint}, pull {c.pull}"
        entries.append({"name": c.name, "heading": heading, "words": c.words, "face": images.get(key),
                        "face_mm": (deck.width, deck.height) if deck is not None else (0, 0)})
    return entries


def _pngs(pdfs, page_of: dict, keys: set) -> dict:
    """{face key: PNG bytes} of the faces `keys` (PDFium, under its lock)."""
    from .exports.raster import page_images

    images = page_images(pdfs, {k: page_of[k] for k in keys if k in page_of}, SCALE)
    found = {}
    for key, image in images.items():
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        found[key] = buf.getvalue()
    return found


