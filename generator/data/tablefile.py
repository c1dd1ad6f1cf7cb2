"""A spreadsheet file read as a table of cells, its size bounded before anything is parsed.

In: the path of a CSV, TSV (or Excel's "Unicode text" .txt), XLSX/XLSM or ODS file, and for a
workbook the sheet to read. Out: a `Table`: the header row, the data rows numbered as the
spreadsheet numbers them, notes to say once (a text encoding that had to be guessed), and the
formula cells whose value was never saved. A file that is not a readable table of sane size
raises `SheetError`, whose message says why in the designer's words (the caller names the file).

Text files: UTF-8 with or without a byte-order mark, UTF-16/32 with one (Excel's "Unicode
text"), anything else guessed with charset-normalizer (Excel's "CSV (Comma delimited)" is
Windows-1252); the separator (comma, semicolon as European Excel writes, tab, bar) is the one
that splits the header and the first rows into the same number of cells.
"""
from __future__ import annotations

import csv
import io
import itertools
from pathlib import Path

from .sheetbase import FORMATS, MAX_CELLS, MAX_ROWS, SheetError, Table, blank, check_size
from .workbook import ods_rows, xlsx_rows

SEPARATORS = (",", ";", "\t", "|")
ENCODING_NAMES = {
    "cp1252": "Windows-1252 (Western European: what Excel's \"CSV (Comma delimited)\" writes)",
    "cp1250": "Windows-1250 (Central European)", "cp1251": "Windows-1251 (Cyrillic)",
    "cp1253": "Windows-1253 (Greek)", "cp1254": "Windows-1254 (Turkish)", "mac_roman": "Mac Roman",
    "latin_1": "Latin-1", "iso8859_15": "Latin-9",
}
_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
         (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


def read_table(path: Path, sheet: str | None = None) -> Table:
    """The table in `path` (the first sheet of a workbook unless `sheet` names one).

    Blank rows are skipped; the first row that is not blank is the header. Cells are strings
    (text files) or the spreadsheet's typed values (numbers, booleans, dates).

    :raises SheetError: the file is too large, not of its kind, has no such sheet, or holds
        more than `MAX_ROWS` rows or `MAX_CELLS` cells.
    """
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise SheetError(f"'{path.name}' is not a spreadsheet pnp reads (use .csv, .tsv, .xlsx or .ods)")
    if sheet is not None and kind in ("csv", "tsv"):
        raise SheetError(f"a {kind.upper()} file has no sheets; remove `sheet: {sheet}`")
    check_size(path)
    table = Table([], [])
    if kind in ("csv", "tsv"):
        rows = _text_rows(path, kind, table)
    else:
        rows = (xlsx_rows if kind == "xlsx" else ods_rows)(path, sheet, table)
    _fill(table, rows, kind)
    return table


def _fill(table: Table, rows, kind: str) -> None:
    """Header and data rows from the reader's (row number, cells) pairs, within the limits."""
    cells = 0
    header = None
    try:
        for number, values in rows:
            if all(blank(c) for c in values):
                continue
            cells += len(values)
            if cells > MAX_CELLS:
                raise SheetError(f"more than {MAX_CELLS:,} cells; pnp reads at most that many")
            if header is None:
                header, table.header_row = [str(c).strip() if not blank(c) else "" for c in values], number
                continue
            table.rows.append((number, list(values)))
            if len(table.rows) > MAX_ROWS:
                raise SheetError(f"more than {MAX_ROWS:,} rows; pnp reads at most that many")
    except SheetError:
        raise
    except csv.Error as exc:
        raise SheetError(f"cannot read it as {kind.upper()}: {exc}") from None
    if header is None:
        raise SheetError("the sheet is empty: its first row must name the fields (name, count, ...)")
    while header and not header[-1]:
        header.pop()
    table.header = header


def _text_rows(path: Path, kind: str, table: Table):
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SheetError(f"cannot read it: {exc.strerror or exc}") from None
    text, note = decode(data)
    if note:
        table.notes.append(note)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator(text, "\t" if kind == "tsv" else ","))
    start = 1
    for cells in reader:
        yield start, cells
        start = reader.line_num + 1


def decode(data: bytes) -> tuple[str, str | None]:
    """The text of a text file, and a note when its encoding had to be guessed.

    :raises SheetError: the bytes are no text in any encoding we can tell.
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec), None
            except UnicodeDecodeError as exc:
                raise SheetError(f"it starts with a {codec.upper().replace('-SIG', '')} byte-order mark but is "
                                 f"not valid {codec.upper().replace('-SIG', '')} (byte {exc.start})") from None
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    guessed = _guess(data)
    if guessed is None:
        raise SheetError("it is not UTF-8 and its text encoding cannot be told: save it as \"CSV UTF-8\"")
    name = ENCODING_NAMES.get(guessed, guessed)
    return data.decode(guessed), (f"not UTF-8: read as {name}; if letters look wrong, save it as \"CSV UTF-8\" "
                                "(or \"Unicode text\")")


def _guess(data: bytes) -> str | None:
    """The encoding charset-normalizer finds most likely; Windows-1252 when it fits as well as the
    best (short Western text fits many code pages equally; Excel writes that one)."""
    import charset_normalizer

    wide = ("utf_16", "utf_16_be", "utf_16_le", "utf_32", "utf_32_be", "utf_32_le", "utf_7")
    matches = charset_normalizer.from_bytes(data, cp_exclusion=None if b"\x00" in data else list(wide))
    best = matches.best()
    if best is None:
        return None
    for m in matches:
        if m.chaos <= best.chaos + 0.01 and m.coherence >= best.coherence - 0.05 \
                and "cp1252" in m.could_be_from_charset:
            return "cp1252"
    return best.encoding


def separator(text: str, preferred: str = ",") -> str:
    """The separator that splits the first rows into as many cells as the header (with at least
    two columns); `preferred` (the file kind's own) when none does better."""
    sample = text[:65536]
    if len(text) > len(sample) and "\n" in sample:
        sample = sample[:sample.rindex("\n")]
    best, best_score = preferred, (False, 0.0, 0)
    for sep in (preferred, *(s for s in SEPARATORS if s != preferred)):
        try:
            rows = [r for r in itertools.islice(csv.reader(io.StringIO(sample, newline=""), delimiter=sep), 50)
                    if any(c.strip() for c in r)]
        except csv.Error:
            continue
        if not rows:
            continue
        width = len(rows[0])
        agree = sum(len(r) == width for r in rows[1:]) / max(1, len(rows) - 1)
        score = (width >= 2, agree, width)
        if score > best_score:
            best, best_score = sep, score
    return best
