"""The odds rule kinds: `draw_odds`, `pack_odds` and `deal_odds`, registered on `checks.CHECKS`.

In: a rule's `args` (the cards drawn from, JMESPath conditions on one card, the bounds on a
probability or an expected count) and the game document. Out: a `Failure` when the computed
probability or expectation is outside its bound; its note states the value, whether it is
exact or a Monte Carlo estimate with its error bound, and what the rule asked for (the
finding carries the rules file and the rule's line). The arithmetic is `odds.py`'s.
"""
from __future__ import annotations

import functools
import json
import math
from collections import defaultdict
from collections.abc import Iterable

from .cardfields import HAND, ONE_CARD, fields_read, kept_to
from .checks import NUMBER, SELECTION, Failure, register, selected
from .functions import compile_expr, search
from .odds import Counts, Estimate, chance, convolve, every_hand, hand_distribution, monte_carlo, repeated

COUNT = {"type": "integer", "minimum": 0}
PROBABILITY = {"type": "number", "minimum": 0, "maximum": 1}
WHERE = {"type": "string", "description": "JMESPath over one card (its fields, or `it`): true for the cards counted"}
CONDITION = {"type": "object", "required": ["where"], "additionalProperties": False,
             "properties": {"where": WHERE, "at_least": COUNT, "at_most": COUNT, "exactly": COUNT}}
CARDS = {"type": "array", "items": {"type": "object"}, "description": "a list of cards"}
ASIDE = {"type": "object", "required": ["where", "cards"], "additionalProperties": False,
         "properties": {"where": WHERE, "cards": NUMBER},
         "description": "cards taken out before the draw (a starting roster): that many of those meeting `where`"}
DRAW = {"type": "object", "required": ["from", "cards"], "additionalProperties": False,
        "properties": {"from": SELECTION, "cards": NUMBER, "set_aside": ASIDE}}
BOUNDS = {"p_min": PROBABILITY, "p_max": PROBABILITY}
CONDITIONS = {"where": WHERE, "at_least": COUNT, "at_most": COUNT, "exactly": COUNT,
              "all": {"type": "array", "items": CONDITION, "minItems": 1,
                      "description": "several conditions, every one must hold"}}
SAMPLES = 10000   # a Monte Carlo rule's draws unless it says: 3 standard errors are <= 0.015


def _conditions(args: dict) -> list[dict]:
    """The rule's conditions on a hand: `all:`, or the one written at the top."""
    if "all" in args:
        return [dict(c) for c in args["all"]]
    if "where" in args:
        return [{k: args[k] for k in ("where", "at_least", "at_most", "exactly") if k in args}]
    return []


def _ok(count: int, cond: dict) -> bool:
    if "exactly" in cond and count != cond["exactly"]:
        return False
    return count >= cond.get("at_least", 0) and ("at_most" not in cond or count <= cond["at_most"])


def _asked(cond: dict) -> str:
    if "exactly" in cond:
        n = f"exactly {cond['exactly']}"
    elif "at_most" in cond:
        n = f"{cond.get('at_least', 0)}..{cond['at_most']}" if cond.get("at_least") else f"at most {cond['at_most']}"
    else:
        n = f"at least {cond.get('at_least', 1)}"
    return f"{n} where {cond['where']}"


def _matcher(ctx, where: str):
    """A test of one card: the JMESPath `where` on its fields (and on `it`), cached by card."""
    compiled, seen = compile_expr(where), {}

    def test(card: dict) -> bool:
        key = id(card)
        if key not in seen:
            seen[key] = bool(search(compiled, {**card, "it": card}))
        return seen[key]
    return test


def _classes(cards: list, tests: list) -> list[tuple[int, Counts]]:
    """The pool as (copies, which conditions a card meets) classes: printed copies share their dict."""
    copies: dict[Counts, int] = defaultdict(int)
    for card in cards:
        copies[tuple(int(t(card)) for t in tests)] += 1
    return sorted((n, sig) for sig, n in copies.items())


def _judge(args: dict, estimate: Estimate, asked: str, fields: dict | None = None) -> Iterable[Failure]:
    """A Failure when the probability is outside p_min..p_max (a Monte Carlo estimate is judged
    by its value; its bound is stated)."""
    low, high = args.get("p_min", 0.0), args.get("p_max", 1.0)
    wanted = [f"at least {low}"] * ("p_min" in args) + [f"at most {high}"] * ("p_max" in args)
    if not low <= estimate.p <= high:
        expected = " and ".join(wanted)
        yield Failure(round(estimate.p, 6), f"P {expected}", None, fields={**(fields or {}), "p": round(estimate.p, 6),
                                                                           "bound": estimate.bound},
                      note=f"{estimate.describe()} that {asked}; the rule asks {expected}")


WHOLE = {"type": "integer", "minimum": 0, "description": "a whole number of cards"}


def _draws(ctx, args: dict) -> list[tuple[list, int, dict | None]]:
    """Each draw: (the cards it is drawn from, how many, what is set aside first or None)."""
    draws = args["draw"] if isinstance(args["draw"], list) else [args["draw"]]
    out = []
    for i, d in enumerate(draws):
        cards = selected(ctx, d, "from", CARDS)
        n = selected(ctx, d, "cards", WHOLE)
        aside = d.get("set_aside")
        if aside is not None:
            aside = {"where": aside["where"], "cards": selected(ctx, aside, "cards", WHOLE)}
        if n + (aside["cards"] if aside else 0) > len(cards):
            raise ValueError(f"draw {i + 1} takes {n} cards (and sets aside {aside['cards'] if aside else 0}) "
                             f"from {len(cards)}")
        out.append((cards, n, aside))
    return out


def _set_aside(ctx, classes: list[tuple[int, Counts]], cards: list, tests: list, aside: dict, i: int):
    """The pool's classes once `aside` is taken out. Exact only when every card it may take
    counts alike for the rule (which of them go then does not matter).

    :raises ValueError: the cards set aside differ in what the rule counts, or are too few."""
    test = _matcher(ctx, aside["where"])
    sigs = {tuple(int(t(card)) for t in tests) for card in cards if test(card)}
    if len(sigs) > 1:
        raise ValueError(f"draw {i + 1}: the cards set aside ({aside['where']}) differ in what the rule counts, "
                         "so the odds depend on which go: narrow its `where`")
    had = {sig: n for n, sig in classes}
    sig = next(iter(sigs), None)
    if aside["cards"] and (sig is None or had[sig] < aside["cards"]):
        raise ValueError(f"draw {i + 1} sets aside {aside['cards']} cards where {aside['where']}; "
                         f"there are {0 if sig is None else had[sig]}")
    return [(n - (aside["cards"] if s == sig else 0), s) for n, s in classes]


@register("draw_odds", required=("draw",), args={
    "draw": {"anyOf": [DRAW, {"type": "array", "items": DRAW, "minItems": 1}],
             "description": "{from: cards, cards: N}, or a list of them (a hand drawn from several decks)"},
    **CONDITIONS, **BOUNDS,
    "holds": {"type": "string", "description": "JMESPath over the hand as `it`, the hand only (Monte Carlo)"},
    "samples": {"type": "integer", "minimum": 100, "maximum": 1000000}, "seed": {"type": "integer"}})
def draw_odds(ctx, args) -> Iterable[Failure]:
    """The probability that a hand drawn at random (without replacement, from one deck or
    several) meets the conditions lies within p_min..p_max: exact (multivariate
    hypergeometric) for `where`/`all` counts, a seeded Monte Carlo estimate for `holds`."""
    draws = _draws(ctx, args)
    conditions = _conditions(args)
    if "holds" in args:
        if any(aside for _, _, aside in draws):
            raise ValueError("set_aside goes with `where`/`all` (exact), not with `holds`")
        pools = json.dumps([_kept_to_what_is_read([cards for cards, _, _ in draws], args["holds"], conditions),
                            [n for _, n, _ in draws]], sort_keys=True, default=str)
        estimate = _monte_carlo(pools, args["holds"], json.dumps(conditions, sort_keys=True),
                                args.get("samples", SAMPLES), args.get("seed", 0),
                                (args.get("p_min", 0.0), args.get("p_max", 1.0)))
        asked = " and ".join([args["holds"], *(_asked(c) for c in conditions)])
    else:
        if not conditions:
            raise ValueError("draw_odds needs `where` (with at_least, at_most or exactly), `all`, or `holds`")
        tests = [_matcher(ctx, c["where"]) for c in conditions]
        dist: dict[Counts, float] = {(0,) * len(tests): 1.0}
        for i, (cards, n, aside) in enumerate(draws):
            classes = _classes(cards, tests)
            if aside:
                classes = _set_aside(ctx, classes, cards, tests, aside, i)
            dist = convolve(dist, hand_distribution(classes, n))
        estimate = Estimate(chance(dist, lambda counts: all(_ok(k, c) for k, c in zip(counts, conditions))))
        asked = " and ".join(_asked(c) for c in conditions)
    yield from _judge(args, estimate, f"a hand holds {asked}")


def _kept_to_what_is_read(pools: list[list], holds: str, conditions: list[dict]) -> list[list]:
    """The pools' cards kept to the fields `holds` and the conditions read, where those are
    known (cardfields.py: they then give the same results): the estimate is then remembered
    (`_monte_carlo`) across edits of what they never read, a card's text say."""
    read = [fields_read(holds, HAND), *(fields_read(c["where"], ONE_CARD) for c in conditions)]
    known = [fields for fields in read if fields is not None]
    if len(known) < len(read):
        return pools
    return [kept_to(cards, frozenset().union(*known)) for cards in pools]


@functools.lru_cache(maxsize=64)
def _monte_carlo(pools: str, holds: str, conditions: str, samples: int, seed: int,
                 decide: tuple[float, float]) -> Estimate:
    """The Monte Carlo estimate of `holds` (JMESPath over the hand as `it`) and `conditions` on
    hands drawn from `pools` (JSON: [[cards of each draw], [cards drawn]]): a pure function of
    its arguments, so a pool met again (the same cards, another rule of a mutated game) is not
    sampled twice in one process."""
    cards, drawn = json.loads(pools)
    compiled = compile_expr(holds)
    tests = [(_matcher(None, c["where"]), c) for c in json.loads(conditions)]

    def meets(hand: list) -> bool:
        return all(_ok(sum(t(card) for card in hand), c) for t, c in tests) and \
            bool(search(compiled, {"it": hand}))
    return monte_carlo(cards, drawn, meets, samples, seed, decide)


SLOT = {"type": "object", "required": ["cards"], "additionalProperties": False, "properties": {
    "cards": COUNT, "from": SELECTION,
    "by": {"type": "string", "description": "JMESPath over one card: the value the weights choose (rarity)"},
    "weights": {"type": "object", "additionalProperties": {"type": "number", "exclusiveMinimum": 0}}}}


@register("pack_odds", required=("from", "slots"), args={
    "from": SELECTION, "slots": {"type": "array", "items": SLOT, "minItems": 1},
    **CONDITIONS, **BOUNDS, "mean_min": NUMBER, "mean_max": NUMBER})
def pack_odds(ctx, args) -> Iterable[Failure]:
    """A booster pack of slots: each card of a slot picks a value of `by` (a rarity) by its
    weight, then a printed card of that value at random (with replacement, as from a print
    run). Bounds the expected number of cards meeting the first condition (mean_min, mean_max)
    and the probability that a pack meets all of them (p_min, p_max). Exact."""
    conditions = _conditions(args)
    if not conditions:
        raise ValueError("pack_odds needs `where` or `all`")
    tests = [_matcher(ctx, c["where"]) for c in conditions]
    dist: dict[Counts, float] = {(0,) * len(tests): 1.0}
    mean = 0.0
    for i, slot in enumerate(args["slots"]):
        cards = selected(ctx, slot, "from", CARDS) if "from" in slot else selected(ctx, args, "from", CARDS)
        one = _slot_card(cards, slot, tests, i)
        mean += slot["cards"] * math.fsum(p for sig, p in one.items() if sig[0])
        dist = convolve(dist, repeated(one, slot["cards"]))
    lo, hi = _mean_bounds(ctx, args)
    if not lo <= mean <= hi:
        expected = _between(args, lo, hi)
        yield Failure(round(mean, 6), f"mean {expected}", None, fields={"mean": round(mean, 6)},
                      note=f"a pack holds {mean:.4f} cards where {conditions[0]['where']} on average (exact); "
                           f"the rule asks {expected}")
    if "p_min" in args or "p_max" in args:
        p = chance(dist, lambda counts: all(_ok(k, c) for k, c in zip(counts, conditions)))
        yield from _judge(args, Estimate(p), "a pack holds " + " and ".join(_asked(c) for c in conditions))


def _slot_card(cards: list, slot: dict, tests: list, i: int) -> dict[Counts, float]:
    """One card of a slot: {which conditions it meets: probability}."""
    if "weights" not in slot:
        classes = _classes(cards, tests)
        total = sum(n for n, _ in classes)
        if not total:
            raise ValueError(f"slot {i + 1} draws from no cards")
        return {sig: n / total for n, sig in classes}
    if "by" not in slot:
        raise ValueError(f"slot {i + 1} has weights but no `by` naming what they weigh")
    by = compile_expr(slot["by"])
    groups: dict[str, list] = defaultdict(list)
    for card in cards:
        groups[str(search(by, {**card, "it": card}))].append(card)
    weights = {str(k): float(w) for k, w in slot["weights"].items()}
    empty = sorted(v for v in weights if not groups.get(v))
    if empty:
        raise ValueError(f"slot {i + 1} weighs {', '.join(empty)} but no card has {slot['by']} of that value "
                         f"(the values: {', '.join(sorted(groups))})")
    whole = math.fsum(weights.values())
    one: dict[Counts, float] = defaultdict(float)
    for value, w in weights.items():
        for n, sig in _classes(groups[value], tests):
            one[sig] += w / whole * n / len(groups[value])
    return dict(one)


@register("deal_odds", required=("from", "rows", "where"), args={
    "from": SELECTION, "rows": {"anyOf": [SELECTION, {"type": "array", "items": {"type": "object"}}]},
    "hands": {"type": ["string", "integer"], "description": "a row's key holding the hands dealt, or a number"},
    "cards": {"type": ["string", "integer"], "description": "a row's key holding the cards per hand, or a number"},
    "where": WHERE, "each_at_least": COUNT, "each_at_most": COUNT, **BOUNDS,
    "sum": {"type": "string", "description": "a card's numeric field: its expected total in one hand"},
    "mean_min": NUMBER, "mean_max": NUMBER})
def deal_odds(ctx, args) -> Iterable[Failure]:
    """A dealing scheme, one deal per row of a table (players, hands, cards per hand): the
    probability that EVERY hand holds each_at_least..each_at_most cards meeting `where` lies
    within p_min..p_max, and the expected number of them (or the total of the field `sum`) in
    one hand within mean_min..mean_max. Exact."""
    cards = selected(ctx, args, "from", CARDS)
    rows = selected(ctx, args, "rows", {"type": "array", "items": {"type": "object"}, "description": "a list of rows"})
    test = _matcher(ctx, args["where"])
    matching = sum(1 for card in cards if test(card))
    if "sum" in args:
        values = [card.get(args["sum"]) for card in cards]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            raise ValueError(f"sum: '{args['sum']}' is not a number on every card")
        total = math.fsum(values)
    for row in rows:
        hands, per_hand = _row_number(row, args.get("hands", "hands")), _row_number(row, args.get("cards", "cards"))
        if hands * per_hand > len(cards):
            yield Failure(hands * per_hand, f"at most {len(cards)} cards dealt", None, fields=dict(row),
                          note=f"{hands} hands of {per_hand} need {hands * per_hand} cards; "
                               f"the deck holds {len(cards)}")
            continue
        if "sum" in args:
            mean, what = per_hand * total / len(cards), f"{args['sum']} in a hand"
        else:
            mean, what = per_hand * matching / len(cards), f"cards where {args['where']} in a hand"
        lo, hi = _mean_bounds(ctx, args)
        if not lo <= mean <= hi:
            expected = _between(args, lo, hi)
            yield Failure(round(mean, 6), f"mean {expected}", None, fields={**row, "mean": round(mean, 6)},
                          note=f"{hands} hands of {per_hand}: {mean:.4f} {what} on average (exact); the rule asks "
                               f"{expected}")
        if "p_min" in args or "p_max" in args:
            least, most = args.get("each_at_least", 0), args.get("each_at_most")
            p = every_hand(len(cards), matching, hands, per_hand, least, most)
            span = f"at least {least}" if most is None else f"{least}..{most}"
            yield from _judge(args, Estimate(p), f"every one of {hands} hands of {per_hand} holds {span} where "
                                                 f"{args['where']}", fields=row)


def _between(args: dict, lo: float, hi: float) -> str:
    return " and ".join([f"at least {lo}"] * ("mean_min" in args) + [f"at most {hi}"] * ("mean_max" in args))


def _mean_bounds(ctx, args: dict) -> tuple[float, float]:
    number = {"type": "number", "description": "a number"}
    return (selected(ctx, args, "mean_min", number) if "mean_min" in args else -math.inf,
            selected(ctx, args, "mean_max", number) if "mean_max" in args else math.inf)


def _row_number(row: dict, key) -> int:
    if isinstance(key, int):
        return key
    value = row.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"the row {dict(row)} has no whole number '{key}'")
    return value
