"""Benchmark: a one-shot `pnp build` after a one-card edit, as a ratio to a cold build.

The 540-card benchmark deck (bench_deck.py's) and Meteor, A4 sheets (Meteor's rulebook
too), each `pnp build` in a fresh process. Interleaved, `--repeat` times: one card's
text edited, the project rebuilt one-shot (its output/.cache as the last build left it:
the face cache and the build memo, generator/diskmemo.py), then the same cards built
cold into a fresh output folder; the two must write the same bytes. Prints the CPU
(the build and its drawing workers) of each, and the ratio of the medians (target
<= 0.15). Python's compiled modules are kept in a temporary folder, as an installed pnp
has them (PYTHONDONTWRITEBYTECODE is not followed here).

    python benchmarks/bench_oneshot.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_deck import ROOT, write_project


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def build(root: Path, game: str, output: Path, env: dict) -> tuple[float, str]:
    """One `pnp build` in a fresh process: its CPU (with its workers) and its --timings."""
    before = _cpu()
    proc = subprocess.run([sys.executable, "-m", "generator", "--root", str(root), "build", game, "--paper", "a4",
                           "--output", str(output), "--timings"], cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"the build failed:\n{proc.stderr}")
    return _cpu() - before, proc.stderr[proc.stderr.find("stage "):]


def files(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def measure(root: Path, game: str, deck: Path, pattern: str, repeat: int, env: dict) -> dict:
    """Cold and one-shot rebuild CPU, interleaved; the rebuild's --timings of the last edit."""
    out = root / "output"
    build(root, game, out, env)   # the first build: what the rebuilds find in output/.cache
    cold, warm, stages = [], [], ""
    for n in range(repeat):
        text = deck.read_text()
        edited, found = re.subn(pattern, lambda m, n=n: m.group(0) + "vwxyz"[n % 5], text, count=1)
        assert found, pattern
        deck.write_text(edited)
        seconds, stages = build(root, game, out, env)
        warm.append(seconds)
        fresh = root / f"cold{n}"
        cold.append(build(root, game, fresh, env)[0])
        if files(out / game) != files(fresh / game):
            raise SystemExit(f"{game}: the rebuild after an edit is not the cold build's bytes")
        shutil.rmtree(fresh)
    return {"cold": statistics.median(cold), "warm": statistics.median(warm), "stages": stages}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("one-shot pnp build after a one-card edit against a cold build, same run, interleaved "
          f"(median of {args.repeat}; CPU of the build and its workers)")
    print(f"{'game':>24} {'cold cpu s':>11} {'rebuild cpu s':>14} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        profiles = []
        for game, label, file, pattern in (
                ("bench", "540 distinct cards", "deck.yaml", r'name: "Ember Drake 1'),
                ("meteor", "Meteor (a zone card)", "zones.yaml", r"and get building"),
                ("meteor", "Meteor (a boss: rulebook)", "bosses.yaml", r"name: Iron Giant")):
            root = Path(tmp) / label.split()[-1].strip(")")
            if game == "bench":
                write_project(root, 540)
            else:
                shutil.copytree(ROOT / "cards", root / "cards")
                shutil.copytree(ROOT / "templates", root / "templates")
            deck = root / "cards" / game / file
            r = measure(root, game, deck, pattern, args.repeat, env)
            print(f"{label:>24} {r['cold']:>11.2f} {r['warm']:>14.2f} {r['warm'] / r['cold']:>6.2f}", flush=True)
            profiles.append(f"{label}, the rebuild (--timings):\n{r['stages']}")
    print("target: rebuild <= 0.15x cold, the same bytes (checked)\n")
    print("\n".join(profiles))


if __name__ == "__main__":
    main()
