"""`pnp validate` finds in one run everything `pnp build` would refuse, and the same problem
on many cards is one message listing them."""
from __future__ import annotations

import pytest

from tests.conftest import MINI_FRONT, edit, run

CARDS = "\n".join(f"- {{id: c{i}, name: Card {i}, text: words}}" for i in range(1, 13))


def test_validate_reports_every_problem_build_would_meet_at_once(mini):
    root = mini(CARDS + "\n- {id: long, name: Long, text: \"" + "many words " * 200 + "\"}",
                front=MINI_FRONT.replace("{{ card.name }}", "{{ card.name }}{{ card.cost + 1 if card.id == 'c1' else '' }}"))
    game_yaml = root / "cards" / "mini" / "game.yaml"
    game_yaml.write_text(game_yaml.read_text() + "rulebook: rules.md\n")
    (root / "cards" / "mini" / "big.yaml").write_text(
        "deck: big\nname: Big\nsize: {width: 300mm, height: 200mm}\nfront: front.svg.j2\nback: null\n"
        "fields: {text: {type: string}}\ncards:\n  - {id: huge, name: Huge, text: hi}\n")
    edit(game_yaml, "decks: [deck.yaml]", "decks: [deck.yaml, big.yaml]")
    result = run(root, "validate")
    out = result.output
    assert result.exit_code == 2, out
    assert "text does not fit" in out and "card long" in out or "long" in out
    assert "does not fit on A4 paper" in out
    assert "rulebook file 'rules.md' does not exist" in out
    assert "templates/mini/front.svg.j2:3" in out and "cost" in out
    # build refuses the same game
    assert run(root, "build", "--output", str(root / "out")).exit_code == 2


def test_a_template_error_on_many_cards_is_one_message(mini):
    root = mini(CARDS, front=MINI_FRONT.replace("{{ card.name }}", "{{ card.nmae }}"))
    result = run(root, "validate")
    lines = [l for l in result.output.splitlines() if "nmae" in l]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert "(12 cards: c1, c2, c3, c4, c5, c6, c7, c8, ...)" in lines[0]
    assert lines[0].startswith("templates/mini/front.svg.j2:3:")
    build = run(root, "build", "--output", str(root / "out"))
    assert build.exit_code == 2 and len([l for l in build.output.splitlines() if "nmae" in l]) == 1


def test_no_render_says_what_it_skipped(mini):
    root = mini("- {id: a, name: A, text: x}", front=MINI_FRONT.replace("{{ card.name }}", "{{ card.nmae }}"))
    result = run(root, "validate", "--no-render")
    assert result.exit_code == 0 and "cards were not drawn" in result.output


def test_validate_draws_through_the_face_cache_and_finds_a_drawing_problem_again(mini, monkeypatch):
    from generator.draw import faces

    drawn = []
    real = faces.draw_bundles

    def counted(bundles, *args):
        drawn.append(len(bundles))
        return real(bundles, *args)
    monkeypatch.setattr(faces, "draw_bundles", counted)
    root = mini(CARDS + "\n- {id: snow, name: \"Snow \u2603\", text: words}")
    first = run(root, "validate")
    assert first.exit_code == 2 and "\u2603" in first.output and "[cards: snow]" in first.output, first.output
    assert sum(drawn) > 0
    drawn.clear()
    again = run(root, "validate")
    assert again.output == first.output
    assert sum(drawn) == 1, "only the bundle with the problem is drawn again: it was never stored"
    edit(root / "cards" / "mini" / "deck.yaml", "Snow \u2603", "Snow")
    assert run(root, "validate").exit_code == 0


@pytest.mark.slow   # draws two shipped games, through the face cache a first build leaves
def test_shipped_games_pass_the_full_validation(warm_project):
    result = run(warm_project, "validate", "olympians", "meteor")
    assert result.exit_code == 0, result.output


def test_validate_after_a_build_renders_and_lays_out_nothing_again_and_writes_no_memo(mini, monkeypatch):
    """`pnp validate` after `pnp build GAME` reads the faces' SVG and the laid-out rulebook
    that build kept (output/.cache/memo; the game's own, when the command names more games),
    read only: no face of it rendered, no rulebook laid out, nothing written in the memo
    (even where a reader's chunk fills: diskmemo.CHUNK_ENTRIES); a game never built is; and
    it says what a validate before any build said, the warnings of the memo's faces too."""
    import shutil

    from generator import diskmemo, rulebook
    from generator.draw import render

    root = mini("- {id: c1, name: Card 1, text: words}")
    game_yaml = root / "cards" / "mini" / "game.yaml"
    game_yaml.write_text(game_yaml.read_text() + "rulebook: rulebook.md\nprint: {min_text_pt: 12}\n")
    (root / "cards" / "mini" / "rulebook.md").write_text("# Rules\n\nPlay a card.\n\n```figure\ncards: c1\n```\n")
    for kind in ("cards", "templates"):
        shutil.copytree(root / kind / "mini", root / kind / "other")
    edit(root / "cards" / "other" / "rulebook.md", "Play a card.", "Play two cards.")
    cold = run(root, "validate")
    assert cold.exit_code == 0 and "below print: min_text_pt" in cold.output, cold.output
    assert run(root, "build", "mini", "--paper", "a4").exit_code == 0
    memo = root / "output" / ".cache" / "memo"
    kept = {p: p.read_bytes() for p in memo.rglob("*") if p.is_file()}
    rendered, laid_out = [], []
    real_face, real_book = render._render_face, rulebook.build_pdf
    monkeypatch.setattr(render, "_render_face", lambda *a, **k: rendered.append(a[1].id) or real_face(*a, **k))
    monkeypatch.setattr(rulebook, "build_pdf", lambda *a, **k: laid_out.append(a[0].id) or real_book(*a, **k))
    monkeypatch.setattr(diskmemo, "CHUNK_ENTRIES", 2)
    warm = run(root, "validate")
    assert warm.output == cold.output
    assert (set(rendered), laid_out) == ({"other"}, ["other"])
    assert {p: p.read_bytes() for p in memo.rglob("*") if p.is_file()} == kept
