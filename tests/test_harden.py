"""Hostile input: confinement to the project, bounds, clean errors, warnings for what is not followed."""
from __future__ import annotations

import os

import pytest
from conftest import MINI_FRONT, REPO, edit, game_copy, run

from generator.guard import MAX_COUNT, shorten

DECK = "cards/olympians/playing-cards.yaml"
ARROWS_1 = '- {id: arrows-1, name: "1 of Arrows", suit: Arrows, rank: 1, favor: 0, title: Recruit}'
# the line the 1 of Arrows is written on, which every finding about it names
ARROWS_1_LINE = next(n for n, line in enumerate((REPO / DECK).read_text().splitlines(), 1) if ARROWS_1 in line)


@pytest.fixture
def project(tmp_path):
    """conftest's `project` holding Olympians alone, the one game the tests here break."""
    return game_copy(tmp_path, "olympians")


def validate(root, *args):
    result = run(root, "validate", "olympians", *args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result


# ---- 1. every file a build reads resolves inside the project -----------------------------------

@pytest.mark.usefixtures("warm_project")   # the fronts still drawn are drawn already
def test_an_include_through_a_symlinked_folder_is_refused(project):
    os.symlink("/etc", project / "templates" / "olympians" / "sys")
    edit(project / "templates" / "olympians" / "back.svg.j2", "</svg>", '{% include "sys/hostname" %}</svg>')
    result = run(project, "build", "olympians")
    assert result.exit_code == 2, result.output
    assert "template 'sys/hostname' leads outside the project" in result.output
    assert "templates/olympians/back.svg.j2:" in result.output and "cards: arrows-1" in result.output  # one message, every card
    assert result.output.count("leads outside") == 1  # one place, said once
    assert not (project / "output" / "olympians").exists()


@pytest.mark.slow   # draws Olympians in memory
def test_a_template_or_icon_linking_outside_is_refused(project):
    tdir = project / "templates" / "olympians"
    os.symlink("/etc/passwd", tdir / "icons" / "secret.svg")
    os.symlink("/etc/hostname", tdir / "stolen.svg.j2")
    edit(project / DECK, "front: card.svg.j2", "front: stolen.svg.j2")
    result = validate(project)
    assert result.exit_code == 2
    assert "front: template 'stolen.svg.j2' leads outside the project (a symlink to /etc/hostname)" in result.output
    (tdir / "stolen.svg.j2").unlink()
    edit(project / DECK, "front: stolen.svg.j2", "front: card.svg.j2")
    result = validate(project, "--render", "--lang", "en")   # one edition drawn in memory, not five
    assert result.exit_code == 2
    assert "templates/olympians/icons/secret.svg" in result.output and "leads outside the project" in result.output


def test_deck_and_data_files_outside_the_project_are_refused(project, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "deck.yaml").write_text((project / DECK).read_text())
    os.symlink(elsewhere / "deck.yaml", project / "cards" / "olympians" / "linked.yaml")
    edit(project / "cards" / "olympians" / "game.yaml", "playing-cards.yaml", "linked.yaml")
    result = validate(project)
    assert result.exit_code == 2 and "deck file 'linked.yaml' leads outside the project" in result.output
    edit(project / "cards" / "olympians" / "game.yaml", "linked.yaml", "playing-cards.yaml")
    tables = project / "cards" / "olympians" / "tables.yaml"
    (elsewhere / "tables.yaml").write_bytes(tables.read_bytes())
    tables.unlink()
    os.symlink(elsewhere / "tables.yaml", tables)
    result = validate(project)
    assert result.exit_code == 2 and "file 'tables.yaml' leads outside the project" in result.output


# ---- 3. clean errors, exit 2, naming file, line, card and field; bounds ------------------------

@pytest.mark.parametrize("card, needle", [
    ('count: 1.0, ', "count: expected integer, got number 1.0"),
    ('count: 1.0e+20, ', "count: expected integer, got number 1e+20"),
    (f'count: {MAX_COUNT + 1}, ', f"count: {MAX_COUNT + 1} is too large: at most 10,000 copies of one card"),
    ('count: 1000000000, ', "at most 10,000 copies of one card"),
    ('rank: !!int abc, ', "'abc' is not a valid !!int"),
    ('hoplite: !!bool maybe, ', "'maybe' is not a valid !!bool"),
])
def test_bad_values_are_clean_errors(project, card, needle):
    edit(project / DECK, "{id: arrows-1, ", "{id: arrows-1, " + card.replace("rank: !!int abc, ", ""))
    if "rank" in card:
        edit(project / DECK, "suit: Arrows, rank: 1, favor: 0, title: Recruit}",
             "suit: Arrows, rank: !!int abc, favor: 0, title: Recruit}")
    result = validate(project)
    assert result.exit_code == 2, result.output
    assert f"{DECK}:{ARROWS_1_LINE}:" in result.output and needle in result.output, result.output


def test_count_one_million_is_refused_quickly(project):
    edit(project / DECK, "{id: arrows-1, ", "{id: arrows-1, count: 1000000, ")
    result = validate(project)
    assert result.exit_code == 2 and "at most 10,000 copies" in result.output


def test_total_copies_are_bounded(project):
    text = (project / DECK).read_text()
    for card in ("arrows-1", "arrows-2", "arrows-3", "arrows-4", "arrows-5", "arrows-6", "shields-1",
                 "shields-2", "shields-3", "shields-4", "shields-5"):
        text = text.replace(f"{{id: {card}, ", f"{{id: {card}, count: 10000, ", 1)
    (project / DECK).write_text(text)
    result = validate(project)
    assert result.exit_code == 2 and "pnp prints at most 20,000 per game" in result.output


def test_deep_nesting_is_a_clean_error(project):
    edit(project / DECK, ARROWS_1, ARROWS_1[:-1] + ", " + "text: " + "[" * 1000 + "]" * 1000 + "}")
    result = validate(project)
    assert result.exit_code == 2 and f"{DECK}:{ARROWS_1_LINE}: " in result.output
    assert "nested more than 64 levels deep (the most pnp accepts)" in result.output


@pytest.mark.parametrize("nesting", [70, 200])
def test_nesting_past_the_bound_says_so(project, nesting):
    edit(project / DECK, ARROWS_1, ARROWS_1[:-1] + ", " + "text: " + "[" * nesting + "]" * nesting + "}")
    result = validate(project)
    assert result.exit_code == 2 and "nested" in result.output


def test_aliases_of_aliases_are_bounded(project):
    bomb = "shared:\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"  l{i}: &l{i} [*l{i-1}, *l{i-1}, *l{i-1}, *l{i-1}, *l{i-1}, *l{i-1}, *l{i-1}, *l{i-1}, *l{i-1}, *l{i-1}]\n"
        for i in range(1, 9))
    text = (project / DECK).read_text().replace("cards:\n", bomb + "cards:\n", 1)
    (project / DECK).write_text(text)
    result = validate(project)
    assert result.exit_code == 2 and "more than 1,000,000 values once its aliases are expanded" in result.output


def test_an_integer_id_does_not_crash_the_report(project):
    edit(project / DECK, "{id: arrows-1, ", "{id: 1, ")
    for fmt in ("text", "json", "github", "junit"):
        result = validate(project, "--format", fmt)
        assert result.exit_code == 2 and "expected string, got integer 1" in result.output, fmt


def test_file_names_over_255_bytes_are_clean_errors(project):
    edit(project / DECK, "front: card.svg.j2", "front: " + "a" * 300 + ".svg.j2")
    result = validate(project)
    assert result.exit_code == 2 and f"{DECK}:9: " in result.output and "front: template 'aaaa" in result.output
    assert "a" * 200 not in result.output  # shortened
    edit(project / DECK, "front: " + "a" * 300 + ".svg.j2", "front: card.svg.j2")
    edit(project / "cards" / "olympians" / "game.yaml", "rules: rules.yaml", "rules: " + "r" * 300 + ".yaml")
    result = validate(project)
    assert result.exit_code == 2 and "rules file 'rrrr" in result.output and "does not exist" in result.output


def test_long_values_are_shortened_in_messages(project):
    edit(project / DECK, ARROWS_1, ARROWS_1.replace("rank: 1,", f"rank: {'x' * 100_000},"))
    result = validate(project)
    assert result.exit_code == 2 and "rank: expected integer, got string 'xxxx" in result.output
    assert len(result.output) < 2000 and "(100002 characters)" in result.output


def test_control_characters_name_the_card_and_field(project):
    edit(project / DECK, ARROWS_1, ARROWS_1.replace("title: Recruit", 'title: "Re\\x01cruit"'))
    result = validate(project)
    assert result.exit_code == 2
    assert f"{DECK}:{ARROWS_1_LINE}: error: olympians/schema: title: control character U+0001 cannot be printed" in result.output
    assert "[cards: arrows-1]" in result.output


def test_an_unknown_schema_keyword_is_an_error(project):
    edit(project / DECK, "rank: {type: integer, minimum: 1,", "rank: {type: integer, minimun: 1,")
    edit(project / DECK, ARROWS_1, ARROWS_1.replace("rank: 1,", "rank: -14,"))
    result = validate(project)
    assert result.exit_code == 2 and "fields.rank: not a valid JSON Schema: unknown keyword 'minimun'" in result.output
    schema = project / "cards" / "olympians" / "tables.schema.json"
    schema.write_text(schema.read_text().replace('"type"', '"tyep"', 1))
    edit(project / DECK, "minimun: 1,", "minimum: 1,")
    result = validate(project)
    assert result.exit_code == 2 and "unknown keyword 'tyep'" in result.output


def test_a_name_of_only_spaces_is_refused(project):
    edit(project / DECK, 'name: "1 of Arrows"', 'name: "   "')
    result = validate(project)
    assert result.exit_code == 2 and "name: '   ' must have a visible character" in result.output


@pytest.mark.parametrize("size", ["{width: 3000mm, height: 88mm}", "{width: .inf, height: 88}",
                                  "{width: .nan, height: 88}"])
def test_sizes_are_bounded(project, size):
    edit(project / DECK, "size: poker", f"size: {size}")
    result = validate(project)
    assert result.exit_code == 2 and "each must be 0 to 2000 mm (2 m)" in result.output


def test_shorten():
    assert shorten("abc") == "abc"
    long = shorten("x" * 500)
    assert len(long) < 110 and long.endswith("… (500 characters)")


# ---- 5. external references are warnings naming the card ---------------------------------------

@pytest.mark.slow
def test_external_references_are_warnings_naming_the_card(mini):
    front = MINI_FRONT.replace('fill="#fafafa"', 'fill="url(http://example.invalid/p.svg#g)"').replace(
        "<svg ", '<?xml-stylesheet href="http://example.invalid/s.css"?>\n<svg ', 1)
    root = mini('- {id: a, name: Alpha, text: "Hello."}', front=front)
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    assert "card a: url(http://example.invalid/p.svg#g) is not followed" in result.output
    assert "card a: an <?xml-stylesheet?> link is not followed" in result.output
    result = run(root, "validate", "--render", "mini")
    assert result.exit_code == 0 and "warning: mini/render: url(http://example.invalid" in result.output
    assert run(root, "validate", "--render", "--strict", "mini").exit_code == 1


def test_references_inside_the_svg_are_not_warned_about():
    from generator.draw.external import external_references

    assert external_references('<svg><rect fill="url(#grad)"/><use href="#a"/><image href="data:x"/></svg>') == []


def test_the_href_pattern_finds_what_its_backtracking_form_finds():
    """external.HREF takes a tag's name whole (possessive), so a tag without an href is not
    tried again with ever shorter names; on tag soup of names, attributes, hrefs (xlink,
    quoted, local, data:, outside) and stray '>' it matches exactly what the plain form does."""
    import random
    import re

    from generator.draw.external import HREF

    fast, plain = re.compile(HREF), re.compile(HREF.replace(r"(\w++)", r"(\w+)"))
    assert fast.pattern != plain.pattern
    rng = random.Random(20261128)
    pieces = ["<", "<rect", "<image", "<use", "<svg:use", "<a", "<feImage", "<text", " ", "\t", "\n", ">", "/>",
              'x="1"', " href=", " xlink:href=", "href", '"', "'", "#a", "data:x", "http://e.invalid/p.svg",
              "p.png", "ab", "é", "=", "url(", ")", "rect>"]
    for _ in range(3000):
        soup = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))
        assert [(m.span(), m.groups()) for m in fast.finditer(soup)] == \
               [(m.span(), m.groups()) for m in plain.finditer(soup)], soup
