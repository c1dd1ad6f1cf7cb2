"""The picture store: prepared pictures kept under `output/.cache/pictures/`, content-addressed.

In: a picture's sha256, the pixel size it is prepared to and the `Policy`; a `Prepared`
picture to keep. Out: the same picture on a later build (or in another drawing worker),
so a picture is resampled once, not at every draw; None when absent or damaged. Each
entry is `pictures/<key[:2]>/<key>`: a line saying what it is, then the prepared bytes
(nothing for a picture that passes through as it is: the source is the source), then a
BLAKE2b tag of all that keyed with this machine's cache key, checked with the picture's
sha256 when read (an entry planted in a checkout is never used). Written under a
temporary name and renamed, never through a link, so a killed build leaves at most a
`.tmp` file; the folder is pruned like the face cache, least recently used first.
Nothing it holds is ever needed: a cold build remakes it.
"""
from __future__ import annotations

import hashlib
import hmac
import re
from pathlib import Path

import PIL

from .. import safefs
from ..errors import OutputError
from .facecache import Store
from .pictures import Policy, Prepared

LIMIT_BYTES = 500 * 1024 * 1024
ENTRY = re.compile(r"[0-9a-f]{64}")
_DIGEST = 32


class PictureStore(Store):
    def __init__(self, folder: Path | str, limit_bytes: int = LIMIT_BYTES, base: Path | str | None = None):
        super().__init__(folder, limit_bytes, Path(base) if base is not None else None, ENTRY)

    @staticmethod
    def key(source_sha: str, size: tuple[int, int] | None, policy: Policy) -> str:
        """What names a prepared picture: its source, the size wanted and how it is made."""
        made = f"{source_sha} {size} {policy.digest()} pillow {PIL.__version__}"
        return hashlib.sha256(made.encode()).hexdigest()

    def get(self, key: str, source: bytes) -> Prepared | None:
        """The picture stored under `key` (`source`: its bytes, for a passthrough), or None
        (absent, damaged, or not made with this machine's cache key)."""
        found = self.read_entry(key[:2], key, touch=True)
        if found is None:
            return None
        blob, digest = found[:-_DIGEST], found[-_DIGEST:]
        try:
            head, _, body = blob.partition(b"\n")
            notes, _, body = body.partition(b"\n")
            kind, how, w, h, uid, data_bytes, alpha_bytes = head.decode().split()
            n_data, n_alpha = int(data_bytes), int(alpha_bytes)
            data = source if how == "passthrough" else body[:n_data]
            alpha = body[n_data:n_data + n_alpha]
        except (ValueError, UnicodeDecodeError):
            notes = b""
            kind = how = w = h = uid = ""
            data = alpha = b""
            n_alpha = -1
        if len(alpha) != n_alpha or hashlib.sha256(data + alpha).hexdigest() != uid \
                or not hmac.compare_digest(safefs.tag(f"pictures/{key}", blob), digest):
            self.drop_entry(key[:2], key)   # damaged or planted: made again by this build
            return None
        return Prepared(kind, data, (int(w), int(h)), how, alpha, uid,
                        tuple(n for n in notes.decode().split("\t") if n))

    def put(self, key: str, p: Prepared) -> None:
        """Keep `p` under `key`, atomically (a reader sees the whole entry or none)."""
        data = b"" if p.how == "passthrough" else p.data
        blob = b"".join((f"{p.kind} {p.how} {p.size[0]} {p.size[1]} {p.uid} {len(data)} {len(p.alpha)}\n".encode(),
                         "\t".join(p.notes).encode() + b"\n", data, p.alpha))
        try:
            self.write_entry(key[:2], key, blob + safefs.tag(f"pictures/{key}", blob))
        except OSError as exc:
            raise OutputError(f"cannot write the picture store in {self.folder}: {exc.strerror or exc}") from None
