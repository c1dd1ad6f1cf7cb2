"""Editions: one game printed in several languages, its translations kept as data.

In: a loaded `Game` whose game.yaml lists `languages: [en, de, ...]` (the first is the
language its cards are written in; `language:` alone makes a game of one language) and,
for each other language, `cards/<game>/i18n/<lang>.yaml`:

    game:    {title: Olympier, players: "2-6 (am besten 3-5)"}   # game.yaml's words
    decks:   {playing-cards: {name: Spielkarten}}
    cards:   {zeus: {name: Zeus, text: "..."}}     # any card field, by card id
    strings: {dealing: {players: Spieler}}         # what templates print through t()
    sources: {cards.zeus.text: 1a2b3c4d}           # written by pnp: the source each was made from

The language the cards are written in may have an `i18n/<lang>.yaml` of its own: its
`strings:` are the source of every edition's. Out: the `catalogue` of every text an
edition translates (key, source text, where it is written), a language's `Translation`
as read and checked against its schema, each edition as a `Game` (its words translated,
`t()`'s strings, `language` in its meta, the source's names kept for the sheets' slug
line), and `translator`, the `t()` of templates and rulebooks. What a translation gets
wrong is found by i18ncheck.py; translators' files are i18nfiles.py's.
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import InputError, Problem
from ..guard import OutsideProject, read_text_inside, shorten
from .model import Deck, Game, Source
from .schema import bundled, check
from .yamlsrc import LineDict, line_of, parse_yaml

GAME_WORDS = ("title", "subtitle", "players", "playing_time", "ages", "description")
RTL_LANGUAGES = {"ar", "arc", "ckb", "dv", "fa", "he", "iw", "ks", "ps", "sd", "syr", "ug", "ur", "yi"}
RTL_SCRIPTS = {"adlm", "arab", "hebr", "nkoo", "rohg", "syrc", "thaa"}
_ICON = re.compile(r":([A-Za-z0-9_-]+):")
PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")
_JINJA = re.compile(r"\{\{(.*?)\}\}", re.S)
_KEY_LIKE = re.compile(r"[a-z0-9][a-z0-9_-]*")


def languages_of(meta: Mapping) -> tuple[str, ...]:
    """The game's languages, the one its cards are written in first."""
    listed = meta.get("languages")
    if listed:
        return tuple(str(lang) for lang in listed)
    return (str(meta.get("language") or "en"),)


def language_entry(game: Game) -> dict:
    """The `language` a manifest names a file of a game of several languages by; a game of
    one language's files go without, as they always have."""
    return {"language": game.language} if len(languages_of(game.meta)) > 1 else {}


def direction_of(lang: str) -> str:
    """`rtl` for a language written right to left (Arabic, Hebrew, Persian, Urdu... or a
    tag naming such a script, e.g. az-Arab), else `ltr`."""
    parts = str(lang).replace("_", "-").lower().split("-")
    if any(p in RTL_SCRIPTS for p in parts[1:]):
        return "rtl"
    return "rtl" if parts[0] in RTL_LANGUAGES else "ltr"


def markers(text: str) -> Counter:
    """What a translation must keep of its source: icons, placeholders, Jinja expressions."""
    found: Counter = Counter()
    found.update(f":{m}:" for m in _ICON.findall(text))
    found.update(f"{{{m}}}" for m in PLACEHOLDER.findall(text))
    found.update("{{ " + " ".join(m.split()) + " }}" for m in _JINJA.findall(text))
    return found


def source_hash(text: str) -> str:
    """The short hash of a source text that a translation records (`sources:`)."""
    return hashlib.sha256(str(text).encode("utf-8")).hexdigest()[:8]


class Entry(NamedTuple):
    """One text an edition translates."""

    key: str                 # game.title, decks.<deck>.name, cards.<card>.<field>, strings.<a>.<b>
    text: str                # the source text
    file: str                # where the source is written
    line: int | None
    card: str | None = None
    field: str | None = None


@dataclass(frozen=True)
class Translation:
    """One language's file as read (`found` False: there is none)."""

    lang: str
    file: str                                   # as shown, relative to the project
    data: Mapping[str, Any] = field(default_factory=dict)
    found: bool = False

    def value(self, key: str) -> Any:
        """The translation of a catalogue key, or None."""
        section, _, rest = key.partition(".")
        if section == "game":
            return (self.data.get("game") or {}).get(rest)
        if section == "decks":
            deck, _, name = rest.rpartition(".")
            return ((self.data.get("decks") or {}).get(deck) or {}).get(name)
        if section == "cards":
            card, _, name = rest.rpartition(".")
            return ((self.data.get("cards") or {}).get(card) or {}).get(name)
        return lookup(self.data.get("strings") or {}, rest)

    def line(self, key: str) -> int | None:
        """The line of a key's translation, or of the nearest mapping it would be written in
        (None when the file has not even its section)."""
        section, _, rest = key.partition(".")
        if section not in self.data:
            return None
        if section in ("decks", "cards"):
            owner, _, name = rest.rpartition(".")
            path: tuple = (section, owner, name)
        else:
            path = (section, *rest.split("."))
        return line_of(self.data, path)

    @property
    def sources(self) -> Mapping[str, str]:
        return self.data.get("sources") or {}


def lookup(strings: Mapping, key: str) -> Any:
    """strings["a"]["b"] for key "a.b"; None when a step is missing."""
    node: Any = strings
    for step in str(key).split("."):
        if not isinstance(node, Mapping) or step not in node:
            return None
        node = node[step]
    return node


def flatten(strings: Mapping, prefix: str = "") -> dict[str, str]:
    """Every string of a nested mapping by its dotted key."""
    out: dict[str, str] = {}
    for k, v in strings.items():
        if isinstance(v, Mapping):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def i18n_file(game: Game, lang: str) -> Path:
    return game.cards_dir / "i18n" / f"{lang}.yaml"


def read_translation(game: Game, lang: str) -> Translation:
    """A language's file, checked against its schema (`found` False when there is none).

    :raises InputError: it cannot be read, or breaks the schema."""
    path = i18n_file(game, lang)
    shown = str(path.relative_to(game.root))
    if not path.exists() and not path.is_symlink():
        return Translation(lang, shown)
    try:
        text = read_text_inside(game.root, path, shown)
    except OutsideProject as exc:
        raise InputError(f"1 problem in {shown}", [Problem(shown, str(exc))]) from None
    return Translation(lang, shown, _checked(text, shown), True)


@lru_cache(maxsize=16)
def _checked(text: str, shown: str) -> Mapping:
    """A translation file's data, checked against its schema (remembered by its text: `pnp
    watch` and a run of validations read the same files again and again).

    :raises InputError: the YAML or the schema's problems."""
    data = parse_yaml(text, shown) or {}
    problems = check(data, bundled("translation"), shown)
    if problems:
        raise InputError(f"{len(problems)} problem{'s' if len(problems) > 1 else ''} in {shown}", problems)
    return data


RULEBOOK_SOURCE = re.compile(r"\{#-?\s*pnp-source:\s*([0-9a-f]{8})\s*-?#\}")


def rulebook_paths(game: Game, lang: str) -> tuple[Path, Path] | None:
    """(the rulebook the cards' language has, an edition's own beside it): game.yaml's
    `rulebook:` (rulebook.md) and the same with the language before its suffix
    (rulebook.de.md); None when game.yaml names no rulebook (a rulebook.md is then not read)."""
    name = game.meta.get("rulebook")
    if not name:
        return None
    path = game.cards_dir / str(name)
    return path, path.with_name(f"{path.stem}.{lang}{path.suffix}")


def recorded_rulebook_source(text: str) -> str | None:
    """The hash of the rulebook an edition's rulebook was translated from, as its first line
    records it ({#- pnp-source: 1a2b3c4d -#}, written by pnp i18n accept), or None."""
    found = RULEBOOK_SOURCE.search(text[:300])
    return found.group(1) if found else None


def read_source_strings(root: Path, cards_dir: Path, meta: Mapping, problems: list[Problem]) -> Mapping:
    """The `strings:` of the language the cards are written in (i18n/<lang>.yaml; {} when
    there is none); its problems go to `problems`."""
    lang = languages_of(meta)[0]
    path = cards_dir / "i18n" / f"{lang}.yaml"
    if not path.exists():
        return {}
    shown = str(path.relative_to(root))
    try:
        data = _checked(read_text_inside(root, path, shown), shown)
    except OutsideProject as exc:
        problems.append(Problem(shown, str(exc)))
        return {}
    except InputError as exc:
        problems.extend(exc.problems)
        return {}
    found = []
    for key in ("game", "decks", "cards", "sources"):
        if key in data:
            found.append(Problem(shown, f"the cards are written in '{lang}': this file holds the strings templates "
                                        f"print (strings:), and nothing to translate ({key}: belongs in another "
                                        "language's file)", line=line_of(data, (key,)), field=key))
    problems.extend(found)
    return {} if found else data.get("strings") or {}


def translated_fields(deck: Deck) -> tuple[str, ...]:
    """The card fields an edition translates: the deck's `translate:`, else name and every
    field of type string without enum, const or pattern, but for a field every card gives a
    key-like word (lowercase, no space: an icon's name, an id)."""
    listed = deck.raw.get("translate")
    if listed is not None:
        return tuple(str(f) for f in listed)
    fields = deck.raw.get("fields") or {}

    def words(name: str) -> bool:
        values = [str(c.fields[name]) for c in deck.cards if isinstance(c.fields.get(name), str)]
        return not values or not all(_KEY_LIKE.fullmatch(v) for v in values)
    return ("name", *(name for name, schema in fields.items()
                      if isinstance(schema, Mapping) and schema.get("type") == "string"
                      and not {"enum", "const", "pattern"} & set(schema) and words(name)))


def catalogue(game: Game) -> dict[str, Entry]:
    """Every text an edition of `game` translates, by key, in the order a translator reads them."""
    entries: dict[str, Entry] = {}
    for word in GAME_WORDS:
        value = game.meta.get(word)
        if isinstance(value, str) and value.strip():
            entries[f"game.{word}"] = Entry(f"game.{word}", value, game.source.file, line_of(game.meta, (word,)),
                                            field=word)
    for deck in game.decks:
        entries[f"decks.{deck.id}.name"] = Entry(f"decks.{deck.id}.name", deck.name, deck.source.file,
                                                 line_of(deck.raw, ("name",)), field="name")
    for deck in game.decks:
        names = translated_fields(deck)
        for card in deck.cards:
            for name in names:
                value = card.name if name == "name" else card.fields.get(name)
                if isinstance(value, str) and value.strip():
                    key = f"cards.{card.id}.{name}"
                    entries[key] = Entry(key, value, card.source.file, card.source.line, card.id, name)
    strings_file = str(i18n_file(game, languages_of(game.meta)[0]).relative_to(game.root))
    for key, value in flatten(game.strings).items():
        if key.startswith("rulebook."):   # the rulebook's own words: each language's are its own (pnp has them)
            continue
        entries[f"strings.{key}"] = Entry(f"strings.{key}", str(value), strings_file,
                                          line_of(game.strings, tuple(key.split("."))), field=key)
    return entries


def source_edition(game: Game) -> Game:
    """The game in the language its cards are written in, as a build makes it (`language`
    in its meta: the faces of a build and of the colour check share their memo keys)."""
    return edition(game, languages_of(game.meta)[0])


def edition(game: Game, lang: str, translation: Translation | None = None) -> Game:
    """The game in `lang`: its words translated (the language the cards are written in
    gives the game as it is), `strings` for t(), `language` in its meta. Checked translations
    only (`check_translation`): a text without one keeps its source."""
    langs = languages_of(game.meta)
    meta = _with(game.meta, language=lang)
    if lang == langs[0] or translation is None:
        return dataclasses.replace(game, meta=meta, edition="" if lang == langs[0] else lang)
    data = translation.data
    meta = _with(meta, **{k: v for k, v in (data.get("game") or {}).items() if isinstance(v, str)})
    cards = data.get("cards") or {}
    decks = []
    for deck in game.decks:
        name = ((data.get("decks") or {}).get(deck.id) or {}).get("name") or deck.name
        translated = []
        for card in deck.cards:
            own = cards.get(card.id)
            if not own:
                translated.append(card)
                continue
            fields = {**card.fields, **{k: v for k, v in own.items() if k != "name"}}
            where = Source(translation.file, line_of(data, ("cards", card.id)))
            translated.append(dataclasses.replace(card, name=str(own.get("name") or card.name), fields=fields,
                                                  source=where, label=card.name))
        decks.append(dataclasses.replace(deck, name=str(name), cards=tuple(translated), label=deck.name))
    return dataclasses.replace(game, title=str(meta.get("title") or game.title), meta=meta, decks=tuple(decks),
                               strings=data.get("strings") or {}, edition=lang, slug=f"{game.title} [{lang}]")


def _with(meta: Mapping, **changes) -> LineDict:
    """game.yaml's mapping with some keys changed, its lines kept (for messages naming them)."""
    out = LineDict({**meta, **changes})
    out.line = getattr(meta, "line", 0)
    out.lines = dict(getattr(meta, "lines", {}))
    return out


def chosen_languages(game: Game, asked: tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    """The languages a build makes: those asked for (each must be one of the game's), else all.

    :raises InputError: a language the game does not list."""
    langs = languages_of(game.meta)
    if not asked:
        return langs
    unknown = [lang for lang in asked if lang not in langs]
    if unknown:
        raise InputError(f"{game.id} has no edition in {', '.join(map(repr, unknown))} "
                         f"(game.yaml languages: {', '.join(langs)})")
    return tuple(lang for lang in langs if lang in asked)


class MissingString(LookupError):
    """t() was asked for a string the edition does not have; the message names it."""


def translator(strings: Mapping, lang: str):
    """`t(key, **values)` for templates and the rulebook: the edition's string `key`
    ("group.name" for a nested one), its `{name}` placeholders filled from `values`."""
    def t(key, **values):
        found = lookup(strings, str(key))
        if found is None:
            raise MissingString(f"t({shorten(str(key), 60)!r}): no such string in the {lang} strings "
                                "(strings: in i18n/<language>.yaml)")
        if isinstance(found, Mapping):
            raise MissingString(f"t({shorten(str(key), 60)!r}) names a group of strings, not one "
                                f"(e.g. {shorten(str(key), 40)}.{next(iter(found), 'name')})")

        def fill(m: re.Match) -> str:
            name = m.group(1)
            if name not in values:
                raise MissingString(f"t({shorten(str(key), 60)!r}): the string has {{{name}}}; pass {name}=...")
            return str(values[name])
        return PLACEHOLDER.sub(fill, str(found))
    return t


def in_edition(problems: list[Problem], game: Game) -> list[Problem]:
    """Problems met drawing or laying out an edition in another language than the cards are
    written in, each saying which edition (unless its file is the edition's own already)."""
    if not game.edition:
        return list(problems)
    own = (f"/i18n/{game.edition}.yaml", f".{game.edition}.md")
    return [p if p.file.endswith(own) else dataclasses.replace(p, message=f"{p.message} (the {game.edition} edition)")
            for p in problems]
