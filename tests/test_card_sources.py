"""Card data in any shape, declared (issue 38): decks read the other tools' own files unchanged
— a Squib-style XLSX, a YAML list with per-side data and no ids, a web card maker's JSON with
`title` and "property | AC | 18" lines, a quiz sheet `Name,Front,Back` and a nanDECK-style
range — through `cards: {from:, select:, fields:, count:}` and `cards: {range:}`; and a
pasted list whose `front`/`back` hold data gets one error saying how to map it."""
from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import openpyxl
import pypdfium2 as pdfium
import pytest

from generator.data.cardsource import numbered
from generator.data.jsonsrc import parse_json
from generator.data.load import load_game
from generator.draw.render import render_game
from generator.errors import InputError
from generator.session import Session

PORTS = Path(__file__).parent / "fixtures" / "ports"
HEROES = [["Name", "Level", "ATK", "DEF", "Snark", "Qty"],
          ["Grumpy Knight", 2, 3, 4, "I was here first.", 2],
          ["Sleepy Wizard", 1, 5, 1, "Five more minutes.", 1],
          ["Lucky Thief", 3, 2, 2, "Finders keepers.", 3]]


@pytest.fixture
def ports(tmp_path) -> Path:
    """The fixture game, with its Squib-style workbook written as Squib's users keep it."""
    root = tmp_path / "ports"
    shutil.copytree(PORTS, root)
    book = openpyxl.Workbook()
    book.active.title = "Heroes"
    for row in HEROES:
        book.active.append(row)
    book.save(root / "cards" / "ports" / "squib.xlsx")
    return root


def only(root: Path, *decks: str, **files: str) -> Path:
    """The game reduced to `decks`, with `files` (name with _ for -) written in its cards folder."""
    folder = root / "cards" / "ports"
    (folder / "game.yaml").write_text(f"title: Ports\ndecks: [{', '.join(decks)}]\n")
    for name, text in files.items():
        (folder / name.replace("__", ".")).write_text(textwrap.dedent(text))
    return root


def problems(root: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        load_game(root, "ports", Session())
    return [str(p) for p in info.value.problems]


def cards(root: Path) -> dict[str, list]:
    game = load_game(root, "ports", Session())
    return {d.id: [(c.id, c.count, dict(c.fields), f"{c.source.file}:{c.source.line}") for c in d.cards]
            for d in game.decks}


def test_each_port_builds_the_expected_cards(ports):
    got = cards(ports)
    heroes = [(i, n, f["level"], f["attack"], f["defend"]) for i, n, f, _ in got["squib"]]
    assert heroes == [("grumpy-knight", 2, 2, 3, 4), ("sleepy-wizard", 1, 1, 5, 1), ("lucky-thief", 3, 3, 2, 2)]
    # a YAML list of per-side data, no ids, the second card merging the first (`<<: *scout`)
    assert [(i, f["name"], f["front_desc"], f["back_desc"], where) for i, _, f, where in got["monsters"]] == [
        ("marsh-scout", "Marsh Scout", "Moves two spaces after it strikes.",
         "Retreat: shuffle this card into the deck.", "cards/ports/monsters-list.yaml:1"),
        ("marsh-warden", "Marsh Warden", "Other monsters beside it cannot be pushed.",
         "Retreat: shuffle this card into the deck.", "cards/ports/monsters-list.yaml:7"),
        ("lantern-moth", "Lantern Moth", "Flies over water and walls.",
         "Glow: reveal the top card of any deck.", "cards/ports/monsters-list.yaml:11")]
    # a JSON array: `title` renamed, "property | AC | 18" lines cut into pairs, `count` read
    assert [(i, n, f["subtitle"], f["properties"], f["text"], where) for i, n, f, where in got["gear"]] == [
        ("ring-mail", 2, "Heavy armour", [["AC", "14"], ["Weight", "40 lb"]], "Disadvantage on Stealth checks.",
         "cards/ports/gear.json:2"),
        ("tower-shield", 1, "Shield", [["AC", "18"]], "Takes both hands to carry.", "cards/ports/gear.json:16")]
    # a quiz sheet whose Front and Back columns hold texts, read as fields; the cards keep the deck's templates
    game = load_game(ports, "ports", Session())
    quiz = next(d for d in game.decks if d.id == "quiz")
    assert [(c.name, c.front, c.back, c.fields["question"], c.fields["answer"]) for c in quiz.cards][1] == (
        "Peaks", "question.svg.j2", "answer.svg.j2", "What is the highest mountain in Africa?", "Kilimanjaro")
    # nanDECK's "Soldier 1..10", no data file
    assert [(i, f["name"], f["strength"]) for i, _, f, _ in got["soldiers"]] == [
        (f"soldier-{n}", f"Soldier {n}", n) for n in range(1, 11)]


def test_a_port_prints_its_words(ports):
    """Drawn in-process to PDF faces: the words of the JSON deck (a renamed key, a list cut
    into label and value) are on them, Ring Mail twice (its `count` in the JSON)."""
    game = load_game(only(ports, "gear.yaml"), "ports", Session())
    rendered = render_game(game, Session())
    text = ""
    for pdf in rendered.faces_pdfs:
        doc = pdfium.PdfDocument(pdf)
        text += "\n".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    for words in ("Ring Mail", "Heavy armour", "AC: 14", "Weight: 40 lb", "Tower Shield", "AC: 18",
                  "Takes both hands to carry."):
        assert words in text
    assert [c.count for c in game.decks[0].cards] == [2, 1]


PASTED = """\
deck: monsters
name: Monsters
front: side.svg.j2
back: monster-back.svg.j2
cards:
"""


def test_a_pasted_list_with_per_side_data_gets_one_error_saying_how_to_map_it(ports):
    pasted = (ports / "cards" / "ports" / "monsters-list.yaml").read_text()
    root = only(ports, "monsters.yaml", monsters__yaml=PASTED + textwrap.indent(pasted, "  "))
    assert problems(root) == [
        "cards/ports/monsters.yaml:6: front: `front` holds per-side data (a mapping), not the name of a template "
        "(3 cards, the first here): a card's `front:` and `back:` name the templates it is drawn with. To draw "
        "per-side data, move the list into a file of its own beside this deck (say cards.yaml) and map each "
        "side's data to fields: `cards: {from: cards.yaml, fields: {name: front.name, front_desc: front.desc, "
        "back_desc: back.desc}}`; the template then draws {{ card.front_desc }}"]
    # read from its own file but not mapped: the same one error, pointing into that file
    root = only(ports, "monsters.yaml", monsters__yaml=PASTED + "  from: monsters-list.yaml\n")
    [one] = problems(root)
    assert one.startswith("cards/ports/monsters-list.yaml:1: front: `front` holds per-side data")
    assert "`cards: {from: monsters-list.yaml, fields: {name: front.name, front_desc: front.desc," in one


def test_a_sheet_whose_front_and_back_hold_texts_gets_one_error(ports):
    root = only(ports, "quiz.yaml", quiz__yaml="""\
        deck: quiz
        name: Quiz
        front: question.svg.j2
        cards: {from: quiz.csv}
        """)
    assert problems(root) == [
        "cards/ports/quiz.csv:2: front: `Front` holds a text ('Which river flows through Vienna?'), not the name "
        "of a template (3 cards, the first here): a card's `front:` and `back:` name the templates it is drawn "
        "with. Map it to fields of their own in the deck: `cards: {from: quiz.csv, fields: {front_text: Front, "
        "back_text: Back}}`; the template then draws {{ card.front_text }}"]


GEAR = """\
    deck: gear
    name: Gear
    front: gear.svg.j2
    fields: {text: {type: string}, ac: {type: integer}}
    cards: {from: gear.json%s}
    """


@pytest.mark.parametrize("spec, data, expected", [
    ("", None, ["cards/ports/gear.json:2: name: missing required field 'name' (2 cards, the first here): map it "
                "from a key of the items (the items' keys: count, color, title, icon, contents) with "
                "`cards: {fields: {name: title}}`"]),
    ("", '{"deck": {"items": [{"title": "x"}]}}',
     ["cards/ports/gear.json:1: the file holds a mapping, not a list of cards; lists of cards in the file: "
      "deck.items (say which with `select: deck.items`)"]),
    (", select: 'deck.cards'", '{"deck": {"items": [{"title": "x"}]}}',
     ["cards/ports/gear.yaml:5: cards.select: `select: deck.cards` gives nothing in cards/ports/gear.json, not a "
      "list of cards; lists of cards in the file: deck.items (say which with `select: deck.items`)"]),
    (", fields: {name: 'title['}", None,
     ["cards/ports/gear.yaml:5: cards.fields.name: `title[` is not a JMESPath expression: Incomplete expression"]),
    (", fields: {name: title, ac: 'abs(title)'}", None,
     ["cards/ports/gear.json:2: ac: the field `ac`: `abs(title)`: In function abs(), invalid type for value: Ring "
      "Mail, expected one of: ['number'], received: \"string\" (and 1 more card)"]),
    (", fields: {name: title, ac: \"contents[?starts_with(@, 'property | AC')].split(@, ' | ')[2] | [0]\"}",
     '[{"title": "A", "contents": ["property | AC | 14"]},\n {"title": "B",\n  "contents": ["property | AC | x"]}]',
     ["cards/ports/gear.json:2: card b: ac: expected integer, got string 'x'"]),
    ("", '[{"title": "A",\n "title": "B"}]', ["cards/ports/gear.json:2: duplicate key 'title'"]),
    ("", '[{"name": "A"},\n {"name": "B",}]', ["cards/ports/gear.json:2: JSON syntax error: Expecting property "
                                                "name enclosed in double quotes"]),
    (", sheet: Heroes", None, ["cards/ports/gear.yaml:5: cards.sheet: `sheet:` is for spreadsheets; a JSON file's "
                               "keys are mapped to fields with `fields: {FIELD: KEY}`"]),
])
def test_problems_name_the_file_and_line_and_how_to_map(ports, spec, data, expected):
    files = {"gear__yaml": GEAR % spec}
    if data is not None:
        files["gear__json"] = data
    assert problems(only(ports, "gear.yaml", **files)) == expected


def test_sheet_fields_read_any_column(ports):
    """In a sheet, `fields:` names a header (spaces and case as people write them) or is a
    JMESPath over the row; `count:` reads the copies from any column."""
    root = only(ports, "quiz.yaml", quiz__csv="Card Title,Front,Back,How Many\nRivers,Which river?,Danube,3\n",
                quiz__yaml="""\
        deck: quiz
        name: Quiz
        front: question.svg.j2
        fields: {question: {type: string}, answer: {type: string}}
        cards:
          from: quiz.csv
          fields: {name: card title, question: Front, answer: "join(' / ', [Back, Front])"}
          count: How Many
        """)
    assert cards(root)["quiz"] == [("rivers", 3, {"name": "Rivers", "question": "Which river?", "count": 3,
                                                  "answer": "Danube / Which river?", "id": "rivers"},
                                    "cards/ports/quiz.csv:2")]


def test_ids_are_optional_in_a_yaml_list_and_a_clash_says_why(ports):
    root = only(ports, "soldiers.yaml", "more.yaml", more__yaml="""\
        deck: more
        name: More
        front: soldier.svg.j2
        fields: {strength: {type: integer}}
        cards:
          - {name: Archer, strength: 2}
          - {name: Archer, strength: 3}
          - {name: "★", strength: 1}
          - {name: Soldier 3, strength: 9}
        """)
    assert problems(root) == [
        "cards/ports/more.yaml:9: card soldier-3: id: card id 'soldier-3' is used twice (also "
        "cards/ports/soldiers.yaml:8) — made from a card's name: give one of them an `id:` (or another name)"]
    (root / "cards" / "ports" / "game.yaml").write_text("title: Ports\ndecks: [more.yaml]\n")
    assert [c[0] for c in cards(root)["more"]] == ["archer", "archer-2", "card-3", "soldier-3"]


def test_range_names_and_fields():
    assert [numbered(p, 7) for p in ("Soldier {n}", "S{n:03}", "{n}{n}", "{x} {n.__class__}")] == [
        "Soldier 7", "S007", "77", "{x} {n.__class__}"]


def test_json_keeps_lines():
    data = parse_json('[\n  {"a": 1,\n   "b": [2,\n         3]},\n  {}\n]', "x.json")
    assert (data.line, data.lines, data[0].lines, data[0]["b"].lines, data[1].line) == (
        1, [2, 5], {"a": 2, "b": 3}, [3, 4], 5)


def test_select_anchors_count_and_the_line_of_a_mapped_value(ports):
    """`select:` finds the list inside the file, `<<:` merges an anchor, `count:` reads a renamed
    key; a bad value read by a plain path is told at its own line."""
    shop = """\
        common: &common {kind: potion, price: 3}
        shop:
          stock:
            - {<<: *common, label: Red Potion, copies: 2}
            - <<: *common
              label: Blue Potion
              copies: 1
              price: cheap
        """
    deck = """\
        deck: shop
        name: Shop
        front: soldier.svg.j2
        fields: {kind: {type: string}, price: {type: integer}}
        cards: {from: shop.yaml, select: shop.stock, count: copies, fields: {name: label, price: price}}
        """
    root = only(ports, "deck.yaml", shop__yaml=shop, deck__yaml=deck)
    assert problems(root) == ["cards/ports/shop.yaml:8: card blue-potion: price: expected integer, got string "
                              "'cheap'"]
    (root / "cards" / "ports" / "shop.yaml").write_text(textwrap.dedent(shop).replace("cheap", "4"))
    assert [(i, n, f["kind"], f["price"], where) for i, n, f, where in cards(root)["shop"]] == [
        ("red-potion", 2, "potion", 3, "cards/ports/shop.yaml:4"),
        ("blue-potion", 1, "potion", 4, "cards/ports/shop.yaml:5")]
