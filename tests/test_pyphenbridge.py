"""The Pyphen bridge: a dictionary read lazily gives Pyphen's own patterns and positions, and
an upgrade that changes what it relies on fails here, by name."""
from __future__ import annotations

import inspect

import pyphen

from generator.draw import pyphenbridge
from generator.draw.hyphenate import dictionary

WORDS = ("hyphenation", "typographer", "dictionary", "remarkable", "extraordinary", "shuffle", "Olympians",
         "anticonstitutionnellement", "développement", "réglementation", "eighteen", "bookkeeper")


def test_pyphen_is_a_version_the_bridge_was_tested_with():
    assert pyphen.__version__ in pyphenbridge.TESTED, (
        f"Pyphen {pyphen.__version__} is not one the bridge was tested with ({pyphenbridge.TESTED}): "
        "re-check every internal named in generator/draw/pyphenbridge.py, then add the version")


def test_pyphens_internals_are_those_the_bridge_relies_on():
    positions = inspect.getsource(pyphen.HyphDict.positions)
    for used in ("self.cache.get(word)", "self.maxlen", "pattern = self.patterns.get(pointed_word[i:j])",
                 "if not pattern:"):
        assert used in positions, used
    reading = inspect.getsource(pyphen.HyphDict.__init__)
    steps = ("encoding = fd.readline().decode()", "'microsoft-cp1251'", "path.read_text(encoding).split('\\n')[1:]",
             "pattern.strip()", "pattern.startswith(ignored)", "parse_hex(", "'/' in pattern and '=' in pattern",
             "AlternativeParser(pattern, alternative)", "for i, string in parse(pattern)", "if max(values) == 0:",
             "self.patterns[''.join(tags)] = start, values[start:end]", "self.cache = {}", "self.maxlen = ")
    assert [reading.find(s) for s in steps] == sorted(reading.find(s) for s in steps) and all(
        s in reading for s in steps), "HyphDict.__init__ no longer parses its patterns as pyphenbridge._parsed does"
    assert "hdcache[path]" in inspect.getsource(pyphen.Pyphen.__init__)


def test_a_lazy_dictionary_holds_pyphens_own_patterns_and_gives_its_positions():
    for name in ("fr", "en_US"):
        own = pyphen.HyphDict(pyphen.LANGUAGES[name])
        lazy = pyphenbridge._lazy(pyphen.LANGUAGES[name])
        letters = set(lazy.patterns.lines) | set(dict.keys(lazy.patterns))
        assert set(own.patterns) <= letters and lazy.maxlen >= own.maxlen
        if name == "fr":   # every pattern (the English ones: those the words look up)
            assert all(lazy.patterns.get(k) == own.patterns.get(k) for k in letters)
        for left, right in ((2, 2), (2, 3)):
            mine, theirs = pyphenbridge.hyphenator(name, left, right), pyphen.Pyphen(lang=name, left=left, right=right)
            theirs.hd = own
            assert [mine.positions(w) for w in WORDS] == [theirs.positions(w) for w in WORDS]


def test_a_dictionary_parses_only_the_patterns_the_words_looked_up_need():
    """German: 78,000 patterns, 1.3 s to parse them all; a few words need a few hundred."""
    german = dictionary("de", 2, 2)
    points = [german.positions(w) for w in ("Silbentrennung", "Spielkarten", "Regelheft")]
    assert points[0] == [3, 6, 10] and all(points)   # Sil-ben-tren-nung
    parsed = dict.__len__(german.hd.patterns)
    assert 0 < parsed < 5000 < len(german.hd.patterns.lines)
