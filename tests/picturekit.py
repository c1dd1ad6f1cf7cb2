"""Test pictures and a small game that draws them (for test_pictures*.py).

Pictures are smooth (gradients and large soft shapes), so a page rendered by PDFium and a
reference made with Pillow agree closely wherever they sample; each depends only on its
seed. `art_game` writes a one-deck game whose fronts place a picture in a 2 x 1.5 inch
window (600 x 450 px at 300 dpi) over a full-bleed background.
"""
from __future__ import annotations

import io
import random
import textwrap
from pathlib import Path

from PIL import Image, ImageCms, ImageDraw, ImageFilter

ICC = Path("/usr/share/color/icc/ghostscript")   # Debian's libgs-common (make test installs it)
WINDOW_IN = (2.0, 1.5)    # the picture window of a front, inches


def smooth(seed: int, size=(600, 450)) -> Image.Image:
    """A smooth RGB picture: a diagonal gradient between two colours and a few soft discs."""
    rng = random.Random(seed)
    w, h = size
    c1, c2 = (tuple(rng.randrange(20, 235) for _ in range(3)) for _ in range(2))
    ramp = Image.linear_gradient("L").rotate(rng.uniform(0, 90), resample=Image.Resampling.BICUBIC, fillcolor=128)
    img = Image.composite(Image.new("RGB", (w, h), c1), Image.new("RGB", (w, h), c2), ramp.resize((w, h)))
    pen = ImageDraw.Draw(img)
    for _ in range(4):
        x, y, r = rng.randrange(w), rng.randrange(h), rng.randrange(h // 6, h // 3)
        pen.ellipse((x - r, y - r, x + r, y + r), fill=tuple(rng.randrange(256) for _ in range(3)))
    return img.filter(ImageFilter.GaussianBlur(max(2, w // 60)))


def jpeg(img: Image.Image, **kw) -> bytes:
    out = io.BytesIO()
    img.save(out, "JPEG", quality=kw.pop("quality", 90), **kw)
    return out.getvalue()


def png(img: Image.Image, **kw) -> bytes:
    out = io.BytesIO()
    img.save(out, "PNG", **kw)
    return out.getvalue()


def cmyk_jpeg(img: Image.Image) -> bytes:
    """Separated to CMYK through SWOP and saved as Photoshop does: Adobe's inverted CMYK, the profile embedded."""
    icc = (ICC / "default_cmyk.icc").read_bytes()
    to_cmyk = ImageCms.buildTransform(ImageCms.createProfile("sRGB"), ImageCms.ImageCmsProfile(io.BytesIO(icc)),
                                      "RGB", "CMYK", renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
    return jpeg(ImageCms.applyTransform(img, to_cmyk), icc_profile=icc, subsampling=0, quality=95)


def adobe_rgb_jpeg(img: Image.Image) -> bytes:
    """The picture converted to Adobe RGB (1998) and tagged with its profile."""
    icc = (ICC / "a98.icc").read_bytes()
    to_a98 = ImageCms.buildTransform(ImageCms.createProfile("sRGB"), ImageCms.ImageCmsProfile(io.BytesIO(icc)),
                                     "RGB", "RGB", renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
    return jpeg(ImageCms.applyTransform(img, to_a98), icc_profile=icc, subsampling=0, quality=95)


def reference(data: bytes) -> Image.Image:
    """What a colour-managed viewer shows: the picture upright, through its profile, in sRGB."""
    from PIL import ImageOps

    im = ImageOps.exif_transpose(Image.open(io.BytesIO(data)))
    icc = im.info.get("icc_profile")
    if icc:
        return ImageCms.profileToProfile(im, ImageCms.ImageCmsProfile(io.BytesIO(icc)),
                                         ImageCms.createProfile("sRGB"), outputMode="RGB",
                                         renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC,
                                         flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)
    return im.convert("RGB")


def delta_e(a: Image.Image, b: Image.Image) -> float:
    """Mean CIE76 colour difference of two RGB (sRGB) images of one size."""
    to_lab = ImageCms.buildTransform(ImageCms.createProfile("sRGB"), ImageCms.createProfile("LAB"), "RGB", "LAB")
    la, lb = (ImageCms.applyTransform(im.convert("RGB"), to_lab).tobytes() for im in (a, b))
    total = 0.0
    for i in range(0, len(la), 3):   # Pillow's LAB: L 0..255 for 0..100, a and b offset by 128
        dl = (la[i] - lb[i]) * 100 / 255
        da = ((la[i + 1] + 128) % 256) - ((lb[i + 1] + 128) % 256)
        db = ((la[i + 2] + 128) % 256) - ((lb[i + 2] + 128) % 256)
        total += (dl * dl + da * da + db * db) ** 0.5
    return total / (len(la) // 3)


FRONT = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <image href="art/background.jpg" width="{{ deck.width }}" height="{{ deck.height }}" preserveAspectRatio="xMidYMid slice"/>
  <image href="art/{{ card.art }}" x="6" y="19" width="50.8" height="38.1"/>
  <text x="6" y="12" font-family="Lato" font-size="4">{{ card.name }}</text>
</svg>
"""
BACK = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <image href="art/background.jpg" width="{{ deck.width }}" height="{{ deck.height }}" preserveAspectRatio="xMidYMid slice"/>
  <text x="10" y="40" font-family="Lato" font-size="6" fill="#fff">BACK</text>
</svg>
"""


def standard_art() -> dict[str, bytes]:
    """The pictures of `art_game`: photo.jpg (600 x 450: 300 dpi in the window, passes
    through), big.jpg and big.png (1200 x 900: 600 dpi, resampled), tiny.png
    (80 x 60: 40 dpi), background.jpg (900 x 1200: 331 dpi on the 69 x 94 mm face)."""
    return {"photo.jpg": jpeg(smooth(1)), "big.jpg": jpeg(smooth(2, (1200, 900))),
            "big.png": png(smooth(3, (1200, 900))), "tiny.png": png(smooth(4, (80, 60))),
            "background.jpg": jpeg(smooth(5, (900, 1200)))}


def art_game(root: Path, cards: dict[str, str], art: dict[str, bytes], game_extra: str = "",
             rulebook: str | None = None, front: str = FRONT) -> Path:
    """A game 'pics' under `root`: one poker deck (63 x 88 mm, 3 mm bleed) whose card
    `id` shows picture `cards[id]` (a file of `art`)."""
    game, templates = root / "cards" / "pics", root / "templates" / "pics"
    (templates / "art").mkdir(parents=True, exist_ok=True)
    game.mkdir(parents=True, exist_ok=True)
    (game / "game.yaml").write_text("title: Pictures\ndecks: [deck.yaml]\n" + textwrap.dedent(game_extra)
                                    + ("rulebook: rulebook.md\n" if rulebook is not None else ""))
    lines = ["deck: pics", "name: Pictures", "size: poker", "bleed: 3mm", "front: front.svg.j2",
             "back: back.svg.j2", "fields:", "  art: {type: string}", "cards:"]
    lines += [f"  - {{id: {cid}, name: Card {cid}, art: {name}}}" for cid, name in cards.items()]
    (game / "deck.yaml").write_text("\n".join(lines) + "\n")
    if rulebook is not None:
        (game / "rulebook.md").write_text(rulebook)
    (templates / "front.svg.j2").write_text(front)
    (templates / "back.svg.j2").write_text(BACK)
    for name, data in art.items():
        (templates / "art" / name).write_bytes(data)
    return root


def images(pdf: bytes) -> list:
    """The image XObjects of a PDF as (dictionary, raw bytes, objgen), SMasks left out."""
    import pikepdf

    with pikepdf.open(io.BytesIO(pdf)) as doc:
        masks = {o.SMask.objgen for o in doc.objects if isinstance(o, pikepdf.Stream) and "/SMask" in o}
        return [({k: _plain(v) for k, v in o.stream_dict.items()},
                 o.read_raw_bytes(), o.objgen)
                for o in doc.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image"
                and o.objgen not in masks]


def _plain(value):
    """A dictionary value as a test compares it: numbers as numbers, names as '/Name',
    arrays and dictionaries as PDF syntax ('[ 1 0 ]', '<< /Predictor 15 ... >>')."""
    import pikepdf

    if isinstance(value, (pikepdf.Array, pikepdf.Dictionary)):
        return value.unparse().decode()
    return value if isinstance(value, (int, float, bool)) else str(value)
