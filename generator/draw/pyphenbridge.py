"""The one bridge to Pyphen's internals: a hyphenation dictionary read lazily, each of its
patterns parsed the first time a word needs it, with Pyphen's own algorithm and values.

In: the name of one of Pyphen's dictionaries (`pyphen.LANGUAGES`) and the fewest letters
before and after a break. Out: `hyphenator(name, left, right)`, a `pyphen.Pyphen` whose
`positions(word)` are those Pyphen itself gives. Pyphen parses every pattern of a
dictionary when it reads it: 1.3 s of CPU for the German one (78,000 patterns), of which a
build's words look up a few thousand. What pnp relies on, all of it tested against the
pinned Pyphen (tests/test_hyphenate.py):

- `pyphen.hdcache` maps a dictionary's path to its `HyphDict`; `Pyphen(lang=...)` takes the
  one found there (`_lazy` puts one there before).
- `HyphDict.positions` reads `self.patterns.get(piece)` (a falsy answer: no pattern),
  `self.maxlen` and `self.cache`; `patterns` maps a pattern's letters (its text without
  digits) to (offset, values), parsed from a line as `HyphDict.__init__` parses it
  (`_parsed`: `parse_hex`, `AlternativeParser`, `parse`, patterns of zeros left out, the
  zeros at either end cut off), the last line of the same letters winning.
"""
from __future__ import annotations

from functools import lru_cache

import pyphen

TESTED = ("0.18.1",)   # the Pyphen versions this bridge was tested with (pyproject pins one)
_DIGITS = str.maketrans("", "", "0123456789")


def hyphenator(name: str, left: int, right: int) -> pyphen.Pyphen:
    """Pyphen's hyphenator of the dictionary `name`, its patterns read lazily (the module's
    docstring)."""
    path = pyphen.LANGUAGES[name]
    if path not in pyphen.hdcache:
        pyphen.hdcache[path] = _lazy(path)
    return pyphen.Pyphen(lang=name, left=left, right=right)


class LazyPatterns(dict):
    """`HyphDict.patterns` whose lines are parsed when `get` first asks for their letters
    (`lines`: letters -> the line, or the lines in the file's order, not parsed yet)."""

    def __init__(self, lines: dict):
        super().__init__()
        self.lines = lines

    def get(self, key, default=None):
        found = dict.get(self, key)
        if found is not None:
            return found
        line = self.lines.pop(key, None)
        if line is None:
            return default
        for each in reversed((line,) if isinstance(line, str) else line):   # the last that is not zeros wins
            found = _parsed(each)[1]
            if found is not None:
                self[key] = found
                return found
        return default


@lru_cache(maxsize=8)
def _lazy(path) -> pyphen.HyphDict:
    """A `HyphDict` of the file at `path` whose patterns are parsed on demand."""
    with path.open("rb") as fd:   # as HyphDict.__init__ reads it
        encoding = fd.readline().decode()
    if encoding.lower() == "microsoft-cp1251":
        encoding = "cp1251"
    lines: dict = {}
    for line in path.read_text(encoding).split("\n")[1:]:
        line = line.strip()
        if not line or line.startswith(pyphen.ignored):
            continue
        special = "^^" in line or ("/" in line and "=" in line)
        key = _parsed(line)[0] if special else line.translate(_DIGITS)
        before = lines.get(key)
        lines[key] = line if before is None else (*((before,) if isinstance(before, str) else before), line)
    hd = pyphen.HyphDict.__new__(pyphen.HyphDict)
    hd.patterns = LazyPatterns(lines)
    hd.cache = {}
    hd.maxlen = max(len(key) for key in lines)   # at least Pyphen's: longer pieces find no pattern
    return hd


def _parsed(line: str) -> tuple[str, tuple | None]:
    """A stripped pattern line's letters and (offset, values), or None for a pattern of
    zeros, as `HyphDict.__init__` parses it."""
    pattern = pyphen.parse_hex(lambda match: chr(int(match.group(1), 16)), line)
    if "/" in pattern and "=" in pattern:
        pattern, alternative = pattern.split("/", 1)
        factory = pyphen.AlternativeParser(pattern, alternative)
    else:
        factory = int
    tags, values = zip(*[(string, factory(i or "0")) for i, string in pyphen.parse(pattern)])
    if max(values) == 0:
        return "".join(tags), None
    start, end = 0, len(values)
    while not values[start]:
        start += 1
    while not values[end - 1]:
        end -= 1
    return "".join(tags), (start, values[start:end])
