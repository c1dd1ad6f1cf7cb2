"""Benchmark: a game in five languages (Olympians: English, German, French, Japanese, Arabic).

Printed, each build cold in a fresh process (a copy of the project, no face cache):
- the CPU of building the English edition alone, and of building all five editions (A4 and
  Letter: sheets, cut files, rulebooks), and their ratio (target: at most 5x), with the
  stages where the time goes (`--timings`);
- the edit loop: in one process (as `pnp watch` runs), every edition built once, then the
  German text of one card edited and the German edition rebuilt (the watch rebuilds only
  the edition whose file was saved), median of 5 edits (target: within 0.3 s).

    python benchmarks/bench_editions.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_deck import CPU_REPORT, ROOT, _machine

RUN = CPU_REPORT + r"""
sys.path.insert(0, sys.argv[1])
from generator.cli import main
sys.argv = ["pnp", *sys.argv[2:]]
main()
"""

EDIT = r"""
import json, statistics, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from generator import pipeline
from generator.options import BuildOptions
from generator.loop.watch import editions_touched
from generator.session import Session
session = Session(remember=True)   # as `pnp watch` makes
root = Path(sys.argv[2]); german = root / "cards" / "olympians" / "i18n" / "de.yaml"
pipeline.build(root, ["olympians"], BuildOptions(), session=session)
times, cpu, drawn = [], [], []
text = german.read_text(encoding="utf-8")
for n in range(5):
    session.settle()
    old = "Spricht er, antwortet der Donner."
    new = old.replace("Donner", "Donner" + "abcde"[n])
    text = text.replace(old if n == 0 else old.replace("Donner", "Donner" + "abcde"[n - 1]), new, 1)
    german.write_text(text, encoding="utf-8")
    t, c = time.perf_counter(), time.process_time()
    langs = editions_touched(root, "olympians", ["cards/olympians/i18n/de.yaml"])
    result = pipeline.build(root, ["olympians"], BuildOptions(languages=langs), session=session)[0]
    times.append(time.perf_counter() - t)
    cpu.append(time.process_time() - c)
    drawn.append(sum(e.drawn for e in result.editions))
print(json.dumps({"median": statistics.median(times), "worst": max(times), "cpu": statistics.median(cpu),
                  "drawn": max(drawn), "editions": [e.game.language for e in result.editions]}))
"""


def build(project: Path, *args: str) -> dict:
    """A cold build of Olympians in a fresh process: CPU (workers included) and its stages."""
    shutil.rmtree(project / "output", ignore_errors=True)
    proc = subprocess.run([sys.executable, "-c", RUN, str(ROOT), "--root", str(project), "build", "olympians",
                           "--timings", *args], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"the build failed:\n{proc.stderr[-3000:]}")
    text = proc.stderr
    stages = {m.group(1).strip(): float(m.group(2)) for m in re.finditer(r"^(\w[\w ()]*?)\s+([\d.]+)\s+[\d.]+$",
                                                                              text, re.M)}
    return {"cpu": json.loads(text[text.rindex("BENCH ") + 6:].splitlines()[0])["cpu"], "stages": stages}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="cold builds of each kind (the fastest is shown)")
    args = parser.parse_args()
    print(f"pnp benchmark with editions: Olympians in 5 languages, A4 and Letter; {_machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        for name in ("cards", "templates"):
            shutil.copytree(ROOT / name, project / name)
        one = min((build(project, "--lang", "en") for _ in range(args.repeat)), key=lambda r: r["cpu"])
        every = min((build(project) for _ in range(args.repeat)), key=lambda r: r["cpu"])
        print(f"{'stage':>22} {'1 edition':>10} {'5 editions':>11}")
        for stage in sorted(set(one["stages"]) | set(every["stages"]), key=lambda s: -every["stages"].get(s, 0)):
            print(f"{stage:>22} {one['stages'].get(stage, 0):>10.2f} {every['stages'].get(stage, 0):>11.2f}")
        print(f"whole process CPU: one edition {one['cpu']:.2f} s, five editions {every['cpu']:.2f} s: "
              f"{every['cpu'] / one['cpu']:.2f}x (target <= 5)")
        proc = subprocess.run([sys.executable, "-c", EDIT, str(ROOT), str(project)], cwd=ROOT, capture_output=True,
                              text=True)
        if proc.returncode:
            raise SystemExit(f"the edit loop failed:\n{proc.stderr[-3000:]}")
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"edit loop (one card's German text, in one process as pnp watch): median {r['median']:.3f} s wall, "
              f"{r['cpu']:.3f} s CPU, worst {r['worst']:.3f} s; editions rebuilt: {', '.join(r['editions'])}; "
              f"{r['drawn']} bundle(s) redrawn (target <= 0.3 s)")


if __name__ == "__main__":
    main()
