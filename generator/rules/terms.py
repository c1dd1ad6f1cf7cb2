"""Terms: one word for one thing, as the game's glossary declares it, in every language.

In: a game's `Text`s by language (wordtexts.py), its `Glossary` (data/glossary.py), the
names its data declares. Out: `(kind, text or None, message, found, expected)` tuples:

- `term-form`: a term written in another capitalisation than declared ("favor" for
  "Favor"), but at the start of a sentence, where a lower-case term may be capitalised; or
  a capitalised plural the glossary does not declare among the term's forms ("Temples"), in
  the language the cards are written in;
- `term-undefined`: a capitalised word inside a sentence on a card that neither the
  glossary, the game's names nor words.txt declares (languages that capitalise every noun,
  German, and scripts without case are left out);
- `term-unused`: a glossary term or keyword no text of the language the cards are written
  in uses (reported at its line in the glossary);
- `term-translation`: a card text using a term whose edition does not use the declared
  translation of it (glossary: `Favor: {de: Gunst}`);
- `keyword-unknown`: `:kw[Name]:` naming no keyword of the glossary.
"""
from __future__ import annotations

import re
from functools import lru_cache

from .wordtexts import _KEYWORD, Text, clean, words

NOUNS_CAPITALISED = ("de", "lb")     # every noun begins with a capital: capitals mark no term
CASELESS = ("ja", "zh", "ko", "ar", "he", "fa", "th", "hi")


@lru_cache(maxsize=256)
def _pattern(phrase: str) -> re.Pattern:
    return re.compile(rf"(?<![\w'’-]){re.escape(phrase)}(?![\w-])", re.I)


def declared_forms(glossary, lang: str, source: str) -> dict[str, tuple]:
    """lower-case form -> (declared spelling, term): every term's name and forms (in the
    cards' language) or translation (in an edition's), and the keywords' printed names."""
    forms: dict[str, tuple] = {}
    for term in glossary.terms:
        for form in ((term.name, *term.forms) if lang == source else (term.translations.get(lang),)):
            if form:
                forms.setdefault(form.lower(), (form, term))
    for keyword in glossary.keywords.values():
        name = keyword.name if lang == source else keyword.printed(lang)[0]
        forms.setdefault(name.lower(), (name, keyword))
    return forms


def term_findings(texts: dict[str, list[Text]], glossary, source: str, names: dict[str, frozenset]) -> list[tuple]:
    """Every term finding of the game's texts (see the module's docstring); `names`: the
    game's own words by language (spelling.game_dictionary)."""
    found: list[tuple] = []
    for lang, own in texts.items():
        forms = declared_forms(glossary, lang, source)
        found += _forms(own, forms, plurals=lang == source)   # an edition declares one form a term
        if lang.split("-")[0] not in NOUNS_CAPITALISED + CASELESS:
            found += _undefined(own, forms, names.get(lang, frozenset()), glossary, lang)
        for text in own:
            for match in _KEYWORD.finditer(text.text):
                if match.group(1) not in glossary.keywords:
                    found.append(("keyword-unknown", text, f"{text.where}: ':kw[{match.group(1)}]:' names no keyword "
                                  f"of {glossary.file}", match.group(1), sorted(glossary.keywords)))
    found += _unused(texts.get(source, []), glossary)
    for lang, own in texts.items():
        if lang != source:
            found += _translations(texts.get(source, []), own, glossary, lang)
    return found


def _forms(texts: list[Text], forms: dict[str, tuple], plurals: bool) -> list[tuple]:
    found = []
    phrases = [form for form in forms if " " in form]
    for text in texts:
        cleaned = clean(text.text)
        hits = [(w, o) for w, o in ((re.sub(r"['’]s$", "", w.text), w.opens) for w in words(text.text))
                if w.lower() in forms]
        for phrase in phrases:
            for m in _pattern(phrase).finditer(cleaned):
                before = cleaned[:m.start()].rstrip(" \t\"'“‘(«")
                hits.append((m.group(0), not before or before[-1] in ".!?:•\n"))
        for written, opens in hits:
            declared, term = forms[written.lower()]
            if written == declared or written.isupper() and len(written) > 1 or written in getattr(term, "plain", ()):
                continue
            if opens and written == declared[:1].upper() + declared[1:]:
                continue
            found.append(("term-form", text, f"{text.where}: '{written}' is the term '{declared}'", written, declared))
        for word in words(text.text) if plurals else ():   # a plural the glossary does not declare: Temples
            stem = _undeclared_plural(word.text, forms)
            if stem is not None and word.text[:1].isupper():
                found.append(("term-form", text, f"{text.where}: '{word.text}' is a form of the term '{stem}' the "
                              "glossary does not declare (forms:)", word.text, stem))
    return found


def _undeclared_plural(word: str, forms: dict[str, tuple]) -> str | None:
    lower = word.lower()
    if lower in forms:
        return None
    for ending in ("s", "es"):
        if lower.endswith(ending) and lower[:-len(ending)] in forms:
            declared, term = forms[lower[:-len(ending)]]
            return None if word in getattr(term, "plain", ()) else declared
    return None


def _undefined(texts: list[Text], forms: dict[str, tuple], names: frozenset, glossary, lang: str) -> list[tuple]:
    found = []
    words_of_terms = {part for form in forms for part in form.split()}
    allowed = glossary.allowed.get("", frozenset()) | glossary.allowed.get(lang, frozenset())
    for text in texts:
        found_words = words(_KEYWORD.sub(" ", text.text))   # a keyword, known or not, is the keywords' business
        if not text.on_card or _title_case(found_words, text.text):
            continue
        for word in found_words:
            w = re.sub(r"['’]s$", "", word.text)
            if (word.opens or not w[:1].isupper() or w.isupper() or w in names or w in allowed
                    or w.lower() in words_of_terms or _undeclared_plural(w, forms) is not None):
                continue
            found.append(("term-undefined", text, f"{text.where}: '{w}' is capitalised but the glossary does not "
                          "define it (a term? add it to the glossary; a name: to words.txt)", w, None))
    return found


def _unused(texts: list[Text], glossary) -> list[tuple]:
    used = "\n".join(clean(t.text) for t in texts)
    found = []
    for entry in (*glossary.terms, *glossary.keywords.values()):
        names = (entry.name, *getattr(entry, "forms", ()))
        if not any(_pattern(name).search(used) for name in names):
            what = "term" if hasattr(entry, "forms") else "keyword"
            found.append(("term-unused", None, f"the glossary's {what} '{entry.name}' is used on no card "
                          "and in no rule", entry.name, None, glossary.file, entry.line))
    return found


def _translations(source: list[Text], edition: list[Text], glossary, lang: str) -> list[tuple]:
    by_key = {t.key: t for t in edition if t.key != "rulebook"}
    found = []
    for text in source:
        own = by_key.get(text.key)
        if own is None or not text.on_card:
            continue
        cleaned, translated = clean(text.text), clean(own.text).lower()
        for term in glossary.terms:
            declared = term.translations.get(lang)
            if not declared or not any(_pattern(n).search(cleaned) for n in (term.name, *term.forms)):
                continue
            if declared.lower() not in translated:
                found.append(("term-translation", own, f"{own.where}: the source says '{term.name}', which "
                              f"{glossary.file} translates as '{declared}' in '{lang}': this text does not use it",
                              own.text, declared))
    return found


def _title_case(found, text: str) -> bool:
    """A name or a heading (Song & Light, Pandora's Box): every longer word capitalised, no
    sentence ended."""
    long = [w.text for w in found if len(w.text) > 3]
    return bool(long) and all(w[:1].isupper() for w in long) and not text.rstrip().endswith((".", "!", "?"))
