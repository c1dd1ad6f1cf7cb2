"""Numbers in right-to-left text: one convention for cards and the rulebook.

In: a text (pnp card markup, or the rulebook's markup with its `<tags>` and `&entities;`)
and its language. Out: the same text with Unicode's directional formatting characters
added where the Unicode Bidirectional Algorithm (UAX #9) alone would order it otherwise
than pnp's convention; a text in a language written left to right comes back unchanged.

The convention (docs/typesetting.md, with its sources):

- every paragraph of an Arabic or Hebrew text runs right to left, even one that begins
  with a number or a Latin word (a RIGHT-TO-LEFT MARK leads it), as a book of that
  language does;
- a sign belongs to its number: `-2`, `+3`, `−1`, `±0` are isolated left to right
  (LRI … PDI, UAX #9 §2.7), so the sign stays on the number's left as in every other
  edition. Left to UAX #9, the minus of "-2" in a right-to-left paragraph is a neutral
  that takes the paragraph's direction and prints on the right ("2-"); CLDR's Arabic
  number symbols for European digits likewise put a LEFT-TO-RIGHT MARK before the sign;
- ranges, multiplications and a number with its unit follow the paragraph, as UAX #9
  orders them: the first item is read first, from the right ("31–60" prints 60–31, read
  31 to 60; "3 × 10" prints 10 × 3, under a header read hands × cards from the right). A
  range written with a hyphen ("2-6") is one too: a RIGHT-TO-LEFT MARK before its hyphen
  keeps UAX #9 (W4) from binding it into one left-to-right number.
"""
from __future__ import annotations

import re
import unicodedata

from ..data.editions import direction_of

RLM = "\u200f"   # RIGHT-TO-LEFT MARK
LRI = "\u2066"   # LEFT-TO-RIGHT ISOLATE
PDI = "\u2069"   # POP DIRECTIONAL ISOLATE
# a sign at the start of a word, its number (European digits, decimals, a percent sign)
_SIGNED = re.compile(r"(?<![\w)\]\u2069])([+\-\u2212\u00b1][0-9]+(?:[.,][0-9]+)*%?)")
# a hyphen-minus between two digits: a range ("2-6 players"), which UAX #9 (W4) would bind
# into one left-to-right number; a RIGHT-TO-LEFT MARK before it makes it a range like "31–60"
_HYPHEN_RANGE = re.compile(r"(?<=[0-9])-(?=[0-9])")
_TAG = re.compile(r"<[^>]*>|&[#\w]+;")
_PARAGRAPH = re.compile(r"(\n[^\S\n]*\n\s*)")


def ordered(text: str, lang: str) -> str:
    """`text` with the marks and isolates of pnp's convention for numbers in right-to-left
    text (the module's docstring); unchanged in a language written left to right. Tags and
    entities of the rulebook's markup are left as they are."""
    if direction_of(lang) != "rtl":
        return text
    pieces = _PARAGRAPH.split(text)
    for i in range(0, len(pieces), 2):   # the paragraphs; the odd pieces are the blank lines between
        pieces[i] = _paragraph(pieces[i])
    return "".join(pieces)


def _numbers(text: str) -> str:
    return _HYPHEN_RANGE.sub(RLM + "-", _SIGNED.sub(rf"{LRI}\1{PDI}", text))


def _paragraph(text: str) -> str:
    out, at = [], 0
    for m in _TAG.finditer(text):
        out.append(_numbers(text[at:m.start()]))
        out.append(m.group(0))
        at = m.end()
    out.append(_numbers(text[at:]))
    body = "".join(out)
    if not body.strip() or _first_strong(_TAG.sub("", body)) == "R":
        return body
    lead = len(body) - len(body.lstrip())
    return body[:lead] + RLM + body[lead:]


def _first_strong(text: str) -> str | None:
    """R, L or None: the direction of the text's first strong character (UAX #9 P2, isolates skipped)."""
    depth = 0
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind in ("LRI", "RLI", "FSI"):
            depth += 1
        elif kind == "PDI":
            depth = max(0, depth - 1)
        elif depth == 0 and kind in ("R", "AL"):
            return "R"
        elif depth == 0 and kind == "L":
            return "L"
    return None
