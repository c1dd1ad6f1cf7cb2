"""The game as one JSON-like document for rules to query, and a map back to the YAML.

In: a loaded `Game`. Out: `GameDocument`: `doc` (what JMESPath sees: `decks`, `cards`,
`printed`, `copies`, `data`, `game`) and `locate(value)`, which turns anything a rule selected
(a card, a data-table row, a list of them) back into a file, a line and card ids.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..data.yamlsrc import line_of

SMALL = 5  # up to this many items, a finding points at an item rather than at their list


@dataclass(frozen=True)
class Location:
    file: str | None = None
    line: int | None = None
    cards: tuple[str, ...] = ()


@dataclass
class GameDocument:
    doc: dict
    _index: dict = field(default_factory=dict)

    def locate(self, value) -> Location:
        """Where `value` (or the items of a list value) was written."""
        hit = self._index.get(id(value))
        if hit is not None:
            return hit
        if isinstance(value, list) and value:
            found = (self._index.get(id(v)) for v in value)
            locs: list[Location] = [loc for loc in found if loc is not None]
            if not locs:
                return Location()
            cards = tuple(dict.fromkeys(c for loc in locs for c in loc.cards))
            file = Counter(loc.file for loc in locs).most_common(1)[0][0]
            line = min((loc.line for loc in locs if loc.file == file and loc.line), default=None)
            deck_line = self._index.get(("deck-cards", file))
            if len(locs) <= SMALL:  # a few items: point at the last one in that file (a duplicate, say)
                line = [loc.line for loc in locs if loc.file == file][-1]
            elif cards and len({loc.file for loc in locs}) == 1 and deck_line:
                line = deck_line  # many cards of one deck: point at the deck's card list
            return Location(file, line, cards)
        return Location()


def build_document(game) -> GameDocument:
    gd = GameDocument(doc={})
    index = gd._index
    decks, all_cards, all_copies = {}, [], []
    for deck in game.decks:
        cards, copies = [], []
        for card in deck.cards:
            d = dict(card.context(), deck=deck.id)
            index[id(d)] = Location(card.source.file, card.source.line, (card.id,))
            cards.append(d)
            copies.extend([d] * card.count)
        # one name, one meaning, as in templates and the rulebook: `designs` and `copies` are
        # numbers, `cards` (one per design) and `printed` (one per printed copy) are lists
        entry = {"id": deck.id, "name": deck.name, "kind": deck.kind, "designs": len(cards),
                 "copies": len(copies), "cards": cards, "printed": copies,
                 "trim_w": deck.trim_w, "trim_h": deck.trim_h}  # mm, as templates see them
        index[id(entry)] = Location(deck.source.file, deck.source.line)
        cards_line = line_of(deck.raw, ("cards",))
        index[("deck-cards", deck.source.file)] = cards_line
        for lst in (cards, copies):
            index[id(lst)] = Location(deck.source.file, cards_line, tuple(c["id"] for c in cards))
        decks[deck.id] = entry
        all_cards.extend(cards)
        all_copies.extend(copies)
    data = {name: _plain(value, game.data_sources[name], index) for name, value in game.data.items()}
    meta = {k: v for k, v in game.meta.items() if k not in ("decks", "data")}
    gd.doc.update(decks=decks, cards=all_cards, printed=all_copies, copies=len(all_copies), data=data,
                  game=_plain(meta, None, {}))
    return gd


def _plain(value, file, index):
    """A plain dict/list copy of YAML data (JMESPath checks types by exact class), with each
    copied mapping and list indexed to the line it came from."""
    if isinstance(value, dict):
        copy = {k: _plain(v, file, index) for k, v in value.items()}
    elif isinstance(value, list):
        copy = [_plain(v, file, index) for v in value]
    else:
        return value
    index[id(copy)] = Location(file, getattr(value, "line", None))
    return copy
