"""Pictures in a built game: JPEGs passed through, pictures resampled to the print
resolution, each stored once in the sheets and the rulebook, warnings below print:
min_image_dpi (kept by the face cache, fatal with --strict), --draft, the same bytes on
every build, no stub left behind."""
from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pikepdf
import pytest

from generator.session import Session
from tests.conftest import REPO, run
from tests.picturekit import art_game, images, standard_art

CARDS = {"a": "photo.jpg", "b": "big.jpg", "c": "big.png", "d": "tiny.png", "e": "photo.jpg"}
RULEBOOK = "# Pictures\n\nEvery card:\n\n![All the cards](cards:a,b,c,d,e)\n\nTwo again:\n\n![Again](cards:a,e)\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The picture game built once (A4 sheets and rulebook): (root, output folder, CLI output)."""
    root = art_game(tmp_path_factory.mktemp("pics"), CARDS, standard_art(), rulebook=RULEBOOK)
    result = run(root, "build", "pics", "--paper", "a4")
    assert result.exit_code == 0, result.output
    return root, root / "output" / "pics", result.output


def _sheets(out: Path) -> bytes:
    return (out / "pics-sheets-a4.pdf").read_bytes()


@pytest.mark.slow
def test_a_jpeg_at_print_resolution_is_embedded_as_it_is(built):
    root, out, _ = built
    art = root / "templates" / "pics" / "art"
    found = {raw: d for d, raw, _ in images(_sheets(out))}
    for name in ("photo.jpg", "background.jpg"):   # 300 dpi, and 331 dpi (within the slack)
        d = found[(art / name).read_bytes()]   # the file's own bytes, not one byte changed
        assert d["/Filter"] == "/DCTDecode"


@pytest.mark.slow
def test_larger_pictures_are_resampled_to_the_print_resolution(built):
    _, out, _ = built
    sizes = {(d["/Width"], d["/Height"], d["/Filter"]) for d, _, _ in images(_sheets(out))}
    # big.jpg and big.png are 1200 x 900 px in a 2 x 1.5 in window (600 dpi): 600 x 450 at 300 dpi
    assert (600, 450, "/DCTDecode") in sizes and (600, 450, "/FlateDecode") in sizes
    assert not any(w == 1200 for w, _, _ in sizes)
    png = next(d for d, _, _ in images(_sheets(out)) if d["/Filter"] == "/FlateDecode" and d["/Width"] == 600)
    assert "/Predictor" in png["/DecodeParms"]   # the PNG's own rows, lossless


def test_a_picture_on_many_faces_is_one_image_object_in_the_sheets_and_the_rulebook(built):
    root, out, _ = built
    art = root / "templates" / "pics" / "art"
    for pdf in (_sheets(out), (out / "pics-rulebook-a4.pdf").read_bytes()):
        found = images(pdf)
        raws = [raw for _, raw, _ in found]
        # the background is on every front and back (in the rulebook, every figure), photo.jpg on two cards
        assert raws.count((art / "background.jpg").read_bytes()) == 1
        assert raws.count((art / "photo.jpg").read_bytes()) == 1
        assert len(found) == 5, "one image object per distinct picture"
        assert len(set(raws)) == len(raws)


@pytest.mark.slow
def test_a_picture_too_small_to_print_is_a_warning_naming_the_card_and_its_dpi(built):
    root, _, output = built
    line = next(line for line in output.splitlines() if "tiny.png" in line)
    assert line.startswith("warning: cards/pics/deck.yaml:")
    assert "card d: front: picture 'art/tiny.png' is 80 x 60 px" in line and ": 40 dpi, below the 200 dpi" in line
    assert sum("dpi" in line for line in output.splitlines()) == 1   # the others print well
    again = run(root, "build", "pics", "--paper", "a4")   # faces from the face cache: the warning stays
    assert again.exit_code == 0 and "card d: front: picture 'art/tiny.png'" in again.output
    checked = run(root, "validate", "pics")
    assert checked.exit_code == 0 and "tiny.png" in checked.output and "40 dpi" in checked.output


@pytest.mark.slow
def test_strict_makes_a_picture_too_small_fail(built, tmp_path):
    root, _, _ = built
    before = _sheets(root / "output" / "pics")
    failed = run(root, "build", "pics", "--paper", "a4", "--strict")
    assert failed.exit_code == 1 and "tiny.png" in failed.output and "--strict" in failed.output
    assert _sheets(root / "output" / "pics") == before   # nothing written
    assert run(root, "validate", "pics", "--strict").exit_code == 1
    lower = art_game(tmp_path, CARDS, standard_art(), game_extra="print:\n  min_image_dpi: 30\n")
    assert run(lower, "build", "pics", "--paper", "a4", "--strict").exit_code == 0   # 40 dpi is enough here


@pytest.mark.slow
def test_draft_pictures_are_small_and_the_sheets_say_so(built, tmp_path):
    root, _, _ = built
    shutil.copytree(root / "cards", tmp_path / "cards")
    shutil.copytree(root / "templates", tmp_path / "templates")
    result = run(tmp_path, "build", "pics", "--paper", "a4", "--draft")
    assert result.exit_code == 0, result.output
    out = tmp_path / "output" / "pics"
    sizes = {(d["/Width"], d["/Height"]) for d, _, _ in images(_sheets(out))}
    assert (200, 150) in sizes and (278, 371) in sizes   # 100 dpi: 2 x 1.5 in; the background sliced: 70.5 x 94 mm
    from pypdfium2 import PdfDocument
    label = PdfDocument(_sheets(out))[0].get_textpage().get_text_range()   # the sheet's label
    assert "DRAFT" in label and "not for print" in label
    manifest = json.loads((out / "manifest.json").read_text())
    assert all(f.get("draft") for f in manifest["files"] if f["kind"] in ("sheets", "rulebook"))
    print_run = json.loads((root / "output" / "pics" / "manifest.json").read_text())
    assert not any("draft" in f for f in print_run["files"])


@pytest.mark.slow
def test_every_build_writes_the_same_bytes(built, tmp_path):
    """Cold, warm (face cache) and with pictures from the picture store only, each in a fresh
    process with its own hash seed: the same sheets and rulebook. Each build runs in a process
    of its own, as `pnp build` does (cairo keeps fonts for the life of a process, so a test
    process that drew other things first is not a fair witness)."""
    root, _, _ = built
    names = ("pics-sheets-a4.pdf", "pics-rulebook-a4.pdf")

    def build(copy: Path, seed: int) -> dict:
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        done = subprocess.run([sys.executable, "-m", "generator", "--root", str(copy), "build", "pics", "--paper",
                               "a4"], cwd=REPO, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return {name: hashlib.sha256((copy / "output" / "pics" / name).read_bytes()).hexdigest() for name in names}

    copy = tmp_path / "cold"
    shutil.copytree(root / "cards", copy / "cards")
    shutil.copytree(root / "templates", copy / "templates")
    want = build(copy, 1)
    assert build(copy, 2) == want   # warm: every bundle from the face cache (another hash seed)
    shutil.rmtree(copy / "output" / ".cache" / "faces")   # every face drawn again, pictures from the store
    assert (copy / "output" / ".cache" / "pictures").is_dir()
    assert build(copy, 3) == want


def test_no_stand_in_picture_ever_leaves_a_bundle(built):
    _, out, _ = built
    for path in out.rglob("*.pdf"):
        assert b"pnp-picture" not in path.read_bytes(), path


def test_the_sheets_are_sound_pdf(built):
    _, out, _ = built
    for name in ("pics-sheets-a4.pdf", "pics-rulebook-a4.pdf"):
        with pikepdf.open(out / name) as pdf:
            assert pdf.check_pdf_syntax() == []


@pytest.mark.slow
def test_image_dpi_on_the_command_line_and_in_game_yaml(tmp_path):
    art = standard_art()
    root = art_game(tmp_path / "yaml", {"b": "big.jpg"}, art, game_extra="print:\n  image_dpi: 150\n")
    assert run(root, "build", "pics", "--paper", "a4").exit_code == 0
    sizes = {(d["/Width"], d["/Height"]) for d, _, _ in images(_sheets(root / "output" / "pics"))}
    assert (300, 225) in sizes   # 2 x 1.5 in at 150 dpi
    assert run(root, "build", "pics", "--paper", "a4", "--image-dpi", "200").exit_code == 0
    sizes = {(d["/Width"], d["/Height"]) for d, _, _ in images(_sheets(root / "output" / "pics"))}
    assert (400, 300) in sizes and (300, 225) not in sizes   # the command line wins
    bad = art_game(tmp_path / "bad", {"b": "big.jpg"}, art, game_extra="print:\n  image_dpi: 5\n")
    refused = run(bad, "build", "pics")
    assert refused.exit_code == 2 and "image_dpi" in refused.output


def test_a_data_uri_picture_is_prepared_too(tmp_path):
    import base64

    from tests.picturekit import jpeg, smooth
    data = jpeg(smooth(9, (1200, 900)))
    front = ('<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" '
             'viewBox="0 0 {{ deck.width }} {{ deck.height }}"><image href="data:image/jpeg;base64,'
             + base64.b64encode(data).decode() + '" x="6" y="19" width="50.8" height="38.1"/></svg>')
    root = art_game(tmp_path, {"a": "none"}, {"background.jpg": jpeg(smooth(5, (900, 1200)))}, front=front)
    assert run(root, "build", "pics", "--paper", "a4").exit_code == 0
    sizes = {(d["/Width"], d["/Height"]) for d, _, _ in images(_sheets(root / "output" / "pics"))}
    assert (600, 450) in sizes


def test_sheets_can_be_spooled_to_a_file_with_the_same_bytes(built, tmp_path):
    from generator.data.load import load_game
    from generator.draw.render import render_game
    from generator.layout.pdfstream import Spooled
    from generator.layout.sheets import layout_sheets

    root, _, _ = built
    rendered = render_game(load_game(root, "pics", Session()), Session())
    held = layout_sheets(rendered, "a4", Session()).pdf
    spooled = layout_sheets(rendered, "a4", Session(), spool=tmp_path).pdf
    assert isinstance(held, bytes) and isinstance(spooled, Spooled)
    assert len(spooled) == len(held) and bytes(spooled) == held and b"".join(spooled) == held
    assert not list(tmp_path.iterdir())   # an unnamed temporary file: nothing to clean up
    assert io.BytesIO(held).getvalue()[:5] == b"%PDF-"


def test_a_card_edited_while_watching_is_redrawn_without_decoding_a_picture(built, tmp_path, monkeypatch):
    """`pnp watch`: the session keeps the prepared pictures, so the bundle of an edited card
    is drawn again without reading its pictures from the store or decoding them; --draft
    reaches the watch's builds (and so the live preview)."""
    from generator import pipeline
    from generator.draw import picturedraw
    from generator.loop.watch import build_one
    from generator.options import BuildOptions
    from generator.session import Session

    root, _, _ = built
    shutil.copytree(root / "cards", tmp_path / "cards")
    shutil.copytree(root / "templates", tmp_path / "templates")
    session = Session(remember=True)
    pipeline.build(tmp_path, ["pics"], BuildOptions(papers=("a4",)), session=session)
    shutil.rmtree(tmp_path / "output" / ".cache" / "pictures")   # only the session has them now
    prepared = []
    real = picturedraw.prepare
    monkeypatch.setattr(picturedraw, "prepare", lambda *a: prepared.append(a) or real(*a))
    deck = tmp_path / "cards" / "pics" / "deck.yaml"
    deck.write_text(deck.read_text().replace("name: Card b,", "name: Card bee,"))
    result = pipeline.build(tmp_path, ["pics"], BuildOptions(papers=("a4",)), session=session)[0]
    assert result.rendered.drawn >= 1 and prepared == []
    assert any("tiny.png" in str(w) for w in result.warnings)
    outcome = build_one(tmp_path, "pics", BuildOptions(papers=("a4",), draft=True), session)
    assert outcome.ok and outcome.result.rendered.draft
