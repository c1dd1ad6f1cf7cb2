"""Which faces are drawn together: the bundles of faces of one game.

In: the faces' SVG text (`SVGTexts`, which also knows each face's home and length), their
draw keys and sizes. Out: the bundles, in order, each as (bundle key, [(face key, SVG,
size)]): what faces.py draws as one PDF and the face cache stores under the bundle key
(a hash of the primer and of the bundle's draw keys).

A face goes to a bundle by where it belongs, not by what it shows: a hash of its *home*
(deck, card and side) mod the number of bundles (`bundle_count`: more bundles for heavier
SVG, so that a bundle costs about the same to draw whether its faces are light or heavy,
but not so many that their fonts cost more than their faces), and a bundle that comes
out over twice as heavy as intended is halved (`_split`). Faces are sorted by draw key
inside a bundle. Editing one card changes its face's key but not its home: one bundle
changes, and a warm build redraws only that one. Bundles are fixed by the faces, never
by the number of cores, so the bytes are the same on every machine.
"""
from __future__ import annotations

import hashlib
import math
import zlib
from collections.abc import Mapping

from ..rendermemo import Memo
from .drawkey import face_key

FACES_PER_BUNDLE = 16
MIN_FACES_PER_BUNDLE = 3   # on average
BYTES_PER_BUNDLE = 16_384   # of SVG text: drawing costs about 2.5 us a byte
PICTURE_WEIGHT = 2_500      # what an <image> weighs as SVG text: a picture costs 1-6 ms to place


class SVGTexts(Mapping):
    """Face key -> SVG text, each kept zlib-compressed until it is read: a face is a few KB
    of repetitive text, and a deck of 10,000 distinct faces would otherwise hold about 20 MB
    of it until drawn. Drawing workers are sent the compressed bytes (`packed`). Each face
    also has a *home* (where it is printed: the first of its deck/card/side names), which
    picks its bundle, and its weight, which sizes the bundles: its length in bytes, and
    PICTURE_WEIGHT for each <image> (faces with pictures go in smaller bundles, so an edit
    redraws fewer of them)."""

    def __init__(self) -> None:
        self._packed: dict[str, bytes] = {}
        self.homes: dict[str, str] = {}
        self.lengths: dict[str, int] = {}   # face key -> bytes of its SVG text
        self.weight = 0                     # bytes of SVG text, all faces

    @staticmethod
    def pack(svg: str) -> tuple[str, bytes, int]:
        """(face key: a digest of the SVG, the SVG compressed, its weight)."""
        return (hashlib.sha256(svg.encode()).hexdigest()[:16], zlib.compress(svg.encode(), 1),
                len(svg) + PICTURE_WEIGHT * svg.count("<image"))

    def add(self, svg: str | tuple, home: str | None = None) -> str:
        """Add a face (its SVG, or what `pack` made of it); returns its key."""
        key, packed, length = self.pack(svg) if isinstance(svg, str) else svg
        if key not in self._packed:
            self._packed[key] = packed
            self.lengths[key] = length
            self.weight += length
        if home is not None and (key not in self.homes or home < self.homes[key]):
            self.homes[key] = home
        return key

    def packed(self, key: str) -> bytes:
        return self._packed[key]

    def __getitem__(self, key: str) -> str:
        return zlib.decompress(self._packed[key]).decode()

    def __iter__(self):
        return iter(self._packed)

    def __len__(self) -> int:
        return len(self._packed)


def plan_bundles(svgs, draw_keys: dict, sizes: dict, salt: str) -> list[tuple[str, list]]:
    """The bundles of `svgs` (an `SVGTexts`, or a plain dict of face key -> SVG, whose faces
    then go by draw key): [(bundle key, [(face key, SVG or packed SVG, size)])]."""
    packed = isinstance(svgs, SVGTexts)
    weight = svgs.weight if packed else sum(map(len, svgs.values()))
    n_bundles = bundle_count(len(svgs), weight)
    homes = svgs.homes if packed else {}
    members: list[list] = [[] for _ in range(n_bundles)]
    for k in svgs:
        home = homes.get(k)
        spot = hashlib.sha256(home.encode()).hexdigest() if home else draw_keys[k]
        length = svgs.lengths[k] if packed else len(svgs[k])
        members[int(spot[:8], 16) % n_bundles].append((draw_keys[k], k, svgs.packed(k) if packed else svgs[k],
                                                       sizes.get(k), length, int(spot[8:16], 16)))
    bundles = []
    for part in (part for group in members for part in _split(group) if part):
        group = [face[:4] for face in sorted(part)]
        digest = hashlib.sha256((salt + "\n" + "\n".join(dk for dk, *_ in group)).encode())
        bundles.append((digest.hexdigest(), [(k, svg, size) for _, k, svg, size in group]))
    return bundles


def _split(group: list, depth: int = 0) -> list[list]:
    """A bundle of faces (draw key, face key, SVG, size, length, split hash) halved, by one
    bit of a second hash of each face's home, while its SVG weighs over twice
    BYTES_PER_BUNDLE: so that redrawing the bundle of an edited card never costs much more
    than average. The halves depend only on the faces in the bundle: an edit that moves its
    weight across the limit changes that bundle's halves, no other bundle."""
    if depth >= 4 or len(group) < 2 or sum(face[4] for face in group) <= 2 * BYTES_PER_BUNDLE:
        return [group]
    halves = ([f for f in group if not f[5] >> depth & 1], [f for f in group if f[5] >> depth & 1])
    return [part for half in halves for part in _split(half, depth + 1)]


def draw_key(svgs, key: str, size, roots, own: str, memo: Memo, pictures: str = "") -> str:
    """`face_key` of a face; remembered in `memo` (a remembering session's: `pnp watch`),
    unless the face refers to a file (an image that may have changed since)."""
    if isinstance(svgs, SVGTexts):   # keyed by its SVG's digest
        found = memo.derived(("draw key", key, size, roots, own, pictures),
                             lambda: _key_without_files(svgs[key], size, roots, own, pictures))
        if found:
            return found
    return face_key(svgs[key], size, roots, own, pictures)


def _key_without_files(svg: str, size, roots, own: str, pictures: str = "") -> str:
    """`face_key`, or '' (not remembered) for a face with an href."""
    return "" if "href" in svg else face_key(svg, size, roots, own, pictures)


def bundle_count(n_faces: int, weight: int = 0) -> int:
    """A power of two near the larger of n_faces / FACES_PER_BUNDLE and weight (bytes of SVG)
    / BYTES_PER_BUNDLE, but not above n_faces / MIN_FACES_PER_BUNDLE: the same for every
    deck of similar size, and bundles that cost about the same to draw whether the faces
    are light or heavy (each bundle also costs its fonts, some 15 ms: not too many)."""
    target = min(max(n_faces / FACES_PER_BUNDLE, weight / BYTES_PER_BUNDLE), n_faces / MIN_FACES_PER_BUNDLE)
    return 1 if target < 1.5 else 2 ** round(math.log2(target))
