"""DriveThruCards files as PDF/X-1a:2003: CMYK through the ICC profile, transparency drawn as
pixels only where it must be, text vector and extractable, bytes reproducible; the checker
refuses what a print shop's preflight would."""
from __future__ import annotations

import io
import json
import re

import pikepdf
import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageStat

from generator.exports.pdfx.check import pdfx_problems
from generator.exports.pdfx.cmyk import Cmyk
from generator.exports.pdfx.paint import Analyser, raster_set
from tests.conftest import run
from tests.test_exports import make_game

# Drawn in this order: an opaque background, text that a later gradient with alpha covers,
# that gradient (a soft mask in PDF), a half-transparent disc, text that is itself
# transparent, and last the card's name and rules, clear of every transparent mark.
LAYERED_FRONT = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <defs><linearGradient id="fade"><stop offset="0" stop-color="#cc3311"/>
    <stop offset="1" stop-color="#cc3311" stop-opacity="0.2"/></linearGradient></defs>
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="#336699"/>
  <text x="10" y="70" font-family="Lato" font-size="5" fill="#ffffff">UNDER {{ card.id }}</text>
  <rect x="5" y="60" width="55" height="15" fill="url(#fade)"/>
  <circle cx="50" cy="40" r="8" fill="#ffcc00" opacity="0.5"/>
  <text x="8" y="45" font-family="Lato" font-size="4" fill="#ffffff" fill-opacity="0.6">GHOST</text>
  <text x="6" y="12" font-family="Lato" font-size="5" fill="#000000">{{ card.name }}</text>
  <text x="6" y="86" font-family="Lato" font-size="3.5" fill="#ffffff">{{ card.text }}</text>
</svg>
"""


def dtc(root, *names):
    result = run(root, "export", "--profile", "dtc", "ex", *names)
    assert result.exit_code == 0, result.output
    folder = root / "output" / "ex" / "exports" / "dtc"
    return folder, json.loads((folder / "manifest.json").read_text())["files"][0]


def plain(data: bytes) -> bytes:
    """Every dictionary and array of a PDF and its decoded page and form contents, as text."""
    pdf = pikepdf.open(io.BytesIO(data))
    out = [page.obj.Contents.read_bytes() for page in pdf.pages]
    for obj in pdf.objects:
        if isinstance(obj, pikepdf.Stream):
            out.append(obj.stream_dict.unparse())
            if obj.get("/Subtype") == "/Form":
                out.append(obj.read_bytes())
        elif isinstance(obj, (pikepdf.Dictionary, pikepdf.Array)):
            out.append(obj.unparse())
    return b"\n".join(out)


def shown(form) -> tuple[str, str]:
    """The text a form shows with ink, and the text it shows invisibly (rendering mode 3)."""
    mode, visible, hidden = 0, [], []
    for ins in pikepdf.parse_content_stream(form):
        op = str(ins.operator)
        if op == "Tr":
            mode = int(ins.operands[0])
        elif op in ("Tj", "TJ"):
            items = ins.operands[0] if op == "TJ" else [ins.operands[0]]
            words = "".join(bytes(i).decode("latin-1") for i in items if isinstance(i, pikepdf.String))
            (hidden if mode == 3 else visible).append(words)
    return " ".join(visible), " ".join(hidden)   # words in one TJ run together: "Carda"


@pytest.fixture
def layered(tmp_path):
    root = make_game(tmp_path / "proj", [("a", 2), ("b", 1)])
    (root / "templates" / "ex" / "front.svg.j2").write_text(LAYERED_FRONT)
    return root


def test_layered_faces_are_pdfx_1a_with_text_above_transparency_vector(layered):
    folder, info = dtc(layered)
    data = (folder / "things.pdf").read_bytes()
    assert pdfx_problems(data) == []
    assert data.startswith(b"%PDF-1.4")
    assert info["colour"] == "CMYK" and info["pdf"] == "PDF/X-1a:2003"
    assert info["output_intent"] == Cmyk().description
    # an independent look at every object and content stream, as text: no RGB operator or space,
    # no alpha, no soft mask
    text = plain(data)
    assert b" k\n" in text or b" k " in text
    assert not re.search(rb"\brg\b|\bRG\b|/DeviceRGB|/CalRGB|/SMask|/Transparency", text)
    assert not re.search(rb"/(CA|ca) 0?\.\d", text)
    # the fronts were partly drawn as pixels: one image each, the backs (opaque) none
    flattened = {(f["card"], f["side"]): f for f in info["flattened"]}
    assert set(flattened) == {("a", "front"), ("b", "front")}
    # "UNDER a" lies beneath the gradient and "GHOST" is transparent (cairo shows it letter by letter)
    assert all(f["text_in_pixels"] == 1 + len("GHOST") for f in flattened.values())
    pdf = pikepdf.open(folder / "things.pdf")
    doc = pdfium.PdfDocument(str(folder / "things.pdf"))
    for number, (card, side) in enumerate(info["cards"]):
        page = pdf.pages[number]
        face = next(iter(page.Resources.XObject.values()))
        images = [x for x in face.Resources.get("/XObject", {}).values() if x.Subtype == "/Image"]
        assert len(images) == (1 if side == "front" else 0)
        words = doc[number].get_textpage().get_text_range()
        if side == "front":
            # every word is still text: the vector ones and, invisible over their pixels, the others
            assert f"Card {card}" in words and f"text of {card}" in words
            assert f"UNDER {card}" in words and "GHOST" in words
            visible, hidden = shown(face)
            assert f"Card{card}" in visible and f"textof{card}" in visible
            assert "UNDER" in hidden and "G" in hidden and "UNDER" not in visible and "G" not in visible
        else:
            assert f"BACK {card}" in words


def test_colours_go_through_the_profile_and_black_is_k_only(layered):
    folder, _ = dtc(layered)
    pdf = pikepdf.open(folder / "things.pdf")
    face = next(iter(pdf.pages[1].Resources.XObject.values()))
    fills = {tuple(round(float(v), 4) for v in i.operands) for i in pikepdf.parse_content_stream(face)
             if isinstance(i, pikepdf.ContentStreamInstruction) and str(i.operator) == "k"}
    cmyk = Cmyk()
    assert (0, 0, 0, 1) in fills                      # the black name: K only
    assert cmyk.colour((1, 1, 1)) == (0, 0, 0, 0)
    blue = cmyk.colour((0x33 / 255, 0x66 / 255, 0x99 / 255))
    naive_k = 1 - 0x99 / 255
    assert abs(blue[3] - naive_k) > 0.05, "not the naive 1 - max(r, g, b) formula"
    # the background is drawn as pixels (a transparent mark lies on it): its CMYK is the profile's
    image = pikepdf.PdfImage(next(x for x in face.Resources.XObject.values() if x.Subtype == "/Image"))
    pixel = image.as_pil_image().getpixel((3, 3))
    assert all(abs(p / 255 - b) <= 1.5 / 255 for p, b in zip(pixel, blue))


@pytest.mark.slow
def test_pages_look_like_the_rgb_faces(layered):
    """PDFium draws the CMYK page back close to the RGB face of `pnp export png`."""
    folder, info = dtc(layered)
    assert run(layered, "export", "png", "ex").exit_code == 0
    pngs = layered / "output" / "ex" / "exports" / "png"
    doc = pdfium.PdfDocument(str(folder / "things.pdf"))
    for number, (card, side) in enumerate(info["cards"][:4]):
        page = doc[number].render(scale=825 / 198).to_pil().convert("RGB").resize((825, 1125))
        face = Image.open(next(pngs.rglob(f"{card}-{side}.png"))).convert("RGB")
        assert page.size == face.size
        means = ImageStat.Stat(page).mean, ImageStat.Stat(face).mean
        assert all(abs(a - b) < 4 for a, b in zip(*means)), (card, side, means)
        # and region by region (a 5 x 7 grid): nothing moved or went missing
        for gx in range(5):
            for gy in range(7):
                box = (gx * 165, gy * 160, gx * 165 + 165, gy * 160 + 160)
                a, b = ImageStat.Stat(page.crop(box)).mean, ImageStat.Stat(face.crop(box)).mean
                assert all(abs(x - y) < 10 for x, y in zip(a, b)), (card, side, box, a, b)


@pytest.mark.slow
def test_same_cards_same_bytes(layered):
    folder, _ = dtc(layered)
    first = (folder / "things.pdf").read_bytes()
    folder, _ = dtc(layered)
    assert (folder / "things.pdf").read_bytes() == first
    pdf = pikepdf.open(io.BytesIO(first))
    info = pdf.docinfo
    assert str(info.CreationDate) == str(info.ModDate) == "D:20000101000000Z"
    assert str(info.GTS_PDFXVersion) == "PDF/X-1a:2003" and info.Trapped == pikepdf.Name("/False")


def test_opaque_faces_stay_all_vector(tmp_path):
    root = make_game(tmp_path / "proj", [("a", 1)])
    folder, info = dtc(root)
    assert info["flattened"] == []
    pdf = pikepdf.open(folder / "things.pdf")
    assert not [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image"]
    assert pdfx_problems((folder / "things.pdf").read_bytes()) == []


def test_raster_set_takes_what_lies_beneath_transparency_only():
    pdf = pikepdf.new()
    content = (b"0 0 1 rg 0 0 100 100 re f "                       # 0: background, beneath the disc
               b"1 0 0 rg 80 80 10 10 re f "                        # 1: a square the disc does not reach
               b"BT /F1 10 Tf 20 20 Td (under) Tj ET "             # 2: text beneath the disc
               b"q /half gs 0 1 0 rg 10 10 40 40 re f Q "          # 3: half transparent
               b"BT /F1 10 Tf 20 30 Td (over) Tj ET "              # 4: text above it
               b"0 g 60 60 5 5 re f")                               # 5: opaque, after
    form = pdf.make_stream(content)
    form.BBox = [0, 0, 100, 100]
    font = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica,
                              FirstChar=32, Widths=[500] * 95,
                              FontDescriptor=pikepdf.Dictionary(FontBBox=[-100, -200, 1000, 900]))
    form.Resources = pikepdf.Dictionary(ExtGState={"/half": pikepdf.Dictionary(ca=0.5)}, Font={"/F1": font})
    paints = Analyser().paints(form, (0, 0, 100, 100))
    assert [p.transparent for p in paints] == [False, False, False, True, False, False]
    order = [p.index for p in paints]
    assert raster_set(paints) == {order[0], order[2], order[3]}
    # the text box comes from the widths: "under" is 5 glyphs of 5 pt from x = 20
    under = paints[2].box
    assert under[0] <= 20 and 45 <= under[2] <= 56 and under[1] <= 18 and under[3] >= 28


def test_checker_refuses_an_rgb_transparent_pdf():
    """A PDF like pnp's earlier DriveThruCards files (RGB, transparency, PDF 1.5) fails on each count."""
    from generator.layout.pdfpage import save_pdf
    pdf = pikepdf.new()
    page = pdf.add_blank_page(page_size=(100, 100))
    page.contents_add(pdf.make_stream(b"q /g gs 0.2 0.4 0.6 rg 0 0 50 50 re f Q"))
    page.Resources = pikepdf.Dictionary(ExtGState={"/g": pikepdf.Dictionary(ca=0.5, SMask=pikepdf.Dictionary())})
    found = " | ".join(pdfx_problems(save_pdf(pdf)))
    for expected in ("PDF 1.3 or 1.4", "GTS_PDFXVersion", "Trapped", "OutputIntents", "no TrimBox",
                     "ca 0.5", "soft mask", "RGB colour operator rg", "CreationDate"):
        assert expected in found, expected


def test_missing_cmyk_profile_is_a_clear_error(layered, monkeypatch, tmp_path):
    import generator.exports.pdfx.cmyk as cmyk
    monkeypatch.setattr(cmyk, "CMYK_PROFILE", tmp_path / "nowhere.icc")
    result = run(layered, "export", "--profile", "dtc", "ex")
    assert result.exit_code == 2
    assert "nowhere.icc" in result.output and "libgs-common" in result.output
    assert "Traceback" not in result.output


def test_olympians_for_drivethrucards(olympians_dtc):
    """A real game: every file PDF/X-1a, every front's card name still text."""
    folder = olympians_dtc
    files = json.loads((folder / "manifest.json").read_text())["files"]
    assert [f["path"] for f in files] == ["playing-cards.pdf", "reference.pdf"]
    for entry in files:
        data = (folder / entry["path"]).read_bytes()
        assert pdfx_problems(data) == [], entry["path"]
        doc = pdfium.PdfDocument(data)
        texts = [doc[n].get_textpage().get_text_range() for n in range(len(doc))]
        assert all(t.strip() for t, (_, side) in zip(texts, entry["cards"]) if side == "front")
    # what Olympians draws transparently (stars on the back, a glow on the fronts) is pixels,
    # and no front's text went into them
    playing = files[0]
    assert {f["side"] for f in playing["flattened"]} == {"back", "front"}
    assert sum(f["text_in_pixels"] for f in playing["flattened"]) == 0


def test_rgb_shading_becomes_a_table_of_profile_colours():
    pdf = pikepdf.new()
    red_to_white = pikepdf.Dictionary(FunctionType=2, Domain=[0, 1], C0=[1, 0, 0], C1=[1, 1, 1], N=1)
    white_to_blue = pikepdf.Dictionary(FunctionType=2, Domain=[0, 1], C0=[1, 1, 1], C1=[0, 0, 1], N=1)
    shading = pikepdf.Dictionary(ShadingType=2, ColorSpace=pikepdf.Name.DeviceRGB, Coords=[0, 0, 100, 0],
                                 Extend=[True, True], Function=pikepdf.Dictionary(
                                     FunctionType=3, Domain=[0, 1], Bounds=[0.5], Encode=[0, 1, 0, 1],
                                     Functions=[red_to_white, white_to_blue]))
    cmyk = Cmyk()
    out = cmyk.shading(pdf, shading)
    assert out.ColorSpace == pikepdf.Name.DeviceCMYK and out.Function.FunctionType == 0
    assert list(out.Extend) == [True, True] and [float(v) for v in out.Coords] == [0, 0, 100, 0]
    table = out.Function.read_bytes()
    size = int(out.Function.Size[0])
    assert len(table) == 4 * size

    def expected(t):   # the stitched RGB gradient, worked out by hand
        if t < 0.5:
            u = t / 0.5
            return (1, u, u)
        u = (t - 0.5) / 0.5
        return (1 - u, 1 - u, 1)

    for k in (0, 64, 127, 128, 200, size - 1):
        t = k / (size - 1)
        assert tuple(table[4 * k:4 * k + 4]) == tuple(round(v * 255) for v in cmyk.colour(expected(t))), k
    assert tuple(table[:4]) == tuple(round(v * 255) for v in cmyk.colour((1, 0, 0)))


def test_a_colour_space_pdfx_1a_cannot_take_is_named():
    from generator.exports.pdfx.recolour import Recolour
    pdf = pikepdf.new()
    form = pdf.make_stream(b"/L0 cs 50 0 0 sc 0 0 10 10 re f")
    form.BBox = [0, 0, 10, 10]
    form.Resources = pikepdf.Dictionary(ColorSpace={"/L0": pikepdf.Array(
        [pikepdf.Name.Lab, pikepdf.Dictionary(WhitePoint=[0.95, 1, 1.09])])})
    with pytest.raises(ValueError, match="colour space /Lab"):
        Recolour(pdf, Cmyk()).stream(form)


def test_export_says_which_faces_hold_text_in_pixels(layered):
    result = run(layered, "export", "--profile", "dtc", "ex")
    assert result.exit_code == 0, result.output
    assert "note: ex: 2 faces draw with transparency" in result.output
    assert "things/a (front), things/b (front)" in result.output
