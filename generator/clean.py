"""`pnp clean`: what pnp made under output/, removed.

In: the project root, game names, the output folder and whether to remove the built files
too. Out: one line per thing removed or kept. Everything goes through safefs (real
folders, never a link), and a game's folder is removed only when pnp made it.
"""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from . import safefs
from .errors import InputError
from .pipeline import resolve_games


def clean(root: Path, names=(), out_dir: Path | None = None, everything: bool = False) -> list[str]:
    """Remove output/.cache/ and, with `everything`, the named games' output folders (all
    games when none are named): only what pnp made (a game's folder holds pnp's
    manifest.json), never through a link (output/ and the folders on the way must be real
    ones: safefs.py). Returns one line per thing removed or kept."""
    out_dir = out_dir or root / "output"
    done = []
    try:
        out_fd = safefs.open_folder(out_dir.parent, out_dir, make=False)
    except FileNotFoundError:
        return ["nothing to remove"]
    try:
        kinds = dict(safefs.entries(out_fd))
        if ".cache" in kinds:
            size = safefs.size_in(out_fd, ".cache")
            safefs.remove_in(out_fd, ".cache")   # a link there is removed itself, never followed
            done.append(f"removed {out_dir / '.cache'} ({size / 1e6:.1f} MB)")
        if everything:
            games = resolve_games(root, names) if names else sorted(
                name for name, st in kinds.items() if stat.S_ISDIR(st.st_mode) and not name.startswith("."))
            for game_id in games:
                if game_id not in kinds:
                    continue
                if not _made_by_pnp(out_fd, game_id):
                    done.append(f"kept {out_dir / game_id}: pnp did not make it (no manifest.json of pnp's)")
                    continue
                safefs.remove_in(out_fd, game_id)
                done.append(f"removed {out_dir / game_id}")
    finally:
        os.close(out_fd)
    return done or ["nothing to remove"]


def _made_by_pnp(out_fd: int, name: str) -> bool:
    """True for a real folder holding a manifest.json pnp wrote (a file naming the game)."""
    try:
        with safefs.folder(out_fd, name, make=False) as fd:
            return json.loads(safefs.read_in(fd, "manifest.json").decode("utf-8")).get("game") == name
    except (OSError, ValueError, AttributeError, InputError):
        return False

