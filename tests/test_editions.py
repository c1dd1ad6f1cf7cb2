"""Editions: one game in several languages. Olympians ships in English, German, French,
Japanese and Arabic; every edition is built, named, listed, checked and printed in its script."""
from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
import zipfile

import polib
import pypdfium2 as pdfium
import pytest

from generator.data.editions import catalogue, direction_of, languages_of, source_hash
from generator.data.load import load_game
from generator.loop.watch import editions_touched
from generator.session import Session
from tests.conftest import REPO, edit, named, run

LANGS = ("en", "de", "fr", "ja", "ar")


def text_of(pdf) -> str:
    doc = pdfium.PdfDocument(pdf)
    return "\n".join(doc[n].get_textpage().get_text_range() for n in range(len(doc)))


def scripts(text: str) -> set[str]:
    """The scripts of the letters in `text` (LATIN, CJK, HIRAGANA, KATAKANA, ARABIC...)."""
    return {unicodedata.name(ch, "?").split()[0] for ch in text if unicodedata.category(ch).startswith("L")}


def test_olympians_lists_five_languages_and_every_text_is_translated():
    game = load_game(REPO, "olympians", Session())
    assert languages_of(game.meta) == LANGS
    entries = catalogue(game)
    assert {"game.title", "decks.playing-cards.name", "cards.zeus.text", "cards.contest-play.text",
            "strings.dealing.players", "strings.results.conquest"} <= set(entries)
    assert "cards.zeus.emblem" not in entries   # an icon's name: the deck's translate: leaves it out
    result = run(REPO, "i18n", "status", "olympians")
    assert result.exit_code == 0
    for lang in LANGS[1:]:
        assert f"olympians {lang}: {len(entries)} of {len(entries)} texts translated, 0 missing, 0 stale" \
               in result.output


def test_manifest_names_the_language_of_every_file(olympians_build):
    manifest = json.loads((olympians_build / "manifest.json").read_text())
    by_path = {f["path"]: f for f in manifest["files"]}
    for lang in LANGS:
        stem = "olympians" if lang == "en" else f"olympians-{lang}"
        for paper in ("a4", "letter"):
            for kind, ext in (("sheets", "pdf"), ("rulebook", "pdf"), ("cut", "svg")):
                assert by_path[f"{stem}-{kind}-{paper}.{ext}"]["language"] == lang
    assert len(by_path) == 5 * 2 * 3


def test_a_game_of_one_language_keeps_its_files_and_manifest(all_builds):
    manifest = json.loads((all_builds["meteor"] / "manifest.json").read_text())
    assert all("language" not in f for f in manifest["files"])
    assert sorted(p.name for p in all_builds["meteor"].iterdir()) == sorted(
        ["manifest.json", *(f"meteor-{k}-{p}.{e}" for p in ("a4", "letter")
                            for k, e in (("sheets", "pdf"), ("rulebook", "pdf"), ("cut", "svg")))])


@pytest.mark.parametrize("lang, words, script", [
    ("de", ["Spielkarten", "Stich", "Mutprobe"], {"LATIN"}),
    ("fr", ["Boîte de Pandore", "Héros", "pli"], {"LATIN"}),
    ("ja", ["目次", "英雄", "トリック"], {"CJK", "HIRAGANA", "KATAKANA"}),
    ("ar", ["المحتويات", "البطل", "طروادة"], {"ARABIC"}),
])
def test_each_edition_prints_its_own_words_in_its_script(olympians_build, lang, words, script):
    sheets = text_of(olympians_build / f"olympians-{lang}-sheets-a4.pdf")
    rulebook = text_of(olympians_build / f"olympians-{lang}-rulebook-a4.pdf")
    assert script <= scripts(sheets) and script <= scripts(rulebook)
    for word in words:
        # PDFium reads a page's text in the order its glyphs stand, left to right: right-to-left
        # words come back reversed (poppler's pdftotext reorders them)
        assert (word[::-1] if direction_of(lang) == "rtl" else word) in rulebook, word
    english = text_of(olympians_build / "olympians-rulebook-a4.pdf")
    assert "Contents" in english and "Contents" not in rulebook   # the book's own words are translated too


def test_the_arabic_rulebook_runs_right_to_left(olympians_build):
    """Pango sets it: a heading's number stands right of its words, a running head's title on the right."""
    doc = pdfium.PdfDocument(olympians_build / "olympians-ar-rulebook-a4.pdf")
    page = doc[2]
    text = page.get_textpage()
    chars = [(text.get_text_range(i, 1), text.get_charbox(i)) for i in range(text.count_chars())]
    whole = "".join(c for c, _ in chars)
    at = whole.index("نظرة"[::-1])   # the first heading, "Overview" (read left to right, see above)
    heading = chars[at][1]
    line = [box for c, box in chars if abs(box[1] - heading[1]) < 3]
    (number,) = [box for c, box in chars if c == "1" and abs(box[1] - heading[1]) < 3]
    assert number[0] == max(box[0] for box in line) and number[0] > page.get_width() / 2


def test_the_japanese_rulebook_breaks_lines_between_characters(olympians_build):
    """No spaces, yet the paragraphs fill the column: Pango breaks Japanese by UAX #14."""
    doc = pdfium.PdfDocument(olympians_build / "olympians-ja-rulebook-a4.pdf")
    lines = [ln for ln in doc[2].get_textpage().get_text_range().splitlines() if len(ln) > 30]
    assert len(lines) > 5
    assert not any(ln.lstrip().startswith(("。", "、", "）", "」")) for ln in lines)   # kinsoku: never first


@pytest.mark.slow   # builds an edition of Olympians
@pytest.mark.usefixtures("warm_project")   # translations are tested, not the drawing: faces drawn already
def test_a_missing_translation_names_language_card_and_field(project):
    edit(project / "cards/olympians/i18n/de.yaml", "    name: Zeus\n", "")
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 2
    assert re.search(r"cards/olympians/i18n/de.yaml:\d+: error: olympians/translations: name: not translated "
                     r"\[cards: zeus\]", result.output), result.output
    build = run(project, "build", "olympians", "--lang", "de", "--paper", "a4")
    assert build.exit_code == 2 and re.search(r"cards/olympians/i18n/de.yaml:\d+: card zeus: name: not translated",
                                              build.output)
    assert run(project, "build", "olympians", "--lang", "fr", "--paper", "a4").exit_code == 0   # fr is whole


def test_a_translation_of_a_changed_source_is_stale(project):
    edit(project / "cards/olympians/playing-cards.yaml", "Thunder answers when he speaks.",
         "Thunder answers whenever he speaks.")
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 0
    stale = [ln for ln in result.output.splitlines() if "stale: the en text changed" in ln]
    assert len(stale) == 4 and all("[cards: zeus]" in ln for ln in stale)
    assert run(project, "validate", "olympians", "--no-render", "--strict").exit_code == 1
    assert "1 stale" in run(project, "i18n", "status", "olympians").output
    assert run(project, "i18n", "accept", "olympians", "--lang", "de").exit_code == 0   # checked: still right
    status = run(project, "i18n", "status", "olympians").output
    assert "olympians de: 121 of 121 texts translated, 0 missing, 0 stale" in status and "fr: 120 of 121" in status


@pytest.mark.parametrize("old, new, needle", [
    ("count their :favor: at the end", "count their Favor at the end", "without :favor:"),
    ("Favor: **{{ '%+d' % th.fewest }} VP**", "Favor: **2 VP**", "without {{ '%+d' % th.fewest }}"),
])
def test_icons_and_jinja_must_match_the_source(project, old, new, needle):
    fr = project / "cards/olympians/i18n/fr.yaml"
    text = fr.read_text(encoding="utf-8")
    source = {"count their :favor: at the end": ":favor: à la fin", "Favor: **{{ '%+d' % th.fewest }} VP**":
              "{{ '%+d' % th.fewest }} PV"}[old]
    assert text.count(source) == 1
    fr.write_text(text.replace(source, source.replace(":favor:", "Faveurs").replace(
        "{{ '%+d' % th.fewest }}", "+2")), encoding="utf-8")
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 2
    assert f"icons, placeholders and Jinja must match the en text's: this one is {needle}" in result.output
    assert "cards/olympians/i18n/fr.yaml:" in result.output


def test_german_text_that_does_not_fit_names_the_language_and_card(warm_project):
    edit(warm_project / "cards/olympians/i18n/de.yaml", "title: Herrscher des Himmels",
         "title: Herrscher des Himmels, der Wolken, der Stürme, des Donners und aller Blitze")
    result = run(warm_project, "build", "olympians", "--lang", "de", "--paper", "a4")
    assert result.exit_code == 2
    assert re.search(r"cards/olympians/i18n/de.yaml:\d+: card zeus: front \(card.svg.j2\): text does not fit",
                     result.output), result.output
    assert run(warm_project, "validate", "olympians", "--lang", "de").exit_code == 2


def test_templates_see_lang_direction_and_strings(mini):
    front = ('<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" '
             'viewBox="0 0 {{ deck.width }} {{ deck.height }}"><desc>{{ lang }} {{ direction }} '
             '{{ t("hello", name=card.name) }}</desc>{{ textbox(card.text, 6, 20, 40, 30) }}</svg>')
    root = mini("- {id: a, name: Alpha, text: Words}", front=front)
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text() + "languages: [en, ar]\n")
    (root / "cards/mini/i18n").mkdir()
    (root / "cards/mini/i18n/en.yaml").write_text('strings: {hello: "Hello {name}"}\n')
    (root / "cards/mini/i18n/ar.yaml").write_text(
        'cards: {a: {name: ألفا, text: كلمات}}\ndecks: {things: {name: أشياء}}\ngame: {title: صغيرة}\n'
        'strings: {hello: "مرحبا {name}"}\n', encoding="utf-8")
    from generator.data.i18ncheck import checked_editions
    from generator.draw.render import render_svgs

    made, problems = checked_editions(load_game(root, "mini", Session()))
    assert [p for p in problems if p.severity == "error"] == []
    assert [p.field for p in problems] == ["sources"]   # written by hand: no record of their source yet
    svgs = {ed.language: render_svgs(ed, Session()) for ed in made}
    assert "<desc>en ltr Hello Alpha</desc>" in next(iter(svgs["en"].svgs.values()))
    assert "<desc>ar rtl مرحبا ألفا</desc>" in next(iter(svgs["ar"].svgs.values()))
    (root / "cards/mini/i18n/ar.yaml").write_text('cards: {a: {name: ألفا, text: كلمات}}\ndecks: {things: {name: أشياء}}\n'
                                                 'game: {title: صغيرة}\nstrings: {}\n', encoding="utf-8")
    result = run(root, "build")
    assert result.exit_code == 2 and "cards/mini/i18n/ar.yaml:4: strings.hello: not translated" in result.output


def test_a_string_a_template_asks_for_that_is_missing_names_the_template(mini):
    front = ('<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm">'
             '{{ t("nowhere") }}</svg>')
    root = mini("- {id: a, name: Alpha, text: Words}", front=front)
    result = run(root, "build")
    assert result.exit_code == 2
    assert "templates/mini/front.svg.j2:1: card a: front: t('nowhere'): no such string in the en strings" \
        in result.output, \
        result.output


def test_bad_edition_settings_are_clear_errors(mini):
    root = mini("- {id: a, name: Alpha, text: Words}")
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text() + "language: en\nlanguages: [en, de]\n")
    result = run(root, "validate", "--no-render")
    assert result.exit_code == 2 and "keep one of them" in result.output
    game.write_text(game.read_text().replace("language: en\n", ""))
    result = run(root, "build", "mini", "--lang", "fr")
    assert result.exit_code == 2 and "mini has no edition in 'fr' (game.yaml languages: en, de)" in result.output
    result = run(root, "build", "--lang", "fr")   # every game: none has one
    assert result.exit_code == 2 and "no game has an edition in 'fr'" in result.output
    result = run(root, "build")
    assert result.exit_code == 2 and "lists 'de' among its languages, but there is no translation file" \
        in result.output
    (root / "cards/mini/i18n").mkdir()
    (root / "cards/mini/i18n/de.yaml").write_text("cards: {zz: {name: Z}}\n")
    result = run(root, "validate", "--no-render")
    assert "cards/mini/i18n/de.yaml:1: error: mini/translations: no card of the game has this id [cards: zz]" \
        in result.output


def _edit_po(path, key, text):
    po = polib.pofile(str(path))
    entry = po.find(key, by="msgctxt")
    entry.msgstr, entry.flags = text, []
    po.save(str(path))


def test_po_round_trip_changes_exactly_what_the_translator_changed(project):
    before = (project / "cards/olympians/i18n/de.yaml").read_text(encoding="utf-8")
    assert run(project, "i18n", "export", "olympians", "--lang", "de").exit_code == 0
    po = project / "output/olympians/i18n/olympians-de.po"
    assert polib.pofile(str(po)).metadata["Language"] == "de"
    assert run(project, "i18n", "import", str(po)).exit_code == 0   # as exported: the same data
    from generator.data.editions import read_translation

    game = load_game(project, "olympians", Session())
    assert read_translation(game, "de").data == read_translation(load_game(REPO, "olympians", Session()), "de").data
    _edit_po(po, "cards.zeus.text", "Der Donner antwortet, wenn er spricht.")
    assert run(project, "i18n", "import", str(po)).exit_code == 0
    tr = read_translation(load_game(project, "olympians", Session()), "de")
    assert tr.value("cards.zeus.text") == "Der Donner antwortet, wenn er spricht."
    assert tr.value("cards.hera.text") in before   # the rest as it was
    assert run(project, "validate", "olympians", "--no-render", "--strict").exit_code == 0


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_table_round_trip(project, fmt):
    assert run(project, "i18n", "export", "olympians", "--format", fmt).exit_code == 0
    path = project / f"output/olympians/i18n/olympians-translations.{fmt}"
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"))))
    else:
        from openpyxl import load_workbook
        rows = [["" if v is None else str(v) for v in r] for r in load_workbook(path).active.iter_rows(values_only=True)]
    assert rows[0] == ["game", "key", "where", *LANGS]
    row = next(r for r in rows if r[1] == "strings.victory.hero")
    assert row[3:] == ["Hero", "Held", "Héros", "英雄", "البطل"]
    row[5] = "Héroïne"   # the French cell
    edited = project / f"edited.{fmt}"
    if fmt == "csv":
        with open(edited, "w", encoding="utf-8-sig", newline="") as fh:
            csv.writer(fh).writerows(rows)
    else:
        from openpyxl import Workbook
        book = Workbook()
        for r in rows:
            book.active.append(r)
        book.save(edited)
    result = run(project, "i18n", "import", str(edited))
    assert result.exit_code == 0 and "cards/olympians/i18n/fr.yaml: 1 text imported" in result.output
    game = load_game(project, "olympians", Session())
    from generator.data.editions import read_translation

    assert read_translation(game, "fr").value("strings.victory.hero") == "Héroïne"
    assert read_translation(game, "de").data == read_translation(load_game(REPO, "olympians", Session()), "de").data


@pytest.mark.slow
def test_an_import_of_a_file_from_an_older_source_stays_stale(project):
    assert run(project, "i18n", "export", "olympians", "--lang", "ja").exit_code == 0
    po = project / "output/olympians/i18n/olympians-ja.po"
    edit(project / "cards/olympians/playing-cards.yaml", "Thunder answers when he speaks.",
         "Thunder answers whenever he speaks.")
    _edit_po(po, "cards.zeus.text", "雷は彼の声に応える。")
    assert run(project, "i18n", "import", str(po)).exit_code == 0
    tr_hash = source_hash("Thunder answers when he speaks. No card outranks the king of the mountain.")
    from generator.data.editions import read_translation

    assert read_translation(load_game(project, "olympians", Session()), "ja").sources["cards.zeus.text"] == tr_hash
    assert "ja: 120 of 121 texts translated, 0 missing, 1 stale" in run(project, "i18n", "status").output


def test_a_german_edit_rebuilds_the_german_edition_alone(tmp_path):
    assert editions_touched(REPO, "olympians", ["cards/olympians/i18n/de.yaml"]) == ("de",)
    assert editions_touched(REPO, "olympians", ["cards/olympians/rulebook.ar.md", "cards/olympians/i18n/de.yaml"]) \
        == ("de", "ar")
    assert editions_touched(REPO, "olympians", ["cards/olympians/i18n/en.yaml"]) is None   # every edition's strings
    assert editions_touched(REPO, "olympians", ["cards/olympians/playing-cards.yaml"]) is None
    assert editions_touched(REPO, "meteor", ["cards/meteor/i18n/de.yaml"]) is None


def test_exports_and_kits_are_made_per_edition(tmp_path, warm):
    warm(tmp_path)   # kits, not a drawing, are tested: faces drawn already
    result = run(REPO, "kit", "olympians", "--paper", "a4", "--lang", "de", "--lang", "ar", "--output", str(tmp_path))
    assert result.exit_code == 0, result.output
    exports = tmp_path / "olympians" / "exports"
    assert sorted(p.name for p in exports.iterdir()) == ["kit-ar", "kit-de"]
    with zipfile.ZipFile(exports / "kit-de" / "olympians-de-print-and-play.zip") as zf:
        assert sorted(zf.namelist()) == ["READ-ME.txt", "calibration-a4.pdf", "olympians-de-cut-a4.svg",
                                         "olympians-de-rulebook-a4.pdf", "olympians-de-sheets-a4.pdf"]
        readme = zf.read("READ-ME.txt").decode()
    assert readme.startswith("Olympier") and "100 %" in readme
    manifest = json.loads((exports / "kit-ar" / "manifest.json").read_text())
    assert manifest["language"] == "ar"


def test_directions():
    assert [direction_of(x) for x in ("ar", "he-IL", "fa", "az-Arab", "en", "ja", "ur", "de-AT")] == \
        ["rtl", "rtl", "rtl", "rtl", "ltr", "ltr", "rtl", "ltr"]


@pytest.mark.slow
def test_diff_and_changed_since_see_a_translation_change(mini):
    from tests.test_diff import git

    root = mini('- {id: a, name: Alpha, text: "First words."}\n- {id: b, name: Beta, text: "Other."}')
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text() + "languages: [en, de]\n")
    (root / "cards/mini/i18n").mkdir()
    german = root / "cards/mini/i18n/de.yaml"
    german.write_text("cards: {a: {name: Alpha, text: Erste Worte.}, b: {name: Beta, text: Anderes.}}\n"
                      "decks: {things: {name: Dinge}}\ngame: {title: Klein}\n")
    (root / ".gitignore").write_text("output/\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "cards")
    first = run(root, "build", "--paper", "a4")
    assert first.exit_code == 0, first.output
    edit(german, "Erste Worte.", "Neue Worte.")
    result = run(root, "diff", "HEAD")
    assert result.exit_code == 0, result.output
    assert "mini: no component changed since HEAD" in result.output
    assert "mini-de: 1 changed since HEAD: a" in result.output
    assert (root / "output/diff/mini-de/a.png").is_file()
    built = run(root, "build", "--paper", "a4", "--changed-since", "last")
    assert built.exit_code == 0 and "1 component changed since the last build: a (de)" in built.output
    assert (root / "output/mini/mini-de-changed-a4.pdf").is_file()


@pytest.mark.slow
def test_translations_from_a_pull_request_are_data(project):
    """A translation file is read like every other: inside the project, within bounds, its
    strings never code."""
    import os

    german = project / "cards/olympians/i18n/de.yaml"
    german.unlink()
    os.symlink("/etc/hostname", german)
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 2 and "cards/olympians/i18n/de.yaml" in result.output
    assert "leads outside the project" in result.output and "Traceback" not in result.output
    german.unlink()
    german.write_text("strings: {dealing: {players: '{{ lipsum() }}{0.__class__}'}}\n" * 1, encoding="utf-8")
    result = run(project, "build", "olympians", "--lang", "de", "--paper", "a4")
    assert result.exit_code == 2 and "Traceback" not in result.output
    french = project / "cards/olympians/i18n/fr.yaml"
    edit(french, "players: Joueurs", "players: \"{{ ''.__class__.__mro__ }}\"")
    result = run(project, "validate", "olympians", "--lang", "fr")
    assert result.exit_code == 2
    assert "cards/olympians/i18n/fr.yaml" in result.output and "must match the en text's" in result.output


def test_an_edition_without_its_rulebook_is_an_error(warm_project):
    (warm_project / "cards/olympians/rulebook.fr.md").unlink()
    result = run(warm_project, "build", "olympians", "--lang", "fr", "--paper", "a4")
    assert result.exit_code == 2
    assert "cards/olympians/rulebook.fr.md: not translated: the fr edition needs its own rulebook beside " \
           "rulebook.md" in result.output
    assert run(warm_project, "build", "olympians", "--lang", "de", "--paper", "a4").exit_code == 0


@pytest.mark.slow
def test_a_game_of_one_language_pnp_has_no_rulebook_words_for_still_builds(mini):
    root = mini("- {id: a, name: Alpha, text: ok}")
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text() + "language: sv\n")
    (root / "cards/mini/rulebook.md").write_text("# Regler\n\nSpela kort.\n")
    named(root / "cards" / "mini", "rulebook")
    result = run(root, "build", "--paper", "a4")
    assert result.exit_code == 0, result.output
    assert "pnp has no rulebook words in 'sv': the rulebook prints contents" in result.output
    assert "Contents" in text_of(root / "output/mini/mini-rulebook-a4.pdf")   # in English, as it always was
    (root / "cards/mini/i18n").mkdir()
    (root / "cards/mini/i18n/sv.yaml").write_text(
        'strings: {rulebook: {contents: Innehåll, rules_of_play: Spelregler, players: "{players} spelare", '
        'ages: "{ages} år", rules: "{title}: regler", size: "{w} × {h} mm", dice: "{die}", flavour: x}}\n',
        encoding="utf-8")
    result = run(root, "build", "--paper", "a4")
    assert result.exit_code == 2 and "the rulebook has no word 'flavour'" in result.output
    edit(root / "cards/mini/i18n/sv.yaml", ", flavour: x", "")
    edit(root / "cards/mini/i18n/sv.yaml", '"{players} spelare"', '"{player} spelare"')
    result = run(root, "build", "--paper", "a4")
    assert result.exit_code == 2 and "{player} is not filled in here (this word takes: {players})" in result.output
    edit(root / "cards/mini/i18n/sv.yaml", '"{player} spelare"', '"{players} spelare"')
    result = run(root, "build", "--paper", "a4")
    assert result.exit_code == 0 and "warning" not in result.output
    assert "Innehåll" in text_of(root / "output/mini/mini-rulebook-a4.pdf")


@pytest.mark.slow
@pytest.mark.usefixtures("warm_project")   # what the watch builds is tested, not the drawing: faces drawn already
def test_watching_one_edition_while_the_translations_catch_up(project):
    """A card whose English text just got an icon its translations lack: every edition's
    build refuses it, but `pnp watch --lang en` keeps showing the English one."""
    import queue
    import threading

    from generator.loop.watch import watch
    from generator.options import BuildOptions
    from generator.session import Session

    edit(project / "cards/olympians/playing-cards.yaml", "No card outranks the king of the mountain.",
         "No card outranks the king of the mountain :favor:.")
    assert run(project, "validate", "olympians", "--no-render").exit_code == 2   # 4 editions lack it
    outcomes, stop = queue.Queue(), threading.Event()
    thread = threading.Thread(target=watch, args=(project, ["olympians"], outcomes.put,
                                                  BuildOptions(papers=("a4",), languages=("en",)),
                                                  Session(remember=True), stop), daemon=True)
    thread.start()
    try:
        first = outcomes.get(timeout=120)
        assert first.ok, first.problems
        assert [r.game.language for r in first.result.editions] == ["en"]
    finally:
        stop.set()
        thread.join(20)


def test_an_edition_that_changes_what_the_rules_read_is_warned(project):
    edit(project / "cards/olympians/i18n/de.yaml", "    name: Zeus\n", "    name: Zeus\n    favor: 9\n")
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 0
    assert re.search(r"cards/olympians/i18n/de.yaml:\d+: warning: olympians/translations: favor: the de edition "
                     r"makes it 9, the cards 3: the game's rules read this field", result.output), result.output


def test_key_like_fields_are_not_translated_by_default():
    from generator.data.editions import translated_fields

    meteor = load_game(REPO, "meteor", Session())
    assert translated_fields(meteor.deck("powers")) == ("name", "text")   # not `icon: talk`


def test_a_changed_rulebook_makes_its_translations_stale(project):
    edit(project / "cards/olympians/rulebook.md", "# Strategy Tips", "# Strategy Tips and Tricks")
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 0
    for lang in ("de", "fr", "ja", "ar"):
        assert f"cards/olympians/rulebook.{lang}.md:1: warning: olympians/translations: stale: rulebook.md " \
               "changed since this was translated" in result.output
    assert "rulebook stale (incomplete)" in run(project, "i18n", "status", "olympians").output
    assert run(project, "i18n", "accept", "olympians", "--lang", "fr").exit_code == 0
    assert "olympians fr: 121 of 121 texts translated, 0 missing, 0 stale; rulebook up to date (complete)" \
        in run(project, "i18n", "status", "olympians").output
    (project / "cards/olympians/rulebook.ja.md").unlink()
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 2 and "cards/olympians/rulebook.ja.md: error: olympians/translations: not " \
                                      "translated: the ja edition needs its own rulebook" in result.output


def test_imports_read_tables_as_excel_writes_them_and_skip_what_is_gone(project):
    import os

    assert run(project, "i18n", "export", "olympians", "--format", "csv", "--lang", "fr").exit_code == 0
    rows = list(csv.reader(io.StringIO((project / "output/olympians/i18n/olympians-translations-fr.csv")
                                       .read_bytes().decode("utf-8-sig"))))
    row = next(r for r in rows if r[1] == "strings.victory.hero")
    row[4] = "Héroïne"
    rows.append(["olympians", "cards.no-such-card.name", "", "Gone", "Parti"])
    edited = project / "edited.csv"   # as French Excel saves "CSV (séparateur: point-virgule)"
    with open(edited, "w", encoding="cp1252", newline="") as fh:
        csv.writer(fh, delimiter=";").writerows(r for r in rows if all(c.encode("cp1252", "ignore").decode(
            "cp1252") == c for c in r))
    shared = project / "cards/olympians/shared-fr.yaml"   # the French file kept elsewhere and linked
    os.replace(project / "cards/olympians/i18n/fr.yaml", shared)
    os.symlink("../shared-fr.yaml", project / "cards/olympians/i18n/fr.yaml")
    result = run(project, "i18n", "import", str(edited))
    assert result.exit_code == 0, result.output
    assert "1 text" in result.output and "of the file olympians no longer has, left out: " \
                                          "cards.no-such-card.name" in result.output
    assert "read as Windows-1252" in result.output
    assert (project / "cards/olympians/i18n/fr.yaml").is_symlink() and "Héroïne" in shared.read_text(encoding="utf-8")


def test_a_title_too_long_to_print_is_refused(project):
    edit(project / "cards/olympians/i18n/de.yaml", "  title: Olympier", "  title: " + "Olympier" * 1000)
    result = run(project, "validate", "olympians", "--no-render")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "cards/olympians/i18n/de.yaml" in result.output


def test_a_row_of_cards_reads_from_the_right_in_an_arabic_rulebook(olympians_build):
    manifest = json.loads((olympians_build / "manifest.json").read_text())

    def row(name):   # the figure of the three gods: Zeus, the richest god, Hestia
        placed = next(f for f in manifest["files"] if f["path"] == name)["placements"]
        gods = [p for p in placed if p["id"] in ("zeus", "hades", "hestia")]
        page = [p for p in gods if p["page"] == gods[-1]["page"]]
        return [p["id"] for p in sorted(page, key=lambda p: p["x_mm"])]
    assert row("olympians-rulebook-a4.pdf") == ["zeus", "hades", "hestia"]
    assert row("olympians-ar-rulebook-a4.pdf") == ["hestia", "hades", "zeus"]
