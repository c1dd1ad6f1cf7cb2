"""A PDF written object by object, so sheets of any number of faces take little memory.

In: objects that pikepdf parsed from other PDFs (the face bundles, the furniture pages)
and dictionaries and streams made here, and optionally a folder to spool into. Out: the
PDF's bytes, or with a spool folder a `Spooled` PDF: written into a temporary file there
(output/.cache) as it is made, read back piece by piece when it is written out, so sheets
of a thousand pictures (over 100 MB) are never held in memory.

pikepdf (qpdf) keeps a document's whole object graph until it saves; for sheets of
thousands of distinct faces that graph, not the faces, was most of a build's memory
(about 25 KB a face). Here every object is serialised the moment it is added: a
foreign object is copied with its references renumbered (each indirect object of a
source once, in the order first met), and what stays in memory is the output bytes,
the object offsets and the number map of the one source being copied. Dictionaries,
arrays and numbers go into compressed object streams and the cross-reference table is a
compressed xref stream, as qpdf writes with `object_stream_mode=generate`, so the files
are as small. Output depends only on what was added, in order: the same input gives the
same bytes, and the /ID is a digest of them.

Objects are numbered in the order they are reserved or first referred to; a source's
objects must be added (`drain`) before that source is closed. An image or a form met
again (the same dictionary, bytes and everything they refer to, in any source: a
background every face bundle holds, a group drawn with opacity on many faces, which cairo
writes as a form once per face) is written once; every reference to it leads to that one
(`images`, keyed by `shared_digest`).
"""
from __future__ import annotations

import decimal
import functools
import hashlib
import io
import os
import struct
import tempfile
import zlib
from collections import deque
from pathlib import Path

import pikepdf

PER_OBJECT_STREAM = 100   # objects per object stream (qpdf's default)
_COMPRESSION = 6


class Ref(int):
    """A reference to an object of the output: `Ref(12)` is written `12 0 R`."""


class Raw(bytes):
    """PDF syntax written as is (a name such as b'/XObject', an operator-free token)."""


class PDFStream:
    def __init__(self, version: str = "1.7", spool: Path | None = None):
        self.buf = tempfile.TemporaryFile(dir=spool) if spool is not None else io.BytesIO()
        self.buf.write(b"%PDF-" + version.encode() + b"\n%\xe2\xe3\xcf\xd3\n")
        self.where: list = [None]      # object number -> (1, file offset) or (2, object stream, index)
        self.batch: list = []          # (number, body) waiting for the next object stream
        self.seen: dict = {}           # objgen in the current source -> output number
        self.queue: deque = deque()        # (number, foreign object) referred to but not yet written
        self.images: dict = {}         # shared_digest of an image or form written (any source) -> its number
        self.digests: dict = {}        # objgen in the current source -> its shared_digest (None: not shared)

    # numbering and writing
    def reserve(self) -> Ref:
        """A number for an object written later with `put` (e.g. the page tree, before its kids)."""
        self.where.append(None)
        return Ref(len(self.where) - 1)

    def put(self, number: Ref, obj) -> Ref:
        """Write a dictionary, array or number (pikepdf objects of the current source allowed)
        as object `number`."""
        self.batch.append((number, self.serialise(obj)))
        if len(self.batch) >= PER_OBJECT_STREAM:
            self._flush_batch()
        return number

    def add(self, obj) -> Ref:
        return self.put(self.reserve(), obj)

    def add_loose(self, obj) -> Ref:
        """A dictionary or array written at once as an object of its own, not in an object
        stream: for objects written one per segment (a page), where an object stream each
        would cost more than it saves."""
        number = self.reserve()
        body = self.serialise(obj)
        self.where[number] = (1, self.buf.tell())
        self.buf.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
        return number

    def add_stream(self, entries: dict, data: bytes, number: Ref | None = None) -> Ref:
        """A stream object: `entries` its dictionary (no /Length), `data` its bytes as stored."""
        number = self.reserve() if number is None else number
        head = self.serialise({**entries, "/Length": len(data)})
        self.where[number] = (1, self.buf.tell())
        self.buf.write(b"%d 0 obj\n%s\nstream\n" % (number, head))
        self.buf.write(data)
        self.buf.write(b"\nendstream\nendobj\n")
        return number

    # copying from other PDFs
    def new_source(self) -> None:
        """Start copying from another PDF: its object numbers mean other objects."""
        self.drain()
        self.seen = {}
        self.digests = {}

    def copy(self, obj: pikepdf.Object) -> Ref:
        """The output number of the current source's indirect object `obj` (written by `drain`;
        an image or a form written before, from any source, is not written again)."""
        key = obj.objgen
        if key not in self.seen:
            image = shared_digest(obj, self.digests) if shareable(obj) else None
            if image is not None and image in self.images:
                self.seen[key] = self.images[image]
                return self.seen[key]
            self.seen[key] = number = self.reserve()
            self.queue.append((number, obj))
            if image is not None:
                self.images[image] = number
        return self.seen[key]

    def claim(self, obj: pikepdf.Object) -> Ref:
        """The output number of the current source's indirect object `obj`, which the caller
        writes itself (`put`), changed: every reference to `obj` then leads to that."""
        if obj.objgen in self.seen:
            raise ValueError("an object is claimed before anything refers to it")
        self.seen[obj.objgen] = number = self.reserve()
        return number

    def drain(self) -> None:
        """Write every foreign object referred to so far (and what those refer to)."""
        while self.queue:
            number, obj = self.queue.popleft()
            if isinstance(obj, pikepdf.Stream):
                entries = {k: v for k, v in obj.stream_dict.items() if k != "/Length"}
                self.add_stream(entries, obj.read_raw_bytes(), number)
            else:
                self.put(number, _direct(obj))

    def serialise(self, value) -> bytes:
        """PDF syntax for a value: Python dicts (keys are names such as "/Type"), lists, numbers,
        bools, None, `Ref`, `Raw`, and pikepdf objects (indirect ones are copied)."""
        if isinstance(value, Ref):
            return b"%d 0 R" % value
        if isinstance(value, pikepdf.Object):
            if value.is_indirect:
                return b"%d 0 R" % self.copy(value)
            if isinstance(value, pikepdf.Dictionary):
                return self.serialise(dict(value.items()))
            if isinstance(value, pikepdf.Array):
                return self.serialise(list(value))
            return value.unparse()
        if isinstance(value, dict):
            return b"<<" + b"".join(_name(k) + b" " + self.serialise(v)
                                    for k, v in value.items()) + b">>"
        if isinstance(value, (list, tuple)):
            return b"[" + b" ".join(self.serialise(v) for v in value) + b"]"
        if isinstance(value, Raw):
            return bytes(value)
        if value is None:
            return b"null"
        if isinstance(value, bool):
            return b"true" if value else b"false"
        if isinstance(value, int):
            return b"%d" % value
        if isinstance(value, (float, decimal.Decimal)):
            return number(value).encode()
        raise TypeError(f"cannot write {type(value).__name__} into a PDF")

    # segments: what a part of the document wrote, replayed by a later build (`pnp watch`)
    def mark(self) -> tuple[int, int]:
        """Start a segment: everything pending is written, so what follows stands alone."""
        self.drain()
        self._flush_batch()
        return self.buf.tell(), len(self.where)

    def since(self, mark: tuple[int, int]) -> Segment:
        """What was written since `mark` (pending objects written first), to `replay` later."""
        offset, first = self.mark()[0], mark[1]
        entries = tuple((1, e[1] - mark[0]) if e[0] == 1 else e for e in self.where[first:])
        return Segment(first, self._read(mark[0], offset), entries)

    def replay(self, segment: Segment) -> None:
        """Write `segment` again, at the same object numbers (so only where it was made:
        `next_number()` must be its `first`), as if its objects were added once more."""
        if self.queue or self.batch or len(self.where) != segment.first:
            raise ValueError("a segment is replayed only where it was written")
        base = self.buf.tell()
        self.buf.write(segment.data)
        self.where.extend((1, e[1] + base) if e[0] == 1 else e for e in segment.entries)

    def next_number(self) -> int:
        """The number the next object reserved gets."""
        return len(self.where)

    # the end
    def finish(self, root: Ref, info: Ref | None = None) -> bytes | Spooled:
        """Write what is pending, the xref stream and the trailer; return the PDF's bytes."""
        self.drain()
        self._flush_batch()
        digest = self._md5()
        xref = self.reserve()
        offset = self.buf.tell()
        self.where[xref] = (1, offset)
        rows = [struct.pack(">BIH", 0, 0, 0xFFFF)]
        for entry in self.where[1:]:
            if entry is None:
                raise ValueError("an object was reserved but never written")
            kind, a, *b = entry
            rows.append(struct.pack(">BIH", kind, a, b[0] if b else 0))
        trailer = {"/Type": Raw(b"/XRef"), "/Size": len(self.where), "/W": [1, 4, 2], "/Root": root,
                   "/ID": [Raw(b"<" + digest + b">"), Raw(b"<" + digest + b">")], "/Filter": Raw(b"/FlateDecode")}
        if info is not None:
            trailer["/Info"] = info
        data = zlib.compress(b"".join(rows), _COMPRESSION)
        self.add_stream(trailer, data, xref)
        self.buf.write(b"startxref\n%d\n%%%%EOF\n" % offset)
        if isinstance(self.buf, io.BytesIO):
            return self.buf.getvalue()
        self.buf.flush()
        return Spooled(self.buf, self.buf.tell())

    def _read(self, start: int, end: int) -> bytes:
        """What was written from `start` to `end`."""
        if isinstance(self.buf, io.BytesIO):
            with self.buf.getbuffer() as body:
                return body[start:end].tobytes()
        self.buf.flush()
        return os.pread(self.buf.fileno(), end - start, start)

    def _md5(self) -> bytes:
        """The hex MD5 of everything written so far (the /ID)."""
        if isinstance(self.buf, io.BytesIO):
            with self.buf.getbuffer() as body:  # no copy of what is written so far
                return hashlib.md5(body).hexdigest().encode()
        h = hashlib.md5()
        for piece in Spooled(self.buf, self.buf.tell()):
            h.update(piece)
        return h.hexdigest().encode()

    def _flush_batch(self) -> None:
        if not self.batch:
            return
        batch, self.batch = self.batch, []
        stream = self.reserve()
        for index, (number, _) in enumerate(batch):
            self.where[number] = (2, stream, index)
        entries, data = object_stream(batch)
        self.add_stream(entries, data, stream)


def object_stream(batch: list[tuple[int, bytes]]) -> tuple[dict, bytes]:
    """An object stream holding `batch` ((number, body), in order): its dictionary (without
    /Length) and its data, compressed (`_flush_batch`, and relocate.py moving one)."""
    heads, at = [], 0
    for number, body in batch:
        heads.append(b"%d %d" % (number, at))
        at += len(body) + 1
    head = b" ".join(heads) + b"\n"
    data = zlib.compress(head + b"\n".join(body for _, body in batch) + b"\n", _COMPRESSION)
    return {"/Type": Raw(b"/ObjStm"), "/N": len(batch), "/First": len(head), "/Filter": Raw(b"/FlateDecode")}, data


class Spooled:
    """A finished PDF in a temporary file (gone when this is): its length, its bytes in
    pieces when iterated (as files.py writes them), all of them by `bytes()`."""

    PIECE = 1 << 20

    def __init__(self, fh, size: int):
        self.fh, self.size = fh, size
        fh.flush()

    def __len__(self) -> int:
        return self.size

    def __iter__(self):
        at = 0
        while at < self.size:
            piece = os.pread(self.fh.fileno(), min(self.PIECE, self.size - at), at)
            if not piece:
                raise OSError(f"the spooled PDF in {self.fh.name} ended early")
            at += len(piece)
            yield piece

    def __bytes__(self) -> bytes:
        return b"".join(self)


class Segment:
    """Objects `first`.. and the bytes that wrote them (offsets relative to their start)."""

    __slots__ = ("first", "data", "entries")

    def __init__(self, first: int, data: bytes, entries: tuple):
        self.first, self.data, self.entries = first, data, entries


def _direct(obj: pikepdf.Object):
    """An indirect dictionary or array as a direct one (its own references stay references)."""
    if isinstance(obj, pikepdf.Dictionary):
        return dict(obj.items())
    if isinstance(obj, pikepdf.Array):
        return list(obj)
    return Raw(obj.unparse()) if isinstance(obj, pikepdf.Object) else obj


SHARED = ("/Image", "/Form")   # the subtypes of the streams written once however often met


def shareable(obj: pikepdf.Object) -> bool:
    return isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") in SHARED


def shared_digest(obj: pikepdf.Object, memo: dict) -> bytes | None:
    """sha256 of an indirect object: its dictionary, its raw bytes if a stream, and the
    `shared_digest` of each object it refers to, each worked out once per source (`memo`:
    objgen -> digest); the same for the same object whatever PDF it comes from. None for
    an object that refers back to itself (never shared)."""
    key = obj.objgen
    if key in memo:
        return memo[key]
    memo[key] = None   # while it is worked out: a reference back to it makes it unshared
    h = hashlib.sha256()
    whole: pikepdf.Object = obj
    if isinstance(obj, pikepdf.Stream):
        raw = obj.read_raw_bytes()
        h.update(b"S%d:" % len(raw) + raw)
        whole = pikepdf.Dictionary({k: v for k, v in obj.stream_dict.items() if k != "/Length"})

    def walk(o, depth: int = 0) -> bool:
        if depth > 20:
            return False
        if isinstance(o, pikepdf.Object) and o.is_indirect and depth:
            found = shared_digest(o, memo)
            if found is None:
                return False
            h.update(b"R" + found)
        elif isinstance(o, pikepdf.Dictionary):
            h.update(b"D")
            for k in sorted(o.keys()):
                h.update(k.encode() + b"=")
                if not walk(o[k], depth + 1):
                    return False
            h.update(b"E")
        elif isinstance(o, pikepdf.Array):
            h.update(b"A")
            if not all(walk(v, depth + 1) for v in o):
                return False
            h.update(b"E")
        elif isinstance(o, pikepdf.Object):
            h.update(b"O" + o.unparse() + b";")
        else:
            h.update(b"P" + repr(o).encode() + b";")
        return True

    if not walk(whole):   # at depth 0 an indirect dictionary is walked, not referred to
        return None
    memo[key] = found = h.digest()
    return found


def digest(obj) -> bytes:
    """sha256 of a PDF object and everything it refers to (streams by their raw bytes): the
    same digest for the same font or image whatever PDF it comes from."""
    h = hashlib.sha256()

    def walk(o, depth=0):
        if depth > 20:
            raise ValueError("objects nested too deep")
        if isinstance(o, pikepdf.Stream):
            h.update(b"S")
            walk(pikepdf.Dictionary({k: v for k, v in o.items() if k != "/Length"}), depth + 1)
            raw = o.read_raw_bytes()
            h.update(b"%d:" % len(raw) + raw)
        elif isinstance(o, pikepdf.Dictionary):
            h.update(b"D")
            for k in sorted(o.keys()):
                h.update(k.encode() + b"=")
                walk(o[k], depth + 1)
            h.update(b"E")
        elif isinstance(o, pikepdf.Array):
            h.update(b"A")
            for v in o:
                walk(v, depth + 1)
            h.update(b"E")
        elif isinstance(o, pikepdf.Object):
            h.update(b"O" + o.unparse() + b";")
        else:
            h.update(b"P" + repr(o).encode() + b";")

    walk(obj)
    return h.digest()


@functools.lru_cache(maxsize=4096)
def _name(key: str) -> bytes:
    return pikepdf.Name(key).unparse()


def number(v) -> str:
    """A PDF number: fixed decimals (PDF has no exponents), no '-0'."""
    text = f"{v:.5f}" if isinstance(v, float) else format(v, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "", "-") else text
