"""A build session: what one build may hand to the next, and what a build runs on.

In: whether the builds of this session remember (`pnp watch` makes a session that does
and hands it to every rebuild; a one-shot `pnp build`, `validate` or `export` makes a
fresh one that does not) and the `Limits` of its builds (guard.py: chosen on the command
line, never by the project). Out: the object passed from the CLI or the watch down
through every stage, holding

- `memo`: rendered face SVGs and facts drawn from them (rendermemo.py);
- `segments`: parts of the PDFs this session wrote, replayed when a rebuild would write
  the same bytes (layout/sheets.py, forms.py, overlay.py);
- `furniture` and `rulebooks`: sheet furniture and Platypus layouts, the last few;
- `templates`: compiled Jinja templates (checked against their source by Jinja);
- `pictures`: pictures prepared for print (draw/picturedraw.py), by what they were made
  from, so an edit redrawn in this process neither reads nor decodes them again;
- `stopwatch`: where the time of the session's builds went (`--timings`, the benchmark);
- the key of the disk caches (safefs.cache_key, read once per process when the first
  session is made, before anything of the project is read);
- `budget()`: the whole command within its total time (`--total-time-limit`), and what
  it is doing then (`working_on`: the card being rendered; the stopwatch's stage);
- `jobs`: how many drawing processes its builds may run at once (by default the CPUs this
  process may run on), and `workers`: those forked for the build that is running
  (draw/drawpool.py).

Nothing a session holds changes what a build writes: a build in a session that
remembers writes the same bytes as a build in a fresh one (tests/test_cache.py).
Everything outside a session is a pure function of its inputs (cached, if at all, with
`functools.lru_cache`: the Pango text engine of a font set, draw/pangotext.py, is one) or
a process fact (the fontconfig cairo uses).
"""
from __future__ import annotations

import os
import time
from collections import OrderedDict
from collections.abc import Callable
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from . import memory
from .errors import TookTooLong
from .guard import Limits, OutOfTime
from .rendermemo import LIMIT, RenderMemo
from .safefs import cache_key
from .stopwatch import Stopwatch

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor


class Kept:
    """The last values put, up to `limit` of them (or `limit` bytes as `size` measures
    them); none at all when `limit` is 0. Least recently used go first."""

    def __init__(self, limit: int, size: Callable[[Any], int] | None = None):
        self.limit = limit
        self.size = size
        self.held = 0
        self.values: OrderedDict = OrderedDict()

    @property
    def on(self) -> bool:
        return self.limit > 0

    def get(self, key):
        found = self.values.get(key)
        if found is not None:
            self.values.move_to_end(key)
        return found

    def put(self, key, value) -> None:
        if not self.on or key in self.values:
            return
        self.values[key] = value
        self.held += self.size(value) if self.size else 1
        while self.held > self.limit:
            _, dropped = self.values.popitem(last=False)
            self.held -= self.size(dropped) if self.size else 1

    def __len__(self) -> int:
        return len(self.values)


SEGMENT_BYTES = 96 * 2**20   # PDF segments a remembering session keeps
PICTURE_BYTES = 64 * 2**20   # prepared pictures it keeps
FEW = 8                      # sheet furniture and rulebook layouts it keeps


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity (`taskset`, a container's cpuset, a
    test worker's core), else every CPU of the machine."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


class Session:
    def __init__(self, remember: bool = False, limits: Limits | None = None, jobs: int | None = None):
        cache_key()   # read now, at start-up, before anything of the project (and before any jail)
        self.remember = remember
        self.jobs = jobs or usable_cpus()
        self.limits = limits or Limits()
        self.memo = RenderMemo(LIMIT if remember else 0)
        self.segments = Kept(SEGMENT_BYTES if remember else 0, size=lambda value: len(value[0].data))
        self.furniture = Kept(FEW if remember else 0)
        self.rulebooks = Kept(FEW if remember else 0)
        self.templates: dict[str, bytes] = {}
        self.pictures = Kept(PICTURE_BYTES if remember else 0, size=lambda p: len(p.data) + len(p.alpha))
        self.stopwatch = Stopwatch()
        self.workers: ProcessPoolExecutor | None = None
        self.budget_ends: float | None = None   # time.monotonic() when the command's total time ends
        self.working_on: str | None = None      # the card whose faces are being rendered

    @contextmanager
    def budget(self, what: str):
        """`with session.budget("the build"):` runs a whole command within the total time
        of its limits (a timer in this process across every stage; the drawing workers
        are handed what is left, `budget_ends`). Past it: `TookTooLong`, naming the stage
        and the card being worked on."""
        deadline = self.limits.budget(what, self.doing)
        self.budget_ends = time.monotonic() + self.limits.total_seconds
        try:
            with deadline.running():
                yield
        except OutOfTime as exc:
            raise TookTooLong(str(exc)) from None
        finally:
            self.budget_ends = None

    def doing(self) -> str:
        """What the session's build is doing: its stage, and the card when one is known."""
        stage = self.stopwatch.current()
        card = f", card {self.working_on}" if self.working_on and stage in ("jinja", "text fitting") else ""
        return f"at the stage '{stage}'{card}" if stage else ""

    def stage(self, name: str):
        """`with session.stage("load"):` times a part of a build (stopwatch.py)."""
        return self.stopwatch.stage(name)

    def release(self) -> None:
        """Hand what a stage let go back to the system between the stages of a one-shot
        build. A remembering session does it once between rebuilds instead (`settle`): a
        collection of a process holding its memos costs tens of milliseconds, and between
        the stages of a rebuild of one edited card there is little to hand back."""
        if not self.remember:
            memory.release()

    def settle(self) -> None:
        """Between two rebuilds of `pnp watch`, once the last is reported (memory.settle)."""
        memory.settle()
