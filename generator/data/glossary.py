"""A game's glossary, keywords and allowed words: the words its cards use for its things.

In: `cards/<game>/glossary.yaml` (none: an empty glossary) and `cards/<game>/words.txt`:

    terms:                    # each term as it is printed: its capitalisation is the declared one
      Favor: {forms: [Favors], de: Gunst, fr: Faveur}      # forms: its other forms; <lang>: its translation
      Hero: {fr: Héros, plain: [héros]}    # plain: words spelled like a term that are not it (in any language)
    keywords:                 # printed by :kw[Overkill]: in card text, with its reminder on first use
      Overkill: {reminder: "excess damage goes on", de: {name: Overkill, reminder: "..."}}
    quotes: curly             # (optional) the game's quotes: curly or straight (else: what most texts use)
    similar: [[ares, athena]] # (optional) card pairs whose texts may differ by a word or two
    formulaic: [combo]        # (optional) card fields written to a pattern: never near-duplicates
    allow: {number-style: [zeus]}   # (optional) a kind of finding not reported on these cards

    # words.txt: words the spelling check accepts, one a line; `[de]` starts a language's own
    Olympus
    [de]
    Stichkarte

Out: a `Glossary` (terms, keywords, allowed words by language, with the lines they are
written on); draw/markup.expand_keywords prints a keyword with its reminder.
`InputError` names the file and line of a glossary that cannot be read.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import InputError, Problem
from ..guard import OutsideProject, read_text_inside
from .yamlsrc import line_of, parse_yaml

GLOSSARY = "glossary.yaml"
KEYS = ("terms", "keywords", "quotes", "similar", "formulaic", "allow")
ALLOW = "words.txt"


@dataclass(frozen=True)
class Term:
    name: str                                   # as declared
    forms: tuple[str, ...] = ()                 # its other forms (plural...), as declared
    plain: tuple[str, ...] = ()                 # words spelled like it that are not the term (héros: heroes)
    translations: Mapping[str, str] = field(default_factory=dict)
    line: int | None = None


@dataclass(frozen=True)
class Keyword:
    name: str
    reminder: str
    translations: Mapping[str, tuple[str, str]] = field(default_factory=dict)   # lang -> (name, reminder)
    line: int | None = None

    def printed(self, lang: str | None) -> tuple[str, str]:
        """(name, reminder) in a language (the declared ones where it has no translation)."""
        return self.translations.get(lang or "", (self.name, self.reminder))


@dataclass(frozen=True)
class Glossary:
    file: str                                   # as shown (relative to the project)
    terms: tuple[Term, ...] = ()
    keywords: Mapping[str, Keyword] = field(default_factory=dict)
    allowed: Mapping[str, frozenset] = field(default_factory=dict)   # "" (every language) or lang -> words
    allow_file: str = ""
    quotes: str | None = None
    similar: frozenset = frozenset()            # frozensets of two card ids
    formulaic: frozenset = frozenset()          # card fields written to a pattern (no near-duplicates)
    excused: Mapping[str, frozenset] = field(default_factory=dict)   # kind -> card ids it does not report

    def allows(self, word: str, lang: str) -> bool:
        for words in (self.allowed.get(""), self.allowed.get(lang), self.allowed.get(lang.split("-")[0])):
            if words and (word in words or word.lower() in words):
                return True
        return False


def glossary_of(game) -> Glossary:
    """The game's glossary and allowed words (empty when it has neither file).

    :raises InputError: naming file and line of what cannot be read."""
    path = game.cards_dir / GLOSSARY
    shown = str(path.relative_to(game.root))
    allow_path = game.cards_dir / ALLOW
    allow_shown = str(allow_path.relative_to(game.root))
    allowed = _allowed(game.root, allow_path, allow_shown) if allow_path.exists() else {}
    if not path.exists():
        return Glossary(shown, allowed=allowed, allow_file=allow_shown)
    try:
        raw = parse_yaml(read_text_inside(game.root, path, shown), shown) or {}
    except OutsideProject as exc:
        raise InputError("cannot read the glossary", [Problem(shown, str(exc))]) from None
    problems: list[Problem] = []
    if not isinstance(raw, Mapping):
        raise InputError("bad glossary", [Problem(shown, "the glossary is a mapping: terms:, keywords:")])
    for key in raw:
        if key not in KEYS:
            problems.append(Problem(shown, f"unknown key '{key}' ({', '.join(KEYS)})",
                                    line=line_of(raw, (key,)), field=str(key)))
    terms = tuple(_term(raw, str(name), spec, shown, problems) for name, spec in (raw.get("terms") or {}).items())
    keywords = {str(name): _keyword(raw, str(name), spec, shown, problems)
                for name, spec in (raw.get("keywords") or {}).items()}
    quotes = raw.get("quotes")
    if quotes not in (None, "curly", "straight"):
        problems.append(Problem(shown, "quotes: is curly or straight", line=line_of(raw, ("quotes",)), field="quotes"))
    similar = raw.get("similar") or []
    if not isinstance(similar, list) or not all(isinstance(p, list) and len(p) == 2 for p in similar):
        problems.append(Problem(shown, "similar: is a list of card id pairs", line=line_of(raw, ("similar",)),
                                field="similar"))
        similar = []
    formulaic = raw.get("formulaic") or []
    if not isinstance(formulaic, list):
        problems.append(Problem(shown, "formulaic: is a list of card fields", line=line_of(raw, ("formulaic",)),
                                field="formulaic"))
        formulaic = []
    excused = raw.get("allow") or {}
    if not isinstance(excused, Mapping) or not all(isinstance(v, list) for v in excused.values()):
        problems.append(Problem(shown, "allow: maps a kind of finding to the card ids it does not report",
                                line=line_of(raw, ("allow",)), field="allow"))
        excused = {}
    if problems:
        raise InputError(f"{len(problems)} problems in {shown}", problems)
    return Glossary(shown, terms, keywords, allowed, allow_shown, quotes,
                    frozenset(frozenset(map(str, pair)) for pair in similar), frozenset(map(str, formulaic)),
                    {str(k): frozenset(map(str, v)) for k, v in excused.items()})


def _term(raw, name: str, spec, shown: str, problems: list[Problem]) -> Term:
    line = line_of(raw, ("terms", name))
    spec = spec or {}
    if not isinstance(spec, Mapping):
        problems.append(Problem(shown, f"term '{name}': a mapping (forms:, <lang>: translation)", line=line))
        return Term(name, line=line)
    forms, plain = spec.get("forms") or [], spec.get("plain") or []
    translations = {str(k): str(v) for k, v in spec.items() if k not in ("forms", "plain", "means")}
    return Term(name, tuple(str(f) for f in forms), tuple(str(p) for p in plain), translations, line)


def _keyword(raw, name: str, spec, shown: str, problems: list[Problem]) -> Keyword:
    line = line_of(raw, ("keywords", name))
    if not isinstance(spec, Mapping) or not isinstance(spec.get("reminder"), str):
        problems.append(Problem(shown, f"keyword '{name}': a mapping with its reminder: text", line=line))
        return Keyword(name, "", line=line)
    translations = {}
    for lang, own in spec.items():
        if lang == "reminder":
            continue
        if not isinstance(own, Mapping) or not isinstance(own.get("reminder"), str):
            problems.append(Problem(shown, f"keyword '{name}' in '{lang}': a mapping with name: and reminder:",
                                    line=line_of(raw, ("keywords", name, lang))))
            continue
        translations[str(lang)] = (str(own.get("name") or name), own["reminder"])
    return Keyword(name, spec["reminder"], translations, line)


def _allowed(root, path, shown: str) -> dict[str, frozenset]:
    try:
        text = read_text_inside(root, path, shown)
    except OutsideProject as exc:
        raise InputError("cannot read the allowed words", [Problem(shown, str(exc))]) from None
    found: dict[str, set] = {"": set()}
    lang = ""
    for line in text.splitlines():
        word = line.split("#", 1)[0].strip()
        if word.startswith("[") and word.endswith("]"):
            lang = word[1:-1].strip()
            found.setdefault(lang, set())
        elif word:
            found[lang].add(word)
    return {k: frozenset(v) for k, v in found.items()}
