"""Export: the only stage that writes files.

In: the finished artifacts of one game (bytes plus their manifest entries). Out: files
in `output/<game>/` and its `manifest.json`. Every file is written to a temporary name
and renamed into place, so a reader never sees half a PDF; since every artifact is
complete in memory before the first write, a build that fails leaves the previous
files untouched. Files an earlier build listed that this build no longer makes are removed.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Artifact:
    path: str               # relative to output/<game>/
    data: bytes
    kind: str               # sheets, proof, rulebook
    paper: str
    pages: int
    components: list = field(default_factory=list)
    placements: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)   # more manifest fields (print mode, back offset)

    def entry(self) -> dict:
        return {"path": self.path, "kind": self.kind, "paper": self.paper, "pages": self.pages, **self.extra,
                "components": self.components, "placements": self.placements}


def write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_game(out_dir: Path, game_id: str, artifacts: list[Artifact], merge: bool = False) -> list[Path]:
    """Write a game's files and manifest; return the paths written.

    :param merge: keep entries of the previous manifest that this build did not remake
        (a build of one paper size keeps the other paper's files listed).
    """
    folder = out_dir / game_id
    manifest_path = folder / "manifest.json"
    old = _read_manifest(manifest_path)
    written = []
    for art in artifacts:
        write_atomic(folder / art.path, art.data)
        written.append(folder / art.path)
    new_paths = {a.path for a in artifacts}
    entries = [a.entry() for a in artifacts]
    if merge:
        entries = [e for e in old if e.get("path") not in new_paths] + entries
    else:
        for e in old:
            stale = e.get("path")
            if stale and stale not in new_paths and "/" not in stale and (folder / stale).is_file():
                (folder / stale).unlink()
    entries.sort(key=lambda e: e["path"])
    manifest = {"game": game_id, "files": entries}
    write_atomic(manifest_path, (json.dumps(manifest, indent=1, ensure_ascii=False) + "\n").encode())
    written.append(manifest_path)
    return written


def _read_manifest(path: Path) -> list[dict]:
    try:
        return list(json.loads(path.read_text(encoding="utf-8")).get("files", []))
    except (OSError, ValueError, AttributeError):
        return []


def write_exports(out_dir: Path, game_id: str, target: str, files: list, summary: dict | None = None) -> list[Path]:
    """Write one export target's files under output/<game>/exports/<target>/ with its own
    manifest.json; files the previous export of that target listed and this one does not
    make are removed. `files` are `generator.exports.ExportFile`s (path, data, manifest()).
    Every file is complete in memory before the first write."""
    folder = out_dir / game_id / "exports" / target
    manifest_path = folder / "manifest.json"
    old = _read_manifest(manifest_path)
    written = []
    for f in files:
        write_atomic(folder / f.path, f.data)
        written.append(folder / f.path)
    new_paths = {f.path for f in files}
    for e in old:
        stale = e.get("path")
        if stale and stale not in new_paths and ".." not in stale and (folder / stale).is_file():
            (folder / stale).unlink()
    manifest = {"game": game_id, "target": target, **(summary or {}),
                "files": sorted((f.manifest() for f in files), key=lambda e: e["path"])}
    write_atomic(manifest_path, (json.dumps(manifest, indent=1, ensure_ascii=False) + "\n").encode())
    written.append(manifest_path)
    return written


def write_calibration(out_dir: Path, name: str, data: bytes) -> Path:
    """The duplex calibration page: output/calibration/<name> (it belongs to no game)."""
    path = out_dir / "calibration" / name
    write_atomic(path, data)
    return path
