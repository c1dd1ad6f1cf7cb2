"""The work pictures cost, counted, not timed: PNG data written Up-filtered (one fixed filter,
not Pillow's search over five) at about the size of the adaptive search, by either engine;
the picture store's key changed with what it stores (an entry of the old format is never
served); a bundle reads, checks and hashes a picture file once however many of its faces
show it, decodes it once, and reads a file again when it changed."""
from __future__ import annotations

import hashlib
import io
import os
import zlib

import PIL
import pytest
from PIL import Image

from generator.draw import art, picturedraw, pictures, picturevips, vipsbridge
from generator.draw.art import ArtFetcher
from generator.draw.bundlepdf import draw_bundle
from generator.draw.pictures import Policy, Prepared, header, idat
from generator.draw.picturestore import PictureStore
from tests.picturekit import jpeg, png, smooth

ENGINES = ("pillow", "vips") if vipsbridge.present() else ("pillow",)
WANT = (337, 253)   # half the benchmark's window at 300 dpi


def _painting() -> tuple[bytes, Image.Image]:
    """A 600 x 450 PNG painting, and what Lanczos makes of it at WANT."""
    picture = smooth(31, (600, 450))
    return png(picture), picture.resize(WANT, Image.Resampling.LANCZOS)


@pytest.mark.parametrize("engine", ENGINES)
def test_png_data_is_up_filtered_lossless_and_about_the_adaptive_size(engine):
    data, resampled = _painting()
    made = picturevips.prepare(data, header(data, "p"), WANT, Policy(engine=engine))
    rows = zlib.decompress(idat(made.data))
    assert made.kind == "png" and set(rows[::WANT[0] * 3 + 1]) == {2}   # every row: filter type 2, Up
    if engine == "pillow":   # lossless: the pixels Lanczos made, exactly
        assert Image.open(io.BytesIO(made.data)).tobytes() == resampled.tobytes()
    adaptive = io.BytesIO()
    resampled.save(adaptive, "PNG", compress_level=4)   # Pillow's search over the five filters, row by row
    assert 0.9 < len(made.data) / adaptive.tell() < 1.05   # measured 1.02 on the benchmark's paintings


def test_a_picture_stored_in_the_old_format_is_not_served(tmp_path):
    data, resampled = _painting()
    policy = Policy(engine="pillow", store=str(tmp_path / "output" / ".cache" / "pictures"))
    adaptive = io.BytesIO()
    resampled.save(adaptive, "PNG", compress_level=4)
    old = Prepared.make("png", adaptive.getvalue(), WANT, "resampled")   # what version 1 stored, adaptive rows
    old_key = hashlib.sha256(f"{hashlib.sha256(data).hexdigest()} {WANT} pictures 1 dpi 300 q 92 ss 0 png 4 "
                             f"slack 1.15 pillow {PIL.__version__}".encode()).hexdigest()
    PictureStore(policy.store, base=tmp_path).put(old_key, old)
    made = picturedraw.Pictures(policy)._prepared(data, header(data, "p"), WANT)
    assert made.uid != old.uid and set(zlib.decompress(idat(made.data))[::WANT[0] * 3 + 1]) == {2}


FACE = ('<svg xmlns="http://www.w3.org/2000/svg" width="63mm" height="88mm" viewBox="0 0 63 88">'
        '<image href="art/bg.jpg" width="63" height="88" preserveAspectRatio="none"/>'
        '<image href="art/{own}" x="3" y="10" width="57" height="42.75"/></svg>')


def test_a_bundle_reads_and_decodes_a_picture_once_however_many_faces_show_it(tmp_path, monkeypatch):
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "bg.jpg").write_bytes(jpeg(smooth(33, (900, 1260))))   # on every face, resampled
    owns = [f"own{n}.png" for n in range(3)]
    for n, name in enumerate(owns):
        (tmp_path / "art" / name).write_bytes(png(smooth(34 + n, (300, 225))))   # at print size: kept
    reads, heads, decoded = [], [], []
    real_read, real_header, real_decoded = art.read_bytes_inside, picturedraw.header, pictures._decoded
    monkeypatch.setattr(art, "read_bytes_inside", lambda *a: reads.append(os.path.basename(a[1])) or real_read(*a))
    monkeypatch.setattr(picturedraw, "header", lambda *a: heads.append(a[1]) or real_header(*a))
    monkeypatch.setattr(pictures, "_decoded", lambda *a: decoded.append(a[1].upright) or real_decoded(*a))
    faces = [(f"k{n}", FACE.format(own=owns[n % 3]), (63, 88)) for n in range(6)]
    pdf, keys, problems, placed = draw_bundle(faces, roots=(str(tmp_path),), policy=Policy(engine="pillow"))
    assert not problems and len(placed) == 6
    assert sorted(reads) == sorted(["bg.jpg", *owns])   # each file read (and checked) once, not once a face
    assert len(heads) == 4 and decoded == [(900, 1260)]   # each header read once; the background decoded once


def test_a_picture_file_changed_while_a_bundle_draws_is_read_again(tmp_path, monkeypatch):
    (tmp_path / "art").mkdir()
    picture = tmp_path / "art" / "p.png"
    picture.write_bytes(png(smooth(40, (60, 45))))
    monkeypatch.chdir(tmp_path)
    fetch, url = ArtFetcher((str(tmp_path),)), "file://" + os.path.abspath("art/p.png")
    first = fetch(url, "image/*")
    assert fetch(url, "image/*") is first   # unchanged: the same bytes, not read again
    picture.write_bytes(png(smooth(41, (60, 46))))
    assert fetch(url, "image/*") == picture.read_bytes() != first
