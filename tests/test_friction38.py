"""Issue 38's friction: a schema problem told once; game.yaml's `rules:` and `rulebook:`
honoured when absent or null (a rules.yaml or rulebook.md it does not name is not read);
`pnp new --bare` and the `.gitignore` `pnp new` writes; `***bold italic***` in card text."""
from __future__ import annotations

import pytest
import yaml

from generator.data.load import load_game
from generator.draw import pangobridge as pb
from generator.draw.fonts import shipped
from generator.draw.markup import Run, parse
from generator.draw.textfit import TextSetter
from generator.errors import InputError
from generator.rulebook.source import rulebook_file
from generator.rules.engine import rules_path
from generator.rules.wordtexts import texts_of
from generator.session import Session
from tests.conftest import run

FAILING_RULES = "rules:\n  - id: none\n    message: 'no cards wanted, {found} found'\n    select: decks.things.cards\n" \
                "    expect: length(it)\n    equals: 0\n"


def test_a_card_missing_two_fields_is_two_problems_not_four(mini):
    """(Its id is made from its name or place: ids are optional.)"""
    root = mini("- {id: a, name: A, text: ok}\n- {cost: 1}")
    with pytest.raises(InputError) as caught:
        load_game(root, "mini", Session())
    missing = [p for p in caught.value.problems if "missing required field" in p.message]
    assert [(p.line, p.field) for p in missing] == [(11, "name"), (11, "text")]
    result = run(root, "validate", "--no-render")
    assert result.output.count("missing required field 'name'") == 1 and "2 errors" in result.output, result.output


@pytest.mark.parametrize("given", ["", "rules: null\nrulebook: null\n"])
def test_rules_and_rulebook_are_read_only_where_game_yaml_names_them(mini, given):
    root = mini("- {id: a, name: A, text: ok}")
    game_dir = root / "cards" / "mini"
    (game_dir / "rules.yaml").write_text(FAILING_RULES)
    (game_dir / "rulebook.md").write_text("# Rules\n\nTeh rulez.\n")
    (game_dir / "game.yaml").write_text((game_dir / "game.yaml").read_text() + given)
    game = load_game(root, "mini", Session())
    assert rules_path(game) is None and rulebook_file(game) is None
    assert [t for t in texts_of(game, ("en",))["en"] if t.key == "rulebook"] == []
    result = run(root, "validate", "--no-render")
    assert result.exit_code == 0, result.output
    noted = "rules.yaml is not read: game.yaml names no rules file (add `rules: rules.yaml` to use it)"
    assert (noted in result.output) == (given == ""), result.output   # null: left out on purpose, said nothing

    (game_dir / "game.yaml").write_text((game_dir / "game.yaml").read_text().replace("rules: null\n", "")
                                        + "rules: rules.yaml\n")
    named = run(root, "validate", "--no-render")
    assert named.exit_code == 1 and "no cards wanted, 1 found" in named.output, named.output


def test_new_bare_is_the_card_deck_alone_and_new_writes_a_gitignore(tmp_path):
    result = run(tmp_path, "new", "x", "--bare")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "cards" / "x").iterdir()) == ["cards.yaml", "game.yaml", "words.txt"]
    assert not (tmp_path / "templates" / "x" / "token.svg.j2").exists()
    meta = yaml.safe_load((tmp_path / "cards" / "x" / "game.yaml").read_text())
    assert meta["decks"] == ["cards.yaml"] and "rules" not in meta and "rulebook" not in meta
    game = load_game(tmp_path, "x", Session())
    assert [d.id for d in game.decks] == ["actions"] and rules_path(game) is None and rulebook_file(game) is None
    ignore = (tmp_path / ".gitignore").read_text()
    assert "/output/" in ignore.splitlines() and ".cache/" in ignore.splitlines()

    # a project's own .gitignore: kept when it leaves output out already, else pnp's lines added
    assert run(tmp_path, "new", "y").exit_code == 0
    assert (tmp_path / ".gitignore").read_text() == ignore
    assert sorted(p.name for p in (tmp_path / "cards" / "y").iterdir()) == [
        "README.md", "cards.yaml", "game.yaml", "rulebook.md", "rules.yaml", "tokens.yaml", "words.txt"]
    (tmp_path / ".gitignore").write_text("*.bak")
    assert run(tmp_path, "new", "z", "--bare").exit_code == 0
    assert (tmp_path / ".gitignore").read_text() == "*.bak\n\n" + ignore


def test_bold_italic_markup_is_set_in_the_bold_italic_face():
    assert parse("***Both*** then **bold** *it*") == [[[Run("Both", True, True)], [Run("then", False, False)],
                                                       [Run("bold", True, False)], [Run("it", False, True)]]]
    assert parse("a ***b* c**") == [[[Run("a", False, False)], [Run("b", True, True)], [Run("c", True, False)]]]
    setter = TextSetter(shipped(), {})
    laid = setter.engine.laid(setter.spec("***Both*** plain", w=100, size=5))
    files = [pb.font_file(pb.run_font(r)).rsplit("/", 1)[-1] for r in pb.runs(laid.layout)]
    assert files == ["Lato-BoldItalic.ttf", "Lato-Regular.ttf"]
