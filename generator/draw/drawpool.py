"""The drawing workers: bundles of faces drawn on every core the session may use
(`Session.jobs`), by forked processes.

In: groups of faces to draw as bundles (faces.py) and how their pictures are embedded.
Out: each bundle's (PDF, keys drawn, problems, pictures placed), in order. A one-shot
build forks its workers first (`drawing_workers`), while the process holds little more
than its imports, keeps them on its session and ends them once its first game is drawn;
a draw outside a build, or for a later game, forks a pool of its own. The workers' CPU
is charged to the session's "drawing (CairoSVG)" stage once they have ended.
"""
from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

import cairocffi as cairo

from .. import memory
from ..guard import Limits, OutOfTime
from ..session import Session
from ..stopwatch import children_cpu
from . import pangobridge
from .bundlepdf import draw_bundle, fontset
from .fonts import shipped
from .pangotext import warm_up
from .pictures import Policy
from .textfit import engine_for

WORKER_GRACE = 1.0   # seconds a drawing worker goes on past the command's time (the build stops it first)
DRAW_HERE_UP_TO = 4   # bundles drawn in this process when no workers were forked early (a warm rebuild)
HYGIENE = memory.Hygiene()   # a drawing worker's (each forked worker has its own copy)
SETTLE_SECONDS = 2.0   # the longest a fork waits for the C libraries' own threads to end


@contextmanager
def drawing_workers(session: Session):
    """Fork the drawing workers now, for every game the build draws, while this process holds
    little more than its imports. Forked later, from a process holding thousands of loaded
    cards and the memory their reading left behind, each worker copied some 20 MB of it as
    it allocated. The workers' CPU is charged to drawing when they end.

    Not in a remembering session (`pnp watch`, whose rebuilds mostly draw one bundle or
    none, in this process): a draw of several bundles forks its own workers then."""
    workers = session.jobs
    if (not session.keeps_workers or session.workers is not None or workers < 2
            or "fork" not in multiprocessing.get_all_start_methods()):
        yield
        return
    _ready_to_fork()
    before = children_cpu()
    with memory.frozen_for_fork():
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
        pool.submit(_load_fonts_once).result()  # a fork pool starts all its workers at the first task
    session.workers = pool
    try:
        yield
    finally:
        end_drawing_workers(session)
        session.stopwatch.add_cpu("drawing (CairoSVG)", children_cpu() - before)


def end_drawing_workers(session: Session) -> None:
    """End the workers `drawing_workers` forked, once the first game is drawn: idle, they
    would hold their memory while the sheets are laid out (later games fork their own)."""
    if session.workers is not None:
        pool, session.workers = session.workers, None
        pool.shutdown(cancel_futures=True)   # none are waiting, unless the build stopped (out of time)


def draw_bundles(groups: list, primer: tuple, roots, game_fonts, session: Session,
                 policy: Policy | None = None):
    """Draw each group of faces as one bundle PDF, on the session's workers (or a fork pool of
    its own) when there are several; pictures as `policy` says (drawn in this process, with
    the pictures the session prepared before)."""
    ready, seconds = session.workers, session.limits.face_seconds
    workers = min(len(groups), session.jobs)
    if workers > 1 and ready is None and len(groups) <= DRAW_HERE_UP_TO:
        workers = 1  # forking a pool from a process that holds a build costs more than it saves
    ends = session.budget_ends
    if workers > 1 and ready is not None:
        futures = deque(ready.submit(_draw_in_worker, group, primer, roots, game_fonts, seconds, policy, ends)
                        for group in groups)
        try:
            while futures:
                yield futures.popleft().result()
        except BaseException:   # out of time, or a worker failed: what is still waiting is not drawn
            for future in futures:
                future.cancel()
            raise
    elif workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        _ready_to_fork(fontset(game_fonts))
        before = children_cpu()
        try:
            fork = multiprocessing.get_context("fork")
            with memory.frozen_for_fork(), ProcessPoolExecutor(workers, mp_context=fork) as pool:
                futures = deque(pool.submit(_draw_in_worker, group, primer, roots, game_fonts, seconds, policy,
                                            ends) for group in groups)
                try:
                    while futures:  # each result let go once handed on: a deck's bundles are never all held
                        yield futures.popleft().result()
                except BaseException:  # out of time, or a worker failed: what is still waiting is not drawn
                    pool.shutdown(wait=False, cancel_futures=True)
                    raise
        finally:
            session.stopwatch.add_cpu("drawing (CairoSVG)", children_cpu() - before)  # the workers, once ended
    else:   # the fonts made ready as before forking: the same bytes on one core as on many
        _load_fonts_once(fontset(game_fonts))
        for group in groups:
            yield draw_bundle(group, primer, roots=roots, game_fonts=game_fonts, face_seconds=seconds,
                              policy=policy, memo=session.pictures)


def _ready_to_fork(fonts=None) -> None:
    """The fonts loaded here (`_load_fonts_once`: workers inherit a ready fontconfig instead of
    racing to build its cache), and the threads that loading started ended (`settled`)."""
    ours = threads()
    _load_fonts_once(fonts)
    settled(ours)


def settled(before: frozenset[int], seconds: float = SETTLE_SECONDS) -> None:
    """Wait until the threads started since `before` (this process's `threads()`, taken before
    the fonts were loaded) that Python did not start have ended, or `seconds` pass, before
    this process forks drawing workers. Pango reads fontconfig's configuration for a new font
    map on a thread of GLib's pool; a worker forked while that thread ran inherits a font map
    never marked ready (or a pool counting a thread it does not have) and waits for it
    forever on its first text: seen once, two workers stuck in Pango."""
    ends = time.monotonic() + seconds
    while started_since(before) and time.monotonic() < ends:
        time.sleep(0.001)


def started_since(before: frozenset[int]) -> frozenset[int]:
    """The threads of this process not in `before` that Python did not start."""
    return threads() - before - {t.native_id for t in threading.enumerate()}


def threads() -> frozenset[int]:
    """The ids of this process's threads (none where /proc cannot tell)."""
    try:
        return frozenset(int(t) for t in os.listdir("/proc/self/task"))
    except OSError:   # no /proc: no thread this process can see to wait for
        return frozenset()


def _draw_in_worker(items, primer, roots=(), game_fonts=None, seconds=None, policy=None, ends=None):
    """`draw_bundle` in a drawing worker, which then collects the bundle's garbage and, once it
    has grown, hands memory back (`memory.Hygiene`): a worker draws hundreds of bundles, and
    would otherwise only grow. `ends`: when
    the command's total time ends (time.monotonic(), the same clock in every process); the
    worker stops itself a little after it, should the build not have stopped it first."""
    left = None if ends is None else ends + WORKER_GRACE - time.monotonic()
    if left is not None and left <= 0:
        raise OutOfTime("the build ran out of its total time (see --total-time-limit) before this bundle was drawn")
    try:
        with Limits().budget("the build", seconds=left).running():
            return draw_bundle(items, primer, roots=roots, game_fonts=game_fonts, face_seconds=seconds,
                               policy=policy)
    finally:
        HYGIENE.after_bundle()


def _load_fonts_once(fonts=None) -> None:
    """Make cairo resolve every shipped family now, in this process, and Pango load its
    fonts (the workers forked next inherit both), with the font options the faces' text is
    drawn with: cairo keeps what it resolved for the life of the process, and warmed up with
    its default options it resolved each family again for the faces, whose PDFs then stored
    it twice (Olympians' EB Garamond). Drawing in this process does it first too, so one
    core and many give the same bytes. Cheap after the first time."""
    fonts = fonts or shipped()
    surface = cairo.RecordingSurface(cairo.CONTENT_COLOR_ALPHA, (0, 0, 1, 1))
    ctx = cairo.Context(surface)
    ctx.set_font_options(pangobridge.text_font_options())
    for family in fonts.families:
        ctx.select_font_face(family)
        ctx.text_extents("A")
    warm_up(engine_for(fonts))
