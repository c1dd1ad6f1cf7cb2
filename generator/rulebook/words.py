"""The rulebook's own words (its title page, contents, metadata) in the book's language.

In: a game (or an edition) and its language. Out: the words pnp prints around the game's
text: pnp's own for the languages it knows (assets/i18n/rulebook.yaml), each of which a
game may give itself in its strings (`strings: {rulebook: {contents: ...}}`, in any
language's i18n file). A language pnp does not know needs the game's own.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml

from ..errors import InputError, Problem

KEYS = ("contents", "rules_of_play", "players", "ages", "rules", "size", "dice")
SHIPPED = Path(__file__).parents[1] / "assets" / "i18n" / "rulebook.yaml"
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@lru_cache(maxsize=1)
def shipped_words() -> dict:
    return yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))


def words(game) -> dict[str, str]:
    """The rulebook's words for `game`'s language.

    :raises InputError: for a language pnp does not know, naming the words the game must give."""
    own = game.strings.get("rulebook") or {}
    lang = game.language
    known = shipped_words().get(lang) or shipped_words().get(lang.split("-")[0].lower()) or {}
    found = {k: own.get(k) or known.get(k) for k in KEYS}
    missing = [k for k, v in found.items() if not v]
    if missing:
        where = f"cards/{game.id}/i18n/{lang}.yaml"
        raise InputError("1 problem in the rulebook", [Problem(
            where, f"pnp does not know the rulebook's own words in '{lang}': give them in strings: rulebook: "
                   f"({', '.join(missing)}; e.g. contents: the title of the contents page)", field="strings.rulebook")])
    return {k: str(v) for k, v in found.items()}


def fill(text: str, **values) -> str:
    """`text` with its {name}s replaced by `values` (unknown names are left as written)."""
    return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), text)
