"""The drawing workers' memory hygiene (generator/memory.py's Hygiene, used by
draw/drawpool.py): cheap after every bundle, a hand-back only once the worker has grown.

A full collection walks the worker's whole heap, and that heap holds its text engine's
memos: run after every bundle, it cost more the more the worker had drawn (issue 37).
These tests call the worker's function itself with the drawing stubbed out, and count the
collections of the oldest generation through `gc.callbacks`; no timing.
"""
from __future__ import annotations

import gc

import pytest

from generator import memory
from generator.draw import drawpool


@pytest.fixture
def worker(monkeypatch):
    """`drawpool._draw_in_worker` with a stub for the drawing, a fresh hygiene and a counter
    of full collections and of trims; the resident memory as the test sets it."""
    seen = {"full": 0, "trims": 0, "mb": 100.0}

    def count(phase, info):
        if phase == "start" and info["generation"] == 2:
            seen["full"] += 1

    monkeypatch.setattr(drawpool, "draw_bundle", lambda items, primer, **kw: ("pdf", items))
    hygiene = getattr(memory, "Hygiene", None)   # (the code before it collected everything after every bundle)
    monkeypatch.setattr(drawpool, "HYGIENE", hygiene and hygiene(), raising=False)
    monkeypatch.setattr(memory, "resident_mb", lambda: seen["mb"], raising=False)
    monkeypatch.setattr(memory, "_trim", lambda pad: seen.__setitem__("trims", seen["trims"] + 1))
    gc.collect()
    gc.callbacks.append(count)
    try:
        yield seen
    finally:
        gc.callbacks.remove(count)
        gc.unfreeze()   # what a hand-back froze in this test process


def _bundles(n: int) -> None:
    for i in range(n):
        assert drawpool._draw_in_worker([f"face{i}"], b"primer") == ("pdf", [f"face{i}"])


def test_a_worker_does_not_collect_everything_after_every_bundle(worker):
    _bundles(40)   # a worker whose memory does not grow
    assert worker["full"] <= 2, "a full collection after (nearly) every bundle"
    assert worker["trims"] == 0


def test_a_worker_hands_memory_back_once_it_has_grown(worker):
    _bundles(3)
    assert worker["trims"] == 0
    worker["mb"] += memory.GROWN_MB + 1   # the heap grew past the bound since the first bundle
    full = worker["full"]
    _bundles(1)
    assert worker["trims"] == 1 and worker["full"] == full + 1
    _bundles(5)   # measured again after the hand-back: no new growth, no new hand-back
    assert worker["trims"] == 1


def test_without_a_reading_of_its_memory_a_worker_hands_back_every_few_bundles(worker, monkeypatch):
    monkeypatch.setattr(memory, "resident_mb", lambda: None)
    _bundles(memory.EVERY * 2)
    assert worker["trims"] == 2


def test_the_resident_memory_is_read_where_it_can_be():
    mb = memory.resident_mb()
    assert mb is None or 1 < mb < 100_000
