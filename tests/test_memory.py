"""The drawing workers' memory hygiene (generator/memory.py's Hygiene, used by
draw/drawpool.py): cheap after every bundle, a hand-back only once the worker has grown.

A full collection walks the worker's whole heap, and that heap holds its text engine's
memos: run after every bundle, it cost more the more the worker had drawn (issue 37).
These tests call the worker's function itself with the drawing stubbed out, and count the
collections of the oldest generation through `gc.callbacks`; no timing.
"""
from __future__ import annotations

import ctypes
import gc
import subprocess
import sys
import tracemalloc
from pathlib import Path
from types import SimpleNamespace

import pytest

from generator import diskmemo, memory
from generator.diskstore import Store
from generator.draw import drawpool

_MALLINFO2 = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
              "keepcost")


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in _MALLINFO2]


def _mallinfo2():
    try:
        call = ctypes.CDLL("libc.so.6").mallinfo2
    except (OSError, AttributeError):
        return None
    call.restype = _Mallinfo2
    return call


def memory_mapped_blocks_known() -> bool:
    return _mallinfo2() is not None


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


# What the build's own process holds per card (issue 37: the largest process at 10,000
# cards). In-process, with tracemalloc, on a few hundred synthetic cards.

def _traced(make):
    """(what `make()` returns, the bytes it still holds, the most it held at once beyond that)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        made = make()
        gc.collect()
        now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return made, now - before, peak - now


def test_page_plans_hold_little_per_face(mini):
    """A page of a grid holds its faces' keys and places; what is the same on every page
    (a slot's outlines, the crop marks) is made once. Before, each face had its own two
    outlines, corner and dict and each page its crop marks: about 1.3 KB a face."""
    from generator.data.load import load_game
    from generator.draw.render import RenderedCard
    from generator.layout.pages import plan_pages
    from generator.session import Session

    root = mini("\n".join(f"- {{id: c{i}, name: n{i}, text: t}}" for i in range(200)))
    deck = load_game(root, "mini", Session()).decks[0]
    faces = {}

    def plans(n: int) -> list:
        cards = [RenderedCard(c, deck, faces.setdefault(c.id, f"face-{c.id}"), "back") for c in deck.cards[:n]]
        return plan_pages(SimpleNamespace(cards=cards), "a4")
    small, small_bytes, _ = _traced(lambda: plans(54))
    large, large_bytes, _ = _traced(lambda: plans(200))
    placed = sum(len(p.faces) for p in large) - sum(len(p.faces) for p in small)
    assert placed == 2 * 146
    assert (large_bytes - small_bytes) / placed < 300, "bytes a placed face adds to the page plans"


def test_a_store_entry_is_written_without_copies_of_it(tmp_path):
    """A chunk of the build memo (a megabyte) goes to disk as it is: writing it held two
    more copies of it (the entry joined, then with its tag), at the build's peak."""
    store = Store(tmp_path / "store", "memo", 2**30, tmp_path)
    field = bytes(range(256)) * 4096   # 1 MB
    _, _, extra = _traced(lambda: store.write("ab" * 32, field))
    assert extra < len(field) / 4
    assert store.fields("ab" * 32) == (field,)


def test_the_build_memo_holds_a_small_chunk_before_writing_it(tmp_path):
    """Entries the build memo has not written yet are held: a bounded number of them."""
    shelves = diskmemo.Shelves(Store(tmp_path / "memo", "memo", 2**30, tmp_path), "g")
    for i in range(5000):   # a facts entry a face: its name (a 64-digit digest) held as well as its value
        shelves.put("memo", ("small", i), (i, "x" * 40))
        assert len(shelves.new) <= 4096 and shelves.pending <= 2**20


@pytest.mark.slow   # a fresh process: the test's own heap has holes a block may be carved from
@pytest.mark.skipif(not memory_mapped_blocks_known(), reason="glibc's mallinfo2 only")
@pytest.mark.parametrize("apart", [False, True])
def test_large_blocks_are_mapped_apart_even_after_one_was_freed(apart):
    """glibc raises its threshold once a mapped block is freed, so the next block of that
    size is carved from the heap and leaves a hole there; a session keeps the threshold put."""
    script = f"""
import ctypes
from generator import memory
class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in {_MALLINFO2!r}]
call = ctypes.CDLL("libc.so.6").mallinfo2
call.restype = Info
mapped_blocks = lambda: call().hblks
if {apart}:
    memory.large_blocks_apart()
block = bytearray(400_000)
del block
before = mapped_blocks()
block = bytearray(400_000)
print(mapped_blocks() - before)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).parents[1])
    assert out.stdout.split() == (["1"] if apart else ["0"]), out.stderr


def test_a_one_shot_hand_back_drops_the_text_engines_memos():
    """Between a one-shot build's stages (session.release) the text engine's layouts and
    fits go: the faces are rendered, and what the next stages make fills their room. The
    watch's and the drawing workers' hand-backs keep them (they serve the next rebuild,
    the next bundle)."""
    from generator.draw.fonts import shipped
    from generator.draw.pangotext import NOMINAL
    from generator.draw.textfit import engine_for
    from generator.draw.textspec import Spec

    text = engine_for(shipped())
    text.laid(Spec("Aa **Aa**", 100.0, NOMINAL))
    memory.release()
    assert len(text._laid) >= 1, "a worker's or the watch's hand-back dropped the memos"
    memory.release(drop=True)
    assert len(text._laid) == 0 and len(text._fits) == 0
