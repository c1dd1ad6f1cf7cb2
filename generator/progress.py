"""Progress of a build, for people: a bar per stage on a terminal, plain lines in a log.

In: stages as `bar(label, total)` context managers that yield an `advance(n=1)` function.
Out: on stderr: when it is a terminal, click's progress bar for each stage (drawn once
the stage has taken more than a moment, so quick stages leave no trace); otherwise
(CI logs) one quiet line per finished stage, `label: done in 1.23 s`. `SILENT` shows
nothing (library use, tests of the pipeline).
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager

import click

MOMENT = 0.25   # seconds: a stage quicker than this shows no bar


class Progress:
    def __init__(self, stream=None, tty: bool | None = None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty

    @contextmanager
    def bar(self, label: str, total: int):
        started = time.perf_counter()
        if not self.tty:
            yield lambda n=1: None
            click.echo(f"{label}: done in {time.perf_counter() - started:.2f} s", file=self.stream)
            return
        if total <= 0:
            yield lambda n=1: None
            return
        shown = None
        done = 0

        def advance(n: int = 1):
            nonlocal shown, done
            done += n
            if shown is None and time.perf_counter() - started > MOMENT:
                shown = click.progressbar(length=total, label=label, file=self.stream, show_eta=False)
                shown.__enter__()
                shown.update(done)
            elif shown is not None:
                shown.update(n)

        try:
            yield advance
        finally:
            if shown is not None:
                shown.__exit__(None, None, None)


class _Silent:
    @contextmanager
    def bar(self, label: str, total: int):
        yield lambda n=1: None


SILENT = _Silent()
