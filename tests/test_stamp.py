"""Version stamps: {version} and {date} from git (read only), never from the clock; the stamp
as real text on every front and back, inside each face's own box, and in every page's
footer; the same inputs give the same bytes; a stamp that cannot fit names the deck."""
from __future__ import annotations

import json
import os
import subprocess

import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageChops

from generator.draw.stamp import Stamp, _chord, _outline, expand, layout
from generator.errors import InputError
from tests.conftest import kit_of, run
from tests.test_exports import make_game

MM = 72 / 25.4


def git(root, *args, date="2026-03-14T12:00:00"):
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


@pytest.fixture
def game(tmp_path):
    return make_game(tmp_path / "proj", [(f"c{i}", 1) for i in range(11)])


@pytest.fixture
def versioned(game, monkeypatch):
    """The game in a git repository with one commit, tagged v0.3."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    git(game, "init", "-q")
    (game / ".gitignore").write_text("output/\n")
    git(game, "add", ".")
    git(game, "commit", "-qm", "first")
    git(game, "tag", "v0.3")
    return game


def test_version_and_date_come_from_git_and_never_from_the_clock(versioned, monkeypatch):
    assert expand("{version} {date}", versioned, "ex") == "v0.3 2026-03-14"
    index = (versioned / ".git" / "index").stat().st_mtime_ns
    # an edit to the game's cards makes the version dirty; the date stays the commit's
    (versioned / "cards" / "ex" / "deck.yaml").write_text((versioned / "cards" / "ex" / "deck.yaml").read_text()
                                                          + "# edited\n")
    assert expand("{version} {date}", versioned, "ex") == "v0.3-dirty 2026-03-14"
    assert (versioned / ".git" / "index").stat().st_mtime_ns == index, "git was only read"
    git(versioned, "commit", "-qam", "second", date="2026-04-01T09:00:00")
    described = expand("{version}", versioned, "ex")
    assert described.startswith("v0.3-1-g") and not described.endswith("-dirty")
    assert expand("{date}", versioned, "ex") == "2026-04-01"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")   # given explicitly
    assert expand("{date}", versioned, "ex") == "2023-11-14"


def test_outside_git_it_says_unversioned_and_undated(game, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(game.parent))
    assert expand("proto {version} / {date}", game, "ex") == "proto unversioned / undated"


@pytest.mark.parametrize("bad", ["{version.__class__}", "{user}", "{", "x" * 81, "a\nb"])
def test_a_stamp_takes_version_and_date_only(game, bad):
    with pytest.raises(InputError):
        expand(bad, game, "ex")


def faces_text(pdf_path, entry):
    """The text inside each placed face's own trim box, per placement."""
    doc = pdfium.PdfDocument(str(pdf_path))
    try:
        out = []
        for p in entry["placements"]:
            page = doc[p["page"] - 1]
            text = page.get_textpage().get_text_bounded(p["x_mm"] * MM, p["y_mm"] * MM, (p["x_mm"] + p["w_mm"]) * MM,
                                                        (p["y_mm"] + p["h_mm"]) * MM)
            out.append((p, text))
        footers = [doc[n].get_textpage().get_text_range() for n in range(len(doc))]
        return out, footers
    finally:
        doc.close()


def build(root, *args):
    result = run(root, "build", "ex", "--paper", "a4", *args)
    assert result.exit_code == 0, result.output
    folder = root / "output" / "ex"
    entry = next(f for f in json.loads((folder / "manifest.json").read_text())["files"] if f["kind"] == "sheets")
    return folder / entry["path"], entry


@pytest.mark.slow
def test_the_stamp_is_text_on_every_face_and_in_every_footer(game):
    pdf, entry = build(game, "--stamp", "proto 7")
    assert entry["stamp"] == "proto 7"
    placed, footers = faces_text(pdf, entry)
    assert len(placed) == 22
    for p, text in placed:   # inside its own card's trim, fronts and backs
        assert "proto 7" in text, (p, text)
    assert all(f.count("proto 7") >= 1 for f in footers)


@pytest.mark.slow
def test_same_stamp_same_bytes_and_a_new_stamp_changes_them(game):
    first, _ = build(game, "--stamp", "v1")
    one = first.read_bytes()
    again, _ = build(game, "--stamp", "v1")
    assert again.read_bytes() == one
    other, _ = build(game, "--stamp", "v2")
    assert other.read_bytes() != one
    plain, entry = build(game)
    assert "stamp" not in entry
    placed, footers = faces_text(plain, entry)
    assert not any("v1" in text for _, text in placed) and not any("v1" in f for f in footers)


@pytest.mark.slow
def test_stamp_from_game_yaml_reaches_the_kit_and_the_exports(game):
    (game / "cards" / "ex" / "game.yaml").write_text("title: Ex\ndecks: [deck.yaml]\nprint: {stamp: 'ed. 2'}\n")
    files = kit_of(game, "ex", "a4")
    assert "Version: ed. 2" in files["READ-ME.txt"].decode()
    sheets = files["ex-sheets-a4.pdf"]
    doc = pdfium.PdfDocument(sheets)
    assert "ed. 2" in doc[0].get_textpage().get_text_range()
    doc.close()
    # a face image with the stamp differs from one without only along its bottom edge
    assert run(game, "export", "png", "ex").exit_code == 0
    stamped = Image.open(game / "output" / "ex" / "exports" / "png" / "things" / "c0-front.png").convert("RGB")
    assert run(game, "export", "png", "ex", "--stamp", "").exit_code == 0
    clean = Image.open(game / "output" / "ex" / "exports" / "png" / "things" / "c0-front.png").convert("RGB")
    box = ImageChops.difference(stamped, clean).getbbox()
    assert box is not None and box[1] > stamped.height * 0.9


def test_stamp_fits_round_tokens_and_die_faces_and_says_when_it_cannot(tmp_path):
    token = make_game(tmp_path / "t", [("t1", 1)], deck_extra="shape: circle\nsize: {width: 25mm, height: 25mm}\n")
    result = run(token, "build", "ex", "--paper", "a4", "--stamp", "v1 2026-01-01")
    assert result.exit_code == 0, result.output
    narrow = make_game(tmp_path / "n", [("n1", 1)], deck_extra="size: {width: 20mm, height: 30mm}\nsafe: 0.5mm\n")
    result = run(narrow, "build", "ex", "--paper", "a4", "--stamp", "a rather long version stamp 1234")
    assert result.exit_code == 2
    assert "deck things" in result.output and "does not fit" in result.output


def test_the_line_stays_inside_the_outline():
    from generator.data.model import Deck, Source

    for shape, orientation in (("rect", ""), ("rounded", ""), ("circle", ""), ("hex", "flat")):
        deck = Deck("d", "D", "tokens", 25.0, 25.0, 2.0, 3.0, 3.0, (), Source("d.yaml", 1), shape=shape,
                    orientation=orientation)
        for place in ("safe", "bleed"):
            placed = layout(Stamp("v12 2026-01-01", place), deck)
            if placed is None:   # the bleed under a round token is a thin crescent: no room there
                assert (shape, place) == ("circle", "bleed")
                continue
            x, y, size = placed
            outline = _outline(deck) if place == "safe" else _outline(deck).grown(deck.bleed)
            left, right = _chord(outline, y - 0.72 * size)
            assert left < x < right
            if place == "safe":   # inside the cut, below the safe area
                assert deck.bleed + deck.trim_h - deck.safe < y - 0.72 * size and y < deck.bleed + deck.trim_h
            else:                 # in the bleed: cut away
                assert y - 0.72 * size > deck.bleed + deck.trim_h
