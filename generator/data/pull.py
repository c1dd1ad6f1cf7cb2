"""`pnp pull`: refresh a game's local copies of spreadsheets published as CSV.

In: game.yaml's `pull:` mapping, file name -> URL (a sheet published to the web as CSV,
e.g. Google Sheets' File > Share > Publish to web > CSV). Out: each file written into
`cards/<game>/`, atomically, after checking that what came back is a table with a header
row. This is the only part of pnp that uses the network, and only when asked; `pnp build`
reads the local copy.
"""
from __future__ import annotations

import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, Problem
from .spreadsheet import SheetError, read_table
from .yamlsrc import line_of, read_yaml

MAX_BYTES = 20 * 1024 * 1024
TIMEOUT_S = 30


@dataclass(frozen=True)
class Pulled:
    file: Path
    rows: int
    changed: bool


def pull_game(root: Path, game_id: str) -> list[Pulled]:
    """Download every `pull:` entry of one game.

    :raises InputError: naming the game.yaml line of each URL that failed; files that did
        download are kept only when every one of them did (all or nothing).
    """
    cards_dir = root / "cards" / game_id
    shown = f"cards/{game_id}/game.yaml"
    meta = read_yaml(cards_dir / "game.yaml", shown)
    wanted = (meta.get("pull") or {}) if isinstance(meta, dict) else {}
    if not wanted:
        raise InputError(f"{shown} has no `pull:` (file: URL of a spreadsheet published as CSV)")
    fetched, problems = {}, []
    for name, url in wanted.items():
        line = line_of(meta, ("pull", name))
        if not isinstance(name, str) or "/" in name or not name.endswith((".csv", ".tsv")):
            problems.append(Problem(shown, f"'{name}': pull writes a .csv or .tsv file in the game's folder",
                                    line=line, field="pull"))
            continue
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            problems.append(Problem(shown, f"'{url}' is not an http(s) URL", line=line, field=f"pull.{name}"))
            continue
        try:
            with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
                data = response.read(MAX_BYTES + 1)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            problems.append(Problem(shown, f"cannot download {url}: {reason}", line=line, field=f"pull.{name}"))
            continue
        if len(data) > MAX_BYTES:
            problems.append(Problem(shown, f"{url} sent more than {MAX_BYTES // 2**20} MB", line=line,
                                    field=f"pull.{name}"))
            continue
        fetched[name] = (data, line)
    tmp_dir = cards_dir / ".pull-tmp"
    results = []
    try:
        for name, (data, line) in fetched.items():
            tmp_dir.mkdir(exist_ok=True)
            tmp = tmp_dir / name
            tmp.write_bytes(data)
            try:
                _, rows = read_table(tmp)
            except SheetError as exc:
                problems.append(Problem(shown, f"what {wanted[name]} sent is not a table: {exc}", line=line,
                                        field=f"pull.{name}"))
                continue
            target = cards_dir / name
            changed = not target.is_file() or target.read_bytes() != data
            results.append((tmp, Pulled(target, len(rows), changed)))
        if problems:
            raise InputError(f"{len(problems)} problem{'s' if len(problems) > 1 else ''} pulling {game_id}; "
                             "no file was changed", problems)
        for tmp, pulled in results:
            os.replace(tmp, pulled.file)
    finally:
        if tmp_dir.is_dir():
            for leftover in tmp_dir.iterdir():
                leftover.unlink()
            tmp_dir.rmdir()
    return [p for _, p in results]
