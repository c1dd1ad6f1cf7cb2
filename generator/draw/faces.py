"""Draw a game's face SVGs into vector PDF pages, in bundles that can be cached.

In: face SVGs (key -> SVG text), the size each must have, the folders its <image>
elements may read, how pictures are embedded (`pictures.Policy`) and optionally a
`FaceCache`. Out: `FacesPDF`: the bundle PDFs whose pages are the faces, a map from face
key to (document, page), each face's draw key, the problems found (characters a font
lacks, bad SVG, a face of the wrong size, a missing image) and the pictures each face
places (kept with its bundle in the face cache, so their warnings come back on every
build).

Incremental builds. A face's *draw key* (drawkey.py) hashes everything that decides its
pixels; bundles.py decides which faces are drawn together, so that editing one card
changes one bundle and a warm build redraws only that one. Cold and warm builds assemble
the same bundles, so their output is byte-identical by construction. Each bundle is
drawn by bundlepdf.py, on the drawing workers (drawpool.py) when there are several.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field

from ..session import Session
from .bundlepdf import face_facts, fontset, primer
from .bundles import SVGTexts, draw_key, plan_bundles
from .drawkey import SALT, _game_fonts_digest
from .drawpool import draw_bundles
from .facecache import Bundles
from .pictures import Placement, Policy


@dataclass(frozen=True)
class FacesPDF:
    documents: Bundles     # the bundle PDFs (read from the face cache when asked for)
    page_of: dict          # face key -> (document index, page index)
    problems: tuple        # (face key, message)
    draw_keys: dict = field(default_factory=dict)   # face key -> draw key (sha256 hex)
    drawn: int = 0         # bundles drawn by this build (the rest came from the cache)
    pictures: dict = field(default_factory=dict)   # face key -> (Placements, remarks) of faces with pictures


@dataclass(frozen=True)
class FontsUsed:
    """The fonts faces are drawn with: a game's own besides pnp's ((templates dir, as shown),
    or None) and, when the render stage worked them out as it rendered, every face's
    `face_facts` merged, found in those fonts (None: worked out here, face by face)."""
    game_fonts: tuple | None = None
    facts: tuple | None = None


def draw_faces(svgs: Mapping[str, str], session: Session, sizes: dict | None = None, roots: tuple[str, ...] = (),
               cache=None, progress=None, fonts_used: FontsUsed = FontsUsed(),
               policy: Policy | None = None) -> FacesPDF:
    """Draw every face; `sizes` (key -> (w, h) mm) are checked, `roots` are where <image> may read,
    `fonts_used` the game's own fonts (and the faces' facts), `policy` how pictures are embedded
    (default: at 300 dpi, no picture store).

    :param cache: a `FaceCache`: bundles found there are not drawn; bundles drawn without
        problems are stored.
    :param progress: called as progress(bundles to draw, all bundles); returns a context
        manager yielding advance(n), called once per bundle drawn (see progress.py).
    :param session: its memo keeps each face's draw key and facts for later builds; its
        workers, when forked, draw the bundles.
    """
    policy = policy or Policy()
    memo = session.memo
    sizes = sizes or {}
    game_fonts, facts = fonts_used.game_fonts, fonts_used.facts
    own = _game_fonts_digest(game_fonts)
    draw_keys = {k: draw_key(svgs, k, sizes.get(k), roots, own, memo, policy.digest()) for k in svgs}
    fonts = fontset(game_fonts)
    each: Iterable[tuple] | None = None   # the facts of the faces, if not worked out by `primer`
    if facts is not None:
        each = [facts]
    elif isinstance(svgs, SVGTexts):  # one face at a time: not held unless watching
        each = (memo.derived(("face facts", own, k), lambda k=k: face_facts(svgs[k], fonts)) for k in svgs)
    primer_page = primer(svgs.values(), fonts, each)
    bundles = plan_bundles(svgs, draw_keys, sizes, SALT + repr(primer_page))
    n_bundles = len(bundles)
    results: list = [None] * n_bundles   # (bytes, or the cache key once stored; keys drawn; problems; pictures)
    if cache is not None:
        for i, (bkey, group) in enumerate(bundles):
            entry = cache.entry(bkey)
            if entry is not None:
                results[i] = (bkey, [None] + [k for k, _, _ in group], [], _unpack_pictures(entry[1]))
    todo = [i for i, r in enumerate(results) if r is None]
    with (progress(len(todo), n_bundles) if progress else nullcontext(lambda n=1: None)) as advance:
        for i, (data, keys, found, shown) in zip(todo, draw_bundles([bundles[i][1] for i in todo], primer_page,
                                                                     roots, game_fonts, session, policy)):
            if cache is not None and not found and None not in keys[1:]:
                cache.put(bundles[i][0], data, _pack_pictures(shown))
                data = bundles[i][0]  # read back from the cache when laid out: not held in memory
            results[i] = (data, keys, found, shown)
            advance(1)
    page_of, problems, pictures = {}, [], {}
    for doc, (_, keys, found, shown) in enumerate(results):
        page_of.update({k: (doc, page) for page, k in enumerate(keys) if k is not None})
        problems.extend(found)
        pictures.update(shown)
    return FacesPDF(Bundles(cache, [r[0] for r in results]), page_of, tuple(problems), draw_keys, len(todo),
                    pictures)


def _pack_pictures(shown: dict) -> bytes:
    """The pictures of a bundle's faces as the face cache keeps them (JSON)."""
    if not shown:
        return b""
    return json.dumps({k: [[[p.picture, *p.pixels, *p.placed_pt] for p in placed], list(notes)]
                       for k, (placed, notes) in sorted(shown.items())}, ensure_ascii=False).encode()


def _unpack_pictures(notes: bytes) -> dict:
    if not notes:
        return {}
    return {k: (tuple(Placement(p[0], (p[1], p[2]), (p[3], p[4])) for p in placed), tuple(remarks))
            for k, (placed, remarks) in json.loads(notes).items()}
