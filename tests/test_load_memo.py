"""A remembering session (`pnp watch`) parses a game's YAML once per file text and checks a
file against pnp's schema once per text; what it hands out is a copy, changed by nobody else."""
from __future__ import annotations

import pytest

import generator.data.yamlsrc as yamlsrc
from generator.data.load import load_game
from generator.errors import InputError
from generator.session import Session


def test_unchanged_files_are_not_parsed_again(mini, monkeypatch):
    root = mini("""
        - {name: Stone Wall, text: "A wall."}
        - {id: gate, name: Gate, text: "A gate.", cost: 2}
    """)
    (root / "cards" / "mini" / "game.yaml").write_text("title: Mini\ndecks: [deck.yaml, more.yaml]\n")
    (root / "cards" / "mini" / "more.yaml").write_text(
        "deck: more\nname: More\nfront: front.svg.j2\nfields:\n  text: {type: string}\ncards:\n"
        "  - {name: Tower, text: \"A tower.\"}\n")
    parsed, checked = [], []
    parse, check = yamlsrc.parse_yaml, __import__("generator.data.load", fromlist=["check"]).check
    monkeypatch.setattr(yamlsrc, "parse_yaml", lambda text, shown: parsed.append(shown) or parse(text, shown))
    monkeypatch.setattr("generator.data.load.check", lambda data, schema, shown: checked.append(shown) or
                        check(data, schema, shown))
    session = Session(remember=True)
    first = load_game(root, "mini", session)
    assert sorted(parsed) == ["cards/mini/deck.yaml", "cards/mini/game.yaml", "cards/mini/more.yaml"]
    assert set(checked) == set(parsed)
    parsed.clear(), checked.clear()
    again = load_game(root, "mini", session)
    assert parsed == [] and checked == []
    assert [(c.id, dict(c.fields), c.source) for d in again.decks for c in d.cards] == \
        [(c.id, dict(c.fields), c.source) for d in first.decks for c in d.cards]
    assert again.decks[0].raw is not first.decks[0].raw   # a copy each time: the loader writes made ids in

    deck = root / "cards" / "mini" / "deck.yaml"
    deck.write_text(deck.read_text().replace("A wall.", "A high wall."))
    edited = load_game(root, "mini", session)
    assert parsed == ["cards/mini/deck.yaml"] and set(checked) == {"cards/mini/deck.yaml"}
    assert edited.decks[0].cards[0].fields["text"] == "A high wall." and edited.decks[0].cards[0].id == "stone-wall"
    assert edited.decks[1].cards[0].id == "tower"


def test_a_made_id_is_made_again_from_a_kept_parse(mini):
    """The loader writes the ids it makes into the parsed cards: a kept parse is never the
    one it wrote into, so a second load still tells a made id (its hint) from a written one."""
    root = mini("""
        - {name: Stone Wall, text: "A wall."}
    """)
    (root / "cards" / "mini" / "game.yaml").write_text("title: Mini\ndecks: [deck.yaml, more.yaml]\n")
    (root / "cards" / "mini" / "more.yaml").write_text(
        "deck: more\nname: More\nfront: front.svg.j2\nfields:\n  text: {type: string}\ncards:\n"
        "  - {id: stone-wall, name: Other, text: \"Another.\"}\n")
    session = Session(remember=True)
    messages = []
    for _ in range(2):
        with pytest.raises(InputError) as caught:
            load_game(root, "mini", session)
        messages.append([p.message for p in caught.value.problems])
    assert messages[0] == messages[1] and "made from a card's name" in " ".join(messages[0])


def test_copies_keep_lines_and_aliases():
    data = yamlsrc.parse_yaml("shared: &s {a: [1, 2]}\nx: *s\ny:\n  - 3\n", "t.yaml")
    copy = yamlsrc.copied(data)
    assert copy == data and copy is not data and copy["x"] is copy["shared"] and copy["x"] is not data["x"]
    assert (copy.line, copy.lines, copy["y"].lines, copy["shared"]["a"].lines) == \
        (data.line, data.lines, data["y"].lines, data["shared"]["a"].lines)
