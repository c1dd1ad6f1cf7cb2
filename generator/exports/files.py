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
import errno
import functools
import json
import os
import re
import sys
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .. import safefs
from ..bindings import c_library
from ..errors import OutputError
from .manifest import manifest_json

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


def write_atomic(base: Path, path: Path, data) -> None:
    """One file (bytes, or pieces of bytes) written under an exclusive temporary name,
    fsynced and renamed into place; its folders real ones under the trusted `base` (the
    folder holding output/), never reached through a link (safefs.py)."""
    safefs.write_file(base, path, data, sync=True)


def write_game(out_dir: Path, game_id: str, artifacts: list[Artifact], merge: bool = False,
               placed: Sequence[Artifact] = (), keep: str | None = None) -> list[Path]:
    """Replace a game's files and manifest as one set; return the paths written.

    :param merge: keep entries of the previous manifest that this build did not remake
        (a build of one paper size keeps the other paper's files listed, and their files).
    :param placed: artifacts of this build already in the set in place (`first_in_place`):
        listed in the manifest, their files carried over as they are.
    :param keep: the name the previous set is kept under, instead of being removed.
    :raises OutputError: when another build of the game holds the lock, or a file cannot be
        written (the previous set is then left as it was).
    """
    folder = out_dir / game_id
    with _out_folder(out_dir) as out_fd, _lock(out_fd, out_dir, game_id):
        old = _read_manifest(out_fd, game_id)
        new_paths = {a.path for a in artifacts}
        entries = [a.entry() for a in [*artifacts, *placed]]
        dropped = set() if merge else {e.get("path") for e in old} - new_paths - {a.path for a in placed}
        if merge:
            entries = [e for e in old if e.get("path") not in new_paths] + entries
        entries.sort(key=lambda e: e["path"])

        def fill(new: int) -> None:
            for art in artifacts:
                _write_synced(new, art.path, art.data)
            _carry_over(out_fd, game_id, new, skip=new_paths | dropped | {"manifest.json"})
            _write_synced(new, "manifest.json", manifest_json({"game": game_id, "files": entries}))

        replace_set(out_fd, out_dir, game_id, fill, keep)
    return [folder / a.path for a in artifacts] + [folder / "manifest.json"]


def first_in_place(out_dir: Path, game_id: str, artifacts: list[Artifact]) -> list[Path]:
    """Put a build's first files (`pnp watch`: the first paper's sheets, the PDF being
    previewed) in place at once, as one set with the rest of the previous build's files,
    which is kept aside; then the rest is made and the whole set written (`write_game`, these
    `placed`) within `put_back_on_failure`. Returns the paths written."""
    return write_game(out_dir, game_id, artifacts, merge=True, keep=f".{game_id}.prev-{os.getpid()}")


@contextmanager
def put_back_on_failure(out_dir: Path, game_id: str):
    """After `first_in_place`: when the block raises (the rest of the build failed to be
    made or written), the previous set is put back as it was; else it is removed."""
    kept = f".{game_id}.prev-{os.getpid()}"
    try:
        yield
    except BaseException:
        with _out_folder(out_dir) as out_fd, _lock(out_fd, out_dir, game_id):
            if _kind(out_fd, kept) == "folder":
                _swap_in(out_fd, kept, game_id, f".{game_id}.old-{os.getpid()}")
            else:  # there was no previous set
                _quietly(safefs.remove_in, out_fd, game_id)
        raise
    with _out_folder(out_dir) as out_fd:
        _quietly(safefs.remove_in, out_fd, kept)


def replace_set(parent_fd: int, parent: Path, name: str, fill, keep: str | None = None) -> None:
    """Put a new set of files at `parent/name` in one step: `fill(staging)` writes them into
    `parent/.<name>.new-<pid>/` (`staging`: its descriptor), which is synced and swapped in
    whole. `parent_fd`: the real folder `parent`, opened. Call it holding the game's lock.
    Leftovers of killed runs are removed first. A link at `parent/name` is replaced, never
    followed. `keep`: the name the previous set is kept under (else it is removed).

    :raises OutputError: a file could not be written (a full disk, say): the staging folder
        is removed and `parent/name` is left as it was.
    """
    _clean_leftovers(parent_fd, name)
    new = f".{name}.new-{os.getpid()}"
    old = f".{name}.old-{os.getpid()}"
    try:
        os.mkdir(new, 0o777, dir_fd=parent_fd)
        with safefs.folder(parent_fd, new, make=False) as new_fd:
            fill(new_fd)
            _fsync(new_fd)
        _swap_in(parent_fd, new, name, old, keep)
    except Exception as exc:
        _quietly(safefs.remove_in, parent_fd, new)
        if _kind(parent_fd, name) is None and _kind(parent_fd, old) == "folder":  # stopped between two renames
            os.rename(old, name, src_dir_fd=parent_fd, dst_dir_fd=parent_fd)
        if not isinstance(exc, OSError):
            raise
        folder = parent / name
        shown = folder / exc.filename if exc.filename and not os.path.isabs(exc.filename) else folder
        raise OutputError(f"cannot write {shown}: {exc.strerror or exc}; {folder} was left as it "
                          "was") from None


@contextmanager
def _out_folder(path: Path, base: Path | None = None):
    """The real folder `path` (made when missing), its descriptor; `base`: the trusted folder
    it lies in (by default the one holding it: the project, or the parent of an --output)."""
    try:
        if base is None:
            path.parent.mkdir(parents=True, exist_ok=True)   # the project, or where an --output named lies
        fd = safefs.open_folder(path.parent if base is None else base, path)
    except OSError as exc:
        raise OutputError(f"cannot make the folder {exc.filename or path}: {exc.strerror or exc}") from None
    try:
        yield fd
    finally:
        os.close(fd)


def _kind(dir_fd: int, name: str) -> str | None:
    """"folder", "link", "other" or None (absent) for `name` in `dir_fd`, links not followed."""
    import stat

    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None
    return "folder" if stat.S_ISDIR(mode) else "link" if stat.S_ISLNK(mode) else "other"


def _quietly(do, *args, **kwargs) -> None:
    try:
        do(*args, **kwargs)
    except OSError:
        pass


LOCK_MESSAGE = ("another pnp build of '{game}' is writing {out} right now (it holds {lock}); "
                "wait for it to finish, then build again")


@contextmanager
def game_lock(out_dir: Path, game_id: str):
    """Hold `output/.<game>.lock` (an OS lock, released even when the build is killed)."""
    with _out_folder(out_dir) as out_fd, _lock(out_fd, out_dir, game_id):
        yield


@contextmanager
def _lock(out_fd: int, out_dir: Path, game_id: str):
    name = f".{game_id}.lock"
    lock = out_dir / name
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags, 0o644, dir_fd=out_fd)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        os.unlink(name, dir_fd=out_fd)   # a link planted at the lock's name: replaced, never followed
        fd = os.open(name, flags | os.O_EXCL, 0o644, dir_fd=out_fd)
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
    left no game folder: its previous folder is put back first. Nothing is followed through
    a link.
    """
    try:
        fd = safefs.open_folder(out_dir.parent, out_dir, make=False)
    except FileNotFoundError:
        return []
    try:
        return [out_dir / name for name in _clean_leftovers(fd, game_id)]
    finally:
        os.close(fd)


def _clean_leftovers(out_fd: int, game_id: str) -> list[str]:
    own = re.compile(rf"^\.{re.escape(game_id)}\.(new|old|prev)-\d+$")
    kept = f".{game_id}.prev-{os.getpid()}"   # this process's own previous set (first_in_place)
    found = sorted(name for name in os.listdir(out_fd) if own.match(name) and name != kept)
    if _kind(out_fd, game_id) is None:
        previous = [name for name in found if ".old-" in name and _kind(out_fd, name) == "folder"]
        if previous:
            os.rename(previous[0], game_id, src_dir_fd=out_fd, dst_dir_fd=out_fd)
            found.remove(previous[0])
    for name in found:
        _quietly(safefs.remove_in, out_fd, name)
    if _kind(out_fd, game_id) == "folder":  # temporary files of the one-file-at-a-time writer of earlier versions
        with safefs.folder(out_fd, game_id, make=False) as fd:
            for name in os.listdir(fd):
                if re.match(r"^\..+\.\d+\.tmp$", name):
                    _quietly(os.unlink, name, dir_fd=fd)
                    found.append(f"{game_id}/{name}")
    return found


def _carry_over(out_fd: int, name: str, new: int, skip: set) -> None:
    """Files of the previous set `out/name` this build keeps (other papers, files pnp did not
    make): regular files only, no link followed or kept."""
    import stat

    if _kind(out_fd, name) != "folder":
        return
    for top, _, files, fd in os.fwalk(name, dir_fd=out_fd, follow_symlinks=False):
        for file in files:
            rel = f"{top}/{file}".split("/", 1)[1]
            try:
                st = os.stat(file, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if rel in skip or not stat.S_ISREG(st.st_mode) or file.endswith(".tmp"):
                continue
            parts = rel.split("/")
            with safefs.folder(new, "/".join(parts[:-1])) as into:
                try:  # the same bytes, already on disk: nothing to copy or sync
                    os.link(file, parts[-1], src_dir_fd=fd, dst_dir_fd=into, follow_symlinks=False)
                except OSError:
                    _write_in(into, parts[-1], [safefs.read_in(fd, file)])


def _write_synced(folder: int, rel: str, data) -> None:
    """Write bytes (or pieces of bytes) to `rel` in the new staging folder `folder` (a new
    file, created exclusively) and sync them to disk; an OSError names the file."""
    parts = Path(rel).parts
    if not parts or Path(rel).is_absolute() or ".." in parts:
        raise ValueError(f"an output file must lie inside its folder, not at {rel!r}")
    try:
        with safefs.folder(folder, "/".join(parts[:-1])) as fd:
            _write_in(fd, parts[-1], [data] if isinstance(data, bytes) else data)
    except OSError as exc:
        exc.filename = rel
        raise


def _write_in(fd: int, name: str, pieces) -> None:
    with open(safefs.new_file(fd, name), "wb") as fh:
        for piece in pieces:
            fh.write(piece)
        fh.flush()
        os.fsync(fh.fileno())


def _fsync(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a folder; the renames are still atomic


_RENAME_EXCHANGE = 2
@functools.cache
def _libc() -> ctypes.CDLL | None:
    """The C library, when it has renameat2 (glibc 2.28 and later): loaded once, a process fact."""
    try:
        libc = c_library("libc.so.6", "c", use_errno=True)
        libc.renameat2  # noqa: B018 - glibc 2.28 and later
    except (OSError, AttributeError):
        return None
    return libc


def _exchange(dir_fd: int, a: str, b: str) -> bool:
    """Swap two folders of `dir_fd` in one atomic step (Linux renameat2 RENAME_EXCHANGE);
    False if unsupported."""
    libc = _libc()
    if libc is None:
        return False
    if libc.renameat2(dir_fd, os.fsencode(a), dir_fd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), b)


def _swap_in(parent: int, new: str, name: str, old: str, keep: str | None = None) -> None:
    """Put `new` at `name` (both in the folder `parent`) as one step; the previous folder is
    removed after (or renamed `keep`); a link or a file at `name` is replaced, never followed."""
    if _kind(parent, name) == "folder":
        if not _exchange(parent, new, name):
            os.rename(name, old, src_dir_fd=parent, dst_dir_fd=parent)  # a reader misses it only until the next rename
            os.rename(new, name, src_dir_fd=parent, dst_dir_fd=parent)
            new = old
        _fsync(parent)
        if keep is not None:
            _quietly(safefs.remove_in, parent, keep)
            os.rename(new, keep, src_dir_fd=parent, dst_dir_fd=parent)
            return
        _quietly(safefs.remove_in, parent, new)  # after the exchange, `new` holds the previous set
    else:
        safefs.remove_in(parent, name)
        os.rename(new, name, src_dir_fd=parent, dst_dir_fd=parent)
        _fsync(parent)


def _read_manifest(parent: int, name: str) -> list[dict]:
    """The files the manifest of the real folder `name` lists (none through a link)."""
    try:
        with safefs.folder(parent, name, make=False) as fd:
            return list(json.loads(safefs.read_in(fd, "manifest.json").decode("utf-8")).get("files", []))
    except (OSError, ValueError, AttributeError, safefs.InputError):
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
    with _out_folder(out_dir) as out_fd, _lock(out_fd, out_dir, game_id), \
            _out_folder(exports, base=out_dir.parent) as exports_fd:
        old = _read_manifest(exports_fd, target)
        new_paths = {f.path for f in files}
        manifest = {"game": game_id, "target": target, **(summary or {}),
                    "files": sorted((f.manifest() for f in files), key=lambda e: e["path"])}

        def fill(new: int) -> None:
            for f in files:
                _write_synced(new, f.path, f.data)
            _carry_over(exports_fd, target, new, skip=new_paths | {e.get("path") for e in old} | {"manifest.json"})
            _write_synced(new, "manifest.json", (json.dumps(manifest, indent=1, ensure_ascii=False) + "\n").encode())

        replace_set(exports_fd, exports, target, fill)
    return [folder / f.path for f in files] + [folder / "manifest.json"]


def write_calibration(out_dir: Path, name: str, data: bytes) -> Path:
    """The duplex calibration page: output/calibration/<name> (it belongs to no game)."""
    path = out_dir / "calibration" / name
    write_atomic(out_dir.parent, path, data)
    return path
