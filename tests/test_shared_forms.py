"""Shared layers written once (issue 37, part 6): a form or a picture that several faces
hold with the same bytes and resources (cairo writes a group drawn with opacity as a form
of each face's page, and a background or an icon group the same on every face) is written
once into the sheets and placed by every face that has it. The pages render pixel for
pixel as before, their text reads the same, and the files are smaller: the shipped games'
sheets are compared with page digests and sizes pinned from the code before (a2ca325,
`tests/fixtures/pages/shared-forms.json`)."""
from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest

from generator.layout.forms import write_forms
from generator.layout.pdfstream import PDFStream, Raw
from generator.session import Session
from tests.pages import page_digests

PINS = Path(__file__).parent / "fixtures" / "pages" / "shared-forms.json"


def _bundle(layers: list[bytes], own: bytes, loop: bool = False) -> bytes:
    """A face bundle of one page: `layers` as nested forms (each with an ExtGState of its
    own, as cairo writes a group with opacity), then the face's `own` drawing."""
    pdf = pikepdf.new()
    pdf.add_blank_page(page_size=(20, 30))
    page = pdf.pages[0]
    xobjects = pikepdf.Dictionary()
    for i, content in enumerate(layers):
        alpha = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.ExtGState, CA=0.5, ca=0.5))
        form = pdf.make_stream(content, Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Form,
                               BBox=[0, 0, 20, 30], Resources=pikepdf.Dictionary(
                                   ExtGState=pikepdf.Dictionary(a0=alpha)))
        if loop:   # a form among its own resources: never shared, still written
            form.Resources.XObject = pikepdf.Dictionary(me=form)
        xobjects[f"/x{i}"] = form
    page.obj.Resources = pikepdf.Dictionary(XObject=xobjects)
    page.obj.Contents = pdf.make_stream(b" ".join(b"/x%d Do" % i for i in range(len(layers))) + b" " + own)
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def _sheet(bundles: list[bytes]) -> bytes:
    """Each bundle's one face placed on a page of its own, as sheets.py places faces."""
    w = PDFStream()
    keys = [f"face{i}" for i in range(len(bundles))]
    placed = write_forms(w, bundles, {k: (i, 0) for i, k in enumerate(keys)}, keys, Session().segments, {})
    tree = w.reserve()
    kids = []
    for key in keys:
        name, ref, _ = placed[key]
        content = w.add_stream({}, name.encode() + b" Do")
        kids.append(w.add({"/Type": Raw(b"/Page"), "/Parent": tree, "/MediaBox": [0, 0, 20, 30],
                           "/Resources": {"/XObject": {name: ref}}, "/Contents": content}))
    w.put(tree, {"/Type": Raw(b"/Pages"), "/Kids": kids, "/Count": len(kids)})
    return bytes(w.finish(w.add({"/Type": Raw(b"/Catalog"), "/Pages": tree})))


FRAME = b"0 0 1 rg 1 1 18 28 re f"
ICON = b"1 0 0 rg 5 5 4 4 re f"


def _forms(pdf: bytes) -> list[bytes]:
    """The content of every nested form (not a face's own) of a written PDF."""
    with pikepdf.open(io.BytesIO(pdf)) as doc:
        return sorted(o.read_bytes() for o in doc.objects if isinstance(o, pikepdf.Stream)
                      and o.get("/Subtype") == "/Form" and o.read_bytes() in (FRAME, ICON, b"other"))


def test_a_layer_on_many_faces_is_written_once():
    bundles = [_bundle([FRAME, ICON], b"0 g 2 2 3 3 re f"), _bundle([FRAME], b"0 g 9 9 3 3 re f"),
               _bundle([FRAME, b"other"], b"")]
    sheet = _sheet(bundles)
    assert _forms(sheet) == sorted([FRAME, ICON, b"other"]), "the frame three faces hold is written once"
    with pikepdf.open(io.BytesIO(sheet)) as doc:
        frames = {page.Resources.XObject[name].Resources.XObject.x0.objgen
                  for page in doc.pages for name in page.Resources.XObject}
        assert len(frames) == 1, "every face places the one frame"
        assert doc.check_pdf_syntax() == []
    assert _sheet(bundles) == sheet, "the same faces give the same bytes"
    pages = page_digests(sheet, 100)
    for i, bundle in enumerate(bundles):   # each page renders as the face written on its own
        assert page_digests(_sheet([bundle]), 100) == [pages[i]]


def test_a_form_that_refers_to_itself_is_written_but_not_shared():
    sheet = _sheet([_bundle([FRAME], b"", loop=True), _bundle([FRAME], b"", loop=True)])
    assert _forms(sheet) == [FRAME, FRAME]


def _text(pdf: bytes) -> list[str]:
    doc = pdfium.PdfDocument(pdf)
    try:
        return [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    finally:
        doc.close()


def _pinned(name: str) -> dict:
    pins = json.loads(PINS.read_text())
    if pins["pdfium"] != pdfium.PDFIUM_INFO.version:
        pytest.skip(f"pages pinned with PDFium {pins['pdfium']}, this is {pdfium.PDFIUM_INFO.version}")
    return pins["files"][name]


@pytest.mark.slow
@pytest.mark.parametrize("game, name", [("meteor", "meteor-sheets-a4.pdf"), ("olympians", "olympians-sheets-a4.pdf"),
                                        ("meta-olympia", "meta-olympia-sheets-a4.pdf"),
                                        ("meteor", "meteor-rulebook-a4.pdf")])
def test_shipped_sheets_render_as_before_and_are_smaller(all_builds, game, name):
    pin = _pinned(name)
    pdf = (all_builds[game] / name).read_bytes()
    assert page_digests(pdf, pin["dpi"]) == pin["pages"], "every page renders pixel for pixel as before"
    assert hashlib.sha256("\f".join(_text(pdf)).encode()).hexdigest() == pin["text"], "the text reads the same"
    assert len(pdf) < pin["bytes"] * pin["at most"], f"{name}: {len(pdf)} bytes, before {pin['bytes']}"
