"""Export: the only stage that writes files.

In: the finished artifacts of one game (bytes plus their manifest entries). Out: the
folder `output/<game>/` with those files and its `manifest.json`, replaced as one set.

The new set is written into `output/.<game>.new-<pid>/` (every file fsynced, the
manifest last) and swapped in with one atomic exchange of the two folders (two renames
where the system has no exchange), so whatever moment a build is killed, `output/<game>/`
holds either the whole old set or the whole new set. The previous folder is removed
after. A build holds `output/.<game>.lock` while it writes; a second build of the same
game meanwhile stops with a clear message. Leftovers of killed builds are cleaned by the
next build of the game. Files an earlier build listed that this build no longer makes
are dropped; files pnp did not make are carried over.

An export target (`output/<game>/exports/<target>/`: png, tts, tgc, mpc, dtc, kit) is
replaced the same way (`replace_set`), under the same lock. When writing fails (a full
disk, say), the staging folder is removed at once and an `OutputError` names the file that
could not be written; the previous set stays as it was.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import json
import math
import os
import re
import shutil
import sys
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from json.encoder import encode_basestring as _json_str
from pathlib import Path
from typing import Literal

from ..errors import OutputError

if sys.platform == "win32":  # pragma: no cover - no fcntl on Windows
    fcntl = None
else:
    import fcntl


@dataclass(frozen=True)
class Artifact:
    path: str               # relative to output/<game>/
    data: bytes | Iterable[bytes]   # or pieces of bytes (a spooled PDF: layout/pdfstream.py)
    kind: str               # sheets, proof, rulebook
    paper: str
    pages: int
    components: list = field(default_factory=list)
    placements: Sequence[dict] = field(default_factory=list)   # a list, or a lazy plan.Placements
    extra: dict = field(default_factory=dict)   # more manifest fields (print mode, back offset)

    def entry(self) -> dict:
        return {"path": self.path, "kind": self.kind, "paper": self.paper, "pages": self.pages, **self.extra,
                "components": self.components, "placements": self.placements}


def write_atomic(path: Path, data) -> None:
    """One file (bytes, or pieces of bytes) written under a temporary name, fsynced and
    renamed into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            for piece in [data] if isinstance(data, bytes) else data:
                fh.write(piece)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_game(out_dir: Path, game_id: str, artifacts: list[Artifact], merge: bool = False) -> list[Path]:
    """Replace a game's files and manifest as one set; return the paths written.

    :param merge: keep entries of the previous manifest that this build did not remake
        (a build of one paper size keeps the other paper's files listed, and their files).
    :raises OutputError: when another build of the game holds the lock, or a file cannot be
        written (the previous set is then left as it was).
    """
    folder = out_dir / game_id
    _make_folder(out_dir)
    with game_lock(out_dir, game_id):
        old = _read_manifest(folder / "manifest.json")
        new_paths = {a.path for a in artifacts}
        entries = [a.entry() for a in artifacts]
        dropped = set() if merge else {e.get("path") for e in old} - new_paths
        if merge:
            entries = [e for e in old if e.get("path") not in new_paths] + entries
        entries.sort(key=lambda e: e["path"])

        def fill(new: Path) -> None:
            for art in artifacts:
                _write_synced(new, art.path, art.data)
            _carry_over(folder, new, skip=new_paths | dropped | {"manifest.json"})
            _write_synced(new, "manifest.json", manifest_json({"game": game_id, "files": entries}))

        replace_set(out_dir, game_id, fill)
    return [folder / a.path for a in artifacts] + [folder / "manifest.json"]


def replace_set(parent: Path, name: str, fill) -> None:
    """Put a new set of files at `parent/name` in one step: `fill(staging)` writes them into
    `parent/.<name>.new-<pid>/`, which is synced and swapped in whole. Call it holding the
    game's lock. Leftovers of killed runs are removed first.

    :raises OutputError: a file could not be written (a full disk, say): the staging folder
        is removed and `parent/name` is left as it was.
    """
    clean_leftovers(parent, name)
    folder = parent / name
    new = parent / f".{name}.new-{os.getpid()}"
    old = parent / f".{name}.old-{os.getpid()}"
    try:
        new.mkdir()
        fill(new)
        _fsync_dir(new)
        _swap_in(new, folder, old)
    except Exception as exc:
        shutil.rmtree(new, ignore_errors=True)
        if not folder.exists() and old.is_dir():  # stopped between the two renames of a swap
            os.rename(old, folder)
        if not isinstance(exc, OSError):
            raise
        shown = str(exc.filename or folder).replace(str(new), str(folder), 1)
        raise OutputError(f"cannot write {shown}: {exc.strerror or exc}; {folder} was left as it "
                          "was") from None


def _make_folder(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot make the folder {exc.filename or path}: {exc.strerror or exc}") from None


LOCK_MESSAGE = ("another pnp build of '{game}' is writing {out} right now (it holds {lock}); "
                "wait for it to finish, then build again")


@contextmanager
def game_lock(out_dir: Path, game_id: str):
    """Hold `output/.<game>.lock` (an OS lock, released even when the build is killed)."""
    lock = out_dir / f".{game_id}.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise
                raise OutputError(LOCK_MESSAGE.format(game=game_id, out=out_dir / game_id, lock=lock)) from None
        yield
    finally:
        os.close(fd)  # closing releases the lock; the file itself stays, empty


def clean_leftovers(out_dir: Path, game_id: str) -> list[Path]:
    """Remove what killed builds of the game left behind (call it holding the lock).

    A build killed between the two renames of a swap (systems without an atomic exchange)
    left no game folder: its previous folder is put back first.
    """
    folder = out_dir / game_id
    own = re.compile(rf"^\.{re.escape(game_id)}\.(new|old)-\d+$")
    found = sorted(p for p in out_dir.iterdir() if own.match(p.name)) if out_dir.is_dir() else []
    if not folder.exists():
        previous = [p for p in found if ".old-" in p.name]
        if previous:
            os.rename(previous[0], folder)
            found.remove(previous[0])
    if folder.is_dir():  # temporary files of the one-file-at-a-time writer of earlier versions
        found += [p for p in folder.iterdir() if re.match(r"^\..+\.\d+\.tmp$", p.name)]
    for p in found:
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
    return found


def _carry_over(folder: Path, new: Path, skip: set) -> None:
    """Files of the previous set this build keeps (other papers, files pnp did not make)."""
    if not folder.is_dir():
        return
    for src in folder.rglob("*"):
        rel = src.relative_to(folder).as_posix()
        if rel in skip or not src.is_file() or src.is_symlink() or src.name.endswith(".tmp"):
            continue
        dst = new / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(src, dst)  # the same bytes, already on disk: nothing to copy or sync
        except OSError:
            shutil.copyfile(src, dst)
            with open(dst, "rb+") as fh:
                os.fsync(fh.fileno())


def manifest_json(manifest: dict):
    """The manifest as JSON (indent 1), in pieces of bytes: each lazy list of placements (not
    a list: sheets make them when read) is written one placement at a time, so a deck of
    thousands of faces never has them all in memory at once, as dicts or as text."""
    lazy: dict[str, Sequence[dict]] = {}

    def marked(entry: dict) -> dict:
        found = entry.get("placements")
        if found is None or isinstance(found, list):
            return entry
        token = json.dumps(f"@@placements {len(lazy)}@@")
        lazy[token] = found
        return {**entry, "placements": f"@@placements {len(lazy) - 1}@@"}

    text = json.dumps({**manifest, "files": [marked(e) for e in manifest.get("files", [])]},
                      indent=1, ensure_ascii=False) + "\n"
    if not lazy:
        yield text.encode()
        return
    for piece in re.split(r'("@@placements \d+@@")', text):
        if piece not in lazy:
            yield piece.encode()
            continue
        items = iter(lazy[piece])
        first = next(items, None)
        if first is None:
            yield b"[]"
            continue
        inner = "\n" + " " * (len(text[:text.index(piece)].rsplit("\n", 1)[1]) - len('"placements": ') + 1)
        yield b"[" + inner.encode()
        for n, item in enumerate(chain([first], items)):
            yield ((("," + inner) if n else "") + _item_json(item).replace("\n", inner)).encode()
        yield (inner[:-1] + "]").encode()


def _item_json(item: dict) -> str:
    """json.dumps(item, indent=1, ensure_ascii=False), written directly for a flat dict of
    strings and finite numbers (a placement): the indenting encoder is pure Python, and a
    deck's manifest holds thousands of placements."""
    parts = []
    for k, v in item.items():
        kind = type(v)
        if type(k) is not str or not (kind is str or kind is int or (kind is float and math.isfinite(v))):
            return json.dumps(item, indent=1, ensure_ascii=False)
        parts.append(f" {_json_str(k)}: {_json_str(v) if kind is str else repr(v)}")
    return "{\n" + ",\n".join(parts) + "\n}" if parts else "{}"


def _write_synced(folder: Path, rel: str, data) -> None:
    """Write bytes (or pieces of bytes) to `folder/rel` and sync them to disk; an OSError
    names the file."""
    parts = Path(rel).parts
    if not parts or Path(rel).is_absolute() or ".." in parts:
        raise ValueError(f"an output file must lie inside its folder, not at {rel!r}")
    path = folder / rel
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as fh:
            for piece in [data] if isinstance(data, bytes) else data:
                fh.write(piece)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(path)
        raise


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a folder; the renames are still atomic
    finally:
        os.close(fd)


_RENAME_EXCHANGE = 2
_libc: ctypes.CDLL | Literal[False] | None = None   # False: no renameat2 here


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one atomic step (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            _libc.renameat2  # noqa: B018 - glibc 2.28 and later
        except (OSError, AttributeError):
            _libc = False
    if not _libc:
        return False
    at_fdcwd = -100
    if _libc.renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _swap_in(new: Path, folder: Path, old: Path) -> None:
    """Put `new` at `folder` as one step; the previous folder is removed after."""
    if folder.is_dir() and not folder.is_symlink():
        if not _exchange(new, folder):
            os.rename(folder, old)  # a reader misses the folder only until the next rename
            os.rename(new, folder)
            new = old
        _fsync_dir(folder.parent)
        shutil.rmtree(new, ignore_errors=True)  # after the exchange, `new` holds the previous set
    else:
        if folder.is_symlink() or folder.exists():
            folder.unlink()
        os.rename(new, folder)
        _fsync_dir(folder.parent)


def _read_manifest(path: Path) -> list[dict]:
    try:
        return list(json.loads(path.read_text(encoding="utf-8")).get("files", []))
    except (OSError, ValueError, AttributeError):
        return []


def write_exports(out_dir: Path, game_id: str, target: str, files: list, summary: dict | None = None) -> list[Path]:
    """Replace one export target's files, output/<game>/exports/<target>/ with its own
    manifest.json, as one set (`replace_set`, under the game's lock, so a build and an
    export of the same game never write at once). Files the previous export listed and
    this one does not make are gone; files pnp did not make are carried over. `files` are
    `generator.exports.ExportFile`s (path, data, manifest()), complete in memory.

    :raises OutputError: the lock is held, or a file cannot be written (the previous set
        is then left as it was).
    """
    exports = out_dir / game_id / "exports"
    folder = exports / target
    _make_folder(out_dir)
    with game_lock(out_dir, game_id):
        _make_folder(exports)
        old = _read_manifest(folder / "manifest.json")
        new_paths = {f.path for f in files}
        manifest = {"game": game_id, "target": target, **(summary or {}),
                    "files": sorted((f.manifest() for f in files), key=lambda e: e["path"])}

        def fill(new: Path) -> None:
            for f in files:
                _write_synced(new, f.path, f.data)
            _carry_over(folder, new, skip=new_paths | {e.get("path") for e in old} | {"manifest.json"})
            _write_synced(new, "manifest.json", (json.dumps(manifest, indent=1, ensure_ascii=False) + "\n").encode())

        replace_set(exports, target, fill)
    return [folder / f.path for f in files] + [folder / "manifest.json"]


def write_calibration(out_dir: Path, name: str, data: bytes) -> Path:
    """The duplex calibration page: output/calibration/<name> (it belongs to no game)."""
    path = out_dir / "calibration" / name
    write_atomic(path, data)
    return path
