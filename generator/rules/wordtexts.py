"""Every text of a game as an editor reads it, per language, and the words in it.

In: a loaded `Game` (the cards as written) and the languages asked. Out: `Text`s — each
card field, deck name, game word and template string an edition prints (from the cards,
or from `i18n/<lang>.yaml` for a translated edition) and each line of the language's
rulebook, with the file, line, card and field it is written at — and `words`, the words
of a text with markup, icons, Jinja and Markdown taken out, each marked when it begins a
sentence. The checks are spelling.py's, terms.py's and style.py's.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from ..data.editions import catalogue, languages_of, read_translation, rulebook_paths
from ..guard import MAX_MARKDOWN, OutsideProject, read_text_inside


@dataclass(frozen=True)
class Text:
    lang: str
    key: str                 # the catalogue's key (cards.zeus.text), or "rulebook"
    text: str
    file: str
    line: int | None
    card: str | None = None
    field: str | None = None
    on_card: bool = False    # a card's field (not a deck name, game word, string or the rulebook)

    @property
    def where(self) -> str:
        """How a message names it: `card zeus, text`, `rulebook`, `decks.reference.name`."""
        return f"card {self.card}, {self.field}" if self.card else self.key


class Word(NamedTuple):
    text: str
    start: int               # offset in the cleaned text
    opens: bool              # begins a sentence (or a heading, a list item, a text)


# Every pattern runs in time linear in the text (a stranger's card or rulebook may be a
# megabyte of "[[[[" or "{%{%"): what may repeat inside a pair of brackets never crosses the
# next opening one, so no match is tried from one opening to the end of the text again.
_JINJA = re.compile(r"\{%(?:(?!\{%|%\}).)*%\}|\{#(?:(?!\{#|#\}).)*#\}", re.S)
# printed: a number, a name
_VALUE = re.compile(r"\{\{(?:(?!\{\{|\}\}).)*\}\}|(?<!\{)\{[A-Za-z_][A-Za-z0-9_]*\}(?!\})", re.S)
_KEYWORD = re.compile(r":kw\[([^\]\[\n:]+)\]:")
_ICON = re.compile(r":[a-z][a-z0-9_-]*:")
_LINK = re.compile(r"!?\[([^\]\[\n]*)\]\([^()\n]*\)")
_URL = re.compile(r"\b(?:https?://|www\.)\S+")
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_MARKS = re.compile(r"\\([*:\\])|[*_`|#>~]")
_MARK = "\u0300-\u036f\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u200c\u200d\u0640"   # combining marks, tatweel
_LETTER = rf"(?:[^\W\d_]|[{_MARK}])"
WORD = re.compile(rf"[^\W\d_]{_LETTER}*(?:['’\-][^\W\d_]{_LETTER}*)*")
_OPENERS = set(".!?:•\n")
_OPENING = set("\"'“‘„«([¿¡ \t—–-")


@lru_cache(maxsize=8192)
@lru_cache(maxsize=8192)
def clean(text: str) -> str:
    """The words of a text as printed: Jinja, icons and Markdown out (each by a space),
    a keyword's markup by its name."""
    text = _VALUE.sub("0", _JINJA.sub(" ", text))
    text = _KEYWORD.sub(lambda m: m.group(1), text)
    text = _ICON.sub(" ", text)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _URL.sub(" ", text)
    text = _TAG.sub(" ", text)
    return _MARKS.sub(lambda m: m.group(1) or " ", text)


@lru_cache(maxsize=8192)
def words(text: str) -> tuple[Word, ...]:
    """The words of a text (cleaned), each marked when it opens a sentence (remembered: every
    check reads the same texts)."""
    cleaned = clean(text)
    found = []
    for match in WORD.finditer(cleaned):
        if match.start() and cleaned[match.start() - 1].isdigit():
            continue   # an ordinal's or a unit's letters (4th, 10mm)
        i = match.start() - 1
        while i >= 0 and cleaned[i] in _OPENING:
            i -= 1
        found.append(Word(match.group(0), match.start(), i < 0 or cleaned[i] in _OPENERS))
    return tuple(found)


def texts_of(game, langs: tuple[str, ...]) -> dict[str, list[Text]]:
    """Every text each language prints (the language the cards are written in first)."""
    source = languages_of(game.meta)[0]
    entries = catalogue(game)
    out: dict[str, list[Text]] = {}
    for lang in langs:
        texts: list[Text] = []
        translation = None if lang == source else read_translation(game, lang)
        for key, entry in entries.items():
            if translation is None:
                text, file, line = entry.text, entry.file, _field_line(game, entry)
            else:
                value = translation.value(key)
                if not isinstance(value, str) or not value.strip():
                    continue
                text, file, line = value, translation.file, translation.line(key)
            texts.append(Text(lang, key, text, file, line, entry.card, entry.field,
                              entry.card is not None and key.startswith("cards.")))
        texts.extend(_rulebook(game, lang, source))
        out[lang] = texts
    return out


def line_of_word(root, text: Text, word: str) -> int | None:
    """The line a word of a text is on: the text's own, or in a block scalar (`text: |-`)
    the line of the block it is written on."""
    if text.line is None or "\n" not in text.text or text.key == "rulebook":
        return text.line
    path = Path(root) / text.file
    try:
        stat = path.stat()
    except OSError:
        return text.line
    lines = _lines(str(root), text.file, (stat.st_mtime_ns, stat.st_size))
    if not 0 < text.line <= len(lines) or not re.search(r"[|>][-+]?\s*(#.*)?$", lines[text.line - 1]):
        return text.line
    pattern = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)")
    for n, line in enumerate(text.text.split("\n")):
        if pattern.search(line):
            return text.line + 1 + n
    return text.line


def _field_line(game, entry) -> int | None:
    """The line a card's field is written on (the card's, where the field is not found after it)."""
    if entry.card is None or entry.line is None:
        return entry.line
    path = game.root / entry.file
    try:
        stat = path.stat()
    except OSError:
        return entry.line
    lines = _lines(str(game.root), entry.file, (stat.st_mtime_ns, stat.st_size))
    pattern = _key_pattern(str(entry.field))
    for n in range(entry.line - 1, min(len(lines), entry.line + 200)):
        if n > entry.line - 1 and lines[n].lstrip().startswith("- "):
            break
        if pattern.search(lines[n]):
            return n + 1
    return entry.line


@lru_cache(maxsize=256)
def _key_pattern(field: str) -> re.Pattern:
    return re.compile(rf"(?:^|[\s{{,]){re.escape(field)}\s*:")


@lru_cache(maxsize=64)
def _lines(root: str, shown: str, stamp: tuple) -> tuple[str, ...]:
    """A file's lines, as it is now (`stamp`: its mtime and size)."""
    try:
        return tuple(read_text_inside(root, f"{root}/{shown}", shown).splitlines())
    except OutsideProject:
        return ()


def _rulebook(game, lang: str, source: str) -> list[Text]:
    paths = rulebook_paths(game, lang)
    if paths is None:
        return []
    own, translated = paths
    path = own if lang == source else translated
    if not path.is_file():
        return []
    shown = str(path.relative_to(game.root))
    try:
        text = read_text_inside(game.root, path, shown)
    except OutsideProject:
        return []     # preflight names a rulebook that cannot be read
    if len(text) > MAX_MARKDOWN:
        return []     # the rulebook stage refuses it, naming the bound
    # Jinja out first (a comment or a block may run over several lines), keeping the lines
    text = _JINJA.sub(lambda m: " " * (0 if "\n" in m.group(0) else 1) + "\n" * m.group(0).count("\n"), text)
    text = _VALUE.sub(lambda m: "0" + "\n" * m.group(0).count("\n"), text)
    found, fenced = [], False
    for n, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or not line.strip():
            continue
        found.append(Text(lang, "rulebook", line, shown, n, field="rulebook"))
    return found
