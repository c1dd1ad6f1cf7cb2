"""Draw a game's face SVGs into vector PDF pages, in bundles that can be cached.

In: face SVGs (key -> SVG text), the size each must have, the folders its <image>
elements may read, and optionally a `FaceCache`. Out: `FacesPDF`: the bundle PDFs whose
pages are the faces, a map from face key to (document, page), each face's draw key and
the problems found (characters a font lacks, bad SVG, a face of the wrong size, a
missing image).

Incremental builds. A face's *draw key* (drawkey.py) hashes everything that decides its
pixels; bundles.py decides which faces are drawn together, so that editing one card
changes one bundle and a warm build redraws only that one. Cold and warm builds assemble
the same bundles, so their output is byte-identical by construction. Each bundle is
drawn by bundlepdf.py, on the drawing workers (drawpool.py) when there are several.
"""
from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field

from ..session import Session
from .bundlepdf import face_facts, fontset, primer
from .bundles import SVGTexts, draw_key, plan_bundles
from .drawkey import SALT, _game_fonts_digest
from .drawpool import draw_bundles
from .facecache import Bundles


@dataclass(frozen=True)
class FacesPDF:
    documents: Bundles     # the bundle PDFs (read from the face cache when asked for)
    page_of: dict          # face key -> (document index, page index)
    problems: tuple        # (face key, message)
    draw_keys: dict = field(default_factory=dict)   # face key -> draw key (sha256 hex)
    drawn: int = 0         # bundles drawn by this build (the rest came from the cache)


def draw_faces(svgs: dict[str, str], sizes: dict | None = None, roots: tuple[str, ...] = (),
               cache=None, progress=None, game_fonts: tuple | None = None,
               session: Session | None = None, facts: tuple | None = None) -> FacesPDF:
    """Draw every face; `sizes` (key -> (w, h) mm) are checked, `roots` are where <image> may read,
    `game_fonts` is (templates dir, as shown) of a game with fonts of its own.

    :param cache: a `FaceCache`: bundles found there are not drawn; bundles drawn without
        problems are stored.
    :param progress: called as progress(bundles to draw, all bundles); returns a context
        manager yielding advance(n), called once per bundle drawn (see progress.py).
    :param session: its memo keeps each face's draw key and facts for later builds; its
        workers, when forked, draw the bundles.
    :param facts: every face's `face_facts` merged (render_svgs works them out as it renders);
        default: worked out here, face by face.
    """
    session = session or Session()
    memo = session.memo
    sizes = sizes or {}
    own = _game_fonts_digest(game_fonts)
    draw_keys = {k: draw_key(svgs, k, sizes.get(k), roots, own, memo) for k in svgs}
    fonts = fontset(game_fonts)
    if facts is not None:
        facts = [facts]
    elif isinstance(svgs, SVGTexts):  # one face at a time: not held unless watching
        facts = (memo.derived(("face facts", own, k), lambda k=k: face_facts(svgs[k], fonts)) for k in svgs)
    primer_page = primer(svgs.values(), fonts, facts)
    bundles = plan_bundles(svgs, draw_keys, sizes, SALT + repr(primer_page))
    n_bundles = len(bundles)
    results: list = [None] * n_bundles   # (bytes, or the cache key once stored; keys drawn; problems)
    if cache is not None:
        for i, (bkey, group) in enumerate(bundles):
            if cache.get(bkey) is not None:
                results[i] = (bkey, [None] + [k for k, _, _ in group], [])
    todo = [i for i, r in enumerate(results) if r is None]
    with (progress(len(todo), n_bundles) if progress else nullcontext(lambda n=1: None)) as advance:
        for i, (data, keys, found) in zip(todo, draw_bundles([bundles[i][1] for i in todo], primer_page, roots,
                                                              game_fonts, session)):
            if cache is not None and not found and None not in keys[1:]:
                cache.put(bundles[i][0], data)
                data = bundles[i][0]  # read back from the cache when laid out: not held in memory
            results[i] = (data, keys, found)
            advance(1)
    page_of, problems = {}, []
    for doc, (_, keys, found) in enumerate(results):
        page_of.update({k: (doc, page) for page, k in enumerate(keys) if k is not None})
        problems.extend(found)
    return FacesPDF(Bundles(cache, [r[0] for r in results]), page_of, tuple(problems), draw_keys, len(todo))
