"""Place rendered faces on pages of an existing PDF as vector Form XObjects.

In: a pikepdf document being assembled (the rulebook, export profiles) or a streaming
`PDFStream` (sheets: `write_forms`), and the face bundles from the render stage.
Out: content-stream snippets that draw a face into a box, clipped to a rectangle (or a
rounded one), and the page resources they need, under explicit names so that the same
input always gives the same bytes. Each face is copied into the document once, however
often it is placed, and a font or a picture that several faces PDFs embed with identical
bytes (the bundles of one game do: see faces.py) is copied once. Used by card sheets and
the rulebook alike.
"""
from __future__ import annotations

import hashlib
import io
import zlib
from typing import Any

import pikepdf
from pikepdf import Name, Rectangle

from .pdfstream import Ref, shareable, shared_digest
from .pdfstream import digest as _digest
from .relocate import relocated

KAPPA = 0.5523  # Bezier handle length for a quarter circle


class FacePlacer:
    def __init__(self, out: pikepdf.Pdf, faces_pdfs, page_of: dict):
        self.out = out
        self.bundles = faces_pdfs
        self.faces: dict[int, pikepdf.Pdf] = {}   # bundle -> opened, when one of its faces is first placed
        self.docs: dict[int, bytes] = {}          # bundle -> sha256 of its bytes
        self.page_of = page_of
        self.forms: dict[tuple, pikepdf.Object] = {}
        self.fonts: dict[bytes, pikepdf.Object] = {}   # digest of a font's whole object tree -> its copy
        self.images: dict[bytes, pikepdf.Object] = {}  # digest of an image (and its soft mask) -> its copy
        self.digests: dict[bytes, dict] = {}   # bundle's sha256 -> {font object: digest}, filled in as met

    def draw(self, page: pikepdf.Page, key: str, box, clip, radius: float = 0.0,
             clip_path: bytes | None = None) -> bytes:
        """Content that draws face `key` filling `box` (x, y, w, h in pt), clipped to `clip`
        (or to `clip_path`, path operators in pt, for round and hexagonal components)."""
        name, form = self._form_for(page, key)
        x, y, w, h = box
        # pikepdf's own defaults, spelled out: its type stub gives these keywords none
        place = page.calc_form_xobject_placement(form, Name(name), Rectangle(x, y, x + w, y + h),
                                                 invert_transformations=True, allow_shrink=True, allow_expand=False)
        return b"q " + (clip_path or _clip_path(clip, radius)) + b" W n " + place + b" Q"

    def draw_at(self, page: pikepdf.Page, key: str, matrix, clip: bytes) -> bytes:
        """Content that draws face `key` at its own size through `matrix` (a `cm` in pt: a
        plain move, or a turn for die faces and standees), clipped to the path `clip` (PDF
        path operators in pt)."""
        name, _ = self._form_for(page, key)
        return placement_content(name, matrix, clip)

    def _form_for(self, page: pikepdf.Page, key: str):
        doc, number = self.page_of[key]
        if (doc, number) not in self.forms:
            if doc not in self.faces:
                data = self.bundles[doc]
                self.docs[doc] = hashlib.sha256(data).digest()
                self.faces[doc] = pikepdf.open(io.BytesIO(data))
            self.forms[(doc, number)] = self._form(self.faces[doc].pages[number], doc)
        form = self.forms[(doc, number)]
        name = f"/Face{doc}_{number}"
        page.add_resource(form, Name.XObject, name=Name(name), replace_existing=True)
        return name, form


    def _form(self, face: pikepdf.Page, doc: int = -1) -> pikepdf.Object:
        """The face page as a Form XObject of the output, made from the page's own (still
        compressed) content and its resources: much lighter than pikepdf's
        as_form_xobject() and a copy, which counts for decks of thousands of distinct cards."""
        box = [float(v) for v in face.mediabox]
        contents = face.obj.get("/Contents")
        if not isinstance(contents, pikepdf.Stream):  # several content streams: let pikepdf join them
            form = self.out.copy_foreign(face.as_form_xobject())
            form.BBox = pikepdf.Array(box)
            _from_lower_left(form, box)
            return form
        form = pikepdf.Stream(self.out, contents.read_raw_bytes())
        for key in ("/Filter", "/DecodeParms"):
            if key in contents:
                form[key] = contents[key]
        form.Type, form.Subtype, form.FormType = Name.XObject, Name.Form, 1
        form.BBox = pikepdf.Array(box)
        _from_lower_left(form, box)
        form.Resources = self._resources(face.obj.Resources, doc)
        if "/Group" in face.obj:
            form.Group = self._copy(face.obj.Group)
        return self.out.make_indirect(form)

    def _resources(self, res, doc: int) -> pikepdf.Dictionary:
        """A face page's resources, each font shared with every other face that has the same one."""
        out = {}
        for key, value in res.items():
            if key == "/Font":
                out[key] = pikepdf.Dictionary({name: self._font(font, doc) for name, font in value.items()})
            else:
                out[key] = self._copy(value)
        if "/XObject" in out:
            self._same_images(out["/XObject"], set())
        return pikepdf.Dictionary(out)

    def _same_images(self, xobjects, seen: set) -> None:
        """Every image among copied XObjects (and those of the forms among them) that another
        face copied already with the same bytes replaced by that copy: a picture several
        bundles hold is stored once (the copies left unreferenced are not written)."""
        for name, xobject in list(xobjects.items()):
            if not isinstance(xobject, pikepdf.Stream) or xobject.objgen in seen:
                continue
            seen.add(xobject.objgen)
            if xobject.get("/Subtype") == Name.Image:
                first = self.images.setdefault(_digest(xobject), xobject)
                if first.objgen != xobject.objgen:
                    xobjects[name] = first
            elif "/XObject" in xobject.get("/Resources", {}):
                self._same_images(xobject.Resources.XObject, seen)

    def _font(self, font, doc: int):
        seen = self.digests.setdefault(self.docs[doc], {}) if font.is_indirect and doc >= 0 else {}
        digest = seen.get(font.objgen) or seen.setdefault(font.objgen, _digest(font))
        if digest not in self.fonts:
            self.fonts[digest] = self._copy(font)
        return self.fonts[digest]

    def _copy(self, obj):
        """copy_foreign for indirect objects; direct dictionaries and arrays copied item by item."""
        if not isinstance(obj, pikepdf.Object):
            return obj  # numbers, booleans and names come through as Python values
        if obj.is_indirect:
            return self.out.copy_foreign(obj)
        if isinstance(obj, pikepdf.Dictionary):
            return pikepdf.Dictionary({k: self._copy(v) for k, v in obj.items()})
        if isinstance(obj, pikepdf.Array):
            return pikepdf.Array([self._copy(v) for v in obj])
        return obj


def write_forms(writer, faces_pdfs, page_of: dict, keys, segments, digests) -> dict:
    """Each face of `keys` as a Form XObject written into `writer` (a `PDFStream`), one face
    bundle open at a time, every font with identical bytes written once; returns face key ->
    (resource name, form reference, (width, height) of the form in pt). The streaming
    counterpart of `FacePlacer` for sheets and rulebooks of any size.

    Each bundle's forms are one segment of the file. While `pnp watch` rebuilds (`segments`
    is a remembering session's), a segment written before is copied instead of being made
    again when it would come out the same but for its object numbers: the same bundle, the
    same faces of it, finding the fonts and pictures it asked for written before it (or not
    written) as then. An edit redraws one bundle; the others are copied as bytes, moved to
    other numbers where the edited one now writes more or fewer objects or numbers a font
    they share otherwise (relocate.py). A picture or a form (a group drawn with opacity)
    several bundles hold is written once (`PDFStream.images`). `digests`: the session's font
    digests of each bundle (a build writes a bundle once for each paper, a rebuild of `pnp
    watch` mostly the same ones)."""
    wanted: dict[int, dict[int, str]] = {}
    for key in keys:
        doc, number = page_of[key]
        wanted.setdefault(doc, {})[number] = key
    fonts: dict[bytes, object] = {}
    placed = {}
    base = writer.next_number()   # where this document's forms start: the sheets' and a rulebook's apart
    for doc in sorted(wanted):
        pages = tuple(sorted(wanted[doc]))
        memo = (bundle_identity(faces_pdfs, doc), doc, pages, base)
        segment = _copied_here(segments, memo, writer, fonts)
        if segment is not None:
            written, refs, (_, fonts_added), (_, images_added) = segment
            writer.replay(written)
            fonts.update(fonts_added)
            writer.images.update(images_added)
        else:
            mark = writer.mark()
            fonts, writer.images = Asked(fonts), Asked(writer.images)
            refs = _write_bundle(writer, faces_pdfs[doc], pages, fonts, digests)
            asked_fonts, asked_images = fonts.found(), writer.images.found()
            fonts, writer.images = dict(fonts), dict(writer.images)
            segments.keep(memo, lambda mark=mark, refs=refs, found=(asked_fonts, asked_images): (
                writer.since(mark), refs, *found))
        placed.update({wanted[doc][number]: (f"/Face{doc}_{number}", ref, size)
                       for number, (ref, size) in zip(pages, refs)})
    writer.mark()  # the last bundle's objects written whether or not it was kept as a segment
    return placed


def _copied_here(segments, memo: tuple, writer, fonts: dict) -> tuple | None:
    """The kept segment of `memo` as it is written at `writer`'s next object number: itself
    where it was made there and finds what it asked for at the same numbers; moved
    (relocate.py, and kept so) where it was made at another number or finds them at others;
    None where there is none, or a font or picture it found is missing now or one it
    missed is there now (it would write other objects), or it cannot be moved."""
    segment = segments.get(memo)
    if segment is None:
        return None
    written, refs, fonts_found, images_found = segment
    renumber: dict[int, int] = {}
    for (asked, _), now in ((fonts_found, fonts), (images_found, writer.images)):
        for key, before in asked:
            found = now.get(key)
            if (found is None) != (before is None):
                return None
            if found is not None and found != before:
                renumber[before] = found
    first = writer.next_number()
    if first == written.first and not renumber:
        return segment
    try:
        moved = relocated(written, first, renumber)
    except ValueError:   # not as PDFStream writes (it always does): written anew
        return None
    delta = first - written.first

    def again(found: tuple[tuple, tuple], now: dict) -> tuple[tuple, tuple]:
        asked, added = found
        return (tuple((key, now.get(key) if before is not None else None) for key, before in asked),
                tuple((key, Ref(number + delta)) for key, number in added))

    segment = (moved, tuple((Ref(ref + delta), size) for ref, size in refs),
               again(fonts_found, fonts), again(images_found, writer.images))
    segments.put(memo, segment)
    return segment


class Asked(dict):
    """A map (fonts or pictures written so far, by digest) that notes what each key held
    when a bundle first asked for it (None: nothing), so that the bundle's segment is
    copied only where every key it asked for is there again, or missing again
    (`_copied_here`: at other numbers, it is moved)."""

    def __init__(self, items: dict):
        super().__init__(items)
        self.asked: dict = {}

    def __contains__(self, key) -> bool:
        found = dict.get(self, key)
        self.asked.setdefault(key, found)
        return found is not None

    def __getitem__(self, key):
        self.asked.setdefault(key, dict.get(self, key))
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        self.asked.setdefault(key, dict.get(self, key))
        return dict.get(self, key, default)

    def __setitem__(self, key, value) -> None:
        self.asked.setdefault(key, dict.get(self, key))
        dict.__setitem__(self, key, value)

    def found(self) -> tuple[tuple, tuple]:
        """(what each key asked for held before, what the bundle added), as plain data."""
        added = tuple((key, dict.__getitem__(self, key)) for key, before in self.asked.items()
                      if before is None and key in self.keys())
        return tuple(self.asked.items()), added


def _write_bundle(writer, data: bytes, pages: tuple, fonts: dict, digests) -> tuple:
    """The forms of `pages` of one bundle (fonts not yet in `fonts` written and added;
    `digests`: {bundle's sha256: {font object: digest}}, filled in as its fonts are digested)."""
    from .pdfstream import Raw

    bundle = hashlib.sha256(data).digest()
    seen = digests.get(bundle)
    if seen is None:
        seen = digests[bundle] = {}
    refs = []
    writer.new_source()
    with pikepdf.open(io.BytesIO(data)) as pdf:
        _shared_first(writer, [pdf.pages[number] for number in pages])
        for number in pages:
            face = pdf.pages[number]
            box = [float(v) for v in face.mediabox]
            contents = face.obj.get("/Contents")
            entries: dict[str, Any]   # the form's dictionary, for writer.add_stream
            if isinstance(contents, pikepdf.Stream):
                data_of_face = contents.read_raw_bytes()
                entries = {k: contents[k] for k in ("/Filter", "/DecodeParms") if k in contents}
            else:  # several content streams: joined
                data_of_face = zlib.compress(b"\n".join(c.read_bytes() for c in contents))
                entries = {"/Filter": Raw(b"/FlateDecode")}
            entries.update({"/Type": Raw(b"/XObject"), "/Subtype": Raw(b"/Form"), "/FormType": 1, "/BBox": box})
            if box[0] or box[1]:  # see _from_lower_left
                entries["/Matrix"] = [1, 0, 0, 1, -box[0], -box[1]]
            entries["/Resources"] = {
                k: ({name: _written_font(writer, font, fonts, seen) for name, font in v.items()}
                    if k == "/Font" else v) for k, v in face.obj.Resources.items()}
            if "/Group" in face.obj:
                entries["/Group"] = face.obj.Group
            refs.append((writer.add_stream(entries, data_of_face), (box[2] - box[0], box[3] - box[1])))
        writer.drain()
    return tuple(refs)


def _shared_first(writer, faces) -> None:
    """Number the pictures and forms the faces' resources name that a later bundle may use
    too (`PDFStream.images`) before anything else of the bundle, those on several of its
    faces first, each group in the order of their digests: numbered as met, an edit that
    changed the order in which one face meets them (a longer name drawn before the frame)
    renumbered them, and every later bundle that uses them was written again while
    watching instead of being copied."""
    found: dict[bytes, list] = {}
    for face in faces:
        xobjects = face.obj.get("/Resources", {}).get("/XObject", {})
        for xobject in {x.objgen: x for x in xobjects.values() if shareable(x)}.values():
            digest = shared_digest(xobject, writer.digests)
            if digest is not None:
                found.setdefault(digest, []).append(xobject)
    for digest in sorted(found, key=lambda d: (len(found[d]) < 2, d)):
        writer.copy(found[digest][0])


def bundle_identity(faces_pdfs, doc: int):
    """What names a bundle's bytes: its face-cache key, else a digest of the bytes."""
    entries = getattr(faces_pdfs, "entries", None)
    if entries is not None and isinstance(entries[doc], str):
        return entries[doc]
    return hashlib.sha256(faces_pdfs[doc]).digest()


def _written_font(writer, font, fonts: dict, seen: dict):
    """The output reference of `font` (the first written font with the same bytes)."""
    if not font.is_indirect:
        return font
    digest = seen.get(font.objgen) or seen.setdefault(font.objgen, _digest(font))
    if digest not in fonts:
        fonts[digest] = writer.copy(font)
    return fonts[digest]


def placement_content(name: str, matrix, clip: bytes) -> bytes:
    """Content drawing the form `name` through `matrix` (a `cm` in pt), clipped to `clip`."""
    cm = " ".join(_num(v) for v in matrix).encode()
    return b"q " + clip + b" W n " + cm + b" cm " + name.encode() + b" Do Q"


def _from_lower_left(form, box) -> None:
    """A face page's MediaBox need not start at 0 0 (faces.py: the face is drawn from the
    top of a page of whole points): the form's /Matrix moves the face's lower-left corner
    to the origin, where every placement expects it."""
    if box[0] or box[1]:
        form.Matrix = pikepdf.Array([1, 0, 0, 1, -box[0], -box[1]])


def _num(v: float) -> str:
    """A number for a content stream: fixed decimals, no '-0'."""
    text = f"{v:.5f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _clip_path(clip, r: float) -> bytes:
    x, y, w, h = clip
    if r <= 0:
        return b"%.4f %.4f %.4f %.4f re" % (x, y, w, h)
    r = min(r, w / 2, h / 2)
    k = r * KAPPA
    ops = [
        b"%.4f %.4f m" % (x + r, y),
        b"%.4f %.4f l" % (x + w - r, y),
        b"%.4f %.4f %.4f %.4f %.4f %.4f c" % (x + w - r + k, y, x + w, y + r - k, x + w, y + r),
        b"%.4f %.4f l" % (x + w, y + h - r),
        b"%.4f %.4f %.4f %.4f %.4f %.4f c" % (x + w, y + h - r + k, x + w - r + k, y + h, x + w - r, y + h),
        b"%.4f %.4f l" % (x + r, y + h),
        b"%.4f %.4f %.4f %.4f %.4f %.4f c" % (x + r - k, y + h, x, y + h - r + k, x, y + h - r),
        b"%.4f %.4f l" % (x, y + r),
        b"%.4f %.4f %.4f %.4f %.4f %.4f c" % (x, y + r - k, x + r - k, y, x + r, y),
        b"h",
    ]
    return b" ".join(ops)
