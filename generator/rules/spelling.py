"""Spelling: every word of every text of a game, per language, against Hunspell, the game's
own dictionary and its allowed words.

In: a game's `Text`s in one language (wordtexts.py), its edition (the names printed in that
language), its `Glossary`. Out: `Spelt` findings (the text, the word, Hunspell's nearest
suggestions) and, for a language without a Hunspell dictionary here (Japanese), a note
that it was not checked. The game's dictionary is made from its data: card, deck and game
names, the values of its short fields that are not text an edition translates (a suit, an
emblem), its tables' words, its icon names,
its glossary's terms and keywords; words.txt adds the rest (Olympus). A word Hunspell does
not know passes when its parts do: a hyphenated word's parts, an English possessive's
stem, a French or Italian elision's word (l'adversaire, qu'il); German compounds are
Hunspell's own (the de_DE dictionary compounds).
"""
from __future__ import annotations

import re
from typing import NamedTuple

from ..data.editions import translated_fields
from . import hunspellbridge
from .wordtexts import WORD, Text, words

ELISIONS = {"fr": ("l", "d", "j", "m", "n", "s", "t", "c", "qu", "jusqu", "lorsqu", "puisqu", "quoiqu"),
            "it": ("l", "d", "un", "all", "dell", "nell", "sull", "dall", "c", "s", "quest", "quell")}
SHORT_FIELD_WORDS = 4      # a field whose value has at most these words is a name: the game's dictionary
_ACRONYM = re.compile(r"[A-Z]{2,6}s?")


class Spelt(NamedTuple):
    text: Text
    word: str
    suggestions: tuple[str, ...]


def game_dictionary(edition, glossary, data_words=()) -> frozenset[str]:
    """The words the game itself declares, in an edition's language (see the module's docstring)."""
    found: set[str] = set()

    def add(value) -> None:
        if isinstance(value, str):
            found.update(m.group(0) for m in WORD.finditer(value))

    add(edition.title)
    for deck in edition.decks:
        add(deck.name)
        add(deck.id)
        texts = set(translated_fields(deck))   # what is checked is not what it is checked against
        for card in deck.cards:
            add(card.name)
            for name, value in card.fields.items():
                if name not in texts and isinstance(value, str) and len(value.split()) <= SHORT_FIELD_WORDS:
                    add(value)
    for value in data_words:
        add(value)
    lang = edition.language
    for term in glossary.terms:
        for value in (term.name, *term.forms, term.translations.get(lang)):
            add(value)
    for keyword in glossary.keywords.values():
        add(keyword.printed(lang)[0])
        add(keyword.name)
    return frozenset(found)


def icon_names(game) -> list[str]:
    """The names of the game's icons (templates/<game>/icons/*.svg): `:bolt:` is a word of the game."""
    folder = game.templates_dir / "icons"
    return [p.stem.replace("-", " ").replace("_", " ") for p in folder.glob("*.svg")] if folder.is_dir() else []


def misspelt(texts: list[Text], lang: str, known: frozenset[str], glossary) -> tuple[list[Spelt], str | None]:
    """Every word of `texts` that neither the dictionary, the game nor words.txt knows; or
    (nothing, a note) for a language without a dictionary.

    :raises OSError: libhunspell is not installed."""
    speller = hunspellbridge.speller(lang)
    if speller is None:
        return [], (f"{lang}: no Hunspell dictionary for this language here: its spelling is not checked "
                    "(its terms and style are)")
    lower = {w.lower() for w in known}
    found: list[Spelt] = []
    seen: set[tuple] = set()
    verdicts: dict[str, bool] = {}
    for text in texts:
        for word in words(text.text):
            token = word.text.replace("’", "'")
            if len(token) < 2 or _ACRONYM.fullmatch(token):
                continue
            ok = verdicts.get(token)
            if ok is None:
                ok = verdicts[token] = _known(token, lang, speller, known, lower, glossary)
            if ok or (text.file, text.line, token) in seen:
                continue
            seen.add((text.file, text.line, token))
            found.append(Spelt(text, word.text, speller.suggest(token)))
    return found, None


def _known(word: str, lang: str, speller, known, lower, glossary) -> bool:
    if word in known or word.lower() in lower or glossary.allows(word, lang) or speller.spell(word):
        return True
    base = lang.split("-")[0]
    if "'" in word:
        head, _, rest = word.partition("'")
        if base in ELISIONS and head.lower() in ELISIONS[base] and rest:
            return _known(rest, lang, speller, known, lower, glossary)
        if base == "en" and word.lower().endswith("'s"):
            return _known(word[:-2], lang, speller, known, lower, glossary)
    if "-" in word:
        return all(_known(part, lang, speller, known, lower, glossary) for part in word.split("-") if part)
    return False
