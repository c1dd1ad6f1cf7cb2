r"""Arithmetic and set helpers added to JMESPath, which has neither.

Rules files call them like any JMESPath function: `multiply(it.hands, it.cards)`,
`combinations(it, \`4\`)`, `lookup(data.tables.start, it.id)`, `distance(it.spot, \`[0, 0]\`)`.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter

import jmespath
from jmespath import functions


class RuleFunctions(functions.Functions):
    @functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_add(self, a, b):
        return a + b

    @functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_subtract(self, a, b):
        return a - b

    @functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_multiply(self, a, b):
        return a * b

    @functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_divide(self, a, b):
        return a / b if b else None

    @functions.signature({"types": ["array"]})
    def _func_product(self, values):
        return math.prod(values)

    @functions.signature({"types": ["array"]})
    def _func_unique(self, values):
        seen, out = set(), []
        for v in values:
            key = repr(v)
            if key not in seen:
                seen.add(key)
                out.append(v)
        return out

    @functions.signature({"types": ["array"]})
    def _func_distinct_count(self, values):
        return len({repr(v) for v in values})

    @functions.signature({"types": ["array"]}, {"types": ["number"]})
    def _func_combinations(self, values, k):
        return [list(c) for c in itertools.combinations(values, int(k))]

    @functions.signature({"types": ["array"]}, {"types": ["number"]})
    def _func_repeat_each(self, values, k):
        """Each value repeated k times: [[v, v, ...], ...] (four of a kind, ...)."""
        return [[v] * int(k) for v in values]

    @functions.signature({"types": ["array"]}, {"types": ["array"]})
    def _func_distance(self, a, b):
        """The straight-line distance between two points given as [x, y] (spots on a board)."""
        if len(a) != len(b) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in [*a, *b]):
            raise ValueError(f"distance takes two points of numbers, got {a!r} and {b!r}")
        return math.dist(a, b)

    @functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_round(self, value, digits):
        """`value` rounded to `digits` decimals (for messages: 21.2 mm, not 21.213203...)."""
        return round(value, int(digits))

    @functions.signature({"types": ["array"]}, {"types": ["array"]})
    def _func_covers_any(self, pool, needs):
        """True when some list in `needs` is contained in `pool`, copies counted (a hand's
        Energy pays some Rocket's cost: `covers_any(it[].energy, it[].cost)`)."""
        have = Counter(repr(v) for v in pool)
        return any(isinstance(need, list) and not Counter(repr(v) for v in need) - have for need in needs)

    @functions.signature({"types": ["object"]}, {"types": ["string"]})
    def _func_lookup(self, obj, key):
        """obj[key], or null when obj has no such key (JMESPath cannot index by a value)."""
        return obj.get(key)


OPTIONS = jmespath.Options(custom_functions=RuleFunctions())


def compile_expr(source: str):
    """Compile a JMESPath expression (raises jmespath.exceptions.ParseError)."""
    return jmespath.compile(source)


def search(compiled, data):
    return compiled.search(data, options=OPTIONS)
