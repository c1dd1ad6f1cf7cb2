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
"""
from __future__ import annotations

import io

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
        `before` is content drawn first, `extra` the XObjects it uses."""
        res = holder.get("/Resources", pikepdf.Dictionary())
        ops = list(pikepdf.parse_content_stream(holder)) if ops is None else ops
        used: dict[str, dict] = {}
        out: list = []
        fill = stroke = "gray"

        def use(kind, name, value):
            used.setdefault(kind, {})[name] = value

        for i, ins in enumerate(ops):
            if isinstance(ins, pikepdf.ContentStreamInlineImage):
                if ins.operands[0].image_mask or ins.operands[0].mode in ("L", "1", "CMYK"):
                    out.append(ins)   # a stencil (painted in the fill colour), gray or CMYK: as it is
                    continue
                name = Name(f"/PnpInline{i}")
                use("/XObject", name, self._inline(ins))
                out.append(Ins([name], Operator("Do")))
                continue
            op, args = str(ins.operator), list(ins.operands)
            if op in ("rg", "RG"):
                out.append(Ins(list(self.cmyk.colour(args)), Operator("k" if op == "rg" else "K")))
                fill, stroke = ("cmyk", stroke) if op == "rg" else (fill, "cmyk")
            elif op in ("g", "k", "G", "K"):
                kind = "gray" if op in ("g", "G") else "cmyk"
                fill, stroke = (kind, stroke) if op in ("g", "k") else (fill, kind)
                out.append(ins)
            elif op in ("cs", "CS"):
                name, kind = self._space(res, args[0], use)
                fill, stroke = (kind, stroke) if op == "cs" else (fill, kind)
                out.append(Ins([name], ins.operator))
            elif op in ("sc", "scn", "SC", "SCN"):
                kind = fill if op in ("sc", "scn") else stroke
                if kind == "rgb":
                    out.append(Ins(list(self.cmyk.colour(args[:3])), ins.operator))
                elif kind == "pattern":
                    if len(args) != 1:
                        raise ValueError("an uncoloured tiling pattern")
                    pattern = self._pattern(res, args[0])
                    if pattern is None:  # transparent: everything it paints was drawn as pixels
                        out += [Ins([Name.DeviceGray], Operator("cs" if op == "scn" else "CS")),
                                Ins([0], Operator("sc" if op == "scn" else "SC"))]
                    else:
                        use("/Pattern", args[0], pattern)
                        out.append(ins)
                else:
                    out.append(ins)
            elif op == "gs":
                gs = res.get("/ExtGState", {}).get(args[0])
                clean = self._gs(gs) if gs is not None else None
                if clean is not None:
                    use("/ExtGState", args[0], clean)
                    out.append(ins)
            elif op == "sh":
                use("/Shading", args[0], self._shading(res.Shading[args[0]]))
                out.append(ins)
            elif op == "Do":
                use("/XObject", args[0], self._xobject(res.XObject[args[0]]))
                out.append(ins)
            elif op == "Tf":
                font = res.get("/Font", {}).get(args[0])
                if font is not None:
                    use("/Font", args[0], self._font(font))
                out.append(ins)
            elif op in ("BDC", "DP") and isinstance(args[-1], pikepdf.Name):
                props = res.get("/Properties", pikepdf.Dictionary()).get(args[-1])
                if props is not None:
                    use("/Properties", args[-1], props)
                out.append(ins)
            else:
                out.append(ins)
        for name, value in (extra or {}).items():
            use("/XObject", name, value)
        holder.write(before + pikepdf.unparse_content_stream(out))
        holder.Resources = pikepdf.Dictionary({
            k: pikepdf.Dictionary({str(n): o for n, o in sorted(v.items(), key=lambda kv: str(kv[0]))})
            for k, v in sorted(used.items())})
        if "/Group" in holder:
            del holder["/Group"]

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
