"""The rulebook's own words (its title page, contents, metadata) in the book's language.

In: a game (or an edition) and its language. Out: the words pnp prints around the game's
text: pnp's own for the languages it knows (assets/i18n/rulebook.yaml), each of which a
game may give itself in its strings (`strings: {rulebook: {contents: ...}}`, in any
language's i18n file); in a language pnp does not know, those the game does not give are
English, and `problems` says so (a warning), with what the game gives that is wrong.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

import yaml

from ..data.yamlsrc import line_of
from ..errors import Problem

KEYS = ("contents", "rules_of_play", "players", "ages", "rules", "size", "dice")
SHIPPED = Path(__file__).parents[1] / "assets" / "i18n" / "rulebook.yaml"
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@lru_cache(maxsize=1)
def shipped_words() -> Mapping[str, Mapping[str, str]]:
    """pnp's words of the rulebook, each language's read-only (every caller gets the same)."""
    found = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))
    return MappingProxyType({lang: MappingProxyType(words) if isinstance(words, dict) else words
                             for lang, words in found.items()})


def words(game) -> dict[str, str]:
    """The rulebook's words for `game`'s language: the game's own, else pnp's, else (a
    language pnp does not know, which `problems` warns of) English."""
    own = game.strings.get("rulebook") or {}
    known = _known(game.language)
    english = shipped_words()["en"]
    return {k: str(own.get(k) or known.get(k) or english[k]) for k in KEYS}


def _known(lang: str) -> Mapping[str, str]:
    return shipped_words().get(lang) or shipped_words().get(lang.split("-")[0].lower()) or {}


# what each word may hold: the values pnp fills in
PLACEHOLDERS = {"players": {"players"}, "ages": {"ages"}, "rules": {"title"}, "size": {"w", "h"},
                "dice": {"die", "edge"}}


def problems(game, file: str) -> list[Problem]:
    """What is wrong with the rulebook's words of a game (or edition) whose rulebook exists:
    words the game gives that the book has no use for, or with {names} pnp does not fill in
    (errors); a language pnp knows no words of, whose book then prints them in English (a
    warning naming what to give). `file`: where the game's own words are written."""
    own = game.strings.get("rulebook") or {}
    found = []
    for key, value in own.items():
        line = line_of(game.strings, ("rulebook", key))
        if key not in KEYS:
            found.append(Problem(file, f"the rulebook has no word '{key}' (its words: {', '.join(KEYS)})", line=line,
                                 field=f"strings.rulebook.{key}"))
            continue
        extra = set(_PLACEHOLDER.findall(str(value))) - PLACEHOLDERS.get(key, set())
        if extra:
            allowed = ", ".join(f"{{{n}}}" for n in sorted(PLACEHOLDERS.get(key, ()))) or "none"
            found.append(Problem(file, f"{{{sorted(extra)[0]}}} is not filled in here (this word takes: {allowed})",
                                 line=line, field=f"strings.rulebook.{key}"))
    missing = [k for k in KEYS if not own.get(k) and not _known(game.language).get(k)]
    if missing:
        found.append(Problem(file, f"pnp has no rulebook words in '{game.language}': the rulebook prints "
                                   f"{', '.join(missing)} in English; give them in strings: rulebook: (e.g. contents: "
                                   "the title of the contents page)", field="strings.rulebook", severity="warning"))
    return found


def fill(text: str, **values) -> str:
    """`text` with its {name}s replaced by `values` (unknown names are left as written)."""
    return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), text)
