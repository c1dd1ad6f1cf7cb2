"""What generator/draw/vipsbridge.py relies on in pyvips and libvips, checked by name and
by use: an upgrade of either fails here first (then read their changes, check the
pictures against Pillow's again, tests/test_picturevips.py, and move the pins).

libvips is never run in this process (a process forked after libvips ran hangs: the
drawing workers forked by later tests would), only in forked children."""
from __future__ import annotations

import os
import zlib
from concurrent.futures import ProcessPoolExecutor
from importlib import metadata
from multiprocessing import get_context
from pathlib import Path

import pytest

from generator.draw import vipsbridge
from generator.draw.pictures import idat

pytestmark = pytest.mark.skipif(not vipsbridge.present(), reason="libvips (Debian's libvips42) is not installed")

PYVIPS, LIBVIPS = "3.2.0", "8.14"   # libvips: major.minor as tested (Debian 12's libvips42)


def test_the_pinned_versions():
    assert metadata.version("pyvips") == PYVIPS
    assert vipsbridge.version().startswith(f"libvips {LIBVIPS}.") and vipsbridge.version().endswith(f" (pyvips {PYVIPS})")
    root = Path(__file__).resolve().parents[1]
    pins = (root / "pyproject.toml").read_text(), (root / "constraints.txt").read_text()
    assert f'"pyvips=={PYVIPS}"' in pins[0] and f"pyvips=={PYVIPS}\n" in pins[1]
    assert "pyvips-binary" not in pins[0] + pins[1]   # libvips is the system's (make installs Debian's)


def test_metadata_is_left_out_by_the_option_each_libvips_knows():
    assert vipsbridge._no_metadata((8, 14, 1)) == {"strip": True}
    assert vipsbridge._no_metadata((8, 15, 0)) == vipsbridge._no_metadata((9, 0, 0)) == {"keep": "none"}


def _facts() -> dict:
    """In a child: what the bridge uses of pyvips, each used as the bridge uses it."""
    pyvips = vipsbridge._vips()
    facts = {"libvips": f"{pyvips.version(0)}.{pyvips.version(1)}", "api": pyvips.API_mode,
             "threads": pyvips.concurrency_get(), "cache": pyvips.cache_get_max(),
             "modules": "vips-modules" in Path("/proc/self/maps").read_text()}   # none loaded (ImageMagick...)
    rgba = pyvips.Image.new_from_memory(bytes(range(256)) * 64, 64, 64, 4, "uchar").copy(interpretation="srgb")
    small = rgba.premultiply().resize(0.5, vscale=0.25, kernel="lanczos3", gap=0.0).unpremultiply().rint()
    facts["resize"] = (small.width, small.height, small.format)
    small = small.cast("uchar")
    turned = small.rot("d90").rot("d270").rot("d180").fliphor().flipver().copy_memory()
    facts["turned"] = (turned.width, turned.height, turned.bands)
    facts["alpha"] = (turned[3].min(), turned.extract_band(0, n=3).bands)
    rgb = turned.extract_band(0, n=3)
    bare = vipsbridge._no_metadata(vipsbridge._libvips_version())
    facts["same"] = vipsbridge._libvips_version()[:2] == (pyvips.version(0), pyvips.version(1))
    jpeg = rgb.jpegsave_buffer(Q=92, subsample_mode="off", optimize_coding=True, **bare)
    back = pyvips.Image.jpegload_buffer(jpeg, access="sequential", fail_on="error")
    facts["jpeg"] = (jpeg[:2], back.width, back.bands,
                     pyvips.Image.jpegload_buffer(jpeg, shrink=2, fail_on="error").width)
    png = rgb.pngsave_buffer(compression=4, filter="up", interlace=False, **bare)
    rows = zlib.decompress(idat(png))   # every row Up-filtered (filter type 2), as pngrows.py writes them
    facts["png"] = (png[12:16], png[24], png[25], png[28], b"tIME" in png, b"eXIf" in png,
                    pyvips.Image.pngload_buffer(png, access="random", fail_on="error").bands,
                    set(rows[::32 * 3 + 1]))
    try:
        pyvips.Image.pngload_buffer(b"\x89PNG\r\n\x1a\n broken", fail_on="error")
    except pyvips.Error as exc:
        facts["error"] = bool(exc.detail or exc.message)
    return facts


def test_what_the_bridge_uses_of_pyvips_and_libvips():
    with ProcessPoolExecutor(1, mp_context=get_context("fork")) as pool:
        facts = pool.submit(_facts).result()
    assert facts == {"libvips": LIBVIPS, "api": False, "threads": 1, "cache": 0, "same": True, "modules": False,
                     "resize": (32, 16, "float"), "turned": (32, 16, 4), "alpha": (5.0, 3),
                     "jpeg": (b"\xff\xd8", 32, 3, 16),
                     "png": (b"IHDR", 8, 2, 0, False, False, 3, {2}), "error": True}


def _another_libvips() -> str:
    vipsbridge._vips.cache_clear()
    vipsbridge._libvips_version = lambda: (8, 99, 0)   # in this child only
    try:
        vipsbridge._vips()
    except vipsbridge.VipsError as exc:
        return str(exc)
    return "loaded"


def test_a_libvips_other_than_the_systems_is_refused():
    """pip's pyvips-binary (its own libvips) would make pictures under the system's version."""
    with ProcessPoolExecutor(1, mp_context=get_context("fork")) as pool:
        said = pool.submit(_another_libvips).result()
    assert said.startswith(f"pyvips loaded libvips {LIBVIPS}.") and "not the system's 8.99.0" in said


def _without_a_helper_of_its_own(job) -> bool:
    vipsbridge.run(job)
    return vipsbridge._HELPER is None or vipsbridge._HELPER.owner != os.getpid()


@pytest.mark.slow   # forks a process
def test_a_process_that_forks_no_worker_asks_the_helper_and_a_worker_runs_libvips_itself():
    job = vipsbridge.Job("", bytes(90 * 60 * 3), "RGB", (90, 60), 6, (30, 45), None, 1, False)
    made, alpha, size = vipsbridge.run(job)
    assert size == (30, 45) and alpha == b"" and made[:4] == b"\x89PNG"
    helper = vipsbridge._HELPER
    assert helper is not None and helper.process.is_alive()
    with ProcessPoolExecutor(1, mp_context=get_context("fork")) as pool:
        assert pool.submit(vipsbridge.run, job).result() == (made, alpha, size)
        assert pool.submit(_without_a_helper_of_its_own, job).result()
    helper.process.kill()
    helper.process.join()
    assert vipsbridge.run(job) == (made, alpha, size)   # a helper that died is replaced
    assert vipsbridge._HELPER is not helper


def test_a_picture_libvips_cannot_read_is_an_error_that_says_so():
    job = vipsbridge.Job("PNG", b"\x89PNG\r\n\x1a\n" + bytes(40), "RGB", (10, 10), 1, None, None, 1, False)
    with pytest.raises(vipsbridge.VipsError, match="libvips"):
        vipsbridge.run(job)
    assert vipsbridge.run(vipsbridge.Job("", bytes(12), "L", (4, 3), 1, None, None, 1, False))[2] == (4, 3)


def test_a_helper_that_dies_is_an_error_that_says_so_and_is_not_reused():
    job = vipsbridge.Job("", bytes(12), "L", (4, 3), 1, None, None, 1, False)
    helper = vipsbridge._helper()
    helper.process.kill()
    helper.process.join()
    with pytest.raises(vipsbridge.VipsError, match="ended"):
        helper.ask(job)
    assert vipsbridge._HELPER is None and vipsbridge.run(job)[2] == (4, 3)


def test_choosing_the_engine_and_naming_its_version_maps_no_libvips_into_the_build():
    """The version is read in a forked child: a build whose deck has no picture carries no
    libvips (nor its libraries) in its process or the drawing workers forked from it."""
    import subprocess
    import sys

    script = ("from generator.draw import vipsbridge as v\n"
              "assert v.chosen() == 'vips' and v.version().startswith('libvips 8.')\n"
              "print(sum('libvips' in line for line in open('/proc/self/maps')))\n")
    mapped = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True,
                            env={**os.environ, "PNP_PICTURES": "auto"}).stdout.strip()
    assert mapped == "0"
