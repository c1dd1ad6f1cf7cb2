"""Which faces are drawn together: one edited card changes one bundle, and no bundle is
much heavier than the others."""
from __future__ import annotations

import hashlib

from generator.draw import bundles
from generator.draw.bundles import BYTES_PER_BUNDLE, SVGTexts, bundle_count, plan_bundles


def _deck(n: int, filler: int, edited: int | None = None) -> SVGTexts:
    svgs = SVGTexts()
    for i in range(n):
        text = f"card {i}" + (" edited" if i == edited else "")
        svgs.add(f'<svg><text>{text}</text><desc>{"x" * (filler + i % 7)}</desc></svg>', f"deck/c{i}/front")
    return svgs


def _plan(svgs: SVGTexts) -> dict[str, list[str]]:
    keys = {k: hashlib.sha256(svgs[k].encode()).hexdigest() for k in svgs}  # stands in for draw keys
    return {key: [k for k, _, _ in group] for key, group in plan_bundles(svgs, keys, {}, "salt")}


def test_an_edited_card_changes_only_its_own_bundle():
    before, after = _plan(_deck(300, 500)), _plan(_deck(300, 500, edited=123))
    assert len(before) == len(after) == bundle_count(300, _deck(300, 500).weight) > 8
    assert len(set(before) - set(after)) == 1 and len(set(after) - set(before)) == 1


def test_no_bundle_is_much_heavier_than_intended():
    svgs = _deck(120, 6000)  # heavy faces: few to a bundle
    groups = _plan(svgs).values()
    assert all(len(g) == 1 or sum(svgs.lengths[k] for k in g) <= 2 * BYTES_PER_BUNDLE for g in groups)
    assert sorted(k for g in groups for k in g) == sorted(svgs)  # every face, once


def test_heavier_faces_make_more_bundles_within_limits():
    assert bundle_count(540, 540 * 2000) == 64                 # by weight: about 16 KB a bundle
    assert bundle_count(540, 540 * 100) == 32                  # light faces: about 16 a bundle
    assert bundle_count(113, 113 * 6800) == 32                 # heavy faces: at least 3 a bundle
    assert bundle_count(1, 10**6) == bundle_count(2, 0) == 1


def test_a_bundle_is_halved_by_its_faces_alone(monkeypatch):
    """Halving depends only on the faces of the bundle, never on the others."""
    monkeypatch.setattr(bundles, "BYTES_PER_BUNDLE", 1000)
    group = [(f"d{i}", f"k{i}", "svg", None, 600, i * 2654435761 % 2**32) for i in range(8)]
    parts = bundles._split(group)
    assert len(parts) > 1 and sorted(f for p in parts for f in p) == sorted(group)
    assert all(len(p) == 1 or sum(f[4] for f in p) <= 2000 for p in parts)
    again = bundles._split(list(reversed(group)))  # the same faces in another order: the same halves
    assert sorted(map(sorted, again)) == sorted(map(sorted, parts))
