"""Issue 39: hyphenation by the typographer's rules, paragraphs broken as a whole.

The printed defects (play-er, nev-er, res-ults, TRANS-FER, je-der, Ta-blette, differ-ent,
spon-sors...) read back from the run's one build of every shipped game (slow); the rules,
the total-fit breaker and a paragraph split across pages in process (fast).
"""
from __future__ import annotations

import io
import json
import re
import statistics
from pathlib import Path

import jsonschema
import pypdfium2 as pdfium
import pytest
from lineends import hyphenated
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import SimpleDocTemplate

from generator.draw.fonts import shipped
from generator.draw.hyphenate import Hyphenation, for_game, rules_for
from generator.draw.linebreak import END, Word, first_fit, total_fit
from generator.draw.textfit import TextSetter
from generator.rulebook.breaking import WholeParagraph, measure
from generator.rulebook.source import parse_blocks
from generator.rulebook.styles import styles

REPO = Path(__file__).resolve().parents[1]
# the list, as printed before: a rulebook's line, or a card's, ending in the head
IN_BOOKS = {"play-er", "nev-er", "every-one", "deal-er", "res-ults", "TRANS-FER", "de-fenders", "je-der",
            "Geg-ner", "Büch-se", "eben-so", "Ta-blette"}
ON_CARDS = {"differ-ent", "Re-source", "spon-sors"}   # text that fits a little smaller whole


def rules(lang: str, *protected: str) -> Hyphenation:
    return Hyphenation(lang, rules_for(lang), frozenset(protected))


def breaks(h: Hyphenation, word: str, sentence_start: bool = False) -> set[str]:
    return {f"{word[:p]}-{word[p:]}" for p in h.points(word, sentence_start)}


def test_the_printed_words_break_only_where_the_rules_allow():
    en, de, fr = rules("en", "Resource"), rules("de"), rules("fr", "Tablette")   # (German's is slow to read)
    assert not breaks(en, "player") and not breaks(en, "never") and not breaks(en, "player.")   # 2 letters carried
    assert not breaks(en, "non-dealer") and not breaks(en, "(non-dealer).")                    # deal-er: 2 carried
    assert breaks(en, "results") == {"re-sults"}          # TeX's (US) patterns: the dictionary says re-sults
    assert not breaks(en, "TRANSFER")                      # capitals
    assert not breaks(en, "Resource")                      # a game term
    assert not breaks(en, "Olympus")                       # a capital inside a sentence: a name
    assert breaks(en, "Different", sentence_start=True) == {"Dif-ferent", "Differ-ent"}
    assert not breaks(de, "jeder")                         # shorter than 6 letters (no dictionary read)
    assert not breaks(fr, "Tablette") and breaks(fr, "tablette") == {"ta-blette"}


def test_game_yaml_overrides_a_languages_rules():
    assert rules_for("de") == rules_for("de-AT") and rules_for("de").after == 2 and rules_for("en").after == 3
    assert rules_for("de", {"de": {"min_word": 8, "after": 3}}).__dict__ == {"min_word": 8, "before": 2, "after": 3}
    schema = json.loads((REPO / "generator/assets/schemas/game.schema.json").read_text())["properties"]["print"]
    jsonschema.validate({"hyphenation": {"de": {"min_word": 8}}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"hyphenation": {"de": {"shortest": 8}}}, schema)


def test_a_game_protects_its_card_names_terms_and_names():
    from generator.data.load import load_game
    from generator.session import Session

    game = load_game(REPO, "meteor", Session())
    found = for_game(game)
    assert {"Resource", "Retrofit"} <= found.protected
    assert not found.points("Resource") and found.rules == rules_for("en")


@pytest.mark.parametrize("game_id", ["meteor", "king-of-the-pitch"])
def test_only_words_a_break_could_fall_in_are_protected_and_every_break_is_the_same(game_id, monkeypatch):
    """A name's word too short to break, a number or one in capitals is not kept among the
    protected words (so renaming "Drake 1" to "Drake 1b" changes no face's or rulebook's key),
    and that changes no break: every word of the game's cards and rulebook breaks where it
    broke with every name's word protected."""
    from generator.data.load import load_game
    from generator.draw import hyphenate
    from generator.session import Session

    game = load_game(REPO, game_id, Session())
    kept = for_game(game)
    real = hyphenate.protected_words
    monkeypatch.setattr(hyphenate, "protected_words", lambda names, rules=None: real(names))
    every = for_game(game)
    assert kept.protected < every.protected
    assert all(hyphenate.may_break(w, kept.rules) for w in kept.protected)
    left_out = every.protected - kept.protected
    assert any(w.isdigit() for w in left_out) or any(len(w) < kept.rules.min_word for w in left_out)
    texts = [v for deck in game.decks for card in deck.cards for v in card.fields.values() if isinstance(v, str)]
    texts += [(REPO / "cards" / game_id / "rulebook.md").read_text(encoding="utf-8"), *sorted(every.protected)]
    words = {w for text in texts for w in text.split()}
    assert len(words) > 300
    for word in words:
        for start in (True, False):
            assert kept.points(word, start) == every.points(word, start), word


def paragraphs_of(path: Path, lang: str):
    st = styles(lang, rules(lang))
    return [(WholeParagraph(b.text, st["body"], hyphenation=st["body"].whole).source, st["body"].whole)
            for b in parse_blocks(path.read_text(encoding="utf-8")) if b.kind == "paragraph"]


def test_total_fit_sets_a_book_with_fewer_hyphens_and_evener_lines_than_first_fit():
    width = 170 * 72 / 25.4   # the A4 frame
    found = {}
    for whole in (False, True):
        lines = hyphens = 0
        fills: list[float] = []
        for frags, h in paragraphs_of(REPO / "cards/king-of-the-pitch/rulebook.md", "en"):
            n, k, f = measure(frags, (width, width), h, whole)
            lines, hyphens, fills = lines + n, hyphens + k, fills + f
        found[whole] = (hyphens, statistics.pstdev(fills))
    assert found[True][0] < found[False][0] and found[True][1] < found[False][1], found


def test_never_three_hyphenated_lines_in_a_row_nor_the_last_word():
    words = [Word(30.0, 3.0, ((14.0, 18.0),)) for _ in range(60)]   # every word may break, lines of 2.5 words
    for fit in (first_fit, total_fit):
        ends = fit(words, 80.0)
        assert ends[-1] == (59, END)
    cut = [k != END for _, k in total_fit(words, 80.0)]
    assert not any(cut[i] and cut[i + 1] and cut[i + 2] for i in range(len(cut) - 2))
    greedy = [k != END for _, k in first_fit(words, 80.0)]
    assert any(greedy[i] and greedy[i + 1] and greedy[i + 2] for i in range(len(greedy) - 2))   # line by line


def test_a_paragraph_split_across_pages_keeps_every_word_once():
    text = " ".join(["Each opponent then draws until every player holds seven cards, whatever happened,"] * 30)
    style = ParagraphStyle("b", fontName="Helvetica", fontSize=9.6, leading=13.4)
    buf = io.BytesIO()
    SimpleDocTemplate(buf, pagesize=(300, 160), leftMargin=10, rightMargin=10, topMargin=10, bottomMargin=10).build(
        [WholeParagraph(text, style, hyphenation=rules("en"))])
    doc = pdfium.PdfDocument(buf.getvalue())
    printed = "\n".join(page.get_textpage().get_text_range().strip() for page in doc)
    assert len(doc) > 2
    printed = re.sub(r"-\n", "", printed.replace("\ufffe", ""))   # a word hyphenated across a page's end
    assert printed.split() == text.split()


def test_card_text_keeps_terms_and_last_words_whole():
    setter = TextSetter(shipped(), {}, "fr", rules("fr", "Tablette"))
    text = "Posez la Tablette retournée devant vous"
    fitted = setter.engine.fit(setter.spec(text, w=16, size=4, lang="fr"), 30, 4)   # no room to shrink
    assert fitted.spec.hyphens                                     # it must hyphenate...
    cut = {text[:p].split()[-1] for p in fitted.spec.hyphens}
    assert "Tablette" not in " ".join(cut) and "vous" not in cut   # ...but neither the term nor the last word


# read back from the shipped games' built PDFs ----------------------------------------------
def _language(pdf: Path, game: str) -> str:
    tail = pdf.name[len(game):].split("-")
    return tail[1] if len(tail) > 3 else "en"


@pytest.fixture(scope="module")
def printed(all_builds):
    """{(game, language, "rulebook" or "sheets"): (lines, [(hyphenated word, run)])} of the A4 PDFs."""
    return {(game, _language(pdf, game), "rulebook" if "rulebook" in pdf.name else "sheets"): hyphenated(pdf)
            for game, folder in all_builds.items() for pdf in sorted(folder.glob("*-a4.pdf"))}


def test_the_printed_defects_are_gone(printed):
    """The books' words (a book pictures cards too: those of the cards' list, the cards'
    defects, are read on the sheets; total fit may break "different" in a book's text)."""
    for kind, defects in (("rulebook", IN_BOOKS), ("sheets", ON_CARDS | IN_BOOKS)):
        found = {w for (_, _, k), (_, words) in printed.items() if k == kind for w, _ in words}
        assert not found & defects, (kind, sorted(found & defects))


def test_every_edition_meets_the_targets(printed, all_builds):
    from generator.pipeline import load_editions
    from generator.session import Session

    protected = {}
    for game in all_builds:
        _, editions, _ = load_editions(REPO, game, None, Session())
        for edition in editions:
            protected[game, edition.language] = for_game(edition).protected
    for (game, lang, kind), (lines, words) in printed.items():
        r = rules_for(lang)
        for word, run in words:
            head, tail = word.split("-")
            assert len(head) >= r.before and len(tail) >= r.after and len(head + tail) >= r.min_word, (game, word)
            assert not (head + tail).isupper() and head + tail not in protected[game, lang], (game, lang, word)
            assert run <= 2, (game, lang, kind, word)
        if kind == "rulebook":
            assert len(words) * 15 <= lines, (game, lang, len(words), lines)


def test_a_watch_session_holds_one_dictionary_of_hyphenation_points_not_one_a_build():
    """Each rebuild's hyphenation knows the points the session kept: the memo's dictionary
    itself (a copy a build, each held by the caches of words its paragraphs filled, grew a
    long watch session's memory); a kept value that is not points is never used."""
    from generator.draw.hyphenate import _points_key, keep_points, remembering_points
    from generator.rendermemo import RenderMemo

    memo = RenderMemo(10)
    plain = Hyphenation("en", rules_for("en"))
    first = remembering_points(plain, memo)
    assert first.points("typesetting")
    keep_points(first, memo)
    second = remembering_points(plain, memo)
    assert second.known is first.known and "typesetting" in second.known
    memo.keep(_points_key(plain), {"typesetting": "3 6"})
    assert remembering_points(plain, memo).known == {}

