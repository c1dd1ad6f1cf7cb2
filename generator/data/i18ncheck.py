"""The findings of one language's translation of a game, each naming file, line, card and field.

In: a loaded `Game`, a language's `Translation` and the game's `Catalogue` (editions.py).
Out: `Problem`s: a text not translated, a card, deck or string key that names nothing, a
field the deck does not declare or a value its schema refuses (errors); icons
(`:favor:`), placeholders (`{cards}`) and Jinja expressions (`{{ x }}`) that differ from
the source's (errors); a translation made from a source that has changed since (a
warning: `sources:` records a short hash of the source each was made from, as gettext
marks a message fuzzy); a string the source does not have (a warning).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping

from ..errors import InputError, Problem
from ..guard import OutsideProject, read_text_inside, shorten
from .editions import (
    Entry,
    Translation,
    catalogue,
    chosen_languages,
    edition,
    flatten,
    languages_of,
    markers,
    read_translation,
    recorded_rulebook_source,
    rulebook_paths,
    source_hash,
    translated_fields,
)
from .model import Game
from .schema import Validator
from .yamlsrc import line_of, plain


def check_translation(game: Game, translation: Translation, entries: dict[str, Entry] | None = None) -> list[Problem]:
    """Every problem of one language's translation (errors) and its stale texts (warnings)."""
    entries = catalogue(game) if entries is None else entries
    file, source_lang = translation.file, languages_of(game.meta)[0]
    if not translation.found:
        return [Problem(file, f"game.yaml lists '{translation.lang}' among its languages, but there is no "
                              f"translation file: write it (pnp i18n export {game.id} --lang {translation.lang} "
                              f"gives a translator every text, {len(entries)} of them)")]
    problems: list[Problem] = []
    for key, entry in entries.items():
        value = translation.value(key)
        line, shown = translation.line(key), _shown_field(entry)
        if value is None or (isinstance(value, str) and not value.strip()):
            problems.append(Problem(file, "not translated", line=translation.line(_parent(key)), card=entry.card,
                                    field=_shown_field(entry)))
            continue
        if not isinstance(value, str):
            problems.append(Problem(file, f"a translation is text, not {type(value).__name__}", line, entry.card,
                                    shown))
            continue
        ours, theirs = markers(value), markers(entry.text)
        if ours != theirs:
            problems.append(Problem(file, _marker_message(theirs, ours, source_lang), line, entry.card, shown))
        recorded = translation.sources.get(key)
        if recorded is not None and recorded != source_hash(entry.text):
            problems.append(Problem(file, f"stale: the {source_lang} text changed since this was translated "
                                          f"(now {shorten(entry.text)!r}, {entry.file}:{entry.line})",
                                    line, entry.card, shown, severity="warning"))
    unrecorded = [k for k in entries if isinstance(translation.value(k), str) and translation.value(k).strip()
                  and k not in translation.sources]
    if unrecorded:
        problems.append(Problem(file, f"{len(unrecorded)} translation{'s' if len(unrecorded) > 1 else ''} record no "
                                      f"source text (first: {unrecorded[0]}), so a change of the {source_lang} text "
                                      f"cannot be noticed: pnp i18n accept {game.id} --lang {translation.lang} records "
                                      "the sources once the translations are checked", field="sources",
                                severity="warning"))
    problems.extend(_unknown_keys(game, translation, entries))
    problems.extend(_override_problems(game, translation))
    problems.extend(rulebook_problems(game, translation.lang))
    return problems


def rulebook_problems(game: Game, lang: str) -> list[Problem]:
    """An edition's rulebook: missing beside the game's (an error), or translated from a
    rulebook.md that has changed since, or with no record of which (warnings)."""
    paths = rulebook_paths(game, lang)
    if paths is None or not paths[0].exists():
        return []
    source, own = paths
    shown, source_lang = str(own.relative_to(game.root)), languages_of(game.meta)[0]
    if not own.exists():
        return [Problem(shown, f"not translated: the {lang} edition needs its own rulebook beside {source.name}")]
    try:
        recorded = recorded_rulebook_source(read_text_inside(game.root, own, shown))
        now = source_hash(read_text_inside(game.root, source))
    except OutsideProject as exc:
        return [Problem(shown, str(exc))]
    if recorded is None:
        return [Problem(shown, f"it records no source, so a change of {source.name} cannot be noticed: pnp i18n "
                               f"accept {game.id} --lang {lang} records it once the translation is checked",
                        severity="warning")]
    if recorded != now:
        return [Problem(shown, f"stale: {source.name} changed since this was translated ({source_lang})",
                        line=1, severity="warning")]
    return []


def _parent(key: str) -> str:
    """Where a missing translation would go: its card's entry, its deck's, its group's."""
    return key.rpartition(".")[0] if key.startswith(("cards.", "decks.")) else key


def _shown_field(entry: Entry) -> str | None:
    if entry.key.startswith("strings."):
        return f"strings.{entry.field}"
    if entry.key.startswith("game."):
        return f"game.{entry.field}"
    if entry.key.startswith("decks."):
        return entry.key
    return entry.field


def _marker_message(source: Counter, found: Counter, source_lang: str) -> str:
    missing = source - found
    extra = found - source
    parts = []
    if missing:
        parts.append("without " + ", ".join(_count(m, n) for m, n in sorted(missing.items())))
    if extra:
        parts.append("with " + ", ".join(_count(m, n) for m, n in sorted(extra.items())) +
                     f" the {source_lang} text does not have")
    return f"icons, placeholders and Jinja must match the {source_lang} text's: this one is {' and '.join(parts)}"


def _count(marker: str, n: int) -> str:
    return f"{shorten(marker, 40)}" + (f" x{n}" if n > 1 else "")


def _unknown_keys(game: Game, translation: Translation, entries: dict[str, Entry]) -> list[Problem]:
    """Translations of cards, decks and strings the game does not have."""
    problems = []
    data, file = translation.data, translation.file
    cards = {c.id: (d, c) for d in game.decks for c in d.cards}
    decks = {d.id for d in game.decks}
    for deck_id in data.get("decks") or {}:
        if deck_id not in decks:
            problems.append(Problem(file, f"no deck '{shorten(deck_id)}' in the game (decks: {', '.join(decks)})",
                                    line=line_of(data, ("decks", deck_id)), field=f"decks.{shorten(deck_id)}"))
    for card_id in data.get("cards") or {}:
        if card_id not in cards:
            problems.append(Problem(file, "no card of the game has this id", line=line_of(data, ("cards", card_id)),
                                    card=str(card_id)))
    sources = {k[len("strings."):] for k in entries if k.startswith("strings.")}
    for key in flatten(data.get("strings") or {}):
        if key not in sources and not key.startswith("rulebook."):
            problems.append(Problem(file, f"the {languages_of(game.meta)[0]} strings have no '{shorten(key)}' "
                                          "(a leftover, or a typo?)", line=line_of(data, ("strings", *key.split("."))),
                                    field=f"strings.{key}", severity="warning"))
    return problems


def _override_problems(game: Game, translation: Translation) -> list[Problem]:
    """Card fields an edition sets that its deck does not declare, or with values the
    field's schema refuses (errors); a field the game's rules read, set to another value than
    the card's (a warning: the rules run on the cards as written, so the edition could play
    differently without a word)."""
    problems = []
    cards = {c.id: (d, c) for d in game.decks for c in d.cards}
    ruled = _rules_text(game)
    for card_id, fields in (translation.data.get("cards") or {}).items():
        deck, card = cards.get(card_id, (None, None))
        if deck is None or card is None or not isinstance(fields, Mapping):
            continue
        declared = deck.raw.get("fields") or {}
        translated = set(translated_fields(deck))
        for name, value in fields.items():
            line = line_of(translation.data, ("cards", card_id, name))
            if name in ("id", "count", "front", "back"):
                problems.append(Problem(translation.file, f"'{name}' is the same in every edition: set it in "
                                                          f"{deck.source.file}", line=line, card=card_id, field=name))
            elif name != "name" and name not in declared:
                problems.append(Problem(translation.file, f"unknown field (the deck declares: "
                                                          f"{', '.join(['name', *declared])})",
                                        line=line, card=card_id, field=shorten(str(name))))
            elif name != "name":
                errors = list(Validator(declared[name]).iter_errors(plain(value)))
                if errors:
                    problems.append(Problem(translation.file, f"{shorten(errors[0].message, 120)}", line=line,
                                            card=card_id, field=name))
                elif (name not in translated and plain(value) != plain(card.fields.get(name))
                      and re.search(rf"\b{re.escape(str(name))}\b", ruled)):
                    problems.append(Problem(
                        translation.file, f"the {translation.lang} edition makes it {shorten(repr(plain(value)))}, the "
                                          f"cards {shorten(repr(plain(card.fields.get(name))))}: the game's rules read "
                                          "this field and check the cards as written, not this edition",
                        line=line, card=card_id, field=name, severity="warning"))
    return problems


def _rules_text(game: Game) -> str:
    """The text of the game's rules file ('' when there is none or it cannot be read)."""
    path = game.cards_dir / str(game.meta.get("rules") or "")
    try:
        return read_text_inside(game.root, path) if game.meta.get("rules") and path.exists() else ""
    except OutsideProject:
        return ""   # the load said so already


def checked_editions(game: Game, asked=None) -> tuple[list[Game], list[Problem]]:
    """The editions a build of `game` makes (the languages `asked`, else all) and the
    problems of their translations (errors and warnings; errors are not raised here)."""
    langs = chosen_languages(game, asked)
    source = languages_of(game.meta)[0]
    folder = game.cards_dir / "i18n"
    listed = {lang.lower() for lang in languages_of(game.meta)}
    strays = sorted(p for p in folder.glob("*.yaml") if p.stem.lower() not in listed) if folder.is_dir() else []
    entries = catalogue(game) if len(languages_of(game.meta)) > 1 else {}
    made: list[Game] = []
    problems = [Problem(str(p.relative_to(game.root)), f"'{p.stem}' is not one of the game's languages (game.yaml "
                                                       f"languages: {', '.join(languages_of(game.meta))}): the file "
                                                       "is not read", severity="warning") for p in strays]
    for lang in langs:
        if lang == source:
            made.append(edition(game, lang))
            continue
        try:
            translation = read_translation(game, lang)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        problems.extend(check_translation(game, translation, entries))
        made.append(edition(game, lang, translation))
    return made, problems
