"""The picture store: prepared pictures kept under `output/.cache/pictures/`, content-addressed.

In: a picture's sha256, the pixel size it is prepared to and the `Policy`; a `Prepared`
picture to keep. Out: the same picture on a later build (or in another drawing worker),
so a picture is resampled once, not at every draw; None when absent or damaged. Each
entry is `pictures/<key[:2]>/<key>`: a line saying what it is, then the prepared bytes
(nothing for a picture that passes through as it is: the source is the source), checked
against the picture's sha256 when read. Written under a temporary name and renamed, so a
killed build leaves at most a `.tmp` file; the folder is pruned like the face cache, least
recently used first. Nothing it holds is ever needed: a cold build remakes it.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import PIL

from ..errors import OutputError
from .facecache import prune_folder
from .pictures import Policy, Prepared

LIMIT_BYTES = 500 * 1024 * 1024


class PictureStore:
    def __init__(self, folder: Path | str, limit_bytes: int = LIMIT_BYTES):
        self.folder = Path(folder)
        self.limit = limit_bytes

    @staticmethod
    def key(source_sha: str, size: tuple[int, int] | None, policy: Policy) -> str:
        """What names a prepared picture: its source, the size wanted and how it is made."""
        made = f"{source_sha} {size} {policy.digest()} pillow {PIL.__version__}"
        return hashlib.sha256(made.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / key

    def get(self, key: str, source: bytes) -> Prepared | None:
        """The picture stored under `key` (`source`: its bytes, for a passthrough), or None."""
        path = self._path(key)
        try:
            blob = path.read_bytes()
        except OSError:
            return None
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
        if len(alpha) != n_alpha or hashlib.sha256(data + alpha).hexdigest() != uid:
            path.unlink(missing_ok=True)   # damaged on disk: made again by this build
            return None
        try:
            os.utime(path)   # recently used: kept longest by prune()
        except OSError:
            pass
        return Prepared(kind, data, (int(w), int(h)), how, alpha, uid,
                        tuple(n for n in notes.decode().split("\t") if n))

    def put(self, key: str, p: Prepared) -> None:
        """Keep `p` under `key`, atomically (a reader sees the whole entry or none)."""
        data = b"" if p.how == "passthrough" else p.data
        path = self._path(key)
        tmp = path.with_name(f".{key}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as fh:
                fh.write(f"{p.kind} {p.how} {p.size[0]} {p.size[1]} {p.uid} {len(data)} {len(p.alpha)}\n".encode())
                fh.write("\t".join(p.notes).encode() + b"\n")
                fh.write(data)
                fh.write(p.alpha)
            os.replace(tmp, path)
        except OSError as exc:
            raise OutputError(f"cannot write the picture store in {self.folder}: {exc.strerror or exc}") from None
        finally:
            tmp.unlink(missing_ok=True)

    def prune(self, stale_tmp_seconds: float = 3600) -> int:
        """Remove least recently used entries until the store fits its limit; return how many."""
        return prune_folder(self.folder, self.limit, stale_tmp_seconds=stale_tmp_seconds)
