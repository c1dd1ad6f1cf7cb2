"""Style: what a copy editor marks that no dictionary finds.

In: a game's `Text`s by language (wordtexts.py) and its `Glossary`. Out: `(kind, text,
message, found, expected)` tuples:

- `near-duplicate`: two cards whose same field differs by a word or two (numbers and icons
  aside), likely a copy not updated (glossary `similar:` lists pairs meant so, `formulaic:`
  the fields written to a pattern);
- `number-style`: a card counting a thing in words ("two cards") where the game's other
  cards count the same thing in digits ("2 cards"), or the other way round;
- `quotes`: straight quotes and apostrophes in a game that uses curly ones (or the other
  way round: glossary `quotes:`, else what most of its texts use);
- `double-space`: two spaces or more between words.

`fixed` is the mechanical fix of a text (quotes, spaces) that `pnp lint --fix` writes back.
"""
from __future__ import annotations

import re

from .wordtexts import Text, clean

NUMBER_WORDS = {
    "en": ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    "de": ("zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn"),
    "fr": ("deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix"),
}
_STRAIGHT = re.compile(r"[\"']")
_CURLY = re.compile(r"[“”‘’„]")
_SPACES = re.compile(r"(?<=\S) {2,}(?=\S)")
_TOKEN = re.compile(r"\w+", re.U)
_STRAIGHTEN = str.maketrans("“”„‘’", "\"\"\"''")
_CODE = re.compile(r"(\{\{(?:(?!\{\{|\}\}).)*\}\}|\{%(?:(?!\{%|%\}).)*%\}|\{#(?:(?!\{#|#\}).)*#\})", re.S)   # linear
MOST_APART = 2          # words two texts may differ by and still be near-duplicates
FEWEST_WORDS = 6        # shorter texts are too short to tell a copy from a pattern


def style_findings(texts: dict[str, list[Text]], glossary, source: str) -> list[tuple]:
    found: list[tuple] = []
    found += _near_duplicates(texts.get(source, []), glossary)
    for lang, own in texts.items():
        yaml_texts = [t for t in own if t.key != "rulebook"]
        found += _numbers(own, lang)
        quotes = glossary.quotes or _most_quotes(yaml_texts)
        for text in yaml_texts:
            if quotes and (_STRAIGHT if quotes == "curly" else _CURLY).search(clean(text.text)):
                found.append(("quotes", text, f"{text.where}: {'straight' if quotes == 'curly' else 'curly'} quotes in "
                              f"a game that uses {quotes} ones", text.text, quotes))
            if _SPACES.search(text.text):
                found.append(("double-space", text, f"{text.where}: two spaces between words", text.text,
                              "one space"))
    return found


def fixed(text: str, quotes: str | None, spaces: bool = True) -> str:
    """The text with (`spaces`) one space between words and (`quotes`: curly or straight)
    its quotes in that style."""
    parts = _CODE.split(text)   # Jinja inside a text is code: its quotes stay as they are
    return "".join(part if n % 2 else _fixed(part, quotes, spaces) for n, part in enumerate(parts))


def _fixed(text: str, quotes: str | None, spaces: bool) -> str:
    if spaces:
        text = _SPACES.sub(" ", text)
    if quotes == "straight":
        return text.translate(_STRAIGHTEN)
    if quotes == "curly":
        return _curly(text)
    return text


def _curly(text: str) -> str:
    out = []
    for i, ch in enumerate(text):
        before = text[i - 1] if i else " "
        opens = before.isspace() or before in "([{—–-"
        if ch == '"':
            out.append("“" if opens else "”")
        elif ch == "'":
            out.append("‘" if opens and i + 1 < len(text) and not text[i + 1].isspace() else "’")
        else:
            out.append(ch)
    return "".join(out)


def _most_quotes(texts: list[Text]) -> str | None:
    straight = sum(1 for t in texts if _STRAIGHT.search(clean(t.text)))
    curly = sum(1 for t in texts if _CURLY.search(clean(t.text)))
    if not straight or not curly:
        return None   # one style only (or none): nothing mixed
    return "curly" if curly >= straight else "straight"


def _numbers(texts: list[Text], lang: str) -> list[tuple]:
    """Texts counting a thing in words ("two cards") where the game's other cards count the
    same thing in digits ("2 cards"), or the other way round (the fewer are reported)."""
    names = NUMBER_WORDS.get(lang.split("-")[0])
    if not names:
        return []
    counted = re.compile(rf"(?<![\w.,/+-])({'|'.join(names)}|[2-9]|10)\s+(?:\*\*)?([^\W\d_]{{3,}})", re.I)
    ways: dict[str, tuple[list, list]] = {}
    for text in texts:
        if not text.on_card:
            continue
        for number, noun in counted.findall(clean(text.text)):
            digits, spelled = ways.setdefault(noun.lower().rstrip("s"), ([], []))
            (digits if number.isdigit() else spelled).append(text)
    found: dict[Text, tuple] = {}   # one finding a text
    for noun, (digits, spelled) in ways.items():
        if digits and spelled:
            odd, way = (spelled, "words") if len(digits) >= len(spelled) else (digits, "digits")
            for t in odd:
                found.setdefault(t, ("number-style", t, f"{t.where}: counts '{noun}' in {way}; the game's other "
                                     f"cards count it in {'digits' if way == 'words' else 'words'}", t.text,
                                     "digits" if way == "words" else "words"))
    return list(found.values())


def _near_duplicates(texts: list[Text], glossary) -> list[tuple]:
    by_field: dict[str, list[tuple[Text, list[str]]]] = {}
    for text in texts:
        if text.on_card and text.field != "name" and text.field not in glossary.formulaic:
            tokens = [w.lower() for w in _TOKEN.findall(clean(text.text))]
            if len(tokens) >= FEWEST_WORDS:
                by_field.setdefault(str(text.field), []).append((text, tokens))
    found = []
    for items in by_field.values():
        index: dict[tuple, list[int]] = {}   # each earlier text's parts -> the texts
        for j, (b, tb) in enumerate(items):
            for i in _candidates(index, tb):   # each text reported once, beside the first it nearly repeats
                a, ta = items[i]
                if a.card == b.card or ta == tb or frozenset((a.card, b.card)) in glossary.similar:
                    continue
                if abs(len(ta) - len(tb)) <= MOST_APART and 1 <= _apart(ta, tb) <= MOST_APART:
                    found.append(("near-duplicate", b, f"{b.where}: differs from card {a.card}'s {a.field} by a "
                                  "word or two (a copy not updated? glossary similar: lists pairs meant so)",
                                  b.text, a.text))
                    break
            for part in _parts(_plain(tb)):
                index.setdefault(part, []).append(j)
    return found


def _plain(tokens: list[str]) -> tuple[str, ...]:
    return tuple("#" if t.isdigit() else t for t in tokens)   # numbers count alike (_apart)


def _parts(tokens: tuple[str, ...]) -> list[tuple[str, ...]]:
    """`tokens` cut into MOST_APART + 1 runs: of two texts at most MOST_APART words apart,
    one run of the one is whole in the other (the pigeonhole), so only texts that share a
    run are compared: a deck of thousands of texts is not compared pair by pair."""
    size, more = divmod(len(tokens), MOST_APART + 1)
    runs, at = [], 0
    for k in range(MOST_APART + 1):
        end = at + size + (k < more)
        runs.append(tokens[at:end])
        at = end
    return runs


def _candidates(index: dict[tuple, list[int]], tokens: list[str]) -> list[int]:
    """The earlier texts one of whose runs (of a text within MOST_APART words of this one's
    length) is found whole in `tokens`, first first."""
    plain = _plain(tokens)
    lengths = {size + extra for n in range(len(plain) - MOST_APART, len(plain) + MOST_APART + 1) if n > 0
               for size in (n // (MOST_APART + 1),) for extra in (0, 1)}
    found: set[int] = set()
    for length in lengths:
        for start in range(len(plain) - length + 1):
            found.update(index.get(plain[start:start + length], ()))
    return sorted(found)


def _apart(a: list[str], b: list[str]) -> int:
    """Words to change, add or remove to make `a` into `b` (numbers changed count for none);
    MOST_APART + 1 as soon as it is more."""
    if len(set(a) ^ set(b)) > 2 * MOST_APART:
        return MOST_APART + 1
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i]
        for j, y in enumerate(b, start=1):
            same = x == y or x.isdigit() and y.isdigit()
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (0 if same else 1)))
        if min(current) > MOST_APART:
            return MOST_APART + 1
        previous = current
    return previous[-1]
