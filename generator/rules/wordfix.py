"""The mechanical word findings fixed in the files they were found in: `pnp lint --fix`.

In: a game's root and its word findings (words.py). Out: for each YAML file holding a
`quotes` or `double-space` finding, its new text — every other character of the file as
it was: comments, order, indentation, the style of each scalar (plain, '...', "...", a
block) — and the findings that could not be fixed, with why. Only the characters of the
flagged scalars change, edited where they are written (PyYAML's marks give each scalar's
place); the new text is read back and must give the same data but the fixed values, or the
file is left alone. A CSV or TSV sheet is edited the same way, cell by cell (each cell
quoted as it was, or as CSV needs), and read back the same. Writing is the caller's
(exports/files.write_atomic: never through a link). An XLSX or ODS sheet or a rulebook is not
rewritten: its findings are reported as not fixed.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..data.tablefile import separator
from ..guard import OutsideProject, read_text_inside
from .style import fixed
from .words import FIXABLE

TEXT_FILES = (".yaml", ".yml", ".csv", ".tsv")


@dataclass(frozen=True)
class Fixed:
    file: str                 # as shown (relative to the project)
    text: str                 # the file's new text
    values: int               # how many values changed


def fixes(root: Path, findings) -> tuple[list[Fixed], list[tuple]]:
    """(the files to write, (finding, why) of each finding not fixed)."""
    wanted: dict[str, dict[str, dict]] = {}   # file -> text as found -> {"quotes": style, "spaces": True}
    left: list[tuple] = []
    for f in findings:
        if f.rule not in FIXABLE:
            continue
        if not f.file.endswith(TEXT_FILES):
            left.append((f, "only YAML, CSV and TSV files are rewritten"))
            continue
        how = wanted.setdefault(f.file, {}).setdefault(f.found, {})
        how["quotes" if f.rule == "quotes" else "spaces"] = f.expected if f.rule == "quotes" else True
    done = []
    for file, texts in wanted.items():
        path = root / file
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
            done.append(Fixed(file, new, count))
        else:
            left += [(f, why) for f in findings if f.file == file and f.rule in FIXABLE]
    return done, left


def target(value: str, how: dict) -> str:
    """A flagged value as it is to be written."""
    return fixed(value, how.get("quotes"), spaces=bool(how.get("spaces")))


def _refused(root: Path, path: Path, file: str) -> str | None:
    if path.is_symlink():
        return "the file is a link: pnp never writes through one"
    try:
        read_text_inside(root, path, file)
    except OutsideProject as exc:
        return str(exc)
    return None


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
