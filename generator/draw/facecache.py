"""The face cache: drawn bundles of faces kept under `output/.cache/faces/`, content-addressed.

In: a bundle key (sha256 hex of everything that decides the bundle's pixels), the
bundle's PDF bytes and what else its drawing found that a later build must say again
(the pictures its faces place: the print-quality warnings). Out: the same on a later
build, or None. Each entry is `faces/<key[:2]>/<key>.pdf`: the PDF, those notes, their
length (4 bytes) and a 32-byte sha256 of all that, written to a temporary name and
renamed into place: a build killed mid-write leaves at most a
`.tmp` file (ignored and later pruned), and an entry whose checksum does not match is
treated as missing and removed. The folder is bounded: after each build the least
recently used entries (by mtime, refreshed on every hit) are removed until the total is
under the limit.

This is the one place besides export that writes files during a build; it writes only
inside output/.cache/, and nothing it holds is ever needed (a cold build remakes it).
"""
from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from pathlib import Path

from ..errors import OutputError

LIMIT_BYTES = 500 * 1024 * 1024
_DIGEST = 32


class FaceCache:
    def __init__(self, folder: Path, limit_bytes: int = LIMIT_BYTES):
        self.folder = Path(folder)
        self.limit = limit_bytes
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.pdf"

    def get(self, key: str) -> bytes | None:
        """The bundle stored under `key`, or None when absent or damaged."""
        found = self.entry(key)
        return None if found is None else found[0]

    def entry(self, key: str) -> tuple[bytes, bytes] | None:
        """(the bundle, its notes) stored under `key`, or None when absent or damaged."""
        path = self._path(key)
        try:
            found = _unpack(path.read_bytes())
        except OSError:
            self.misses += 1
            return None
        if found is None:
            path.unlink(missing_ok=True)  # damaged on disk: never used, remade by this build
            self.misses += 1
            return None
        try:
            os.utime(path)  # recently used: kept longest by prune()
        except OSError:
            pass
        self.hits += 1
        return found

    def read(self, key: str) -> bytes | None:
        """The bundle stored under `key` if present and whole (nothing counted or touched)."""
        try:
            found = _unpack(self._path(key).read_bytes())
        except OSError:
            return None
        return None if found is None else found[0]

    def put(self, key: str, data: bytes, notes: bytes = b"") -> None:
        """Store `data` and its `notes` under `key` atomically (a reader sees the whole entry or none)."""
        path = self._path(key)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            body = data + notes + len(notes).to_bytes(4, "big")
            with open(tmp, "wb") as fh:
                fh.write(body + hashlib.sha256(body).digest())
            os.replace(tmp, path)
        except OSError as exc:
            raise OutputError(f"cannot write the face cache in {self.folder}: {exc.strerror or exc}") from None
        finally:
            tmp.unlink(missing_ok=True)

    def prune(self, stale_tmp_seconds: float = 3600, keep=()) -> int:
        """Remove least recently used entries until the cache fits its limit, never the bundles
        `keep` (the last build's, which its results still read); return how many."""
        return prune_folder(self.folder, self.limit, {f"{key}.pdf" for key in keep}, stale_tmp_seconds)

    def size(self) -> int:
        return sum(p.stat().st_size for p in self.folder.glob("*/*.pdf"))


def prune_folder(folder: Path, limit: int, keep=frozenset(), stale_tmp_seconds: float = 3600) -> int:
    """Remove the least recently written entries of a store of `folder/xx/name` files until
    they hold at most `limit` bytes, never those named in `keep`, and `.tmp` files a killed
    run left more than `stale_tmp_seconds` ago; return how many entries went."""
    entries, total, removed = [], 0, 0
    now = time.time()
    for path in folder.glob("*/*"):
        try:
            st = path.stat()
        except OSError:
            continue
        if path.name.endswith(".tmp"):  # left by a killed build
            if now - st.st_mtime > stale_tmp_seconds:
                path.unlink(missing_ok=True)
            continue
        entries.append((st.st_mtime, path.name, path, st.st_size))
        total += st.st_size
    for _, name, path, size in sorted(entries):
        if total <= limit:
            break
        if name in keep:
            continue
        path.unlink(missing_ok=True)
        total -= size
        removed += 1
    return removed


def _unpack(blob: bytes) -> tuple[bytes, bytes] | None:
    """(PDF, notes) of a whole entry; None for a damaged one."""
    body, digest = blob[:-_DIGEST], blob[-_DIGEST:]
    if len(blob) < _DIGEST + 4 or hashlib.sha256(body).digest() != digest:
        return None
    n = int.from_bytes(body[-4:], "big")
    if n > len(body) - 4:
        return None
    end = len(body) - 4 - n
    return body[:end], body[end:-4]


class Bundles(Sequence):
    """The face bundles of a build, as a sequence of PDF bytes: those stored in the face cache
    are read back from it each time they are asked for, so a build of thousands of faces does
    not hold them all in memory; the others (no cache, or drawn with problems) are held."""

    def __init__(self, cache: FaceCache | None, entries: list):
        self.cache = cache
        self.entries = tuple(entries)   # bytes, or the cache key of a stored bundle

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        entry = self.entries[index]
        if isinstance(entry, bytes):
            return entry
        data = self.cache.read(entry)
        if data is None:
            raise OutputError(f"a bundle of faces vanished from {self.cache.folder} during the build (was the "
                              "cache cleared meanwhile?): build again")
        return data

    def __eq__(self, other):   # (which leaves it unhashable, as a list is)
        return isinstance(other, Sequence) and len(self) == len(other) and all(
            a == b for a, b in zip(self, other))

    def keys(self) -> list[str]:
        """The cache keys of the stored bundles."""
        return [e for e in self.entries if isinstance(e, str)]
