"""Where a build's time goes: CPU and wall seconds per stage, for `pnp build --timings`
and the benchmark.

In: `with stage("load"):` around the parts of a build, nested as they run (a stage's own
time excludes the stages nested in it, so the rows add up), and the CPU seconds of
drawing workers (`add_children_cpu`). Out: `rows()`: (stage, cpu s, wall s) in the
order stages were first entered, and `table()` for people. Measuring costs two clock
reads per stage entered; nothing is written anywhere.
"""
from __future__ import annotations

import resource
import time
from contextlib import contextmanager

STAGE_NOTE = "pnp stage: "   # the note an error gets from the innermost stage it passes through


def stage_of(exc: BaseException) -> str | None:
    """The innermost stage `exc` left (the note `Stopwatch.stage` gave it), or None."""
    for note in getattr(exc, "__notes__", ()):
        if note.startswith(STAGE_NOTE):
            return note.removeprefix(STAGE_NOTE)
    return None


class Stopwatch:
    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.cpu: dict[str, float] = {}
        self.wall: dict[str, float] = {}
        self._stack: list[list] = []     # [name, cpu at (re)start, wall at (re)start]
        self.elsewhere = 0.0             # of `cpu`, the seconds spent in other processes

    def _charge(self, entry, now_cpu, now_wall) -> None:
        name = entry[0]
        self.cpu[name] = self.cpu.get(name, 0.0) + now_cpu - entry[1]
        self.wall[name] = self.wall.get(name, 0.0) + now_wall - entry[2]

    @contextmanager
    def stage(self, name: str):
        now_cpu, now_wall = time.process_time(), time.perf_counter()
        if self._stack:  # the enclosing stage pauses while this one runs
            self._charge(self._stack[-1], now_cpu, now_wall)
        entry = [name, now_cpu, now_wall]
        self._stack.append(entry)
        try:
            yield
        except Exception as exc:   # the innermost stage an error left names where it ended (cli's last resort)
            if stage_of(exc) is None:
                exc.add_note(STAGE_NOTE + name)
            raise
        finally:
            now_cpu, now_wall = time.process_time(), time.perf_counter()
            self._charge(entry, now_cpu, now_wall)
            self._stack.pop()
            if self._stack:
                self._stack[-1][1:] = [now_cpu, now_wall]

    def current(self) -> str | None:
        """The innermost stage running now, if any."""
        return self._stack[-1][0] if self._stack else None

    def add_cpu(self, name: str, seconds: float) -> None:
        """CPU seconds spent for `name` in other processes (the drawing workers)."""
        self.cpu[name] = self.cpu.get(name, 0.0) + seconds
        self.wall.setdefault(name, 0.0)
        self.elsewhere += seconds

    def untimed_cpu(self) -> float:
        """This process's CPU seconds outside every stage: start-up, imports, bookkeeping."""
        return time.process_time() - (sum(self.cpu.values()) - self.elsewhere)

    def rows(self) -> list[tuple[str, float, float]]:
        return [(name, self.cpu[name], self.wall.get(name, 0.0)) for name in self.cpu]

    def table(self) -> str:
        rows = self.rows()
        width = max([len(r[0]) for r in rows] + [5])
        lines = [f"{'stage':<{width}}  {'cpu s':>7}  {'wall s':>7}"]
        lines += [f"{name:<{width}}  {cpu:>7.3f}  {wall:>7.3f}" for name, cpu, wall in rows]
        lines.append(f"{'total':<{width}}  {sum(r[1] for r in rows):>7.3f}  {sum(r[2] for r in rows):>7.3f}")
        return "\n".join(lines)


def children_cpu() -> float:
    """CPU seconds of this process's finished (waited-for) children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


