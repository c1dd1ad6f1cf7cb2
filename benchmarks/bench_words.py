"""Benchmark: the word checks (issue 41) of all five shipped games, every edition.

Printed, each command cold in a fresh process on a copy of the project:
- the CPU of `pnp validate` (every game, every edition, cards drawn in memory) with the word
  checks and with them left out (the same process, `word_findings` answering nothing), the
  difference in seconds (target: at most 1 s) and the ratio of the two runs;
- the CPU of the word checks themselves, in a fresh process with the games loaded (the
  dictionaries opened as they are needed), against that of `pnp validate` (target: 1 s);
- the CPU of `pnp lint` alone (every game, every edition: the word checks, nothing drawn);
- with `--spylls` (spylls installed beside, it is no dependency of pnp): the library
  choice measured again, libhunspell (the bridge) against spylls, loading each
  dictionary and asking one suggestion.

    python benchmarks/bench_words.py [--repeat 3] [--spylls]
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_deck import CPU_REPORT, ROOT, _machine

RUN = CPU_REPORT + r"""
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "without-words":
    import generator.rules.words as words
    words.word_findings = lambda game, editions: ([], [])
from generator.cli import main
sys.argv = ["pnp", *sys.argv[3:]]
main()
"""

STAGE = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from generator.data.i18ncheck import checked_editions
from generator.data.load import list_games, load_game
from generator.rules.words import word_findings
from generator.session import Session
root = Path(sys.argv[2])
loaded = [(g, checked_editions(g, None)[0]) for g in (load_game(root, name, Session()) for name in list_games(root))]
start = time.process_time()
found = sum(len(word_findings(game, editions)[0]) for game, editions in loaded)
print(f"{time.process_time() - start:.3f} {found}")
"""

LIBRARIES = r"""
import sys, time
which = sys.argv[1]
for lang in ("en_US", "de_DE", "fr"):
    start = time.process_time()
    if which == "spylls":
        from spylls.hunspell import Dictionary
        d = Dictionary.from_files(f"/usr/share/hunspell/{lang}")
        loaded = time.process_time()
        list(d.suggest("recieve"))
    else:
        sys.path.insert(0, sys.argv[2])
        from generator.rules.hunspellbridge import Speller, DICTIONARIES
        d = Speller(lang, DICTIONARIES / f"{lang}.aff", DICTIONARIES / f"{lang}.dic")
        loaded = time.process_time()
        d.suggest("recieve")
    print(f"{which:12} {lang:6} load {loaded - start:6.2f} s  one suggestion {time.process_time() - loaded:7.2f} s")
"""


def cpu(project: Path, mode: str, *args: str) -> float:
    proc = subprocess.run([sys.executable, "-c", RUN, str(ROOT), mode, "--root", str(project), *args, "--trusted"],
                          cwd=project, capture_output=True, text=True)
    line = next(x for x in proc.stderr.splitlines() if x.startswith("BENCH "))
    return json.loads(line[6:])["cpu"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--spylls", action="store_true", help="also measure spylls against libhunspell")
    args = parser.parse_args()
    print(f"pnp benchmark of the word checks: five games, every edition; {_machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        for name in ("cards", "templates"):
            shutil.copytree(ROOT / name, project / name)
        runs: dict[str, list[float]] = {"with": [], "without": [], "lint": [], "stage": []}
        for _ in range(args.repeat):
            shutil.rmtree(project / "output", ignore_errors=True)
            runs["without"].append(cpu(project, "without-words", "validate"))
            shutil.rmtree(project / "output", ignore_errors=True)
            runs["with"].append(cpu(project, "with-words", "validate"))
            started = time.perf_counter()
            runs["lint"].append(cpu(project, "with-words", "lint"))
            wall = time.perf_counter() - started
            stage = subprocess.run([sys.executable, "-c", STAGE, str(ROOT), str(project)], capture_output=True,
                                   text=True).stdout.split()
            runs["stage"].append(float(stage[0]))
    median = {k: statistics.median(v) for k, v in runs.items()}
    print(f"pnp validate, word checks left out: cpu {median['without']:.2f} s")
    print(f"pnp validate, with the word checks: cpu {median['with']:.2f} s "
          f"(+{median['with'] - median['without']:.2f} s, ratio {median['with'] / median['without']:.3f}; target +1 s)")
    print(f"the word checks themselves (five games, every edition, cold: the dictionaries opened): cpu "
          f"{median['stage']:.2f} s, {median['stage'] / median['without']:.3f} of pnp validate (target: 1 s)")
    print(f"pnp lint alone: cpu {median['lint']:.2f} s (last run {wall:.2f} s wall), medians of {args.repeat}")
    if args.spylls:
        for which in ("libhunspell", "spylls"):
            print(subprocess.run([sys.executable, "-c", LIBRARIES, which, str(ROOT)], capture_output=True,
                                 text=True).stdout, end="")


if __name__ == "__main__":
    main()
