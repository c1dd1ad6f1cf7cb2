"""Speed work must not change a byte: the benchmark deck's sheets at a fixed size are
pinned by a checked-in sha256, and in the same run a build drawn on one core equals one
drawn on a pool of workers.

The pinned hash holds for one set of the libraries that decide the bytes (cairo,
CairoSVG, Pango and its bindings, Pyphen, qpdf/pikepdf, reportlab, and the shipped fonts
through pnp's face salt);
`tests/fixtures/bench/sheets-54.json` maps that fingerprint to the hash. On a machine with
other versions the pinned comparison is skipped (saying so) and the same-run comparisons
still run. After a deliberate change of the output, refresh it with
`python -m tests.test_bytes --pin`.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PINS = ROOT / "tests" / "fixtures" / "bench" / "sheets-54.json"
CARDS = 54


def fingerprint() -> str:
    import cairocffi
    import cairosvg
    import pikepdf
    import reportlab

    from generator.draw.drawkey import _fonts_digest, version
    from generator.draw.pangobridge import versions

    pango = "; ".join(f"{k} {v}" for k, v in sorted(versions().items()))
    return (f"cairo {cairocffi.cairo_version_string()}; cairosvg {cairosvg.__version__}; {pango}; "
            f"pyphen {version('pyphen')}; qpdf {pikepdf.__libqpdf_version__}; pikepdf {pikepdf.__version__}; "
            f"reportlab {reportlab.Version}; fonts {_fonts_digest()[:12]}")


def bench_sheets(root: Path, workers: int | None = None) -> bytes:
    """The benchmark deck of CARDS cards built cold into A4 sheets under `root`."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_deck
    finally:
        sys.path.pop(0)
    from generator import pipeline

    if not (root / "cards").exists():
        bench_deck.write_project(root, CARDS)
    real = os.cpu_count
    if workers is not None:
        os.cpu_count = lambda: workers
    try:
        pipeline.build(root, ["bench"], ("a4",), out_dir=root / f"output-{workers}")
    finally:
        os.cpu_count = real
    return (root / f"output-{workers}" / "bench" / "bench-sheets-a4.pdf").read_bytes()


def test_benchmark_sheets_match_the_pinned_hash(tmp_path):
    pins = json.loads(PINS.read_text())
    here = fingerprint()
    if here not in pins:
        pytest.skip(f"no pinned hash for these libraries ({here}); pinned: {', '.join(pins)}")
    digest = hashlib.sha256(bench_sheets(tmp_path)).hexdigest()
    assert digest == pins[here], ("the benchmark deck's sheets changed: a speed change must not change the "
                                  "output (after a deliberate change: python -m tests.test_bytes --pin)")


def test_one_core_and_a_pool_of_workers_write_the_same_bytes(tmp_path):
    assert bench_sheets(tmp_path, workers=1) == bench_sheets(tmp_path, workers=2)


if __name__ == "__main__" and sys.argv[1:] == ["--pin"]:
    import tempfile

    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        pins = json.loads(PINS.read_text()) if PINS.exists() else {}
        pins[fingerprint()] = hashlib.sha256(bench_sheets(Path(tmp))).hexdigest()
    PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n")
    print(f"pinned {pins[fingerprint()]} for {fingerprint()}")
