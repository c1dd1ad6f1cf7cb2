"""`pnp changes A..B`: the errata between two versions of a game, card by card.

In: a project folder, a game, a range of versions (`A..B` of git refs; `A` or `A..` is A and
the working tree; `last` is the last build's record, `changes.py`) and a session. Out: an
`Errata`: per component what changed, each classed (`KINDS`: text with a word-level diff,
count +/-, added, removed, art only, back only), how many copies to reprint and to pull, and
each version's short card id (`draw/cardid.py`); as plain data (`as_data`) and text
(`as_text`). "Changed" is `changes.py`'s: a face whose draw key differs prints differently;
a card whose text changed but whose faces did not is not listed. The game at a ref is read
by `changes.checkout` (git archive under output/.cache/refs/), as untrusted as any input.
`erratapack.py` draws the changelog sheet and the reprint pack from it.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from . import changes
from .changes import CardFacts, facts_of
from .data.load import load_game
from .data.model import Game
from .errors import InputError
from .session import Session

NOW = "now"
KINDS = ("text", "count", "added", "removed", "art", "back")
MAX_WORDS = 2000   # a field longer than this is diffed as one block (difflib is quadratic)


@dataclass(frozen=True)
class Version:
    label: str                  # the ref as given, "now" or "last"
    game: Game | None = None    # the loaded game (None: the last build's record, or no such game)
    keys: dict = field(default_factory=dict)     # component -> its faces' draw keys
    cards: dict = field(default_factory=dict)    # component -> CardFacts


@dataclass(frozen=True)
class Change:
    id: str
    name: str
    deck: str
    kinds: tuple[str, ...]
    count: tuple[int, int]       # copies before, after
    words: dict                  # field -> [(op, text)]: "=" kept, "-" struck, "+" new
    short: tuple[str, str]       # short ids before, after ("" where absent)

    @property
    def reprint(self) -> int:
        """Copies to print: all of them when the faces changed or the card is new, else the ones added."""
        before, after = self.count
        return self._copies("added", after, before)

    @property
    def pull(self) -> int:
        """Printed copies to take out of the box: all when the faces changed or it is gone."""
        before, after = self.count
        return self._copies("removed", before, after)

    def _copies(self, whole: str, these: int, those: int) -> int:
        """All of `these` when the faces changed (or the card is `whole`: added, removed),
        else how many more there are of them than of `those`."""
        return these if {"text", "art", "back", whole} & set(self.kinds) else max(these - those, 0)


@dataclass(frozen=True)
class Errata:
    game: str
    old: str
    new: str
    changes: tuple[Change, ...]

    @property
    def any(self) -> bool:
        return bool(self.changes)


def split_range(spec: str) -> tuple[str, str]:
    """`A..B` -> (A, B); `A` and `A..` -> (A, now). `...` (git's symmetric range) is refused."""
    if "..." in spec:
        raise InputError(f"{spec!r}: give two versions as A..B (git's A...B is not a pair of versions)")
    old, sep, new = spec.partition("..")
    old, new = old.strip(), (new.strip() if sep else "") or NOW
    if not old:
        raise InputError(f"{spec!r}: name the earlier version (a git ref, or `last`: the last build)")
    if new == changes.LAST:
        raise InputError(f"{spec!r}: `last` (the last build) can only be the earlier version")
    return old, new


def version(root: Path, game_id: str, ref: str, out_dir: Path, session: Session) -> Version:
    """A game at a ref: now (the working tree), the last build (its record) or a git ref."""
    if ref == changes.LAST:
        keys = changes.last_build(out_dir, game_id)
        try:
            cards = {cid: CardFacts(**facts) for cid, facts in changes.last_cards(out_dir, game_id).items()}
        except TypeError:
            raise InputError(f"{game_id}: the last build's record was written by another version of pnp: "
                             "build once more, or give a git ref") from None
        return Version(ref, None, keys, cards)
    if ref == NOW:
        game = load_game(root, game_id, session)
    else:
        tree = changes.checkout(root, ref, out_dir)
        if not (tree / "cards" / game_id / "game.yaml").is_file():
            return Version(ref)
        game = load_game(tree, game_id, session)
    return Version(ref, game, changes.current(game, session)[1], facts_of(game))


def compare(old: Version, new: Version, game_id: str) -> Errata:
    """Every component that prints differently (or in other numbers) in `new` than in `old`,
    in `new`'s order, then those `new` lacks in `old`'s order."""
    found = []
    for cid, keys in new.keys.items():
        facts = new.cards[cid]
        if cid not in old.keys:
            found.append(Change(cid, facts.name, facts.deck, ("added",), (0, facts.count), {}, ("", facts.short)))
            continue
        was = old.cards.get(cid)
        before = old.keys[cid]
        kinds = []
        words = {}
        (fronts, back), (fronts_was, back_was) = _sides(keys, facts), _sides(before, was or facts)
        if fronts != fronts_was:   # every face of a die; a record without the cards' texts: "text", no words
            words = word_diffs(was.texts, facts.texts) if was else {}
            kinds.append("text" if words or was is None else "art")
        elif back != back_was:
            kinds.append("back")
        count = (was.count if was else facts.count, facts.count)
        if count[0] != count[1]:
            kinds.append("count")
        if kinds:
            found.append(Change(cid, facts.name, facts.deck, tuple(kinds), count, words,
                                (was.short if was else "", facts.short)))
    for cid in old.keys:
        if cid not in new.keys:
            was = old.cards.get(cid) or CardFacts(cid, "", 0, {}, "")
            found.append(Change(cid, was.name, was.deck, ("removed",), (was.count, 0), {}, (was.short, "")))
    return Errata(game_id, old.label, new.label, tuple(found))


def _sides(keys: list, facts: CardFacts | None) -> tuple[list, object]:
    """(front keys, back key or None) of a component's draw keys."""
    if facts is not None and facts.backed and keys:
        return list(keys[:-1]), keys[-1]
    return list(keys), None


def word_diffs(old: dict, new: dict) -> dict[str, list[tuple[str, str]]]:
    """{field: its words diffed} for every text that differs (a field added or dropped too)."""
    return {k: words(old.get(k, ""), new.get(k, "")) for k in dict.fromkeys([*new, *old])
            if old.get(k, "") != new.get(k, "")}


def words(old: str, new: str) -> list[tuple[str, str]]:
    """A word-level diff: runs of ("=", kept words), ("-", struck words), ("+", new words)."""
    a, b = old.split(), new.split()
    if len(a) > MAX_WORDS or len(b) > MAX_WORDS:
        return [op for op in (("-", old), ("+", new)) if op[1]]
    out: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(("=", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(("-", " ".join(a[i1:i2])))
        if j2 > j1:
            out.append(("+", " ".join(b[j1:j2])))
    return out


def errata(root: Path, game_id: str, spec: str, out_dir: Path, session: Session) -> tuple[Errata, Version, Version]:
    """The errata of a game over `spec` (A..B), with both versions."""
    a, b = split_range(spec)
    old = version(root, game_id, a, out_dir, session)
    new = version(root, game_id, b, out_dir, session)
    if old.game is None and new.game is None and a != changes.LAST:
        raise InputError(f"{game_id}: no such game at {a} nor at {b}")
    return compare(old, new, game_id), old, new


def as_data(e: Errata) -> dict:
    """The errata as JSON-ready data: every change, and the pull list."""
    return {"game": e.game, "from": e.old, "to": e.new,
            "changes": [{"id": c.id, "name": c.name, "deck": c.deck, "kinds": list(c.kinds),
                         "count": {"before": c.count[0], "after": c.count[1]},
                         "short_id": {"before": c.short[0], "after": c.short[1]},
                         "reprint": c.reprint, "pull": c.pull,
                         "words": {k: [list(op) for op in ops] for k, ops in c.words.items()}}
                        for c in e.changes],
            "pull_list": pull_list(e)}


def pull_list(e: Errata) -> list[dict]:
    """The printed cards to take out of the box: name, short id as printed, copies."""
    return [{"id": c.id, "name": c.name, "short_id": c.short[0], "copies": c.pull, "why": _why(c)}
            for c in e.changes if c.pull]


def _why(c: Change) -> str:
    if "removed" in c.kinds:
        return "removed"
    if set(c.kinds) & {"text", "art", "back"}:
        return "replaced by a reprint"
    return "one copy fewer" if c.pull == 1 else f"{c.pull} copies fewer"


def describe(c: Change) -> str:
    """One line of what changed on a card: `text`, `count +1`, `added`, `art only`..."""
    parts = []
    for kind in c.kinds:
        if kind == "count":
            delta = c.count[1] - c.count[0]
            parts.append(f"count {delta:+d} ({c.count[0]} -> {c.count[1]})")
        else:
            parts.append({"art": "art only", "back": "back only"}.get(kind, kind))
    return ", ".join(parts)


def as_text(e: Errata) -> str:
    """The errata as text: a line per card (its word diff below it: [-struck-] {+new+}), then the pull list."""
    if not e.any:
        return f"{e.game}: no card changed from {e.old} to {e.new}"
    lines = [f"{e.game}: {len(e.changes)} card{'s' if len(e.changes) != 1 else ''} changed from {e.old} to {e.new}"]
    for c in e.changes:
        ident = f" [{c.short[1] or c.short[0]}]" if (c.short[1] or c.short[0]) else ""
        lines.append(f"  {c.deck}/{c.id} {c.name}{ident}: {describe(c)}")
        for key, ops in c.words.items():
            shown = " ".join({"=": t, "-": f"[-{t}-]", "+": f"{{+{t}+}}"}[op] for op, t in ops)
            lines.append(f"      {key}: {shown}")
    pulls = pull_list(e)
    if pulls:
        lines.append(f"{e.game}: pull from the box:")
        lines += [f"  {p['copies']} x {p['name']}" + (f" [{p['short_id']}]" if p["short_id"] else "")
                  + f" ({p['why']})" for p in pulls]
    reprint = sum(c.reprint for c in e.changes)
    lines.append(f"{e.game}: {reprint} card{'s' if reprint != 1 else ''} to reprint")
    return "\n".join(lines)
