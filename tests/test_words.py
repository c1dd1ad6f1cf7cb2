"""The word checks of `pnp validate` and `pnp lint` (issue 41): spelling per language through
libhunspell, the glossary's terms and keywords, near-duplicates, numbers, quotes and spaces;
`pnp lint --fix`; the 20 faults planted in a copy of Olympians; the shipped games clean.

Each kind is shown found and not found on a tiny game of its own, in-process.
"""
from __future__ import annotations

import ctypes
import json
import re
import shutil
import textwrap
from pathlib import Path

import pytest

from generator.data.glossary import glossary_of
from generator.data.i18ncheck import checked_editions
from generator.data.load import load_game
from generator.draw.markup import expand_keywords
from generator.rules import hunspellbridge
from generator.rules.style import fixed
from generator.rules.words import KINDS, word_findings
from generator.rules.wordtexts import words
from generator.session import Session
from tests.conftest import MINI_BACK, MINI_FRONT, REPO, run


def make(root: Path, cards: str, *, langs: str = "[en]", i18n: dict | None = None, glossary: str = "",
         allow: str = "", rulebook: str = "", rules: str = "") -> Path:
    """A one-deck game `w` (cards: the YAML list of its cards; fields text and note)."""
    folder = root / "cards" / "w"
    (folder / "i18n").mkdir(parents=True)
    (root / "templates" / "w").mkdir(parents=True)
    (root / "templates" / "w" / "front.svg.j2").write_text(MINI_FRONT)
    (root / "templates" / "w" / "back.svg.j2").write_text(MINI_BACK)
    (folder / "game.yaml").write_text(f"title: Wordy\nlanguages: {langs}\ndecks: [deck.yaml]\n"
                                      + ("rulebook: rulebook.md\n" if rulebook else "")
                                      + ("rules: rules.yaml\n" if rules else ""))
    cards = re.sub(r"\{id: (\w+),(?! name)", r"{id: \1, name: Card \1,", textwrap.dedent(cards).strip("\n"))
    (folder / "deck.yaml").write_text(
        "deck: things\nname: Things\nfront: front.svg.j2\nback: back.svg.j2\n"
        "fields:\n  text: {type: string}\n  note: {type: string}\nrequired: [text]\ncards:\n"
        + textwrap.indent(cards, "  ") + "\n", encoding="utf-8")
    for lang, text in (i18n or {}).items():
        (folder / "i18n" / f"{lang}.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    for name, text in (("glossary.yaml", glossary), ("words.txt", allow), ("rulebook.md", rulebook),
                       ("rules.yaml", rules)):
        if text:
            (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def found(root: Path, game: str = "w"):
    loaded = load_game(root, game, Session())
    editions, _ = checked_editions(loaded, None)
    return word_findings(loaded, editions)


def kinds(findings, kind: str) -> list:
    return [f for f in findings if f.rule == kind]


# ---- the bridge ------------------------------------------------------------------------------

def test_hunspell_bridge_calls_the_functions_it_was_written_against():
    lib = ctypes.CDLL(hunspellbridge.SONAME)
    for name in hunspellbridge.FUNCTIONS:
        assert hasattr(lib, name), f"libhunspell has no {name}: the bridge needs rewriting"
    en = hunspellbridge.speller("en")
    assert en.name == "en_US" and en.spell("receive") and not en.spell("recieve")
    assert en.suggest("recieve")[0] == "receive"
    assert hunspellbridge.speller("de").spell("Kartenstapel")       # a compound Hunspell composes
    assert hunspellbridge.speller("fr-CA").name == "fr_CA"
    assert hunspellbridge.speller("ja") is None                       # no Hunspell dictionary exists


def test_words_of_a_text_leave_markup_jinja_and_icons_out():
    got = words("**Draw** :bolt: {{ n }} cards. :kw[Overkill]: hits {name}; l’adversaire\n4th")
    assert [w.text for w in got] == ["Draw", "cards", "Overkill", "hits", "l’adversaire"]
    assert [w.opens for w in got] == [True, False, True, False, False]


# ---- spelling, per language --------------------------------------------------------------------

def test_spelling_per_language_with_the_games_own_words(tmp_path):
    root = make(tmp_path, """
        - {id: a, name: Zorblax, text: "Zorblax will recieve the cards."}
        - {id: b, name: Quillon, text: "Quillon draws a card.", note: Glimmerstone}
        """, langs="[en, de, fr, ja]", allow="Glimmerstone\n[de]\nZauberkram\n", i18n={
        "de": """\
            cards:
              a: {text: "Zorblax bekommt die Kartenstapel und Zauberkram."}
              b: {text: "Quillon ziehtt eine Karte."}
            """,
        "fr": """\
            cards:
              a: {text: "Zorblax prend l'adversaire et qu’il joue."}
              b: {text: "Quillon pioche une cartte."}
            """,
        "ja": """\
            cards:
              a: {text: "ゾルブラックスはカードを受け取る。"}
              b: {text: "クイロンはカードを1枚引く。"}
            """})
    findings, notes = found(root)
    spelt = {(f.file, f.line, f.found): f for f in kinds(findings, "spelling")}
    assert set(spelt) == {("cards/w/deck.yaml", 10, "recieve"), ("cards/w/i18n/de.yaml", 3, "ziehtt"),
                          ("cards/w/i18n/fr.yaml", 3, "cartte")}
    assert spelt["cards/w/deck.yaml", 10, "recieve"].cards == ("a",)
    assert spelt["cards/w/deck.yaml", 10, "recieve"].expected[0] == "receive"
    assert "card a, text: 'recieve'" in spelt["cards/w/deck.yaml", 10, "recieve"].message
    assert any("ja: no Hunspell dictionary" in n for n in notes)


# ---- terms -------------------------------------------------------------------------------------

GLOSSARY = """\
    terms:
      Favor: {de: Gunst, ja: 恩寵}
      Temple: {}
      Hero: {plain: [heroes]}
    keywords:
      Overkill: {reminder: "extra damage goes on", de: {name: Übermacht, reminder: "der Rest trifft weiter"}}
    """


def test_terms_found_and_not_found(tmp_path):
    root = make(tmp_path, """
        - {id: a, text: "Gain 1 favor. Favor wins games."}
        - {id: b, text: "Put it in the Shrine of Glory."}
        - {id: c, text: "Old heroes take Favor to the Hero."}
        - {id: e, text: "Both Temples fall; a Hero falls."}
        - {id: d, text: "Favor is what you gain, for :kw[Overkill]: or :kw[Smash]:."}
        """, langs="[en, de, ja]", glossary=GLOSSARY, allow="Glory\n", i18n={"de": """\
            cards:
              a: {text: "Nimm 1 Gunst. Gunst gewinnt."}
              c: {text: "Alte Helden bringen dem Helden Ehre."}
            """, "ja": """\
            cards:
              a: {text: "恩寵を1つ得る。恩寵が勝つ。"}
              c: {text: "古の英雄たちが英雄に栄誉を運ぶ。"}
            """})
    findings, _ = found(root)
    assert [(f.cards, f.found, f.expected) for f in kinds(findings, "term-form")] == [
        (("a",), "favor", "Favor"), (("e",), "Temples", "Temple")]   # Temples: a form not declared
    assert [(f.cards, f.found) for f in kinds(findings, "term-undefined")] == [(("b",), "Shrine")]   # Glory: words.txt
    assert [(f.file, f.line, f.found) for f in kinds(findings, "term-unused")] == [("cards/w/glossary.yaml", 3,
                                                                                     "Temple")]
    assert [(f.file, f.cards, f.expected) for f in kinds(findings, "term-translation")] == [
        ("cards/w/i18n/de.yaml", ("c",), "Gunst"), ("cards/w/i18n/ja.yaml", ("c",), "恩寵")]   # a: translated so
    assert [f.found for f in kinds(findings, "keyword-unknown")] == ["Smash"]


def test_capitals_of_german_nouns_are_not_undefined_terms(tmp_path):
    root = make(tmp_path, '- {id: a, text: "Draw a card."}', langs="[en, de]",
                i18n={"de": 'cards:\n  a: {text: "Ziehe eine Karte vom Stapel."}\n'})
    assert kinds(found(root)[0], "term-undefined") == []


# ---- keywords with reminder text ---------------------------------------------------------------

def test_keyword_printed_with_its_reminder_on_first_use_only(tmp_path):
    root = make(tmp_path, '- {id: a, text: "x"}', glossary=GLOSSARY)
    loaded = load_game(root, "w", Session())
    keywords = glossary_of(loaded).keywords
    card = {"text": ":kw[Overkill]: twice: :kw[Overkill]:.", "note": "Then :kw[Overkill]: and :kw[Nope]:", "n": 2}
    assert expand_keywords(card, keywords, "en") == {
        "text": "Overkill *(extra damage goes on)* twice: Overkill.", "note": "Then Overkill and :kw[Nope]:", "n": 2}
    assert expand_keywords(card, keywords, "de")["text"] == "Übermacht *(der Rest trifft weiter)* twice: Übermacht."


def test_a_face_prints_the_keyword_and_its_reminder(tmp_path):
    from generator.draw.render import render_svgs

    front = MINI_FRONT.replace("{{ textbox(card.text, 6, 20, deck.trim_w - 6, 30, size=3.5, min_size=2.5) }}",
                               "<text>{{ card.text }}</text>")
    root = make(tmp_path, '- {id: a, text: "Deal :kw[Overkill]:."}', glossary=GLOSSARY)
    (root / "templates" / "w" / "front.svg.j2").write_text(front)
    loaded = load_game(root, "w", Session())
    svgs = render_svgs(loaded, Session())
    svg = svgs.svgs[svgs.cards[0].front]
    assert "Deal Overkill *(extra damage goes on)*." in svg


# ---- style -------------------------------------------------------------------------------------

def test_style_found_and_not_found(tmp_path):
    root = make(tmp_path, """
        - {id: a, text: "Each player draws 2 cards and discards one of them now."}
        - {id: b, text: "Each player draws 3 cards and discards one of them now."}
        - {id: c, text: "Each player draws two cards and keeps one of them now."}
        - {id: d, text: "Each rival loses 2 cards and discards one of them later.", note: "Say \\"hi\\"  twice."}
        - {id: e, name: E, text: "The “curly” ones win.", note: "Don’t stop."}
        """)
    findings, _ = found(root)
    assert [f.cards for f in kinds(findings, "near-duplicate")] == [("c",)]   # b: a number changed; d: 3 words
    assert [f.cards for f in kinds(findings, "number-style")] == [("c",)]
    assert [(f.cards, f.expected) for f in kinds(findings, "quotes")] == [(("d",), "curly")]
    assert [f.cards for f in kinds(findings, "double-space")] == [("d",)]


def test_curly_quotes_and_spaces_fixed_but_inside_jinja():
    assert fixed('He said "go"  now, don\'t {{ "%+d" % x }}', "curly") == 'He said “go” now, don’t {{ "%+d" % x }}'
    assert fixed("“a” ‘b’", "straight") == "\"a\" 'b'"


# ---- severities, reports -----------------------------------------------------------------------

def test_severity_per_kind_in_rules_yaml_and_every_report_format(tmp_path):
    root = make(tmp_path, '- {id: a, text: "We recieve  it."}', rules="""\
        words: {spelling: error, double-space: off}
        rules: []
        """)
    findings, _ = found(root)
    assert [(f.rule, f.severity) for f in findings] == [("spelling", "error")]
    result = run(root, "lint", "w", "--format", "json", "--trusted")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["games"][0]["findings"][0]["file"] == "cards/w/deck.yaml"
    assert data["games"][0]["findings"][0]["line"] == 10
    github = run(root, "lint", "w", "--format", "github", "--trusted").stdout
    assert "::error file=cards/w/deck.yaml,line=10,title=w/spelling::" in github
    junit = run(root, "lint", "w", "--format", "junit", "--trusted").stdout
    assert '<testcase classname="pnp.w" name="spelling">' in junit and "recieve" in junit
    (root / "cards" / "w" / "rules.yaml").write_text("words: {spelling: loud}\nrules: []\n")
    result = run(root, "lint", "w", "--trusted")
    assert result.exit_code == 2 and "rules.yaml" in result.output


def test_warnings_by_default_errors_under_strict(tmp_path):
    root = make(tmp_path, '- {id: a, text: "We recieve it."}')
    assert run(root, "lint", "w", "--trusted").exit_code == 0
    strict = run(root, "lint", "w", "--strict", "--trusted")
    assert strict.exit_code == 1 and "cards/w/deck.yaml:10:" in strict.stdout and "1 error" in strict.stdout


# ---- pnp lint --fix ----------------------------------------------------------------------------

FIX_DECK = """\
# a comment at the top
deck: things
name: Things
front: front.svg.j2
back: back.svg.j2
fields:
  text: {type: string}
  note: {type: string}
required: [text]
cards:
  - id: a          # plain
    name: A
    text: Say "hi"  twice.
  - {id: b, name: B, text: 'It''s  "here".', note: "Don’t go."}   # single-quoted
  - id: c
    name: C
    text: "A \\"quote\\" inside."   # double-quoted
  - id: d
    name: D
    text: |-
      A block  with "quotes"
      on two lines {{ "x" }}.
  - {id: e, name: E, text: "The “curly” ones win, don’t they?"}
"""


def test_lint_fix_leaves_comments_order_and_styles_untouched(tmp_path):
    root = make(tmp_path, '- {id: z, text: "x"}', glossary="quotes: curly\n")
    deck = root / "cards" / "w" / "deck.yaml"
    deck.write_text(FIX_DECK, encoding="utf-8")
    result = run(root, "lint", "w", "--fix", "--trusted")
    assert result.exit_code == 0, result.output
    assert "cards/w/deck.yaml: fixed 4 values" in result.stderr
    expected = (FIX_DECK.replace('text: Say "hi"  twice.', "text: Say “hi” twice.")
                .replace("""text: 'It''s  "here".'""", "text: 'It’s “here”.'")
                .replace('text: "A \\"quote\\" inside."', 'text: "A “quote” inside."')
                .replace('A block  with "quotes"', "A block with “quotes”"))
    assert deck.read_text(encoding="utf-8") == expected
    assert "quotes" not in run(root, "lint", "w", "--trusted").stdout


def test_lint_fix_never_writes_through_a_link(tmp_path):
    root = make(tmp_path, '- {id: z, text: "x"}')
    deck = root / "cards" / "w" / "deck.yaml"
    real = tmp_path / "elsewhere.yaml"
    real.write_text(FIX_DECK, encoding="utf-8")
    deck.unlink()
    deck.symlink_to(real)
    result = run(root, "lint", "w", "--fix", "--trusted")
    assert "not fixed" in result.stderr and real.read_text(encoding="utf-8") == FIX_DECK and deck.is_symlink()


def test_every_kind_is_in_the_rules_schema_and_the_reference():
    schema = json.loads((REPO / "generator/assets/schemas/rules.schema.json").read_text())
    assert list(schema["properties"]["words"]["properties"]) == list(KINDS)
    reference = (REPO / "docs" / "words.md").read_text()
    assert all(f"`{kind}`" in reference for kind in KINDS)


# ---- the shipped games, and 20 faults planted in a copy of Olympians ---------------------------

@pytest.mark.slow
def test_shipped_games_have_no_word_findings():
    for game in ("olympians", "meteor", "metikoro", "king-of-the-pitch", "meta-olympia"):
        findings, _ = found(REPO, game)
        assert findings == [], [f"{f.file}:{f.line} {f.rule} {f.message}" for f in findings]


def plant(path: Path, old: str, new: str) -> int:
    """Replace one occurrence; the line it is on."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")
    return text[:text.index(old)].count("\n") + 1


@pytest.mark.slow
def test_twenty_planted_faults_give_exactly_twenty_findings(tmp_path):
    shutil.copytree(REPO / "cards" / "olympians", tmp_path / "cards" / "olympians")
    shutil.copytree(REPO / "templates" / "olympians", tmp_path / "templates" / "olympians")
    cards = tmp_path / "cards" / "olympians"
    planted = []

    def at(file: str, old: str, new: str, rule: str, word, key_above: int = 0) -> None:
        """Plant a fault; the finding names the line of its key (`key_above` lines up in a block)."""
        planted.append((f"cards/olympians/{file}", plant(cards / file, old, new) - key_above, rule, word))

    # 12 typos: cards, rulebooks and translations in English, German and French
    at("playing-cards.yaml", "Thunder answers", "Thunder answrs", "spelling", "answrs")
    at("playing-cards.yaml", "slow to forgive", "slow to forgve", "spelling", "forgve")
    at("playing-cards.yaml", "sailors pour wine", "sailers pour wine", "spelling", "sailers")
    at("playing-cards.yaml", "wins wars with a plan", "wins wars with a plann", "spelling", "plann")
    at("playing-cards.yaml", "Her silver arrows", "Her silvr arrows", "spelling", "silvr")
    at("reference.yaml", "leads any card", "leads any crad", "spelling", "crad")
    at("rulebook.md", "Schafkopf", "Schafkopff", "spelling", "Schafkopff")
    at("i18n/de.yaml", "Flinke Füße", "Flinke Füsse", "spelling", "Füsse")
    at("i18n/de.yaml", "Wer Ares auf der Hand hat", "Wer Ares auf der Hnad hat", "spelling", "Hnad")
    at("i18n/fr.yaml", "Pieds agiles", "Pieds agilles", "spelling", "agilles")
    at("rulebook.de.md", "Sheepshead", "Sheepsheed", "spelling", "Sheepsheed")
    at("rulebook.fr.md", "Sheepshead", "Sheephead", "spelling", "Sheephead")
    # 2 miscapitalised terms
    at("reference.yaml", "an Olympian wins", "an olympian wins", "term-form", "olympian")
    at("playing-cards.yaml", "sworn to the Hero's side", "sworn to the hero's side", "term-form", "hero")
    # 2 capitalised words the glossary does not define
    at("playing-cards.yaml", "the first spear is thrown", "the first Spear is thrown", "term-undefined", "Spear")
    at("playing-cards.yaml", "sees the end of every round", "sees the end of every Round", "term-undefined", "Round")
    # 1 glossary term used nowhere
    at("glossary.yaml", "  Exploration: {de: Erkundung, fr: Exploration}\n",
       "  Exploration: {de: Erkundung, fr: Exploration}\n  Ambrosia: {de: Ambrosia}\n", "term-unused", "Ambrosia")
    planted[-1] = (planted[-1][0], planted[-1][1] + 1, *planted[-1][2:])
    # 1 near-duplicate: a copy not updated
    at("playing-cards.yaml", "She gave up her throne to tend the fire. Humble, but still above any mortal.",
       "His forge made the thunderbolts, though he keeps all of the glory.", "near-duplicate", None)
    # 2 translated terms differing from the edition's glossary
    at("i18n/de.yaml", "Wenigste Gunst:", "Wenigste Ehre:", "term-translation", "Gunst", key_above=1)
    at("i18n/fr.yaml", "Le moins de Faveur\u00a0:", "Le moins de gloire\u00a0:", "term-translation", "Faveur",
       key_above=1)
    assert len(planted) == 20

    findings, _ = found(tmp_path, "olympians")
    got = sorted((f.file, f.line, f.rule) for f in findings)
    assert got == sorted((file, line, rule) for file, line, rule, _ in planted), \
        [f"{f.file}:{f.line} {f.rule} {f.message}" for f in findings]
    by_where = {(f.file, f.line, f.rule): f for f in findings}
    for file, line, rule, word in planted:
        if word and rule in ("spelling", "term-form", "term-undefined", "term-unused"):
            assert by_where[file, line, rule].found == word
        if rule == "term-translation":
            assert by_where[file, line, rule].expected == word


def test_validate_reports_the_word_findings_beside_the_rules(tmp_path):
    root = make(tmp_path, '- {id: a, text: "We recieve it."}')
    result = run(root, "validate", "w", "--no-render", "--format", "json", "--trusted")
    assert result.exit_code == 0, result.output
    found_ = json.loads(result.stdout)["games"][0]["findings"]
    assert [(f["rule"], f["file"], f["line"], f["cards"], f["found"]) for f in found_] == [
        ("spelling", "cards/w/deck.yaml", 10, ["a"], "recieve")]
    assert run(root, "validate", "w", "--no-render", "--strict", "--trusted").exit_code == 1


@pytest.mark.slow
def test_the_jail_of_an_untrusted_run_reads_the_dictionaries(tmp_path):
    import subprocess
    import sys

    root = make(tmp_path, '- {id: a, text: "We recieve it."}')
    proc = subprocess.run([sys.executable, "-m", "generator", "--root", str(root), "lint", "w", "--untrusted=strict",
                           "--format", "json"], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["games"][0]["findings"][0]["expected"][0] == "receive"


def test_lint_fix_rewrites_a_csv_sheet_cell_by_cell(tmp_path):
    root = make(tmp_path, '- {id: z, text: "x"}', glossary="quotes: curly\n")
    deck = root / "cards" / "w" / "deck.yaml"
    deck.write_text(deck.read_text().split("cards:\n")[0] + "cards: {from: cards.csv}\n")
    sheet = root / "cards" / "w" / "cards.csv"
    sheet.write_text('id,name,text\na,A,"Say ""hi""  now, friend"\nb,B,Don\'t  stop\nc,C,Plain “curly” text\n',
                     encoding="utf-8")
    result = run(root, "lint", "w", "--fix", "--trusted")
    assert "cards/w/cards.csv: fixed 2 values" in result.stderr, result.output
    assert sheet.read_text(encoding="utf-8") == ('id,name,text\na,A,"Say “hi” now, friend"\nb,B,Don’t stop\n'
                                                 'c,C,Plain “curly” text\n')


def test_near_duplicates_found_through_the_index_are_those_of_every_pair():
    """style._near_duplicates compares only texts sharing a run of words (the pigeonhole):
    the same findings, beside the same first card, as comparing every pair."""
    import random

    from generator.rules import style
    from generator.rules.wordtexts import Text

    class Glossary:
        similar, formulaic = frozenset(), ()

    rng = random.Random(41)
    vocab = "gain one favor card draw discard the a of to each player you may then move 2 3".split()
    texts = []
    for i in range(300):
        words = [rng.choice(vocab) for _ in range(rng.randint(5, 12))]
        texts.append(Text("en", "k", " ".join(words), "f", i, card=f"c{i}", field="text", on_card=True))
        for _ in range(rng.randint(0, 2)):
            for _ in range(rng.randint(1, 3)):
                k = rng.randrange(len(words))
                op = rng.choice(("swap", "add", "drop"))
                words = (words[:k] + [rng.choice(vocab)] + words[k + 1:] if op == "swap" else
                         words[:k] + [rng.choice(vocab)] + words[k:] if op == "add" else words[:k] + words[k + 1:])
            texts.append(Text("en", "k", " ".join(words), "f", i, card=f"d{i}-{len(texts)}", field="text",
                              on_card=True))

    def every_pair():
        items = [(t, [w.lower() for w in style._TOKEN.findall(style.clean(t.text))]) for t in texts]
        items = [(t, toks) for t, toks in items if len(toks) >= style.FEWEST_WORDS]
        found = []
        for j, (b, tb) in enumerate(items):
            for a, ta in items[:j]:
                if a.card != b.card and ta != tb and abs(len(ta) - len(tb)) <= style.MOST_APART \
                        and 1 <= style._apart(ta, tb) <= style.MOST_APART:
                    found.append((b.card, a.card))
                    break
        return found

    indexed = [(f[1].card, f[4]) for f in style._near_duplicates(texts, Glossary())]
    expected = every_pair()
    assert len(expected) > 50
    assert [b for b, _ in indexed] == [b for b, _ in expected]
    by_card = {t.card: t.text for t in texts}
    assert [a_text for _, a_text in indexed] == [by_card[a] for _, a in expected]
