"""The output folder a command writes into, made ready: the fonts' cache, the face cache.

In: the output folder (output/, or --output). Out: `prepare_output` (the folder and the
fonts' cache ready), `face_cache_ready` (the face cache every command that draws faces
draws through: `pnp build`, `validate`, `diff`, `export`, `kit`, `check colour`) and
`drawn_through_cache` (a command that draws, its caches pruned to their bounds once done).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from . import safefs
from .draw import fonts
from .errors import OutputError

if TYPE_CHECKING:
    from .draw.facecache import FaceCache


def face_cache_ready(out_dir: Path) -> FaceCache:
    """The face cache of a build into `out_dir` (output/.cache/faces), the output folder
    made ready for it (`prepare_output`): what `pnp build`, `validate`, `diff`, `export` and `kit` draw through."""
    from .draw.facecache import FaceCache

    cache = FaceCache(out_dir / ".cache" / "faces", base=out_dir.parent)
    prepare_output(out_dir, cache)
    return cache


@contextmanager
def drawn_through_cache(out_dir: Path):
    """`with drawn_through_cache(out_dir) as (cache, drawn):` a command that draws faces
    (`pnp build`, `export`, `kit`) draws them through the face cache (`face_cache_ready`) and
    adds the keys of the bundles it read to `drawn`; once it is done, the face cache and the
    picture store are pruned to their bounds, never of what it read."""
    from .draw.picturestore import PictureStore

    cache = face_cache_ready(out_dir)
    drawn: list[str] = []
    yield cache, drawn
    cache.prune(keep=drawn)
    PictureStore(out_dir / ".cache" / "pictures", base=out_dir.parent).prune()


def prepare_output(out_dir: Path, cache: FaceCache | None = None) -> None:
    """The output folder ready for a build: the fonts' cache, and the face cache's folder."""
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)   # the project, or where an --output named lies
        fonts.activate(out_dir / ".cache")
        if cache is not None:
            os.close(safefs.cache_folder(out_dir.parent, cache.folder))
    except OSError as exc:
        raise OutputError(f"cannot write to {out_dir}: {exc.strerror or exc}") from None
