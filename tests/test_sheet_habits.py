"""Spreadsheets as designers keep them: saved by Excel in its encodings and separators, with
headers written as people write them, no id column, notes columns, misspellings and formulas.
Every file here is a real file written by the test (CSV bytes, XLSX by openpyxl, ODS by odfpy)."""
from __future__ import annotations

import re
import zipfile

import openpyxl
import pytest

from generator.data.load import load_game
from generator.errors import InputError
from generator.session import Session
from tests.conftest import run
from tests.test_spreadsheets import with_table, write_ods

ROWS = [  # a designer's sheet: capitalised headers, Qty for the count, no id, a notes column
    ["Name", "Qty", "Cost", "Text", "Notes"],
    ["Café Noir", 2, 1, "Gain 2 coins – then rest.", "from playtest 3"],
    ["Stone Wall", 1, 4, "Block every attack.", ""],
    ["Stone Wall", 3, 4, "Block one attack.", "cheaper copy"],
    ["Zoë's Façade", 1, 0, "Naïve but “strong”.", ""],
]


def sheet(mini, spec="{from: cards.csv}", deck_extra=""):
    root = mini("- {id: a, name: A, text: x}", deck_extra=deck_extra)
    with_table(root / "cards" / "mini" / "deck.yaml", spec)
    return root, root / "cards" / "mini"


def csv_text(rows, sep=",") -> str:
    def cell(v):
        v = "" if v is None else str(v)
        return f'"{v}"' if any(c in v for c in (sep, '"', "\n")) else v
    return "\r\n".join(sep.join(cell(v) for v in r) for r in rows) + "\r\n"


def cards_of(root):
    return {c.id: c for c in load_game(root, "mini", Session()).decks[0].cards}


def problems(root):
    with pytest.raises(InputError) as info:
        load_game(root, "mini", Session())
    return [str(p) for p in info.value.problems]


def expected(cards):
    assert sorted(cards) == ["cafe-noir", "stone-wall", "stone-wall-2", "zoe-s-facade"]
    assert cards["cafe-noir"].name == "Café Noir" and cards["cafe-noir"].count == 2
    assert cards["cafe-noir"].fields["text"] == "Gain 2 coins – then rest."
    assert cards["zoe-s-facade"].fields["text"] == "Naïve but “strong”."
    assert (cards["stone-wall"].count, cards["stone-wall-2"].count) == (1, 3)
    assert "Notes" not in cards["cafe-noir"].fields and "notes" not in cards["cafe-noir"].fields


@pytest.mark.parametrize("name, encoding, sep, note", [
    ("cards.csv", "cp1252", ",", "Windows-1252"),          # Excel's "CSV (Comma delimited)" on Windows
    ("cards.csv", "cp1252", ";", "Windows-1252"),          # ... in a country whose decimal mark is a comma
    ("cards.csv", "utf-8-sig", ",", None),                 # Excel's "CSV UTF-8": a byte-order mark
    ("cards.csv", "utf-8", ";", None),                     # LibreOffice, semicolons
    ("cards.txt", "utf-16", "\t", None),                   # Excel's "Unicode text": UTF-16 with BOM, tabs
    ("cards.tsv", "utf-8", "\t", None),
    ("cards.csv", "utf-8", "|", None),
])
def test_text_files_in_every_encoding_and_separator_excel_writes(mini, name, encoding, sep, note):
    root, folder = sheet(mini, f"{{from: {name}}}")
    (folder / name).write_bytes(csv_text(ROWS, sep).encode(encoding))
    expected(cards_of(root))
    result = run(root, "validate", "--no-render")
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("note:")]
    said = [n for n in notes if "not UTF-8" in n]
    if note:
        assert len(said) == 1 and note in said[0] and f"cards/mini/{name}" in said[0], notes
    else:
        assert said == [], notes
    ignored = [n for n in notes if "does not use" in n]  # the Notes column, said once
    assert ignored == [f"note: cards/mini/{name}:1: columns this deck does not use, ignored: Notes "
                       "(declare them in `fields:` to use them)"], notes


def test_a_semicolon_sheet_whose_cells_hold_commas_is_still_read_by_semicolons(mini):
    root, folder = sheet(mini)
    (folder / "cards.csv").write_text("Name;Text\nAlpha;Gain 2, then draw\nBeta;Rest, then draw, then rest\n")
    cards = cards_of(root)
    assert cards["alpha"].fields["text"] == "Gain 2, then draw"


@pytest.mark.parametrize("count_header", ["Qty", "quantity", "COPIES", "Count"])
def test_headers_match_fields_whatever_their_case_and_spacing(mini, count_header):
    root, folder = sheet(mini, deck_extra="")
    deck = folder / "deck.yaml"
    deck.write_text(deck.read_text().replace("  cost: {type: integer, minimum: 0}\n",
                                             "  cost: {type: integer, minimum: 0}\n  play_time: {type: integer}\n"))
    (folder / "cards.csv").write_text(f" ID ,NAME,{count_header},Text, Play Time ,cost\nx1,One,3,Hi,5,2\n")
    card = cards_of(root)["x1"]
    assert (card.name, card.count, card.fields["play_time"], card.fields["cost"]) == ("One", 3, 5, 2)


def test_columns_mapping_renames_any_header(mini):
    root, folder = sheet(mini, "{from: cards.csv, columns: {Card Title: name, Rules Text: text, Price: cost}}")
    (folder / "cards.csv").write_text("Card Title,Rules Text,Price\nGreat Hall,Score 3.,5\n")
    card = cards_of(root)["great-hall"]
    assert (card.name, card.fields["text"], card.fields["cost"]) == ("Great Hall", "Score 3.", 5)


def test_columns_mapping_mistakes_point_at_the_deck(mini):
    root, folder = sheet(mini, "{from: cards.csv, columns: {Card Title: nmae, Gone: text}}")
    (folder / "cards.csv").write_text("Card Title,Text\nGreat Hall,Score 3.\n")
    found = problems(root)
    assert any("deck.yaml" in p and "no field 'nmae'; did you mean `name`?" in p for p in found), found
    assert any("deck.yaml" in p and "has no column 'Gone'" in p for p in found), found


def test_ids_made_from_names_are_unique_and_stable(mini):
    root, folder = sheet(mini)
    (folder / "cards.csv").write_text("name,text\nStone Wall,a\nStone Wall,b\nstone-wall-2,c\nStone  Wall!,d\n")
    first = [c.id for c in load_game(root, "mini", Session()).decks[0].cards]
    assert first == ["stone-wall", "stone-wall-2", "stone-wall-2-2", "stone-wall-3"]
    assert [c.id for c in load_game(root, "mini", Session()).decks[0].cards] == first


def test_a_row_without_a_name_is_an_error_at_its_row(mini):
    root, folder = sheet(mini)
    (folder / "cards.csv").write_text("name,text\nAlpha,a\n,orphan text\nGamma,c\n")
    assert problems(root) == ["cards/mini/cards.csv:3: name: the row has no name (a card's id is made from its "
                              "name when the sheet has no id)"]


def test_unused_columns_are_an_error_only_under_strict_columns(mini):
    root, folder = sheet(mini, "{from: cards.csv, strict_columns: true}")
    (folder / "cards.csv").write_text("name,text,Artist\nAlpha,a,Ann\n")
    found = problems(root)
    assert len(found) == 1 and "cards/mini/cards.csv:1: column 'Artist' is not a field of this deck" in found[0]


def test_a_misspelt_header_on_a_long_sheet_is_one_error_at_the_header(mini):
    root, folder = sheet(mini)
    rows = ["id,name,cots,text"] + [f"c{n},Card {n},{n % 5},Text {n}" for n in range(1, 31)]
    (folder / "cards.csv").write_text("\n".join(rows) + "\n")
    assert problems(root) == ["cards/mini/cards.csv:1: column 'cots' is not a field of this deck: did you mean "
                              "`cost`?"]
    result = run(root, "validate", "--no-render")
    assert result.exit_code == 2 and result.output.count("cards.csv") == 1, result.output


def test_a_required_field_without_a_column_is_one_error(mini):
    root, folder = sheet(mini)
    (folder / "cards.csv").write_text("id,name,cost\n" + "".join(f"c{n},C{n},1\n" for n in range(20)))
    assert problems(root) == ["cards/mini/cards.csv:1: no column for the required field `text` (columns: id, "
                              "name, cost)"]


def test_row_errors_come_in_row_order(mini):
    root, folder = sheet(mini)
    rows = ["id,name,cost,text"] + [f"c{n},C{n},{'x' if n % 3 == 0 else n},t" for n in range(1, 14)]
    (folder / "cards.csv").write_text("\n".join(rows) + "\n")
    lines = [int(p.split(":")[1]) for p in problems(root)]
    assert lines == [4, 7, 10, 13] and lines == sorted(lines)


def test_cells_beyond_the_header_are_an_error_naming_the_row(mini):
    root, folder = sheet(mini)
    (folder / "cards.csv").write_text("name,text\nAlpha,a\nBeta,b,stray\nGamma,c\n")
    assert problems(root) == ["cards/mini/cards.csv:3: cell C3 beyond the last column: give the column a "
                              "header, or empty the cells"]


def xlsx_with_unsaved_formula(path):
    """A real XLSX written by openpyxl, its formula cells then stripped of any cached value (the
    `<v>` beside each `<f>`), as a script that never computes them leaves them."""
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Deck"
    for row in [["name", "cost", "text"], ["Alpha", "=1+1", "a"], ["Beta", "three", "b"], ["Gamma", "=2*2", "c"]]:
        ws.append(row)
    book.save(path)
    with zipfile.ZipFile(path) as zf:
        parts = {i.filename: zf.read(i) for i in zf.infolist()}
    sheet_xml = parts["xl/worksheets/sheet1.xml"].decode()
    parts["xl/worksheets/sheet1.xml"] = re.sub(r"(</f>)<v>[^<]*</v>|(</f>)<v/>", r"\1\2", sheet_xml).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    xml = parts["xl/worksheets/sheet1.xml"].decode()
    assert "<f>1+1</f></c>" in xml and "<f>2*2</f></c>" in xml  # a formula, and no value beside it


def ods_with_unsaved_formula(path):
    """A real ODS whose formula cells carry no office:value (as a script writes them)."""
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    table = Table(name="Deck")
    for row in [["name", "cost", "text"], ["Alpha", "of:=1+1", "a"], ["Beta", "three", "b"], ["Gamma", "of:=2*2", "c"]]:
        tr = TableRow()
        for v in row:
            if v.startswith("of:="):
                tr.addElement(TableCell(formula=v, valuetype="float"))  # no value, no text: never computed
            else:
                cell = TableCell(valuetype="string")
                cell.addElement(P(text=v))
                tr.addElement(cell)
        table.addElement(tr)
    doc.spreadsheet.addElement(table)
    doc.save(str(path))
    with zipfile.ZipFile(path) as zf:
        xml = zf.read("content.xml").decode()
    assert 'table:formula="of:=1+1"' in xml and "office:value=" not in xml


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_formulas_without_a_saved_value_are_named_with_every_other_problem(mini, kind):
    root, folder = sheet(mini, f"{{from: cards.{kind}}}")
    (xlsx_with_unsaved_formula if kind == "xlsx" else ods_with_unsaved_formula)(folder / f"cards.{kind}")
    found = problems(root)
    formula = "=1+1" if kind == "xlsx" else "=1+1"
    assert found == [
        f"cards/mini/cards.{kind}:2: cost: cells B2, B4 hold a formula ({formula}) whose value was never saved: "
        "open and save the file in your spreadsheet program",
        f"cards/mini/cards.{kind}:3: card beta: cost: expected integer, got string 'three'",
    ]
    result = run(root, "validate", "--no-render")
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_ods_with_a_saved_formula_value_reads_the_value(mini, tmp_path):
    root, folder = sheet(mini, "{from: cards.ods}")
    write_ods(folder / "cards.ods", [["name", "cost", "text"], ["Alpha", 2, "a  b"]])
    assert cards_of(root)["alpha"].fields["cost"] == 2


def test_summary_counts_the_games_rules(tmp_path):
    assert run(tmp_path, "new", "x").exit_code == 0
    result = run(tmp_path, "validate", "x", "--no-render")
    assert "x: 3 rules, 0 errors, 0 warnings — OK" in result.output
    deck = tmp_path / "cards" / "x" / "cards.yaml"
    deck.write_text(deck.read_text().replace("{id: strike, name: Strike, count: 3, cost: 1,",
                                             "{id: strike, name: Strike, count: 3, cots: 1,"))
    result = run(tmp_path, "validate", "x", "--no-render")
    assert "x: rules not run (the data cannot be read), 2 errors, 0 warnings" in result.output, result.output


def test_a_sheet_without_the_ids_the_rulebook_names_is_a_clean_error(tmp_path):
    """The starter's rulebook shows `cards:strike,shield,market`; a sheet without ids makes other
    ids, and the figure says which it cannot find (it used to be a KeyError)."""
    assert run(tmp_path, "new", "x").exit_code == 0
    deck = tmp_path / "cards" / "x" / "cards.yaml"
    text = deck.read_text()
    deck.write_text(text[:text.index("\ncards:\n") + 1] + "cards: {from: cards.csv}\n")
    (tmp_path / "cards" / "x" / "cards.csv").write_text(
        "Name,Qty,Cost,Type,Text\nSmash,4,1,Attack,Hit.\nParry,5,1,Defend,Block.\nShop,5,0,Trade,Buy.\n")
    result = run(tmp_path, "validate", "x")
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "cards/x/rulebook.md:18: error: x/render: figure names unknown card 'strike'" in result.output
