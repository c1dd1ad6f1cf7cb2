"""Parts of PDFs written by this process, replayed by later builds while `pnp watch` runs.

In: a `PDFStream` segment (pdfstream.py) and what its writing depended on, as a key: the
bytes it was made from (a face bundle, a page of furniture), what was asked of them, the
object number it starts at and whatever it referred to outside itself. Out: the same
segment, for a later build that would write exactly the same bytes at the same place: a
rebuild after one edit copies most of its sheets and rulebooks as bytes. Kept only while
the render memo is on (a one-shot build would only hold them), least recently used
dropped past LIMIT bytes.
"""
from __future__ import annotations

from collections import OrderedDict


class _Segments:
    LIMIT = 96 * 2**20

    def __init__(self):
        self.kept: OrderedDict = OrderedDict()   # key -> (Segment, anything else to replay it)
        self.size = 0

    @property
    def on(self) -> bool:
        from ..rendermemo import MEMO

        if not MEMO.on and self.kept:  # not watching any more: nothing is kept
            self.kept.clear()
            self.size = 0
        return MEMO.on

    def get(self, key):
        found = self.kept.get(key) if self.on else None
        if found is not None:
            self.kept.move_to_end(key)
        return found

    def put(self, key, value) -> None:
        """Keep `value`, whose first item is the `Segment`, under `key`."""
        if not self.on or key in self.kept:
            return
        self.kept[key] = value
        self.size += len(value[0].data)
        while self.size > self.LIMIT:
            _, dropped = self.kept.popitem(last=False)
            self.size -= len(dropped[0].data)


SEGMENTS = _Segments()
