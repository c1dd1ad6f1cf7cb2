"""The rows of one sheet of an XLSX or ODS workbook, read as a stream within fixed limits.

In: a workbook file (already checked to be a regular file of sane size by `tablefile`), the
sheet to read (None: the first) and the `Table` being filled (its notes and unsaved formula
cells). Out: an iterator of (row number, [cell value...]); cells are the spreadsheet's typed
values (str, int, float, bool, date) or None for an empty cell.

Both are zip files: the parts' declared uncompressed sizes are added up before any part is
parsed (zipfile never inflates a part past its declared size), so a zip bomb is refused at
once. XLSX goes through openpyxl's read-only (streaming) reader. ODS is read with a streaming
XML parser (defusedxml: no entities, no DTD) rather than odfpy, whose whole-document tree
takes seconds and hundreds of MB for a few MB of cells; repeated cells and rows (how ODS
compresses) are expanded only where a value follows, so repeats cannot blow up. A formula
whose value was never saved (a file written by a script) is reported, never read as empty.
"""
from __future__ import annotations

import zipfile
from pathlib import Path

from .sheetbase import MAX_CELLS, MAX_ROWS, MAX_UNZIPPED_BYTES, SheetError, Table, blank

TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
MAX_MEMBERS = 10_000
MAX_UNSAVED = 1_000  # formula cells listed (the message names the first few of each column)


def open_zip(path: Path, kind: str) -> zipfile.ZipFile:
    """The workbook as a zip whose parts add up to at most `MAX_UNZIPPED_BYTES`."""
    try:
        book = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise SheetError(f"it is not an {kind.upper()} file (not a zip: {exc})") from None
    infos = book.infolist()
    declared = sum(i.file_size for i in infos)
    if len(infos) > MAX_MEMBERS or declared > MAX_UNZIPPED_BYTES:
        book.close()
        raise SheetError(f"its parts unpack to {declared / 2**20:.0f} MB in {len(infos)} files; pnp reads "
                         f"workbooks of at most {MAX_UNZIPPED_BYTES // 2**20} MB unpacked")
    return book


def _pick(names: list[str], sheet: str | None, file: str) -> str:
    if not names:
        raise SheetError("the file has no sheets")
    if sheet is None:
        return names[0]
    if sheet not in names:
        raise SheetError(f"no sheet '{sheet}' in {file} (sheets: {', '.join(names)})")
    return sheet


def xlsx_rows(path: Path, sheet: str | None, table: Table):
    """Rows of an XLSX sheet (cached values of formulas; a formula without one is noted)."""
    open_zip(path, "xlsx").close()
    try:
        rows = list(_xlsx_values(path, sheet, data_only=True))
    except SheetError:
        raise
    except Exception as exc:  # openpyxl, zipfile and XML errors of every kind: the file is not sound
        raise SheetError(f"cannot read it as XLSX: {type(exc).__name__}: {exc}") from None
    if any(c is None for _, cells in rows for c in cells):  # perhaps a formula whose value was never saved
        _unsaved_xlsx(path, sheet, rows, table)
    yield from ((n, list(cells)) for n, cells in rows)


def _xlsx_values(path, sheet, data_only: bool):
    import openpyxl

    book = openpyxl.load_workbook(path, read_only=True, data_only=data_only)
    try:
        ws = book[_pick(book.sheetnames, sheet, path.name)]
        ws.reset_dimensions()  # a stale <dimension> would pad every row to its width
        cells = 0
        for number, values in enumerate(ws.iter_rows(values_only=True), start=1):
            cells += len(values)
            if number > MAX_ROWS * 2 or cells > MAX_CELLS * 2:
                raise SheetError(f"more than {MAX_ROWS:,} rows or {MAX_CELLS:,} cells; pnp reads at most that many")
            yield number, values
    finally:
        book.close()


def _unsaved_xlsx(path, sheet, rows, table: Table) -> None:
    """Formula cells read as empty: the file keeps the formula but no value for it."""
    try:
        for (number, values), (_, formulas) in zip(rows, _xlsx_values(path, sheet, data_only=False)):
            for col, (value, formula) in enumerate(zip(values, formulas)):
                text = getattr(formula, "text", formula)  # an array formula
                if value is None and isinstance(text, str) and text.startswith("=") \
                        and len(table.unsaved) < MAX_UNSAVED:
                    table.unsaved.append((number, col, text))
    except SheetError:
        raise
    except Exception as exc:
        raise SheetError(f"cannot read it as XLSX: {type(exc).__name__}: {exc}") from None


def ods_rows(path: Path, sheet: str | None, table: Table):
    """Rows of an ODS sheet, streamed from content.xml."""
    book = open_zip(path, "ods")
    try:
        try:
            stream = book.open("content.xml")
        except KeyError:
            raise SheetError("it is not an ODS file (it has no content.xml)") from None
        yield from _ods_stream(stream, sheet, path.name, table)
    except SheetError:
        raise
    except Exception as exc:  # XML, zip, entity and number errors: the file is not sound
        raise SheetError(f"cannot read it as ODS: {type(exc).__name__}: {exc}") from None
    finally:
        book.close()


def _ods_stream(stream, sheet, file: str, table: Table):
    from defusedxml.ElementTree import iterparse

    names: list[str] = []
    stack: list = []
    reading = False
    row: list = []
    number, pending, cells = 1, 0, 0
    for event, elem in iterparse(stream, events=("start", "end")):
        tag = elem.tag
        if event == "start":
            stack.append(elem)
            if tag == f"{TABLE}table":
                names.append(elem.get(f"{TABLE}name") or f"Sheet{len(names) + 1}")
                reading = sheet is None or names[-1] == sheet
            elif tag == f"{TABLE}table-row":
                row, pending = [], 0
            continue
        stack.pop()
        if tag in (f"{TABLE}table-cell", f"{TABLE}covered-table-cell") and reading:
            repeat = int(elem.get(f"{TABLE}number-columns-repeated") or 1)
            value = _ods_value(elem, number, len(row) + pending, table) if tag.endswith("}table-cell") else None
            if blank(value):
                pending += repeat  # kept only if a value follows in the row
            else:
                cells += pending + repeat
                if cells > MAX_CELLS:
                    raise SheetError(f"more than {MAX_CELLS:,} cells; pnp reads at most that many")
                row.extend([None] * pending + [value] * repeat)
                pending = 0
        elif tag == f"{TABLE}table-row":
            repeat = int(elem.get(f"{TABLE}number-rows-repeated") or 1)
            if reading and row:
                for k in range(min(repeat, MAX_ROWS + 1)):
                    yield number + k, list(row)
            number += repeat if reading else 0
        elif tag == f"{TABLE}table" and reading:
            return
        else:
            continue
        elem.clear()
        if stack:
            stack[-1].remove(elem)  # what was read is dropped: memory stays that of one row
    _pick(names, sheet, file)  # the sheet was not found: say which there are
    raise SheetError("the file has no sheets")


def _ods_value(cell, number: int, col: int, table: Table):
    """A cell's saved value: number, boolean, or its text (dates and times as written)."""
    kind = cell.get(f"{OFFICE}value-type")
    formula = cell.get(f"{TABLE}formula")
    if kind in ("float", "percentage", "currency"):
        raw = cell.get(f"{OFFICE}value")
        if raw is not None:
            value = float(raw)
            return int(value) if value.is_integer() and "." not in raw and "e" not in raw.lower() else value
    elif kind == "boolean":
        raw = cell.get(f"{OFFICE}boolean-value")
        if raw is not None:
            return raw == "true"
    paragraphs = [_text(p) for p in cell if p.tag == f"{TEXT}p"]
    if paragraphs:
        return "\n".join(paragraphs)
    if formula and cell.get(f"{OFFICE}string-value") is None and len(table.unsaved) < MAX_UNSAVED:
        table.unsaved.append((number, col, formula.split(":", 1)[-1] if formula.startswith("of:") else formula))
    return cell.get(f"{OFFICE}string-value")


def _text(elem) -> str:
    """The text of a <text:p> as the spreadsheet shows it (spaces, tabs, line breaks, spans)."""
    parts = [elem.text or ""]
    for child in elem:
        tag = child.tag
        if tag == f"{TEXT}s":
            parts.append(" " * min(int(child.get(f"{TEXT}c") or 1), 1000))
        elif tag == f"{TEXT}tab":
            parts.append("\t")
        elif tag == f"{TEXT}line-break":
            parts.append("\n")
        elif tag != f"{OFFICE}annotation":
            parts.append(_text(child))
        parts.append(child.tail or "")
    return "".join(parts)
