"""Benchmark the shipped games: `pnp validate` and a cold `pnp build` of all five, at two
commits, interleaved, so a change (a sandbox, a new check) is measured against the code
before it on the same machine in the same minutes.

Each commit is checked out in a temporary git worktree and run with this checkout's
Python environment, in a fresh process each time, from a fresh copy of that commit's own
`cards/` and `templates/`. Printed per command: the median CPU seconds (the process and
its drawing workers) of each commit over --repeat runs, and their ratio. CPU is the figure
to compare: it moves much less than wall time when the machine is busy.

    python benchmarks/games.py BEFORE [AFTER]      # AFTER defaults to the working tree (HEAD plus edits)
    python benchmarks/games.py 4f0adcf --repeat 5
"""
from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {"validate": ["validate"], "build": ["build", "--paper", "a4"]}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(tree: Path, work: Path, command: list[str]) -> tuple[float, float]:
    """(wall s, CPU s) of one pnp command on a fresh copy of the tree's games."""
    if work.exists():
        shutil.rmtree(work)
    for name in ("cards", "templates"):
        shutil.copytree(tree / name, work / name)
    before, started = _children_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "generator", "--root", str(work), *command], cwd=tree,
                          capture_output=True, text=True)
    wall, cpu = time.perf_counter() - started, _children_cpu() - before
    if proc.returncode:
        raise SystemExit(f"{tree}: pnp {' '.join(command)} failed:\n{proc.stderr.strip()[-600:]}")
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after", nargs="?", help="a commit (default: this working tree)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=sorted(COMMANDS), help="measure one command only")
    args = parser.parse_args()
    commands = {args.only: COMMANDS[args.only]} if args.only else COMMANDS
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        for label, commit in (("before", args.before), ("after", args.after)):
            if commit is None:
                trees[label] = ROOT
                continue
            trees[label] = Path(tmp) / label
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(trees[label]), commit],
                           check=True, capture_output=True)
        try:
            cpu: dict = {(label, name): [] for label in trees for name in commands}
            for n in range(args.repeat):
                for name, command in commands.items():
                    for label, tree in trees.items():  # interleaved: the machine's drift hits both alike
                        cpu[(label, name)].append(run_once(tree, Path(tmp) / f"work-{label}", command)[1])
                print(f"run {n + 1} of {args.repeat} done", file=sys.stderr, flush=True)
            for name in commands:
                runs = {label: cpu[(label, name)] for label in ("before", "after")}
                before, after = (statistics.median(runs[label]) for label in ("before", "after"))
                # each pair ran back to back: its ratio cancels most of the machine's drift
                pairs = statistics.median(a / b for b, a in zip(runs["before"], runs["after"]))
                print(f"pnp {name:8}  before {before:6.2f} s  after {after:6.2f} s  after/before {after / before:.3f}"
                      f"  pairwise {pairs:.3f}  fastest {min(runs['after']) / min(runs['before']):.3f}  (CPU, median "
                      f"of {args.repeat}; every run: {[round(v, 2) for v in runs['before']]} / "
                      f"{[round(v, 2) for v in runs['after']]})")
        finally:
            for tree in trees.values():
                if tree != ROOT:
                    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                                   capture_output=True)


if __name__ == "__main__":
    main()
