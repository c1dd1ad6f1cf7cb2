"""Deterministic, photo-like test art for the benchmark deck with pictures (Pillow only).

    python benchmarks/artwork.py OUT_DIR [--pictures 120] [--size 1200x900]

Writes into OUT_DIR one picture per card, `pic-NNNN.jpg` or `.png`: even cards a JPEG photo
(quality 90, 4:2:0, film grain), odd cards painted art as PNG (no grain, Pillow's default
compression); `background.jpg`, a 1500 x 2000 px full-bleed background every card shares;
`tiny.png`, 80 x 60 px, far too small for its window. Every file depends only on its
index: the noise comes from random.Random(seed), never from C's rand(). A few dozen base
pictures are painted (about 0.2 s each); the others are made from them, each different
(shifted, mirrored, its channels swapped), so a thousand pictures take about a minute.
"""
from __future__ import annotations

import argparse
import functools
import io
import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw, ImageFilter

BASES = 12            # painted base pictures of each kind
PERMUTATIONS = [(0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 2, 1), (2, 1, 0), (1, 0, 2)]


def _noise(rng: random.Random, w: int, h: int, cells: int) -> Image.Image:
    """Smooth value noise: a cells-wide random grid scaled up bicubically."""
    cw, ch = cells, max(2, round(cells * h / w))
    return Image.frombytes("L", (cw, ch), rng.randbytes(cw * ch)).resize((w, h), Image.Resampling.BICUBIC)


def photo(seed: int, w: int, h: int, grain: int) -> Image.Image:
    """A 'photo': a coloured gradient, blobs at three scales, a few soft shapes, film grain."""
    rng = random.Random(seed)
    base = Image.linear_gradient("L").resize((w, h)).rotate(rng.uniform(-30, 30), resample=Image.Resampling.BICUBIC,
                                                             fillcolor=128)
    c1, c2 = (tuple(rng.randrange(30, 220) for _ in range(3)) for _ in range(2))
    img = Image.composite(Image.new("RGB", (w, h), c1), Image.new("RGB", (w, h), c2), base)
    for cells, strength in ((4, 0.45), (12, 0.3), (40, 0.15)):
        img = Image.blend(img, Image.merge("RGB", [_noise(rng, w, h, cells) for _ in range(3)]), strength)
    draw = ImageDraw.Draw(img)
    for _ in range(6):
        x, y, r = rng.randrange(w), rng.randrange(h), rng.randrange(h // 12, h // 3)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=tuple(rng.randrange(256) for _ in range(3)))
    img = img.filter(ImageFilter.GaussianBlur(2.5))
    if grain:
        noise = Image.frombytes("L", (w, h), rng.randbytes(w * h)).point(lambda v: 128 + (v - 128) * grain // 128)
        img = Image.merge("RGB", [ImageChops.add(c, noise, scale=1.0, offset=-128) for c in img.split()])
    return img


def variant(base: Image.Image, n: int) -> Image.Image:
    """The n-th picture made from a base: shifted, mirrored and its channels swapped."""
    rng = random.Random(n)
    img = ImageChops.offset(base, rng.randrange(base.width), rng.randrange(base.height))
    if n % 2:
        img = img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    channels = img.split()
    return Image.merge("RGB", [channels[i] for i in PERMUTATIONS[(n // 2) % len(PERMUTATIONS)]])


def encode(img: Image.Image, kind: str) -> bytes:
    out = io.BytesIO()
    if kind == "jpg":
        img.save(out, "JPEG", quality=90, subsampling=2)
    else:
        img.save(out, "PNG")
    return out.getvalue()


@functools.lru_cache(maxsize=2 * BASES)
def _base(seed: int, size: tuple[int, int], grain: int) -> Image.Image:
    return photo(seed, *size, grain)


def _picture(job) -> tuple[str, int]:
    folder, index, size, grain = job
    kind = "jpg" if index % 2 == 0 else "png"
    img = _base(index // 2 % BASES * 2 + (kind == "png"), size, grain if kind == "jpg" else 0)
    if index >= 2 * BASES:
        img = variant(img, index)
    data = encode(img, kind)
    name = f"pic-{index:04d}.{kind}"
    (Path(folder) / name).write_bytes(data)
    return name, len(data)


def write_art(folder: Path, pictures: int, size=(1200, 900), grain: int = 6) -> dict[str, int]:
    """The pictures, the background and tiny.png in `folder`: {file name: bytes}."""
    folder.mkdir(parents=True, exist_ok=True)
    jobs = [(str(folder), i, size, grain) for i in range(pictures)]
    with ProcessPoolExecutor() as pool:   # painting is the slow part: both cores
        made = dict(pool.map(_picture, jobs, chunksize=8))
    extra = {"background.jpg": encode(photo(10_000, 1500, 2000, grain), "jpg"),
             "tiny.png": encode(photo(10_001, 80, 60, 0), "png")}
    for name, data in extra.items():
        (folder / name).write_bytes(data)
        made[name] = len(data)
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--pictures", type=int, default=120)
    parser.add_argument("--size", default="1200x900")
    args = parser.parse_args()
    made = write_art(Path(args.out), args.pictures, tuple(int(v) for v in args.size.split("x")))
    print(f"{len(made)} files, {sum(made.values()) / 1e6:.1f} MB in {args.out}")


if __name__ == "__main__":
    main()
