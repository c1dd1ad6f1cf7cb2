"""Links planted in a project never redirect what pnp writes or deletes (issue 44).

A symlink named `output` is not ignored by `/output/*` in .gitignore, and links under
output/ travel with `git add -f`: every write and delete of pnp goes through real folders
(generator/safefs.py), caches prune only their own entries in folders pnp made, `pnp
clean` removes only what pnp made, and a cache entry planted in a checkout (the right name,
other content) is never used: entries carry a tag keyed with a key kept outside the project.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.session import Session
from tests.conftest import REPO, run

CARDS = '- {id: a, name: Alpha, text: "First card."}\n- {id: b, name: Beta, text: "Second card."}'
BIG = 600 * 2**20   # past the caches' 500 MB: a sparse file, no disk used


def outside(tmp_path: Path) -> Path:
    """A folder of the user's, beside the project, with files that must survive."""
    home = tmp_path / "home"
    (home / "photos").mkdir(parents=True)
    (home / "photos" / "holiday.jpg").write_bytes(b"precious")
    (home / ".cache").mkdir()
    (home / ".cache" / "thing").write_bytes(b"mine")
    (home / "notes.txt").write_text("my notes\n")
    return home


def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


def test_a_build_into_a_linked_output_folder_is_refused_naming_the_link(mini, tmp_path):
    root = mini(CARDS)
    home = outside(tmp_path)
    before = snapshot(home)
    (root / "output").symlink_to(home)
    result = run(root, "build", "--paper", "a4")
    assert result.exit_code == 2, result.output
    assert f"output is a link (to {home})" in result.output and "remove the link" in result.output
    assert "Traceback" not in result.output
    assert snapshot(home) == before


def test_clean_all_through_a_linked_output_folder_deletes_nothing_outside(mini, tmp_path):
    root = mini(CARDS)
    home = outside(tmp_path)
    before = snapshot(home)
    (root / "output").symlink_to(home)
    result = run(root, "clean", "--all")
    assert result.exit_code == 2 and "output is a link" in result.output, result.output
    assert snapshot(home) == before


def test_clean_all_removes_only_what_pnp_made(mini, tmp_path):
    root = mini(CARDS)
    assert run(root, "build", "--paper", "a4").exit_code == 0
    notes = root / "output" / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("mine\n")
    home = outside(tmp_path)
    before = snapshot(home)
    (root / "output" / "mini" / "linked").symlink_to(home)   # inside a game folder pnp made
    result = run(root, "clean", "--all")
    assert result.exit_code == 0, result.output
    assert not (root / "output" / "mini").exists() and not (root / "output" / ".cache").exists()
    assert (notes / "todo.txt").read_text() == "mine\n" and "kept" in result.output
    assert snapshot(home) == before


def test_a_linked_face_cache_is_refused_and_nothing_outside_is_pruned(mini, tmp_path):
    root = mini(CARDS)
    home = outside(tmp_path)
    with open(home / "photos" / "old-film.mov", "wb") as fh:   # old, big, of any name
        fh.truncate(BIG)
    os.utime(home / "photos" / "old-film.mov", (1000, 1000))
    before = {p: p.stat().st_size for p in home.rglob("*")}
    (root / "output" / ".cache").mkdir(parents=True)
    (root / "output" / ".cache" / "faces").symlink_to(home)
    result = run(root, "build", "--paper", "a4")
    assert result.exit_code == 2, result.output
    assert f"output/.cache/faces is a link (to {home})" in result.output
    assert {p: p.stat().st_size for p in home.rglob("*")} == before


def test_a_face_cache_pnp_did_not_make_is_never_pruned_and_only_entries_are(mini):
    root = mini(CARDS)
    planted = root / "output" / ".cache" / "faces" / "ab"
    planted.mkdir(parents=True)   # committed to the repository: a real folder, no CACHEDIR.TAG of pnp's
    with open(planted / "design-notes.pdf", "wb") as fh:
        fh.truncate(BIG)
    os.utime(planted / "design-notes.pdf", (1000, 1000))
    assert run(root, "build", "--paper", "a4").exit_code == 0
    assert (planted / "design-notes.pdf").stat().st_size == BIG


def test_prune_removes_only_entries_by_their_name(tmp_path):
    from generator.draw.facecache import FaceCache

    cache = FaceCache(tmp_path / "faces", limit_bytes=10)
    cache.put("ab" + "0" * 62, b"%PDF entry" * 10)
    with open(tmp_path / "faces" / "ab" / "notes.pdf", "wb") as fh:
        fh.truncate(BIG)
    os.utime(tmp_path / "faces" / "ab" / "notes.pdf", (1000, 1000))
    assert cache.prune() == 1
    assert (tmp_path / "faces" / "ab" / "notes.pdf").stat().st_size == BIG


def _without_fonts_env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in ("PNP_FONTCONFIG_ACTIVE", "FONTCONFIG_FILE")}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["fonts.tmp", "fonts.conf"])
def test_a_link_at_the_font_config_leaves_its_target_unchanged(mini, tmp_path, name):
    root = mini(CARDS)
    home = outside(tmp_path)
    (root / "output" / ".cache").mkdir(parents=True)
    (root / "output" / ".cache" / name).symlink_to(home / "notes.txt")
    done = subprocess.run([sys.executable, "-m", "generator", "--root", str(root), "validate", "mini"],
                          capture_output=True, text=True, env=_without_fonts_env(), cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (home / "notes.txt").read_text() == "my notes\n"
    assert not (root / "output" / ".cache" / "fonts.conf").is_symlink()


def _two_languages(mini) -> Path:
    root = mini(CARDS)
    game = root / "cards" / "mini" / "game.yaml"
    game.write_text(game.read_text().replace("title: Mini\n", "title: Mini\nlanguages: [en, de]\n"))
    return root


def _translations(root: Path) -> Path:
    csv = root.parent / "de.csv"
    csv.write_text("game,key,where,en,de\nmini,cards.a.text,x,First card.,Erste Karte.\n", encoding="utf-8")
    return csv


def test_i18n_import_never_writes_through_a_linked_temporary(mini, tmp_path):
    root = _two_languages(mini)
    home = outside(tmp_path)
    (root / "cards" / "mini" / "i18n").mkdir()
    (root / "cards" / "mini" / "i18n" / ".de.yaml.tmp").symlink_to(home / "notes.txt")
    result = run(root, "i18n", "import", str(_translations(root)))
    assert result.exit_code == 0, result.output
    assert (home / "notes.txt").read_text() == "my notes\n"
    assert "Erste Karte." in (root / "cards" / "mini" / "i18n" / "de.yaml").read_text(encoding="utf-8")


def test_i18n_import_writes_through_a_linked_translation_inside_the_project_only(mini, tmp_path):
    root = _two_languages(mini)
    home = outside(tmp_path)
    (root / "cards" / "mini" / "i18n").mkdir()
    (root / "shared").mkdir()
    (root / "shared" / "de.yaml").write_text("cards: {}\n")
    (root / "cards" / "mini" / "i18n" / "de.yaml").symlink_to(root / "shared" / "de.yaml")
    assert run(root, "i18n", "import", str(_translations(root))).exit_code == 0
    assert (root / "cards" / "mini" / "i18n" / "de.yaml").is_symlink()   # kept, written through
    assert "Erste Karte." in (root / "shared" / "de.yaml").read_text(encoding="utf-8")
    (root / "cards" / "mini" / "i18n" / "de.yaml").unlink()
    (root / "cards" / "mini" / "i18n" / "de.yaml").symlink_to(home / "notes.txt")
    result = run(root, "i18n", "import", str(_translations(root)))
    assert result.exit_code == 2 and "leads outside the project" in result.output, result.output
    assert (home / "notes.txt").read_text() == "my notes\n"


def test_a_linked_game_folder_is_replaced_and_nothing_outside_is_carried_in(mini, tmp_path):
    root = mini(CARDS)
    home = outside(tmp_path)
    before = snapshot(home)
    (root / "output").mkdir()
    (root / "output" / "mini").symlink_to(home)
    assert run(root, "build", "--paper", "a4").exit_code == 0
    game = root / "output" / "mini"
    assert game.is_dir() and not game.is_symlink() and (game / "mini-sheets-a4.pdf").is_file()
    assert not (game / "notes.txt").exists() and not (game / "photos").exists()
    assert snapshot(home) == before


def test_a_link_at_the_lock_name_is_replaced_not_followed(mini, tmp_path):
    root = mini(CARDS)
    home = outside(tmp_path)
    (root / "output").mkdir()
    (root / "output" / ".mini.lock").symlink_to(home / "made-by-pnp")   # dangling: O_CREAT would make it
    assert run(root, "build", "--paper", "a4").exit_code == 0
    assert not (home / "made-by-pnp").exists()
    assert not (root / "output" / ".mini.lock").is_symlink()


def test_pull_never_makes_its_temporary_files_through_a_link(mini, tmp_path):
    root = mini(CARDS)
    game = root / "cards" / "mini" / "game.yaml"
    game.write_text(game.read_text() + "pull:\n  deck.csv: http://127.0.0.1:9/deck.csv\n")
    home = outside(tmp_path)
    before = snapshot(home)
    (root / "output").symlink_to(home)
    result = run(root, "pull", "mini")
    assert result.exit_code == 2 and "output is a link" in result.output, result.output
    assert snapshot(home) == before


@pytest.mark.parametrize("command", [("export", "png", "mini"), ("kit", "mini")])
def test_linked_export_and_kit_folders_are_refused(mini, tmp_path, command):
    root = mini(CARDS)
    home = outside(tmp_path)
    before = snapshot(home)
    (root / "output" / "mini").mkdir(parents=True)
    (root / "output" / "mini" / "exports").symlink_to(home)
    result = run(root, *command)
    assert result.exit_code == 2, result.output
    assert "output/mini/exports is a link" in result.output
    assert snapshot(home) == before


# ---- a cache found in the checkout is not trusted -------------------------------------------

def _sheets(root: Path) -> bytes:
    return (root / "output" / "mini" / "mini-sheets-a4.pdf").read_bytes()


@pytest.mark.slow
def test_a_planted_face_cache_entry_cannot_change_what_is_printed(mini, tmp_path):
    import shutil

    many = "\n".join(f'- {{id: c{i}, name: "Card {i}", text: "Words of card {i}."}}' for i in range(40))
    root = mini(many)
    assert run(root, "build", "--paper", "a4").exit_code == 0
    cold = _sheets(root)
    entries = sorted((root / "output" / ".cache" / "faces").glob("*/*.pdf"))
    assert len(entries) >= 2
    bodies = [p.read_bytes()[:-32] for p in entries]
    for n, path in enumerate(entries):   # each name given another bundle's bytes, with a valid sha256
        body = bodies[(n + 1) % len(bodies)]
        path.write_bytes(body + hashlib.sha256(body).digest())
    shutil.rmtree(root / "output" / "mini")
    result = run(root, "build", "--paper", "a4")
    assert result.exit_code == 0, result.output
    assert _sheets(root) == cold


def test_cache_entries_made_under_another_key_are_not_used(mini, monkeypatch):
    from generator.data.load import load_game
    from generator.draw.facecache import FaceCache
    from generator.draw.render import render_game
    from generator.safefs import cache_key

    root = mini("\n".join(f'- {{id: c{i}, name: "Card {i}", text: "Words {i}."}}' for i in range(30)))
    cache = FaceCache(root / "output" / ".cache" / "faces")
    first = render_game(load_game(root, "mini", Session()), Session(), cache=cache)
    assert render_game(load_game(root, "mini", Session()), Session(), cache=cache).drawn == 0   # entries still hit
    monkeypatch.setenv("PNP_CACHE_KEY", "77" * 32)
    cache_key.cache_clear()
    try:
        other = render_game(load_game(root, "mini", Session()), Session(), cache=cache)
        assert other.drawn == first.drawn and list(other.faces_pdfs) == list(first.faces_pdfs)
    finally:
        monkeypatch.undo()
        cache_key.cache_clear()


def test_a_planted_picture_store_entry_is_not_used(tmp_path):
    from generator.draw.pictures import Prepared
    from generator.draw.picturestore import PictureStore

    store = PictureStore(tmp_path / "pictures")
    data = b"real pixels"
    key = "cd" + "1" * 62
    store.put(key, Prepared("png", data, (2, 2), "resampled", b"", hashlib.sha256(data).hexdigest(), ()))
    assert store.get(key, b"") is not None
    other = b"other pixels"
    uid = hashlib.sha256(other).hexdigest()
    (tmp_path / "pictures" / "cd" / key).write_bytes(
        f"png resampled 2 2 {uid} {len(other)} 0\n".encode() + b"\n" + other)
    assert store.get(key, b"") is None


# ---- the key ---------------------------------------------------------------------------------

def test_the_cache_key_is_made_once_0600_outside_the_project(tmp_path, monkeypatch):
    from generator import safefs

    monkeypatch.delenv("PNP_CACHE_KEY")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    safefs.cache_key.cache_clear()
    try:
        key = safefs.cache_key()
        path = tmp_path / "xdg" / "pnp" / "cache-key"
        assert path.read_bytes() == key and len(key) == 32 and (path.stat().st_mode & 0o777) == 0o600
        safefs.cache_key.cache_clear()
        assert safefs.cache_key() == key
    finally:
        monkeypatch.undo()
        safefs.cache_key.cache_clear()


def test_a_link_at_the_key_is_never_followed_and_said(tmp_path, monkeypatch, capsys):
    from generator import safefs

    monkeypatch.delenv("PNP_CACHE_KEY")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "xdg" / "pnp").mkdir(parents=True)
    (tmp_path / "xdg" / "pnp" / "cache-key").symlink_to(tmp_path / "elsewhere")
    safefs.cache_key.cache_clear()
    try:
        key = safefs.cache_key()
        assert len(key) == 32 and not (tmp_path / "elsewhere").exists()
        assert capsys.readouterr().err.count("cache key") == 1
    finally:
        monkeypatch.undo()
        safefs.cache_key.cache_clear()


def test_the_key_is_read_when_the_session_is_made(monkeypatch):
    from generator import safefs
    from generator.session import Session

    safefs.cache_key.cache_clear()
    Session()
    assert safefs.cache_key.cache_info().currsize == 1
