"""Pictures prepared by libvips against the same pictures prepared by Pillow: the same kind,
size, remarks and alpha, pixels within the tolerance docs/architecture.md states, for every
kind of picture pictures.py handles; the same bytes run to run and in another process; the
engine chosen once (PNP_PICTURES), in the draw key and the picture store's key."""
from __future__ import annotations

import functools
import io
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import pytest
from PIL import Image, ImageChops, ImageStat

import generator.session
from generator.draw import picturevips, pngrows, vipsbridge
from generator.draw.pictures import Policy, header
from generator.draw.picturestore import PictureStore
from generator.errors import InputError
from tests.conftest import run
from tests.picturekit import adobe_rgb_jpeg, art_game, cmyk_jpeg, jpeg, png, smooth
from tests.test_jail import needs_walls, pnp

pytestmark = pytest.mark.skipif(not vipsbridge.present(), reason="libvips (Debian's libvips42) is not installed")

# libvips against Pillow, each encoding the picture itself: the largest difference of one
# channel of one pixel (0-255) and the mean difference over every channel of every pixel.
# A JPEG is saved again at quality 92 by each, so its 8x8 blocks differ a little (measured:
# max 12, mean 0.75 on the benchmark's photos); lossless pictures differ by Lanczos' rounding.
TOLERANCE = {"jpeg": (24, 1.5), "png": (8, 0.5)}
VIPS, PILLOW = Policy(engine="vips"), Policy(engine="pillow")


def _exif(turn: int) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = turn
    return exif.tobytes()


def _alpha_png() -> bytes:
    picture = smooth(21, (900, 700)).convert("RGBA")
    alpha = Image.new("L", picture.size, 0)
    alpha.paste(255, (200, 150, 700, 550))
    alpha.paste(128, (0, 0, 120, 700))
    picture.putalpha(alpha)
    return png(picture)


def _grey16() -> bytes:
    return png(smooth(22, (900, 700)).convert("L").point(lambda v: v * 257, "I").convert("I;16"))


def _grainy() -> Image.Image:
    """A photo with film grain (Gaussian noise, seeded by Pillow: the same every run)."""
    picture = smooth(24, (1200, 900))
    grain = Image.effect_noise(picture.size, 24).convert("RGB")
    return Image.blend(picture, grain, 0.15)


def _gif() -> bytes:
    out = io.BytesIO()
    smooth(23, (900, 700)).quantize(128).save(out, "GIF")
    return out.getvalue()


RECIPES = {   # name: (how its bytes are made, the size wanted: None keeps it); made when a test asks
    "rgb jpeg, resampled": (lambda: jpeg(smooth(31, (1200, 900))), (600, 450)),
    "grainy jpeg, resampled": (lambda: jpeg(_grainy()), (674, 505)),
    "grainy png, resampled": (lambda: png(_grainy()), (674, 505)),
    "rgb jpeg, DCT-scaled": (lambda: jpeg(smooth(32, (2400, 1800))), (600, 450)),
    "grey jpeg, resampled": (lambda: jpeg(smooth(33, (1200, 900)).convert("L")), (600, 450)),
    "progressive jpeg, draft": (lambda: jpeg(smooth(34, (1200, 900)), progressive=True), (300, 225)),
    "cmyk jpeg (SWOP profile)": (lambda: cmyk_jpeg(smooth(35, (900, 700))), (450, 350)),
    "cmyk jpeg, kept": (lambda: cmyk_jpeg(smooth(36, (600, 450))), None),
    "adobe rgb jpeg": (lambda: adobe_rgb_jpeg(smooth(37, (900, 700))), (450, 350)),
    "rgb png": (lambda: png(smooth(38, (1200, 900))), (600, 450)),
    "grey png": (lambda: png(smooth(39, (1200, 900)).convert("L")), (600, 450)),
    "png with alpha": (_alpha_png, (450, 350)),
    "png with alpha, kept": (_alpha_png, None),
    "palette png": (lambda: png(smooth(40, (900, 700)).quantize(64)), (450, 350)),
    "16-bit grey png": (_grey16, (450, 350)),
    "gif": (_gif, (450, 350)),
    **{f"jpeg turned {turn}": (lambda turn=turn: jpeg(smooth(40 + turn, (800, 600)), exif=_exif(turn)),
                               (300, 400) if turn >= 5 else (400, 300)) for turn in range(2, 9)},
    "png turned 6": (lambda: png(smooth(50, (800, 600)), exif=_exif(6)), (300, 400)),
}


@functools.cache
def fixture(name: str) -> tuple[bytes, tuple[int, int] | None]:
    """A picture of RECIPES as bytes, and the size wanted (made once a process: at
    collection they would cost every test process seconds)."""
    make, size = RECIPES[name]
    return make(), size


def _difference(a: bytes, b: bytes, alphas: tuple[bytes, bytes] = (b"", b"")) -> tuple[int, float]:
    """Of two pictures as they show (over black, where they have an alpha: the colour under a
    clear pixel is never seen)."""
    x, y = (Image.open(io.BytesIO(d)) for d in (a, b))
    assert x.mode == y.mode and x.size == y.size
    if alphas[0]:
        black = Image.new(x.mode, x.size)
        x, y = (Image.composite(im, black, Image.open(io.BytesIO(alpha))) for im, alpha in zip((x, y), alphas))
    d = ImageChops.difference(x.convert("RGB"), y.convert("RGB"))
    return max(high for _, high in d.getextrema()), sum(ImageStat.Stat(d).mean) / 3


@pytest.mark.parametrize("name", RECIPES)
def test_libvips_makes_the_picture_pillow_makes_within_the_tolerance(name):
    data, size = fixture(name)
    head = header(data, name)
    by_vips = picturevips.prepare(data, head, size, VIPS if "draft" not in name else Policy(engine="vips", draft=True))
    by_pillow = picturevips.prepare(data, head, size, PILLOW if "draft" not in name else Policy(draft=True))
    assert (by_vips.kind, by_vips.size, by_vips.how, by_vips.notes, by_vips.colours) == (
        by_pillow.kind, by_pillow.size, by_pillow.how, by_pillow.notes, by_pillow.colours)
    assert by_vips.how != "passthrough"   # every fixture is made again, not passed through
    assert bool(by_vips.alpha) == bool(by_pillow.alpha)
    most, mean = _difference(by_vips.data, by_pillow.data, (by_vips.alpha, by_pillow.alpha))
    allowed = TOLERANCE[by_vips.kind]
    assert most <= allowed[0] and mean <= allowed[1], f"{name}: max {most}, mean {mean:.2f}"
    if by_vips.alpha:
        most, mean = _difference(by_vips.alpha, by_pillow.alpha)
        assert most <= TOLERANCE["png"][0] and mean <= TOLERANCE["png"][1], f"{name} alpha: max {most}, mean {mean}"


def test_what_passes_through_is_the_same_with_either_engine():
    data = jpeg(smooth(51))
    assert picturevips.prepare(data, header(data, "p"), None, VIPS).data == data


def _prepared(name: str) -> tuple[bytes, bytes]:
    data, size = fixture(name)
    p = picturevips.prepare(data, header(data, name), size, VIPS)
    return p.data, p.alpha


@pytest.mark.slow   # forks drawing workers
@pytest.mark.parametrize("name", ["rgb jpeg, resampled", "png with alpha", "cmyk jpeg (SWOP profile)"])
def test_the_same_bytes_run_to_run_and_in_a_drawing_worker(name):
    first = _prepared(name)
    assert _prepared(name) == first
    vipsbridge._helper().close()   # a new helper: a process of its own
    assert _prepared(name) == first
    with ProcessPoolExecutor(1, mp_context=get_context("fork")) as pool:   # as a drawing worker, libvips there
        assert pool.submit(_prepared, name).result() == first
    made = first[0]
    assert b"Exif" not in made and b"ICC_PROFILE" not in made and b"tIME" not in made and b"tEXt" not in made


def test_the_engine_is_chosen_by_pnp_pictures(monkeypatch):
    monkeypatch.delenv("PNP_PICTURES", raising=False)
    assert vipsbridge.chosen() == "vips"
    monkeypatch.setenv("PNP_PICTURES", "pillow")
    assert vipsbridge.chosen() == "pillow"
    assert "Pillow" in picturevips.describe("pillow") and "PNP_PICTURES=pillow" in picturevips.describe("pillow")
    monkeypatch.setenv("PNP_PICTURES", "vips")
    assert vipsbridge.chosen() == "vips" and vipsbridge.version() in picturevips.describe("vips")
    monkeypatch.setenv("PNP_PICTURES", "imagemagick")
    with pytest.raises(InputError, match="PNP_PICTURES"):
        vipsbridge.chosen()
    monkeypatch.setattr(vipsbridge, "present", lambda: False)
    with pytest.raises(InputError, match="not installed"):
        monkeypatch.setenv("PNP_PICTURES", "vips") or vipsbridge.chosen()
    monkeypatch.setenv("PNP_PICTURES", "")
    assert vipsbridge.chosen() == "pillow" and "not installed" in picturevips.describe("pillow")


def test_pictures_of_either_engine_never_mix():
    assert VIPS.digest() != PILLOW.digest() and vipsbridge.version() in VIPS.digest()
    assert PictureStore.key("ab" * 32, (600, 450), VIPS) != PictureStore.key("ab" * 32, (600, 450), PILLOW)
    # what Pillow makes says which zlib compressed its PNG rows (version 2: Up-filtered, pngrows.py)
    assert PILLOW.digest() == f"pictures 2 dpi 300 q 92 ss 0 png 4 slack 1.15 zlib {pngrows.ZLIB}"


def test_a_picture_libvips_reads_otherwise_than_its_header_is_refused():
    data = jpeg(smooth(52, (1200, 900)))
    head = header(data, "x")._replace(upright=(1300, 900))   # a header that lies about the pixels to come
    with pytest.raises(picturevips.PictureError, match="1200 x 900 .* header says 1300 x 900"):
        picturevips.prepare(data, head, (600, 450), VIPS)


@pytest.mark.slow   # starts pnp in fresh processes
@needs_walls
def test_an_untrusted_build_prepares_pictures_by_libvips_in_the_jail(tmp_path, monkeypatch):
    """On one core (drawn in the build's process, by libvips' helper) and on two (by the
    drawing workers), in the jail: the bytes of a trusted build (on one core, made in this
    process: only the jailed builds need a process of their own)."""
    art = {"big.jpg": jpeg(smooth(61, (1200, 900))), "big.png": _alpha_png(), "photo.jpg": jpeg(smooth(62)),
           "tiny.png": png(smooth(63, (80, 60))), "background.jpg": jpeg(smooth(64, (900, 1200))),
           "cmyk.jpg": cmyk_jpeg(smooth(65, (900, 700)))}
    names = sorted(art)
    built = {}
    for mode, jobs in (("--trusted", 1), ("--untrusted=strict", 1), ("--untrusted=strict", 2)):
        root = art_game(tmp_path / f"{mode.strip('-')}-{jobs}", {f"c{i}": names[i % len(names)] for i in range(24)},
                        art)
        if mode == "--trusted":
            monkeypatch.setattr(generator.session, "usable_cpus", lambda: 1)
            monkeypatch.delenv("CI", raising=False)
            result = run(root, "build", "pics", "--paper", "a4", mode, "--timings")
            monkeypatch.undo()
            assert result.exit_code == 0, result.output[-2000:]
            said = result.output
        else:
            done = pnp(root, "build", "pics", "--paper", "a4", mode, "--memory-limit", "1G", "--timings",
                       prelude=f"import generator.session\ngenerator.session.usable_cpus = lambda: {jobs}")
            assert done.returncode == 0, done.stderr[-2000:]
            said = done.stderr
        assert f"pictures prepared by {vipsbridge.version()}" in said
        built[mode, jobs] = (root / "output" / "pics" / "pics-sheets-a4.pdf").read_bytes()
    assert len(set(built.values())) == 1   # the same bytes in the jail, on one core or two
