"""Faces placed beneath the pages of a PDF made elsewhere, written object by object.

In: the bytes of a finished PDF (the rulebook's Platypus pages), the face bundles of the
render stage and, per page, the faces to draw there (face key, box in pt, clip path).
Out: the PDF with each face as a vector Form XObject drawn beneath the page's own
content, everything else of the document (outline, links, metadata) kept. Written with
`PDFStream` and `write_forms`, as the sheets are, so a rebuild while `pnp watch` runs
replays the forms of unchanged face bundles instead of copying them again.
"""
from __future__ import annotations

import hashlib
import io
import zlib
from typing import Any

import pikepdf

from .forms import placement_content, write_forms
from .pdfstream import PDFStream, Raw


def place_under(pdf: bytes, faces_pdfs, page_of: dict, figures, segments, digests, over=()) -> tuple[bytes, int]:
    """`figures`: (page number from 1, face key, (x, y, w, h) pt the face fills, clip path
    as PDF operators in pt); `over`: the same for pages of `faces_pdfs` drawn over the
    page's own content instead (text set elsewhere: rulebook/pangobook.py), each at its own
    size, its top-left corner at (x, y + h); `segments`: a session's (replayed while
    watching), `digests` its font digests (forms.write_forms). Returns (PDF bytes, pages)."""
    writer = PDFStream()
    keys = dict.fromkeys([*(key for _, key, _, _ in figures), *(key for _, key, _, _ in over)])
    forms = write_forms(writer, faces_pdfs, page_of, keys, segments, digests)
    per_page: dict[int, tuple[list, dict, list]] = {}
    for page, key, (x, y, w, h), clip in figures:
        name, form, (form_w, form_h) = forms[key]
        snippets, used, _ = per_page.setdefault(page - 1, ([], {}, []))
        snippets.append(placement_content(name, (w / form_w, 0, 0, h / form_h, x, y), clip))
        used[name] = form
    for page, key, (x, y, _, h), clip in over:
        name, form, (form_w, form_h) = forms[key]
        _, used, above = per_page.setdefault(page - 1, ([], {}, []))
        above.append(placement_content(name, (1, 0, 0, 1, x, y + h - form_h), clip))
        used[name] = form
    writer.new_source()
    # the rest of the document is one segment: replayed while watching when the pages and
    # what they place are the same (a rebuild after an edit the book's text does not show)
    memo = (hashlib.sha256(pdf).digest(), writer.next_number(),
            tuple((i, b"\n".join(snippets), b"\n".join(above), tuple(used.items()))
                  for i, (snippets, used, above) in sorted(per_page.items())))
    segment = segments.get(memo)
    if segment is not None:
        written, root, info, pages = segment
        writer.replay(written)
        return bytes(writer.finish(root, info)), pages   # no spool: already bytes (bytes() gives them back)
    mark = writer.mark()
    with pikepdf.open(io.BytesIO(pdf)) as source:
        claimed = {i: writer.claim(source.pages[i].obj) for i in sorted(per_page)}
        for i, number in claimed.items():
            snippets, used, above = per_page[i]
            writer.put(number, page_with_faces(writer, source.pages[i], None, snippets, used, above))
        root = writer.copy(source.Root)
        info = writer.copy(source.trailer.Info) if "/Info" in source.trailer else None
        pages = len(source.pages)
        segments.keep(memo, lambda: (writer.since(mark), root, info, pages))
        writer.mark()  # what `since` writes (marked already when kept): the same bytes, watching or not
        return bytes(writer.finish(root, info)), pages


def page_with_faces(writer: PDFStream, page: pikepdf.Page, parent, snippets: list[bytes], forms: dict,
                    above: list[bytes] | tuple = ()) -> dict:
    """A page's entries with faces drawn beneath its content: its resources with the faces'
    forms added, and the placements' content first, those of `above` last (`parent`: a new
    /Parent, or None to keep the page's own)."""
    entries = {k: v for k, v in page.obj.items()
               if k not in ("/Contents", "/Resources") and (parent is None or k != "/Parent")}
    if parent is not None:
        entries["/Parent"] = parent
    resources: dict[str, Any] = dict(page.obj.Resources.items()) if "/Resources" in page.obj else {}
    xobjects = dict(resources["/XObject"].items()) if "/XObject" in resources else {}
    resources["/XObject"] = {**xobjects, **forms}
    found = page.obj.get("/Contents")
    contents: list = [] if found is None else list(found) if isinstance(found, pikepdf.Array) else [found]
    own = len(contents)
    if snippets:
        faces = zlib.compress(b"q\n" + b"\n".join(snippets) + b"\nQ", 6)
        contents.insert(0, writer.add_stream({"/Filter": Raw(b"/FlateDecode")}, faces))
    if above:   # after the page's own content, fenced in q ... Q so that nothing it set stays set
        contents.insert(len(contents) - own, writer.add_stream({}, b"q\n"))
        over = zlib.compress(b"Q\nq\n" + b"\n".join(above) + b"\nQ", 6)
        contents.append(writer.add_stream({"/Filter": Raw(b"/FlateDecode")}, over))
    return {**entries, "/Resources": resources, "/Contents": contents}
