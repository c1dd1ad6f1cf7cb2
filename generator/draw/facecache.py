"""The face cache: drawn bundles of faces kept under `output/.cache/faces/`, content-addressed.

In: a bundle key (sha256 hex of everything that decides the bundle's pixels), the
bundle's PDF bytes and what else its drawing found that a later build must say again
(the pictures its faces place: the print-quality warnings). Out: the same on a later
build, or None. Each entry is `faces/<key[:2]>/<key>.pdf`: the PDF, those notes, their
length (4 bytes) and a 32-byte BLAKE2b of the key and all that, keyed with this
machine's cache key (safefs.cache_key, kept outside the project), written to a temporary
name and renamed into place: a build killed mid-write leaves at most a `.tmp` file
(ignored and later pruned), and an entry whose tag does not match (damaged, planted in a
checkout, made under another key) is treated as missing and removed. The folder is
bounded: after each build the least recently used entries (by mtime, refreshed on every
hit) are removed until the total is under the limit, in a folder pnp made (its
CACHEDIR.TAG) and only files named as entries. No link is ever followed (safefs.py).

This is the one place besides export that writes files during a build; it writes only
inside output/.cache/, and nothing it holds is ever needed (a cold build remakes it).
"""
from __future__ import annotations

import hmac
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path

from .. import safefs
from ..errors import OutputError

LIMIT_BYTES = 500 * 1024 * 1024
_DIGEST = 32
ENTRY = re.compile(r"[0-9a-f]{64}\.pdf")
_SHARD = re.compile(r"[0-9a-f]{2}")
_TMP = re.compile(r"\..+\.tmp")


class Store:
    """A folder of entries `folder/<key[:2]>/<name>` written and read without following a
    link: `base` is the trusted folder it lies in (the one holding output/; by default the
    nearest folder there is above it: commands always name it), `entry` the pattern of its
    entries' names (the only files it prunes)."""

    def __init__(self, folder: Path | str, limit_bytes: int, base: Path | None, entry: re.Pattern):
        self.folder = Path(folder)
        self.base = Path(base) if base is not None else next(
            p for p in self.folder.parents if p.is_dir())
        self.limit = limit_bytes
        self.pattern = entry

    def read_entry(self, shard: str, name: str, touch: bool = False) -> bytes | None:
        try:
            with safefs.folder(self.base, self.folder / shard, make=False) as fd:
                return safefs.read_in(fd, name, touch)
        except OSError:
            return None

    def write_entry(self, shard: str, name: str, body: bytes) -> None:
        fd = safefs.cache_folder(self.base, self.folder)
        try:
            with safefs.folder(self.base, self.folder / shard) as into:
                safefs.write_in(into, name, body)
        finally:
            os.close(fd)

    def drop_entry(self, shard: str, name: str) -> None:
        try:
            with safefs.folder(self.base, self.folder / shard, make=False) as fd:
                safefs.remove_in(fd, name)
        except OSError:
            pass

    def prune(self, keep=frozenset(), stale_tmp_seconds: float = 3600) -> int:
        """Remove the least recently written entries until they hold at most the limit, never
        those named in `keep`, and the `.tmp` files a killed run left more than
        `stale_tmp_seconds` ago; return how many entries went. Only in a folder pnp made
        (its CACHEDIR.TAG), only names of the store's own pattern, never through a link."""
        try:
            top = safefs.open_folder(self.base, self.folder, make=False)
        except (OSError, safefs.InputError):
            return 0
        try:
            return _prune(top, self.pattern, self.limit, keep, stale_tmp_seconds) if safefs.is_pnp_cache(top) else 0
        finally:
            os.close(top)

    def size(self) -> int:
        return sum(p.stat().st_size for p in self.folder.glob("*/*") if self.pattern.fullmatch(p.name))


def _prune(top: int, pattern: re.Pattern, limit: int, keep, stale_tmp_seconds: float) -> int:
    import stat

    found, total, removed = [], 0, 0
    now = time.time()
    shards = []
    try:
        for shard, st in safefs.entries(top):
            if _SHARD.fullmatch(shard) and stat.S_ISDIR(st.st_mode):
                shards.append(safefs.open_folder(top, shard, make=False))
        for fd in shards:
            for name, st in safefs.entries(fd):
                if not stat.S_ISREG(st.st_mode):
                    continue
                if _TMP.fullmatch(name):   # left by a killed build
                    if now - st.st_mtime > stale_tmp_seconds:
                        os.unlink(name, dir_fd=fd)
                elif pattern.fullmatch(name):
                    found.append((st.st_mtime, name, fd, st.st_size))
                    total += st.st_size
        for _, name, fd, size in sorted(found, key=lambda e: e[:2]):
            if total <= limit:
                break
            if name in keep:
                continue
            try:
                os.unlink(name, dir_fd=fd)
            except FileNotFoundError:
                pass
            total -= size
            removed += 1
    finally:
        for fd in shards:
            os.close(fd)
    return removed


class FaceCache(Store):
    def __init__(self, folder: Path, limit_bytes: int = LIMIT_BYTES, base: Path | None = None):
        super().__init__(folder, limit_bytes, base, ENTRY)
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> bytes | None:
        """The bundle stored under `key`, or None when absent or damaged."""
        found = self.entry(key)
        return None if found is None else found[0]

    def entry(self, key: str) -> tuple[bytes, bytes] | None:
        """(the bundle, its notes) stored under `key`, or None when absent, damaged or not
        made with this machine's cache key (never used: remade by this build)."""
        blob = self.read_entry(key[:2], f"{key}.pdf", touch=True)
        found = None if blob is None else _unpack(key, blob)
        if found is None:
            if blob is not None:
                self.drop_entry(key[:2], f"{key}.pdf")
            self.misses += 1
            return None
        self.hits += 1
        return found

    def read(self, key: str) -> bytes | None:
        """The bundle stored under `key` if present and whole (nothing counted or touched)."""
        blob = self.read_entry(key[:2], f"{key}.pdf")
        found = None if blob is None else _unpack(key, blob)
        return None if found is None else found[0]

    def put(self, key: str, data: bytes, notes: bytes = b"") -> None:
        """Store `data` and its `notes` under `key` atomically (a reader sees the whole entry or none)."""
        body = data + notes + len(notes).to_bytes(4, "big")
        try:
            self.write_entry(key[:2], f"{key}.pdf", body + safefs.tag(f"faces/{key}", body))
        except OSError as exc:
            raise OutputError(f"cannot write the face cache in {self.folder}: {exc.strerror or exc}") from None

    def prune(self, stale_tmp_seconds: float = 3600, keep=()) -> int:  # type: ignore[override]
        """Remove least recently used entries until the cache fits its limit, never the bundles
        `keep` (the last build's, which its results still read); return how many."""
        return super().prune({f"{key}.pdf" for key in keep}, stale_tmp_seconds)


def _unpack(key: str, blob: bytes) -> tuple[bytes, bytes] | None:
    """(PDF, notes) of a whole entry made with this machine's key; None for any other."""
    body, digest = blob[:-_DIGEST], blob[-_DIGEST:]
    if len(blob) < _DIGEST + 4 or not hmac.compare_digest(safefs.tag(f"faces/{key}", body), digest):
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
