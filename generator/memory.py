"""Hand memory a stage has let go back to the system, so the next stage starts lower.

Between stages a large build frees much more than it keeps (YAML nodes, SVG text, a
paper's PDF objects), but glibc's malloc keeps freed pages that sit between pages still
in use, so a process's memory only grows from stage to stage. `malloc_trim(0)` returns
those pages. Elsewhere (macOS, Windows, musl without it) this does nothing.

In: nothing but the process itself. Out: `release` and `settle` (a session calls them
between stages and rebuilds; `droppable` memos it may drop), `large_blocks_apart` (a session sets it when it is made),
`imported` (an untrusted command imports what it needs and freezes it; `frozen_for_fork` keeps that frozen)
and `Hygiene`, a drawing worker's policy between bundles: a full collection walks the
whole heap, and a worker's heap holds its text engine's memos, so collecting it after
every bundle cost more the more it had drawn (37 % of a 5,400-card build's samples); a
worker collects its young objects after each bundle and hands memory back only once it
has grown.
"""
from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from contextlib import contextmanager

from .bindings import c_library

GROWN_MB = 16     # a drawing worker hands memory back once it holds this much more than after it last did
EVERY = 64        # bundles between two hand-backs where a process's resident memory cannot be read
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

M_MMAP_THRESHOLD = -3     # mallopt's parameter (glibc's malloc.h)
LARGE = 128 * 1024        # a block this large or larger is mapped on its own, and unmapped when freed

_DROPPABLE: list[Callable[[], None]] = []   # memory.droppable
_trim = _mallopt = None
if sys.platform.startswith("linux"):
    try:
        _libc = c_library("libc.so.6", "c")
        _trim, _mallopt = _libc.malloc_trim, _libc.mallopt
    except (OSError, AttributeError):
        _trim = _mallopt = None


def large_blocks_apart() -> None:
    """Keep large blocks (a face bundle's PDF as it passes through, a chunk of the build
    memo, a pickle) out of the heap, as glibc does until the first is freed: it then
    raises its threshold to that block's size, so every later block of that size is carved
    from the heap and, freed, leaves a hole there that the small objects of later stages
    fill and pin (at 10,000 cards the drawing stage alone grew the build's process by 11 MB
    so). Set once, the threshold stays put. Elsewhere this does nothing."""
    if _mallopt is not None:
        _mallopt(M_MMAP_THRESHOLD, LARGE)


def imported(modules: tuple[str, ...]) -> None:
    """Import `modules` with the collector off, then freeze what the process then holds out
    of its sight: modules, classes and functions live as long as the process, so the
    collections that importing them triggered found nothing (about 0.1 CPU s at every start
    of an untrusted command), and every later collection of the build, full ones included,
    walks only what the build makes. Refcounting frees what is frozen as ever; only a
    cycle among objects frozen here would outlive its use."""
    import importlib

    gc.disable()
    try:
        for module in modules:
            importlib.import_module(module)
    finally:
        gc.enable()
    gc.freeze()


@contextmanager
def frozen_for_fork():
    """`with memory.frozen_for_fork():` fork inside: the objects alive now are kept out of the
    children's garbage collections (they then copy fewer pages of the parent), and thawed
    after, unless something was frozen before (the start-up `imported` froze, or what
    `settle` froze): a thaw would put that back in every collection, so what this froze
    then stays frozen with it."""
    frozen_before = gc.get_freeze_count()
    gc.freeze()
    try:
        yield
    finally:
        if not frozen_before:
            gc.unfreeze()


def droppable(forget: Callable[[], None]) -> Callable[[], None]:
    """Register `forget`: it lets go of a memo this process keeps outside any session (the
    text engine's layouts and fits, pangotext.py), which `release(drop=True)` calls."""
    _DROPPABLE.append(forget)
    return forget


def release(drop: bool = False) -> None:
    """Collect garbage and give freed memory back to the system (Linux with glibc). A
    session decides when (session.py: between the stages of a one-shot build, between
    the rebuilds of `pnp watch`). `drop`: the memos registered `droppable` go first (a
    one-shot build's: what its next stages make then fills the room they held, instead
    of growing the process; at 10,000 cards the text engine's memos held 13 MB and Pango
    a thousand layouts)."""
    for forget in _DROPPABLE if drop else ():
        forget()
    gc.collect()
    if _trim is not None:
        _trim(0)


def settle() -> None:
    """Between two rebuilds of `pnp watch`, once the last is reported: collect, hand memory
    back, and freeze what is left (mostly the memos, kept for the next rebuild) out of the
    collector's sight, so that the collections a rebuild triggers walk only what it made,
    not everything the process remembers (without this, a rebuild of 0.25 s now and then
    spent 0.05 s in one full collection)."""
    gc.unfreeze()
    release()
    gc.freeze()


def resident_mb() -> float | None:
    """This process's resident memory in MB (Linux: /proc/self/statm), or None where it
    cannot be read so cheaply."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE / 2**20
    except OSError:
        return None


class Hygiene:
    """A drawing worker's memory hygiene between bundles, cheap and bounded: after each
    bundle only the young generations are collected (a bundle's garbage, CairoSVG's trees
    with their parent links, is young); everything is collected and freed memory handed
    back (`release`) only when the process holds `grown_mb` more than after it last did
    (every `every` bundles where that cannot be read), and what survives that is frozen
    out of later collections' sight: it is the worker's memos, which live on."""

    def __init__(self, grown_mb: float = GROWN_MB, every: int = EVERY):
        self.grown_mb, self.every = grown_mb, every
        self.since = 0                      # bundles since the last hand-back
        self.base: float | None = None      # resident MB after the last hand-back (or the first bundle)
        self.releases = 0

    def after_bundle(self) -> bool:
        """Call once a bundle is drawn and let go; whether memory was handed back."""
        gc.collect(1)
        self.since += 1
        now = resident_mb()
        if self.base is None and now is not None:
            self.base = now                  # the first bundle: what drawing needs at all
            return False
        grown = self.since >= self.every if now is None or self.base is None else now - self.base >= self.grown_mb
        if not grown:
            return False
        release()
        gc.freeze()   # the survivors are the memos: later collections need not walk them
        self.since, self.base, self.releases = 0, resident_mb(), self.releases + 1
        return True
