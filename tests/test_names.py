"""One name means one thing: `copies` and `designs` are numbers and `cards` and `printed`
lists, in rules, templates and the rulebook alike."""
from __future__ import annotations

from generator.data.load import load_game
from generator.rules.document import build_document
from generator.session import Session
from tests.conftest import edit, run


def test_rules_and_rulebook_agree_on_names(project):
    game = load_game(project, "olympians", Session())
    doc = build_document(game).doc["decks"]["playing-cards"]
    ctx = game.context()["decks"]["playing-cards"]
    for name in ("copies", "designs"):
        assert isinstance(doc[name], int) and doc[name] == ctx[name]
    assert doc["copies"] == 32 == len(doc["printed"]) == len(ctx["printed"])
    assert len(doc["cards"]) == doc["designs"] == len(ctx["cards"])
    assert build_document(game).doc["copies"] == sum(c.count for d in game.decks for c in d.cards)


def test_a_rule_that_takes_copies_for_the_list_says_what_to_use(project):
    rules = project / "cards" / "olympians" / "rules.yaml"
    edit(rules, 'select: decks."playing-cards".printed\n    expect: length(it)',
         'select: decks."playing-cards".copies\n    expect: length(it)')
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 2
    assert "the list of printed cards is `printed`" in result.output


def test_rulebook_and_templates_may_use_printed(project):
    book = project / "cards" / "olympians" / "rulebook.md"
    book.write_text(book.read_text() + '\n\nPrinted: {{ decks["playing-cards"].printed | length }} '
                    'of {{ decks["playing-cards"].copies }}.\n')
    from generator.rulebook.source import render_markdown
    text = render_markdown(load_game(project, "olympians", Session()), book, Session())
    assert "Printed: 32 of 32." in text
