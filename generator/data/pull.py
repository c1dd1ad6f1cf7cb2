"""`pnp pull`: refresh a game's local copies of spreadsheets published on the web.

In: game.yaml's `pull:` mapping, file name -> URL (a sheet published to the web as CSV, or a
Google Sheets share link, read as its CSV export), and the project folder. Out: each file
replaced in `cards/<game>/`, atomically, once every download of the game has come back as a
table that the decks reading it accept (all or nothing: on any problem no file changes).

Each download goes into a temporary file pnp creates itself in `output/.cache/pull/`, the
only files pull ever deletes; nothing in `cards/` is written but the pulled files
themselves. This is the only part of pnp that uses the network, and only when asked; `pnp
build` reads the local copy.
"""
from __future__ import annotations

import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from .. import safefs
from ..errors import InputError, Problem
from ..guard import OutsideProject, inside, is_file_inside, shorten
from .download import DownloadError, download, sheet_url
from .sheetbase import MAX_FILE_BYTES, SheetError
from .tablefile import read_table
from .yamlsrc import line_of, read_yaml

TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Pulled:
    file: Path
    rows: int
    changed: bool
    url: str = ""   # the URL downloaded (a share link's CSV export URL)


@dataclass(frozen=True)
class _Game:
    """The game one pull refreshes: the project, its id and folder, its game.yaml (read, and
    as messages name it) and the problems found so far (every download's, added to)."""
    root: Path
    game_id: str
    meta: dict
    cards_dir: Path
    shown: str
    problems: list[Problem]


class _Where(TypedDict):
    """Where a `pull:` entry is written in game.yaml, as a Problem's keywords."""
    line: int | None
    field: str


def pull_game(root: Path, game_id: str, timeout: float = TIMEOUT_S) -> list[Pulled]:
    """Download every `pull:` entry of one game.

    :param timeout: seconds each download may take, connection included.
    :raises InputError: naming the game.yaml line of each URL that failed; the files are
        replaced only when every one of them came back as a table (all or nothing).
    """
    cards_dir = root / "cards" / game_id
    shown = f"cards/{game_id}/game.yaml"
    meta = read_yaml(cards_dir / "game.yaml", shown)
    wanted = (meta.get("pull") or {}) if isinstance(meta, dict) else {}
    if not wanted or not isinstance(wanted, dict):
        raise InputError(f"{shown} has no `pull:` (file: URL of a spreadsheet published as CSV)")
    try:
        inside(root, cards_dir, f"cards/{game_id}")
    except OutsideProject as exc:
        raise InputError(str(exc)) from None
    cache = root / "output" / ".cache" / "pull"
    try:
        safefs.real_folder(root, cache)   # real folders all the way: a link on the way is refused
    except OSError as exc:
        raise InputError(f"cannot write {cache.relative_to(root)}: {exc.strerror or exc}") from None
    temps: list[Path] = []  # the temporary files this run created: the only files it deletes
    results: list[tuple[Path, Pulled]] = []
    problems: list[Problem] = []
    game = _Game(root, game_id, meta, cards_dir, shown, problems)
    try:
        for name, url in wanted.items():
            where: _Where = {"line": line_of(meta, ("pull", name)), "field": f"pull.{shorten(name)}"}
            if not isinstance(name, str) or "/" in name or "\\" in name or name.startswith(".") \
                    or not name.endswith((".csv", ".tsv")):
                problems.append(Problem(shown, f"'{shorten(name)}': pull writes a .csv or .tsv file in the game's "
                                        "folder", line=where["line"], field="pull"))
                continue
            if not isinstance(url, str):
                problems.append(Problem(shown, f"'{shorten(url)}' is not an http(s) URL", **where))
                continue
            source = sheet_url(url)
            tmp = _fetch(source, cache, name, timeout, problems, shown, where)
            if tmp is None:
                continue
            temps.append(tmp)
            pulled = _checked(game, name, source, tmp, where)
            if pulled is not None:
                results.append((tmp, pulled))
        if problems:
            raise InputError(f"{len(problems)} problem{'s' if len(problems) > 1 else ''} pulling {game_id}; "
                             "no file was changed", problems)
        return [_put(root, tmp, pulled) for tmp, pulled in results]
    finally:
        for tmp in temps:
            safefs.remove(root, tmp)


def _fetch(url, cache: Path, name: str, timeout, problems, shown, where: _Where) -> Path | None:
    """The download in a new temporary file of `cache`, or None (the problem added)."""
    tmp = cache / f"pull-{secrets.token_hex(8)}{Path(name).suffix}"
    with safefs.folder(cache.parents[2], cache) as folder:
        fd = safefs.new_file(folder, tmp.name, 0o600)   # created exclusively, never through a link
    try:
        with os.fdopen(fd, "wb") as into:
            download(url, into, timeout, MAX_FILE_BYTES)
    except DownloadError as exc:
        safefs.remove(cache.parents[2], tmp)
        problems.append(Problem(shown, f"{shorten(url, 120)}: {exc}", **where))
        return None
    return tmp


def _checked(game: _Game, name, url, tmp: Path, where: _Where) -> Pulled | None:
    """A `Pulled` when the download is a table the game's decks can read, else None."""
    shown, problems = game.shown, game.problems
    try:
        table = read_table(tmp)
    except SheetError as exc:
        problems.append(Problem(shown, f"what {shorten(url, 120)} sent is not a table: {exc}", **where))
        return None
    if not table.rows:
        problems.append(Problem(shown, f"what {shorten(url, 120)} sent has a header but no rows", **where))
        return None
    for message in _deck_problems(game.root, game.game_id, game.meta, name, table):
        problems.append(Problem(shown, f"what {shorten(url, 120)} sent does not fit {message}", **where))
    target = game.cards_dir / name
    same = is_file_inside(game.root, target) and os.path.getsize(target) == tmp.stat().st_size \
        and target.read_bytes() == tmp.read_bytes()
    return Pulled(target, len(table.rows), not same, url)


def _deck_problems(root: Path, game_id: str, meta, name: str, table) -> list[str]:
    """Why the decks that read `name` (`cards: {from: name}`) would refuse this table's header."""
    from .load import card_schema
    from .spreadsheet import CardRows, match_columns

    found: list[str] = []
    for deck_name in meta.get("decks") or []:
        path = root / "cards" / game_id / str(deck_name)
        if not is_file_inside(root, path):
            continue
        shown = f"cards/{game_id}/{deck_name}"
        try:
            raw = read_yaml(path, shown)
        except InputError:
            continue
        spec = raw.get("cards") if isinstance(raw, dict) else None
        if not isinstance(spec, dict) or spec.get("from") != name:
            continue
        schema, bad = card_schema(raw, shown)
        if bad:
            continue
        out = CardRows(None, name)
        match_columns(table, spec, schema["properties"], schema["required"], shown, out)
        found.extend(f"{shown}: {p.message}" for p in out.problems)
    return found


def _put(root: Path, tmp: Path, pulled: Pulled) -> Pulled:
    """Write the download over the local copy in one step (an exclusive temporary beside
    it, renamed over it: a link at its name is replaced, never followed; its folders real
    ones inside the project); the file keeps its permissions."""
    target = pulled.file
    try:
        st = os.stat(target, follow_symlinks=False)
        mode = stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else 0o644
    except OSError:
        mode = 0o644
    try:
        with safefs.folder(root, tmp.parent, make=False) as cache:
            data = safefs.read_in(cache, tmp.name)
        safefs.write_file(root, target, data, sync=True, mode=mode)
    except OSError as exc:
        raise InputError(f"cannot write {target}: {exc.strerror or exc}") from None
    return pulled
