"""Benchmark the landed history: the cold build of the benchmark deck at each commit, on this machine.

Each commit is checked out in a temporary git worktree, and its own benchmark deck (its
`benchmarks/bench_deck.py`) is built cold into A4 sheets in a fresh process with this
checkout's Python environment, measured by this checkout's `bench_deck.run_once`, best of
--repeat runs. Printed per commit: wall seconds, CPU seconds (the build and its drawing
workers) and the commit's subject. CPU is the figure to compare: it moves much less than
wall time when the machine is busy.

    python benchmarks/history.py                  # every 6th first-parent commit since the benchmark
    python benchmarks/history.py A B C            # these commits
    python benchmarks/history.py --bisect GOOD BAD --over 1.2 [--cards 5400]
        # halve GOOD..BAD until the first commit whose CPU is over 1.2 x GOOD's
    python benchmarks/history.py --against REF [--cards 540 5400] [--large]
        # the guard (`make bench`): this checkout beside REF (default: the last tag, else
        # DEFAULT_REF), interleaved in one run, at each size; prints the ratios
"""
from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from bench_deck import run_once

ROOT = Path(__file__).resolve().parents[1]
FIRST = "5c376fc"   # the commit that added the benchmark
DEFAULT_REF = "4f0adcf"   # with no tag: the code before the large-deck regression (issue 37)
LARGE = 10_000            # the size --large adds


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout.strip()


@contextmanager
def checkout(commit: str):
    """A temporary worktree of `commit` and its benchmark module (its own deck)."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        git("worktree", "add", "--detach", str(tree), commit)
        try:
            spec = importlib.util.spec_from_file_location(f"bench_{commit}", tree / "benchmarks" / "bench_deck.py")
            bench = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(bench)
            yield tree, bench
        finally:
            git("worktree", "remove", "--force", str(tree))


def build(tree: Path, bench, cards: int, where: Path) -> dict:
    """One cold build of the commit's own deck of `cards` cards (bench_deck.run_once's figures)."""
    if not where.exists():
        bench.write_project(where, cards)
    return run_once(where, tree)


def measure(commit: str, cards: int = 540, repeat: int = 2) -> tuple[float, float]:
    """(wall s, CPU s) of the best cold build of the commit's benchmark deck."""
    with checkout(commit) as (tree, bench), tempfile.TemporaryDirectory() as tmp:
        runs = [build(tree, bench, cards, Path(tmp) / "project") for _ in range(repeat)]
        best = min(runs, key=lambda r: r["cpu"])
        return best["wall"], best["cpu"]


def report(commit: str, figures: tuple[float, float]) -> None:
    subject = git("log", "-1", "--format=%ad %s", "--date=format:%m-%d %H:%M", commit)
    print(f"{commit[:9]}  wall {figures[0]:6.2f} s  cpu {figures[1]:6.2f} s  {subject[:80]}", flush=True)


def bisect(good: str, bad: str, over: float, cards: int = 540) -> str:
    """The first commit of good..bad (first parents) whose CPU is over `over` x good's."""
    line = git("rev-list", "--first-parent", "--reverse", f"{good}..{bad}").split()
    base = measure(good, cards)
    report(good, base)
    lo, hi = 0, len(line) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        figures = measure(line[mid], cards)
        report(line[mid], figures)
        if figures[1] > over * base[1]:
            hi = mid
        else:
            lo = mid + 1
    return line[lo]


def default_ref() -> str:
    """The last tag reachable from HEAD (the previous release), else DEFAULT_REF."""
    found = subprocess.run(["git", "-C", str(ROOT), "describe", "--tags", "--abbrev=0"], capture_output=True, text=True)
    return found.stdout.strip() if found.returncode == 0 else DEFAULT_REF


FIGURES = ("cpu", "wall", "tree", "largest")


def against(ref: str, sizes: list[int], repeat: int) -> None:
    """This checkout (its working tree) beside `ref`, interleaved in one run: at each size
    the two builds alternate (ABBA), `repeat` pairs up to 1,000 cards and one above; the
    medians and their ratios (this checkout / ref)."""
    import bench_deck as here
    print(f"this checkout ({git('rev-parse', '--short', 'HEAD')} + working tree) beside {ref}: the benchmark deck "
          f"cold, A4, each commit's own deck, interleaved; median of {repeat} (1 above 1,000 cards)")
    print(f"{'cards':>6} {'cpu s ref':>10} {'now':>7} {'ratio':>6}  {'ms/card ref':>11} {'now':>6}  "
          f"{'1 proc MB ref':>13} {'now':>5} {'ratio':>6}  {'tree MB ref':>11} {'now':>5} {'ratio':>6}")
    per_card: dict[int, float] = {}
    with checkout(ref) as (tree, bench), tempfile.TemporaryDirectory() as tmp:
        for k, n in enumerate(sizes):
            runs: dict[str, list[dict]] = {"ref": [], "now": []}
            for i in range(repeat if n <= 1000 else 1):
                order = [("ref", tree, bench), ("now", ROOT, here)]
                for name, code, deck in order[::-1] if (i + k) % 2 else order:
                    runs[name].append(build(code, deck, n, Path(tmp) / f"{name}-{n}"))
            ref_, now = ({f: statistics.median(r[f] for r in runs[name]) for f in FIGURES} for name in ("ref", "now"))
            per_card[n] = 1000 * now["cpu"] / n
            print(f"{n:>6} {ref_['cpu']:>10.2f} {now['cpu']:>7.2f} {now['cpu'] / ref_['cpu']:>6.2f}  "
                  f"{1000 * ref_['cpu'] / n:>11.2f} {per_card[n]:>6.2f}  "
                  f"{ref_['largest']:>13.0f} {now['largest']:>5.0f} {now['largest'] / ref_['largest']:>6.2f}  "
                  f"{ref_['tree']:>11.0f} {now['tree']:>5.0f} {now['tree'] / ref_['tree']:>6.2f}", flush=True)
    first = sizes[0]
    trend = ", ".join(f"{n}: {per_card[n] / per_card[first]:.2f}" for n in sizes[1:])
    print(f"this checkout's CPU per card against {first} cards (target: flat or falling): {trend or '-'}")
    print("ratio: this checkout / ref (under 1: less); cpu: the build and its drawing workers; 1 proc MB: the "
          "largest process (max RSS); tree MB: the build and its workers together (PSS, sampled every 50 ms). "
          f"Targets at {LARGE} cards: 1 proc <= 150 MB, tree <= 200 MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commits", nargs="*")
    parser.add_argument("--bisect", nargs=2, metavar=("GOOD", "BAD"))
    parser.add_argument("--over", type=float, default=1.2)
    parser.add_argument("--cards", type=int, nargs="+", help="deck sizes (default: 540; --against: 540 5400)")
    parser.add_argument("--against", nargs="?", const="", metavar="REF",
                        help=f"this checkout beside REF (default: the last tag, else {DEFAULT_REF})")
    parser.add_argument("--large", action="store_true", help=f"--against: {LARGE} cards too")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    if args.against is not None:
        sizes = (args.cards or [540, 5400]) + ([LARGE] if args.large else [])
        against(args.against or default_ref(), sizes, args.repeat)
        return
    cards = (args.cards or [540])[0]
    print(f"{cards} distinct cards, cold, A4; best of {args.repeat}; Python {sys.version.split()[0]}; "
          "this checkout's packages")
    if args.bisect:
        print(f"first commit over {args.over} x: {bisect(*args.bisect, args.over, cards)}")
        return
    commits = args.commits or git("rev-list", "--first-parent", "--reverse", f"{FIRST}~1..HEAD").split()[::6]
    for commit in commits:
        report(commit, measure(commit, cards, args.repeat))


if __name__ == "__main__":
    main()
