"""Rendered face SVGs remembered from one build to the next (`pnp watch` re-renders only
the cards whose inputs changed), held by a remembering `Session` (session.py). A one-shot
build's session has a `Memo` that remembers nothing: it makes every value when asked and
builds no key (holding every SVG would only cost memory), so no stage asks which it has.
The bounded maps of a remembering session are cachetools' `LRUCache` (`Kept`; `Forgets`
is the one that keeps nothing).

In: what a face's Jinja render reads: the game's template folders (every file, icons
included), the game's and the deck's template contexts, the card's context, the side,
the template name and any extra variables (a die's face), plus the shipped fonts and
pnp's version (text is fitted from font metrics). Out: a key (sha256 hex) and, for a
key seen before, the SVG the render produced. Only successful renders are kept; a
render that failed is tried again on the next build, so its error is reported again.

A card name's words are protected from hyphenation in every face (draw/hyphenate.py); a
face's key takes only those its text boxes hold (`protected_key`), found by its render.

`game.decks` holds every card of the game, so it would make every face depend on every
card. It is part of a face's key only when the face can read it: when its template, a
template that one includes, imports or extends, or the card's own text (expanded by
fill()) mentions `decks`.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cachetools import LRUCache

LIMIT = 50_000          # faces remembered, least recently used dropped first
DERIVED_PER_FACE = 8    # facts kept about each (draw key, fonts, packed SVG, schema passed...)
FEW = 8                 # large values kept (finished rulebooks, their templates and blocks)
TEMPLATES = 4096        # template sources whose references a memo remembers


def protected_key(key: str, words, asked) -> str:
    """A face's `key` with the protected words its render looked up (`asked`; `words`: the
    text setter, textfit.TextSetter.asking): a card name's words are protected from
    hyphenation in every face, but an edited name changes only the faces whose text boxes
    hold one of the words it adds or takes away."""
    found = words.protected_among(asked) if words is not None else ()
    return hashlib.sha256(f"{key}\nprotected {' '.join(found)}".encode()).hexdigest() if found else key


def card_json(card_context) -> str:
    """A card's template context as JSON, as `key` takes it (made once for both sides)."""
    return _json(card_context)


def _json(value) -> str:
    return json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False)


class Kept(LRUCache):
    """The last values put, up to `limit` of them (or `limit` bytes as `size` measures
    them), least recently used dropped first (cachetools' `LRUCache`); a value larger than
    the whole limit is not kept. A remembering session's segments, furniture, rulebooks and
    pictures (session.py)."""

    def __init__(self, limit: int, size: Callable[[Any], int] | None = None):
        super().__init__(limit, getsizeof=size)

    def put(self, key, value) -> None:
        """Keep `value` under `key` (in place of what was kept under it: a segment moved)."""
        if self.getsizeof(value) <= self.maxsize:
            self[key] = value

    def keep(self, key, make: Callable[..., Any]) -> None:
        """`put(key, make())`: `make` is called only by a map that keeps (not by `Forgets`)."""
        self.put(key, make())


class Forgets:
    """A `Kept` that keeps nothing: what a session that remembers nothing holds."""

    def get(self, key, default=None):
        return default

    def put(self, key, value) -> None:
        pass

    def keep(self, key, make: Callable[..., Any]) -> None:
        pass

    def __len__(self) -> int:
        return 0


class Memo:
    """The memo of a session that remembers nothing: every value made when asked for, no
    key of it built, nothing kept. `RenderMemo` is the one that remembers."""

    def __init__(self) -> None:
        self._readers: dict[tuple, bool] = {}   # (template files digest, template) -> reads game.decks
        # sha256 of a template's source -> the templates it names (None: one by a variable),
        # or None when it cannot be parsed: a template is parsed once, whatever the edition
        self._named: LRUCache[str, tuple | None] = LRUCache(TEMPLATES)

    def scope(self, folders, game_context, salt: Callable[[], str]) -> tuple[str, str, str]:
        """Digests of what all of a game's faces share (`RenderMemo.scope`); none here."""
        return "", "", ""

    def deck_scope(self, scope: tuple[str, str, str], deck_context) -> tuple[str, str]:
        return "", ""

    def card_key(self, card_context) -> str:
        """A card's template context as `key` takes it (made once for both sides)."""
        return ""

    def face(self, key: Callable[..., str], render: Callable[..., str | None], words=None) -> str | None:
        """A face's SVG: `render()` (remembered under `key()` by a remembering memo; `words`:
        the text setter, whose protected words a face's key takes as `protected_key` says)."""
        return render()

    def derived(self, key: tuple, make: Callable[..., Any], few: bool = False):
        """`make()` (remembered under `key` by a remembering memo)."""
        return make()

    def unless_passed(self, key: Callable[..., tuple], check: Callable[..., list]) -> list:
        """The problems `check()` finds (none again, by a remembering memo, for what passed
        under `key()` before)."""
        return check()

    def parsed(self, key: tuple, parse: Callable[[], Any], copy: Callable[[Any], Any]):
        """`parse()` (a file's data, which its reader may change): a remembering memo parses
        once under `key` (the file's digest) and hands out a `copy` of what it keeps."""
        return parse()

    def recall(self, key: tuple, few: bool = False):
        """What `keep` kept under `key` (None: nothing was)."""
        return None

    def keep(self, key: tuple, value, few: bool = False) -> None:
        """Keep `value` under `key` (a remembering memo does)."""

    def recall_map(self, key: tuple, valid: Callable[[Any, Any], bool]) -> dict:
        """The map `keep` kept under `key`, to be added to and kept again (hyphenation
        points, glyph letters, line ends): its entries that are `valid(key, value)` (a value
        read back from disk is checked before use); the memo's own map when every entry is
        (a session holds one, however many builds), else a new one of those; {} when none."""
        found = self.recall(key)
        if not isinstance(found, dict):
            return {}
        if all(valid(k, v) for k, v in found.items()):
            return found
        return {k: v for k, v in found.items() if valid(k, v)}

    def carry(self, key: tuple) -> None:
        """What was kept under `key` kept on for the next build, though this one did not ask
        for it (a one-shot build's memo keeps only what its build used: diskmemo.py)."""

    def key(self, deck_scope: tuple[str, str], card_context, side: str, template: str, extra,
            reads_decks: bool) -> str:
        """The key of one face's render; `card_context` may be given as its JSON (`card_key`)."""
        card = card_context if isinstance(card_context, str) else _json(card_context)
        decks = deck_scope[1] if reads_decks or "decks" in card else ""
        return hashlib.sha256(f"{deck_scope[0]}\n{decks}\n{template}\n{side}\n{card}\n{_json(extra)}"
                              .encode()).hexdigest()

    def face_key(self, env, scope: tuple[str, str, str], deck_scope: tuple[str, str], card_context, side: str,
                 template: str, extra) -> str:
        """`key`, knowing whether the template reads `game.decks` (`reads_decks`)."""
        return self.key(deck_scope, card_context, side, template, extra, self.reads_decks(env, scope[2], template))

    def reads_decks(self, env, files: str, template: str) -> bool:
        """`reads_decks` for templates as they are (`files`: scope digest), parsed once."""
        if (files, template) not in self._readers:
            self._readers[(files, template)] = reads_decks(env, template, named=self._named)
        return self._readers[(files, template)]


class RenderMemo(Memo):
    """The memo of a remembering session (`pnp watch`): up to `limit` rendered faces, up to
    DERIVED_PER_FACE facts a face (a face has several facts: a fixed share of the limit
    would evict, every rebuild, what the same rebuild asks for next) and FEW large values
    (rulebooks), least recently used dropped first."""

    def __init__(self, limit: int = LIMIT):
        super().__init__()
        self.svgs: LRUCache[str, str] = LRUCache(limit)
        self._asked: LRUCache[str, frozenset] = LRUCache(limit)   # a face's key -> the words its render looked up
        self._files: dict[tuple, str] = {}
        self._derived: LRUCache[tuple, object] = LRUCache(limit * DERIVED_PER_FACE)
        self._few: LRUCache[tuple, object] = LRUCache(FEW)

    def scope(self, folders, game_context, salt: Callable[[], str]) -> tuple[str, str, str]:
        """Digests of what all of a game's faces share: (template files and the game context
        without its decks, the game's decks, the template files alone)."""
        h = hashlib.sha256(salt().encode())
        for folder in folders:
            folder = Path(folder)
            if not folder.is_dir():
                continue
            paths = (Path(d) / f for d, _, names in os.walk(folder) for f in names)  # links to folders not followed
            for path in sorted(p for p in paths if p.is_file()):
                h.update(f"\n{path.relative_to(folder)}\0{self._file_digest(path, folder.parent.parent)}".encode())
        files = h.hexdigest()
        h.update(_json({k: v for k, v in game_context.items() if k != "decks"}).encode())
        decks = hashlib.sha256(_json(game_context.get("decks")).encode()).hexdigest()
        return h.hexdigest(), decks, files

    def deck_scope(self, scope: tuple[str, str, str], deck_context) -> tuple[str, str]:
        return hashlib.sha256((scope[0] + _json(deck_context)).encode()).hexdigest(), scope[1]

    def card_key(self, card_context) -> str:
        return card_json(card_context)

    def face(self, key: Callable[..., str], render: Callable[..., str | None], words=None) -> str | None:
        """The SVG a render with the same inputs gave (only successful renders are kept: a
        render that failed is tried again, so its error is reported again)."""
        remembered = key()
        asked = self._asked.get(remembered) if words is not None else frozenset()
        svg = self.svgs.get(protected_key(remembered, words, asked)) if asked is not None else None
        if svg is None:
            svg, asked = words.asking(render) if words is not None else (render(), frozenset())
            if svg is not None:
                self._asked[remembered] = asked
                self.svgs[protected_key(remembered, words, asked)] = svg
        return svg

    def derived(self, key: tuple, make: Callable[..., Any], few: bool = False):
        """`make()`, remembered under `key`: facts drawn from a face's SVG (its fonts and
        characters), keyed by what decides them (the SVG's digest). `few`: a large value
        of which only the last FEW are worth keeping (a rulebook)."""
        found = self.recall(key, few)
        if found is None:
            found = make()
            self.keep(key, found, few)
        return found

    def unless_passed(self, key: Callable[..., tuple], check: Callable[..., list]) -> list:
        passed = key()
        if self.recall(passed):
            return []
        found = check()
        if not found:
            self.keep(passed, True)
        return found

    def parsed(self, key: tuple, parse: Callable[[], Any], copy: Callable[[Any], Any]):
        found = self.recall(key)
        if found is None:
            found = parse()
            self.keep(key, found)
        return copy(found)

    def recall(self, key: tuple, few: bool = False):
        return (self._few if few else self._derived).get(key)

    def keep(self, key: tuple, value, few: bool = False) -> None:
        if value is not None:
            (self._few if few else self._derived)[key] = value

    def _file_digest(self, path: Path, root: Path) -> str:
        """sha256 of a template folder's file, read as the render reads files (a regular
        file inside the project, within pnp's bound), or why it cannot be read."""
        from .guard import MAX_IMAGE_BYTES, OutsideProject, read_bytes_inside

        st = os.stat(path)
        stamp = (str(path), st.st_mtime_ns, st.st_size)
        if stamp not in self._files:
            try:
                data = read_bytes_inside(root, path, MAX_IMAGE_BYTES)
            except OutsideProject as exc:
                data = str(exc).encode()
            self._files[stamp] = hashlib.sha256(data).hexdigest()
        return self._files[stamp]


def reads_decks(env, template: str, seen: set | None = None, named=None) -> bool:
    """Whether `template` or a template it includes, imports or extends mentions `decks`.
    A template that does is not parsed; one that does not is parsed once (`named`: what
    each source names, by its digest), its tree kept for its compile (`Sandbox.parse_kept`)."""
    import jinja2

    seen = set() if seen is None else seen
    if template in seen:
        return False
    seen.add(template)
    try:
        source, filename, _ = env.loader.get_source(env, template)
    except jinja2.TemplateError:
        return True  # cannot tell: assume it does (the render reports the error)
    if "decks" in source:
        return True
    named = {} if named is None else named
    digest = hashlib.sha256(source.encode()).hexdigest()
    if digest not in named:
        named[digest] = _named(env, source, template, filename)
    names = named[digest]
    return names is None or any(n is None or reads_decks(env, n, seen, named) for n in names)


def _named(env, source: str, template: str, filename: str | None) -> tuple | None:
    """The templates `source` includes, imports or extends (None in it: one named by a
    variable), or None when it cannot be parsed."""
    import jinja2
    from jinja2 import meta

    try:
        return tuple(meta.find_referenced_templates(env.parse_kept(source, template, filename)))
    except jinja2.TemplateError:
        return None
