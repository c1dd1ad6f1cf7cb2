"""The low-ink proof's ink against the full build's, game by game (Ghostscript's inkcov).

    .venv/bin/python -m benchmarks.proof_ink [GAME ...] [--output DIR] [--paper a4]

Builds each game (every shipped game by default; its first edition, one paper) twice into
DIR (default: a temporary folder): as usual, and with `--proof`. Then, for each game:

- ink: the C+M+Y+K coverage Ghostscript's `inkcov` device reports for every page of the
  sheets and of the proof sheets, added up (a page's coverage is the share of its area
  each ink covers), and the proof's share of the full build's;
- words: every word of the sheets' extracted text (pypdfium2) is in the proof's;
- trims: every page's MediaBox, TrimBox and BleedBox are the same, and the cut file is
  the same file byte for byte.

The numbers measured are in docs/proof.md (the target: at most 15 % of the ink, across the
five games).
"""
from __future__ import annotations

import argparse
import io
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium

REPO = Path(__file__).resolve().parents[1]


def inkcov(pdf: Path) -> float:
    """The pages' C+M+Y+K coverage, added up (Ghostscript's inkcov device)."""
    done = subprocess.run(["gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=inkcov", "-r72",
                           "-sOutputFile=-", str(pdf)], capture_output=True, text=True, check=True)
    total = 0.0
    for line in done.stdout.splitlines():
        numbers = line.split()[:4]
        if len(numbers) == 4:
            total += sum(float(n) for n in numbers)
    return total


def words(pdf: Path) -> set[str]:
    return {w for page in pdfium.PdfDocument(pdf) for w in re.findall(r"\w+", page.get_textpage().get_text_range())}


def boxes(pdf: Path) -> list:
    with pikepdf.open(io.BytesIO(pdf.read_bytes())) as doc:
        return [[[float(v) for v in p.obj.get(k, [])] for k in ("/MediaBox", "/TrimBox", "/BleedBox")]
                for p in doc.pages]


def first_language(game: str) -> list[str]:
    import yaml

    meta = yaml.safe_load((REPO / "cards" / game / "game.yaml").read_text(encoding="utf-8"))
    return ["--lang", meta["languages"][0]] if meta.get("languages") else []


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*")
    parser.add_argument("--output", type=Path)
    parser.add_argument("--paper", default="a4")
    args = parser.parse_args(argv)
    from generator.data.load import list_games

    games = args.games or list_games(REPO)
    out = args.output or Path(tempfile.mkdtemp(prefix="proof-ink-"))
    pnp = [str(Path(sys.executable).with_name("pnp")), "--root", str(REPO)]
    full_total = proof_total = 0.0
    ok = True
    print(f"{'game':20} {'full ink':>9} {'proof ink':>9} {'share':>7}  words  trims")
    for game in games:
        folder, cuts = out / game, []
        for extra in ([], ["--proof"]):
            subprocess.run([*pnp, "build", game, "--paper", args.paper, "--output", str(out),
                            *first_language(game), *extra], check=True, capture_output=True)
            cuts.append((folder / f"{game}-cut-{args.paper}.svg").read_bytes())
        full, proof = folder / f"{game}-sheets-{args.paper}.pdf", folder / f"{game}-proof-sheets-{args.paper}.pdf"
        ink_full, ink_proof = inkcov(full), inkcov(proof)
        same_words = words(full) <= words(proof)
        same_trims = boxes(full) == boxes(proof) and cuts[0] == cuts[1]
        ok = ok and same_words and same_trims
        full_total, proof_total = full_total + ink_full, proof_total + ink_proof
        print(f"{game:20} {ink_full:9.2f} {ink_proof:9.2f} {ink_proof / ink_full:7.1%}  "
              f"{'all' if same_words else 'MISSING':5}  {'same' if same_trims else 'DIFFER'}")
    print(f"{'all games':20} {full_total:9.2f} {proof_total:9.2f} {proof_total / full_total:7.1%}")
    if not args.output:
        shutil.rmtree(out, ignore_errors=True)
    return 0 if ok and proof_total <= 0.15 * full_total else 1


if __name__ == "__main__":
    sys.exit(main())
