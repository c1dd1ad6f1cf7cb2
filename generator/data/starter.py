"""`pnp new` and `pnp schema`: a small working game to start from, and the JSON Schemas
editors use to complete and check the YAML.

In: a project folder and a game id. Out: files written into the designer's project (these
are explicit commands, not a build): `cards/<game>/` and `templates/<game>/` copied from
`generator/assets/skeleton/` with the game's id and title filled in, `templates/_shared/`
(pnp's shared macros, `generator/assets/shared/`, for the designer to change) when the project
has none, `schemas/*.schema.json`, which the `# yaml-language-server: $schema=` line at
the top of each YAML file points at, and a `.gitignore` keeping what pnp makes (output/ and
its caches) out of git (added to a project's own when that does not name output/). A bare
game (`--bare`) is the card deck alone: no tokens, rules file, rulebook or README.
Everything is read from inside the package, so an installed `pnp` starts a project in any
folder.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from .. import safefs
from ..errors import InputError
from .schema import SCHEMA_DIR

SKELETON = Path(__file__).parents[1] / "assets" / "skeleton"
SHARED = Path(__file__).parents[1] / "assets" / "shared"  # pnp's own shared macros (and icons)
SCHEMAS = ("game", "deck", "rules", "translation")
GAME_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
BARE_LEFT_OUT = ("cards/README.md", "cards/rulebook.md", "cards/rules.yaml", "cards/tokens.yaml",
                 "templates/token.svg.j2")
GITIGNORE = """# written by `pnp new`: what pnp makes from your files (PDFs, pictures, caches), not your files
/output/
.cache/
__pycache__/
"""


def write_schemas(root: Path, only_changed: bool = False) -> list[Path]:
    """Copy pnp's JSON Schemas into `root/schemas/` (only files whose content changed); returns
    every schema's path, or (`only_changed`) those that were missing or different."""
    folder = root / "schemas"
    written = []
    with safefs.folder(root, "schemas") as fd:
        for name in SCHEMAS:
            source, target = SCHEMA_DIR / f"{name}.schema.json", folder / f"{name}.schema.json"
            data = source.read_bytes()
            try:
                same = safefs.read_in(fd, target.name) == data
            except OSError:
                same = False
            if not same:
                safefs.write_in(fd, target.name, data)
            if not (same and only_changed):
                written.append(target)
    return written


def new_game(root: Path, game_id: str, title: str | None = None, bare: bool = False) -> list[Path]:
    """Write a starter game `game_id` into the project at `root` (`bare`: its card deck
    alone); returns the files written.

    :raises InputError: for a bad id or when the game's folders already exist (nothing is
        overwritten).
    """
    if not GAME_ID.match(game_id):
        raise InputError(f"'{game_id}' is not a game id: use lower-case letters, digits and '-' "
                         "(it names the folders cards/<game>/ and templates/<game>/)")
    title = title or game_id.replace("-", " ").title()
    targets = [root / "cards" / game_id, root / "templates" / game_id]
    taken = [str(t.relative_to(root)) for t in targets if os.path.lexists(t)]
    if taken:
        raise InputError(f"{' and '.join(taken)} already exist{'s' if len(taken) == 1 else ''}; "
                         "pnp new never overwrites a game")
    written = []
    for part in ("cards", "templates"):
        for source in sorted((SKELETON / part / "__GAME__").rglob("*")):
            if not source.is_file():
                continue
            inside = source.relative_to(SKELETON / part / "__GAME__")
            if bare and f"{part}/{inside}" in BARE_LEFT_OUT:
                continue
            target = root / part / game_id / inside
            text = source.read_text(encoding="utf-8")
            if bare and inside.name == "game.yaml":   # no tokens deck, no rules file, no rulebook
                text = re.sub(r"(?m)^(rules|rulebook):.*\n|^  - tokens\.yaml.*\n", "", text)
            safefs.write_file(root, target, text.replace("__GAME__", game_id).replace("__TITLE__", title).encode())
            written.append(target)
    shared = root / "templates" / "_shared"
    if not (shared / "macros.j2").is_file():
        for source in sorted(SHARED.rglob("*")):
            if source.is_file():
                safefs.write_file(root, shared / source.relative_to(SHARED), source.read_bytes())
                written.append(shared / source.relative_to(SHARED))
    written.extend(write_schemas(root))
    ignore = _gitignore(root)
    if ignore is not None:
        safefs.write_file(root, ".gitignore", ignore.encode())
        written.append(root / ".gitignore")
    return written


def _gitignore(root: Path) -> str | None:
    """The project's .gitignore with pnp's output left out of git, or None when it is so already."""
    path = root / ".gitignore"
    if not os.path.lexists(path):
        return GITIGNORE
    if path.is_symlink() or not path.is_file():
        return None    # never written through a link
    text = path.read_text(encoding="utf-8", errors="replace")
    if re.search(r"(?m)^/?output/?(\*)?\s*$", text):
        return None
    return text + ("" if text.endswith("\n") or not text else "\n") + "\n" + GITIGNORE
