"""Pictures prepared for print, face by face: colours through their profiles (CMYK, Adobe
RGB, grey), turned upright, alpha kept, 16-bit and palette pictures, the picture store
(prepared once, a damaged entry ignored), a picture shown twice on one face."""
from __future__ import annotations

import io
import re

import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageOps

from generator.draw import picturedraw
from generator.draw.bundlepdf import draw_bundle
from generator.draw.pictures import Policy
from generator.session import Session
from tests.picturekit import adobe_rgb_jpeg, cmyk_jpeg, delta_e, images, jpeg, png, reference, smooth

FACE = ('<svg xmlns="http://www.w3.org/2000/svg" width="50.8mm" height="38.1mm" viewBox="0 0 50.8 38.1">'
        '<rect width="50.8" height="38.1" fill="#f00"/>{pictures}</svg>')
WHOLE = '<image href="art/{name}" width="50.8" height="38.1" preserveAspectRatio="none"/>'


def draw(tmp_path, files: dict, body: str, policy: Policy | None = None, memo=None):
    """One face (2 x 1.5 in, red under the pictures) drawn with pictures from `files`."""
    (tmp_path / "art").mkdir(exist_ok=True)
    for name, data in files.items():
        (tmp_path / "art" / name).write_bytes(data)
    return draw_bundle([("k", FACE.format(pictures=body), (50.8, 38.1))], roots=(str(tmp_path),),
                       policy=policy or Policy(), memo=memo)


def shown(pdf: bytes, width: int = 200) -> Image.Image:
    """The face as a viewer shows it, `width` px wide."""
    page = pdfium.PdfDocument(pdf)[0]
    return page.render(scale=width / page.get_width()).to_pil().convert("RGB")


def naive(data: bytes) -> Image.Image:
    """What a viewer that ignores colour profiles shows (CairoSVG's own drawing did this)."""
    return Image.open(io.BytesIO(data)).convert("RGB")


@pytest.mark.parametrize("make, naive_error", [(cmyk_jpeg, 10), (adobe_rgb_jpeg, 3)])
def test_cmyk_and_icc_jpegs_show_the_colours_their_profile_says(tmp_path, make, naive_error):
    data = make(smooth(11))
    pdf, _, problems, _ = draw(tmp_path, {"x.jpg": data}, WHOLE.format(name="x.jpg"))
    assert not problems
    want = reference(data).resize((200, 150), Image.Resampling.BOX)
    assert delta_e(shown(pdf), want) < 2.0
    assert delta_e(naive(data).resize((200, 150), Image.Resampling.BOX), want) > naive_error   # the test can tell
    (found,) = images(pdf)
    assert found[0]["/ColorSpace"] == "/DeviceRGB" and found[0]["/Filter"] == "/DCTDecode"   # converted, still JPEG


def test_a_grey_jpeg_passes_through_as_grey(tmp_path):
    data = jpeg(smooth(12).convert("L"))
    pdf, *_ = draw(tmp_path, {"g.jpg": data}, WHOLE.format(name="g.jpg"))
    (found,) = images(pdf)
    assert found[0]["/ColorSpace"] == "/DeviceGray" and found[1] == data
    assert delta_e(shown(pdf), reference(data).resize((200, 150), Image.Resampling.BOX)) < 1.5


def test_a_jpeg_turned_by_its_exif_is_shown_upright(tmp_path):
    exif = Image.Exif()
    exif[0x0112] = 6   # stored turned, to be shown turned back
    data = jpeg(smooth(13).transpose(Image.Transpose.ROTATE_90), exif=exif.tobytes())
    pdf, *_ = draw(tmp_path, {"r.jpg": data}, WHOLE.format(name="r.jpg"))
    want = ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB")
    assert want.size == (600, 450)
    assert delta_e(shown(pdf), want.resize((200, 150), Image.Resampling.BOX)) < 2.0
    (found,) = images(pdf)
    assert (found[0]["/Width"], found[0]["/Height"]) == (600, 450)


def test_transparency_is_kept_and_lossless_pictures_stay_lossless(tmp_path):
    picture = smooth(14).convert("RGBA")
    alpha = Image.new("L", picture.size, 0)
    alpha.paste(255, (150, 100, 450, 350))   # opaque in the middle, clear around
    picture.putalpha(alpha)
    pdf, *_ = draw(tmp_path, {"a.png": png(picture)}, WHOLE.format(name="a.png"))
    face = shown(pdf)
    assert face.getpixel((5, 5)) == (255, 0, 0)   # the red beneath shows where the picture is clear
    middle = picture.convert("RGB").resize((200, 150), Image.Resampling.BOX).crop((60, 40, 140, 110))
    assert delta_e(face.crop((60, 40, 140, 110)), middle) < 1.5
    (found,) = images(pdf)
    assert found[0]["/Filter"] == "/FlateDecode" and "/SMask" in found[0]


@pytest.mark.parametrize("kind", ["grey16", "palette", "gif"])
def test_other_kinds_of_picture_are_drawn_right(tmp_path, kind):
    source = smooth(15)
    if kind == "grey16":
        grey = source.convert("L")
        data = png(grey.point(lambda v: v * 257, "I").convert("I;16"))
        want = grey.convert("RGB")
    elif kind == "palette":
        pal = source.quantize(64)
        data, want = png(pal), pal.convert("RGB")
    else:
        out = io.BytesIO()
        pal = source.quantize(128)
        pal.save(out, "GIF")
        data, want = out.getvalue(), pal.convert("RGB")
    pdf, _, problems, _ = draw(tmp_path, {"p.img": data}, WHOLE.format(name="p.img"))
    assert not problems
    assert delta_e(shown(pdf), want.resize((200, 150), Image.Resampling.BOX)) < 2.0


def test_a_picture_is_prepared_once_then_comes_from_the_store(tmp_path, monkeypatch):
    prepared = []
    real = picturedraw.prepare
    monkeypatch.setattr(picturedraw, "prepare", lambda *a: prepared.append(a[2]) or real(*a))
    files = {"big.jpg": jpeg(smooth(16, (1200, 900)))}
    store = Policy(store=str(tmp_path / "store"))
    first = draw(tmp_path, files, WHOLE.format(name="big.jpg") * 2, store)[0]
    assert prepared == [(600, 450)]   # twice on the face, prepared once
    assert draw(tmp_path, files, WHOLE.format(name="big.jpg"), store)[0] and len(prepared) == 1
    entry = next((tmp_path / "store").glob("*/*"))
    entry.write_bytes(entry.read_bytes()[:-100])   # a torn entry: never used, made again
    again = draw(tmp_path, files, WHOLE.format(name="big.jpg") * 2, store)[0]
    assert len(prepared) == 2 and again == first
    session = Session(remember=True)   # pnp watch: the session keeps what was prepared
    draw(tmp_path, files, WHOLE.format(name="big.jpg"), store, session.pictures)
    entry.unlink()
    draw(tmp_path, files, WHOLE.format(name="big.jpg"), store, session.pictures)
    assert len(prepared) == 2 and len(session.pictures) == 1


def test_a_picture_twice_on_one_face_gives_the_page_no_doubled_resource(tmp_path):
    data = jpeg(smooth(17))
    pdf, *_ = draw(tmp_path, {"p.jpg": data}, WHOLE.format(name="p.jpg") * 2)
    for names in re.findall(rb"/XObject\s*<<(.*?)>>", pdf, re.S):
        keys = re.findall(rb"/(\w+)\s+\d+\s+0\s+R", names)
        assert len(keys) == len(set(keys)), names   # cairo 1.16 writes a key twice for one uuid twice
    assert [raw for _, raw, _ in images(pdf)] == [data, data]   # stored once more here; once in the sheets


def test_draft_pictures_and_a_lower_resolution(tmp_path):
    files = {"big.png": png(smooth(18, (1200, 900)))}
    for policy, size in ((Policy(), (600, 450)), (Policy(dpi=150), (300, 225)), (Policy(draft=True), (200, 150))):
        pdf, *_ = draw(tmp_path, files, WHOLE.format(name="big.png"), policy)
        (found,) = images(pdf)
        assert (found[0]["/Width"], found[0]["/Height"]) == size, policy


def test_a_picture_that_is_not_one_is_named(tmp_path):
    _, keys, problems, _ = draw(tmp_path, {"bad.jpg": b"\xff\xd8\xff not a JPEG at all"}, WHOLE.format(name="bad.jpg"))
    assert [k for k in keys if k] == [] and [k for k, _ in problems] == ["k"]
    assert problems[0][1].startswith("image 'art/bad.jpg' cannot be read as a picture")
