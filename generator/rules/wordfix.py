"""The mechanical word findings fixed in the files they were found in: `pnp lint --fix`.

In: a game's root and its word findings (words.py). Out: for each YAML file holding a
`quotes` or `double-space` finding, its new text — every other character of the file as
it was: comments, order, indentation, the style of each scalar (plain, '...', "...", a
block) — and the findings that could not be fixed, with why. Only the characters of the
flagged scalars change, edited where they are written (PyYAML's marks give each scalar's
place); the new text is read back and must give the same data but the fixed values, or the
file is left alone. A CSV or TSV sheet is edited the same way, cell by cell (each cell
quoted as it was, or as CSV needs), and read back the same. An XLSX or ODS sheet has the
flagged cells of the finding's row (its line) in the sheet the deck reads edited inside the
zip, every other member, part, cell, formula, style and comment as it was
(data/workbookedit.py); it must read back as the same rows but the fixed cells. Writing is
the caller's (exports/files.write_atomic: never through a link). A rulebook is not
rewritten: its findings are reported as not fixed.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..data.sheetbase import FORMATS, SheetError, Table
from ..data.tablefile import separator
from ..data.workbook import ods_rows, xlsx_rows
from ..data.workbookedit import WorkbookRefused, edit_workbook
from ..data.yamlsrc import read_yaml
from ..errors import InputError
from ..guard import OutsideProject, read_bytes_inside, read_text_inside
from .style import fixed
from .words import FIXABLE

TEXT_FILES = (".yaml", ".yml", ".csv", ".tsv")
WORKBOOKS = (".xlsx", ".xlsm", ".ods")


@dataclass(frozen=True)
class Fixed:
    file: str                 # as shown (relative to the project)
    data: bytes               # the file's new content
    values: int               # how many values changed


def fixes(root: Path, findings) -> tuple[list[Fixed], list[tuple]]:
    """(the files to write, (finding, why) of each finding not fixed)."""
    wanted: dict[str, dict[str, dict]] = {}   # file -> text as found -> {"quotes": style, "spaces": True}
    left: list[tuple] = []
    for f in findings:
        if f.rule not in FIXABLE:
            continue
        if not f.file.endswith(TEXT_FILES + WORKBOOKS):
            left.append((f, "only YAML, CSV, TSV, XLSX and ODS files are rewritten"))
            continue
        how = wanted.setdefault(f.file, {}).setdefault(f.found, {})
        how["quotes" if f.rule == "quotes" else "spaces"] = f.expected if f.rule == "quotes" else True
    done = []
    for file, texts in wanted.items():
        path = root / file
        if file.endswith(WORKBOOKS):
            one, not_fixed = _workbook(root, file, texts, [f for f in findings if f.file == file and f.rule in FIXABLE])
            done += [one] if one else []
            left += not_fixed
            continue
        why = _refused(root, path, file)
        text = None
        if why is None:
            text = read_text_inside(root, path, file)
            if file.endswith((".csv", ".tsv")):
                sep = separator(text, "\t" if file.endswith(".tsv") else ",")
                new, count = _sheet_rewritten(text, texts, sep)
                why = _sheet_differs(text, new, texts, sep) if count else "its text was not found in the file"
            else:
                new, count = _rewritten(text, texts)
                why = _differs(text, new, texts) if count else "its text was not found in the file"
        if why is None:
            done.append(Fixed(file, new.encode("utf-8"), count))
        else:
            left += [(f, why) for f in findings if f.file == file and f.rule in FIXABLE]
    return done, left


def target(value: str, how: dict) -> str:
    """A flagged value as it is to be written."""
    return fixed(value, how.get("quotes"), spaces=bool(how.get("spaces")))


def _refused(root: Path, path: Path, file: str, text: bool = True) -> str | None:
    if path.is_symlink():
        return "the file is a link: pnp never writes through one"
    try:
        (read_text_inside if text else read_bytes_inside)(root, path, shown=file)
    except OutsideProject as exc:
        return str(exc)
    return None


def _workbook(root: Path, file: str, texts: dict[str, dict], found: list) -> tuple[Fixed | None, list[tuple]]:
    """An XLSX or ODS sheet with the flagged cells fixed, and the findings not fixed with why."""
    path = root / file
    why = _refused(root, path, file, text=False)
    sheets = _sheets_reading(root, file, found[0].game) if why is None else set()
    if why is None and len(sheets) != 1:
        why = ("no deck of the game reads it" if not sheets else
               "decks read different sheets of it: fix it in your spreadsheet program")
    if why is not None:
        return None, [(f, why) for f in found]
    data, sheet, kind = read_bytes_inside(root, path, shown=file), sheets.pop(), FORMATS[path.suffix.lower()]
    wanted: dict[int, set[str]] = {}
    for f in found:
        wanted.setdefault(f.line, set()).add(f.found)

    def fix(text: str) -> str:
        return target(text, texts[text.strip()])
    try:
        edited = edit_workbook(data, kind, sheet, wanted, fix)
        before, after = (_rows(content, kind, sheet, file) for content in (data, edited.data))
    except (WorkbookRefused, SheetError) as exc:
        return None, [(f, f"cannot edit it: {exc}") for f in found]
    expected = [(n, [fix(c) if isinstance(c, str) and (n, c.strip()) in edited.changed else c for c in cells])
                for n, cells in before]
    if edited.changed and expected != after:
        return None, [(f, "the fixed sheet would not read back as the same cells: fix it by hand") for f in found]
    left = [(f, edited.left.get((f.line, f.found), f"its text was not found in row {f.line} of the sheet"))
            for f in found if (f.line, f.found) not in edited.changed]
    return (Fixed(file, edited.data, len(edited.changed)) if edited.changed else None), left


def _rows(content: bytes, kind: str, sheet: str | None, file: str) -> list:
    """A workbook's rows as workbook.py reads them."""
    stream = io.BytesIO(content)
    stream.name = file   # (the ODS reader names the file in its messages)
    return list((xlsx_rows if kind == "xlsx" else ods_rows)(stream, sheet, Table([], [])))  # type: ignore[arg-type]


def _sheets_reading(root: Path, file: str, game: str) -> set[str | None]:
    """The sheets of workbook `file` the decks of `game` read (None: the first)."""
    sheets: set[str | None] = set()
    folder = root / "cards" / game
    for deck in sorted(folder.rglob("*.y*ml")):
        try:
            raw = read_yaml(deck, str(deck.relative_to(root)))   # (its bounds: a YAML bomb is refused)
        except InputError:
            continue
        cards = raw.get("cards") if isinstance(raw, dict) else None
        if isinstance(cards, dict) and isinstance(cards.get("from"), str) \
                and (deck.parent / cards["from"]).resolve() == (root / file).resolve():
            sheets.add(cards.get("sheet") if isinstance(cards.get("sheet"), str) else None)
    return sheets


def _scalars(node):
    """Every scalar value node of a composed document (mapping keys left out)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, yaml.ScalarNode):
            yield item
        elif isinstance(item, yaml.SequenceNode):
            stack.extend(item.value)
        elif isinstance(item, yaml.MappingNode):
            stack.extend(value for _, value in item.value)


def _rewritten(text: str, texts: dict[str, dict]) -> tuple[str, int]:
    """The file's text with each flagged scalar edited in place, and how many were."""
    edits = []
    for node in _scalars(yaml.compose(text, Loader=yaml.SafeLoader)):
        how = texts.get(node.value)
        if how is None or node.tag != "tag:yaml.org,2002:str":
            continue
        start, end = node.start_mark.index, node.end_mark.index
        edits.append((start, end, _raw(text[start:end], node.style, how)))
    out, last = [], 0
    for start, end, raw in sorted(set(edits)):
        out += [text[last:start], raw]
        last = end
    return "".join(out) + text[last:], len(edits)


def _raw(raw: str, style: str | None, how: dict) -> str:
    """A scalar as written, fixed in its own style."""
    if style == "'":
        return "'" + target(raw[1:-1].replace("''", "'"), how).replace("'", "''") + "'"
    if style == '"':
        return '"' + target(raw[1:-1].replace('\\"', '"'), how).replace('"', '\\"') + '"'
    if style in ("|", ">"):
        header, newline, body = raw.partition("\n")
        return header + newline + target(body, how)
    return target(raw, how)


def _differs(old: str, new: str, texts: dict[str, dict]) -> str | None:
    """None when `new` reads as `old` with the flagged values fixed; else why not."""
    try:
        before, after = yaml.safe_load(old), yaml.safe_load(new)
    except yaml.YAMLError:
        return "the fixed text would not be valid YAML: fix it by hand"
    if _fixed_data(before, texts) != after:
        return "the fixed file would not read back as the same data: fix it by hand"
    return None


def _fixed_data(value, texts: dict[str, dict]):
    if isinstance(value, str):
        how = texts.get(value)
        return value if how is None else target(value, how)
    if isinstance(value, dict):
        return {k: _fixed_data(v, texts) for k, v in value.items()}
    if isinstance(value, list):
        return [_fixed_data(v, texts) for v in value]
    return value


def _sheet_rewritten(text: str, texts: dict[str, dict], sep: str) -> tuple[str, int]:
    """A CSV or TSV sheet's text with each flagged cell edited where it is written."""
    count = 0
    for value, how in texts.items():
        new = target(value, how)
        for written, quoted in ((_quoted(value), True), (value, False)):
            if quoted is False and _needs_quotes(value, sep):
                continue
            cell = re.compile(rf"(?:(?<=^)|(?<={re.escape(sep)})){re.escape(written)}(?={re.escape(sep)}|\r?$)", re.M)
            replacement = _quoted(new) if quoted or _needs_quotes(new, sep) else new
            text, n = cell.subn(replacement.replace("\\", "\\\\"), text)   # a template: backslashes doubled
            count += n
    return text, count


def _quoted(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


def _needs_quotes(value: str, sep: str) -> bool:
    return any(c in value for c in (sep, '"', "\n", "\r"))


def _sheet_differs(old: str, new: str, texts: dict[str, dict], sep: str) -> str | None:
    def rows(text):
        return list(csv.reader(io.StringIO(text, newline=""), delimiter=sep))
    try:
        if [[_fixed_data(c, texts) for c in row] for row in rows(old)] == rows(new):
            return None
    except csv.Error:
        pass
    return "the fixed sheet would not read back as the same cells: fix it by hand"
