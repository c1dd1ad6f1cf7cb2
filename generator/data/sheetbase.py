"""What every spreadsheet reader shares: the limits, the error, the table they fill.

In: nothing (constants and small types). Out: `SheetError` (a file that is not a readable
table, said in the designer's words), `Table` (header, rows, notes, unsaved formula cells),
`check_size` (a regular file of at most `MAX_FILE_BYTES`, checked before a byte is read) and
`blank`. `tablefile` reads text files and picks the reader; `workbook` reads XLSX and ODS.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

FORMATS = {".csv": "csv", ".tsv": "tsv", ".txt": "tsv", ".xlsx": "xlsx", ".xlsm": "xlsx", ".ods": "ods"}
MAX_FILE_BYTES = 16 * 2**20        # a 33 MB workbook or a 300 MB CSV is refused before it is parsed
MAX_UNZIPPED_BYTES = 64 * 2**20    # XLSX/ODS: the parts' declared sizes, added up
MAX_ROWS = 100_000
MAX_CELLS = 1_000_000


class SheetError(Exception):
    """The file cannot be read as a table (message for designers)."""


@dataclass
class Table:
    """One sheet: `header` (cell texts, trailing blanks cut), `rows` [(row number, [cell...])],
    `header_row` (the header's row number), `notes` (said once), `unsaved` [(row number, column
    index, formula)] (formula cells read as empty because no value was saved with them)."""

    header: list[str]
    rows: list[tuple[int, list]]
    header_row: int = 1
    notes: list[str] = field(default_factory=list)
    unsaved: list[tuple[int, int, str]] = field(default_factory=list)


def check_size(path: Path) -> None:
    try:
        info = os.stat(path)
    except OSError as exc:
        raise SheetError(f"cannot read it: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise SheetError("it is not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise SheetError(f"it is {info.st_size / 2**20:.1f} MB; pnp reads spreadsheets of at most "
                         f"{MAX_FILE_BYTES // 2**20} MB")


def blank(value) -> bool:
    """An empty cell: nothing, or only spaces."""
    return value is None or (isinstance(value, str) and not value.strip())
