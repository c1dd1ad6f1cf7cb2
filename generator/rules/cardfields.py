"""Which fields of a card a JMESPath expression over cards can see, when it sees no more.

In: an odds rule's expression as written (`holds` over a hand as `it`, or `where` over one
card's fields and `it`). Out: the card fields it reads, or None when the expression could
see a card whole (`it[0]`, `keys(@)`, a card compared with another, `sort_by(it, &cost)`,
anything the walk does not know). Where the fields are known, the expression gives the same
result for each card kept to those fields: drawchecks.py then samples hands of such cards,
so a Monte Carlo estimate is remembered across edits of what it never reads (a card's
text), while `pnp watch` rebuilds.

The walk is an abstract evaluation: each node's value is the root, a list of cards, one
card, or a VALUE (anything made only of named fields' values, literals and what functions
and comparisons make of them); a card met anywhere but under a field access makes the
expression one that sees cards whole.
"""
from __future__ import annotations

from functools import lru_cache

from jmespath.exceptions import JMESPathError

from .functions import compile_expr

HAND, ONE_CARD = "hand", "one card"   # the roots: {"it": [cards]}, and a card's fields with "it": the card
_CARDS, _CARD, VALUE = "cards", "card", "value"


class SeesCards(Exception):
    """The expression could see a card whole."""


@lru_cache(maxsize=256)
def fields_read(source: str, root: str) -> frozenset[str] | None:
    """The fields of a card `source` reads from `root` (HAND or ONE_CARD), or None."""
    try:
        tree = compile_expr(source).parsed
    except JMESPathError:
        return None
    read: set[str] = set()
    try:
        if _value(tree, root, read) != VALUE:
            return None
    except SeesCards:
        return None
    return frozenset(read)


def _value(node, at: str, read: set) -> str:
    """The abstract value of `node` evaluated at `at`, adding the card fields it reads."""
    kind, children = node.get("type"), node.get("children") or []
    if kind == "field":
        return _field(node.get("value"), at, read)
    if kind in ("current", "identity"):
        return at
    if kind in ("literal", "raw_string"):
        return VALUE
    if kind in ("subexpression", "pipe"):
        return _value(children[1], _value(children[0], at, read), read)
    if kind == "index_expression":
        left = _value(children[0], at, read)
        if children[1].get("type") == "slice":
            return left if left in (_CARDS, VALUE) else _sees()
        return _CARD if left == _CARDS else VALUE if left == VALUE else _sees()
    if kind == "flatten":
        left = _value(children[0], at, read)
        return left if left in (_CARDS, VALUE) else _sees()
    if kind in ("projection", "filter_projection"):
        left = _value(children[0], at, read)
        each = _CARD if left == _CARDS else VALUE if left == VALUE else _sees()
        if kind == "filter_projection" and _value(children[2], each, read) != VALUE:
            _sees()
        right = _value(children[1], each, read)
        return _CARDS if right == _CARD else VALUE if right == VALUE else _sees()
    if kind == "value_projection":
        if _value(children[0], at, read) != VALUE:
            _sees()   # every value of a card, or of the root
        return VALUE if _value(children[1], VALUE, read) == VALUE else _sees()
    if kind == "function_expression" and node.get("value") == "length" and len(children) == 1 \
            and _value(children[0], at, read) == _CARDS:
        return VALUE   # how many cards: the same, whatever fields they keep
    if kind in ("comparator", "and_expression", "or_expression", "not_expression", "function_expression",
                "multi_select_list", "multi_select_dict", "key_val_pair"):
        if any(child.get("type") == "expref" or _value(child, at, read) != VALUE for child in children):
            _sees()
        return VALUE
    return _sees()


def _field(name, at: str, read: set) -> str:
    if at == HAND:
        return _CARDS if name == "it" else VALUE
    if at == ONE_CARD:
        if name == "it":
            return _CARD
        read.add(name)
        return VALUE
    if at == _CARD:
        read.add(name)
        return VALUE
    return VALUE   # a field of a value (of a list of cards: null)


def _sees() -> str:
    raise SeesCards


def kept_to(cards: list, fields: frozenset[str]) -> list[dict]:
    """Each card with only `fields` (those it has)."""
    return [{k: card[k] for k in fields if k in card} for card in cards]
