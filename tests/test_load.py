"""Loading: every YAML file checked against its schema; problems name file, line, card, field."""
from __future__ import annotations

import pytest

from generator.data.load import load_game
from generator.errors import InputError
from generator.session import Session
from tests.conftest import run


def problems_of(root):
    with pytest.raises(InputError) as info:
        load_game(root, "mini", Session())
    return [str(p) for p in info.value.problems]


def test_real_games_load(project):
    game = load_game(project, "olympians", Session())
    assert [d.id for d in game.decks] == ["playing-cards", "reference"]
    assert sum(c.count for c in game.deck("playing-cards").cards) == 32
    helmets5 = next(c for c in game.deck("playing-cards").cards if c.id == "helmets-5")
    assert helmets5.fields["favor"] == 10 and helmets5.source.file == "cards/olympians/playing-cards.yaml"


def test_missing_field_names_file_line_card(mini):
    root = mini("""
        - {id: a, name: Alpha, text: ok}
        - {id: b, name: Beta}
    """)
    assert problems_of(root) == ["cards/mini/deck.yaml:11: card b: text: missing required field 'text'"]


@pytest.mark.parametrize("cards, message", [
    ("- {id: a, name: Alpha, text: ok, cost: three}",
     "cards/mini/deck.yaml:10: card a: cost: expected integer, got string 'three'"),
    ("- id: a\n  name: Alpha\n  text: ok\n  colour: red",
     "cards/mini/deck.yaml:13: card a: colour: unknown key 'colour' (accepted: back, cost, count, front, id, name, "
     "text)"),
    ("- {id: a, name: Alpha, text: ok}\n- {id: a, name: Again, text: ok}",
     "cards/mini/deck.yaml:11: card a: id: card id 'a' is used twice (also cards/mini/deck.yaml:10)"),
    ("- {id: a, name: Alpha, text: ok\n- {id: b, name: Beta, text: ok}",
     "cards/mini/deck.yaml:11: YAML syntax error"),
    ("- id: a\n  name: Alpha\n  name: Beta\n  text: ok",
     "cards/mini/deck.yaml:12: YAML syntax error: duplicate key 'name'"),
], ids=["wrong type", "unknown key", "duplicate id", "malformed YAML", "duplicate YAML key"])
def test_one_problem_named_by_file_line_card_and_field(mini, cards, message):
    (msg,) = problems_of(mini(cards))
    assert msg.startswith(message), msg


def test_all_problems_reported_together(mini):
    root = mini("""
        - {id: a, name: Alpha}
        - {id: b, name: Beta, text: ok, cost: -1}
        - {id: a, name: Again, text: ok}
    """)
    found = problems_of(root)
    assert len(found) == 2  # schema problems stop the deck before duplicate ids are looked at
    assert any("card a: text: missing required field 'text'" in m for m in found)
    assert any(":11: card b: cost:" in m and "minimum" in m for m in found)


def test_deck_level_unknown_key_and_bad_size(mini):
    root = mini("- {id: a, name: Alpha, text: ok}", deck_extra="colour: red\n")
    (msg,) = problems_of(root)
    assert msg.startswith("cards/mini/deck.yaml:5: colour: unknown key 'colour' (accepted: back, bleed,")


@pytest.mark.parametrize("cards, code, needle", [
    ("- {id: a, name: Alpha}", 2, "missing required field 'text'"),
    ("- {id: a, name: Alpha, text: ok, cost: x}", 2, "expected integer"),
    ("- {id: a, name: Alpha, text: ok, hue: 3}", 2, "unknown key 'hue'"),
    ("- {id: a, name: Alpha, text: [ok", 2, "YAML syntax error"),
])
def test_cli_exit_code_and_clean_message(mini, cards, code, needle):
    root = mini(cards)
    for command in (["build"], ["validate"]):
        result = run(root, *command)
        assert result.exit_code == code, result.output
        assert needle in result.output
        assert "Traceback" not in result.output
        assert isinstance(result.exception, SystemExit)


def test_yaml_merge_keys_share_fields_between_cards(mini):
    root = mini("""
        - <<: *plain
          id: a
          name: Alpha
        - <<: *plain
          id: b
          name: Beta
          text: its own text
    """, deck_extra="shared:\n  plain: &plain {text: shared text, cost: 1}\n")
    game = load_game(root, "mini", Session())
    a, b = game.decks[0].cards
    assert (a.fields["text"], a.fields["cost"]) == ("shared text", 1)
    assert (b.fields["text"], b.fields["cost"]) == ("its own text", 1)


def test_unhashable_yaml_key_is_a_clean_error(mini):
    root = mini("- {id: a, name: Alpha, text: ok, [x, y]: 1}")
    (msg,) = problems_of(root)
    assert msg == ("cards/mini/deck.yaml:10: YAML syntax error: a key must be a plain word or number, "
                   "not a list or mapping")


def test_defaults_must_suit_their_fields(mini):
    root = mini("- {id: a, name: Alpha, text: ok}", deck_extra="defaults: {cost: lots}\n")
    (msg,) = problems_of(root)
    assert msg.startswith("cards/mini/deck.yaml:5: defaults.cost: expected integer, got string 'lots'")


def test_broken_schema_reference_is_a_clean_error(mini):
    root = mini("- {id: a, name: Alpha, text: ok, cost: 2}")
    deck = root / "cards/mini/deck.yaml"
    deck.write_text(deck.read_text().replace("cost: {type: integer, minimum: 0}", "cost: {$ref: '#/nowhere'}"))
    found = problems_of(root)
    assert found and all("cannot be applied" in m or "nowhere" in m for m in found)


def test_merge_keys_follow_yaml(tmp_path):
    """Merges behave as in any YAML tool: later anchors in a list win, a nested anchor's own
    keys beat what it merged, a mapping's own keys beat everything merged."""
    import yaml

    from generator.data.yamlsrc import read_yaml
    text = """
base: &base {x: base, y: base}
a: &a {x: from_a}
b: &b {x: from_b, z: from_b}
mid: &mid {<<: *base, y: mid}
list_merge: {<<: [*a, *b]}
nested: {<<: *mid}
own_wins: {<<: *base, x: own}
"""
    path = tmp_path / "m.yaml"
    path.write_text(text)
    ours = read_yaml(path, "m.yaml")
    assert ours == yaml.safe_load(text)
    assert ours["list_merge"] == {"x": "from_a", "z": "from_b"}
    assert ours["nested"] == {"x": "base", "y": "mid"}
    assert ours["own_wins"]["x"] == "own" and ours["own_wins"].lines["x"] == 8


def test_fields_named_line_or_lines_reach_templates_as_data(tmp_path):
    """YAML mappings remember their line numbers as attributes; templates must still see a
    field called `line` or `lines` (Jinja looks up attributes before keys)."""
    import jinja2

    from generator.data.model import Card, Source
    from generator.data.yamlsrc import read_yaml
    path = tmp_path / "x.yaml"
    path.write_text("route: {line: 7, lines: [N, S]}\n")
    card = Card(id="c", name="C", count=1, front="f.svg.j2", back=None, fields=read_yaml(path, "x.yaml"),
                source=Source("x.yaml", 1), index=0)
    text = jinja2.Environment().from_string("{{ card.route.line }} {{ card.route.lines | join('-') }}")
    assert text.render(card=card.context()) == "7 N-S"


STREAM_CASES = [
    "cards:\n  - {id: a, name: A, n: 1}\n  - id: b\n    name: B\n    tags: [x, y]\n",
    "base: &base {cost: 1, kind: x}\ncards:\n  - <<: *base\n    id: a\n  - {<<: *base, id: b, cost: 2}\n",
    "one: &one {a: 1}\ntwo: &two {b: 2}\ncards:\n  - <<: [*one, *two]\n    id: c\n",
    "row: &row [1, 2]\ncards:\n  - *row\n  - [*row, *row]\n  - &z {id: z}\n  - *z\n",
    "cards:\n  - {id: a, id: b}\n",
    "cards:\n  - {id: !!int abc}\n",
    "cards:\n  - [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
    "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
    "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "cards: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
    "cards:\n  - {id: a}\n   - {id: b}\n",
]


def _read_both(tmp_path, monkeypatch, text):
    from generator.data import yamlsrc

    path = tmp_path / "deck.yaml"
    path.write_text(text)
    found = []
    for threshold in (10 ** 9, 0):  # the all-C loader, then the streaming one
        monkeypatch.setattr(yamlsrc, "STREAM_ABOVE", threshold)
        try:
            data = yamlsrc.read_yaml(path, "deck.yaml")
            found.append(("data", data, _lines(data)))
        except InputError as exc:
            found.append(("error", [(p.file, p.line, p.message) for p in exc.problems]))
    return found


def _lines(data):
    if isinstance(data, dict):
        return (data.line, dict(data.lines), {k: _lines(v) for k, v in data.items()})
    if isinstance(data, list):
        return (data.line, list(data.lines), [_lines(v) for v in data])
    return None


@pytest.mark.parametrize("text", STREAM_CASES)
def test_large_files_read_by_the_streaming_loader_give_the_same_data_lines_and_errors(tmp_path, monkeypatch, text):
    c_loader, streaming = _read_both(tmp_path, monkeypatch, text)
    assert streaming == c_loader
