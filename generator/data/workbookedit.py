"""The text of some cells of an XLSX or ODS sheet changed in place: `pnp lint --fix` on a workbook.

In: a workbook's bytes, its kind (`xlsx`, `ods`), the sheet a deck reads (None: the first),
the cells wanted as {row number: {a cell's text as read, spaces at its ends cut}} and `fix`
(a cell's text -> its new text). Out: `Edited`: the new bytes, the (row, text) of each cell
changed, and of each cell left alone, why (a formula's result, text in formatted runs, a
repeated row or cell). `WorkbookRefused`: the file cannot be edited at all.

Rows are numbered as workbook.py reads them (XLSX: each `<row r=>`; ODS: the rows counted
with their repeats), so a word finding's line is its cell's row. Only those cells' text
changes: the XML parts are parsed by expat (no DTD, no entities) for where each element
starts and ends, and edited as bytes, every other byte of the part as it was; every other
member of the zip is copied as it was stored (zipedit.py). Formulas, styles, comments and
other sheets are untouched.

XLSX: an inline string is edited in the sheet. A shared string (xl/sharedStrings.xml) that
only the changed cells use is edited where it is — two card cells holding the same text
share one, and both are fixed; one that other cells use too (on this sheet or another) is
left to them: the fixed text is added as a new shared string and only the changed cells
point at it. ODS: the cell's paragraphs (`<text:p>`) in content.xml, spaces written as ODF
writes them (`<text:s/>`).
"""
from __future__ import annotations

import io
import posixpath
import re
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from xml.parsers import expat
from xml.sax.saxutils import escape

from .zipedit import ZipRefused, replaced

ODS_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
ODS_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
ODS_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_TAG_END = re.compile(rb"""<[^"'>]*(?:(?:"[^"]*"|'[^']*')[^"'>]*)*>""")
_EXCEL_ESCAPE = re.compile(rb"_x[0-9A-Fa-f]{4}_")
_ROW_GROUPS = ("table-header-rows", "table-row-group", "table-rows")


class WorkbookRefused(Exception):
    """The workbook cannot be edited cell by cell (message for designers)."""


@dataclass
class Edited:
    data: bytes
    changed: set[tuple[int, str]] = field(default_factory=set)
    left: dict[tuple[int, str], str] = field(default_factory=dict)


class _Node:
    """An element: its name, attributes ("uri local" keys) and where it is in the part's bytes."""

    __slots__ = ("uri", "local", "prefix", "attrs", "start", "open_end", "close", "end", "items")

    def __init__(self, name: str, attrs: dict, start: int):
        parts = name.split(" ")
        self.uri, self.local = (parts[0], parts[1]) if len(parts) > 1 else ("", parts[0])
        self.prefix = parts[2] if len(parts) > 2 else ""
        self.attrs = {" ".join(k.split(" ")[:2]): v for k, v in attrs.items()}
        self.start = self.open_end = self.close = self.end = start
        self.items: list = []          # text and child nodes, in order

    def children(self, local: str | None = None) -> list[_Node]:
        return [n for n in self.items if isinstance(n, _Node) and (local is None or n.local == local)]

    def attr(self, uri: str, local: str) -> str | None:
        return self.attrs.get(f"{uri} {local}" if uri else local)

    def text(self) -> str:
        return "".join(n if isinstance(n, str) else n.text() for n in self.items)

    def qname(self, local: str) -> str:
        return f"{self.prefix}:{local}" if self.prefix else local


def _tree(data: bytes, part: str) -> _Node:
    """The elements of an XML part, each with where its tags start and end."""
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.namespace_prefixes = True
    top = _Node("document", {}, 0)
    stack = [top]

    def start(name, attrs):
        node = _Node(name, attrs, parser.CurrentByteIndex)
        node.open_end = _tag_end(data, node.start)
        stack[-1].items.append(node)
        stack.append(node)

    def end(_name):
        node = stack.pop()
        if data[node.open_end - 2:node.open_end] == b"/>":     # <empty/>
            node.close = node.end = node.open_end
        else:
            node.close = parser.CurrentByteIndex
            node.end = _tag_end(data, node.close)

    def refuse(*_):
        raise WorkbookRefused(f"its part {part} declares a DTD or entities, which pnp does not read")

    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.CharacterDataHandler = lambda text: stack[-1].items.append(text)
    parser.StartDoctypeDeclHandler = parser.EntityDeclHandler = refuse
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise WorkbookRefused(f"its part {part} is not well-formed XML ({exc})") from None
    return top


def _tag_end(data: bytes, at: int) -> int:
    found = _TAG_END.match(data, at)
    if found is None:
        raise WorkbookRefused("a tag of the workbook has no end")
    return found.end()


def _spliced(data: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    out, last = [], 0
    for start, end, new in sorted(edits):
        out += [data[last:start], new]
        last = end
    return b"".join(out) + data[last:]


def edit_workbook(data: bytes, kind: str, sheet: str | None, wanted: dict[int, set[str]],
                  fix: Callable[[str], str]) -> Edited:
    """The workbook with the wanted cells' text fixed (see the module's docstring)."""
    try:
        book = zipfile.ZipFile(io.BytesIO(data))
        parts = {name: book.read(name) for name in book.namelist() if name.endswith((".xml", ".rels"))}
    except Exception as exc:   # zip and inflate errors of every kind: the file is not sound
        raise WorkbookRefused(f"cannot read it as {kind.upper()}: {type(exc).__name__}: {exc}") from None
    out = Edited(data)
    new = (_xlsx if kind == "xlsx" else _ods)(parts, sheet, wanted, fix, out)
    if new:
        try:
            out.data = replaced(data, new)
        except ZipRefused as exc:
            raise WorkbookRefused(str(exc)) from None
    return out


def _pick(names: list[str], sheet: str | None) -> int:
    if not names:
        raise WorkbookRefused("the file has no sheets")
    if sheet is None:
        return 0
    if sheet not in names:
        raise WorkbookRefused(f"it has no sheet '{sheet}'")
    return names.index(sheet)


# ---- XLSX ---------------------------------------------------------------------------------------

def _rels(parts: dict[str, bytes], part: str) -> dict[str, tuple[str, str]]:
    """A part's relationships: id -> (type, the target's part name)."""
    folder, name = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", name + ".rels")
    if rels not in parts:
        return {}
    found = {}
    for rel in _tree(parts[rels], rels).children()[0].children("Relationship"):
        target = rel.attr("", "Target") or ""
        path = target[1:] if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        found[rel.attr("", "Id") or ""] = (rel.attr("", "Type") or "", path)
    return found


def _xlsx(parts, sheet, wanted, fix, out: Edited) -> dict[str, bytes]:
    main = next((p for t, p in _rels(parts, "").values() if t.endswith("/officeDocument")), "xl/workbook.xml")
    if main not in parts:
        raise WorkbookRefused("it is not an XLSX file (it has no workbook part)")
    rels = _rels(parts, main)
    sheets = [s for top in _tree(parts[main], main).children() for group in top.children("sheets")
              for s in group.children("sheet")]
    chosen = sheets[_pick([s.attr("", "name") or "" for s in sheets], sheet)]
    rid = next((v for k, v in chosen.attrs.items() if k.endswith(" id")), None)
    sheet_part = rels.get(rid or "", ("", ""))[1]
    strings_part = next((p for t, p in rels.values() if t.endswith("/sharedStrings")), "")
    if sheet_part not in parts:
        raise WorkbookRefused(f"its sheet '{chosen.attr('', 'name')}' has no worksheet part")
    sheet_tree = _tree(parts[sheet_part], sheet_part)
    strings = _tree(parts[strings_part], strings_part).children()[0] if strings_part in parts else None
    items = strings.children("si") if strings is not None else []
    sheet_edits: list[tuple[int, int, bytes]] = []
    shared: dict[int, list[tuple[_Node, int, str]]] = {}    # index -> (its <v>, row, text) of each cell to fix
    for number, cell in _xlsx_cells(sheet_tree):
        kind = cell.attr("", "t")
        if kind not in ("s", "inlineStr", "str") or number not in wanted:
            continue
        value = (cell.children("v") or [None])[0]
        if kind == "s":
            index = int(value.text()) if value is not None and value.text().strip().isdigit() else -1
            if not 0 <= index < len(items):
                continue
            holder = items[index]
        else:
            holder = (cell.children("is") or [None])[0]
        text = _item_text(holder) if kind != "str" else (value.text() if value is not None else "")
        key = text.strip()
        if key not in wanted[number]:
            continue
        plain = _plain(holder, parts[strings_part if kind == "s" else sheet_part]) if kind != "str" else None
        if kind == "str" or cell.children("f"):
            out.left[number, key] = "the cell holds a formula: fix the formula by hand"
        elif plain is None:
            out.left[number, key] = "the cell's text is in formatted runs or escaped: fix it in your spreadsheet"
        elif fix(text) != text:
            if kind == "s" and value is not None:
                shared.setdefault(index, []).append((value, number, fix(text)))
            else:
                sheet_edits.append(_text_edit(plain, fix(text)))
            out.changed.add((number, key))
    new: dict[str, bytes] = {}
    if shared and strings is not None:
        string_edits, sheet_edits2 = _shared_edits(parts, rels, sheet_part, strings, items, shared)
        new[strings_part] = _spliced(parts[strings_part], string_edits)
        sheet_edits += sheet_edits2
    if sheet_edits:
        new[sheet_part] = _spliced(parts[sheet_part], sheet_edits)
    return new


def _xlsx_cells(tree: _Node):
    """(row number, cell) of a worksheet, rows numbered as openpyxl numbers them."""
    number = 0
    for top in tree.children():
        for data in top.children("sheetData"):
            for row in data.children("row"):
                given = row.attr("", "r")
                number = int(given) if given and given.isdigit() else number + 1
                for cell in row.children("c"):
                    yield number, cell


def _item_text(holder: _Node | None) -> str:
    """A string item's text as openpyxl reads it: its `<t>`s, of runs too (not phonetic ones,
    nor the spaces an indented file puts between elements)."""
    if holder is None:
        return ""
    return "".join(n.text() if n.local == "t" else "".join(t.text() for t in n.children("t"))
                   for n in holder.children() if n.local in ("t", "r"))


def _plain(holder: _Node | None, data: bytes) -> _Node | None:
    """The one `<t>` of a plain string item (no runs, no phonetics, no _xHHHH_ escapes), or None."""
    if holder is None:
        return None
    kids = holder.children()
    if len(kids) != 1 or kids[0].local != "t" or _EXCEL_ESCAPE.search(data, kids[0].open_end, kids[0].close):
        return None
    return kids[0]


def _text_edit(t: _Node, text: str) -> tuple[int, int, bytes]:
    return t.open_end, t.close, escape(text).encode("utf-8")


def _shared_edits(parts, rels, sheet_part, strings: _Node, items, shared):
    """Edits of the shared strings (in place, or new items) and of the sheet's `<v>`s."""
    uses: Counter = Counter()
    for kind, part in rels.values():
        if kind.endswith("/worksheet") and part in parts:
            tree = _tree(parts[part], part)
            for _, cell in _xlsx_cells(tree):
                value = cell.children("v")
                if cell.attr("", "t") == "s" and value and value[0].text().strip().isdigit():
                    uses[int(value[0].text())] += 1
    strings_part = next(p for t, p in rels.values() if t.endswith("/sharedStrings"))
    data = parts[strings_part]
    string_edits, sheet_edits, added = [], [], []
    for index, cells in shared.items():
        t = _plain(items[index], data)
        if uses[index] == len(cells) and t is not None:
            string_edits.append(_text_edit(t, cells[0][2]))
            continue
        for text in dict.fromkeys(c[2] for c in cells):
            added.append(text)
            new_index = len(items) + len(added) - 1
            for value, _, fixed in cells:
                if fixed == text:
                    sheet_edits.append((value.open_end, value.close, str(new_index).encode()))
    if added:
        si, tq = strings.qname("si"), strings.qname("t")
        string_edits.append((strings.close, strings.close, "".join(
            f'<{si}><{tq} xml:space="preserve">{escape(text)}</{tq}></{si}>' for text in added).encode("utf-8")))
        head = data[strings.start:strings.open_end]
        count = re.search(rb"""\buniqueCount\s*=\s*["'](\d+)["']""", head)
        if count:
            string_edits.append((strings.start + count.start(1), strings.start + count.end(1),
                                 str(int(count.group(1)) + len(added)).encode()))
    return string_edits, sheet_edits


# ---- ODS ----------------------------------------------------------------------------------------

def _ods(parts, sheet, wanted, fix, out: Edited) -> dict[str, bytes]:
    if "content.xml" not in parts:
        raise WorkbookRefused("it is not an ODS file (it has no content.xml)")
    data = parts["content.xml"]
    tree = _tree(data, "content.xml")
    tables = [t for top in tree.children() for body in top.children("body") for book in body.children("spreadsheet")
              for t in book.children("table")]
    names = [t.attr(ODS_TABLE, "name") or f"Sheet{n + 1}" for n, t in enumerate(tables)]
    chosen = tables[_pick(names, sheet)]
    edits: list[tuple[int, int, bytes]] = []
    for number, repeat, row in _ods_rows(chosen):
        asked = {n: wanted[n] for n in range(number, number + repeat) if n in wanted}
        for cell in row.children():
            if cell.local not in ("table-cell", "covered-table-cell"):
                continue
            paragraphs = [p for p in cell.children("p") if p.uri == ODS_TEXT]
            text = "\n".join(_ods_text(p) for p in paragraphs)
            key = text.strip()
            hits = [n for n, texts in asked.items() if key in texts]
            if not hits or (cell.attr(ODS_OFFICE, "value-type") or "string") != "string":
                continue
            why = _ods_refused(cell, paragraphs, repeat)
            if why:
                out.left.update({(n, key): why for n in hits})
                continue
            new = fix(text)
            if new == text:
                continue
            pieces = new.split("\n")
            for p in paragraphs:
                lines = _ods_text(p).count("\n") + 1
                edits.append((p.open_end, p.close, _odf_text("\n".join(pieces[:lines]), p)))
                pieces = pieces[lines:]
            out.changed.update((n, key) for n in hits)
    return {"content.xml": _spliced(data, edits)} if edits else {}


def _ods_rows(table: _Node):
    """(row number, how many rows it stands for, row) of an ODS table, as workbook.py counts them."""
    number = 1
    stack = list(reversed(table.children()))
    while stack:
        node = stack.pop()
        if node.local in _ROW_GROUPS:
            stack.extend(reversed(node.children()))
        elif node.local == "table-row":
            repeat = int(node.attr(ODS_TABLE, "number-rows-repeated") or 1)
            yield number, repeat, node
            number += repeat


def _ods_refused(cell: _Node, paragraphs: list[_Node], repeat: int) -> str | None:
    if cell.attr(ODS_TABLE, "formula"):
        return "the cell holds a formula: fix the formula by hand"
    if repeat > 1 or int(cell.attr(ODS_TABLE, "number-columns-repeated") or 1) > 1:
        return "the cell is repeated (one cell written for several): fix it in your spreadsheet program"
    if cell.attr(ODS_OFFICE, "string-value") is not None or not paragraphs or any(
            k.local not in ("s", "tab", "line-break") for p in paragraphs for k in p.children()):
        return "the cell's text is in formatted runs: fix it in your spreadsheet program"
    return None


def _ods_text(p: _Node) -> str:
    """A paragraph's text as workbook.py reads it."""
    out = []
    for item in p.items:
        if isinstance(item, str):
            out.append(item)
        elif item.local == "s":
            out.append(" " * min(int(item.attr(ODS_TEXT, "c") or 1), 1000))
        elif item.local == "tab":
            out.append("\t")
        elif item.local == "line-break":
            out.append("\n")
        elif item.local != "annotation":
            out.append(_ods_text(item))
    return "".join(out)


def _odf_text(text: str, p: _Node) -> bytes:
    """A paragraph's new content: spaces that ODF would collapse written as `<text:s/>`."""
    space, tab, brk = p.qname("s"), p.qname("tab"), p.qname("line-break")
    out: list[str] = []
    for part in filter(None, re.split(r"( +|\t|\n)", text)):
        opens = not out or out[-1].startswith("<")     # ODF drops spaces opening a paragraph or after a tag
        if part == "\t":
            out.append(f"<{tab}/>")
        elif part == "\n":
            out.append(f"<{brk}/>")
        elif part.startswith(" ") and (len(part) > 1 or opens):
            many = len(part) - (0 if opens else 1)
            out.append(("" if opens else " ") + (f'<{space} {p.qname("c")}="{many}"/>' if many > 1
                                                  else f"<{space}/>"))
        else:
            out.append(escape(part))
    return "".join(out).encode("utf-8")
