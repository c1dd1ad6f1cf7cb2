"""Short card ids and QR codes: a printed card matched to its version.

In: a card as templates see it (`card`: its fields, id and name, after the glossary's
keywords are expanded: `short_ids`), or a text for a QR code. Out: `short_id`, six characters
(Crockford's base32: no I, L, O or U) of the sha256 of the card's content (every field,
its id and name; not its count, which prints nothing); the same content gives the same id
on every machine, an edit of any field a new one (a picture edited under the same file
name keeps it: the version stamp tells those apart). `qr_svg`: a QR code as one vector SVG
path (segno, the only module that uses it), for the template helper `qr()`.
A stamp's `{id}` (stamp.py) and the helper `card_id()` give the same id; `pnp changes`
(errata.py) lists cards by it.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import json

from markupsafe import Markup

from ..distributions import version
from .textfit import TextError

LENGTH = 6
CROCKFORD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "0123456789ABCDEFGHJKMNPQRSTVWXYZ")
MAX_QR = 400   # characters a QR code may hold here: a few more than a card needs, still scannable


def short_id(card: dict) -> str:
    """Six characters of the sha256 of a card's content (its template context but its count)."""
    content = dict(card)
    content.pop("count", None)
    digest = hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=False, default=str).encode()).digest()
    return base64.b32encode(digest[:5]).decode()[:LENGTH].translate(CROCKFORD)   # 5 bytes: 8 characters


def short_ids(game) -> dict[str, str]:
    """{card id: short id} of every card of a game, from its context as its templates see it
    (the glossary's keywords expanded), as render.py gives it to `card_id()` and to the stamp."""
    from ..data.glossary import glossary_of
    from .markup import expand_keywords

    keywords = glossary_of(game).keywords
    return {card.id: short_id(expand_keywords(card.context(), keywords, game.language) if keywords
                              else card.context())
            for deck in game.decks for card in deck.cards}


def card_id(card) -> str:
    """The template helper: `{{ card_id(card) }}`."""
    if not isinstance(card, dict) or "id" not in card:
        raise TextError("card_id() takes the card (`card_id(card)`)")
    return short_id(card)


def qr_svg(text, x, y, size, colour="#000000") -> Markup:
    """A QR code of `text` as one SVG path: its top left corner at (x, y), `size` wide
    (a quiet zone of two modules included), dark modules in `colour`."""
    import segno

    text = str(text)
    if not text or len(text) > MAX_QR:
        raise TextError(f"qr() holds 1 to {MAX_QR} characters ({len(text)} given)")
    code = segno.make(text, error="m", micro=False)
    rows = [list(r) for r in code.matrix_iter(border=2)]
    step = float(size) / len(rows)
    runs = []
    for j, row in enumerate(rows):
        i = 0
        while i < len(row):
            if row[i]:
                start = i
                while i < len(row) and row[i]:
                    i += 1
                runs.append(f"M{start} {j}h{i - start}v1h{start - i}z")
            else:
                i += 1
    return Markup(f'<path data-pnp="qr" transform="translate({float(x):.3f} {float(y):.3f}) scale({step:.5f})" '
                  f'fill="{_colour(colour)}" d="{"".join(runs)}"/>')


def _colour(value) -> str:
    text = str(value)
    if not (text.startswith("#") and len(text) in (4, 7) and all(c in "0123456789abcdefABCDEF" for c in text[1:])):
        raise TextError(f"qr(): colour {text[:20]!r} is not #rgb or #rrggbb")
    return text


@functools.lru_cache(maxsize=1)
def qr_version() -> str:
    """segno's version: what `qr()` draws depends on it (the render memo's key holds it)."""
    return f"segno {version('segno')}"
