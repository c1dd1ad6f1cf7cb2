"""Card data kept in a spreadsheet: CSV, TSV, XLSX or ODS rows in, YAML-like cards out.

In: a deck whose `cards:` is `{from: FILE, sheet: NAME}` (FILE relative to the deck's
folder) and the deck's field schemas. Out: the cards as a `LineList` of `LineDict`s, one
per row, whose "line" is the row number in the sheet, typed by each field's JSON Schema,
so that `load` checks them exactly like cards written in YAML and every problem names the
file, the row (as its line) and the column header (as its field).

Cell syntax (the first row holds the headers, one per field; `id`, `name`, `count`,
`front`, `back` work as in YAML):

- an empty cell means "not given" (the deck's default, or nothing);
- integer / number fields: `3`, `2.5`; boolean fields: `true`/`false`, `yes`/`no`, `1`/`0`;
- list (array) fields: items separated by `;` (`fire; ice; fire`), each typed by `items`;
- object fields: JSON (`{"gold": 2}`);
- icons in text: `:name:` exactly as in YAML card text; a line break inside the cell is a
  line break in the text.
"""
from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from pathlib import Path

from ..errors import Problem
from .yamlsrc import LineDict, LineList

FORMATS = {".csv": "csv", ".tsv": "tsv", ".txt": "tsv", ".xlsx": "xlsx", ".xlsm": "xlsx", ".ods": "ods"}
TRUE, FALSE = {"true", "yes", "y", "1", "x"}, {"false", "no", "n", "0", ""}
MAX_ROWS = 100_000


class SheetError(Exception):
    """The file cannot be read as a table (message for designers)."""


def read_table(path: Path, sheet: str | None = None) -> tuple[list[str], list[tuple[int, list]]]:
    """Headers and data rows of one table: ([header...], [(row number, [cell...])...]).

    Row numbers are the spreadsheet's own (the header is row 1 in a CSV). Blank rows are
    skipped. Cells are strings (CSV, TSV) or the spreadsheet's typed values.

    :raises SheetError: when the file cannot be read or the sheet does not exist.
    """
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise SheetError(f"'{path.name}' is not a spreadsheet pnp reads (use .csv, .tsv, .xlsx or .ods)")
    if sheet is not None and kind in ("csv", "tsv"):
        raise SheetError(f"a {kind.upper()} file has no sheets; remove `sheet: {sheet}`")
    try:
        rows = {"csv": _csv_rows, "tsv": _csv_rows, "xlsx": _xlsx_rows, "ods": _ods_rows}[kind](path, sheet, kind)
    except SheetError:
        raise
    except (OSError, UnicodeDecodeError, csv.Error, zipfile.BadZipFile, ValueError, KeyError) as exc:
        raise SheetError(f"cannot read it as {kind.upper()}: {exc}") from None
    header = None
    data = []
    for number, cells in rows:
        if all(_blank(c) for c in cells):
            continue
        if header is None:
            header = [str(c).strip() if not _blank(c) else "" for c in cells]
            continue
        data.append((number, list(cells)))
        if len(data) > MAX_ROWS:
            raise SheetError(f"more than {MAX_ROWS} rows")
    if header is None:
        raise SheetError("the sheet is empty: its first row must name the fields (id, name, ...)")
    while header and not header[-1]:
        header.pop()
    return header, data


def _blank(value) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _csv_rows(path, sheet, kind):
    text = path.read_text(encoding="utf-8-sig")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t" if kind == "tsv" else ",")
    start = 1
    for cells in reader:
        yield start, cells
        start = reader.line_num + 1


def _pick(names: list[str], sheet: str | None, file: str) -> str:
    if sheet is None:
        return names[0]
    if sheet not in names:
        raise SheetError(f"no sheet '{sheet}' in {file} (sheets: {', '.join(names)})")
    return sheet


def _xlsx_rows(path, sheet, kind):
    import openpyxl

    book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        name = _pick(book.sheetnames, sheet, path.name)
        rows = [(n, [c.value for c in cells]) for n, cells in enumerate(book[name].iter_rows(), start=1)]
    finally:
        book.close()
    if any(v is None for _, cells in rows for v in cells):
        _no_unsaved_formulas(path, name, rows)
    return rows


def _no_unsaved_formulas(path, name, rows):
    """A formula cell whose result was never saved (a file written by a script, not by a
    spreadsheet app) reads as empty: say so instead of printing a card without it."""
    import openpyxl

    book = openpyxl.load_workbook(path, read_only=True, data_only=False)
    try:
        for (n, values), formulas in zip(rows, book[name].iter_rows(values_only=True)):
            for col, (value, formula) in enumerate(zip(values, formulas)):
                if value is None and isinstance(formula, str) and formula.startswith("="):
                    raise SheetError(f"cell {_column(col)}{n} holds a formula ({formula}) whose value was never "
                                     "saved: open the file in your spreadsheet app and save it")
    finally:
        book.close()


def _ods_rows(path, sheet, kind):
    from odf import teletype
    from odf.namespaces import TABLENS
    from odf.opendocument import load
    from odf.table import Table, TableRow

    doc = load(str(path))
    tables = doc.spreadsheet.getElementsByType(Table)
    names = [t.getAttribute("name") for t in tables]
    if not tables:
        raise SheetError("the file has no sheets")
    table = tables[names.index(_pick(names, sheet, path.name))]
    rows, number = [], 1
    for row in table.getElementsByType(TableRow):
        repeat = int(row.getAttrNS(TABLENS, "number-rows-repeated") or 1)
        cells = []
        for cell in row.childNodes:
            if cell.qname[1] not in ("table-cell", "covered-table-cell"):
                continue
            times = int(cell.getAttrNS(TABLENS, "number-columns-repeated") or 1)
            value = _ods_value(cell, teletype) if cell.qname[1] == "table-cell" else None
            cells.extend([value] * min(times, 1000))
        if any(not _blank(c) for c in cells):
            rows.append((number, cells))
        number += repeat
    return rows


def _ods_value(cell, teletype):
    from odf.namespaces import OFFICENS

    kind = cell.getAttrNS(OFFICENS, "value-type")
    if kind in ("float", "percentage", "currency"):
        raw = cell.getAttrNS(OFFICENS, "value")
        number = float(raw)
        return int(number) if number.is_integer() and "." not in raw and "e" not in raw.lower() else number
    if kind == "boolean":
        return cell.getAttrNS(OFFICENS, "boolean-value") == "true"
    paragraphs = [teletype.extractText(p) for p in cell.childNodes if p.qname[1] == "p"]
    return "\n".join(paragraphs) if paragraphs else None


def cards_from_table(spec: dict, deck_dir: Path, root: Path, fields: dict,
                     problems: list[Problem]) -> tuple[LineList | None, str | None]:
    """The cards of a deck whose `cards:` is `{from:, sheet:}`, and the file they came from.

    :param fields: the deck's field schemas (plus the built-in card keys).
    Problems (unreadable file, bad header, cells that cannot be typed) are appended; the
    typed rows still go through the deck's schema check in `load`.
    """
    source = (deck_dir / spec["from"]).resolve()
    try:
        shown = str(source.relative_to(root.resolve()))
    except ValueError:
        shown = spec["from"]
    if not source.is_relative_to(deck_dir.resolve()):
        problems.append(Problem(shown, "a card table must be inside the game's cards folder", field="cards.from"))
        return None, shown
    if not source.is_file():
        problems.append(Problem(shown, f"card table '{spec['from']}' does not exist", field="cards.from"))
        return None, shown
    try:
        header, rows = read_table(source, spec.get("sheet"))
    except SheetError as exc:
        problems.append(Problem(shown, str(exc), field="cards.from"))
        return None, shown
    bad = False
    for col, name in enumerate(header):
        if not name and any(col < len(cells) and not _blank(cells[col]) for _, cells in rows):
            problems.append(Problem(shown, f"column {_column(col)} has values but no header", line=1))
            bad = True
        elif name and header.count(name) > 1 and header.index(name) == col:
            problems.append(Problem(shown, f"two columns are headed '{name}'", line=1, field=name))
            bad = True
    if "id" not in header:
        problems.append(Problem(shown, f"no 'id' column (headers: {', '.join(h for h in header if h)})", line=1))
        bad = True
    if bad:
        return None, shown
    cards = LineList()
    cards.line, cards.lines = 1, []
    for number, cells in rows:
        card = LineDict()
        card.line, card.lines = number, {}
        for col, name in enumerate(header):
            value = cells[col] if col < len(cells) else None
            if not name or _blank(value):
                continue
            card[name] = typed(value, fields.get(name) or {})
            card.lines[name] = number
        cards.append(card)
        cards.lines.append(number)
    return cards, shown


def _column(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _types(schema: dict) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return kind
    if "enum" in schema:
        return sorted({_json_type(v) for v in schema["enum"]})
    if "const" in schema:
        return [_json_type(schema["const"])]
    return []


def _json_type(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"


def typed(value, schema: dict):
    """A cell's value as its field's JSON Schema wants it; a cell that cannot be read as
    that type is kept as it is, so the schema check names the row and column."""
    kinds = _types(schema)
    if isinstance(value, str):
        value = value.strip()
    if "array" in kinds:
        if isinstance(value, str):
            items = [p.strip() for p in value.split(";")]
            return [typed(p, schema.get("items") or {}) for p in items if p]
        return [typed(value, schema.get("items") or {})]
    if "object" in kinds and isinstance(value, str) and value.startswith("{"):
        try:
            return json.loads(value)
        except ValueError:
            return value
    if isinstance(value, bool):
        return value if ("boolean" in kinds or not kinds) else str(value).lower()
    if isinstance(value, float) and value.is_integer() and "integer" in kinds:
        return int(value)
    if isinstance(value, (int, float)):
        if "string" in kinds and not ({"integer", "number"} & set(kinds)):
            return _number_text(value)
        return value
    if not isinstance(value, str):  # dates and other spreadsheet types: their text
        return str(value)
    for kind in kinds:
        if kind == "integer" and re.fullmatch(r"[+-]?\d+", value):
            return int(value)
        if kind == "number" and re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", value):
            number = float(value)
            return int(number) if number.is_integer() and re.fullmatch(r"[+-]?\d+", value) else number
        if kind == "boolean" and value.lower() in TRUE | FALSE - {""}:
            return value.lower() in TRUE
        if kind == "null" and value.lower() in ("null", "none", "~"):
            return None
    return value


def _number_text(value) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
