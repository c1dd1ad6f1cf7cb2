"""Where a word may break at a line's end, by the typographer's rules of its language.

In: a word, whether it starts a sentence, and a `Hyphenation`: the language, its rules (the
shortest word hyphenated, the fewest letters before and after the break: `DEFAULTS`, which a
game's `print: hyphenation` overrides) and the words the game protects (its card and deck
names, glossary terms and keywords, words.txt's names: `for_game`). Out:
`Hyphenation.points(word)`, the offsets the word may break at: the dictionary's own patterns
(Pyphen's, LibreOffice's hyphenation dictionaries, read lazily: pyphenbridge.py; bare `en`
reads TeX's American patterns, en_US, as TeX does), never in a word in capitals, in a
protected word, or (where nouns are not capitalised) in a capitalised word inside a
sentence: a name. An existing hyphen is a
break of its own: each part of "non-dealer" is a word. Sources of the defaults:
docs/typography.md.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

import pyphen

from .pyphenbridge import hyphenator


@dataclass(frozen=True)
class Rules:
    """The shortest word hyphenated and the fewest letters left before and carried after a break."""
    min_word: int = 6
    before: int = 2
    after: int = 2


# TeX's \lefthyphenmin / \righthyphenmin per language (plain TeX and the LibreOffice dictionaries
# say 2/3 for English, TeX Live's German patterns 2/2; French 2/3, stricter than TeX Live's 2/2),
# and 6 letters as the shortest word (docs/typography.md).
DEFAULTS = {"en": Rules(6, 2, 3), "de": Rules(6, 2, 2), "fr": Rules(6, 2, 3)}
OTHER = Rules(6, 2, 2)                      # a language without a default of its own
DICTIONARIES = {"en": "en_US"}              # the patterns TeX itself reads for English
NOUNS_CAPITALISED = frozenset({"de", "lb"})  # a capital inside a sentence is no sign of a name there
_CORE = re.compile(r"^(\W*)(.*?)(\W*)$", re.S)


@dataclass(frozen=True)
class Hyphenation:
    """A language's hyphenation as a game sets it (hashable: a text box's spec carries it)."""
    lang: str
    rules: Rules = OTHER
    protected: frozenset = frozenset()
    # the points of the words met so far (`remembering_points`: a session's memo keeps them, so a
    # rebuild reads no dictionary for words an earlier build met); not part of what it is
    known: dict | None = field(default=None, compare=False, repr=False)
    # the line ends of the rulebook's paragraphs set before and in this layout
    # (rulebook/breaking.LineEnds, which a session's memo keeps): not part of what it is either
    lines: object = field(default=None, compare=False, repr=False)

    def key(self) -> str:
        """What a rulebook's cache key takes of it: the rules and the protected words."""
        return f"{self.rules_key()[:-1]} {' '.join(sorted(self.protected))}\n"

    def rules_key(self) -> str:
        """What the faces' cache keys take of it: the rules. Of the protected words, a face's
        key takes those its text boxes look up (`looked_up`, rendermemo.py), so an edited
        card name re-renders only the faces that print one of its words."""
        r = self.rules
        return f"hyphenation {self.lang} {r.min_word} {r.before} {r.after}\n"

    def protected_among(self, words) -> tuple[str, ...]:
        """Those of `words` this hyphenation protects, in order."""
        return tuple(sorted(w for w in words if w in self.protected))

    def points(self, word: str, sentence_start: bool = False) -> tuple[int, ...]:
        """Offsets in `word` (punctuation and all) where it may break with a hyphen."""
        lead, core = _split(word)
        if not core or core in self.protected or (
                not sentence_start and core[:1].isupper() and _base(self.lang) not in NOUNS_CAPITALISED):
            return ()
        out, at = [], len(lead)
        for part in re.split(r"([-\u2010\u2011])", core):
            if part and part not in "-\u2010\u2011" and part not in self.protected:
                out += [at + p for p in self._positions(part)]
            at += len(part)
        return tuple(out)


    def _positions(self, part: str) -> tuple[int, ...]:
        if self.known is None:
            return _positions(part, self.lang, self.rules)
        found = self.known.get(part)
        if found is None:
            found = self.known[part] = _positions(part, self.lang, self.rules)
        return found


def remembering_points(hyphenation: Hyphenation, memo) -> Hyphenation:
    """`hyphenation`, knowing the points of the words the session's memo kept (`keep_points`):
    the dictionary, 0.1-0.2 s to read, is read only for a word no earlier build met. The
    points are a pure function of the word, the language, the rules and Pyphen's version
    (a one-shot build's memo key holds it: diskmemo.code_digest). The memo's own dictionary
    is used, not a copy of it (`Memo.recall_map`): a watch session holds one, however many
    builds (and the caches of words that hold a build's hyphenation) there are."""
    return replace(hyphenation, known=memo.recall_map(_points_key(hyphenation), _are_points))


def _are_points(word, points) -> bool:
    return isinstance(word, str) and isinstance(points, tuple) and all(type(i) is int for i in points)


def keep_points(hyphenation: Hyphenation, memo) -> None:
    """Keep the points `hyphenation` knows (`remembering_points`) in the session's memo."""
    if hyphenation.known is not None:
        memo.keep(_points_key(hyphenation), hyphenation.known)


def _points_key(hyphenation: Hyphenation) -> tuple:
    return ("hyphenation points", hyphenation.rules_key())


def looked_up(word: str) -> tuple[str, ...]:
    """Every word `Hyphenation.points(word)` may look up among the protected ones: the word
    without what is around it, and each part of it between hyphens."""
    core = _split(word)[1]
    if not core:
        return ()
    return (core, *(part for part in re.split(r"([-\u2010\u2011])", core) if part and part not in "-\u2010\u2011"))


def _split(word: str) -> tuple[str, str]:
    """The punctuation before a word, and the word without what is around it."""
    found = _CORE.match(word)
    return (found.group(1), found.group(2)) if found else ("", word)


def _base(lang: str) -> str:
    return lang.replace("_", "-").split("-")[0].lower()


def rules_for(lang: str, settings=None) -> Rules:
    """The rules for `lang`: its default, with what a game's `print: hyphenation` sets for it."""
    base = DEFAULTS.get(_base(lang), OTHER)
    given = (settings or {}).get(lang) or (settings or {}).get(_base(lang)) or {}
    return Rules(**{**base.__dict__, **{str(k): int(v) for k, v in given.items()}})


@lru_cache(maxsize=16)
def dictionary(lang: str, before: int, after: int):
    """Pyphen's dictionary for a language (its nearest: de-AT uses de), or None."""
    tag = lang.replace("-", "_")
    name = DICTIONARIES.get(tag) or pyphen.language_fallback(tag)
    return hyphenator(name, before, after) if name else None


@lru_cache(maxsize=16384)
def _positions(word: str, lang: str, rules: Rules) -> tuple[int, ...]:
    letters = sum(ch.isalpha() for ch in word)
    if letters < rules.min_word or letters != len(word) or word.isupper():
        return ()
    found = dictionary(lang, rules.before, rules.after)
    return tuple(int(p) for p in found.positions(word)) if found else ()   # plain ints (Pyphen gives DataInt)


def protected_words(names, rules: Rules | None = None) -> frozenset:
    """Every word of these names (card and deck names, terms), as printed; with `rules`, only
    those a break could fall in (`may_break`): protecting a word too short to break, a
    number or one in capitals changes nothing, so an edit that adds or takes away such a
    word (a card named "Drake 1" renamed "Drake 1b") changes neither the protected words nor
    the faces and rulebooks made with them."""
    words = frozenset(w for name in names for w in (_split(p)[1] for p in str(name).split()) if w)
    return words if rules is None else frozenset(w for w in words if may_break(w, rules))


def may_break(word: str, rules: Rules) -> bool:
    """Whether `Hyphenation.points` could find a break in `word` (a word's core) under `rules`:
    some part of it between hyphens is letters only, at least `min_word` of them and not all
    capitals (`_positions` gives none otherwise, protected or not)."""
    return any(part.isalpha() and len(part) >= rules.min_word and not part.isupper()
               for part in re.split(r"[-\u2010\u2011]", word))


def for_game(game) -> Hyphenation:
    """The hyphenation of a game's (or edition's) language: its rules and the words it protects."""
    from ..data.glossary import glossary_of

    lang = game.language
    glossary = glossary_of(game)
    names = [game.title, *(d.name for d in game.decks), *(c.name for d in game.decks for c in d.cards)]
    for term in glossary.terms:
        names += [term.name, *term.forms, *term.translations.values()]
    for name, keyword in glossary.keywords.items():
        names += [name, keyword.printed(lang)[0]]
    for words in glossary.allowed.values():   # words.txt: the names the spelling check is told of
        names += [w for w in words if w[:1].isupper()]
    rules = rules_for(lang, (game.meta.get("print") or {}).get("hyphenation"))
    return Hyphenation(lang, rules, protected_words(names, rules))
