"""`pnp lint --fix` on XLSX and ODS card sheets (issue 41): the flagged cells' text changes
inside the zip and nothing else does — every other member as it was stored, the member
order, ODS's `mimetype` first and stored, formulas, styles, comments and the other sheets —
and the file reads back with the fixed text.

A text shared by two flagged cells (one XLSX shared string) is fixed once for both; a text
a flagged cell shares with a cell that is not flagged (here on the other sheet) is left to
that cell: the fixed cell gets a shared string of its own.
"""
from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest

from generator.data.sheetbase import Table
from generator.data.tablefile import read_table
from generator.data.workbook import ods_rows
from generator.data.workbookedit import WorkbookRefused, edit_workbook
from generator.data.zipedit import ZipRefused, replaced
from tests.conftest import run
from tests.test_words import make

SAY, DONT, CLEAN = 'Say "hi"  now', "Don't  stop", "Plain “curly” text"
SAY_FIXED, DONT_FIXED = "Say “hi” now", "Don’t stop"
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def sheet_game(tmp_path: Path, name: str) -> tuple[Path, Path]:
    root = make(tmp_path, '- {id: z, text: "x"}', glossary="quotes: curly\n")
    deck = root / "cards" / "w" / "deck.yaml"
    deck.write_text(deck.read_text().split("cards:\n")[0] + f"cards: {{from: {name}, sheet: Cards}}\n")
    return root, root / "cards" / "w" / name


def members(path: Path) -> list[tuple[str, int, int, bytes]]:
    """Each member: name, method, CRC and its bytes as stored (compressed)."""
    data = path.read_bytes()
    out = []
    with zipfile.ZipFile(path) as book:
        for info in book.infolist():
            at = info.header_offset
            start = at + 30 + int.from_bytes(data[at + 26:at + 28], "little") \
                + int.from_bytes(data[at + 28:at + 30], "little")
            out.append((info.filename, info.compress_type, info.CRC, data[start:start + info.compress_size]))
    return out


def test_lint_fix_edits_only_the_flagged_cells_of_an_xlsx(tmp_path):
    root, path = sheet_game(tmp_path, "cards.xlsx")
    book = openpyxl.Workbook()
    cards = book.active
    cards.title = "Cards"
    for row in (["id", "name", "text", "calc"], ["a", "A", SAY, "=LEN(C2)"], ["b", "B", SAY, None],
                ["c", "C", DONT, None], ["d", "D", CLEAN, None]):
        cards.append(row)
    cards["B2"].font = openpyxl.styles.Font(bold=True)
    cards["B3"].comment = openpyxl.comments.Comment("check the art", "designer")
    book.create_sheet("Notes").append([DONT, "a note"])
    book.save(path)
    inline = path.read_bytes()
    as_excel_writes(path)
    before = members(path)

    result = run(root, "lint", "w", "--fix", "--trusted")
    assert "cards/w/cards.xlsx: fixed 3 values" in result.stderr, result.output
    after = members(path)
    assert [m[0] for m in after] == [m[0] for m in before]             # the same members, in order
    changed = {b[0] for b, a in zip(before, after) if b != a}
    assert changed == {"xl/sharedStrings.xml", "xl/worksheets/sheet1.xml"}   # all others byte for byte
    assert zipfile.ZipFile(path).testzip() is None

    fixed = openpyxl.load_workbook(path)
    sheet = fixed["Cards"]
    assert [sheet[f"C{n}"].value for n in range(2, 6)] == [SAY_FIXED, SAY_FIXED, DONT_FIXED, CLEAN]
    assert sheet["D2"].value == "=LEN(C2)" and sheet["B2"].font.bold and sheet["B3"].comment.text == "check the art"
    assert [c.value for c in fixed["Notes"][1]] == [DONT, "a note"]    # the same text, not flagged: as it was
    # the two cards sharing one string: that string fixed where it is; the other's given a new one
    strings = zipfile.ZipFile(path).read("xl/sharedStrings.xml").decode()
    assert strings.count(SAY_FIXED) == 1 and "Say &quot;hi&quot;" not in strings and 'Say "hi"' not in strings
    assert DONT.replace("'", "'") in strings and DONT_FIXED in strings
    assert [c for _, c in read_table(path, "Cards").rows][0][:3] == ["a", "A", SAY_FIXED]
    again = run(root, "lint", "w", "--trusted")
    assert "quotes" not in again.stdout and "double-space" not in again.stdout, again.stdout
    # openpyxl's own file: inline strings, edited in the sheet
    edited = edit_workbook(inline, "xlsx", "Cards", {2: {SAY}, 3: {SAY}, 4: {DONT}},
                           lambda t: t.replace("  ", " ").replace('"hi"', "“hi”").replace("'", "’"))
    assert edited.changed == {(2, SAY), (3, SAY), (4, DONT)}
    sheet = openpyxl.load_workbook(io.BytesIO(edited.data))["Cards"]
    assert [sheet[f"C{n}"].value for n in range(2, 6)] == [SAY_FIXED, SAY_FIXED, DONT_FIXED, CLEAN]
    assert sheet["D2"].value == "=LEN(C2)" and sheet["B3"].comment.text == "check the art"


def as_excel_writes(path: Path) -> None:
    """openpyxl writes each text inline in its cell; Excel and LibreOffice keep them once in
    xl/sharedStrings.xml, the cells holding their index: the file made so (indented, as some
    writers do: the spaces between elements are no part of a text)."""
    book = zipfile.ZipFile(path)
    parts = {i.filename: book.read(i) for i in book.infolist()}
    strings: list[str] = []

    def shared(match):
        if match.group(3) not in strings:
            strings.append(match.group(3))
        return f'<c r="{match.group(1)}"{match.group(2)} t="s"><v>{strings.index(match.group(3))}</v></c>'
    sheet = "xl/worksheets/sheet1.xml"
    parts[sheet] = parts[sheet].replace(b"<f>LEN(C2)</f><v></v>", b"<f>LEN(C2)</f><v>12</v>")   # its value saved
    for name in [n for n in parts if n.startswith("xl/worksheets/sheet")]:
        parts[name] = re.sub(r'<c r="(\w+)"((?: s="\d+")?) t="inlineStr"><is><t>([^<]*)</t></is></c>', shared,
                             parts[name].decode()).encode()
    parts["xl/sharedStrings.xml"] = (
        f'<sst xmlns="{MAIN}" uniqueCount="{len(strings)}">'
        + "".join(f"\n  <si>\n    <t>{s}</t>\n  </si>" for s in strings) + "\n</sst>").encode()   # (indented)
    parts["xl/_rels/workbook.xml.rels"] = parts["xl/_rels/workbook.xml.rels"].replace(
        b"</Relationships>", b'<Relationship Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        b'relationships/sharedStrings" Target="sharedStrings.xml" Id="rId9"/></Relationships>')
    parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
        b"</Types>", b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-'
        b'officedocument.spreadsheetml.sharedStrings+xml"/></Types>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data in parts.items():
            out.writestr(name, data)


def write_ods(path: Path) -> None:
    from odf import teletype
    from odf.office import Annotation
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.style import Style, TextProperties
    from odf.table import Table as OdsTable
    from odf.table import TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    bold = Style(name="bold", family="table-cell")
    bold.addElement(TextProperties(fontweight="bold"))
    doc.automaticstyles.addElement(bold)

    def text_cell(value, **kw):
        cell = TableCell(valuetype="string", **kw)
        para = P()
        teletype.addTextToElement(para, value)   # two spaces written as ODF does: " <text:s c=1/>"
        cell.addElement(para)
        return cell

    for name, rows in (("Cards", [["id", "name", "text"], ["a", "A", SAY], ["b", "B", DONT], ["c", "C", CLEAN]]),
                       ("Notes", [[SAY, "a note"]])):
        table = OdsTable(name=name)
        for n, values in enumerate(rows):
            tr = TableRow()
            for k, value in enumerate(values):
                cell = text_cell(value, stylename=bold) if (n, k) == (1, 1) else text_cell(value)
                if (n, k) == (2, 1):
                    note = Annotation()
                    note.addElement(P(text="check the art"))
                    cell.insertBefore(note, cell.firstChild)
                tr.addElement(cell)
            if name == "Cards":
                formula = TableCell(valuetype="float", value=2, formula="of:=1+1")
                formula.addElement(P(text="2"))
                tr.addElement(formula)
            table.addElement(tr)
        doc.spreadsheet.addElement(table)
    doc.save(str(path))


def test_lint_fix_edits_only_the_flagged_cells_of_an_ods(tmp_path):
    root, path = sheet_game(tmp_path, "cards.ods")
    write_ods(path)
    before = members(path)
    old = zipfile.ZipFile(path).read("content.xml")
    assert b'<text:s text:c="1"/>' in old

    result = run(root, "lint", "w", "--fix", "--trusted")
    assert "cards/w/cards.ods: fixed 2 values" in result.stderr, result.output
    after = members(path)
    assert after[0][:2] == ("mimetype", zipfile.ZIP_STORED) == before[0][:2]
    assert [m[0] for m in after] == [m[0] for m in before]
    assert {b[0] for b, a in zip(before, after) if b != a} == {"content.xml"}
    new = zipfile.ZipFile(path).read("content.xml")
    # only the two paragraphs' text changed: every other byte of content.xml as it was
    say, dont = (teletype_xml(SAY), teletype_xml(DONT))
    assert old.count(say) == 2 and old.count(dont) == 1
    first = old.index(say)
    expected = old[:first] + SAY_FIXED.encode() + old[first + len(say):]
    expected = expected.replace(dont, DONT_FIXED.encode())
    assert new == expected
    rows = [c for _, c in read_table(path, "Cards").rows]
    assert [r[2] for r in rows] == [SAY_FIXED, DONT_FIXED, CLEAN] and [r[3] for r in rows] == [2, 2, 2]
    assert list(ods_rows(path, "Notes", Table([], []))) == [(1, [SAY, "a note"])]
    assert b'table:formula="of:=1+1"' in new and b"check the art" in new and b'table:style-name="bold"' in new


def teletype_xml(text: str) -> bytes:
    """The text as odfpy's teletype writes it in content.xml."""
    return text.replace("  ", ' <text:s text:c="1"/>').encode()


def test_a_formula_formatted_runs_or_no_such_sheet_are_left_with_why():
    book = openpyxl.Workbook()
    book.active.append(["id", "text", "more"])
    book.active.append(["a", "=1", "Two  spaces"])
    buf = io.BytesIO()
    book.save(buf)
    with zipfile.ZipFile(buf) as z:
        parts = {i.filename: z.read(i) for i in z.infolist()}
    sheet = "xl/worksheets/sheet1.xml"
    parts[sheet] = parts[sheet].replace(b'<c r="B2"><f>1</f><v></v></c>',   # a formula with its text saved
                                        b'<c r="B2" t="str"><f>"a  "&amp;"b"</f><v>a  b</v></c>')
    parts[sheet] = parts[sheet].replace(b"<is><t>Two  spaces</t></is>",     # rich text: two runs
                                        b"<is><r><t>Two  </t></r><r><rPr><b/></rPr><t>spaces</t></r></is>")
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as z:
        for name, content in parts.items():
            z.writestr(name, content)
    edited = edit_workbook(data.getvalue(), "xlsx", None, {2: {"a  b", "Two  spaces"}},
                           lambda t: t.replace("  ", " "))
    assert edited.data == data.getvalue() and not edited.changed
    assert edited.left[2, "a  b"].startswith("the cell holds a formula")
    assert edited.left[2, "Two  spaces"].startswith("the cell's text is in formatted runs")
    with pytest.raises(WorkbookRefused, match="no sheet 'Nope'"):
        edit_workbook(data.getvalue(), "xlsx", "Nope", {2: {"x"}}, str)
    with pytest.raises(ZipRefused, match="not a zip"):
        replaced(b"nothing", {})
