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


def release() -> None:
    """Collect garbage and give freed memory back to the system (Linux with glibc). A
    session decides when (session.py: between the stages of a one-shot build, between
    the rebuilds of `pnp watch`)."""
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
