"""Which games a list of changed files touches: what a pre-commit hook or a pull request's CI
checks, and nothing else.

In: file names as git gives them (relative to `base`, the folder they are named from: a
repository's top, where pre-commit and `git diff --name-only` start). Out: the pnp projects
they fall in (a folder holding `cards/`, the repository's top or one below it), each with
its touched games: `cards/<game>/...` or `templates/<game>/...` touches that game,
`templates/_shared/...` every game of the project, `schemas/...` none (the project only).
A game whose folder is gone (deleted by the change) is not named; any other file is no
game's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .load import list_games

SHARED = "_shared"


@dataclass
class Touched:
    """One project's share of the changed files: its games (sorted), or every game."""

    root: Path
    games: set[str] = field(default_factory=set)
    every_game: bool = False

    def names(self) -> list[str]:
        """The games to check, in the project's own order (every game when `every_game`)."""
        known = list_games(self.root)
        return known if self.every_game else [g for g in known if g in self.games]


def touched(base: Path, paths) -> list[Touched]:
    """The projects the changed `paths` fall in, in the order first met, with their games."""
    found: dict[Path, Touched] = {}
    for name in paths:
        parts = PurePosixPath(str(name).replace("\\", "/")).parts
        for i, part in enumerate(parts[:-1]):
            if part not in ("cards", "templates", "schemas"):
                continue
            root = base.joinpath(*parts[:i])
            if not (root / "cards").is_dir():
                continue
            entry = found.setdefault(root, Touched(root))
            inner = parts[i + 1:-1]   # the folders between cards/ (templates/) and the file
            if part == "templates" and inner[:1] == (SHARED,):
                entry.every_game = True
            elif part != "schemas" and inner:
                entry.games.add(inner[0])
            break
    return list(found.values())
