"""Card data from spreadsheets: CSV, TSV, XLSX and ODS decks print exactly what the same
cards in YAML print, and a bad cell is an error naming the file, the row and the column."""
from __future__ import annotations

import csv
import io

import openpyxl
import pytest
import yaml

from generator.data.load import load_game
from generator.data.spreadsheet import typed
from generator.data.tablefile import read_table
from generator.errors import InputError
from generator.session import Session
from tests.conftest import run

BUILT_IN = ["id", "name", "count", "front", "back"]


def cell(value) -> object:
    """A YAML value written the way a designer types it in a cell."""
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def deck_rows(path) -> list[list]:
    """The cards of a YAML deck as a table: header row, then one row per card."""
    cards = yaml.safe_load(path.read_text())["cards"]
    header = list(dict.fromkeys(k for c in cards for k in c))
    header = [h for h in BUILT_IN if h in header] + [h for h in header if h not in BUILT_IN]
    return [header] + [[cell(c[h]) if h in c else None for h in header] for c in cards]


def with_table(deck_path, spec: str) -> None:
    """Replace the deck's YAML card list by `cards: <spec>`."""
    text = deck_path.read_text()
    head = text[:text.index("\ncards:\n") + 1]
    deck_path.write_text(head + f"cards: {spec}\n")


def write_csv(path, rows, delimiter=","):
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator="\n").writerows(
        [["" if v is None else v for v in r] for r in rows])
    path.write_text(buf.getvalue())


def write_xlsx(path, sheets: dict):
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        ws = book.create_sheet(name)
        for r in rows:
            ws.append(r)
    book.save(path)


def write_ods(path, rows, sheet="Cards"):
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    table = Table(name=sheet)
    for r in rows:
        tr = TableRow()
        for v in r:
            if v is None:
                tc = TableCell()
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                tc = TableCell(valuetype="float", value=v)
                tc.addElement(P(text=str(v)))
            else:
                tc = TableCell(valuetype="string")
                for line in str(v).split("\n"):
                    tc.addElement(P(text=line))
            tr.addElement(tc)
        table.addElement(tr)
    doc.spreadsheet.addElement(table)
    doc.save(str(path))


def sheets_pdf(root, game, out):
    editions = ("--lang", "en") if game == "olympians" else ()   # the cards' own language: what is compared
    sheets = out / game / f"{game}-sheets-a4.pdf"
    sheets.unlink(missing_ok=True)   # what is read is what this build wrote
    result = run(root, "build", game, "--paper", "a4", *editions, "--output", str(out))
    assert result.exit_code == 0, result.output
    return sheets.read_bytes()


@pytest.fixture(scope="module")
def one_output(tmp_path_factory):
    """one_output(warm): the output folder the table formats' builds here share one after
    another, as a designer's project does when the deck moves from one format to another:
    seeded (conftest warm) with the caches of the run's build by the first build, then what
    each build leaves the next (its memo: the same cards give the same keys, whatever file
    they were read from)."""
    folder = tmp_path_factory.mktemp("tables") / "output"
    seeded = []

    def get(warm):
        if not seeded:
            seeded.append(warm(folder))
        return folder
    return get


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "ods", "tsv"])
def test_table_deck_prints_the_same_sheets_as_yaml(project, fmt, all_builds, warm, one_output):
    deck = project / "cards" / "olympians" / "playing-cards.yaml"
    expected = (all_builds["olympians"] / "olympians-sheets-a4.pdf").read_bytes()   # the YAML, as shipped
    rows = deck_rows(deck)
    if fmt in ("csv", "tsv"):
        write_csv(deck.parent / f"playing-cards.{fmt}", rows, "\t" if fmt == "tsv" else ",")
        with_table(deck, f"{{from: playing-cards.{fmt}}}")
    elif fmt == "xlsx":
        write_xlsx(deck.parent / "cards.xlsx", {"Notes": [["not cards"]], "Playing cards": rows})
        with_table(deck, "{from: cards.xlsx, sheet: Playing cards}")
    else:
        write_ods(deck.parent / "cards.ods", rows, "Playing cards")
        with_table(deck, "{from: cards.ods, sheet: Playing cards}")
    game = load_game(project, "olympians", Session())
    card = next(c for c in game.deck("playing-cards").cards if c.id == "helmets-5")
    assert card.fields["favor"] == 10 and card.fields["hoplite"] is False
    assert card.source.file.endswith(f".{fmt}") and card.source.line == [r[0] for r in rows].index("helmets-5") + 1
    assert sheets_pdf(project, "olympians", one_output(warm)) == expected   # same cards, same faces


def test_lists_in_cells_print_the_same_as_yaml(project, tmp_path, all_builds, warm):
    """Meteor's rockets have a list field (`cost`): `chemical; fuel` in a cell."""
    deck = project / "cards" / "meteor" / "rockets.yaml"
    expected = (all_builds["meteor"] / "meteor-sheets-a4.pdf").read_bytes()   # the YAML, as shipped
    rows = deck_rows(deck)
    assert any("; " in str(v) for r in rows for v in r)
    write_xlsx(deck.parent / "rockets.xlsx", {"Rockets": rows})
    with_table(deck, "{from: rockets.xlsx}")
    game = load_game(project, "meteor", Session())
    longbow = next(c for c in game.deck("rocket").cards if c.id == "rocket-longbow")
    assert longbow.fields["cost"] == ["chemical", "chemical", "fuel", "fuel"]
    assert sheets_pdf(project, "meteor", warm(tmp_path / "xlsx")) == expected


def _problems(root, game="mini"):
    with pytest.raises(InputError) as info:
        load_game(root, game, Session())
    return [str(p) for p in info.value.problems]


def test_bad_cells_name_file_row_and_column(mini):
    root = mini("- {id: a, name: A, text: x}")
    (root / "cards" / "mini" / "cards.csv").write_text(
        "id,name,text,cost,colour\n"
        "a,Alpha,ok,2,\n"
        "b,Beta,ok,three,\n"
        "\n"
        'c,"Gamma\nthe third",ok,1,red\n'
        "d,Delta,,1,\n")
    with_table(root / "cards" / "mini" / "deck.yaml", "{from: cards.csv}")
    assert _problems(root) == [  # `colour` is no field of the deck: ignored, with a note (see test_sheet_habits)
        "cards/mini/cards.csv:3: card b: cost: expected integer, got string 'three'",
        "cards/mini/cards.csv:7: card d: text: missing required field 'text'",
    ]


def test_xlsx_errors_give_the_sheet_row(mini):
    root = mini("- {id: a, name: A, text: x}")
    write_xlsx(root / "cards" / "mini" / "cards.xlsx", {"Deck": [
        ["id", "name", "text", "cost"], ["a", "Alpha", "ok", 2], [None], ["b", "Beta", "ok", -1]]})
    with_table(root / "cards" / "mini" / "deck.yaml", "{from: cards.xlsx, sheet: Deck}")
    assert _problems(root) == ["cards/mini/cards.xlsx:4: card b: cost: -1 is less than the minimum of 0"]


@pytest.mark.parametrize("spec, files, message", [
    ("{from: nope.csv}", {}, "card table 'nope.csv' does not exist"),
    ("{from: cards.xlsx, sheet: Nope}", {"cards.xlsx": {"Deck": [["id"]]}}, "no sheet 'Nope' in cards.xlsx (sheets: Deck)"),
    ("{from: cards.csv, sheet: One}", {"cards.csv": "id,name\n"}, "a CSV file has no sheets"),
    ("{from: cards.csv}", {"cards.csv": "id,text\na,x\n"}, "no column for the required field `name` (columns: id, text)"),
    ("{from: cards.csv}", {"cards.csv": "id,name,name,text\na,A,B,x\n"}, "two columns are headed 'name'"),
    ("{from: cards.csv}", {"cards.csv": "id,name,text\n"}, "the table has a header but no cards"),
    ("{from: ../../secret.csv}", {}, "must be inside the game's cards folder"),
    ("{from: cards.pdf}", {}, "cards: "),
])
def test_table_problems(mini, spec, files, message):
    root = mini("- {id: a, name: A, text: x}")
    for name, content in files.items():
        if isinstance(content, dict):
            write_xlsx(root / "cards" / "mini" / name, content)
        else:
            (root / "cards" / "mini" / name).write_text(content)
    with_table(root / "cards" / "mini" / "deck.yaml", spec)
    found = _problems(root)
    assert len(found) == 1 and message in found[0], found
    result = run(root, "validate")
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_cells_typed_by_field_schema():
    assert typed("3", {"type": "integer"}) == 3
    assert typed("3", {"type": "string"}) == "3"
    assert typed(3.0, {"type": "integer"}) == 3
    assert typed(1984, {"type": "string"}) == "1984"
    assert typed("2.5", {"type": "number"}) == 2.5
    assert typed("Yes", {"type": "boolean"}) is True
    assert typed("no", {"type": "boolean"}) is False
    assert typed("fire;ice ; fire", {"type": "array", "items": {"type": "string"}}) == ["fire", "ice", "fire"]
    assert typed("1; 2", {"type": "array", "items": {"type": "integer"}}) == [1, 2]
    assert typed("Gain :coin: now", {"type": "string"}) == "Gain :coin: now"
    assert typed("ten", {"type": "integer"}) == "ten"  # left for the schema check to name
    assert typed('{"gold": 2}', {"type": "object"}) == {"gold": 2}
    assert typed("3", {"enum": [1, 2, 3]}) == 3


def test_read_table_keeps_row_numbers_across_multiline_cells(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('\ufeffid,text\na,"one\ntwo"\n\nb,three\n')
    table = read_table(path)
    assert table.header == ["id", "text"] and table.rows == [(2, ["a", "one\ntwo"]), (5, ["b", "three"])]


def test_a_formula_without_a_saved_value_is_not_read_as_empty(mini):
    root = mini("- {id: a, name: A, text: x}")
    write_xlsx(root / "cards" / "mini" / "cards.xlsx", {"Deck": [
        ["id", "name", "text", "cost"], ["a", "Alpha", "ok", "=1+1"]]})
    with_table(root / "cards" / "mini" / "deck.yaml", "{from: cards.xlsx}")
    found = _problems(root)
    assert len(found) == 1 and "cell D2 holds a formula (=1+1) whose value was never saved" in found[0]
