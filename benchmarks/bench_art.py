"""Benchmark: a deck with real art, built into A4 sheets, against the same deck without pictures.

The deck is what a designer's deck with art looks like: poker cards (63 x 88 mm, 3 mm bleed),
each front showing its own 1200 x 900 px picture (half JPEG photos, half PNG paintings,
made by artwork.py) in a 57 x 40 mm window, all of them over one shared full-bleed
background picture; the back shows the background too. Card 8 uses an 80 x 60 px picture:
the build must warn about it. The same deck without pictures has flat rectangles instead.

Printed, each build cold in a fresh process (no face cache) unless said:
- the sheets PDF against the bytes of the art it uses (target: no bigger), and its image
  objects (one per picture);
- drawing CPU (the "drawing (CairoSVG)" stage of `--timings`, workers included) per card,
  with pictures prepared for the first time (cold) and from the picture store (any later
  build with the same art: a template edit, a cleared face cache), against the deck without
  pictures (target: at most 4x);
- peak memory: the largest single process (max RSS, the drawing workers included one by
  one) and the whole process tree (PSS sampled every 50 ms), here and for --large cards
  with as many distinct pictures (target: at most 200 MB for the largest process);
- `--draft`: the same deck with pictures at 100 dpi; and the deck with its art already at
  300 dpi for the window (674 x 505 px: passed through, nothing resampled);
- the floor of a first build: the CPU of only decoding the deck's pictures once each (and of
  decoding and resampling them with Lanczos, Pillow's), which
  no build that resamples them can avoid, against the deck without pictures;
- the edit loop: in one process (as `pnp watch` runs), the deck built once, then one card's
  text edited and the game rebuilt to updated A4 sheets, median of 5 edits (target: within
  0.3 s), and how many pictures were prepared (decoded) during the edits (target: none);
- the DriveThruCards PDF/X-1a export of the deck.

    python benchmarks/bench_art.py [--cards 120] [--large 1000] [--no-edit] [--no-export]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from artwork import write_art
from bench_deck import ROOT, _machine, _pss_mb, _tree

FRONT = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <defs><clipPath id="window"><rect x="6" y="19" width="57" height="40" rx="2"/></clipPath></defs>
  BACKGROUND
  <rect x="4" y="4" width="61" height="86" rx="3" fill="#fffbe8" stroke="#333" stroke-width="0.5"/>
  <rect x="6" y="6" width="57" height="11" rx="1.5" fill="{{ card.colour }}"/>
  {{ textbox(card.name, 8, 7.4, 45, 8, family="Lato", bold=True, size=5, min_size=3, max_lines=1, color="#fff") }}
  PICTURE
  <rect x="6" y="19" width="57" height="40" rx="2" fill="none" stroke="#333" stroke-width="0.4"/>
  {{ textbox(card.text, 8, 62, 53, 24, family="Lato", size=3.4, min_size=2.2, leading=1.25) }}
</svg>
"""
BACK = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  BACKGROUND
  <rect x="10" y="36" width="49" height="22" rx="4" fill="#223344"/>
  <text x="34.5" y="50" text-anchor="middle" font-family="Lato" font-weight="bold" font-size="7" fill="#ccaa66">ART DECK</text>
</svg>
"""
WITH = {
    "BACKGROUND": '<image href="art/background.jpg" width="{{ deck.width }}" height="{{ deck.height }}" '
                  'preserveAspectRatio="xMidYMid slice"/>',
    "PICTURE": '<image href="art/{{ card.art }}" x="6" y="19" width="57" height="40" '
               'preserveAspectRatio="xMidYMid slice" clip-path="url(#window)"/>',
}
WITHOUT = {
    "BACKGROUND": '<rect width="{{ deck.width }}" height="{{ deck.height }}" fill="#6b5a8e"/>',
    "PICTURE": '<rect x="6" y="19" width="57" height="40" rx="2" fill="{{ card.colour }}" fill-opacity="0.6"/>',
}
SENTENCES = ["Deal {a} damage to a creature of your choice.", "Draw {b} cards, then discard one card.",
             "Each opponent loses {a} life unless they pay one gem.",
             "Return a spell from your discard pile to your hand.",
             "Creatures you control get +{a} power until the end of the turn."]
COLOURS = ["#8b2f2f", "#2f5f8b", "#3f7f3f", "#6f3f8b", "#8b6f2f", "#2f2f2f"]
TINY = 7   # the card whose picture is far too small
ENGINES = ("pillow", "vips") if importlib.util.find_spec("pyvips") else ("pillow",)   # in one run, interleaved


def write_project(root: Path, n: int, art: Path | None) -> int:
    """The game `art` under `root` (with pictures from `art`, or flat colours when None);
    returns the bytes of the art its cards use."""
    (root / "cards" / "art").mkdir(parents=True)
    folder = root / "templates" / "art"
    (folder / "art").mkdir(parents=True)
    front, back = FRONT, BACK
    for k, v in (WITH if art else WITHOUT).items():
        front, back = front.replace(k, v), back.replace(k, v)
    (folder / "front.svg.j2").write_text(front)
    (folder / "back.svg.j2").write_text(back)
    pictures = sorted(p.name for p in art.glob("pic-*")) if art else []
    used = {"background.jpg"} if art else set()
    lines = ["deck: art", "name: Art deck", "front: front.svg.j2", "back: back.svg.j2", "fields:",
             "  colour: {type: string}", "  text: {type: string}", "  art: {type: string}", "cards:"]
    for i in range(n):
        picture = "tiny.png" if i == TINY else pictures[i % len(pictures)] if art else "none"
        used.add(picture)
        text = " ".join(SENTENCES[(i + j) % len(SENTENCES)].format(a=i % 5 + 1, b=i % 3 + 1) for j in range(2))
        lines.append(f'  - {{id: c{i}, name: "Card {i + 1}", colour: "{COLOURS[i % 6]}", text: "{text}", art: {picture}}}')
    (root / "cards" / "art" / "deck.yaml").write_text("\n".join(lines) + "\n")
    (root / "cards" / "art" / "game.yaml").write_text("title: Art deck\ndecks: [deck.yaml]\n")
    total = 0
    for name in sorted(used) if art else ():
        os.link(art / name, folder / "art" / name)
        total += (art / name).stat().st_size
    return total


RUN = r"""
import atexit, json, resource, sys
def report():
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stderr.write("\nBENCH " + json.dumps({"largest": max(me.ru_maxrss, kids.ru_maxrss) / 1024,
                                              "cpu": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime}) + "\n")
atexit.register(report)
sys.path.insert(0, sys.argv[1])
from generator.cli import main
sys.argv = ["pnp", *sys.argv[2:]]
main()
"""


def build(root: Path, *extra: str, cold: bool = True, engine: str = "") -> dict:
    """One build of the game in a fresh process: CPU, drawing CPU, peak memory, the sheets;
    pictures prepared by `engine` (PNP_PICTURES: pillow, vips; "": as pnp chooses)."""
    if cold:
        shutil.rmtree(root / "output", ignore_errors=True)
    for kept in ("faces", "memo"):   # always drawn: no face cache, no sheets the last build laid out
        shutil.rmtree(root / "output" / ".cache" / kept, ignore_errors=True)
    log = tempfile.TemporaryFile("w+")
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", RUN, str(ROOT), "--root", str(root), "build", "art", "--paper",
                             "a4", "--timings", *extra], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log, text=True,
                            env={**os.environ, "PNP_PICTURES": engine})
    tree = largest = 0.0
    while proc.poll() is None:
        pids = _tree(proc.pid)
        tree = max(tree, _pss_mb(pids))
        largest = max([largest, *map(_peak_mb, pids)])
        time.sleep(0.05)
    wall = time.perf_counter() - started
    log.seek(0)
    text = log.read()
    if proc.returncode:
        raise SystemExit(f"the build failed (exit {proc.returncode}):\n{text[-3000:]}")
    figures = json.loads(text[text.rindex("BENCH ") + 6:].splitlines()[0])
    figures["largest"] = max(figures["largest"], largest)
    drawing = re.search(r"drawing \(CairoSVG\)\s+([\d.]+)", text)
    engine = re.search(r"^pictures prepared by .*$", text, re.M)
    pdf = root / "output" / "art" / "art-sheets-a4.pdf"
    return {**figures, "wall": wall, "tree": tree, "drawing": float(drawing.group(1)), "pdf": pdf.stat().st_size,
            "engine": engine.group(0) if engine else "",
            "images": images_in(pdf), "warnings": [line for line in text.splitlines() if line.startswith("warning:")]}


def _peak_mb(pid: int) -> float:
    """The peak resident memory of one process so far (VmHWM), MB; 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            return next((int(line.split()[1]) / 1024 for line in fh if line.startswith("VmHWM:")), 0.0)
    except OSError:
        return 0.0


def images_in(pdf: Path) -> int:
    import pikepdf

    with pikepdf.open(pdf) as doc:
        return sum(1 for o in doc.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image")


EDIT = r"""
import json, statistics, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from generator import pipeline
from generator.options import BuildOptions
from generator.draw import picturedraw
from generator.session import Session
prepared = []
real = picturedraw.prepare
picturedraw.prepare = lambda *a: prepared.append(1) or real(*a)
session = Session(remember=True)  # as `pnp watch` makes
root = Path(sys.argv[2]); deck = root / "cards" / "art" / "deck.yaml"
pipeline.build(root, ["art"], BuildOptions(papers=("a4",), validate=False), session=session)
before = len(prepared)
times, drawn, cpu = [], [], []
for n in range(5):
    session.settle()
    deck.write_text(deck.read_text().replace('name: "Card 3', 'name: "Card 3' + "vwxyz"[n], 1))
    t, c = time.perf_counter(), time.process_time()
    result = pipeline.build(root, ["art"], BuildOptions(papers=("a4",), validate=False), session=session)[0]
    times.append(time.perf_counter() - t)
    cpu.append(time.process_time() - c)
    drawn.append(result.rendered.drawn)
print(json.dumps({"warm": statistics.median(times), "cpu": statistics.median(cpu), "worst": max(times),
                  "drawn": max(drawn), "bundles": len(result.rendered.faces_pdfs),
                  "prepared": len(prepared) - before}))
"""


def edit_loop(root: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", EDIT, str(ROOT), str(root)], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"the edit loop failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def export_dtc(root: Path) -> tuple[int, int, float]:
    """(PDF bytes, image objects, CPU s) of the DriveThruCards export."""
    started = time.process_time()
    before = os.times()
    proc = subprocess.run([sys.executable, "-m", "generator", "--root", str(root), "export", "--profile", "dtc", "art"],
                          cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"the export failed:\n{proc.stderr[-3000:]}")
    after = os.times()
    pdf = root / "output" / "art" / "exports" / "dtc" / "art.pdf"
    cpu = after.children_user + after.children_system - before.children_user - before.children_system
    return pdf.stat().st_size, images_in(pdf), cpu + time.process_time() - started


def decoding(root: Path) -> tuple[float, float]:
    """CPU seconds of only decoding every picture the deck uses, once each (Pillow, this
    process): what no build that resamples the art can do without, the first time it sees it;
    and of decoding and resampling them (Lanczos) to their window at 300 dpi (674 x 506 px;
    the background to its card's bleed), without encoding them."""
    from PIL import Image

    decoded = resampled = 0.0
    for path in sorted((root / "templates" / "art" / "art").iterdir()):
        started = time.process_time()
        with Image.open(path) as im:
            im.load()
            decoded += time.process_time() - started
            want = (815, 1111) if path.name == "background.jpg" else (674, 506)
            if im.width > want[0]:
                im.resize(want, Image.Resampling.LANCZOS)
        resampled += time.process_time() - started
    return decoded, resampled


def _row(what: str, r: dict, cards: int, art: int | None = None) -> None:
    ratio = f"{r['pdf'] / art:>6.2f}" if art else f"{'':>6}"
    print(f"{what:>34} {r['drawing']:>8.2f} {1000 * r['drawing'] / cards:>8.1f} {r['cpu']:>7.2f} {r['wall']:>7.2f} "
          f"{r['largest']:>7.0f} {r['tree']:>7.0f} {r['pdf'] / 1e6:>8.2f} {ratio} {r['images']:>6}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=120)
    parser.add_argument("--large", type=int, default=1000, help="cards of the memory run (0: none)")
    parser.add_argument("--no-edit", action="store_true", help="skip the edit loop")
    parser.add_argument("--no-export", action="store_true", help="skip the DriveThruCards export")
    args = parser.parse_args()
    print(f"pnp benchmark with art: {args.cards} poker cards, a 1200 x 900 px picture each (half JPEG, half PNG) "
          f"in a 57 x 40 mm window over a shared background -> A4 sheets; {_machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        made = write_art(tmp / "pictures", max(args.cards, args.large))
        print(f"art: {len(made)} pictures made, {sum(made.values()) / 1e6:.0f} MB")
        plain, pictured = tmp / "plain", tmp / "pictured"
        write_project(plain, args.cards, None)
        art = write_project(pictured, args.cards, tmp / "pictures")
        print(f"{'build':>34} {'draw s':>8} {'ms/card':>8} {'cpu s':>7} {'wall s':>7} {'1 proc':>7} {'tree':>7} "
              f"{'PDF MB':>8} {'/ art':>6} {'images':>6}")
        base = build(plain)
        _row("no pictures", base, args.cards)
        engines = {}
        for engine in ENGINES:   # each engine's first build, then a later one from its own store
            engines[engine] = build(pictured, engine=engine), build(pictured, cold=False, engine=engine)
            _row(f"pictures, cold ({engine})", engines[engine][0], args.cards, art)
            _row(f"pictures, prepared ({engine})", engines[engine][1], args.cards, art)
        again = build(plain)
        _row("no pictures (again)", again, args.cards)
        base = {k: (v + again[k]) / 2 if k in ("drawing", "cpu") else v for k, v in base.items()}
        for engine, (cold, warm) in engines.items():
            print(f"{engine}: first build {cold['drawing'] / base['drawing']:.1f}x the drawing CPU of the deck "
                  f"without pictures (target <= 8), later builds {warm['drawing'] / base['drawing']:.1f}x (target "
                  f"<= 2.5); whole build {cold['cpu'] / base['cpu']:.1f}x and {warm['cpu'] / base['cpu']:.1f}x")
        cold, warm = build(pictured), build(pictured, cold=False)   # as pnp chooses, for what follows
        print(cold["engine"])
        draft = build(pictured, "--draft", cold=False)
        _row("--draft, cold", draft, args.cards, art)
        exact = tmp / "exact"   # the same deck with art exported at 300 dpi for its window: nothing to resample
        write_art(tmp / "pictures300", args.cards, (674, 505))
        exact_art = write_project(exact, args.cards, tmp / "pictures300")
        at300 = build(exact)
        _row("art at 300 dpi (674 x 505), cold", at300, args.cards, exact_art)
        shutil.rmtree(exact)
        print(f"art used: {art / 1e6:.1f} MB; the sheets are {cold['pdf'] / art:.2f} of it (target <= 1); art "
              f"at 300 dpi: {at300['pdf'] / exact_art:.2f} of its {exact_art / 1e6:.1f} MB")
        print(f"drawing CPU with a picture per card / without: {cold['drawing'] / base['drawing']:.1f}x the first "
              f"time the art is seen, {warm['drawing'] / base['drawing']:.1f}x once it is prepared, "
              f"{at300['drawing'] / base['drawing']:.1f}x for art at 300 dpi the first time (target <= 4); "
              f"whole build {cold['cpu'] / base['cpu']:.1f}x and {warm['cpu'] / base['cpu']:.1f}x")
        floor, lanczos = decoding(pictured)
        print(f"decoding the art alone, once: {floor:.2f} s CPU = {floor / base['drawing']:.1f}x the drawing without "
              f"pictures; so the first build of art to resample is at least {(warm['drawing'] + floor) / base['drawing']:.1f}x "
              f"(drawing with prepared pictures + decoding), whatever resamples and encodes it; decoding and Lanczos "
              f"(Pillow) {lanczos:.2f} s: at least {(warm['drawing'] + lanczos) / base['drawing']:.1f}x before any encoding")
        tiny = [w for w in cold["warnings"] if f"card c{TINY}:" in w]
        print(f"warnings: {len(cold['warnings'])} ({tiny[0][:150] if tiny else 'NONE for the tiny picture'})")
        if not args.no_edit:
            r = edit_loop(pictured)
            print(f"edit loop (one card's text, in one process as pnp watch): median {r['warm']:.3f} s wall, "
                  f"{r['cpu']:.3f} s CPU, worst {r['worst']:.3f} s, {r['drawn']} of {r['bundles']} bundles redrawn, "
                  f"{r['prepared']} pictures prepared (decoded) during the edits (target <= 0.3 s, none)")
        if not args.no_export:
            size, images, cpu = export_dtc(pictured)
            print(f"DriveThruCards PDF/X-1a: {size / 1e6:.1f} MB, {images} images, {cpu:.1f} s CPU")
        if args.large:
            for folder in (plain, pictured):
                shutil.rmtree(folder)
            write_project(plain, args.large, None)
            art = write_project(pictured, args.large, tmp / "pictures")
            big_base = build(plain)
            _row(f"{args.large} cards, no pictures", big_base, args.large)
            big = build(pictured)
            _row(f"{args.large} cards, pictures, cold", big, args.large, art)
            print(f"{args.large} cards: largest process {big['largest']:.0f} MB (target <= 200), whole tree "
                  f"{big['tree']:.0f} MB; sheets {big['pdf'] / art:.2f} of the art ({art / 1e6:.0f} MB); drawing "
                  f"{big['drawing'] / big_base['drawing']:.1f}x the deck without pictures")
    print("draw s: CPU of drawing the faces (workers included); cpu s: the whole build; 1 proc: the largest "
          "process's peak RSS MB (VmHWM sampled, and max RSS at exit); tree: the build and its workers together (PSS MB); / art: the sheets PDF "
          "against the bytes of the pictures it uses")


if __name__ == "__main__":
    main()
