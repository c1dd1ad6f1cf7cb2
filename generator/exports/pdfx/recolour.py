"""Rewrite PDF content streams in CMYK, without transparency, for PDF/X-1a.

In: a content stream (a face's form, a nested form, a tiling pattern, a Type 3 glyph) with
its resources, or its operators as paint.without left them, and the `Cmyk` transform.
Out: the stream rewritten in place: `rg`/`RG` become `k`/`K`,
colours in DeviceRGB, CalRGB or 3-channel ICCBased spaces become DeviceCMYK, shadings get
CMYK colour tables, RGB images CMYK pixels (a JPEG a CMYK JPEG); ExtGStates lose their alpha (`ca`, `CA`), soft
masks and blend modes, forms their transparency groups. Resources the rewritten stream
does not use are dropped. Gray (`g`, `G`, DeviceGray) and CMYK stay as they are.
Anything else in RGB (Separation with an RGB alternate, mesh shadings, type 4 functions)
is a `ValueError` that says what it is.

Which operators are rewritten, and how, is one table (`OPERATORS`: operator -> method);
every other operator is copied as it is.
"""
from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pikepdf
from pikepdf import ContentStreamInstruction as Ins
from pikepdf import Name, Operator
from PIL import Image

from ...draw.pictures import idat
from .cmyk import Cmyk

ALPHA_KEYS = ("/CA", "/ca", "/SMask", "/BM", "/AIS", "/TK")


class Recolour:
    """Rewrites streams of one PDF, each shared object (form, image, shading) only once."""

    def __init__(self, pdf: pikepdf.Pdf, cmyk: Cmyk):
        self.pdf, self.cmyk = pdf, cmyk
        self.done: dict[tuple, pikepdf.Object] = {}

    def stream(self, holder: pikepdf.Object, ops=None, before: bytes = b"", extra: dict | None = None) -> None:
        """Rewrite `holder` (a stream with /Resources) in place, from `ops` when given;
        `before` is content drawn first, `extra` the XObjects it uses. Each operator goes
        through its entry in `OPERATORS`; one not there is kept as it is."""
        ops = list(pikepdf.parse_content_stream(holder)) if ops is None else ops
        run = _Run(holder.get("/Resources", pikepdf.Dictionary()))
        for i, ins in enumerate(ops):
            op = INLINE if isinstance(ins, pikepdf.ContentStreamInlineImage) else str(ins.operator)
            handler = OPERATORS.get(op)
            if handler is None:
                run.out.append(ins)
            else:
                handler(self, run, i, ins, op)
        for name, value in (extra or {}).items():
            run.use("/XObject", name, value)
        holder.write(before + pikepdf.unparse_content_stream(run.out))
        holder.Resources = pikepdf.Dictionary({
            k: pikepdf.Dictionary({str(n): o for n, o in sorted(v.items(), key=lambda kv: str(kv[0]))})
            for k, v in sorted(run.used.items())})
        if "/Group" in holder:
            del holder["/Group"]

    # One method per family of operators, each named in OPERATORS below the class.

    def _inline_image(self, run: _Run, i: int, ins, op: str) -> None:
        if ins.operands[0].image_mask or ins.operands[0].mode in ("L", "1", "CMYK"):
            run.out.append(ins)   # a stencil (painted in the fill colour), gray or CMYK: as it is
            return
        name = Name(f"/PnpInline{i}")
        run.use("/XObject", name, self._inline(ins))
        run.out.append(Ins([name], Operator("Do")))

    def _rgb(self, run: _Run, i: int, ins, op: str) -> None:
        run.out.append(Ins(list(self.cmyk.colour(list(ins.operands))), Operator("k" if op == "rg" else "K")))
        run.fill, run.stroke = ("cmyk", run.stroke) if op == "rg" else (run.fill, "cmyk")

    def _device(self, run: _Run, i: int, ins, op: str) -> None:
        kind = "gray" if op in ("g", "G") else "cmyk"
        run.fill, run.stroke = (kind, run.stroke) if op in ("g", "k") else (run.fill, kind)
        run.out.append(ins)

    def _colour_space(self, run: _Run, i: int, ins, op: str) -> None:
        name, kind = self._space(run.res, ins.operands[0], run.use)
        run.fill, run.stroke = (kind, run.stroke) if op == "cs" else (run.fill, kind)
        run.out.append(Ins([name], ins.operator))

    def _colour(self, run: _Run, i: int, ins, op: str) -> None:
        args = list(ins.operands)
        kind = run.fill if op in ("sc", "scn") else run.stroke
        if kind == "rgb":
            run.out.append(Ins(list(self.cmyk.colour(args[:3])), ins.operator))
        elif kind == "pattern":
            if len(args) != 1:
                raise ValueError("an uncoloured tiling pattern")
            pattern = self._pattern(run.res, args[0])
            if pattern is None:  # transparent: everything it paints was drawn as pixels
                run.out += [Ins([Name.DeviceGray], Operator("cs" if op == "scn" else "CS")),
                            Ins([0], Operator("sc" if op == "scn" else "SC"))]
            else:
                run.use("/Pattern", args[0], pattern)
                run.out.append(ins)
        else:
            run.out.append(ins)

    def _graphics_state(self, run: _Run, i: int, ins, op: str) -> None:
        name = ins.operands[0]
        gs = run.res.get("/ExtGState", {}).get(name)
        clean = self._gs(gs) if gs is not None else None
        if clean is not None:
            run.use("/ExtGState", name, clean)
            run.out.append(ins)

    def _paint_shading(self, run: _Run, i: int, ins, op: str) -> None:
        name = ins.operands[0]
        run.use("/Shading", name, self._shading(run.res.Shading[name]))
        run.out.append(ins)

    def _draw_xobject(self, run: _Run, i: int, ins, op: str) -> None:
        name = ins.operands[0]
        run.use("/XObject", name, self._xobject(run.res.XObject[name]))
        run.out.append(ins)

    def _set_font(self, run: _Run, i: int, ins, op: str) -> None:
        name = ins.operands[0]
        font = run.res.get("/Font", {}).get(name)
        if font is not None:
            run.use("/Font", name, self._font(font))
        run.out.append(ins)

    def _marked_content(self, run: _Run, i: int, ins, op: str) -> None:
        tag = ins.operands[-1]
        if isinstance(tag, pikepdf.Name):
            props = run.res.get("/Properties", pikepdf.Dictionary()).get(tag)
            if props is not None:
                run.use("/Properties", tag, props)
        run.out.append(ins)

    def _space(self, res, name, use):
        """The name to set a colour space by, and its kind (gray, rgb, cmyk, pattern)."""
        device = {Name.DeviceGray: "gray", Name.DeviceCMYK: "cmyk", Name.Pattern: "pattern"}
        if name in device:
            return name, device[name]
        if name == Name.DeviceRGB:
            return Name.DeviceCMYK, "rgb"
        space = res.get("/ColorSpace", {}).get(name)
        if space is None:
            raise ValueError(f"colour space {name} is not in the resources")
        kind = _kind(space)
        if kind == "rgb":
            return Name.DeviceCMYK, "rgb"
        if kind == "gray-icc":
            return Name.DeviceGray, "gray"
        if kind == "cmyk-icc":
            return Name.DeviceCMYK, "cmyk"
        if kind == "separation":
            use("/ColorSpace", name, space)
            return name, "other"
        raise ValueError(f"colour space {_describe(space)}")

    def _gs(self, gs):
        """The ExtGState without alpha, soft mask or blend mode; None if nothing else is left."""
        key = gs.objgen
        if key != (0, 0) and key in self.done:
            return self.done[key]
        clean = {k: v for k, v in gs.items() if k not in ALPHA_KEYS and k != "/Type"}
        if "/TR" in clean or "/TR2" in clean or "/HT" in clean:
            raise ValueError("transfer functions or halftones in a graphics state")
        value = self.pdf.make_indirect(pikepdf.Dictionary(clean)) if clean else None
        if key != (0, 0):
            self.done[key] = value
        return value

    def _shading(self, shading):
        key = shading.objgen
        if key == (0, 0):
            return self.cmyk.shading(self.pdf, shading)
        if key not in self.done:
            self.done[key] = self.cmyk.shading(self.pdf, shading)
        return self.done[key]

    def _pattern(self, res, name):
        pattern = res.get("/Pattern", {}).get(name)
        if pattern is None:
            raise ValueError(f"pattern {name} is not in the resources")
        key = pattern.objgen
        if key in self.done:
            return self.done[key]
        if int(pattern.get("/PatternType", 0)) == 1:
            from .paint import Analyser
            if Analyser().transparent_inside(pattern):
                value = None
            else:
                self.stream(pattern)
                value = pattern
        else:
            if "/ExtGState" in pattern:
                raise ValueError("a shading pattern with its own graphics state")
            value = self.pdf.make_indirect(pikepdf.Dictionary(
                {k: (self._shading(v) if k == "/Shading" else v) for k, v in pattern.items()}))
        self.done[key] = value
        return value

    def _xobject(self, xobj):
        key = xobj.objgen
        if key in self.done:
            return self.done[key]
        self.done[key] = xobj
        if xobj.get("/Subtype") == Name.Image:
            self._image(xobj)
        else:
            self.stream(xobj)
        return xobj

    def _font(self, font: pikepdf.Object) -> pikepdf.Object:
        """A Type 3 font's glyphs rewritten like any content (they share the font's resources)."""
        key = font.objgen
        if font.get("/Subtype") == Name.Type3 and key not in self.done:
            self.done[key] = font
            shared: dict[str, dict] = {}
            for glyph in font.CharProcs.values():
                glyph.Resources = font.get("/Resources", pikepdf.Dictionary())
                self.stream(glyph)
                for kind, names in glyph.Resources.items():
                    shared.setdefault(kind, {}).update({str(n): v for n, v in names.items()})
                del glyph["/Resources"]
            font.Resources = pikepdf.Dictionary({k: pikepdf.Dictionary(v) for k, v in sorted(shared.items())})
        return font

    def _image(self, image) -> None:
        """An RGB image's pixels converted to CMYK, in place; gray, CMYK and masks stay."""
        if image.get("/ImageMask", False):
            return
        space = image.get("/ColorSpace")
        kind = "rgb" if space == Name.DeviceRGB else _kind(space) if space is not None else "gray"
        if isinstance(space, pikepdf.Array) and space[0] == Name.Indexed:
            kind = "indexed"
        if kind in ("gray", "cmyk", "separation") or space in (Name.DeviceGray, Name.DeviceCMYK):
            return
        if kind not in ("rgb", "indexed", "gray-icc", "cmyk-icc"):
            raise ValueError(f"an image in colour space {_describe(space)}")
        if kind in ("gray-icc", "cmyk-icc"):
            image.ColorSpace = Name.DeviceGray if kind == "gray-icc" else Name.DeviceCMYK
            return
        try:
            pil = pikepdf.PdfImage(image).as_pil_image()
        except Exception as exc:  # an encoding pikepdf cannot decode (JBIG2, 16-bit, ...)
            raise ValueError(f"an RGB image pnp cannot read ({exc})") from None
        if image.get("/Filter") == Name.DCTDecode:  # a JPEG stays a JPEG (raw CMYK would be 4 bytes a pixel)
            image.write(self.cmyk.jpeg(pil), filter=Name.DCTDecode)   # Adobe's inverted CMYK
            image.ColorSpace, image.BitsPerComponent = Name.DeviceCMYK, 8
            image.Decode = pikepdf.Array([1, 0] * 4)
            return
        cmyk = self.cmyk.image(pil)
        # lossless: the four channels through PNG's row filters and zlib (as RGBA), the IDAT as a
        # Flate stream with PNG predictors: half the size of plain Flate for a picture
        out = io.BytesIO()
        Image.frombytes("RGBA", cmyk.size, cmyk.tobytes()).save(out, "PNG", compress_level=4)
        image.write(idat(out.getvalue()), filter=Name.FlateDecode, decode_parms=pikepdf.Dictionary(
            Predictor=15, Colors=4, BitsPerComponent=8, Columns=cmyk.width))
        image.ColorSpace, image.BitsPerComponent = Name.DeviceCMYK, 8
        if "/Decode" in image:
            del image["/Decode"]

    def _inline(self, ins):
        """An RGB inline image as a CMYK image XObject."""
        pil = ins.operands[0].as_pil_image()
        image = self.pdf.make_stream(self.cmyk.image(pil).tobytes())
        image.Type, image.Subtype = Name.XObject, Name.Image
        image.Width, image.Height, image.BitsPerComponent = pil.width, pil.height, 8
        image.ColorSpace = Name.DeviceCMYK
        return image


class _Run:
    """What one stream's rewrite has so far: the operators out, the resources they use and
    the kind of colour space (gray, rgb, cmyk, pattern, other) filling and stroking."""

    __slots__ = ("res", "out", "used", "fill", "stroke")

    def __init__(self, res: pikepdf.Object):
        self.res = res
        self.out: list = []
        self.used: dict[str, dict] = {}
        self.fill = self.stroke = "gray"

    def use(self, kind, name, value) -> None:
        self.used.setdefault(kind, {})[name] = value


INLINE = "INLINE IMAGE"   # how pikepdf names an inline image (BI ... ID ... EI) among the operators

Handler = Callable[[Recolour, _Run, int, Any, str], None]

# Every operator the rewrite changes or whose resources it keeps, and what it does with it;
# any other operator (paths, painting, text, q/Q, cm, ...) is copied as it is.
OPERATORS: dict[str, Handler] = {
    INLINE: Recolour._inline_image,                                # RGB pixels: a CMYK image XObject
    "rg": Recolour._rgb, "RG": Recolour._rgb,                      # become k / K
    "g": Recolour._device, "G": Recolour._device,                  # gray: kept
    "k": Recolour._device, "K": Recolour._device,                  # CMYK: kept
    "cs": Recolour._colour_space, "CS": Recolour._colour_space,    # RGB spaces become DeviceCMYK
    "sc": Recolour._colour, "scn": Recolour._colour,               # a colour in the current space
    "SC": Recolour._colour, "SCN": Recolour._colour,
    "gs": Recolour._graphics_state,                                # ExtGState without alpha
    "sh": Recolour._paint_shading,                                 # shading with CMYK colours
    "Do": Recolour._draw_xobject,                                  # image or form, rewritten once
    "Tf": Recolour._set_font,                                      # a Type 3 font's glyphs rewritten
    "BDC": Recolour._marked_content, "DP": Recolour._marked_content,  # their /Properties kept
}


def _kind(space) -> str:
    """rgb, gray-icc, cmyk-icc, separation (with a gray or CMYK alternate), or other."""
    if space == Name.DeviceRGB:
        return "rgb"
    if not isinstance(space, pikepdf.Array) or len(space) == 0:
        return "other"
    family = space[0]
    if family == Name.CalRGB:
        return "rgb"
    if family == Name.CalGray:
        return "gray-icc"
    if family == Name.ICCBased:
        return {1: "gray-icc", 3: "rgb", 4: "cmyk-icc"}.get(int(space[1].N), "other")
    if family in (Name.Separation, Name.DeviceN) and space[2] in (Name.DeviceGray, Name.DeviceCMYK):
        return "separation"
    return "other"


def _describe(space) -> str:
    if isinstance(space, pikepdf.Array) and len(space) > 0:
        return str(space[0])
    return str(space)
