"""The picture store: prepared pictures kept under `output/.cache/pictures/`, content-addressed.

In: a picture's sha256, the pixel size it is prepared to and the `Policy`; a `Prepared`
picture to keep. Out: the same picture on a later build (or in another drawing worker),
so a picture is resampled once, not at every draw; None when absent or damaged. A
`Store` (diskstore.py: one format with the face cache, entries `pictures/<key[:2]>/<key>`
of four fields: a line saying what the picture is, its remarks, the prepared bytes
(nothing for a picture that passes through as it is: the source is the source) and its
alpha), tagged with this machine's cache key and checked with the picture's sha256 when
read (an entry planted in a checkout is never used); pruned like the face cache, least
recently used first. Nothing it holds is ever needed: a cold build remakes it.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import PIL

from ..diskstore import Store
from ..errors import OutputError
from .pictures import Policy, Prepared

LIMIT_BYTES = 500 * 1024 * 1024


class PictureStore(Store):
    def __init__(self, folder: Path | str, limit_bytes: int = LIMIT_BYTES, base: Path | str | None = None):
        super().__init__(folder, "pictures", limit_bytes, base)

    @staticmethod
    def key(source_sha: str, size: tuple[int, int] | None, policy: Policy) -> str:
        """What names a prepared picture: its source, the size wanted and how it is made."""
        made = f"{source_sha} {size} {policy.digest()} pillow {PIL.__version__}"
        return hashlib.sha256(made.encode()).hexdigest()

    def get(self, key: str, source: bytes) -> Prepared | None:
        """The picture stored under `key` (`source`: its bytes, for a passthrough), or None
        (absent, damaged, or not made with this machine's cache key)."""
        found = self.fields(key, touch=True)
        if found is None:
            return None
        try:
            head, notes, stored, alpha = found
            kind, how, w, h, uid = head.decode().split()
            size = (int(w), int(h))
            remarks = tuple(n for n in notes.decode().split("\t") if n)
        except (ValueError, UnicodeDecodeError):
            self.drop(key)
            return None
        data = source if how == "passthrough" else stored
        if hashlib.sha256(data + alpha).hexdigest() != uid:
            self.drop(key)   # not the picture it names: made again by this build
            return None
        return Prepared(kind, data, size, how, alpha, uid, remarks)

    def put(self, key: str, p: Prepared) -> None:
        """Keep `p` under `key`, atomically (a reader sees the whole entry or none)."""
        data = b"" if p.how == "passthrough" else p.data
        head = f"{p.kind} {p.how} {p.size[0]} {p.size[1]} {p.uid}".encode()
        try:
            self.write(key, head, "\t".join(p.notes).encode(), data, p.alpha)
        except OSError as exc:
            raise OutputError(f"cannot write the picture store in {self.folder}: {exc.strerror or exc}") from None
