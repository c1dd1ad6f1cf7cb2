"""The edit loop of `pnp watch`, measured on every shipped game: one card's text edited, the
game rebuilt in-process as the watch rebuilds it (its default papers and rulebook).

Each game is built cold once in a fresh process (a session that remembers, as `pnp watch`
makes), then one card is edited five times (a letter added to its name or text) and
rebuilt. Printed per game: the cold build, the median and worst time until the first
paper's sheets (the PDF being previewed) are in place, the median until every file is,
and the ratio of the first paper's median to the cold build (same process, same minutes).
Meteor's boss is listed in the rulebook's text, so its rulebook is laid out again.

    python benchmarks/edit_loop.py [--repeat 5] [--only meteor]
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (what, game, file, marker): the marker is found in the file and a letter is added after it
EDITS = (
    ("Meteor: a zone card", "meteor", "zones.yaml", "and get building"),
    ("Meteor: a boss (in the rulebook)", "meteor", "bosses.yaml", "name: Iron Giant"),
    ("King of the Pitch: a captain", "king-of-the-pitch", "captains.yaml", '"Santiago Ibarra'),
    ("Meta Olympia: an athlete", "meta-olympia", "athletes.yaml", "name: Tess Okafor"),
    ("MetiKoro: a platform", "metikoro", "platforms.yaml", "name: Blue Action Platform"),
    ("Olympians: a card (5 editions)", "olympians", "playing-cards.yaml", 'name: "1 of Arrows'),
)

EDIT = r"""
import json, statistics, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from generator import pipeline
from generator.options import BuildOptions
from generator.session import Session
session = Session(remember=True)  # as `pnp watch` makes
root, game, deck, marker, repeat = Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), sys.argv[5], int(sys.argv[6])
t = time.perf_counter(); pipeline.build(root, [game], BuildOptions(), session=session); cold = time.perf_counter() - t
firsts, fulls, cpus = [], [], []
for n in range(repeat):
    session.settle()  # as `pnp watch` does once a rebuild is reported
    text = deck.read_text()
    assert marker in text, marker
    deck.write_text(text.replace(marker, marker + "vwxyzabcdefghijklmnopqrstu"[n], 1))
    seen = []
    t, c = time.perf_counter(), time.process_time()
    pipeline.build(root, [game], BuildOptions(), session=session,
                   early=lambda r: seen.append((time.perf_counter() - t, time.process_time() - c)))
    fulls.append(time.perf_counter() - t)
    firsts.append(seen[0][0] if seen else fulls[-1])
    cpus.append(seen[0][1] if seen else time.process_time() - c)
print(json.dumps({"cold": cold, "first": statistics.median(firsts), "worst": max(firsts),
                  "full": statistics.median(fulls), "cpu": statistics.median(cpus)}))
"""


def edit_game(game: str, file: str, marker: str, repeat: int) -> dict:
    """One game copied to a temporary project, built cold and edited `repeat` times in one process."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(ROOT / "cards", root / "cards")
        shutil.copytree(ROOT / "templates", root / "templates")
        proc = subprocess.run([sys.executable, "-c", EDIT, str(ROOT), str(root), game,
                               str(root / "cards" / game / file), marker, str(repeat)],
                              cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"the edit loop of {game} failed:\n{proc.stderr[-1500:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def edit_loop(repeat: int = 5, only: str | None = None) -> None:
    print(f"edit loop (pnp watch): one card edited, rebuilt in-process, every paper and the rulebook; "
          f"median of {repeat}")
    print(f"{'edit':>34} {'cold s':>7} {'1st paper s':>11} {'CPU s':>6} {'worst s':>8} {'all s':>6} "
          f"{'1st/cold':>9}")
    firsts = []
    for what, game, file, marker in EDITS:
        if only and game != only:
            continue
        r = edit_game(game, file, marker, repeat)
        firsts.append(r["first"])
        print(f"{what:>34} {r['cold']:>7.2f} {r['first']:>11.3f} {r['cpu']:>6.3f} {r['worst']:>8.3f} {r['full']:>6.3f} "
              f"{r['first'] / r['cold']:>9.3f}", flush=True)
    print(f"target: the first paper in place <= 0.3 s (median; worst of the medians here "
          f"{max(firsts):.3f} s) and <= 0.1x the cold build in the same process. 1st paper s: wall seconds until "
          "the first paper's sheets are in place (CPU s: this process's CPU until then; a busy machine moves it "
          "less than wall); all s: until every paper and rulebook is")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", help="one game")
    args = parser.parse_args()
    edit_loop(args.repeat, args.only)


if __name__ == "__main__":
    main()
