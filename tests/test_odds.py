"""Odds as rules: exact draw, pack and deal odds against brute force, Monte Carlo within its
bound, and a lowered count failing `pnp validate` at the rule's line."""
from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

from generator.rules.functions import compile_expr
from generator.rules.odds import Estimate, chance, convolve, every_hand, hand_distribution, monte_carlo, repeated
from tests.conftest import named, run

COLOURS = ("red", "blue", "gold")


def _deck(rng, size_max=5):
    """A small random deck: designs with a colour and a cost, each printed 1-3 times."""
    designs = [{"id": f"c{i}", "colour": rng.choice(COLOURS), "cost": rng.randint(0, 3)}
               for i in range(rng.randint(2, size_max))]
    return [d for d in designs for _ in range(rng.randint(1, 3))][:10]


def _condition(rng):
    kind = rng.choice(("colour", "cost"))
    if kind == "colour":
        test = (lambda c, v=rng.choice(COLOURS): c["colour"] == v)
    else:
        test = (lambda c, v=rng.randint(0, 3): c["cost"] >= v)
    bound = rng.choice(("at_least", "at_most", "exactly"))
    n = rng.randint(0, 3)
    return test, {"at_least": lambda k: k >= n, "at_most": lambda k: k <= n, "exactly": lambda k: k == n}[bound]


def _classes(cards, tests):
    sigs = [tuple(int(t(c)) for t in tests) for c in cards]
    return [(sigs.count(s), s) for s in sorted(set(sigs))]


def test_exact_odds_agree_with_brute_force_on_200_random_decks():
    rng = random.Random(40)
    for _ in range(200):
        decks = [_deck(rng) for _ in range(rng.choice((1, 1, 2)))]
        drawn = [rng.randint(0, min(4 if len(decks) == 1 else 2, len(d))) for d in decks]
        conditions = [_condition(rng) for _ in range(rng.randint(1, 2))]
        tests = [t for t, _ in conditions]
        dist = {(0,) * len(tests): 1.0}
        for deck, n in zip(decks, drawn):
            dist = convolve(dist, hand_distribution(_classes(deck, tests), n))
        exact = chance(dist, lambda ks, cs=conditions: all(ok(k) for k, (_, ok) in zip(ks, cs)))
        # brute force: every hand of positions from each deck, equally likely
        hands = list(itertools.product(*(itertools.combinations(range(len(d)), n) for d, n in zip(decks, drawn))))
        good = sum(all(ok(sum(t(decks[i][j]) for i, part in enumerate(hand) for j in part)) for t, ok in conditions)
                   for hand in hands)
        assert abs(exact - good / len(hands)) <= 1e-9, (decks, drawn)


def test_deal_odds_agree_with_brute_force():
    rng = random.Random(7)
    for _ in range(30):
        pool = rng.randint(3, 7)
        matching = rng.randint(0, pool)
        hands = rng.randint(1, 3)
        per_hand = rng.randint(1, pool // hands)
        least, most = rng.randint(0, 2), rng.choice((None, 1, 2))
        deals = list(_deals(list(range(pool)), hands, per_hand, matching))   # every deal equally likely
        good = sum(all(least <= k and (most is None or k <= most) for k in counts) for counts in deals)
        assert abs(every_hand(pool, matching, hands, per_hand, least, most) - good / len(deals)) <= 1e-9


def _deals(left, hands, per_hand, matching):
    """The matching cards (numbered below `matching`) in each hand, for every deal: each hand a
    combination of the cards left."""
    if hands == 0:
        yield []
        return
    for hand in itertools.combinations(left, per_hand):
        for rest in _deals([c for c in left if c not in hand], hands - 1, per_hand, matching):
            yield [sum(c < matching for c in hand), *rest]


def test_pack_odds_agree_with_brute_force():
    # a slot of 2 cards with replacement from {rare: 1 gold of 2, common: 1 gold of 4} weighted 1:3
    one = {(1,): Fraction(1, 4) * Fraction(1, 2) + Fraction(3, 4) * Fraction(1, 4)}
    one[(0,)] = 1 - one[(1,)]
    pack = repeated({k: float(v) for k, v in one.items()}, 3)
    brute = sum(math.prod(one[(b,)] for b in bits) for bits in itertools.product((0, 1), repeat=3) if sum(bits) >= 2)
    assert abs(chance(pack, lambda ks: ks[0] >= 2) - float(brute)) <= 1e-12


def test_monte_carlo_lies_within_three_standard_errors_and_is_seeded():
    rng = random.Random(3)
    for _ in range(5):
        deck = _deck(rng, 9)
        test, ok = _condition(rng)
        n = rng.randint(1, min(5, len(deck)))
        exact = chance(hand_distribution(_classes(deck, [test]), n), lambda ks, ok=ok: ok(ks[0]))

        def holds(hand, test=test, ok=ok):
            return ok(sum(test(c) for c in hand))
        est = monte_carlo([deck], [n], holds, 4000, seed=11)
        assert abs(est.p - exact) <= est.bound, (est, exact)
        assert est == monte_carlo([deck], [n], holds, 4000, seed=11)
        assert "3 standard errors" in est.describe() and Estimate(exact).describe().endswith("(exact)")
    compile_expr("length(it)")  # the rules' JMESPath is what `holds` is written in


MINI_CARDS = """
- {id: rookie, name: Rookie, text: a, cost: 1, count: 6}
- {id: pro, name: Pro, text: b, cost: 3, count: 4}
"""
RULES = """rules:
  - id: rookie-in-opening-hand
    message: "an opening hand of 3 holds a Rookie too rarely"
    check: draw_odds
    args:
      draw: {from: decks.things.printed, cards: 3}
      where: "cost == `1`"
      at_least: 1
      p_min: 0.9
"""


def test_a_lowered_count_trips_the_odds_rule_at_its_line(mini):
    root = mini(MINI_CARDS)
    (root / "cards/mini/rules.yaml").write_text(RULES)
    named(root / "cards" / "mini", "rules")
    ok = run(root, "validate", "mini", "--no-render")
    assert ok.exit_code == 0, ok.output    # P = 1 - C(4,3)/C(10,3) = 0.9667
    game_deck = root / "cards/mini/deck.yaml"
    game_deck.write_text(game_deck.read_text().replace("cost: 1, count: 6", "cost: 1, count: 3"))
    failed = run(root, "validate", "mini", "--no-render", "--format", "github")
    assert failed.exit_code == 1, failed.output
    # P = 1 - C(4,3)/C(7,3) = 31/35
    assert ("::error file=cards/mini/rules.yaml,line=2,title=mini/rookie-in-opening-hand::an opening hand of 3 "
            "holds a Rookie too rarely (P = 0.885714 (exact)") in failed.output
    assert "the rule asks at least 0.9" in failed.output
    for fmt, needle in (("json", '"line": 2'), ("junit", "rules.yaml:2"), ("text", "rules.yaml:2: error")):
        out = run(root, "validate", "mini", "--no-render", "--format", fmt).output
        assert needle in out and "0.885714" in out, (fmt, out)


ROSTER = """rules:
  - id: market-after-rosters
    message: "the market shows a Pro too rarely"
    check: draw_odds
    args:
      draw:
        from: decks.things.printed
        cards: 2
        set_aside: {where: "cost == `1`", cards: 2}
      where: "cost == `3`"
      at_least: 1
      p_min: 0.6
"""


def test_cards_set_aside_leave_the_pool_before_the_draw(mini):
    root = mini("- {id: d, name: D, text: a, cost: 1, count: 4}\n- {id: o, name: O, text: b, cost: 2, count: 4}\n"
                "- {id: p, name: P, text: c, cost: 3, count: 3}")
    (root / "cards/mini/rules.yaml").write_text(ROSTER)
    named(root / "cards" / "mini", "rules")
    out = run(root, "validate", "mini", "--no-render")
    assert out.exit_code == 1 and "P = 0.583333 (exact)" in out.output   # 1 - C(6,2)/C(9,2)
    # cards set aside that count differently for the rule: which go would change the odds
    (root / "cards/mini/rules.yaml").write_text(ROSTER.replace('where: "cost == `1`"', 'where: "cost >= `2`"'))
    out = run(root, "validate", "mini", "--no-render")
    assert out.exit_code == 2 and "differ in what the rule counts" in out.output


SEES_FIELDS = {   # (expression, root) -> the card fields it reads
    ("covers_any(it[].energy, it[?deck=='rocket'].cost)", "hand"): {"energy", "deck", "cost"},
    ("length(it[?colour=='red']) >= `2`", "hand"): {"colour"},
    ("it[0:3].cost", "hand"): {"cost"},
    ("it[*].cost | max(@) > `2`", "hand"): {"cost"},
    ("sum(it[].cost) > `3` && length(it) > `1`", "hand"): {"cost"},
    ("it[?@.colour == 'gold'] | [0].cost", "hand"): {"colour", "cost"},
    ("colour == 'red'", "one card"): {"colour"},
    ("it.cost >= `2` || !id", "one card"): {"cost", "id"},
    ("contains(['red', 'blue'], colour)", "one card"): {"colour"},
}
SEES_CARDS = [   # a card seen whole (its count of keys, compared whole, sorted, all its values): no fields known
    ("it[0]", "hand"), ("length(it[0]) > `2`", "hand"), ("it[0] == it[1]", "hand"), ("sort_by(it, &cost)[0].cost", "hand"),
    ("it[0].* | length(@)", "hand"), ("it | [0]", "hand"), ("it[?@]", "hand"), ("length(keys(@)) > `3`", "one card"),
    ("it", "one card"), ("!it", "one card"), ("to_string(it)", "one card"), ("values(@)", "one card"),
    ("{a: it}", "one card"), ("[colour, it]", "one card"), ("not a ( jmespath", "hand"),
]


def test_the_fields_an_odds_expression_reads_are_known_or_it_sees_cards_whole():
    from generator.rules.cardfields import fields_read

    for (source, root), fields in SEES_FIELDS.items():
        assert fields_read(source, root) == fields, source
    for source, root in SEES_CARDS:
        assert fields_read(source, root) is None, source


def test_an_expression_whose_fields_are_known_gives_the_same_on_cards_kept_to_them():
    """Differential: every expression of both lists, on 300 random hands of random cards with
    extra fields (text, nested values, nulls), whole and kept to the fields read."""
    from generator.rules.cardfields import fields_read, kept_to
    from generator.rules.functions import search

    rng = random.Random(7)
    extra = ({"text": "a b"}, {"text": None}, {"nested": {"cost": 9}}, {"deck": "rocket"}, {"energy": "fuel"}, {})
    for _ in range(300):
        hand = [{**card, **rng.choice(extra), "id": card["id"] + rng.choice("xy")} for card in _deck(rng)]
        for (source, root), fields in SEES_FIELDS.items():
            kept = kept_to(hand, fields_read(source, root))
            if root == "hand":
                assert search(compile_expr(source), {"it": hand}) == search(compile_expr(source), {"it": kept}), source
            else:
                for whole, less in zip(hand, kept):
                    assert search(compile_expr(source), {**whole, "it": whole}) == \
                        search(compile_expr(source), {**less, "it": less}), source


def test_a_monte_carlo_rule_is_not_sampled_again_after_an_edit_of_what_it_never_reads(monkeypatch):
    """Meteor's opening-hand rule (`holds` over energy, rocket and technology cards): after
    one of those cards' text is edited, the rule is run again (it reads the deck) but its
    estimate is the one remembered; after a cost is edited it is sampled again."""
    from generator.data.load import load_game
    from generator.rules import drawchecks
    from generator.rules.document import build_document
    from generator.rules.engine import known_fields, load_rules, run_rules
    from generator.session import Session
    from tests.conftest import REPO

    game = load_game(REPO, "meteor", Session())
    rule = [r for r in load_rules(game, known_fields(build_document(game).doc, game))
            if r.id == "solo-opening-hand-builds-a-rocket"]
    sampled = []
    real = drawchecks.monte_carlo
    monkeypatch.setattr(drawchecks, "monte_carlo", lambda *a, **k: (sampled.append(1), real(*a, **k))[1])
    drawchecks._monte_carlo.cache_clear()

    def findings(edit=None):
        deck = next(d for d in game.decks if d.id == "rocket")
        card = deck.cards[0]
        if edit:
            card.fields.update(edit)
        return run_rules(game, rule, build_document(game))

    first = findings()
    assert len(sampled) == 1
    assert findings({"text": "Another text entirely."}) == first and len(sampled) == 1
    findings({"cost": 1})
    assert len(sampled) == 2
