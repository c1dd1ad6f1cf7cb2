"""The word checks of a game, as an editor reads it: spelling, terms, keywords and style.

In: a loaded `Game` (the cards as written), the editions to check (`Game`s, one a
language: data/i18ncheck.checked_editions) and the game's rules file, whose `words:`
mapping may set a kind's severity (`error`, `warning`, the default, or `off`):

    words: {spelling: error, number-style: off}

Out: `Finding`s of the kinds in `KINDS` (each naming file, line, card, field and word; a
spelling finding Hunspell's nearest words as `expected`) and notes (a language that could
not be spelt). `pnp validate` reports them beside the rules; `pnp lint` alone, and with
`--fix` writes the mechanical ones back (wordfix.py).
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from ..data.editions import languages_of
from ..data.glossary import glossary_of
from ..data.schema import bundled, check
from ..data.yamlsrc import read_yaml
from ..errors import InputError, Problem, collect
from ..guard import read_text_inside
from .engine import Finding, rules_path
from .spelling import game_dictionary, icon_names, misspelt
from .style import style_findings
from .terms import term_findings
from .wordtexts import line_of_word, texts_of

# kind: what it finds (the reference's table is made from it)
KINDS = {
    "spelling": "a word neither Hunspell, the game's data nor words.txt knows",
    "term-form": "a glossary term written in another capitalisation or form than declared",
    "term-undefined": "a capitalised word on a card that the glossary does not define",
    "term-unused": "a glossary term or keyword that no card or rule uses",
    "term-translation": "a translated card text not using the edition's declared translation of a term",
    "keyword-unknown": ":kw[Name]: naming no keyword of the glossary",
    "near-duplicate": "two cards whose texts differ by a word or two",
    "number-style": "numbers written in words on some cards and in digits on others",
    "quotes": "straight and curly quotes mixed (fixed by pnp lint --fix)",
    "double-space": "two spaces between words (fixed by pnp lint --fix)",
}
FIXABLE = ("quotes", "double-space")


def severities(game) -> dict[str, str]:
    """Each kind's severity: the rules file's `words:`, else warning.

    :raises InputError: the rules file breaks its schema (a kind or severity it does not
        know among them), with the lines."""
    chosen = dict.fromkeys(KINDS, "warning")
    path = rules_path(game)
    if path is None:
        return chosen
    shown = str(path.relative_to(game.root))
    if not re.search(r"^words\s*:", read_text_inside(game.root, path, shown), re.M):
        return chosen   # (the rules stage reads the file; reading it again for nothing costs 10 ms a game)
    raw = read_yaml(path, shown)
    collect(f"in {shown}", check(raw, bundled("rules"), shown))   # words: its kinds and severities, with lines
    own = raw.get("words") or {}
    chosen.update({str(k): "off" if v is False else str(v) for k, v in own.items()})   # YAML's bare off is false
    return chosen


def word_findings(game, editions) -> tuple[list[Finding], list[str]]:
    """Every word finding of `game` in the languages of `editions`, and the notes.

    :raises InputError: the glossary, words.txt or the rules file's `words:` cannot be read."""
    glossary = glossary_of(game)
    chosen = severities(game)
    stray = [kind for kind in glossary.excused if kind not in KINDS]
    if stray:
        raise InputError(f"in {glossary.file}", [Problem(glossary.file, f"allow: '{kind}' is not a kind of word "
                                                         f"check ({', '.join(KINDS)})", field="allow")
                                                 for kind in stray])
    source = languages_of(game.meta)[0]
    langs = tuple(e.language for e in editions) or (source,)
    if source not in langs:
        langs = (source, *langs)   # terms are declared, and used, in the cards' own language
    texts = texts_of(game, langs)
    data_words = [*_strings_in(game.data), *icon_names(game)]
    names = {e.language: game_dictionary(e, glossary, data_words) for e in editions}
    names.setdefault(source, game_dictionary(game, glossary, data_words))
    raw: list[tuple] = []
    notes: list[str] = []
    asked = {e.language for e in editions} or {source}
    for lang in langs:
        if lang not in asked:
            continue
        try:
            spelt, note = misspelt(texts[lang], lang, names[lang], glossary)
        except OSError as exc:
            spelt, note = [], f"{lang}: spelling not checked: libhunspell cannot be loaded ({exc})"
        if note:
            notes.append(f"{game.id}: {note}")
        raw += [("spelling", s.text, f"{s.text.where}: '{s.word}' is not a word the dictionary ({lang}), the game "
                 f"or {glossary.allow_file} knows" + (f" (nearest: {', '.join(s.suggestions)})" if s.suggestions
                                                       else ""), s.word, s.suggestions) for s in spelt]
    raw += term_findings(texts, glossary, source, names)
    raw += style_findings(texts, glossary, source)
    findings = []
    for kind, text, message, found, expected, *where in raw:
        if chosen[kind] == "off" or text is not None and (text.lang not in asked
                                                          or text.card in glossary.excused.get(kind, ())):
            continue
        file, line = (text.file, text.line) if text is not None else where
        if text is not None and kind in ("spelling", "term-form", "term-undefined"):
            line = line_of_word(game.root, text, found)
        cards = (text.card,) if text is not None and text.card else ()
        expected = tuple(expected) if isinstance(expected, list) else expected
        findings.append(Finding(kind, game.id, chosen[kind], message, file, line, cards, found, expected))
    return _ordered(findings), notes


def _strings_in(value) -> list[str]:
    """The short texts of the game's data tables (names the rules and templates use)."""
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and len(item.split()) <= 4:
            out.append(item)
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return out


def _ordered(findings: list[Finding]) -> list[Finding]:
    return sorted(dict.fromkeys(findings), key=lambda f: (f.file, f.line or 0, f.rule, f.message))
