"""The one content-addressed disk store of pnp: the face cache (`output/.cache/faces/`,
draw/facecache.py) and the picture store (`output/.cache/pictures/`, draw/picturestore.py)
are each a `Store` in a subfolder of its own, with one format.

In: a key (sha256 hex of everything that decides what is stored) and the fields of an
entry (byte strings: a bundle's PDF and its notes, a picture's description and pixels).
Out: the same fields on a later build (or in another drawing worker), or None. Each entry
is `<folder>/<key[:2]>/<key><suffix>`: its fields one after the other, each field's
length (4 bytes), how many fields (1 byte), and a 32-byte BLAKE2b of the format, the
key and all that, keyed with this machine's cache key (safefs.cache_key, kept outside the project).
An entry whose tag does not match (damaged, torn, planted in a checkout, made under
another key) is treated as missing and removed. Entries are written to a temporary name
and renamed into place, never through a link (safefs.py: folders opened by their fds,
O_NOFOLLOW): a build killed mid-write leaves at most a `.tmp` file, ignored and later
pruned. The folder is bounded: `prune` removes the least recently used entries (by
mtime, refreshed on every hit) until the total is under the limit, in a folder pnp made
(its CACHEDIR.TAG) and only files named as entries. Nothing a store holds is ever
needed: a cold build remakes it.
"""
from __future__ import annotations

import hmac
import os
import re
import stat
import time
from pathlib import Path

from . import safefs

_TAG = 32
FORMAT = "pnp store 1"   # part of every tag: an entry of another format is never read as one of this
_SHARD = re.compile(r"[0-9a-f]{2}")
_TMP = re.compile(r"\..+\.tmp")


def pack(name: str, fields: tuple[bytes, ...]) -> tuple[bytes, ...]:
    """An entry's bytes, in pieces written one after the other (a large field is never
    copied: a build memo's chunk is megabytes): the fields, their lengths, their number,
    the tag of all that under `name`."""
    pieces = (*fields, *(len(f).to_bytes(4, "big") for f in fields), len(fields).to_bytes(1, "big"))
    return (*pieces, safefs.tag(f"{FORMAT}: {name}", *pieces))


def unpack(name: str, blob: bytes) -> tuple[bytes, ...] | None:
    """The fields of a whole entry made under `name` with this machine's key; None for any other."""
    body, digest = blob[:-_TAG], blob[-_TAG:]
    if len(blob) < _TAG + 1 or not hmac.compare_digest(safefs.tag(f"{FORMAT}: {name}", body), digest):
        return None
    n = body[-1]
    head = len(body) - 1 - 4 * n
    lengths = [int.from_bytes(body[head + 4 * i:head + 4 * i + 4], "big") for i in range(n)]
    if head < 0 or sum(lengths) != head:
        return None
    fields, at = [], 0
    for length in lengths:
        fields.append(body[at:at + length])
        at += length
    return tuple(fields)


class Store:
    """The entries of one kind (`kind`: the subfolder's name, part of every entry's tag) in
    `folder`, written and read without following a link: `base` is the trusted folder it
    lies in (the one holding output/; by default the nearest folder there is above it:
    commands always name it); entries are named `<key><suffix>`, and no other file is
    ever pruned."""

    def __init__(self, folder: Path | str, kind: str, limit_bytes: int, base: Path | str | None = None,
                 suffix: str = ""):
        self.folder = Path(folder)
        self.base = Path(base) if base is not None else next(p for p in self.folder.parents if p.is_dir())
        self.kind = kind
        self.limit = limit_bytes
        self.suffix = suffix
        self.pattern = re.compile(r"[0-9a-f]{64}" + re.escape(suffix))

    def fields(self, key: str, touch: bool = False) -> tuple[bytes, ...] | None:
        """The fields stored under `key`, or None when absent or not whole and made with this
        machine's key (such an entry is removed: this build makes it again). `touch`: the
        entry counts as just used (pruned last)."""
        name = key + self.suffix
        try:
            with safefs.folder(self.base, self.folder / key[:2], make=False) as fd:
                blob = safefs.read_in(fd, name, touch)
        except OSError:
            return None
        found = unpack(f"{self.kind}/{key}", blob)
        if found is None:
            self.drop(key)
        return found

    def write(self, key: str, *fields: bytes) -> None:
        """Keep `fields` under `key`, atomically (a reader sees the whole entry or none).

        :raises OSError: the folder cannot be written.
        """
        fd = safefs.cache_folder(self.base, self.folder)
        try:
            with safefs.folder(self.base, self.folder / key[:2]) as into:
                safefs.write_in(into, key + self.suffix, pack(f"{self.kind}/{key}", fields))
        finally:
            os.close(fd)

    def drop(self, key: str) -> None:
        try:
            with safefs.folder(self.base, self.folder / key[:2], make=False) as fd:
                safefs.remove_in(fd, key + self.suffix)
        except OSError:
            pass

    def prune(self, keep=frozenset(), stale_tmp_seconds: float = 3600) -> int:
        """Remove the least recently written entries until they hold at most the limit, never
        those whose keys are in `keep` (the face cache: the last build's bundles, which its
        results still read), and the `.tmp` files a killed run left more than
        `stale_tmp_seconds` ago; return how many entries went. Only in a folder pnp made
        (its CACHEDIR.TAG), only names of entries, never through a link."""
        try:
            top = safefs.open_folder(self.base, self.folder, make=False)
        except (OSError, safefs.InputError):
            return 0
        try:
            if not safefs.is_pnp_cache(top):
                return 0
            return _prune(top, self.pattern, self.limit, {k + self.suffix for k in keep}, stale_tmp_seconds)
        finally:
            os.close(top)

    def size(self) -> int:
        return sum(p.stat().st_size for p in self.folder.glob("*/*") if self.pattern.fullmatch(p.name))


def _prune(top: int, pattern: re.Pattern, limit: int, keep, stale_tmp_seconds: float) -> int:
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
