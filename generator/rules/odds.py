"""Draw odds, exactly: the arithmetic behind the `draw_odds`, `pack_odds` and `deal_odds` rules.

In: cards sorted into classes (how many printed copies each class has, and which of a rule's
conditions a card of the class meets), the cards drawn, dealt or packed. Out: probabilities
and expected values. Exact ones are multivariate hypergeometric (drawn without replacement)
or binomial (a pack's slots, drawn with replacement), counted with `math.comb` in integers and
divided once; a condition with no closed form is estimated by a seeded Monte Carlo run whose
error bound is three standard errors (`Estimate`).
"""
from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

Counts = tuple[int, ...]       # how many drawn cards meet each condition
SIGMAS = 3                     # a Monte Carlo estimate's bound: this many standard errors


@dataclass(frozen=True)
class Estimate:
    """A probability: exact (`bound` 0) or a Monte Carlo estimate within `bound` (3 standard errors)."""
    p: float
    bound: float = 0.0
    samples: int = 0
    seed: int | None = None

    @property
    def exact(self) -> bool:
        return self.samples == 0

    def describe(self) -> str:
        if self.exact:
            return f"P = {self.p:.6g} (exact)"
        return (f"P = {self.p:.6g} ± {self.bound:.2g} (Monte Carlo: {self.samples} draws, seed {self.seed}; "
                f"± is {SIGMAS} standard errors)")


def compositions(total: int, caps: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every way to take `total` items from classes holding `caps` items: (k1, k2, ...)."""
    if not caps:
        if total == 0:
            yield ()
        return
    rest = sum(caps[1:])
    for k in range(max(0, total - rest), min(caps[0], total) + 1):
        for tail in compositions(total - k, caps[1:]):
            yield (k, *tail)


def hand_distribution(classes: Sequence[tuple[int, Counts]], drawn: int) -> dict[Counts, float]:
    """The distribution of a hand of `drawn` cards taken without replacement from a pool whose
    classes are (copies, which conditions a card of the class meets as 0/1 per condition):
    {counts meeting each condition: probability}. Multivariate hypergeometric, exact.

    :raises ValueError: more cards drawn than the pool holds.
    """
    size = sum(n for n, _ in classes)
    if drawn > size:
        raise ValueError(f"a hand of {drawn} from {size} cards: the pool is too small")
    width = len(classes[0][1]) if classes else 0
    weights: dict[Counts, int] = defaultdict(int)
    for ks in compositions(drawn, [n for n, _ in classes]):
        ways = math.prod(math.comb(n, k) for (n, _), k in zip(classes, ks))
        counts = tuple(sum(k * sig[i] for (_, sig), k in zip(classes, ks)) for i in range(width))
        weights[counts] += ways
    whole = math.comb(size, drawn)
    return {counts: ways / whole for counts, ways in weights.items()}


def repeated(one: dict[Counts, float], times: int) -> dict[Counts, float]:
    """The distribution of `times` independent cards each distributed as `one` (a pack's slot,
    drawn with replacement): {counts: probability}."""
    width = len(next(iter(one))) if one else 0
    out: dict[Counts, float] = {(0,) * width: 1.0}
    for _ in range(times):
        out = convolve(out, one)
    return out


def convolve(a: dict[Counts, float], b: dict[Counts, float]) -> dict[Counts, float]:
    """The distribution of the sum of two independent count vectors."""
    out: dict[Counts, float] = defaultdict(float)
    for ca, pa in a.items():
        for cb, pb in b.items():
            out[tuple(x + y for x, y in zip(ca, cb))] += pa * pb
    return dict(out)


def chance(distribution: dict[Counts, float], holds: Callable[[Counts], bool]) -> float:
    """P(the counts meet `holds`), summed from the smallest terms up (for round-off)."""
    return math.fsum(p for counts, p in distribution.items() if holds(counts))


def every_hand(pool: int, matching: int, hands: int, per_hand: int, least: int, most: int | None) -> float:
    """P(each of `hands` hands of `per_hand` cards, dealt from `pool` cards of which `matching`
    meet a condition, holds between `least` and `most` of them). Exact: the matching cards
    spread over the hands and the undealt rest as a multivariate hypergeometric.

    :raises ValueError: the deal needs more cards than the pool holds.
    """
    rest = pool - hands * per_hand
    if rest < 0:
        raise ValueError(f"{hands} hands of {per_hand} need {hands * per_hand} cards; the pool holds {pool}")
    top = min(per_hand, matching) if most is None else min(per_hand, matching, most)
    ways = 0

    def spread(left: int, hands_left: int, product: int) -> None:
        nonlocal ways
        if hands_left == 0:
            if left <= rest:
                ways += product * math.comb(rest, left)
            return
        for k in range(least, min(top, left) + 1):
            spread(left - k, hands_left - 1, product * math.comb(per_hand, k))
    spread(matching, hands, 1)
    return ways / math.comb(pool, matching)


BATCH = 500   # a Monte Carlo run looks at its estimate after every this many draws (at least two batches)


def monte_carlo(pools: Sequence[Sequence], drawn: Sequence[int], holds: Callable[[list], bool],
                samples: int, seed: int, decide: tuple[float, float] | None = None) -> Estimate:
    """Estimate P(`holds(hand)`), a hand being `drawn[i]` cards from each of `pools` (seeded:
    the same estimate every run). The bound is `SIGMAS` standard errors of the estimate (at
    least that of one success in the draws made, so a probability estimated as 0 or 1 has one).

    :param decide: (low, high): stop before `samples` draws once the estimate with its bound
        lies wholly inside low..high or wholly outside it (checked every BATCH draws, from
        the second): the verdict is then settled, and the bound stated is that of the draws made.
    """
    rng = random.Random(seed)
    hits = made = 0
    while made < samples:
        for _ in range(min(BATCH, samples - made)):
            hand: list = []
            for pool, n in zip(pools, drawn):
                hand.extend(rng.sample(pool, n))
            hits += bool(holds(hand))
            made += 1
        estimate = _estimate(hits, made, seed)
        if decide is not None and made >= 2 * BATCH and _settled(estimate, *decide):
            break
    return _estimate(hits, made, seed)


def _estimate(hits: int, made: int, seed: int) -> Estimate:
    p = hits / made
    spread = max(p * (1 - p), (1 - 1 / made) / made)
    return Estimate(p, SIGMAS * math.sqrt(spread / made), made, seed)


def _settled(e: Estimate, low: float, high: float) -> bool:
    inside = low <= e.p - e.bound and e.p + e.bound <= high
    outside = e.p + e.bound < low or e.p - e.bound > high
    return inside or outside
