"""Hand memory a stage has let go back to the system, so the next stage starts lower.

Between stages a large build frees much more than it keeps (YAML nodes, SVG text, a
paper's PDF objects), but glibc's malloc keeps freed pages that sit between pages still
in use, so a process's memory only grows from stage to stage. `malloc_trim(0)` returns
those pages. Elsewhere (macOS, Windows, musl without it) this does nothing.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys

_trim = None
if sys.platform.startswith("linux"):
    try:
        _trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        _trim = None


def release(now: bool = False) -> None:
    """Collect garbage and give freed memory back to the system (Linux with glibc). While
    `pnp watch` rebuilds (the render memo is on), only when asked `now` (see `settle`): a
    collection of a process holding its memos costs tens of milliseconds, and between
    stages of a build of one edited card there is little to hand back."""
    from .rendermemo import MEMO

    if MEMO.on and not now:
        return
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
    release(now=True)
    gc.freeze()
