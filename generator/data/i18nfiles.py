"""Translators' files: a game's texts out to gettext PO, CSV or XLSX and back into its
i18n/<language>.yaml, and how far each language has come.

In: a loaded `Game` of several languages (editions.py) and its translations; or a file a
translator returns. Out: the bytes of a PO file per language (`polib`: msgctxt the text's
key, msgid the source, msgstr the translation, fuzzy when the source changed since), or
one table with a column per language (CSV, XLSX: game, key, where, then the languages);
`import_file`, the translations a file holds written into `cards/<game>/i18n/<lang>.yaml`
(each with the hash of the source text the translator saw, so a translation made from an
older source stays marked stale); `status`, per language the texts translated, missing
and stale; `accept`, the current source recorded for a language's translations as they are.
"""
from __future__ import annotations

import csv
import io
import os
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from .. import safefs
from ..errors import InputError, Problem
from ..guard import OutsideProject, inside, shorten
from .editions import (
    RULEBOOK_SOURCE,
    Entry,
    Translation,
    catalogue,
    i18n_file,
    languages_of,
    read_translation,
    recorded_rulebook_source,
    rulebook_paths,
    source_hash,
)
from .model import Game
from .sheetbase import SheetError, check_size
from .tablefile import read_table

FORMATS = ("po", "csv", "xlsx")            # what pnp writes
READS = ("po", "csv", "tsv", "txt", "xlsx", "xlsm", "ods")   # what it reads back
HEAD = ("game", "key", "where")
STALE = "0" * 8     # the source hash of a translation known to be made from another source


@dataclass(frozen=True)
class Progress:
    lang: str
    total: int
    translated: int      # translated, and made from the source as it is (or with no record)
    missing: int
    stale: int
    unrecorded: int = 0  # of the translated: no record of the source they were made from
    rulebook: str = ""   # the edition's rulebook: "", "up to date", "missing", "stale", "unrecorded"
    unreadable: str = ""  # why the language's file cannot be read ("" when it can)

    @property
    def complete(self) -> bool:
        return (self.translated == self.total and not self.unreadable
                and self.rulebook in ("", "up to date", "unrecorded"))


def _others(game: Game, asked: tuple[str, ...] | None) -> list[str]:
    langs = languages_of(game.meta)
    if len(langs) < 2:
        raise InputError(f"{game.id} is written in one language: list its editions in game.yaml (languages: "
                         f"[{langs[0]}, de, ...]) to translate it")
    unknown = [lang for lang in asked or () if lang not in langs[1:]]
    if unknown:
        raise InputError(f"{game.id} has no edition to translate into {', '.join(map(repr, unknown))} "
                         f"(languages: {', '.join(langs[1:])})")
    return [lang for lang in langs[1:] if not asked or lang in asked]


def _where(entry: Entry) -> str:
    place = f"{entry.file}:{entry.line}" if entry.line else entry.file
    return f"card {entry.card}, {entry.field} ({place})" if entry.card else place


def status(game: Game, asked=None) -> list[Progress]:
    """Per language: texts translated (and not stale), missing, stale, with no record of
    their source; and the state of its rulebook. A file that cannot be read says why."""
    entries = catalogue(game)
    out = []
    for lang in _others(game, asked):
        try:
            tr = read_translation(game, lang)
        except InputError as exc:
            reason = str(exc.problems[0]) if exc.problems else exc.message
            out.append(Progress(lang, len(entries), 0, len(entries), 0, unreadable=reason))
            continue
        missing = stale = unrecorded = 0
        for key, entry in entries.items():
            value = tr.value(key)
            if not isinstance(value, str) or not value.strip():
                missing += 1
            elif key not in tr.sources:
                unrecorded += 1
            elif tr.sources[key] != source_hash(entry.text):
                stale += 1
        out.append(Progress(lang, len(entries), len(entries) - missing - stale, missing, stale, unrecorded,
                            _rulebook_state(game, lang)))
    return out


def _rulebook_state(game: Game, lang: str) -> str:
    source, own = rulebook_paths(game, lang) or (None, None)
    if source is None or own is None or not source.exists():
        return ""
    if not own.exists():
        return "missing"
    recorded = recorded_rulebook_source(own.read_text(encoding="utf-8", errors="replace"))
    if recorded is None:
        return "unrecorded"
    return "up to date" if recorded == source_hash(source.read_text(encoding="utf-8", errors="replace")) else "stale"


def export(game: Game, fmt: str, asked=None) -> dict[str, bytes]:
    """The translators' file(s) of `game`: {file name: bytes}."""
    entries = catalogue(game)
    langs = _others(game, asked)
    translations = {lang: read_translation(game, lang) for lang in langs}
    if fmt == "po":
        return {f"{game.id}-{lang}.po": _po(game, entries, translations[lang]) for lang in langs}
    source = languages_of(game.meta)[0]
    rows = [[*HEAD, source, *langs]]
    for key, entry in entries.items():
        rows.append([game.id, key, _where(entry), entry.text,
                     *(_text(translations[lang].value(key)) for lang in langs)])
    name = f"{game.id}-translations" + (f"-{'-'.join(langs)}" if asked else "")
    return {f"{name}.{fmt}": _csv(rows) if fmt == "csv" else _xlsx(rows)}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _po(game: Game, entries: dict[str, Entry], tr: Translation) -> bytes:
    import polib

    po = polib.POFile(wrapwidth=0)
    po.metadata = {"Project-Id-Version": game.id, "Language": tr.lang, "MIME-Version": "1.0",
                   "Content-Type": "text/plain; charset=UTF-8", "Content-Transfer-Encoding": "8bit",
                   "X-Pnp-Game": game.id, "X-Pnp-Source-Language": languages_of(game.meta)[0]}
    for key, entry in entries.items():
        value = _text(tr.value(key))
        stale = bool(value) and tr.sources.get(key, source_hash(entry.text)) != source_hash(entry.text)
        po.append(polib.POEntry(msgctxt=key, msgid=entry.text, msgstr=value, flags=["fuzzy"] if stale else [],
                                occurrences=[(entry.file, str(entry.line or ""))],
                                comment=_where(entry)))
    return str(po).encode("utf-8")


def _csv(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue().encode("utf-8-sig")   # Excel opens UTF-8 with its mark as UTF-8


def _xlsx(rows: list[list[str]]) -> bytes:
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font

    book = Workbook()
    sheet = book.active
    sheet.title = "translations"
    for row in rows:
        sheet.append(row)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for column, width in zip("ABCDEFGHIJKLMN", (12, 28, 30, *([48] * 11))):
        sheet.column_dimensions[column].width = width
    for row in sheet.iter_rows(min_row=2):
        for cell in row:
            cell.alignment = Alignment(wrap_text=True, vertical="top")
    sheet.freeze_panes = "D2"
    book.properties.created = book.properties.modified = datetime(2000, 1, 1)
    out = io.BytesIO()
    book.save(out)
    return _fixed_times(out.getvalue())


def _fixed_times(data: bytes) -> bytes:
    """A zip with every part dated 2000-01-01: the same texts give the same bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as old, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            part = zipfile.ZipInfo(info.filename, date_time=(2000, 1, 1, 0, 0, 0))
            part.compress_type, part.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
            new.writestr(part, old.read(info.filename))
    return out.getvalue()


@dataclass
class Imported:
    """What a translators' file holds, as `read_file` read it."""

    game: str
    texts: dict[str, dict[str, tuple[str, str]]]   # language -> key -> (translation, hash of its source)
    changed_only: bool     # a table says nothing of which texts its translator looked at: only the
                           # cells that differ from the game's are news (a PO entry says it: fuzzy, or not)
    notes: list[str] = field(default_factory=list)   # what the reader had to guess or could not read


def read_file(path: Path) -> Imported:
    """A translators' file pnp exported and a translator filled in: PO, or a table (CSV or
    TSV in any encoding and separator Excel and LibreOffice write, XLSX, ODS: read as any
    spreadsheet pnp reads, tablefile.py).

    :raises InputError: a file pnp cannot read as one of its own exports, naming it."""
    shown = str(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in READS:
        raise InputError(f"{shown}: pnp reads translations from .po, .csv, .tsv, .xlsx and .ods files")
    try:
        check_size(path)   # a regular file of a size pnp reads
        if fmt == "po":
            return _read_po(path.read_bytes(), shown)
        table = read_table(path)
    except InputError:
        raise
    except SheetError as exc:
        raise InputError(f"{shown}: {exc}") from None
    except Exception as exc:  # the readers' own errors: not a file of this kind
        raise InputError(f"{shown} cannot be read as {fmt.upper()}: {shorten(str(exc), 120)}") from None
    rows = [[_cell(c) for c in table.header], *([_cell(c) for c in cells] for _, cells in table.rows)]
    imported = _read_table(rows, shown)
    imported.notes += table.notes + [f"row {row}: a formula whose value was never saved is read as empty ({formula})"
                                     for row, _, formula in table.unsaved[:5]]
    return imported


def _cell(value) -> str:
    return "" if value is None else str(value)


def _read_po(data: bytes, shown: str) -> Imported:
    import polib

    po = polib.pofile(data.decode("utf-8"))
    game, lang = po.metadata.get("X-Pnp-Game"), po.metadata.get("Language")
    if not game or not lang:
        raise InputError(f"{shown}: not a file pnp exported (its header has no X-Pnp-Game and Language)")
    found = {}
    for e in po:
        if e.obsolete or not e.msgstr.strip():
            continue
        stale = "fuzzy" in e.flags
        found[e.msgctxt or ""] = (e.msgstr, STALE if stale else source_hash(e.msgid))
    return Imported(game, {lang: found}, False)


def _read_table(rows: list[list[str]], shown: str) -> Imported:
    if not rows or [c.strip().lower() for c in rows[0][:3]] != list(HEAD) or len(rows[0]) < 5:
        raise InputError(f"{shown}: not a table pnp exported (its first row must be {', '.join(HEAD)}, the "
                         "source language, then a column per language)")
    source, langs = rows[0][3].strip(), [c.strip() for c in rows[0][4:]]
    games = {r[0].strip() for r in rows[1:] if r and r[0].strip()}
    if len(games) != 1:
        raise InputError(f"{shown}: the game column must name one game (found {', '.join(sorted(games)) or 'none'})")
    found: dict[str, dict[str, tuple[str, str]]] = {lang: {} for lang in langs if lang and lang != source}
    for row in rows[1:]:
        row = row + [""] * (len(rows[0]) - len(row))
        key, text = row[1].strip(), row[3]
        if not key:
            continue
        for lang, value in zip(langs, row[4:]):
            if lang in found and value.strip():
                found[lang][key] = (value, source_hash(text))
    return Imported(games.pop(), found, True)


def import_file(game: Game, imported: Imported, shown: str) -> list[tuple[str, int]]:
    """Write the translations of a file into the game's i18n files (a table's, those that
    differ from the game's); returns (file, texts) written. A text the game no longer has
    (a card removed since the export) is left out, and said in `imported.notes`.

    :raises InputError: a language the game does not list."""
    entries = catalogue(game)
    langs = _others(game, None)
    unknown = [lang for lang in imported.texts if lang not in langs]
    if unknown:
        raise InputError(f"1 problem importing {shown}", [Problem(
            shown, f"the game has no edition in '{unknown[0]}' (languages: {', '.join(langs)})")])
    gone = sorted({key for texts in imported.texts.values() for key in texts if key not in entries})
    if gone:
        imported.notes.append(f"{len(gone)} text{'s' if len(gone) > 1 else ''} of the file {game.id} no longer has, "
                              f"left out: {', '.join(shorten(k, 40) for k in gone[:5])}" +
                              (", ..." if len(gone) > 5 else ""))
    written = []
    for lang, texts in imported.texts.items():
        tr = read_translation(game, lang)
        texts = {k: v for k, v in texts.items() if k in entries}
        if imported.changed_only:
            texts = {k: v for k, v in texts.items() if v[0] != tr.value(k)}
        if not texts:
            continue
        data = _plain(tr.data)
        sources = dict(data.get("sources") or {})
        for key, (value, made_from) in texts.items():
            _put(data, key, value)
            sources[key] = made_from
        data["sources"] = sources
        _write(game, lang, data, entries)
        written.append((str(i18n_file(game, lang).relative_to(game.root)), len(texts)))
    return written


def accept(game: Game, asked=None) -> list[tuple[str, int]]:
    """Record the current source of every translation of the languages asked (all by
    default), and of their rulebooks: they are up to date as they are. Only the file's
    sources: block is rewritten, and the rulebook's first line."""
    entries = catalogue(game)
    written = []
    for lang in _others(game, asked):
        tr = read_translation(game, lang)
        if tr.found:
            sources = {key: source_hash(e.text) for key, e in entries.items() if _text(tr.value(key)).strip()}
            path = _real(game, i18n_file(game, lang))
            _write_text(game, path, _without_sources(path.read_text(encoding="utf-8")) + _sources_block(sources))
            written.append((str(i18n_file(game, lang).relative_to(game.root)), len(sources)))
        source, own = rulebook_paths(game, lang) or (None, None)
        if source is not None and own is not None and source.exists() and own.exists():
            text = RULEBOOK_SOURCE.sub("", own.read_text(encoding="utf-8"), count=1).lstrip("\n")
            mark = "{#- pnp-source: " + source_hash(source.read_text(encoding="utf-8")) + " -#}\n"
            _write_text(game, _real(game, own), mark + text)
            written.append((str(own.relative_to(game.root)), 1))
    return written


def _real(game: Game, path: Path) -> Path:
    """The file a path names, through a link that stays inside the project (a translation
    kept elsewhere in it and linked): written there, not replaced by a file of its own."""
    if not path.is_symlink():
        return path
    try:
        return inside(game.root, path, str(path.relative_to(game.root)))
    except OutsideProject as exc:
        raise InputError(str(exc)) from None


def _write_text(game: Game, path: Path, text: str) -> None:
    """Write `path` (as `_real` gave it) whole, its folders real ones inside the project."""
    base = game.root if path.is_relative_to(game.root) else Path(os.path.realpath(game.root))
    safefs.write_file(base, path, text.encode("utf-8"))


def _plain(value):
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _put(data: dict, key: str, value: str) -> None:
    section, _, rest = key.partition(".")
    if section == "game":
        data.setdefault("game", {})[rest] = value
    elif section in ("decks", "cards"):
        owner, _, name = rest.rpartition(".")
        data.setdefault(section, {}).setdefault(owner, {})[name] = value
    else:
        node = data.setdefault("strings", {})
        *groups, last = rest.split(".")
        for g in groups:
            node = node.setdefault(g, {})
        node[last] = value


def _write(game: Game, lang: str, data: dict, entries: dict[str, Entry]) -> None:
    """The language's file in pnp's order (game, decks, cards, strings as the source has
    them; then sources), comments not kept."""
    order = {key: n for n, key in enumerate(entries)}
    body = {k: data[k] for k in ("game", "decks", "cards", "strings") if data.get(k)}
    if "cards" in body:
        first = {card: min((order.get(f"cards.{card}.{f}", 1 << 30) for f in fields), default=1 << 30)
                 for card, fields in body["cards"].items()}
        body["cards"] = dict(sorted(body["cards"].items(), key=lambda kv: first[kv[0]]))
    text = (f"# {game.title} in {lang}: written by pnp i18n import (the texts of every edition: pnp i18n export)\n"
            + yaml.dump(body, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=1000))
    sources = {k: v for k, v in sorted((data.get("sources") or {}).items(), key=lambda kv: order.get(kv[0], 1 << 30))}
    _write_text(game, _real(game, i18n_file(game, lang)), text + _sources_block(sources))


class _Dumper(yaml.SafeDumper):
    """Text of several lines as a literal block (|-), as a person writes it."""


_Dumper.add_representer(str, lambda dumper, text: dumper.represent_scalar(
    "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None))


def _sources_block(sources: Mapping[str, str]) -> str:
    if not sources:
        return ""
    lines = ["sources:   # pnp's record of the source each text was translated from (pnp i18n accept)"]
    lines += [f"  {yaml.safe_dump(key, width=1000).strip().removesuffix('...').strip()}: '{h}'"
              for key, h in sources.items()]
    return "\n".join(lines) + "\n"


def _without_sources(text: str) -> str:
    """The file's text without its top-level sources: block."""
    lines = text.splitlines(keepends=True)
    out, skipping = [], False
    for line in lines:
        top = line[:1] not in (" ", "\t", "#", "\n", "\r", "")
        if top:
            skipping = line.startswith("sources:")
        if not skipping:
            out.append(line)
    body = "".join(out)
    return body if body.endswith("\n") or not body else body + "\n"
