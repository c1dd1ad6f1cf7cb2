"""pnp's small text markup, read into styled runs.

In: card text as a designer writes it: `**bold**`, `*italic*`, `***both***`, `:icon-name:` for an inline
icon, `\\*` and `\\:` for the literal characters, a newline for a line break and a blank
line for a new paragraph; `:kw[Name]:` for a keyword of the game's glossary, which
`expand_keywords` prints with its reminder on its first use on a card. Out: paragraphs of
words, each word a list of `Run`s (a styled piece of text, or an icon), which `pangotext`
lays out; `TextError` for markup that cannot be read (a style left open).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# white space between words; a no-break space (U+00A0, U+202F, U+2007: French "mot :") binds
# its neighbours into one word
_SPACE = r"[^\S\u00a0\u202f\u2007]"
_TOKEN = re.compile(rf"(\\[*:\\]|\*\*|\*|:[a-z][a-z0-9_-]*:|{_SPACE}+)")
_BLANK = re.compile(rf"{_SPACE}+")
KEYWORD = re.compile(r":kw\[([^\]\n:]+)\]:")


class TextError(Exception):
    """Card text that cannot be set: bad markup, an unknown icon, or no room."""


class TextDoesNotFit(TextError):
    """The text needs more room than its box gives, even at the smallest allowed size."""


@dataclass(frozen=True)
class Run:
    text: str          # a word fragment, or "" for an icon
    bold: bool
    italic: bool
    icon: str | None = None


def parse(text: str) -> list[list[list[Run]]]:
    """Paragraphs -> words; each word a list of runs (styled pieces or icons).

    `*` and `**` open when followed by a non-space and close when preceded by one, like
    Markdown (`***bold italic***` opens and closes both); any other `*` is printed as it
    is. `\\*` and `\\:` print `*` and `:`.
    Styles end with their paragraph: one left open is an error, not a restyled card.
    """
    paragraphs: list[list[list[Run]]] = []
    for para in re.split(r"\n\s*\n", str(text).strip()):
        bold = italic = False
        words: list[list[Run]] = []
        current: list[Run] = []
        at = 0
        for part in _TOKEN.split(para):
            if not part:
                continue
            # the characters either side in the text (`***`: `**` then `*`, each beside the other)
            before, after, at = para[at - 1:at] if at else "", para[at + len(part):at + len(part) + 1], at + len(part)
            if part in ("**", "*"):
                on = bold if part == "**" else italic
                if on and before and not _BLANK.fullmatch(before):
                    on = False
                elif not on and after and not _BLANK.fullmatch(after):
                    on = True
                else:
                    current.append(Run(part, bold, italic))
                    continue
                if part == "**":
                    bold = on
                else:
                    italic = on
            elif part.startswith("\\"):
                current.append(Run(part[1], bold, italic))
            elif _BLANK.fullmatch(part):
                if current:
                    words.append(current)
                    current = []
                if "\n" in part:
                    words.append([Run("\n", bold, italic)])  # forced line break
            elif part.startswith(":") and part.endswith(":") and len(part) > 2:
                current.append(Run("", bold, italic, icon=part[1:-1]))
            else:
                current.append(Run(part, bold, italic))
        if current:
            words.append(current)
        if bold or italic:
            raise TextError(f"unclosed {'**' if bold else '*'} in {_preview(para)!r} "
                            "(write \\* for a literal asterisk)")
        paragraphs.append(words)
    return paragraphs



def _preview(text: str, n: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def expand_keywords(fields: dict, keywords, lang: str | None) -> dict:
    """A card's fields with each `:kw[Name]:` printed: the keyword's name (in the edition's
    language) and, on its first use on the card, its reminder in italics. `keywords`: the
    glossary's (data/glossary.Keyword by declared name); an undeclared keyword is left as
    written (the word checks name it)."""
    seen: set[str] = set()

    def printed(match) -> str:
        keyword = keywords.get(match.group(1))
        if keyword is None:
            return match.group(0)
        name, reminder = keyword.printed(lang)
        if keyword.name in seen:
            return name
        seen.add(keyword.name)
        return f"{name} *({reminder})*"

    return {key: KEYWORD.sub(printed, value) if isinstance(value, str) and ":kw[" in value else value
            for key, value in fields.items()}
