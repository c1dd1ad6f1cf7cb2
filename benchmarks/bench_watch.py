"""The edit loop of `pnp watch`, card kind by card kind: one card of every deck of every
shipped game edited in a running watch's session, in-process as the watch rebuilds it.

Each game is copied to a temporary project and built once in a fresh process (a session
that remembers, as `pnp watch` makes; its default papers and rulebook); then, deck by
deck, one card has a letter added to a word of its text (its longest written text, else
its name; the next card when the rules refuse the edit), `--repeat` times,
each edit rebuilt as the watch rebuilds it. Printed per deck: the median wall and
CPU seconds until the first paper's sheets (the PDF being previewed; a game of several
editions: the first edition's) are in place, and until every file is. The machine is
shared: read the CPU column; wall is about CPU plus a few ms on a quiet machine.

    python benchmarks/bench_watch.py [--repeat 3] [--only meteor] [--profile DECK]

`--timings`: the stopwatch's stages of each deck's last edit until its first paper.
`--profile DECK` (with `--only`): cProfile of the deck's last edit until its first
paper, the 30 costliest functions by cumulative time.
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
GAMES = ("meteor", "king-of-the-pitch", "meta-olympia", "metikoro", "olympians")
TARGET = 0.3

EDIT = r"""
import cProfile, io, json, os, pstats, re, statistics, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from generator import pipeline
from generator.data.load import load_game
from generator.options import BuildOptions
from generator.session import Session
root, game, repeat, profile, timings = (Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5],
                                      sys.argv[6] == "1")
session = Session(remember=True)  # as `pnp watch` makes
t, c = time.perf_counter(), time.process_time()
pipeline.build(root, [game], BuildOptions(), session=session)
print(json.dumps({"cold": time.perf_counter() - t, "cold_cpu": time.process_time() - c}), flush=True)
from generator.errors import PnpError
SKIP = {"id", "front", "back", "template", "name"}

def spots(card):
    # (file, line index, word) where a letter may be added: the card's longest text, then its name
    path = root / card.source.file
    if not card.source.line or not path.is_file() or path.suffix != ".yaml":
        return
    lines = path.read_text().splitlines(keepends=True)
    texts = sorted((v for k, v in card.fields.items() if k not in SKIP and isinstance(v, str) and " " in v),
                   key=len, reverse=True)
    for value in [*texts[:1], card.name]:
        word = re.match(r"\w+", value)
        if not word:
            continue
        head = value[:24]   # where the value is written (a text may go on over lines: its start)
        for n in range(card.source.line - 1, min(card.source.line + 20, len(lines))):
            if head in lines[n]:
                yield path, n, head
                break

def rebuild(seen, early):
    try:
        pipeline.build(root, [game], BuildOptions(), session=session, early=early)
        return True
    except PnpError:
        return False

for deck in load_game(root, game, Session()).decks:
    done = None
    for card in deck.cards[:3]:
        for path, n, word in spots(card):
            original = path.read_text()
            firsts, cpus, fulls = [], [], []
            for k in range(repeat):
                session.settle()  # as `pnp watch` does once a rebuild is reported
                lines = path.read_text().splitlines(keepends=True)
                first = re.match(r"\w+", word).group(0)   # a letter added to the text's first word
                edited = first + "qwxyz"[k % 5] + word[len(first):]
                lines[n] = lines[n].replace(word, edited, 1)
                word = edited
                path.write_text("".join(lines))
                seen = []
                prof = cProfile.Profile() if profile == deck.id and k == repeat - 1 else None
                t, c = time.perf_counter(), time.process_time()
                def early(result):
                    seen.append((time.perf_counter() - t, time.process_time() - c))
                    if timings and k == repeat - 1:
                        sys.stderr.write(f"{game}/{deck.id}, until the first paper:\n{session.stopwatch.table()}\n")
                    if prof:
                        prof.disable()
                if prof:
                    prof.enable()
                if not rebuild(seen, early):   # the rules refuse the edit: the next spot
                    break
                fulls.append(time.perf_counter() - t)
                firsts.append(seen[0][0] if seen else fulls[-1])
                cpus.append(seen[0][1] if seen else time.process_time() - c)
                if prof:
                    out = io.StringIO()
                    pstats.Stats(prof, stream=out).sort_stats(os.environ.get("SORT", "cumulative")).print_stats(int(os.environ.get("TOP", "30")))
                    sys.stderr.write(out.getvalue())
            if len(fulls) == repeat:
                done = (path, card)
                break
            path.write_text(original)
            rebuild([], None)
        if done:
            break
    if done is None:
        print(json.dumps({"deck": deck.id, "skipped": "no edit the rules accept"}), flush=True)
        continue
    path, card = done
    print(json.dumps({"deck": deck.id, "file": path.name, "card": card.id, "first": statistics.median(firsts),
                      "cpu": statistics.median(cpus), "full": statistics.median(fulls)}), flush=True)
"""

def watch_game(game: str, repeat: int, profile: str, timings: bool = False) -> list[dict]:
    """One game copied to a temporary project, built cold, then each deck edited `repeat` times."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(ROOT / "cards" / game, root / "cards" / game)
        shutil.copytree(ROOT / "templates", root / "templates")
        proc = subprocess.run([sys.executable, "-c", EDIT, str(ROOT), str(root), game, str(repeat), profile,
                               "1" if timings else "0"],
                              cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"the edit loop of {game} failed:\n{proc.stderr[-2500:]}")
    if profile or timings:
        sys.stderr.write(proc.stderr)
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", help="one game", choices=GAMES)
    parser.add_argument("--profile", default="", help="a deck id of the --only game: profile its last edit")
    parser.add_argument("--timings", action="store_true", help="the stopwatch's stages of each deck's last edit")
    args = parser.parse_args()
    print(f"pnp watch: one card of each deck renamed, rebuilt in-process; median of {args.repeat}; "
          "seconds until the first paper is in place (wall, CPU) and until every file is (wall)")
    worst = []
    for game in [args.only] if args.only else GAMES:
        rows = watch_game(game, args.repeat, args.profile, args.timings)
        cold = rows[0]
        print(f"{game}: cold {cold['cold']:.2f} s wall, {cold['cold_cpu']:.2f} s CPU", flush=True)
        for r in rows[1:]:
            if "skipped" in r:
                print(f"  {r['deck']:>22}  ({r['skipped']})")
                continue
            worst.append((r["cpu"], f"{game}/{r['deck']}"))
            flag = "  over" if r["cpu"] > TARGET else ""
            print(f"  {r['deck']:>22} {r['first']:>7.3f} {r['cpu']:>7.3f} {r['full']:>7.3f}   "
                  f"{r['cpu'] / cold['cold_cpu']:.3f}x cold{flag}", flush=True)
    if worst:
        cpu, where = max(worst)
        over = sum(1 for c, _ in worst if c > TARGET)
        print(f"target: first paper <= {TARGET} s for every card; worst CPU {cpu:.3f} s ({where}); "
              f"{over} of {len(worst)} decks over")

if __name__ == "__main__":
    main()
