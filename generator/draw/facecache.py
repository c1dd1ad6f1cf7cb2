"""The face cache: drawn bundles of faces kept under `output/.cache/faces/`, content-addressed.

In: a bundle key (sha256 hex of everything that decides the bundle's pixels), the
bundle's PDF bytes and what else its drawing found that a later build must say again
(the pictures its faces place: the print-quality warnings). Out: the same on a later
build, or None. A `Store` (diskstore.py: one format with the picture store, entries
`faces/<key[:2]>/<key>.pdf` of two fields, the PDF and its notes, tagged with this
machine's cache key; a damaged or planted entry is treated as missing and removed; the
least recently used pruned past the limit; no link ever followed).

This is the one place besides export that writes files during a build; it writes only
inside output/.cache/, and nothing it holds is ever needed (a cold build remakes it).
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..diskstore import Store
from ..errors import OutputError

LIMIT_BYTES = 500 * 1024 * 1024


class FaceCache(Store):
    def __init__(self, folder: Path, limit_bytes: int = LIMIT_BYTES, base: Path | None = None):
        super().__init__(folder, "faces", limit_bytes, base, suffix=".pdf")

    def get(self, key: str) -> bytes | None:
        """The bundle stored under `key`, or None when absent or damaged."""
        found = self.entry(key)
        return None if found is None else found[0]

    def entry(self, key: str) -> tuple[bytes, bytes] | None:
        """(the bundle, its notes) stored under `key`, or None when absent, damaged or not
        made with this machine's cache key (never used: remade by this build)."""
        found = self.fields(key, touch=True)
        if found is None or len(found) != 2:
            return None
        return found[0], found[1]

    def read(self, key: str) -> bytes | None:
        """The bundle stored under `key` if present and whole (its time not touched)."""
        found = self.fields(key)
        return None if found is None or len(found) != 2 else found[0]

    def put(self, key: str, data: bytes, notes: bytes = b"") -> None:
        """Store `data` and its `notes` under `key` atomically (a reader sees the whole entry or none)."""
        try:
            self.write(key, data, notes)
        except OSError as exc:
            raise OutputError(f"cannot write the face cache in {self.folder}: {exc.strerror or exc}") from None


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
