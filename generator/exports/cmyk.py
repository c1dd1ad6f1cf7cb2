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
"""
from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pikepdf
from pikepdf import Name
from PIL import Image, ImageCms

from ..errors import OutputError

CMYK_PROFILE = Path("/usr/share/color/icc/ghostscript/default_cmyk.icc")
SAMPLES = 256   # entries of a converted shading's colour table


class Cmyk:
    """The sRGB -> CMYK transform of one output profile, with a cache per colour."""

    def __init__(self, path: Path | None = None):
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
        self.cache: dict[tuple[int, int, int], tuple[float, ...]] = {}

    def colour(self, rgb) -> tuple[float, float, float, float]:
        """One RGB colour (three numbers 0..1) as CMYK (four numbers 0..1)."""
        key = tuple(_byte(v) for v in rgb)
        if key not in self.cache:
            self.cache[key] = self._convert([key])[0]
        return self.cache[key]

    def colours(self, rgbs) -> list[tuple[float, ...]]:
        """Many RGB colours at once (one littleCMS call for all the new ones)."""
        keys = [tuple(_byte(v) for v in rgb) for rgb in rgbs]
        new = sorted(set(keys) - set(self.cache))
        for key, value in zip(new, self._convert(new)):
            self.cache[key] = value
        return [self.cache[k] for k in keys]

    def image(self, image: Image.Image) -> Image.Image:
        """An RGB image as CMYK through the same transform (no K-only black: in pixels, a black
        next to its own anti-aliased edge must not switch plates)."""
        image = image.convert("RGB")
        out = Image.new("CMYK", image.size)
        # the transform's own apply() also copies the whole profile into the image's info, each time
        self.transform.transform.apply(image.getim(), out.getim())
        return out

    def _convert(self, keys) -> list[tuple[float, ...]]:
        if not keys:
            return []
        strip = Image.new("RGB", (len(keys), 1))
        strip.putdata(keys)
        data = self.image(strip).tobytes()
        out = []
        for key, value in zip(keys, (tuple(data[k:k + 4]) for k in range(0, len(data), 4))):
            if key == (0, 0, 0):
                value = (0, 0, 0, 255)
            elif key == (255, 255, 255):
                value = (0, 0, 0, 0)
            out.append(tuple(round(v / 255, 4) for v in value))
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
