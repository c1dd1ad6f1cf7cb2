"""Exports of a game with pictures: PNG faces, Tabletop Simulator sheets, print-shop PNGs
and DriveThruCards' PDF/X-1a show the same pictures, each picture stored once in the PDF,
JPEGs still JPEGs."""
from __future__ import annotations

import io

import pikepdf
import pytest
from PIL import Image

from generator.exports.pdfx.check import pdfx_problems
from tests.conftest import run
from tests.picturekit import art_game, delta_e, images, jpeg, png, reference, smooth

CARDS = {"a": "photo.jpg", "b": "big.png", "c": "photo.jpg"}


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    art = {"photo.jpg": jpeg(smooth(21)), "big.png": png(smooth(22, (1200, 900))),
           "background.jpg": jpeg(smooth(23, (900, 1200)))}
    root = art_game(tmp_path_factory.mktemp("pics"), CARDS, art)
    assert run(root, "build", "pics", "--paper", "a4").exit_code == 0
    return root, art


def _window(face: Image.Image) -> Image.Image:
    """The picture window of a front image (x 6..56.8 mm, y 19..57.1 mm of the 69 x 94 mm face), inset 1 mm."""
    w, h = face.size
    return face.crop((round(7 / 69 * w), round(20 / 94 * h), round(55.8 / 69 * w), round(56.1 / 94 * h)))


def _expected(data: bytes, size) -> Image.Image:
    full = reference(data).resize((round(50.8 / 48.8 * size[0]), round(38.1 / 36.1 * size[1])), Image.Resampling.BOX)
    dx, dy = (full.width - size[0]) // 2, (full.height - size[1]) // 2
    return full.crop((dx, dy, dx + size[0], dy + size[1]))


@pytest.mark.slow
def test_png_export_shows_the_pictures(game):
    root, art = game
    done = run(root, "export", "png", "pics", "--dpi", "150")
    assert done.exit_code == 0, done.output
    folder = root / "output" / "pics" / "exports" / "png" / "pics"
    for card, name in CARDS.items():
        window = _window(Image.open(folder / f"{card}-front.png").convert("RGB"))
        assert delta_e(window, _expected(art[name], window.size)) < 3.0, card


@pytest.mark.slow
def test_tts_and_print_shop_pngs_show_the_pictures(game):
    root, art = game
    assert run(root, "export", "tts", "pics", "--dpi", "100").exit_code == 0
    sheets = list((root / "output" / "pics" / "exports" / "tts").rglob("*.png"))
    assert sheets and all(Image.open(p).getextrema()[0] != (0, 0) for p in sheets)   # not blank
    assert run(root, "export", "--profile", "tgc", "pics").exit_code == 0
    front = next((root / "output" / "pics" / "exports" / "tgc").rglob("a.png"))
    face = Image.open(front).convert("RGB")
    assert face.size[0] > 700   # the shop's 300 dpi with its own bleed
    window = face.crop((round(face.width * 0.2), round(face.height * 0.3), round(face.width * 0.75),
                        round(face.height * 0.55)))
    assert len(window.getcolors(1 << 20) or []) > 1000   # a picture, not a flat colour


def test_drivethrucards_pdf_stores_each_picture_once_and_keeps_jpegs(game):
    root, _ = game
    done = run(root, "export", "--profile", "dtc", "pics")
    assert done.exit_code == 0, done.output
    pdf = (root / "output" / "pics" / "exports" / "dtc" / "pics.pdf").read_bytes()
    assert pdfx_problems(pdf) == []
    found = images(pdf)
    # the background (every card's front and back, 6 faces in 6 bundles' worth of pages), the photo
    # (two cards) and the painting: one image object each
    assert len(found) == 3, [(d["/Width"], d["/Height"]) for d, _, _ in found]
    for d, raw, _ in found:
        assert d["/ColorSpace"] == "/DeviceCMYK"
        if d["/Filter"] == "/DCTDecode":   # a JPEG stays a JPEG, in Adobe's inverted CMYK
            assert raw[:2] == b"\xff\xd8" and d["/Decode"] == "[ 1 0 1 0 1 0 1 0 ]"
        else:
            assert "/Predictor" in d["/DecodeParms"]
    assert sorted(d["/Filter"] for d, _, _ in found) == ["/DCTDecode", "/DCTDecode", "/FlateDecode"]
    sheets = (root / "output" / "pics" / "pics-sheets-a4.pdf").stat().st_size
    assert len(pdf) < 3 * sheets, (len(pdf), sheets)


def test_drivethrucards_pictures_print_their_colours(game):
    """PDFium shows the CMYK JPEG (with its /Decode) as a viewer would: close to the
    picture, not its negative."""
    root, art = game
    pdf = root / "output" / "pics" / "exports" / "dtc" / "pics.pdf"
    if not pdf.exists():
        assert run(root, "export", "--profile", "dtc", "pics").exit_code == 0
    import pypdfium2 as pdfium

    with pikepdf.open(pdf) as doc:
        trim = [float(v) for v in doc.pages[1].trimbox]
    page = pdfium.PdfDocument(pdf.read_bytes())[1]   # card a's front (back, then front)
    scale = 3
    image = page.render(scale=scale).to_pil().convert("RGB")
    height = page.get_height()
    face = image.crop((round(trim[0] * scale), round((height - trim[3]) * scale),
                       round(trim[2] * scale), round((height - trim[1]) * scale)))
    face = face.resize((630, 880))   # the 63 x 88 mm trim
    window = face.crop((40, 160, 528, 521))   # 4..52.8 mm across, 16..52.1 mm down: inside the window
    want = reference(art["photo.jpg"]).resize((500, 375), Image.Resampling.BOX).crop((6, 7, 494, 368))
    assert delta_e(window, want) < 12   # through SWOP and back, as PDFium shows CMYK
    negative = Image.eval(want, lambda v: 255 - v)
    assert delta_e(window, negative) > 40
    assert io.BytesIO(pdf.read_bytes()).getvalue()[:5] == b"%PDF-"
