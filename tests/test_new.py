"""`pnp new`, `pnp schema` and `pnp pull`: a new game builds and validates at once, its YAML
points editors at the schemas, and published sheets are pulled from a local server."""
from __future__ import annotations

import http.server
import json
import shutil
import subprocess
import sys
import threading

import pytest
import yaml
from jsonschema import Draft202012Validator

from tests.conftest import REPO, run


@pytest.mark.slow
def test_new_game_in_a_fresh_clone_builds_and_validates(tmp_path):
    for name in ("cards", "templates"):
        shutil.copytree(REPO / name, tmp_path / name)
    result = run(tmp_path, "new", "x")
    assert result.exit_code == 0, result.output
    assert run(tmp_path, "validate", "x").exit_code == 0
    out = tmp_path / "out"
    result = run(tmp_path, "build", "x", "--output", str(out))
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "x" / "manifest.json").read_text())
    kinds = {(f["kind"], f["paper"]) for f in manifest["files"]}
    assert {("sheets", "a4"), ("rulebook", "a4"), ("sheets", "letter")} <= kinds
    placed = {p["id"] for f in manifest["files"] if f["kind"] == "sheets" for p in f["placements"]}
    assert {"strike", "coin-1"} <= placed
    shapes = {p["shape"] for f in manifest["files"] if f["kind"] == "sheets" for p in f["placements"]}
    assert "circle" in shapes
    assert not (tmp_path / "cards" / "x" / "output").exists()


def test_new_game_in_an_empty_folder_is_a_project(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "generator", "new", "first-game", "--title", "First Game"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "templates" / "_shared" / "macros.j2").is_file()
    game = yaml.safe_load((tmp_path / "cards" / "first-game" / "game.yaml").read_text())
    assert game["title"] == "First Game"
    # every YAML file names the schema that checks it, and that schema was written
    for path in (tmp_path / "cards" / "first-game").glob("*.yaml"):
        first = path.read_text().splitlines()[0]
        assert first.startswith("# yaml-language-server: $schema=../../schemas/"), path
        schema = (path.parent / first.split("=", 1)[1]).resolve()
        assert schema.is_file()
        if path.name in ("game.yaml", "cards.yaml", "tokens.yaml", "rules.yaml"):
            data = yaml.safe_load(path.read_text())
            errors = list(Draft202012Validator(json.loads(schema.read_text())).iter_errors(data))
            assert errors == [], (path, errors)
    result = run(tmp_path, "validate")
    assert result.exit_code == 0, result.output


def test_new_never_overwrites_and_checks_the_id(tmp_path):
    assert run(tmp_path, "new", "x").exit_code == 0
    (tmp_path / "cards" / "x" / "cards.yaml").write_text("mine")
    again = run(tmp_path, "new", "x")
    assert again.exit_code == 2 and "already exist" in again.output
    assert (tmp_path / "cards" / "x" / "cards.yaml").read_text() == "mine"
    bad = run(tmp_path, "new", "My Game")
    assert bad.exit_code == 2 and "not a game id" in bad.output


def test_schema_command_writes_the_bundled_schemas(tmp_path):
    (tmp_path / "cards").mkdir()
    result = run(tmp_path, "schema")
    assert result.exit_code == 0, result.output
    for name in ("game", "deck", "rules"):
        written = json.loads((tmp_path / "schemas" / f"{name}.schema.json").read_text())
        assert written == json.loads((REPO / "generator" / "assets" / "schemas" / f"{name}.schema.json").read_text())


@pytest.fixture
def sheet_server(tmp_path):
    """A local web server (127.0.0.1) serving files from a folder, as a published sheet would."""
    folder = tmp_path / "www"
    folder.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(folder), **kw)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_pull_refreshes_the_local_copy_and_build_reads_it(tmp_path, sheet_server):
    folder, base = sheet_server
    root = tmp_path / "proj"
    root.mkdir()
    assert run(root, "new", "x").exit_code == 0
    cards = yaml.safe_load((root / "cards" / "x" / "cards.yaml").read_text())["cards"]
    header = ["id", "name", "count", "cost", "type", "text", "icons"]
    lines = [",".join(header)] + [",".join(
        f'"{c.get(h, "")}"' if h != "icons" else '"' + "; ".join(c.get("icons", [])) + '"' for h in header)
        for c in cards]
    (folder / "pub.csv").write_text("\n".join(lines) + "\n")
    game_yaml = root / "cards" / "x" / "game.yaml"
    game_yaml.write_text(game_yaml.read_text() + f"pull:\n  cards.csv: {base}/pub.csv\n")
    deck = root / "cards" / "x" / "cards.yaml"
    text = deck.read_text()
    deck.write_text(text[:text.index("\ncards:\n") + 1] + "cards: {from: cards.csv}\n")

    result = run(root, "pull", "x")
    assert result.exit_code == 0, result.output
    assert "cards/x/cards.csv: 6 rows, updated" in result.output
    assert (root / "cards" / "x" / "cards.csv").read_text() == (folder / "pub.csv").read_text()
    assert run(root, "validate", "x").exit_code == 0
    assert "unchanged" in run(root, "pull").output

    # a URL that fails changes nothing and names the game.yaml line
    game_yaml.write_text(game_yaml.read_text().replace("/pub.csv", "/gone.csv"))
    before = (root / "cards" / "x" / "cards.csv").read_bytes()
    failed = run(root, "pull", "x")
    assert failed.exit_code == 2 and "cards/x/game.yaml:" in failed.output and "gone.csv" in failed.output
    assert "no file was changed" in failed.output
    assert (root / "cards" / "x" / "cards.csv").read_bytes() == before
    assert not (root / "cards" / "x" / ".pull-tmp").exists()


def test_pull_without_urls_is_a_clear_error(tmp_path):
    assert run(tmp_path, "new", "x").exit_code == 0
    result = run(tmp_path, "pull", "x")
    assert result.exit_code == 2 and "has no `pull:`" in result.output
