"""The streaming PDF writer: what it writes is a valid PDF that reads back as written."""
import io
import zlib

import pikepdf
import pytest

from generator.layout.pdfstream import PDFStream, Raw, number


def _source() -> pikepdf.Pdf:
    """A PDF with a shared indirect font, a stream and a direct resource dictionary."""
    src = pikepdf.new()
    font = src.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1,
                                                BaseFont=pikepdf.Name("/Fake#20Font")))
    for text in (b"0 0 1 1 re f", b"1 0 0 rg 0 0 2 2 re f"):
        src.add_blank_page(page_size=(10, 20))
        src.pages[-1].obj.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font))
        src.pages[-1].obj.Contents = src.make_stream(text)
    return pikepdf.open(io.BytesIO(_saved(src)))


def _saved(pdf) -> bytes:
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def _write(n_extra: int = 0) -> bytes:
    src = _source()
    w = PDFStream()
    tree = w.reserve()
    w.new_source()
    kids = []
    for page in src.pages:
        content = w.add_stream({"/Filter": Raw(b"/FlateDecode")}, zlib.compress(page.obj.Contents.read_bytes()))
        kids.append(w.add({"/Type": Raw(b"/Page"), "/Parent": tree, "/MediaBox": page.obj.MediaBox,
                           "/Resources": page.obj.Resources, "/Contents": content}))
    extras = [w.add({"/N": i, "/R": 0.25 * i, "/S": pikepdf.String(f"({i})")}) for i in range(n_extra)]
    w.put(tree, {"/Type": Raw(b"/Pages"), "/Kids": kids, "/Count": len(kids)})
    root = w.add({"/Type": Raw(b"/Catalog"), "/Pages": tree, "/Extras": extras})
    return w.finish(root)


@pytest.mark.parametrize("n_extra", [0, 250])
def test_what_is_written_reads_back_the_same(n_extra):
    data = _write(n_extra)
    pdf = pikepdf.open(io.BytesIO(data))
    assert pdf.check_pdf_syntax() == []
    assert len(pdf.pages) == 2
    assert [p.obj.Contents.read_bytes() for p in pdf.pages] == [b"0 0 1 1 re f", b"1 0 0 rg 0 0 2 2 re f"]
    assert [float(v) for v in pdf.pages[0].mediabox] == [0, 0, 10, 20]
    fonts = [p.obj.Resources.Font.F1 for p in pdf.pages]
    assert fonts[0].objgen == fonts[1].objgen, "a source's indirect object is written once"
    assert str(fonts[0].BaseFont) == "/Fake#20Font" or fonts[0].BaseFont == pikepdf.Name("/Fake Font")
    extras = pdf.Root.Extras
    assert [int(e.N) for e in extras] == list(range(n_extra))
    assert [float(e.R) for e in extras] == [0.25 * i for i in range(n_extra)]
    assert [str(e.S) for e in extras] == [f"({i})" for i in range(n_extra)]


def test_the_same_input_gives_the_same_bytes_and_id():
    a, b = _write(120), _write(120)
    assert a == b
    assert pikepdf.open(io.BytesIO(a)).trailer.ID[0] == pikepdf.open(io.BytesIO(a)).trailer.ID[1]
    assert a != _write(121)


def test_a_reserved_object_never_written_is_an_error():
    w = PDFStream()
    w.reserve()
    root = w.add({"/Type": Raw(b"/Catalog")})
    with pytest.raises(ValueError, match="never written"):
        w.finish(root)


@pytest.mark.parametrize("value, text", [(1.0, "1"), (-0.0, "0"), (0.1 + 0.2, "0.3"), (1e-7, "0"),
                                         (2.5e6, "2500000"), (-12.345678, "-12.34568")])
def test_numbers_have_no_exponent_and_no_minus_zero(value, text):
    assert number(value) == text


def _with_segments(replay: dict | None):
    """Two pages, each written as a segment (or replayed from `replay`, keyed by page index);
    returns (PDF bytes, the segments written)."""
    src = _source()
    w = PDFStream()
    tree = w.reserve()
    w.new_source()
    kids, made = [], {}
    for i, page in enumerate(src.pages):
        if replay and i in replay:
            segment, kid, seen = replay[i]
            w.replay(segment)
            w.seen.update(seen)
            kids.append(kid)
            continue
        mark, before = w.mark(), set(w.seen)
        kids.append(w.add({"/Type": Raw(b"/Page"), "/Parent": tree, "/MediaBox": page.obj.MediaBox,
                           "/Resources": page.obj.Resources, "/Contents": page.obj.Contents}))
        made[i] = (w.since(mark), kids[-1], {k: v for k, v in w.seen.items() if k not in before})
    w.mark()
    w.put(tree, {"/Type": Raw(b"/Pages"), "/Kids": kids, "/Count": len(kids)})
    return w.finish(w.add({"/Type": Raw(b"/Catalog"), "/Pages": tree})), made


@pytest.mark.parametrize("replayed", [{0}, {1}, {0, 1}])
def test_replayed_segments_give_the_bytes_written_fresh(replayed):
    fresh, made = _with_segments(None)
    again, _ = _with_segments({i: made[i] for i in replayed})
    assert again == fresh  # page 1 after a replayed page 0 still refers to the font page 0 wrote
    pdf = pikepdf.open(io.BytesIO(again))
    assert pdf.check_pdf_syntax() == [] and len(pdf.pages) == 2


def test_a_segment_is_replayed_only_where_it_was_written():
    _, made = _with_segments(None)
    w = PDFStream()
    w.reserve()
    w.reserve()  # one object more before it: its numbers would mean other objects
    with pytest.raises(ValueError, match="only where it was written"):
        w.replay(made[0][0])


def _bundle(*fonts: str) -> bytes:
    """A face bundle: a page per font name, each drawing with that font (an indirect font,
    with a string that reads like a reference and a hex string, which moving one leaves)."""
    pdf = pikepdf.new()
    for name in fonts:
        font = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1,
                                                    BaseFont=pikepdf.Name("/" + name),
                                                    Note=pikepdf.String("(see 1 0 R) \\ 2 0 R"),
                                                    Key=pikepdf.String(b"\x00\xff 3 0 R")))
        pdf.add_blank_page(page_size=(10, 20))
        pdf.pages[-1].obj.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font))
        pdf.pages[-1].obj.Contents = pdf.make_stream(b"BT /F1 5 Tf (x) Tj ET")
    return _saved(pdf)


def _forms(bundles: list[bytes], segments, monkeypatch, moved: list | None = None) -> tuple[bytes, list[int]]:
    """Every face of `bundles` written as forms (forms.write_forms, as the sheets do, with
    `segments` a watch's); returns the PDF and the bundles written rather than copied
    (`moved`: given, each number a segment was moved to is appended)."""
    from generator.layout import forms

    written = []
    monkeypatch.undo()   # the writer itself, not the one an earlier call put in its place
    real, move = forms._write_bundle, forms.relocated
    monkeypatch.setattr(forms, "_write_bundle", lambda w, data, *rest: (written.append(bundles.index(data)),
                                                                         real(w, data, *rest))[1])
    if moved is not None:
        monkeypatch.setattr(forms, "relocated", lambda *a: (moved.append(a[1]), move(*a))[1])
    page_of = {f"{doc}/{n}": (doc, n) for doc, data in enumerate(bundles)
               for n in range(len(pikepdf.open(io.BytesIO(data)).pages))}
    w = PDFStream()
    placed = forms.write_forms(w, bundles, page_of, list(page_of), segments, {})
    return w.finish(w.add({"/Type": Raw(b"/Catalog"), "/Forms": [ref for _, ref, _ in placed.values()]})), written


def test_a_bundle_after_an_edited_one_is_replayed_unless_it_met_what_the_edit_changed(monkeypatch):
    """While watching, a bundle's forms are copied from the last rebuild when what they met
    of the fonts written before them is the same: an edit that changes one bundle's own
    font (a letter new to the game) leaves every later bundle as it was, but a later
    bundle that reused a font the edited bundle wrote is written again. Either way the
    bytes are those a fresh write makes."""
    from generator.rendermemo import Kept

    before = [_bundle("Shared", "Own0"), _bundle("Own1"), _bundle("Shared", "Own2")]
    segments = Kept(1 << 20)
    _, written = _forms(before, segments, monkeypatch)
    assert written == [0, 1, 2]

    own_font_edited = [before[0], _bundle("Own1x"), before[2]]   # bundle 2 never met Own1
    again, written = _forms(own_font_edited, segments, monkeypatch)
    assert written == [1], "only the edited bundle is written; the one after it is replayed"
    assert again == _forms(own_font_edited, Kept(1 << 20), monkeypatch)[0]

    shared_font_edited = [_bundle("Other", "Own0"), before[1], before[2]]   # bundle 2 reused bundle 0's Shared
    again, written = _forms(shared_font_edited, segments, monkeypatch)
    assert written == [0, 2], "a bundle that met the changed font is written again"
    assert again == _forms(shared_font_edited, Kept(1 << 20), monkeypatch)[0]


def _bundle_of_forms(*faces: dict[str, bytes]) -> bytes:
    """A face bundle whose faces draw forms: each face {resource name: the form's content},
    one form object per content in the bundle (a frame on several faces is one object)."""
    pdf = pikepdf.new()
    made: dict[bytes, pikepdf.Object] = {}
    for face in faces:
        xobjects = {}
        for name, content in face.items():
            if content not in made:
                made[content] = pdf.make_stream(content, Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Form,
                                                BBox=[0, 0, 10, 20])
            xobjects[name] = made[content]
        pdf.add_blank_page(page_size=(10, 20))
        pdf.pages[-1].obj.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(xobjects))
        pdf.pages[-1].obj.Contents = pdf.make_stream(b" ".join(b"%s Do" % n.encode() for n in face))
    return _saved(pdf)


def test_an_edit_that_changes_the_order_a_face_meets_its_forms_leaves_later_bundles_alone(monkeypatch):
    """The forms (and pictures) a bundle's faces use are numbered before anything else of it,
    those on several of its faces first, each group by digest, not as met: an edited face
    that now draws its own new form before the frame every face has leaves the frame's
    number, so a later bundle that draws the frame too is copied while watching."""
    from generator.rendermemo import Kept

    frame, later = b"0 0 10 20 re S", _bundle_of_forms({"/Fr": b"0 0 10 20 re S", "/Own": b"1 1 2 2 re f"})
    before = [_bundle_of_forms({"/X1": frame, "/X2": b"0 0 1 1 re f"}, {"/X1": frame}), later]
    segments = Kept(1 << 20)
    _, written = _forms(before, segments, monkeypatch)
    assert written == [0, 1]
    edited = [_bundle_of_forms({"/X0": b"0 0 3 3 re f", "/X1": frame}, {"/X1": frame}), later]
    again, written = _forms(edited, segments, monkeypatch)
    assert written == [0], "the bundle after the edited one is copied: the frame kept its number"
    assert again == _forms(edited, Kept(1 << 20), monkeypatch)[0]


def test_bundles_after_one_that_now_writes_other_objects_are_moved_not_written_again(monkeypatch):
    """While watching, an edit after which a bundle writes more objects (a font more), or
    numbers a font a later bundle shares otherwise, moves every later bundle's forms to
    their new numbers (relocate.py) instead of writing them again from their PDF: the
    bytes a fresh write makes."""
    from generator.rendermemo import Kept

    moved: list[int] = []
    before = [_bundle("Shared", "Own0"), _bundle("Own1"), _bundle("Shared", "Own2")]
    segments = Kept(1 << 20)
    _forms(before, segments, monkeypatch)

    a_font_more = [before[0], _bundle("Own1", "More1"), before[2]]
    again, written = _forms(a_font_more, segments, monkeypatch, moved)
    assert written == [1] and len(moved) == 1, "the bundle after the edited one is moved"
    assert again == _forms(a_font_more, Kept(1 << 20), monkeypatch)[0]

    moved.clear()
    shared_renumbered = [_bundle("Extra", "Shared", "Own0"), before[1], before[2]]   # Shared one number on
    again, written = _forms(shared_renumbered, segments, monkeypatch, moved)
    assert written == [0] and len(moved) == 2
    assert again == _forms(shared_renumbered, Kept(1 << 20), monkeypatch)[0]
    moved.clear()
    assert _forms(shared_renumbered, segments, monkeypatch, moved)[1:] == ([],) and not moved, \
        "a moved segment is kept where it was moved: the next rebuild copies it as it is"


def test_a_segment_of_real_faces_moved_is_what_a_write_at_those_numbers_makes():
    """Faces drawn by cairo (fonts with their widths, descriptors and files, a group drawn
    with opacity, a picture, text): each bundle's forms written after 1 object and after 6;
    every segment of the first, moved by 5 with every earlier object's number, is the
    second's byte for byte."""
    import base64

    from generator.draw.bundlepdf import draw_bundle
    from generator.layout.forms import write_forms
    from generator.layout.relocate import relocated
    from generator.rendermemo import Kept

    dot = base64.b64encode(bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478da63f8cfc000"
        "00030101001898ba6b0000000049454e44ae426082")).decode()

    def face(n: int) -> str:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="20mm" height="30mm" viewBox="0 0 20 30">'
                f'<g opacity="0.5"><rect width="20" height="30" fill="#c33"/></g>'
                f'<image href="data:image/png;base64,{dot}" x="2" y="2" width="4" height="4"/>'
                f'<text x="2" y="20" font-family="Lato" font-size="3">Card {n} (1 0 R)</text>'
                f'<text x="2" y="25" font-family="Lato" font-weight="bold" font-size="3">Bold {n}</text></svg>')

    bundles = [draw_bundle([(f"k{b}{n}", face(3 * b + n), (20, 30)) for n in range(2)])[0] for b in range(3)]
    page_of = {f"k{b}{n}": (b, n) for b in range(3) for n in range(2)}
    kept = []
    for extra in (1, 6):
        w, segments = PDFStream(), Kept(1 << 24)
        for _ in range(extra):
            w.reserve()
        write_forms(w, bundles, page_of, list(page_of), segments, {})
        kept.append({key[:3]: value[0] for key, value in segments.items()})
    assert len(kept[0]) == 3
    for key, segment in kept[0].items():
        there = kept[1][key]
        assert relocated(segment, there.first, {n: n + 5 for n in range(1, segment.first)}).data == there.data
        assert relocated(segment, there.first, {n: n + 5 for n in range(1, segment.first)}).entries == there.entries
