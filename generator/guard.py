"""Limits that keep hostile or mistaken input harmless: confinement, bounds, short messages.

In: paths a build is about to read, values about to be echoed in a message, data read
from YAML, work that must end in time. Out: the real path (only when it lies inside the
project once every symlink is followed), the bytes of a regular file read within a
bound, shortened text, a `Deadline` that stops work past its time, or a message saying
which bound was passed. Every bound pnp enforces is defined here, so the README and the
messages agree; `Limits` are the ones whoever runs a build may change (never the
project being built).
"""
from __future__ import annotations

import os
import signal
import stat
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_COUNT = 10_000            # copies of one card
MAX_COPIES = 20_000           # copies of every card of a game together
MAX_SIZE_MM = 2000.0          # a component's width or height, and its bleed or safe margin (2 m)
MAX_DEPTH = 64                # nesting of lists and mappings in a YAML file
MAX_VALUES = 1_000_000        # values in a YAML file once its aliases are expanded
MAX_FILE_BYTES = 16 * 2**20   # a YAML, JSON, Markdown or template file (16 MiB)
MAX_IMAGE_BYTES = 64 * 2**20  # a picture a face draws (64 MiB)
MAX_IMAGE_PIXELS = 100_000_000   # pixels of a picture a face draws (100 megapixels)
MAX_EXPORT_PIXELS = 100_000_000  # pixels of one picture an export makes (PNG, tabletop, faces, preview)
MAX_MARKDOWN = 1_000_000      # characters of a rulebook once its Jinja has run
FACE_SECONDS = 10.0           # to render one face's template, and again to draw it (--time-limit)
TOTAL_SECONDS = 1800.0        # a whole command: validate, build, export (--total-time-limit)
MEMORY_BYTES = 2 * 2**30      # the address space of each pnp process (--memory-limit)
SHOWN = 80                    # characters of a value shown in a message
MESSAGE_CHARS = 1000          # characters of a whole message, whatever it quotes


def shorten(value: Any, limit: int = SHOWN) -> str:
    """`repr`-like text of `value` cut to `limit` characters with an ellipsis and the full length."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit - 1]}… ({len(text)} characters)"


def short_repr(value: Any, limit: int = SHOWN) -> str:
    """`repr(value)` shortened for a message."""
    return shorten(repr(value), limit)


class OutsideProject(Exception):
    """A path that cannot be read, or that leads outside the project; the message says which."""


def inside(root: Path | str, path: Path | str, shown: str | None = None) -> Path:
    """The real path of `path` when, with every symlink followed, it is inside `root`.

    :raises OutsideProject: when it leads outside `root` (a symlink to /etc, say) or its name
        cannot be used (too long, a NUL byte). It does not say whether the file exists.
    """
    shown = shorten(str(shown if shown is not None else path), 120)
    try:
        real = os.path.realpath(path)
        base = os.path.realpath(root)
    except (OSError, ValueError) as exc:
        raise OutsideProject(f"{shown} cannot be used as a file name: {_reason(exc)}") from None
    if real != base and not real.startswith(base.rstrip(os.sep) + os.sep):
        raise OutsideProject(f"{shown} leads outside the project (a symlink to {shorten(real, 120)}); "
                             "pnp reads only files inside the project")
    return Path(real)


def is_file_inside(root: Path | str, path: Path | str) -> bool:
    """True when `path` is a regular file inside `root` (see `inside`); OSError-free."""
    try:
        return os.path.isfile(inside(root, path))
    except (OutsideProject, OSError, ValueError):
        return False


def missing_message(root: Path | str, path: Path | str, what: str) -> str:
    """Why `what` at `path` cannot be read: it leads outside the project, or it does not exist."""
    try:
        inside(root, path, what)
    except OutsideProject as exc:
        return str(exc)
    return f"{what} does not exist"


def read_text_inside(root: Path | str, path: Path | str, shown: str | None = None) -> str:
    """A UTF-8 text file inside `root`, at most MAX_FILE_BYTES long (see `read_bytes_inside`).

    :raises OutsideProject: outside the project, not a regular file, unreadable, too big or
        not UTF-8.
    """
    data = read_bytes_inside(root, path, MAX_FILE_BYTES, shown)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        shown = shorten(str(shown if shown is not None else path), 120)
        raise OutsideProject(f"cannot read '{shown}': {_reason(exc)}") from None


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def data_bounds(data: Any) -> str | None:
    """Why YAML data is too deep or too big once aliases are expanded, or None.

    Aliases of aliases can make a small file stand for billions of values (the "billion
    laughs"); each node is measured once, so this check itself stays cheap.
    """
    sizes: dict[int, int] = {}
    stack = [(data, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        if depth > MAX_DEPTH:
            return f"lists and mappings are nested more than {MAX_DEPTH} levels deep (the most pnp accepts)"
        children = list(node.values()) if isinstance(node, dict) else node
        if done:
            sizes[id(node)] = 1 + sum(sizes.get(id(c), 1) for c in children)
            if sizes[id(node)] > MAX_VALUES:
                return (f"the file stands for more than {MAX_VALUES:,} values once its aliases are "
                        "expanded (the most pnp accepts)")
            continue
        if id(node) in sizes:
            continue
        stack.append((node, depth, True))
        stack.extend((c, depth + 1, False) for c in children if isinstance(c, (dict, list)))
    return None


def too_many_pixels(width_px: int, height_px: int, dpi: float) -> str | None:
    """Why a picture of width_px x height_px made at `dpi` is more than an export makes
    (MAX_EXPORT_PIXELS), saying the dpi that would fit; None when it is within it. Checked
    before a pixel is allocated."""
    if width_px * height_px <= MAX_EXPORT_PIXELS:
        return None
    fits = int(dpi * (MAX_EXPORT_PIXELS / (width_px * height_px)) ** 0.5)
    return (f"{width_px:,} x {height_px:,} px at {dpi:g} dpi is {width_px * height_px / 1e6:,.0f} megapixels; "
            f"pnp makes at most {MAX_EXPORT_PIXELS // 1_000_000} megapixels in one picture: {fits} dpi or less "
            "would fit (--dpi)")


class TimeLimit(Exception):
    """Work that ran past its time (a face's template or drawing); the message says how long."""


class OutOfTime(BaseException):
    """The whole command ran past its total time (--total-time-limit). Not an `Exception`:
    no stage's `except Exception` keeps it, and it ends the command wherever it is met."""


class Deadline:
    """A time budget for one piece of work: `with deadline.running():` starts it.

    On the main thread a timer (SIGALRM) interrupts work stuck anywhere in Python; off it,
    and in any case, `check()` (called by the template sandbox on every call it sees) stops
    work that is past its time. `seconds` None or 0: no bound.

    Deadlines nest: one started inside another's timer (a face inside the whole build's
    budget) runs for the shorter of its own time and what is left of the outer one, and
    when the outer one ends first it is the outer one's error that is raised. `error` and
    `option` make a budget of another kind (`budget`)."""

    def __init__(self, seconds: float | None, what: str = "the work", error: type[BaseException] = TimeLimit,
                 option: str = "--time-limit", where: Callable[[], str] | None = None):
        self.seconds = seconds
        self.what = what
        self.error = error
        self.option = option
        self.where = where
        self.ends: float | None = None
        self.spent = False
        self.outer: Deadline | None = None

    def check(self) -> None:
        if self.ends is not None and time.monotonic() > self.ends:
            self._fail()

    def _fail(self):
        outer = self.outer
        if outer is not None and (outer.spent or outer.ends is not None and time.monotonic() >= outer.ends - 0.001):
            outer._fail()
        self.ends = None
        self.spent = True
        raise self.error(self._message())

    def _message(self) -> str:
        where = self.where() if self.where is not None else ""
        return (f"{self.what} took longer than {self.seconds:g} s (the most pnp gives it: see {self.option})"
                + (f"; it was {where}" if where else ""))

    def _alarm(self, signum, frame):
        self._fail()

    @contextmanager
    def running(self):
        if not self.seconds:
            yield self
            return
        timer = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
        outer_left = 0.0
        if timer:
            outer = getattr(signal.getsignal(signal.SIGALRM), "__self__", None)
            self.outer = outer if isinstance(outer, Deadline) else None
            if self.outer is not None and self.outer.spent:  # the whole command is out of time already
                raise self.outer.error(self.outer._message())
            outer_left = signal.getitimer(signal.ITIMER_REAL)[0]
        if outer_left and outer_left <= self.seconds:  # the outer timer ends first: it stops the work
            self.ends = time.monotonic() + outer_left
            try:
                yield self
            finally:
                self.ends = self.outer = None
            return
        self.ends = time.monotonic() + self.seconds
        if timer:
            handler = signal.signal(signal.SIGALRM, self._alarm)
            outer_timer = signal.setitimer(signal.ITIMER_REAL, self.seconds)
            started = time.monotonic()
        try:
            yield self
        finally:
            self.ends = None
            if timer:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, handler)
                self.outer = None
                if outer_timer[0]:  # an outer timer (a caller's own bound): what is left of it
                    left = outer_timer[0] - (time.monotonic() - started)
                    signal.setitimer(signal.ITIMER_REAL, max(left, 0.001), outer_timer[1])


@dataclass(frozen=True)
class Limits:
    """The bounds of one build, chosen by whoever runs it (the command line), never by the
    project it builds: a pull request cannot raise them."""

    face_seconds: float = FACE_SECONDS   # to render one face's template, and again to draw it
    total_seconds: float = TOTAL_SECONDS  # the whole command, every face and stage together
    memory_bytes: int = MEMORY_BYTES      # each process's address space (an rlimit)
    untrusted: str = "off"                # the jail (jail.py): off, on, strict (--untrusted, CI)
    forks: bool = True                    # drawing workers may be forked (not where the jail kept /dev/shm shut)

    def deadline(self, what: str) -> Deadline:
        return Deadline(self.face_seconds, what)

    def budget(self, what: str, where: Callable[[], str] | None = None, seconds: float | None = None) -> Deadline:
        """The whole command's time (`total_seconds`, or `seconds` when what is left of it
        is handed to a drawing worker): past it, `OutOfTime`; `where` says what the
        command was doing then (its stage, its card)."""
        return Deadline(self.total_seconds if seconds is None else seconds, what, OutOfTime,
                        "--total-time-limit", where)


def read_bytes_inside(root: Path | str, path: Path | str, limit: int = MAX_FILE_BYTES,
                      shown: str | None = None) -> bytes:
    """The bytes of a regular file inside `root`, at most `limit` of them, checked before a
    byte is read: a symlink out of the project, a device, a FIFO or a socket is refused
    without opening it for long (a FIFO is opened without waiting for a writer).

    :raises OutsideProject: saying which of these it is.
    """
    real = inside(root, path, shown)
    shown = shorten(str(shown if shown is not None else path), 120)
    try:
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except (OSError, ValueError) as exc:
        raise OutsideProject(f"cannot read '{shown}': {_reason(exc)}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OutsideProject(f"'{shown}' is not a regular file (a folder, device, FIFO or socket): "
                                 "pnp reads only files")
        if st.st_size > limit:
            raise OutsideProject(f"'{shown}' is larger than {_size(limit)}, the most pnp reads")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise OutsideProject(f"cannot read '{shown}': {_reason(exc)}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise OutsideProject(f"'{shown}' is larger than {_size(limit)}, the most pnp reads")
    return data


def _size(n: int) -> str:
    return f"{n // 2**20} MiB" if n >= 2**20 else f"{n:,} bytes"


# git as pnp runs it in a project (a stamp's {version} and {date}, --changed-since REF, pnp
# diff): read-only, and deaf to any configuration the project itself could carry. A pull
# request cannot commit a .git folder, but it can commit a folder laid out as a bare
# repository, with a config whose core.fsmonitor is a command; git would find it from a
# game's folder and run it. safe.bareRepository=explicit (a protected setting: honoured from
# the command line only) makes git never use a bare repository it finds on its own.
GIT_SAFE = ("-c", "safe.bareRepository=explicit", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
            "--no-optional-locks")


def git_command(root: Path | str, *args: str) -> list[str]:
    """The argument list of a read-only `git ARGS` in `root`, configured by no file of the project."""
    return ["git", *GIT_SAFE, "-C", str(root), *args]


def git_env() -> dict[str, str]:
    """git's environment: no lock taken, no prompt, its messages in English."""
    return {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}

