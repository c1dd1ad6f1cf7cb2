"""What templates can reach: one registry (draw/helpers.py), and nothing of Python through it.

Every Jinja environment pnp makes holds exactly what HELPERS declares for its place; each
of pnp's helpers refuses what is not plain data and looks up through the sandbox; the
published Jinja injection payloads fail against every helper, in every place a stranger
can write Jinja (a template, the rulebook, card text, a spreadsheet cell, a translation).
"""
from __future__ import annotations

import re
import time
from dataclasses import replace
from pathlib import Path

import jinja2
import polib
import pytest
from jinja2.sandbox import SecurityError

from generator.draw import cardid, helpers
from generator.draw.helpers import CARD_TEXT, FACE, HELPERS, PLACES, RULEBOOK, Inputs, environment
from generator.draw.templates import Sandbox
from generator.draw.textfit import TextError
from generator.guard import Deadline
from tests.conftest import MINI_FRONT, REPO, named, run
from tests.test_hostile import MARK, PAYLOADS, _hostile, _tree

# the payload of the report: keyed() looked attributes up with Python's getattr
LEAK = "{{ ([range]|keyed('__name__','__globals__'))['_bounded_range']['os'].popen('touch %s').read() }}"


# what a template could hand a helper to reach Python with: functions, classes, modules, and
# names beginning with "_"
NOT_DATA = ["range", "[range]", "[[range]]", "{'a': range}", "cycler", "namespace", "joiner", "dict",
            "[t]", "{'k': [keyed]}"]
UNDERSCORED = ["'__globals__'", "'__class__'", "'_bounded_range'", "'__init__'", "'__subclasses__'"]


def _env(place: str) -> Sandbox:
    from generator.draw.fonts import shipped
    from generator.draw.textfit import TextSetter

    inputs = Inputs(Deadline(5), setter=TextSetter(shipped(), {}), strings={"a": "A {n}"}, icons={})
    return environment(place, inputs, undefined=jinja2.StrictUndefined)


def _calls(helper) -> list[str]:
    """Template expressions calling `helper` with each thing that is not data, in each argument."""
    name = helper.name
    if helper.kind == "filter":
        shapes = ["{x}|" + name, "[{'id': 1}]|" + name + "({x})", "[{'id': 1}]|" + name + "('id', {x})"]
    elif helper.kind == "global" and name in ("lang", "direction"):
        return []
    else:
        shapes = [name + "({x})", name + "('a', {x})", name + "('a', n={x})", name + "('a', 1, 2, 80, 40, color={x})"]
    return ["{{ " + shape.replace("{x}", x) + " }}" for shape in shapes for x in NOT_DATA + UNDERSCORED]


def test_every_environment_pnp_makes_holds_exactly_what_the_registry_declares(monkeypatch, mini):
    made: list[Sandbox] = []
    real_init = Sandbox.__init__

    def recording(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        made.append(self)
    monkeypatch.setattr(Sandbox, "__init__", recording)
    root = mini("- {id: a, name: Alpha, text: 'Words {{ 1 + 1 }}.'}",
                front=MINI_FRONT.replace("{{ card.name }}", "{{ fill(card.text) }}"))
    (root / "cards" / "mini" / "rulebook.md").write_text("# Rules\n\n{{ game.title }} for {{ decks|length }}.\n")
    (root / "cards" / "mini" / "game.yaml").write_text("title: Mini\ndecks: [deck.yaml]\nrulebook: rulebook.md\n")
    result = run(root, "validate")
    assert result.exit_code == 0, result.output
    places_seen = set()
    for env in made:
        holds = ({("global", n) for n in env.globals} | {("filter", n) for n in env.filters}
                 | {("test", n) for n in env.tests})
        matching = [p for p in PLACES if holds == set(helpers.declared(p))]
        assert matching, f"an environment holds what no place declares: {sorted(holds ^ set(helpers.declared(FACE)))}"
        places_seen.update(matching)
    assert places_seen == set(PLACES)   # faces, card text (fill) and the rulebook were all made


def test_the_registry_is_sound():
    assert len({(h.kind, h.name) for h in HELPERS}) == len(HELPERS)
    for h in HELPERS:
        assert h.kind in ("global", "filter", "test") and h.places <= set(PLACES) and h.doc
        assert h.reads <= set(helpers.READS), h.name
    assert {"lipsum", "random", "pprint"}.isdisjoint(h.name for h in HELPERS)
    assert helpers.reads(FACE) == {"fonts", "icons", "language", "segno", "strings", "text floor"}   # the face cache key
    assert helpers.reads(CARD_TEXT) == set()


def test_the_reference_lists_every_helper():
    reference = (REPO / "docs" / "reference.md").read_text(encoding="utf-8")
    for h in HELPERS:
        if h.make is not None:
            assert re.search(rf"`{h.name}\b", reference), f"docs/reference.md does not name {h.name}"


@pytest.mark.parametrize("place", PLACES)
def test_pnp_helpers_refuse_what_is_not_plain_data(place):
    env = _env(place)
    env.globals.update(card={"text": "x"}, game={"data": {}})
    tried = 0
    for helper in (h for h in HELPERS if h.make is not None and place in h.places):
        for source in _calls(helper):
            try:
                out = env.from_string(source).render()
            except (SecurityError, jinja2.TemplateError, LookupError, TypeError, ValueError, TextError):
                tried += 1
                continue
            # a refused lookup may still print: never anything of Python
            assert not re.search(r"<(function|built-in|class|module|bound method)", out), (source, out)
            tried += 1
    assert tried


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("payload", [LEAK, *PAYLOADS])
def test_published_injection_payloads_fail_in_every_place(place, payload, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = _env(place)
    env.globals.update(card={"text": "x"}, game={"data": {}}, self=None)
    try:
        out = env.from_string(payload.replace("%s", MARK)).render()
    except (SecurityError, jinja2.TemplateError, LookupError, TypeError, ValueError):
        out = ""
    assert not (tmp_path / MARK).exists()
    assert not re.search(r"<(function|built-in|class|module|bound method)|__globals__|os\.popen", out), out


def test_keyed_looks_up_through_the_sandbox_even_past_the_plain_data_wall():
    env = _env(FACE)
    with pytest.raises(SecurityError):
        helpers.keyed(env, [helpers.bounded_range], "__globals__")
    assert helpers.keyed(env, [{"id": "a", "n": 1}], "id", "n") == {"a": 1}


def test_nothing_of_a_function_class_or_module_is_reachable():
    env = _env(RULEBOOK)
    for source in ("{{ range.__name__ }}", "{{ namespace.__name__ }}", "{{ t.__doc__ }}", "{{ dict.fromkeys }}",
                   "{{ range|attr('__module__') }}", "{{ cycler.mro }}"):
        with pytest.raises(SecurityError):
            env.from_string(source).render()


# ---------------------------------------------------------------------------------------------
# every route a stranger's Jinja takes: each ran `touch` before the registry (the report's payload)

def _payload() -> str:
    return LEAK.replace("%s", MARK)


def _refused(root: Path, *args: str) -> str:
    before = _tree(root)
    return _hostile(run(root, "validate", *args), root, before, time.perf_counter(), 1, 2)


def test_the_leak_through_a_face_template_is_refused(mini):
    root = mini("- {id: a, name: Alpha, text: Words.}", front=MINI_FRONT.replace("</svg>", _payload() + "</svg>"))
    assert "templates/mini/front.svg.j2" in _refused(root)


def test_the_leak_through_the_rulebook_is_refused(mini):
    root = mini("- {id: a, name: Alpha, text: Words.}")
    (root / "cards" / "mini" / "rulebook.md").write_text(f"# Rules\n\n{_payload()}\n")
    named(root / "cards" / "mini", "rulebook")
    assert "cards/mini/rulebook.md" in _refused(root)


def test_the_leak_through_card_text_is_refused(mini):
    root = mini('- {id: a, name: Alpha, text: "' + _payload().replace('"', "'") + '"}',
                front=MINI_FRONT.replace("{{ card.name }}", "{{ fill(card.text) }}"))
    assert "card" in _refused(root)


def test_the_leak_through_a_spreadsheet_cell_is_refused(mini):
    root = mini("- {id: a, name: Alpha, text: Words.}", front=MINI_FRONT.replace("{{ card.name }}", "{{ fill(card.text) }}"))
    deck = root / "cards" / "mini" / "deck.yaml"
    deck.write_text(deck.read_text().split("cards:\n")[0] + "cards: {from: cards.csv}\n")
    cell = _payload().replace('"', '""')
    (root / "cards" / "mini" / "cards.csv").write_text(f'id,name,text\na,Alpha,"{cell}"\n')
    assert "cards.csv" in _refused(root)


@pytest.mark.slow   # draws every German face of Olympians
def test_the_leak_through_a_translators_po_file_is_refused(project):
    assert run(project, "i18n", "export", "olympians", "--lang", "de").exit_code == 0
    po_path = project / "output/olympians/i18n/olympians-de.po"
    po = polib.pofile(str(po_path))
    entry = next(e for e in po if e.msgctxt.startswith("cards.") and "{{" in e.msgid)   # text that fill() expands
    entry.msgstr, entry.flags = entry.msgstr.replace("{{", _payload() + " {{", 1), []
    po.save(str(po_path))
    run(project, "i18n", "import", str(po_path))
    out = _refused(project, "olympians", "--lang", "de")
    assert "de" in out


def test_t_measures_its_placeholders_before_it_fills_them():
    """A string of 1,600 placeholders filled with a 999,000-character value would make 1.6
    billion characters in one step (found by a hostile review)."""
    env = environment(RULEBOOK, Inputs(Deadline(5), strings={"boom": "{x}" * 1600, "ok": "A {x}"}),
                      undefined=jinja2.StrictUndefined)
    with pytest.raises(jinja2.TemplateRuntimeError, match="at most 1,000,000"):
        env.from_string("{% set big = 'x' * 999000 %}{{ t('boom', x=big)|length }}").render()
    assert env.from_string("{{ t('ok', x='b') }}").render() == "A b"


# ---------------------------------------------------------------------------------------------
# the registry feeds the face cache key, and the designers' reference lists it


def test_an_input_a_helper_declares_joins_the_cache_key_without_touching_render(monkeypatch, mini):
    """A helper that reads a new input is one entry of the registry: the faces a remembering
    session rendered are rendered again when that input changes, and only when a helper of
    the faces declares it (render.py names no input of its own)."""
    from generator.data.load import load_game
    from generator.draw import render
    from generator.session import Session

    root = mini('- {id: a, name: Alpha, text: "Words."}')
    session = Session(remember=True)
    drawn: list[str] = []
    real = render._render_face
    monkeypatch.setattr(render, "_render_face", lambda *a, **k: drawn.append("face") or real(*a, **k))

    def faces_rendered() -> int:
        drawn.clear()
        render.render_svgs(load_game(root, "mini", session), session=session)
        return len(drawn)

    assert faces_rendered() == 2 and faces_rendered() == 0   # front and back, then remembered
    phase = ["new"]
    monkeypatch.setitem(helpers.READS, "moon", helpers.Read("the moon's phase", lambda i: phase[0]))
    assert faces_rendered() == 0   # an input no helper of the faces reads
    monkeypatch.setattr(helpers, "HELPERS", tuple(
        replace(h, reads=h.reads | {"moon"}) if h.name == "lang" else h for h in HELPERS))
    assert faces_rendered() == 2   # `lang` reads it now: a new key
    assert faces_rendered() == 0
    phase[0] = "full"
    assert faces_rendered() == 2   # the input changed: rendered again


def test_cache_words_come_from_the_reads_of_the_helpers_of_a_place():
    inputs = Inputs(Deadline(5), strings={"a": "A"}, language="de", fonts="F")
    # fonts, icons (''), language, segno (qr()), strings, text floor (no setter: none)
    assert helpers.cache_words(FACE, inputs) == "F" + "de" + cardid.qr_version() + '{"a": "A"}' + "0.0"
    assert helpers.cache_words(RULEBOOK, inputs) == "de" + '{"a": "A"}'
    assert helpers.cache_words(CARD_TEXT, inputs) == ""
    assert set(helpers.READS) == set().union(*(h.reads for h in HELPERS))   # none declared in vain


def test_the_reference_lists_every_helper_and_no_other():
    """docs/reference.md names every helper of HELPERS (pnp's own in its table, jinja2's own
    by kind), the data names of a face, and nothing a template cannot reach."""
    section = (REPO / "docs" / "reference.md").read_text().split("## In every template", 1)[1].split("\n## ", 1)[0]
    table: set[str] = set()
    for row in (line for line in section.splitlines() if line.startswith("| `")):
        for span in re.findall(r"`([^`]+)`", row.split(" | ", 1)[0]):
            name = re.match(r"\s*(\w+)", span.rsplit("|", 1)[-1])
            assert name, span
            table.add(name.group(1))
    assert table - set(helpers.DATA[FACE]) == {h.name for h in HELPERS if h.make is not None}
    jinja = re.search(r"jinja2's own, in every template: (.*?)\. Left out: (.*?)\.\n", section, re.S)
    assert jinja, "the reference's paragraph of jinja2's own helpers"
    listed, left_out = jinja.groups()
    kinds = {}
    for part in listed.split(";"):
        kind, names = part.split(None, 1)
        kinds[kind] = set(re.findall(r"`(\w+)`", names))
    assert kinds == {k + "s": {h.name for h in HELPERS if h.make is None and h.kind == k}
                     for k in ("global", "filter", "test")}
    assert re.findall(r"`(\w+)`", left_out) and not set(re.findall(r"`(\w+)`", left_out)) & {h.name for h in HELPERS}
