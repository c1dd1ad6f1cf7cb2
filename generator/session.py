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
- `pictures`: pictures prepared for print (draw/picturedraw.py), by what they were made
  from, so an edit redrawn in this process neither reads nor decodes them again;
  (these five are null objects doing the plain thing in a session that remembers
  nothing: `Memo`, `Forgets`; bounded `cachetools` maps in one that does: `RenderMemo`,
  `Kept`. No stage asks which it has; only `keeps_workers` and `release` differ);
- `templates`: compiled Jinja templates (checked against their source by Jinja);
- `font_digests`: the digests of the fonts of the face bundles its builds wrote forms of;
- `stopwatch`: where the time of the session's builds went (`--timings`, the benchmark);
- `kept_on_disk(...)`: a one-shot build's memo, segments, furniture and rulebooks kept
  under `output/.cache/memo/` for the next build (diskmemo.py), so `pnp build` after an
  edit reuses what the last one made, as `pnp watch` does in memory;
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
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from cachetools import LRUCache

from . import memory
from .diskmemo import LIMIT_BYTES as MEMO_BYTES
from .diskmemo import DiskKept, DiskMemo, DiskTemplates, Shelves
from .diskstore import Store
from .errors import TookTooLong
from .guard import Limits, OutOfTime
from .rendermemo import LIMIT, Forgets, Kept, Memo, RenderMemo
from .safefs import cache_key
from .stopwatch import Stopwatch

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor


SEGMENT_BYTES = 96 * 2**20   # PDF segments a remembering session keeps
PICTURE_BYTES = 64 * 2**20   # prepared pictures it keeps
FEW = 8                      # sheet furniture and rulebook layouts it keeps
FONT_BUNDLES = 256           # face bundles whose font digests a session keeps
RELEASE_GROWN_MB = 16        # a one-shot build hands memory back between stages once it grew this much


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
        self.limits = limits or Limits()
        self.jobs = jobs or (usable_cpus() if self.limits.forks else 1)
        # a session that remembers nothing holds null objects doing the plain thing: no stage asks which it has
        self.memo: Memo = RenderMemo(LIMIT) if remember else Memo()
        self.segments: Kept | Forgets | DiskKept = Kept(SEGMENT_BYTES, size=lambda value: len(value[0].data)) \
            if remember else Forgets()
        self.furniture: Kept | Forgets | DiskKept = Kept(FEW) if remember else Forgets()
        self.rulebooks: Kept | Forgets | DiskKept = Kept(FEW) if remember else Forgets()
        self.warm = False   # a one-shot build found what the last build kept on disk
        self.templates: dict[str, bytes] = {}
        self.pictures: Kept | Forgets = Kept(PICTURE_BYTES, size=lambda p: len(p.data) + len(p.alpha)) \
            if remember else Forgets()
        # {face bundle's sha256: {font object: digest}}: a build writes each bundle once a paper
        self.font_digests: LRUCache[bytes, dict] = LRUCache(FONT_BUNDLES)
        self.stopwatch = Stopwatch()
        self.workers: ProcessPoolExecutor | None = None
        self.budget_ends: float | None = None   # time.monotonic() when the command's total time ends
        self.working_on: str | None = None      # the card whose faces are being rendered
        memory.large_blocks_apart()
        self.released_mb = memory.resident_mb()  # resident memory after the last hand-back (or at the start)

    @property
    def keeps_workers(self) -> bool:
        """Whether the drawing workers are forked once for the whole build (draw/drawpool.py):
        not by a remembering session, whose rebuilds mostly draw one bundle or none, in this
        process (a draw of several bundles forks its own workers then)."""
        return not self.remember and not self.warm

    @contextmanager
    def kept_on_disk(self, folder: Path, base: Path, name: str | tuple[str, ...], keep: bool = True):
        """`with session.kept_on_disk(output/.cache/memo, project, games):` a one-shot build
        whose memo, segments, furniture, rulebooks and compiled templates are those the last build of `name`
        (the command's games) left in `folder` (diskmemo.py), kept there again when the
        build ends well. Its drawing workers are not forked early when the last build's
        were found (a draw of several bundles forks its own). A remembering session keeps
        them in memory instead. `keep=False`: read only (`pnp check colour` and `validate` read
        what the last build of their games kept, write nothing there, and leave the pack as
        that build left it); `name`
        may then be several, the first pack found read (its games', else every game's)."""
        if self.remember:
            yield
            return
        store = Store(folder, "memo", MEMO_BYTES, base)
        for each in (name,) if isinstance(name, str) else name:
            shelves = Shelves(store, each, read_only=not keep)
            shelves.load()
            if shelves.warm:
                break
        held = self.memo, self.segments, self.furniture, self.rulebooks, self.templates
        memo = DiskMemo(shelves)
        self.memo, self.warm, self.templates = memo, shelves.warm, DiskTemplates(shelves)
        self.segments, self.furniture, self.rulebooks = (DiskKept(shelves, shelf) for shelf in
                                                         ("segments", "furniture", "rulebooks"))
        try:
            yield
            if keep:
                memo.done()
                shelves.save()
        finally:
            self.memo, self.segments, self.furniture, self.rulebooks, self.templates = held
            self.warm = False

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
        the stages of a rebuild of one edited card there is little to hand back (nor in a
        one-shot build that found the last build's memo: `warm`).

        Only once the process grew `RELEASE_GROWN_MB` since it last did (or since the session
        began): a full collection walks every object the process holds, some 0.1 s in a
        process that holds much, and a small game's stage leaves next to nothing to hand
        back (where resident memory cannot be read, always)."""
        if self.remember or self.warm:
            return
        now = memory.resident_mb()
        if now is not None and self.released_mb is not None and now - self.released_mb < RELEASE_GROWN_MB:
            return
        memory.release(drop=True)   # a one-shot build: its stages' process-wide memos too
        self.released_mb = memory.resident_mb()

    def settle(self) -> None:
        """Between two rebuilds of `pnp watch`, once the last is reported (memory.settle)."""
        memory.settle()
