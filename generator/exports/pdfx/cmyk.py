"""RGB to CMYK through an ICC transform, for PDF/X-1a files.

In: RGB colours (0..1 a channel), RGB images (PIL) and PDF shading dictionaries in
DeviceRGB. Out: CMYK colours (0..1), CMYK images, and shadings in DeviceCMYK whose colour
function is a table of 256 CMYK samples. The source profile is sRGB (what an SVG colour
means), the destination the CMYK output profile the PDF's OutputIntent embeds: Ghostscript's
SWOP profile (`CMYK_PROFILE`, Debian's libgs-common; not shipped with pnp, as it is AGPL).
Intent relative colorimetric with black-point compensation, computed by littleCMS (Pillow's
ImageCms). Two exceptions keep plates clean: exact black (0, 0, 0) becomes K only, so
black text prints from one plate, and exact white becomes no ink (vector colours only;
pixels go through the profile as they are). Each distinct colour is converted once.

Total ink limit (`max_ink`, percent of C+M+Y+K; DriveThruCards asks for 240): SWOP puts
rich blacks and dark art near 280 %. Above the limit a colour gets gray component
replacement: an equal amount of C, M and Y (at most the least of them) becomes K, half the
excess at a time, since C = M = Y = a prints about as dark as K = a; what is still over
(K full, or no gray left) is taken from C, M and Y in proportion (under colour removal).
K-only black and white are below any limit and stay as they are. Vector colours are limited
one by one, to the byte; pixels over the limit are taken instead from a 33 x 33 x 33 table
of limited colours (a device link, applied by Pillow's Color3DLUT with trilinear
interpolation: a mix of colours under the limit is under it too), made 2/255 below the
limit for the rounding of four channels; the other pixels keep their exact conversion.
A CMYK JPEG is checked as it decodes: quantisation adds a few percent of ink near edges, so
where it passes the limit the pixels are limited lower and the JPEG made again.
"""
from __future__ import annotations

import hashlib
import io
import math
from pathlib import Path
from typing import cast

import pikepdf
from pikepdf import Name
from PIL import Image, ImageCms, ImageFilter, ImageMath

from ...errors import OutputError

CMYK_PROFILE = Path("/usr/share/color/icc/ghostscript/default_cmyk.icc")
SAMPLES = 256   # entries of a converted shading's colour table
LUT_SIZE = 33   # points per axis of the table pixels are converted through under an ink limit
JPEG_HEADROOM = 4   # percent of ink a CMYK JPEG's pixels are limited lower by, each time its decoded pixels pass
JPEG_SLACK = 1      # percent a decoded JPEG keeps under the limit: another decoder may round otherwise

Quad = tuple[float, float, float, float]   # a CMYK colour, each ink 0..1


class Cmyk:
    """The sRGB -> CMYK transform of one output profile, with a cache per colour; with
    `max_ink` (percent), every colour it gives has C+M+Y+K at most that."""

    def __init__(self, path: Path | None = None, max_ink: float | None = None):
        path = path or CMYK_PROFILE
        try:
            self.icc = path.read_bytes()
        except OSError:
            raise OutputError(f"a PDF/X-1a file needs a CMYK output profile and {path} is missing: "
                              "install Debian's libgs-common (apt-get install libgs-common)") from None
        profile = ImageCms.ImageCmsProfile(io.BytesIO(self.icc))
        if profile.profile.xcolor_space.strip() != "CMYK" or profile.profile.device_class != "prtr":
            raise OutputError(f"{path} is not a CMYK printer profile")
        self.path = path
        self.description = ImageCms.getProfileDescription(profile).strip()
        self.sha256 = hashlib.sha256(self.icc).hexdigest()
        self.transform = ImageCms.buildTransform(
            ImageCms.createProfile("sRGB"), profile, "RGB", "CMYK",
            renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC,
            flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)
        self.cache: dict[tuple[int, ...], Quad] = {}   # RGB bytes -> CMYK 0..1
        self.max_ink = max_ink
        self._luts: dict[float, ImageFilter.Color3DLUT] = {}   # limit -> its device link

    def colour(self, rgb) -> Quad:
        """One RGB colour (three numbers 0..1) as CMYK (four numbers 0..1)."""
        key = tuple(_byte(v) for v in rgb)
        if key not in self.cache:
            self.cache[key] = self._convert([key])[0]
        return self.cache[key]

    def colours(self, rgbs) -> list[Quad]:
        """Many RGB colours at once (one littleCMS call for all the new ones)."""
        keys = [tuple(_byte(v) for v in rgb) for rgb in rgbs]
        new = sorted(set(keys) - set(self.cache))
        for key, value in zip(new, self._convert(new)):
            self.cache[key] = value
        return [self.cache[k] for k in keys]

    def image(self, image: Image.Image) -> Image.Image:
        """An RGB image as CMYK through the same transform (no K-only black: in pixels, a black
        next to its own anti-aliased edge must not switch plates), its ink limited to `max_ink`."""
        image = image.convert("RGB")
        exact = self._plain(image)
        if self.max_ink is None:
            return exact
        return self._limited(image, exact, _total(exact), self.max_ink)

    def jpeg(self, image: Image.Image, quality: int = 92) -> bytes:
        """An RGB image as a CMYK JPEG (4:4:4, Adobe's inverted CMYK as Pillow writes it)
        whose decoded pixels keep to `max_ink`: a JPEG's quantisation moves pixels by a few
        percent of ink, so pixels near the limit are limited lower, JPEG_HEADROOM at a time,
        until the decoded file is within it."""
        image = image.convert("RGB")
        exact = self._plain(image)
        if self.max_ink is None:
            return _jpeg(exact, quality)
        total = _total(exact)
        headroom = 0.0
        while True:
            data = _jpeg(self._limited(image, exact, total, self.max_ink - headroom), quality)
            if headroom >= self.max_ink / 2:
                return data
            with Image.open(io.BytesIO(data)) as decoded:
                if most_ink(decoded) <= self.max_ink - JPEG_SLACK:
                    return data
            headroom += JPEG_HEADROOM

    def _limited(self, image: Image.Image, exact: Image.Image, total: Image.Image, limit: float) -> Image.Image:
        """`exact` (the conversion of `image`, whose total ink is `total`) with the pixels over
        `limit` percent taken from the device link: the others stay exact."""
        budget = math.floor(limit / 100 * 255)
        over = ImageMath.lambda_eval(lambda v: (v["t"] > budget) * 255, t=total).convert("L")
        if over.getextrema()[1] == 0:
            return exact
        return Image.composite(image.filter(self._limited_table(limit)), exact, over)

    def _plain(self, image: Image.Image) -> Image.Image:
        out = Image.new("CMYK", image.size)
        # the transform's own apply() also copies the whole profile into the image's info, each time
        self.transform.transform.apply(image.getim(), out.getim())
        return out

    def _limited_table(self, max_ink: float) -> ImageFilter.Color3DLUT:
        """The device link: a LUT_SIZE^3 grid of sRGB colours, converted and ink-limited to `max_ink`."""
        if max_ink not in self._luts:
            n = LUT_SIZE
            steps = [round(i * 255 / (n - 1)) for i in range(n)]
            grid = [(r, g, b) for b in steps for g in steps for r in steps]   # red changes first
            strip = Image.new("RGB", (len(grid), 1))
            strip.putdata(grid)
            data = self._plain(strip).tobytes()
            budget = math.floor(max_ink / 100 * 255) - 2   # four channels may each round up
            table: list = [tuple(v / 255 for v in limit_ink(_quad(data, i), budget))   # list: numpy in Pillow's types
                           for i in range(0, len(data), 4)]
            self._luts[max_ink] = ImageFilter.Color3DLUT(n, table, channels=4, target_mode="CMYK")
        return self._luts[max_ink]

    def _convert(self, keys) -> list[Quad]:
        if not keys:
            return []
        strip = Image.new("RGB", (len(keys), 1))
        strip.putdata(keys)
        data = self._plain(strip).tobytes()
        out: list[Quad] = []
        budget = None if self.max_ink is None else math.floor(self.max_ink / 100 * 255)
        for key, value in zip(keys, (_quad(data, k) for k in range(0, len(data), 4))):
            if key == (0, 0, 0):
                value = (0, 0, 0, 255)
            elif key == (255, 255, 255):
                value = (0, 0, 0, 0)
            elif budget is not None:
                value = limit_ink(value, budget)
            c, m, y, k = (round(v / 255, 4) for v in value)
            out.append((c, m, y, k))
        return out

    def shading(self, pdf: pikepdf.Pdf, shading: pikepdf.Object) -> pikepdf.Object:
        """A copy of an axial or radial DeviceRGB shading in DeviceCMYK: its colour function
        sampled at 256 points of its domain, each sample converted. Other shadings are
        returned as they are when not RGB; an RGB one this cannot convert is an error."""
        space = shading.get("/ColorSpace")
        if space == Name.DeviceCMYK or space == Name.DeviceGray:
            return shading
        if space != Name.DeviceRGB and not _icc_rgb(space):
            raise ValueError(f"a shading in colour space {space} (only DeviceRGB, DeviceGray and DeviceCMYK)")
        if int(shading.get("/ShadingType", 0)) not in (2, 3):
            raise ValueError(f"an RGB shading of type {shading.get('/ShadingType')} (only axial and radial)")
        t0, t1 = (float(v) for v in shading.get("/Domain", [0, 1]))
        ts = [t0 + (t1 - t0) * i / (SAMPLES - 1) for i in range(SAMPLES)]
        cmyk = self.colours([evaluate(shading.Function, t) for t in ts])
        table = bytes(round(v * 255) for c in cmyk for v in c)
        function = pdf.make_stream(table)
        function.FunctionType, function.Domain = 0, pikepdf.Array([t0, t1])
        function.Range = pikepdf.Array([0, 1] * 4)
        function.Size, function.BitsPerSample = pikepdf.Array([SAMPLES]), 8
        out = pikepdf.Dictionary({k: v for k, v in shading.items() if k not in ("/Function", "/ColorSpace")})
        out.ColorSpace, out.Function = Name.DeviceCMYK, function
        if "/Background" in shading:
            out.Background = pikepdf.Array(self.colour([float(v) for v in shading.Background]))
        return pdf.make_indirect(out)


def most_ink(image: Image.Image) -> float:
    """The highest total ink (C+M+Y+K, percent) of a CMYK image's pixels."""
    return cast(tuple[int, int], _total(image).getextrema())[1] / 255 * 100


def _jpeg(image: Image.Image, quality: int) -> bytes:
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality, subsampling=0)
    return out.getvalue()


def _total(image: Image.Image) -> Image.Image:
    """C+M+Y+K of each pixel of a CMYK image (mode I, 0..1020)."""
    c, m, y, k = (band.convert("I") for band in image.split())
    return ImageMath.lambda_eval(lambda v: v["c"] + v["m"] + v["y"] + v["k"], c=c, m=m, y=y, k=k)


def limit_ink(cmyk: tuple[int, int, int, int], budget: int) -> tuple[int, int, int, int]:
    """A CMYK colour (bytes) with C+M+Y+K at most `budget` (bytes): gray component
    replacement first, then under colour removal (see the module doc)."""
    c, m, y, k = cmyk
    if c + m + y + k <= budget:
        return cmyk
    grey = min((c + m + y + k - budget) / 2, c, m, y, 255 - k)
    cf, mf, yf = c - grey, m - grey, y - grey
    k = min(round(k + grey), 255, budget)
    room = max(budget - k, 0)
    if cf + mf + yf > room:   # K is full or the gray is gone: C, M and Y give way in proportion
        f = room / (cf + mf + yf)
        cf, mf, yf = cf * f, mf * f, yf * f
    return math.floor(cf), math.floor(mf), math.floor(yf), k


def _quad(data: bytes, at: int) -> tuple[int, int, int, int]:
    """The four bytes of one CMYK pixel at `at`."""
    return data[at], data[at + 1], data[at + 2], data[at + 3]


def evaluate(function, t: float) -> list[float]:
    """A PDF function of one input (type 2, type 3, or an array of them, one per output) at t."""
    if isinstance(function, pikepdf.Array):
        return [evaluate(f, t)[0] for f in function]
    kind = int(function.FunctionType)
    d0, d1 = (float(v) for v in function.Domain)
    t = min(max(t, d0), d1)
    if kind == 2:
        c0 = [float(v) for v in function.get("/C0", [0])]
        c1 = [float(v) for v in function.get("/C1", [1])]
        x = t ** float(function.N)
        return [a + x * (b - a) for a, b in zip(c0, c1)]
    if kind == 3:
        bounds = [float(v) for v in function.Bounds]
        encode = [float(v) for v in function.Encode]
        k = sum(1 for b in bounds if t >= b) if bounds else 0
        lo = bounds[k - 1] if k > 0 else d0
        hi = bounds[k] if k < len(bounds) else d1
        e0, e1 = encode[2 * k], encode[2 * k + 1]
        u = e0 if hi == lo else e0 + (t - lo) * (e1 - e0) / (hi - lo)
        return evaluate(function.Functions[k], u)
    raise ValueError(f"a colour function of type {kind} (only types 2 and 3)")


def _icc_rgb(space) -> bool:
    return isinstance(space, pikepdf.Array) and len(space) == 2 and space[0] == Name.ICCBased and int(space[1].N) == 3


def _byte(v) -> int:
    return min(255, max(0, round(float(v) * 255)))
