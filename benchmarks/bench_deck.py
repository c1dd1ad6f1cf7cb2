"""Benchmark: build a synthetic prototype poker deck into A4 sheets and print the figures.

The deck is what a typical prototype looks like: a title, a cost circle, a type bar, one
SVG icon and two or three wrapped sentences of rules text per card, all distinct. Each size
is built cold in a fresh process (fonts, imports and caches start cold, as for a designer
running `pnp build`) and measured for wall time, CPU (the build and its drawing workers),
peak memory and PDF size.

Figures that hold on any machine: in the same run, CairoSVG alone draws the same face SVGs
(`cairosvg.svg2pdf`, one PDF per face, as a script calling CairoSVG would), and the
benchmark prints pnp's CPU per distinct card against that baseline as a ratio. Then the
per-stage profile of the largest build (`pnp build --timings`).

Then the edit loop: in one process (as `pnp watch` runs), a game is built once, then one
card's text is edited and the game rebuilt to updated A4 sheets, warm (faces from the
face cache, templates compiled): the 540-card deck, median of 5 edits; then one card of
each shipped game as `pnp watch` rebuilds it (benchmarks/edit_loop.py: until the first
paper's sheets are in place, and until every file is).

    python benchmarks/bench_deck.py [--cards 54 540] [--repeat 3] [--no-warm]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The start of a script a benchmark runs in a fresh interpreter: at its exit it writes
# "BENCH {"cpu": ...}" to stderr, its CPU and its children's (the drawing workers').
CPU_REPORT = r"""
import atexit, json, resource, sys
def report():
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stderr.write("\nBENCH " + json.dumps({"cpu": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime}) + "\n")
atexit.register(report)
"""

TEMPLATE = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}" text-rendering="geometricPrecision">
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="{{ card.colour }}"/>
  <rect x="6" y="6" width="57" height="82" rx="3" fill="#fffbe8" stroke="#333" stroke-width="0.5"/>
  <rect x="8" y="8" width="53" height="9" rx="1.5" fill="{{ card.colour }}"/>
  {{ textbox(card.name, 10, 9.2, 38, 6.6, family="Lato", bold=True, size=4.6, min_size=3, max_lines=1, color="#fff") }}
  <circle cx="55.5" cy="12.5" r="4.6" fill="#fff" stroke="{{ card.colour }}" stroke-width="0.8"/>
  <text x="55.5" y="14.3" text-anchor="middle" font-family="Lato" font-weight="bold" font-size="5">{{ card.cost }}</text>
  <g fill="{{ card.colour }}">{{ icon("gem", 26.5, 22, 16) }}</g>
  <rect x="8" y="44" width="53" height="6" fill="#e8e0c8"/>
  {{ textbox("*" ~ card.type ~ "*", 10, 44.6, 49, 5, family="EB Garamond", size=3.6, min_size=2.4, align="center", max_lines=1) }}
  {{ textbox(card.text, 10, 53, 49, 30, family="Lato", size=3.4, min_size=2.2, leading=1.25) }}
</svg>
"""
BACK = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="#223344"/>
  <rect x="8" y="8" width="53" height="78" rx="4" fill="none" stroke="#ccaa66" stroke-width="1"/>
  <g fill="#ccaa66">{{ icon("gem", 22.5, 30, 24) }}</g>
  <text x="34.5" y="70" text-anchor="middle" font-family="Lato" font-weight="bold" font-size="6" fill="#ccaa66">BENCHMARK</text>
</svg>
"""
GEM = '<svg viewBox="0 0 10 10"><path d="M5 0.5 L9.5 4 L5 9.5 L0.5 4 Z"/><path d="M0.5 4 H9.5" stroke="#fff" stroke-width="0.4"/></svg>\n'
ADJ = ["Ember", "Frost", "Storm", "Shadow", "Golden", "Iron", "Silent", "Wild", "Ancient", "Hollow"]
NOUN = ["Drake", "Knight", "Oracle", "Golem", "Serpent", "Archer", "Warden", "Seer", "Titan", "Wisp"]
TYPES = ["Creature", "Spell", "Artifact", "Location"]
COLOURS = ["#8b2f2f", "#2f5f8b", "#3f7f3f", "#6f3f8b", "#8b6f2f", "#2f2f2f"]
SENTENCES = [
    "Deal {a} damage to a creature of your choice.",
    "Draw {b} cards, then discard one card from your hand.",
    "Each opponent loses {a} life unless they pay one gem.",
    "When this enters play, look at the top {b} cards of your deck and keep one.",
    "Return a spell from your discard pile to your hand.",
    "Creatures you control get +{a} power until the end of the turn.",
]


def write_project(root: Path, n: int) -> None:
    (root / "cards" / "bench").mkdir(parents=True)
    (root / "templates" / "bench" / "icons").mkdir(parents=True)
    (root / "templates" / "bench" / "front.svg.j2").write_text(TEMPLATE)
    (root / "templates" / "bench" / "back.svg.j2").write_text(BACK)
    (root / "templates" / "bench" / "icons" / "gem.svg").write_text(GEM)
    (root / "cards" / "bench" / "game.yaml").write_text("title: Benchmark\ndecks: [deck.yaml]\n")
    lines = ["deck: bench", "name: Benchmark deck", "front: front.svg.j2", "back: back.svg.j2",
             "fields:", "  type: {type: string}", "  cost: {type: integer}", "  colour: {type: string}",
             "  text: {type: string}", "cards:"]
    for i in range(n):
        k = 2 + i % 2
        text = " ".join(SENTENCES[(i + j) % len(SENTENCES)].format(a=i % 5 + 1, b=i % 3 + 1) for j in range(k))
        name = f"{ADJ[i % 10]} {NOUN[(i // 10) % 10]} {i + 1}"
        lines.append(f'  - {{id: c{i}, name: "{name}", type: {TYPES[i % 4]}, cost: {i % 7}, '
                     f'colour: "{COLOURS[i % 6]}", text: "{text}"}}')
    (root / "cards" / "bench" / "deck.yaml").write_text("\n".join(lines) + "\n")


def _tree(pid: int) -> list[int]:
    """pid and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found


def _pss_mb(pids: list[int]) -> float:
    """Proportional set size summed over processes: shared pages counted once in all."""
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/smaps_rollup") as fh:
                total += sum(int(line.split()[1]) for line in fh if line.startswith("Pss:"))
        except OSError:
            continue
    return total / 1024


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(root: Path, tree: Path = ROOT) -> dict:
    """One cold build by the code in `tree` (this checkout, or another commit's worktree,
    history.py): wall s, CPU s (the build and its drawing workers), peak MB of the whole
    process tree (PSS), the largest single process's MB (max RSS of the build or a worker,
    this build's own: read from wait4, so builds may be measured in any order), PDF bytes,
    and the build's stage table."""
    out = root / "output"
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    log = tempfile.TemporaryFile("w+")   # not a pipe: a long stderr must not stall the build
    proc = subprocess.Popen([sys.executable, "-m", "generator", "--root", str(root), "build", "bench",
                             "--paper", "a4", "--timings"], cwd=tree, stdout=subprocess.DEVNULL,
                            stderr=log, text=True)
    peak_tree = 0.0
    sampling = os.path.exists(f"/proc/{os.getpid()}/smaps_rollup")
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)   # the build's rusage includes its workers'
        if pid:
            break
        if sampling:
            peak_tree = max(peak_tree, _pss_mb(_tree(proc.pid)))
        time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    log.seek(0)
    stages = log.read()
    log.close()
    if proc.returncode:
        raise SystemExit(f"the build failed (exit {proc.returncode}):\n{stages}")
    pdf = out / "bench" / "bench-sheets-a4.pdf"
    table = stages[stages.index("stage "):] if "stage " in stages else ""
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "tree": peak_tree, "largest": usage.ru_maxrss / 1024,
            "bytes": pdf.stat().st_size, "stages": table}


BASELINE = r"""
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from generator.draw import fonts, render
from generator.data import load
from generator.session import Session
root = Path(sys.argv[2])
fonts.activate(root / "output" / ".cache")   # the same shipped fonts pnp draws with
svgs = list(render.render_svgs(load.load_game(root, "bench", Session()), Session()).svgs.values())
sample = svgs[::-(-len(svgs) // 1000)]   # past 1,000 faces, an even sample: the cost per face is what counts
# CairoSVG alone cannot draw pnp's <pnp:text>: give it the same words in the same places as plain
# <text>, one element per line (what a script calling CairoSVG would write), untimed
import html, re
from generator.draw import pangobridge as pb
from generator.draw.fonts import shipped
from generator.draw.textfit import engine_for, spec_of
engine = engine_for(shipped())
ELEMENT = re.compile(r"<pnp:text\b([^>]*)>([^<]*)</pnp:text>")
ATTRIBUTE = re.compile(r"([a-z-]+)=(?:\"([^\"]*)\"|'([^']*)')")
def plain(m):
    a = {k: html.unescape(x or y) for k, x, y in ATTRIBUTE.findall(m.group(1))}
    spec = spec_of(a, html.unescape(m.group(2)))
    laid, scale = engine.laid(spec), spec.size / 10
    lines, out = pb.lines(laid.layout), []
    ends = [s for s, *_ in lines[1:]] + [len(laid.text)]
    for (start, x, _), end, base in zip(lines, ends, pb.baselines(laid.layout)):
        words = laid.text[start:end].decode().replace("\u00ad", "").strip()
        if words:
            weight = ' font-weight="bold"' if spec.bold else ""
            tx, ty = float(a["x"]) + x / pb.SCALE * scale, float(a["y"]) + base / pb.SCALE * scale
            out.append(f'<text x="{tx:.3f}" y="{ty:.3f}" font-family="{spec.family}" font-size="{spec.size:.3f}"'
                       f'{weight} fill="{a.get("fill", "#000")}">{html.escape(words)}</text>')
    return "".join(out)
sample = [ELEMENT.sub(plain, svg) for svg in sample]
import cairosvg
started = time.process_time()
for svg in sample:
    cairosvg.svg2pdf(bytestring=svg.encode())
print(json.dumps({"faces": len(svgs), "sampled": len(sample), "cpu": time.process_time() - started}))
"""


def cairosvg_alone(root: Path) -> dict:
    """CPU seconds CairoSVG alone needs per distinct face SVG of the deck (one svg2pdf call
    each, in one process, after pnp rendered the SVGs untimed; at most 1,000 of them)."""
    import json
    proc = subprocess.run([sys.executable, "-c", BASELINE, str(ROOT), str(root)], cwd=ROOT,
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"the CairoSVG baseline failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


WARM = r"""
import json, shutil, statistics, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from generator import pipeline
from generator.options import BuildOptions
from generator.session import Session
session = Session(remember=True)  # as `pnp watch` makes
root, game, deck, marker = Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), sys.argv[5]
t = time.perf_counter(); pipeline.build(root, [game], BuildOptions(papers=("a4",)), session=session); cold = time.perf_counter() - t
times, drawn = [], []
for n in range(5):
    session.settle()  # as `pnp watch` does once a rebuild is reported
    text = deck.read_text()
    assert marker in text, marker
    deck.write_text(text.replace(marker, marker + " " + "vwxyz"[n], 1))
    t = time.perf_counter()
    result = pipeline.build(root, [game], BuildOptions(papers=("a4",)), session=session)[0]
    times.append(time.perf_counter() - t)
    drawn.append(result.rendered.drawn)
print(json.dumps({"cold": cold, "warm": statistics.median(times), "worst": max(times), "drawn": max(drawn),
                  "bundles": len(result.rendered.faces_pdfs)}))
"""


def warm_edit(root: Path, game: str, deck: Path, marker: str) -> dict:
    """Build `game` once in a fresh process, then time three one-card edits rebuilt warm."""
    import json
    proc = subprocess.run([sys.executable, "-c", WARM, str(ROOT), str(root), game, str(deck), marker],
                          cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"the warm benchmark failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def edit_loop() -> None:
    print("edit loop: one card's text edited, A4 sheets rebuilt in-process, warm")
    print(f"{'game':>28} {'cold s':>8} {'warm s':>8} {'worst s':>8} {'bundles redrawn':>16}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_project(root, 540)
        r = warm_edit(root, "bench", root / "cards" / "bench" / "deck.yaml", 'name: "Ember Drake 1')
        _edit_row("540 distinct", r)
    print("target: one-card edit to updated sheets <= 0.3 s warm.\n")
    from edit_loop import edit_loop as every_game  # benchmarks/edit_loop.py: one card of each shipped game
    every_game()


def _edit_row(what: str, r: dict) -> None:
    print(f"{what:>28} {r['cold']:>8.2f} {r['warm']:>8.2f} {r['worst']:>8.2f} {r['drawn']:>9} of {r['bundles']:<4}")


def cairosvg_startup() -> float:
    """CPU seconds a fresh Python needs to start and import CairoSVG (best of 3): the fixed
    cost a script calling CairoSVG pays once, as pnp pays its own start-up once."""
    best = None
    for _ in range(3):
        before = _children_cpu()
        subprocess.run([sys.executable, "-c", "import cairosvg"], check=True)
        best = min(best or 1e9, _children_cpu() - before)
    return best


def _machine() -> str:
    model = ""
    try:
        with open("/proc/cpuinfo") as fh:
            model = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), "")
    except OSError:
        pass
    return f"{os.cpu_count()} cores{', ' + model if model else ''}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, nargs="+", default=[54, 540, 5400, 10000])
    parser.add_argument("--repeat", type=int, default=3, help="cold runs per size up to 1,000 cards (1 above)")
    parser.add_argument("--no-warm", action="store_true", help="skip the edit-loop figures")
    args = parser.parse_args()
    print(f"pnp benchmark: synthetic poker deck -> A4 sheets; {_machine()}; "
          f"median of {args.repeat} cold runs (1 above 1,000 cards)")
    startup = cairosvg_startup()
    print(f"{'cards':>6} {'wall s':>7} {'cpu s':>7} {'ms/card':>8} {'CairoSVG':>9} {'ratio':>6} {'+start':>7} "
          f"{'tree MB':>8} {'1 proc MB':>9} {'PDF KB':>7}")
    profile = ""
    for n in args.cards:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            write_project(root, n)
            runs = [run_once(root) for _ in range(args.repeat if n <= 1000 else 1)]
            alone = cairosvg_alone(root)
        wall = statistics.median(r["wall"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        peak = max(r["tree"] for r in runs)
        largest = max(r["largest"] for r in runs)
        per_card, base = 1000 * cpu / alone["faces"], 1000 * alone["cpu"] / alone["sampled"]
        with_start = cpu / (base / 1000 * alone["faces"] + startup)
        print(f"{n:>6} {wall:>7.2f} {cpu:>7.2f} {per_card:>8.2f} {base:>9.2f} {per_card / base:>6.2f} {with_start:>7.2f} "
              f"{peak:>8.0f} {largest:>9.0f} {runs[-1]['bytes'] / 1024:>7.0f}", flush=True)
        profile = f"{n} cards:\n{runs[-1]['stages']}"
    print("cpu s: the build and its drawing workers; ms/card: that CPU per distinct face; CairoSVG: CPU ms per "
          "face of CairoSVG alone (svg2pdf) on the same SVGs, same run; ratio: pnp / CairoSVG alone (target <= 1.5); +start: the same with each side's start-up "
          f"counted (CairoSVG: {startup:.2f} s to start Python and import it)")
    print("tree MB: the build and its drawing workers together (PSS sampled every 50 ms); 1 proc MB: the largest "
          "single process (max RSS); target < 150 MB for both at every size")
    print(f"\nwhere the time goes (pnp build --timings), {profile}")
    if not args.no_warm:
        print()
        edit_loop()


if __name__ == "__main__":
    main()
