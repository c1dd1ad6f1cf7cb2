"""Speed work must not change a byte: the benchmark deck's sheets at a fixed size are
pinned by a checked-in sha256, and in the same run a build drawn on one core equals one
drawn on a pool of workers. Beside the sha256 the pin keeps a digest of every page's
pixels (tests/pages.py): when the bytes change, the test says whether the pages still
render pixel for pixel as before, and `test_benchmark_pages_render_as_pinned` holds that
on its own.

The pinned hash holds for one set of the libraries that decide the bytes (cairo,
CairoSVG, Pango and its bindings, Pyphen, qpdf/pikepdf, reportlab,
and the shipped fonts through pnp's face salt);
`tests/fixtures/bench/sheets-54.json` maps that fingerprint to the hash and the page
digests (with the PDFium that rendered them). On a machine with other versions the pinned
comparisons are skipped (saying so) and the same-run comparisons still run. After a
change of the bytes that renders as before, refresh it with `python -m tests.test_bytes
--pin`; after a deliberate change of how the pages look, `--pin --pages-changed`.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest

from tests.pages import page_digests

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


def bench_sheets(root: Path) -> bytes:
    """The benchmark deck of CARDS cards built cold into A4 sheets under `root`."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_deck
    finally:
        sys.path.pop(0)
    from generator import pipeline
    from generator.options import BuildOptions
    from generator.session import Session

    if not (root / "cards").exists():
        bench_deck.write_project(root, CARDS)
    pipeline.build(root, ["bench"], BuildOptions(papers=("a4",), out_dir=root / "output"), session=Session())
    return (root / "output" / "bench" / "bench-sheets-a4.pdf").read_bytes()


def _pin() -> dict:
    pins = json.loads(PINS.read_text())
    here = fingerprint()
    if here not in pins:
        pytest.skip(f"no pinned hash for these libraries ({here}); pinned: {', '.join(pins)}")
    return pins[here]


@pytest.fixture(scope="module")
def bench_pdf(tmp_path_factory) -> bytes:
    """The benchmark sheets, built once for both pinned comparisons."""
    return bench_sheets(tmp_path_factory.mktemp("bench"))


@pytest.mark.slow   # builds the benchmark deck's sheets
def test_benchmark_sheets_match_the_pinned_hash(request):
    pin = _pin()
    pdf = request.getfixturevalue("bench_pdf")   # after _pin: no build where the pin is skipped
    if hashlib.sha256(pdf).hexdigest() == pin["sha256"]:
        return
    same_pages = pin.get("pdfium") == pdfium.PDFIUM_INFO.version and page_digests(pdf) == pin["pages"]
    pytest.fail("the benchmark deck's sheets changed: a speed change must not change the output; "
                + ("every page still renders pixel for pixel as pinned, so after a deliberate change of the "
                   "bytes: python -m tests.test_bytes --pin" if same_pages else
                   "and their pages render differently too (tests/pages.py tells which)"))


def test_benchmark_pages_render_as_pinned(request):
    pin = _pin()
    if pin.get("pdfium") != pdfium.PDFIUM_INFO.version:
        pytest.skip(f"pages pinned with PDFium {pin.get('pdfium')}, this is {pdfium.PDFIUM_INFO.version}")
    found = page_digests(request.getfixturevalue("bench_pdf"))
    changed = [n for n, (a, b) in enumerate(zip(found, pin["pages"]), start=1) if a != b]
    assert len(found) == len(pin["pages"]) and not changed, (
        f"pages {changed or 'count'} of the benchmark sheets render differently than pinned")


@pytest.mark.slow   # two fresh interpreters draw Olympians cold
def test_one_core_and_a_pool_of_workers_write_the_same_bytes(tmp_path, olympians_build):
    """Olympians drawn in one process and by two drawing workers, each in a fresh interpreter
    (cairo keeps what it resolved for the life of a process: a test process that drew before
    is no witness) with a hash seed of its own, write the bytes the run's shared build wrote
    (a test worker, another seed): nothing may depend on the seed. Each edition is drawn once
    here, the English and Japanese ones in one process and the Arabic one by two workers; the
    English sheets stored EB Garamond once: the fonts' warm-up asked cairo with other font
    options than the faces' text. The Arabic and Japanese fonts are loaded when a face first
    needs them, not by the warm-up."""
    script = ("import sys; from pathlib import Path; from generator.draw import fonts; "
              "from generator.pipeline import build; from generator.session import Session; "
              "from generator.options import BuildOptions; "
              "out = Path(sys.argv[1]); fonts.activate(out / '.cache'); "
              "build(Path(sys.argv[2]), ['olympians'], BuildOptions(papers=('a4',), out_dir=out, "
              "languages=tuple(sys.argv[4].split(','))), session=Session(jobs=int(sys.argv[3])))")
    env = {k: v for k, v in os.environ.items() if k not in ("PNP_FONTCONFIG_ACTIVE", "FONTCONFIG_FILE")}
    written = []
    for jobs, languages in ((1, "en,ja"), (2, "ar")):
        out = tmp_path / f"jobs-{jobs}"
        subprocess.run([sys.executable, "-c", script, str(out), str(ROOT), str(jobs), languages], check=True,
                       env={**env, "PYTHONHASHSEED": str(jobs)}, capture_output=True, cwd=ROOT)
        written.append({p.name: p.read_bytes() for p in (out / "olympians").iterdir() if p.suffix in (".pdf", ".svg")})
    files = [{f"olympians{ed}-{kind}-a4.{ext}" for ed in editions for kind, ext in
              (("sheets", "pdf"), ("rulebook", "pdf"), ("cut", "svg"))} for editions in (("", "-ja"), ("-ar",))]
    assert [set(w) for w in written] == files
    for name, data in {**written[0], **written[1]}.items():
        assert data == (olympians_build / name).read_bytes(), name
    with pikepdf.open(io.BytesIO(written[0]["olympians-sheets-a4.pdf"])) as pdf:
        names = [str(o.FontName).split("+")[-1] for o in pdf.objects
                 if isinstance(o, pikepdf.Dictionary) and o.get("/Type") == "/FontDescriptor"]
    assert names.count("EBGaramond12-Regular") == 1, names   # the card titles' font, stored once


if __name__ == "__main__" and sys.argv[1:2] == ["--pin"]:
    import tempfile

    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        pins = json.loads(PINS.read_text()) if PINS.exists() else {}
        pdf = bench_sheets(Path(tmp))
    old = pins.get(fingerprint())
    pages = page_digests(pdf)
    if isinstance(old, dict) and old.get("pages") not in (None, pages) and "--pages-changed" not in sys.argv:
        raise SystemExit("the pages render differently than pinned (tests/pages.py tells which); re-pin with "
                         "--pin --pages-changed only after looking at them")
    pins[fingerprint()] = {"sha256": hashlib.sha256(pdf).hexdigest(), "pdfium": pdfium.PDFIUM_INFO.version,
                           "pages": pages}
    PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n")
    print(f"pinned {pins[fingerprint()]['sha256']} and {len(pages)} pages for {fingerprint()}")
