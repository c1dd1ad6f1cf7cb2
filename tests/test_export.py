"""A build replaces a game's outputs as one set, whenever it is killed; two builds never mix."""
from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run

from generator.errors import OutputError
from generator.exports import files as export
from generator.exports.files import Artifact, clean_leftovers, game_lock, write_game

CARDS = """
- {id: a, name: Alpha, text: "First card.", cost: 1}
- {id: b, name: Beta, text: "Second card.", cost: 2, count: 3}
"""


def state(folder: Path) -> dict:
    """Every file of a game folder with the hash of its bytes."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def complete(folder: Path, own: set = frozenset()) -> bool:
    """The folder holds a whole set: its manifest lists exactly the files there (plus `own`)."""
    files = state(folder)
    listed = {e["path"] for e in json.loads((folder / "manifest.json").read_text())["files"]}
    return set(files) == listed | {"manifest.json"} | set(own)


def arts(tag: str) -> list[Artifact]:
    return [Artifact(path=f"g-{kind}-{paper}.pdf", data=f"{tag} {kind} {paper}".encode() * 1000, kind=kind,
                     paper=paper, pages=1) for kind in ("sheets", "rulebook") for paper in ("a4", "letter")]


class Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs, no `finally` cleans anything up on its behalf."""


FILE_STEPS = ("fsync", "rename", "link", "mkdir")


def finishes(write, monkeypatch, stop_at: int) -> bool:
    """Run `write()` with os's file steps counted, the `stop_at`th raising Killed (as a
    SIGKILL there would stop it); True when it finished before that step."""
    real = {name: getattr(os, name) for name in FILE_STEPS}
    calls = [0]

    def counted(name):
        def op(*args, **kwargs):
            calls[0] += 1
            if calls[0] == stop_at:
                raise Killed(name)
            return real[name](*args, **kwargs)
        return op

    for name in real:
        monkeypatch.setattr(os, name, counted(name))
    try:
        write()
        return True
    except Killed:
        return False
    finally:
        for name, fn in real.items():
            monkeypatch.setattr(os, name, fn)


@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "two-renames"])
def test_a_build_stopped_at_any_step_leaves_the_old_set_or_the_new_set(tmp_path, monkeypatch, exchange):
    out = tmp_path / "output"
    write_game(out, "g", arts("old"))
    old = state(out / "g")
    write_game(out, "g", arts("new"))
    new = state(out / "g")
    write_game(out, "g", arts("old"))
    assert old != new and state(out / "g") == old
    if not exchange:
        monkeypatch.setattr(export, "_exchange", lambda *folders: False)
    step_results = set()
    for stop_at in range(1, 60):
        current = state(out / "g") if (out / "g").exists() else None
        target = arts("new" if current == old else "old")
        finished = finishes(lambda target=target: write_game(out, "g", target), monkeypatch, stop_at)
        if (out / "g").exists():
            seen = state(out / "g")
            assert seen in (old, new), f"mixed set after stopping at step {stop_at}"
            step_results.add("old" if seen == old else "new")
        else:  # only without an atomic exchange, between its two renames: the next build restores
            assert not exchange
            step_results.add("missing")
        clean_leftovers(out, "g")
        assert (out / "g").exists() and state(out / "g") in (old, new)
        assert sorted(p.name for p in out.iterdir()) == [".g.lock", "g"], "leftovers not cleaned"
        if finished:
            break
    else:
        pytest.fail("the build never finished")
    assert {"old", "new"} <= step_results


def test_leftovers_of_killed_builds_are_removed_by_the_next_build(tmp_path):
    out = tmp_path / "output"
    write_game(out, "g", arts("old"))
    (out / ".g.new-99999").mkdir()
    (out / ".g.new-99999" / "half.pdf").write_bytes(b"%PDF-half")
    (out / ".g.old-99998").mkdir()
    (out / "g" / ".g-sheets-a4.pdf.4242.tmp").write_bytes(b"partial")
    (out / ".other.new-1").mkdir()  # another game's: not ours to touch
    write_game(out, "g", arts("new"))
    assert sorted(p.name for p in out.iterdir()) == [".g.lock", ".other.new-1", "g"]
    assert complete(out / "g") and not any(p.name.endswith(".tmp") for p in (out / "g").iterdir())


def test_merge_keeps_the_other_papers_files_and_drops_stale_ones(tmp_path):
    out = tmp_path / "output"
    write_game(out, "g", arts("old"))
    (out / "g" / "notes.txt").write_text("mine")  # a file pnp did not make is carried over
    a4_only = [a for a in arts("new") if a.paper == "a4"]
    write_game(out, "g", a4_only, merge=True)
    assert complete(out / "g", {"notes.txt"}) and (out / "g" / "g-sheets-letter.pdf").read_bytes().startswith(b"old")
    assert (out / "g" / "g-sheets-a4.pdf").read_bytes().startswith(b"new")
    write_game(out, "g", a4_only)  # a full build of A4 only: the letter files are no longer the game's
    assert sorted(state(out / "g")) == ["g-rulebook-a4.pdf", "g-sheets-a4.pdf", "manifest.json", "notes.txt"]


@pytest.mark.slow
def test_a_second_build_of_the_same_game_stops_with_a_clear_message(mini, tmp_path):
    root = mini(CARDS)
    out = root / "output"
    out.mkdir()
    with game_lock(out, "mini"):
        with pytest.raises(OutputError, match="another pnp build of 'mini' is writing"):
            write_game(out, "mini", arts("x"))
        result = run(root, "build", "mini")
    assert result.exit_code == 2 and "another pnp build of 'mini'" in result.output
    assert "Traceback" not in result.output and not (out / "mini").exists()
    assert run(root, "build", "mini").exit_code == 0  # the lock is free again


@pytest.mark.slow   # fresh pnp processes, killed
def test_killed_builds_leave_the_old_or_the_new_set_and_the_next_build_cleans_up(mini):
    """Real builds in a subprocess, SIGKILLed at moments spread over the whole build."""
    root = mini(CARDS)
    deck = root / "cards" / "mini" / "deck.yaml"
    text = deck.read_text()
    variants = [text, text.replace("First card.", "First card, changed.")]
    cmd = [sys.executable, "-m", "generator", "--root", str(root), "build", "mini"]

    def build(variant: int) -> dict:
        """The set a whole build of `variant` writes: made in this process (only the kills
        need a process of their own), the same bytes as `pnp build` writes."""
        deck.write_text(variants[variant])
        result = run(root, "build", "mini", "--trusted")
        assert result.exit_code == 0, result.output
        return state(root / "output" / "mini")

    a, b = build(0), build(1)
    assert a != b
    current = 1
    # one kill mid-build, then kills at moments spread over the export step itself
    # (every single file step is stopped in-process by test_a_build_stopped_at_any_step_...)
    for after_export, delay in [(False, 0.8), (True, 0.0), (True, 0.03)]:
        deck.write_text(variants[1 - current])
        proc = subprocess.Popen([*cmd[:3], "-v", *cmd[3:]], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        if after_export:
            assert any("step 5/5 export" in line for line in proc.stderr), "the build did not reach export"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stderr.close()
        folder = root / "output" / "mini"
        now = state(folder)
        assert now in (a, b), f"mixed outputs after a kill {delay * 1000:g} ms into {'export' if after_export else 'the build'}"
        assert complete(folder)
        current = 0 if now == a else 1
    assert build(0) == a   # the next build (of the old cards) cleans up after the killed ones
    assert sorted(p.name for p in (root / "output").iterdir() if p.name != ".cache") == [".mini.lock", "mini"]


@pytest.mark.parametrize("placements", [[], [{"page": 1, "id": "a", "box": [1.5, 2]}],
                                        [{"page": 1, "id": "é"}, {"page": 2, "id": "b", "panel": {"col": 1}}],
                                        [{"page": 1, "id": 'q"\\\n\u2028\x01', "x_mm": -0.0, "y_mm": 1e-07,
                                          "w_mm": 12.345, "h_mm": 1e22, "round": True, "none": None}, {}]])
def test_a_manifest_with_lazy_placements_is_the_json_of_their_list(placements):
    from generator.exports.files import manifest_json

    class Lazy:  # like sheets' Placements: made when iterated, not a list
        def __iter__(self):
            return iter(placements)

    def manifest(p):
        return {"game": "g", "files": [{"path": "a.pdf", "placements": p, "components": [{"id": "x"}]},
                                       {"path": "b.pdf", "placements": [{"page": 3}]}]}

    written = b"".join(manifest_json(manifest(Lazy())))
    assert written == (json.dumps(manifest(placements), indent=1, ensure_ascii=False) + "\n").encode()
    assert json.loads(written)["files"][0]["placements"] == placements
    # a list (a rulebook's; a merged manifest's earlier entries) is written the same way
    assert b"".join(manifest_json(manifest(list(placements)))) == written


# ---- export targets (png, tts, the print-shop profiles, the kit) are replaced as one set too ----

def export_files(tag: str) -> list:
    from generator.exports import ExportFile
    return [ExportFile(f"deck/{card}-{side}.png", f"{tag} {card} {side}".encode() * 500, {"id": card})
            for card in ("a", "b", "c") for side in ("front", "back")]


@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "two-renames"])
def test_an_export_stopped_at_any_step_leaves_the_old_set_or_the_new_set(tmp_path, monkeypatch, exchange):
    from generator.exports.files import write_exports

    out = tmp_path / "output"
    folder = out / "g" / "exports" / "png"
    write_exports(out, "g", "png", export_files("old"), {"dpi": 300})
    old = state(folder)
    write_exports(out, "g", "png", export_files("new"), {"dpi": 300})
    new = state(folder)
    write_exports(out, "g", "png", export_files("old"), {"dpi": 300})
    assert old != new and state(folder) == old and complete(folder)
    if not exchange:
        monkeypatch.setattr(export, "_exchange", lambda *folders: False)
    seen_sets = set()
    for stop_at in range(1, 80):
        current = state(folder) if folder.exists() else None
        files = export_files("new" if current == old else "old")
        finished = finishes(lambda files=files: write_exports(out, "g", "png", files, {"dpi": 300}), monkeypatch,
                            stop_at)
        if folder.exists():
            now = state(folder)
            assert now in (old, new), f"mixed export set after stopping at step {stop_at}"
            seen_sets.add("old" if now == old else "new")
        else:  # only without an atomic exchange, between its two renames: the next run restores
            assert not exchange
        clean_leftovers(out / "g" / "exports", "png")
        assert state(folder) in (old, new) and complete(folder)
        assert sorted(p.name for p in (out / "g" / "exports").iterdir()) == ["png"], "leftovers not cleaned"
        if finished:
            break
    else:
        pytest.fail("the export never finished")
    assert {"old", "new"} <= seen_sets


def test_an_export_drops_what_it_no_longer_makes_keeps_the_designers_files_and_old_leftovers_go(tmp_path):
    from generator.exports.files import write_exports

    out = tmp_path / "output"
    folder = out / "g" / "exports" / "png"
    write_exports(out, "g", "png", export_files("old"))
    (folder / "notes.txt").write_text("mine")
    (folder / "deck" / ".a-front.png.4242.tmp").write_bytes(b"half")    # the file-by-file writer's
    (folder / ".manifest.json.4243.tmp").write_bytes(b"half")
    (out / "g" / "exports" / ".png.new-99999").mkdir()                    # a killed run's staging folder
    (out / "g" / "exports" / ".png.new-99999" / "x.png").write_bytes(b"half")
    (out / "g" / "exports" / ".tts.new-99999").mkdir()                    # another target's: not this run's
    write_exports(out, "g", "png", export_files("new")[:2])
    assert sorted(state(folder)) == ["deck/a-back.png", "deck/a-front.png", "manifest.json", "notes.txt"]
    assert complete(folder, {"notes.txt"})
    assert sorted(p.name for p in (out / "g" / "exports").iterdir()) == [".tts.new-99999", "png"]
    with game_lock(out, "g"), pytest.raises(OutputError, match="another pnp build of 'g'"):
        write_exports(out, "g", "png", export_files("x"))   # a build of the game is writing


@pytest.mark.slow
@pytest.mark.parametrize("target, delays", [
    ("png", [(False, 1.0), (True, 0.01)]),
    ("dtc", [(True, 0.0), (True, 0.02)]),
])
def test_killed_exports_leave_the_old_or_the_new_set_and_the_next_run_cleans_up(mini, target, delays):
    """Real `pnp export` runs in a subprocess, SIGKILLed before and while they write."""
    cards = "\n".join(f'- {{id: c{n}, name: Card {n}, text: "Words {n}.", cost: {n % 4}}}' for n in range(10))
    root = mini(cards)
    deck = root / "cards" / "mini" / "deck.yaml"
    text = deck.read_text()
    variants = [text, text.replace("Words 3.", "Other words 3.")]
    # (DriveThruCards' ink check runs Ghostscript: --trusted, where CI turns the jail on)
    args = ["png", "mini", "--dpi", "150"] if target == "png" else ["--profile", target, "mini", "--trusted"]
    cmd = [sys.executable, "-m", "generator", "--root", str(root), "-v", "export", *args]
    folder = root / "output" / "mini" / "exports" / target

    def export(variant: int) -> dict:
        """The set a whole export of `variant` writes: made in this process (only the kills
        need a process of their own), the same bytes as `pnp export` writes."""
        deck.write_text(variants[variant])
        result = run(root, "-v", "export", *args, *(() if "--trusted" in args else ("--trusted",)))
        assert result.exit_code == 0, result.output
        return state(folder)

    a, b = export(0), export(1)
    assert a != b
    current = 1
    for after_write_began, delay in delays:
        deck.write_text(variants[1 - current])
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if after_write_began:
            assert any(f"writing the {target} export" in line for line in proc.stderr), "the export did not write"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stderr.close()
        now = state(folder)
        assert now in (a, b), f"mixed {target} files after a kill {delay * 1000:g} ms into writing"
        assert complete(folder)
        current = 0 if now == a else 1
    assert export(0) == a
    exports = root / "output" / "mini" / "exports"
    assert [p.name for p in exports.iterdir()] == [target], "a killed export's leftovers were not removed"
    assert not [p for p in exports.rglob("*") if p.name.endswith(".tmp")]


@pytest.mark.parametrize("fail_at", [1, 3, 5])
def test_a_write_that_fails_removes_the_staging_folder_and_names_the_file(tmp_path, monkeypatch, fail_at):
    import builtins
    import errno

    out = tmp_path / "output"
    write_game(out, "g", arts("old"))
    old = state(out / "g")
    opened = [0]

    def full(path, mode="r", *args, **kwargs):
        if "w" in mode:
            opened[0] += 1
            if opened[0] == fail_at:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return builtins.open(path, mode, *args, **kwargs)

    monkeypatch.setattr(export, "open", full, raising=False)
    with pytest.raises(OutputError, match=r"cannot write \S+/output/g/\S+: No space left on device; \S+ was left as it was"):
        write_game(out, "g", arts("new"))
    assert state(out / "g") == old and sorted(p.name for p in out.iterdir()) == [".g.lock", "g"]
    from generator.exports.files import write_exports
    opened[0] = 0
    with pytest.raises(OutputError, match=r"cannot write \S+/output/g/exports/png/\S+: No space left on device"):
        write_exports(out, "g", "png", export_files("new"))
    assert sorted(p.name for p in (out / "g" / "exports").iterdir()) == []
