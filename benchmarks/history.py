"""Benchmark the landed history: the 540-card cold build at each commit, on this machine.

Each commit is checked out in a temporary git worktree, and its own benchmark deck (its
`benchmarks/bench_deck.py`) is built cold into A4 sheets in a fresh process with this
checkout's Python environment, best of --repeat runs. Printed per commit: wall seconds,
CPU seconds (the build and its drawing workers) and the commit's subject. CPU is the
figure to compare: it moves much less than wall time when the machine is busy.

    python benchmarks/history.py                  # every 6th first-parent commit since the benchmark
    python benchmarks/history.py A B C            # these commits
    python benchmarks/history.py --bisect GOOD BAD --over 1.2
        # halve GOOD..BAD until the first commit whose CPU is over 1.2 x GOOD's
"""
from __future__ import annotations

import argparse
import importlib.util
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIRST = "5c376fc"   # the commit that added the benchmark


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout.strip()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(commit: str, cards: int = 540, repeat: int = 2) -> tuple[float, float]:
    """(wall s, CPU s) of the best cold build of the commit's benchmark deck."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        git("worktree", "add", "--detach", str(tree), commit)
        try:
            spec = importlib.util.spec_from_file_location(f"bench_{commit}", tree / "benchmarks" / "bench_deck.py")
            bench = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(bench)
            best = None
            for n in range(repeat):
                project = Path(tmp) / f"project{n}"
                bench.write_project(project, cards)
                before, started = _children_cpu(), time.perf_counter()
                proc = subprocess.run([sys.executable, "-m", "generator", "--root", str(project), "build", "bench",
                                       "--paper", "a4"], cwd=tree, capture_output=True, text=True)
                wall, cpu = time.perf_counter() - started, _children_cpu() - before
                if proc.returncode:
                    raise RuntimeError(f"{commit}: the build failed: {proc.stderr.strip()[-300:]}")
                best = min(best or (wall, cpu), (wall, cpu), key=lambda r: r[1])
            return best
        finally:
            git("worktree", "remove", "--force", str(tree))


def report(commit: str, figures: tuple[float, float]) -> None:
    subject = git("log", "-1", "--format=%ad %s", "--date=format:%m-%d %H:%M", commit)
    print(f"{commit[:9]}  wall {figures[0]:6.2f} s  cpu {figures[1]:6.2f} s  {subject[:80]}", flush=True)


def bisect(good: str, bad: str, over: float) -> str:
    """The first commit of good..bad (first parents) whose CPU is over `over` x good's."""
    line = git("rev-list", "--first-parent", "--reverse", f"{good}..{bad}").split()
    base = measure(good)
    report(good, base)
    lo, hi = 0, len(line) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        figures = measure(line[mid])
        report(line[mid], figures)
        if figures[1] > over * base[1]:
            hi = mid
        else:
            lo = mid + 1
    return line[lo]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commits", nargs="*")
    parser.add_argument("--bisect", nargs=2, metavar=("GOOD", "BAD"))
    parser.add_argument("--over", type=float, default=1.2)
    args = parser.parse_args()
    print(f"540 distinct cards, cold, A4; best of 2; Python {sys.version.split()[0]}; this checkout's packages")
    if args.bisect:
        print(f"first commit over {args.over} x: {bisect(*args.bisect, args.over)}")
        return
    commits = args.commits or git("rev-list", "--first-parent", "--reverse", f"{FIRST}~1..HEAD").split()[::6]
    for commit in commits:
        report(commit, measure(commit))


if __name__ == "__main__":
    main()
