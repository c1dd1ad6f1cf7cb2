"""The command line: builds, listings, the build gate, safe and contained output."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO, edit, run


def snapshot(root):
    """Every file under root except output/, with its bytes."""
    files = {}
    for dirpath, _, names in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel == "output" or rel.startswith("output" + os.sep):
            continue
        for n in names:
            p = os.path.join(dirpath, n)
            files[os.path.relpath(p, root)] = open(p, "rb").read()
    return files


@pytest.mark.usefixtures("warm_project")   # a build, not a drawing, is tested: faces drawn already
def test_build_writes_only_inside_output(project):
    before = snapshot(project)
    result = run(project, "build", "olympians")
    assert result.exit_code == 0, result.output
    assert snapshot(project) == before
    written = sorted(p.relative_to(project / "output").as_posix()
                     for p in (project / "output").rglob("*") if p.is_file() and ".cache" not in p.parts)
    # every edition: the English one as the game is named, the others with their language
    stems = ["olympians", *(f"olympians-{lang}" for lang in ("de", "fr", "ja", "ar"))]
    assert written == sorted([".olympians.lock", "olympians/manifest.json",
                              *(f"olympians/{stem}-{kind}-{paper}.{ext}" for stem in stems for paper in ("a4", "letter")
                                for kind, ext in (("cut", "svg"), ("rulebook", "pdf"), ("sheets", "pdf")))])


@pytest.mark.usefixtures("warm_project")   # a build, not a drawing, is tested: faces drawn already
@pytest.mark.parametrize("old, new, needle", [
    # fails while loading
    ("title: Warlord}\n  # ---- Shields", "title: Warlord, colour: red}\n  # ---- Shields", "unknown key 'colour'"),
    # fails while drawing, after every card before it was rendered
    ("title: Ruler of the Sky", "title: Ruler of the Sky, the Clouds, the Storms, the Thunder and the Lightning",
     "card zeus: front (card.svg.j2): text does not fit"),
])
def test_failed_build_leaves_previous_files_intact(project, old, new, needle):
    assert run(project, "build", "olympians", "--lang", "en").exit_code == 0
    folder = project / "output" / "olympians"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    edit(project / "cards/olympians/playing-cards.yaml", old, new)
    result = run(project, "build", "olympians", "--lang", "en")
    assert result.exit_code == 2 and needle in result.output
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


@pytest.mark.usefixtures("warm_project")   # a build, not a drawing, is tested: faces drawn already
def test_build_gate_refuses_a_deck_that_breaks_its_rules(project):
    edit(project / "cards/olympians/playing-cards.yaml",
         "suit: Helmets, rank: 5, favor: 10,", "suit: Helmets, rank: 5, favor: 9,")
    result = run(project, "build", "olympians")
    assert result.exit_code == 1
    assert "favor total is 119, expected 120" in result.output
    assert "nothing was built" in result.output
    assert not (project / "output" / "olympians").exists()
    result = run(project, "build", "olympians", "--no-validate", "--paper", "a4", "--lang", "en")
    assert result.exit_code == 0
    assert "--no-validate" in result.output and "NOT checked" in result.output
    assert (project / "output" / "olympians" / "olympians-sheets-a4.pdf").exists()


def test_manifest_lists_every_file(olympians_build):
    manifest = json.loads((olympians_build / "manifest.json").read_text())
    assert manifest["game"] == "olympians"
    for f in manifest["files"]:
        assert (olympians_build / f["path"]).is_file()
        assert f["paper"] in ("a4", "letter") and f["pages"] > 0
        base = {"path", "kind", "paper", "pages", "components", "placements", "language"}   # a game of 5 languages
        # sheets also say how they print: the mode and the back offset (tests/test_print_modes.py)
        assert set(f) == (base | {"mode", "back_offset_mm"} if f["kind"] == "sheets" else base)
    kinds = {(f["kind"], f["paper"]) for f in manifest["files"]}
    assert {("sheets", "a4"), ("sheets", "letter")} <= kinds


@pytest.mark.usefixtures("warm_project")   # a build, not a drawing, is tested: faces drawn already
def test_one_paper_keeps_the_other_listed(project):
    assert run(project, "build", "olympians", "--paper", "a4", "--lang", "en").exit_code == 0
    assert run(project, "build", "olympians", "--paper", "letter", "--lang", "en").exit_code == 0
    manifest = json.loads((project / "output/olympians/manifest.json").read_text())
    papers = {f["paper"] for f in manifest["files"] if f["kind"] == "sheets"}
    assert papers == {"a4", "letter"}


def test_list_shows_games_components_and_counts(project):
    for other in (project / "cards").iterdir():
        if other.name != "olympians":
            shutil.rmtree(other)
    result = run(project, "list")
    assert result.exit_code == 0
    assert "olympians: Olympians (36 components, editions: en, de, fr, ja, ar)" in result.output
    assert "playing-cards: Playing cards, 32 x 63 x 88 mm" in result.output
    (project / "cards" / "broken").mkdir()
    (project / "cards" / "broken" / "game.yaml").write_text("title: Broken\n")
    result = run(project, "list")
    assert result.exit_code == 2
    assert "olympians: Olympians (36 components, editions: en, de, fr, ja, ar)" in result.output
    assert "broken: cannot be read" in result.output


def test_unknown_game_and_bad_usage_exit_2():
    result = run(REPO, "build", "chess")
    assert result.exit_code == 2 and "unknown game 'chess'" in result.output
    result = run(REPO, "build", "--paper", "b7")
    assert result.exit_code == 2
    result = run(REPO, "validate", "chess")
    assert result.exit_code == 2


@pytest.mark.slow   # a fresh pnp process
def test_console_script_prints_no_traceback(tmp_path):
    (tmp_path / "cards" / "broken").mkdir(parents=True)
    (tmp_path / "cards" / "broken" / "game.yaml").write_text("title: [unclosed\n")
    pnp = os.path.join(os.path.dirname(sys.executable), "pnp")
    proc = subprocess.run([pnp, "--root", str(tmp_path), "build"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "cards/broken/game.yaml:2: YAML syntax error" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


@pytest.mark.slow
def test_game_print_settings_choose_papers_and_crop_marks(mini):
    root = mini("- {id: a, name: Alpha, text: ok}")
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text() + "print: {papers: [letter], crop_marks: false}\n")
    assert run(root, "build").exit_code == 0
    folder = root / "output" / "mini"
    assert sorted(p.name for p in folder.glob("*.pdf")) == ["mini-sheets-letter.pdf"]
    import pikepdf
    with pikepdf.open(folder / "mini-sheets-letter.pdf") as pdf:
        ops = [str(op) for _, op in pikepdf.parse_content_stream(pdf.pages[0])]
    assert "l" not in ops  # no crop-mark lines drawn
    assert run(root, "build", "--paper", "a4").exit_code == 0
    assert (folder / "mini-sheets-a4.pdf").exists() and (folder / "mini-sheets-letter.pdf").exists()


def test_missing_rulebook_named_in_game_yaml_is_an_error(mini):
    root = mini("- {id: a, name: Alpha, text: ok}")
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text() + "rulebook: rules-of-play.md\n")
    result = run(root, "build")
    assert result.exit_code == 2
    assert "cards/mini/game.yaml:3: rulebook: rulebook file 'rules-of-play.md' does not exist" in result.output


def test_titles_printed_outside_cards_are_checked_for_glyphs(mini):
    root = mini("- {id: a, name: Alpha, text: ok}")
    (root / "cards/mini/game.yaml").write_text("title: Mini ★\ndecks: [deck.yaml]\n")
    result = run(root, "build")
    assert result.exit_code == 2
    assert "cards/mini/game.yaml:1: title: character '★' (U+2605 BLACK STAR) is not in font EBGaramond12-Regular" \
        in result.output


def test_nothing_to_print_and_unwritable_output_are_clean_errors(mini, tmp_path):
    root = mini("- {id: a, name: Alpha, text: ok, count: 0}")
    result = run(root, "build")
    assert result.exit_code == 2 and "every card has count 0: nothing to print" in result.output
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    root = mini("- {id: a, name: Alpha, text: ok}")
    result = run(root, "build", "--output", str(blocker / "out"))
    assert result.exit_code == 2 and "cannot write" in result.output and "Traceback" not in result.output


def test_list_gives_sizes_as_a_person_reads_them():
    """A d12's face is 25.8885 mm wide: `pnp list` says what a die is (a net, its edge), and
    no size carries more than one decimal."""
    result = run(REPO, "list")
    assert result.exit_code == 0, result.output
    assert "dice: Twelve-sided dice, 4 x d12 nets, 16 mm edges" in result.output
    assert not re.findall(r"\d+\.\d{2,}", result.output), result.output
