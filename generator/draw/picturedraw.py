"""Pictures as one bundle of faces draws them: prepared once, handed to cairo, placed.

In: each raster <image> a face draws, from svgbridge.py: its bytes and header, the size
the whole picture is placed at (pt, from the drawing's matrix) and whether the drawing
goes straight to the PDF page; the `Policy`, the picture store and, while `pnp watch`
rebuilds in this process, the session's memo of prepared pictures. Out: the cairo
surface to paint; each face's `Placement`s and colour remarks (for the warnings); and
`splice`, which puts the lossless pictures' own streams into the bundle PDF.

- A JPEG reaches the PDF as its own DCT bytes: cairo writes the `image/jpeg` mime data
  of a surface as it is. On a PDF page the surface is one pixel, scaled to the picture's
  size: cairo never reads its pixels (nothing is decoded), and takes the image's size
  from the JPEG.
- A lossless picture reaches cairo the same way, as a *stub* JPEG (a header only: a
  comment naming the picture, its size) that `splice` then replaces with the PNG's own
  IDAT (/FlateDecode with PNG predictors) and its alpha as an /SMask: cairo never
  compresses the pixels itself (20-50 ms a picture at every draw, into streams 2.5 times
  larger). No stub leaves `bundlepdf.exact_pages`, which splices every bundle.
- Every surface carries `application/x-cairo.uuid`, the picture's sha256: cairo writes a
  picture once per bundle PDF however many faces show it. A picture shown again on the
  same face gets `#n` after it (cairo 1.16 would write the page's /XObject key twice).
- Inside a pattern or a mask CairoSVG draws on a surface of its own, which cairo may turn
  into pixels: there the surface holds the picture's real pixels, at full resolution (the
  size on the page is not known there; no placement is recorded).
"""
from __future__ import annotations

import hashlib
import io
from pathlib import Path

import cairocffi as cairo
from cachetools import LRUCache

from ..rendermemo import Forgets, Kept
from .art import KEPT_BYTES
from .pictures import Header, Placement, Policy, Prepared, header, idat, target_size
from .picturestore import PictureStore
from .picturevips import prepare

STUB = b"pnp-picture "


class Pictures:
    """What the drawing of one bundle knows about its pictures."""

    def __init__(self, policy: Policy | None = None, memo: Kept | Forgets | None = None):
        self.policy = policy or Policy()
        store = self.policy.store   # output/.cache/pictures: the folder holding output/ is trusted
        self.store = PictureStore(store, base=Path(store).parents[2]) if store else None
        self.memo = Forgets() if memo is None else memo   # a session's (a Kept while pnp watch rebuilds)
        self.recent: dict[str, Prepared] = {}    # prepared pictures of this bundle, by store key
        self.stubs: dict[str, Prepared] = {}     # uid -> lossless picture cairo got a stub of
        # a source's header, sha256 and size, by its bytes (which the entry holds: its size is theirs)
        self.known: LRUCache[bytes, tuple[Header, str, int]] = LRUCache(KEPT_BYTES, getsizeof=lambda e: e[2])
        self.begin_face()

    def begin_face(self) -> None:
        """A new face (page of the bundle)."""
        self.placed: list[Placement] = []
        self.notes: list[str] = []
        self.repeats: dict[str, int] = {}
        self.alive: list = []   # surfaces painted on the face: let go once it is shown

    def end_face(self) -> tuple[tuple, tuple]:
        """The face's placements and remarks ("picture 'x': ..."), once it is drawn."""
        found = (tuple(self.placed), tuple(dict.fromkeys(self.notes)))
        self.begin_face()
        return found

    def header(self, data: bytes, shown: str) -> Header:
        """The picture's header; read once a bundle (the fetcher hands a picture shown again
        as the same bytes object: its hash is Python's, kept on the object)."""
        found = self.known.get(data)
        if found is None:
            found = self.known[data] = header(data, shown), hashlib.sha256(data).hexdigest(), len(data)
        return found[0]

    def surface(self, data: bytes, head: Header, shown: str, placed_pt: tuple[float, float],
                vector: bool) -> cairo.ImageSurface:
        """The surface to paint for a picture placed at `placed_pt` (the whole picture, pt on
        the page); `vector`: the drawing goes straight to the bundle's PDF page. Painted at
        the picture's own pixel size, scaled by (picture px / surface px)."""
        size = None   # in a pattern or a mask the size on the page is not known here: kept as it is
        if vector:
            self.placed.append(Placement(shown, head.upright, placed_pt))
            need = (placed_pt[0] / 72 * self.policy.target_dpi, placed_pt[1] / 72 * self.policy.target_dpi)
            size = target_size(head.upright, need, self.policy.slack)
        p = self._prepared(data, head, size)
        self.notes.extend(f"picture '{shown}': {note}" for note in p.notes)
        if vector:
            image = cairo.ImageSurface(cairo.FORMAT_RGB24, 1, 1)   # RGB24: an empty ARGB32 one counts as clear
            if p.kind == "jpeg":
                image.set_mime_data("image/jpeg", p.data)
            else:
                image.set_mime_data("image/jpeg", stub_jpeg(p.uid, p.size))
                self.stubs[p.uid] = p
        else:
            image = _pixels(p)
            if p.kind == "jpeg":
                image.set_mime_data("image/jpeg", p.data)
        n = self.repeats.get(p.uid, 0)
        self.repeats[p.uid] = n + 1
        image.set_mime_data("application/x-cairo.uuid", (p.uid + (f"#{n}" if n else "")).encode())
        self.alive.append(image)
        return image

    def _prepared(self, data: bytes, head: Header, size) -> Prepared:
        seen = self.known.get(data)
        key = PictureStore.key(seen[1] if seen else hashlib.sha256(data).hexdigest(), size, self.policy)
        found = self.recent.get(key)
        if found is None:
            found = self.memo.get(key)
        if found is None and self.store is not None:
            found = self.store.get(key, data)
        if found is None:
            found = prepare(data, head, size, self.policy)
            if self.store is not None:
                self.store.put(key, found)
        self.recent[key] = found
        self.memo.put(key, found)
        return found

    def splice(self, doc) -> None:
        """Replace every stub image of the bundle PDF `doc` (pikepdf) by its picture's streams."""
        import pikepdf
        from pikepdf import Name

        masks: dict[str, object] = {}
        for obj in doc.objects:
            if not (isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") == Name.Image
                    and obj.get("/Filter") == Name.DCTDecode and int(obj.get("/Length", 0)) < 200):
                continue
            raw = obj.read_raw_bytes()
            at = raw.find(STUB, 0, 32)
            if at < 0:
                continue
            p = self.stubs[raw[at + len(STUB):at + len(STUB) + 64].decode()]
            w, h = p.size
            obj.write(idat(p.data), filter=Name.FlateDecode,
                      decode_parms=pikepdf.Dictionary(Predictor=15, Colors=p.colours, BitsPerComponent=8, Columns=w))
            obj.ColorSpace = Name.DeviceGray if p.colours == 1 else Name.DeviceRGB
            obj.Width, obj.Height, obj.BitsPerComponent = w, h, 8
            if p.alpha:
                if p.uid not in masks:
                    mask = doc.make_stream(idat(p.alpha))
                    mask.Type, mask.Subtype, mask.ColorSpace = Name.XObject, Name.Image, Name.DeviceGray
                    mask.Width, mask.Height, mask.BitsPerComponent = w, h, 8
                    mask.Filter = Name.FlateDecode
                    mask.DecodeParms = pikepdf.Dictionary(Predictor=15, Colors=1, BitsPerComponent=8, Columns=w)
                    masks[p.uid] = mask
                obj.SMask = masks[p.uid]


def stub_jpeg(uid: str, size: tuple[int, int]) -> bytes:
    """A JPEG header only (SOI, a comment naming the picture, SOF0 with its size, EOI):
    cairo reads the size from it and writes it as the image's stream."""
    comment = STUB + uid.encode()
    sof = bytes([8]) + size[1].to_bytes(2, "big") + size[0].to_bytes(2, "big") + bytes(
        [3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0])
    return (b"\xff\xd8\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment
            + b"\xff\xc0" + (len(sof) + 2).to_bytes(2, "big") + sof + b"\xff\xd9")


def _pixels(p: Prepared) -> cairo.ImageSurface:
    """The picture's pixels as a cairo surface (for patterns and masks)."""
    from PIL import Image

    im: Image.Image = Image.open(io.BytesIO(p.data))
    im.load()
    if p.alpha:
        im = im.convert("RGB")
        im.putalpha(Image.open(io.BytesIO(p.alpha)).convert("L"))
        data, fmt = bytearray(im.convert("RGBa").tobytes("raw", "BGRa")), cairo.FORMAT_ARGB32
    else:
        data, fmt = bytearray(im.convert("RGB").tobytes("raw", "BGRX")), cairo.FORMAT_RGB24
    return cairo.ImageSurface.create_for_data(data, fmt, im.width, im.height, im.width * 4)
