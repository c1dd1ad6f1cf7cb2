"""A written segment of a PDF moved to other object numbers, as if written there anew.

In: a `pdfstream.Segment` (what `PDFStream` wrote of one face bundle's forms: its loose
objects, streams and object streams, back to back), the number its objects start at now,
and how the objects before it that it refers to (fonts and pictures other bundles wrote)
are numbered now. Out: the segment with every object number and every reference changed
accordingly, its object streams' heads and offsets made again and recompressed as
`PDFStream` compresses them: the bytes a fresh write at those numbers gives (the tests
compare the two). While `pnp watch` rebuilds, an edit that changes how many objects one
bundle writes (a font no longer needed) or renumbers a font it shares no longer makes
every later bundle's forms be written again from its PDF: they are moved (forms.py).

Only what `PDFStream` writes is read here: dictionaries, arrays, names, numbers, strings
(literal and hex) and references, as `serialise` writes them, and stream data skipped
by the /Length it wrote. Anything else is refused (`ValueError`), and the caller writes
the bundle anew.
"""
from __future__ import annotations

import re
import zlib
from collections.abc import Callable

from .pdfstream import PDFStream, Segment, object_stream

_OBJ = re.compile(rb"(\d+) 0 obj\n")
_STREAM, _END_STREAM, _END_OBJ = b"\nstream\n", b"\nendstream\nendobj\n", b"\nendobj\n"
_REGULAR = rb"[^\s/\[\]()<>{}%]"   # a byte of a name or a number (PDF's regular characters)
_TOKEN = re.compile(rb"\d+ 0 R(?!" + _REGULAR + rb")|\(|<<|>>|<|/" + _REGULAR + rb"*|" + _REGULAR + rb"+|\[|\]|\s+")
_LENGTH = re.compile(rb"/Length (\d+)(?!" + _REGULAR + rb")")
_OBJSTM = re.compile(rb"<</Type /ObjStm/N (\d+)/First (\d+)/Filter /FlateDecode/Length (\d+)>>\Z")


def relocated(segment: Segment, first: int, renumber: dict[int, int]) -> Segment:
    """`segment` written from object `first` on, its references to objects before it
    renumbered by `renumber` (old number -> new; a number not in it stays)."""
    end = segment.first + len(segment.entries)
    delta = first - segment.first

    def new(number: int) -> int:
        if segment.first <= number < end:
            return number + delta
        if number >= end:
            raise ValueError("a segment refers to an object written after it")
        return renumber.get(number, number)

    loose = sorted((e[1], segment.first + i) for i, e in enumerate(segment.entries) if e[0] == 1)
    bounds = [at for at, _ in loose] + [len(segment.data)]
    pieces, offsets = [], {}
    at = 0
    for (start, number), stop in zip(loose, bounds[1:]):
        offsets[number] = at
        piece = _moved_object(segment.data[start:stop], number, new)
        pieces.append(piece)
        at += len(piece)
    entries = tuple((1, offsets[segment.first + i]) if e[0] == 1 else (2, new(e[1]), e[2])
                    for i, e in enumerate(segment.entries))
    return Segment(first, b"".join(pieces), entries)


def _moved_object(data: bytes, number: int, new: Callable[[int], int]) -> bytes:
    """One loose object ("N 0 obj ... endobj") at its new number, its references moved."""
    head = _OBJ.match(data)
    if head is None or int(head.group(1)) != number:
        raise ValueError("not an object where the segment says one starts")
    body = data[head.end():]
    out = b"%d 0 obj\n" % new(number)
    if not body.endswith(_END_STREAM):
        if not body.endswith(_END_OBJ):
            raise ValueError("an object that does not end as PDFStream ends one")
        return out + _moved(body[:-len(_END_OBJ)], new) + _END_OBJ
    split = body.find(_STREAM)
    if split < 0:
        raise ValueError("a stream without its data")
    dictionary, raw = body[:split], body[split + len(_STREAM):-len(_END_STREAM)]
    lengths = _LENGTH.findall(dictionary)   # the stream's own is written last
    if not lengths or int(lengths[-1]) != len(raw):
        raise ValueError("a stream whose /Length is not its data's")
    stream = _OBJSTM.match(dictionary)
    if stream is None and dictionary.startswith(b"<</Type /ObjStm"):
        raise ValueError("an object stream whose dictionary PDFStream does not write so")
    if stream is not None:
        dictionary, raw = _moved_object_stream(stream, raw, new)
    else:
        dictionary = _moved(dictionary, new)
    return out + dictionary + _STREAM + raw + _END_STREAM


def _moved_object_stream(head: re.Match, raw: bytes, new: Callable[[int], int]) -> tuple[bytes, bytes]:
    """An object stream's dictionary and data with its objects' numbers and references moved,
    made again as `PDFStream` makes one (`pdfstream.object_stream`)."""
    count, first = int(head.group(1)), int(head.group(2))
    content = zlib.decompress(raw)
    numbers = content[:first].split()
    if len(numbers) != 2 * count or not content.endswith(b"\n"):
        raise ValueError("an object stream that PDFStream did not write")
    starts = [first + int(numbers[2 * i + 1]) for i in range(count)] + [len(content)]
    batch = [(new(int(numbers[2 * i])), _moved(content[starts[i]:starts[i + 1] - 1], new)) for i in range(count)]
    entries, data = object_stream(batch)
    return PDFStream().serialise({**entries, "/Length": len(data)}), data


def _moved(text: bytes, new: Callable[[int], int]) -> bytes:
    """PDF syntax as `PDFStream.serialise` writes it, each reference `N 0 R` made `new(N) 0 R`;
    strings are passed over whole (a reference-like text inside one is not one)."""
    out, at = [], 0
    while at < len(text):
        found = _TOKEN.match(text, at)
        if found is None:
            raise ValueError("PDF syntax that PDFStream does not write")
        token = found.group(0)
        if token == b"(":
            stop = _string_end(text, at)
            out.append(text[at:stop])
            at = stop
            continue
        if token == b"<":
            stop = text.index(b">", at) + 1
            out.append(text[at:stop])
            at = stop
            continue
        if token.endswith(b" 0 R"):
            token = b"%d 0 R" % new(int(token[:-4]))
        out.append(token)
        at = found.end()
    return b"".join(out)


def _string_end(text: bytes, at: int) -> int:
    """Where the literal string starting at `at` ("(") ends: past its balancing ")"."""
    depth, i = 0, at
    while i < len(text):
        c = text[i]
        if c == 0x5C:      # backslash: the next byte is escaped
            i += 2
            continue
        if c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("a string that does not end")
