"""Fuzzing: hundreds of mutated versions of the shipped games never crash, hang or balloon.

Two seeded fuzzers (tests/fuzz.py) run side by side in subprocesses, each with its
address space capped, so a case that eats memory fails the test instead of the machine.
A failure prints the seed and case number: `python tests/fuzz.py SEED CASES` replays it.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).with_name("fuzz.py")
SEEDS = (20261123, 14)
CASES = 56            # per seed: validate runs, card texts through the text setter and...
BUILDS = 1            # ...and a whole build
MEMORY = 3 * 2**30    # address space of one fuzzer (bytes); a build's peak is far below
PEAK_MB = 1500        # resident memory a fuzzer may reach


def _cap_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


@pytest.mark.slow   # fresh processes build fuzzed games
def test_fuzzed_games_exit_cleanly_in_bounded_time_and_memory():
    # the fuzzer runs many commands in its one process: never in the jail of an untrusted build,
    # which is one-way (CI would turn it on); tests/test_jail.py runs the jail, a process a build
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    procs = [subprocess.Popen([sys.executable, str(FUZZ), str(seed), str(CASES), str(BUILDS)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_cap_memory,
                              env=env)
             for seed in SEEDS]
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"the fuzzer itself died:\n{err[-3000:]}"
        reports.append(json.loads(out.strip().splitlines()[-1]))
    failures = [f for r in reports for f in r["failures"]]
    shown = "\n\n".join(json.dumps(f, indent=1)[:2500] for f in failures[:5])
    assert not failures, f"{len(failures)} fuzz cases failed; the first ones:\n{shown}"
    assert sum(r["cases"] for r in reports) == CASES * len(SEEDS)
    assert all(r["peak_mb"] < PEAK_MB for r in reports), reports
