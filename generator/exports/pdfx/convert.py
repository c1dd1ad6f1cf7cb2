"""A print-shop PDF made PDF/X-1a:2003: CMYK only, no transparency, fonts embedded.

In: a pikepdf document whose pages draw faces as Form XObjects (profiles._pdf builds it),
each face drawn on blank paper; its title; the `Cmyk` transform; the raster resolution.
Out (`PdfX.finish`): the file's bytes, PDF 1.4 without object streams, with the
identification PDF/X-1a:2003 asks for (`GTS_PDFXVersion`, `Trapped /False`, Title, fixed
CreationDate and ModDate, a content-derived /ID) and a GTS_PDFX OutputIntent embedding the
CMYK profile; and per face (what `PdfX.face` returns) what had to become pixels.

Transparency (cairo writes opacity as `ca`/`CA` and gradients with alpha as soft masks)
cannot be kept. For each face, paint.py finds the transparent operators and every operator
beneath one of them (their boxes touch); those alone are drawn with PDFium at `dpi` times
the face's scale, converted to CMYK through the same profile and placed as one image under
the rest, which stays vector (recolour.py): what lies above every transparent mark,
usually all the text, keeps its vector outlines. Text that is itself transparent or lies
under a transparent mark is in the pixels and also stays in the file as invisible text, so
it can be searched and selected. A face without transparency has no pixels at all.
"""
from __future__ import annotations

import io
import math
import zlib
from typing import NamedTuple

import pikepdf
import pypdfium2 as pdfium
import pypdfium2.raw as raw
from pikepdf import Name

from ...pdfiumlock import pdfium_document
from .cmyk import Cmyk
from .paint import Analyser, raster_set, without
from .recolour import Recolour

VERSION = "PDF/X-1a:2003"
DATE = "D:20000101000000Z"   # fixed, so the same cards give the same bytes
# DriveThruCards prints on SWOP (CGATS TR 001); the embedded profile is what the colours were made with
CONDITION = ("CGATS TR 001", "http://www.color.org")


class FaceReport(NamedTuple):
    raster_px: tuple[int, int] | None    # size of the face's pixels, None when all vector
    transparent: int                     # transparent operators found
    text_in_pixels: int                  # text operators drawn as pixels (kept invisible too)


class _Pixels(NamedTuple):
    ops: list                 # the operators drawn as pixels alone
    size: tuple[int, int]     # pixels wide and high
    placed: tuple[float, float, float, float, float, float]   # the matrix putting the pixels on the face


class _Plan(NamedTuple):
    name: str
    form: pikepdf.Object
    vector_ops: list          # the face's operators, those drawn as pixels kept from painting
    pixels: _Pixels | None    # None: nothing of the face is drawn as pixels
    report: FaceReport


class PdfX:
    """Converts the faces of one document, then writes it as PDF/X-1a."""

    def __init__(self, pdf: pikepdf.Pdf, cmyk: Cmyk, dpi: float):
        self.pdf, self.cmyk, self.dpi = pdf, cmyk, dpi
        self.analyser = Analyser()
        self.plans: dict[tuple, _Plan] = {}

    def face(self, form: pikepdf.Object, name: str, scale: float = 1.0) -> FaceReport:
        """Plan a face's form (once; `name` says which face it is in errors): which of its
        operators become pixels, of what size. Pixels and rewriting wait for `finish`."""
        key = form.objgen
        if key in self.plans:
            return self.plans[key].report
        ops = list(pikepdf.parse_content_stream(form))
        paints = self.analyser.paints(form, tuple(float(v) for v in form.BBox), ops)
        chosen = raster_set(paints)
        vector = without(ops, {p.index: p.text_mode for p in paints if p.index in chosen})
        plan = _Plan(name, form, vector, None, FaceReport(
            None, sum(p.transparent for p in paints), sum(1 for p in paints if p.index in chosen and p.kind == "text")))
        if chosen:
            x0, y0, x1, y1 = _union(p.box for p in paints if p.index in chosen)
            per_pt = self.dpi * scale / 72
            size = (max(1, math.ceil((x1 - x0) * per_pt - 1e-6)), max(1, math.ceil((y1 - y0) * per_pt - 1e-6)))
            left_out = {p.index: p.text_mode for p in paints if p.index not in chosen}
            placed = (size[0] / per_pt, 0, 0, size[1] / per_pt, x0, y0)
            plan = plan._replace(pixels=_Pixels(without(ops, left_out), size, placed),
                                 report=plan.report._replace(raster_px=size))
        self.plans[key] = plan
        return plan.report

    def finish(self, title: str) -> bytes:
        """Draw the planned pixels, rewrite every face and page in CMYK; the file's bytes."""
        pixels = self._pixels()
        recolour = Recolour(self.pdf, self.cmyk)
        for key, plan in self.plans.items():
            recolour.done[key] = plan.form
            before, extra = b"", None
            if key in pixels and plan.pixels is not None:   # (each face in `pixels` planned them)
                before = b"q %s cm /PnpPixels Do Q\n" % " ".join(_num(v) for v in plan.pixels.placed).encode()
                extra = {Name.PnpPixels: pixels[key]}
            try:
                recolour.stream(plan.form, plan.vector_ops, before, extra)
            except ValueError as exc:
                raise ValueError(f"{plan.name}: cannot be made CMYK for PDF/X-1a: it uses {exc}") from None
        for page in self.pdf.pages:
            if "/Group" in page.obj:
                del page.obj["/Group"]
            page.contents_coalesce()
            _page(recolour, page)
        return self._save(title)

    def _pixels(self) -> dict[tuple, pikepdf.Object]:
        """Each planned face's chosen operators alone, drawn by PDFium over white from the
        faces as they still are (RGB; one scratch PDF for all, so shared fonts are copied
        once), converted to CMYK: an image XObject per face."""
        plans = [(key, plan, plan.pixels) for key, plan in self.plans.items() if plan.pixels is not None]
        if not plans:
            return {}
        scratch = pikepdf.new()
        for _, plan, px in plans:
            if not plan.form.Resources.is_indirect:  # copy_foreign copies indirect objects only
                plan.form.Resources = self.pdf.make_indirect(plan.form.Resources)
            page = scratch.add_blank_page(page_size=(px.placed[0], px.placed[3]))
            page.obj.Resources = scratch.copy_foreign(plan.form.Resources)
            shift = b"1 0 0 1 %s %s cm\n" % (_num(-px.placed[4]).encode(), _num(-px.placed[5]).encode())
            page.obj.Contents = scratch.make_stream(shift + pikepdf.unparse_content_stream(px.ops))
        buffer = io.BytesIO()
        scratch.save(buffer)
        out: dict[tuple, pikepdf.Object] = {}
        with pdfium_document(buffer.getvalue()) as doc:   # holds the PDFium lock
            for n, (key, _, px) in enumerate(plans):
                width, height = px.size
                bitmap = pdfium.PdfBitmap.new_native(width, height, raw.FPDFBitmap_BGRx)
                raw.FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xFFFFFFFF)
                page = doc[n]
                raw.FPDF_RenderPageBitmap(bitmap, page, 0, 0, width, height, 0, raw.FPDF_ANNOT)
                cmyk = self.cmyk.image(bitmap.to_pil())
                page.close()
                bitmap.close()
                image = pikepdf.Stream(self.pdf, zlib.compress(cmyk.tobytes(), 6))
                image.Filter, image.Type, image.Subtype = Name.FlateDecode, Name.XObject, Name.Image
                image.Width, image.Height = width, height
                image.ColorSpace, image.BitsPerComponent = Name.DeviceCMYK, 8
                out[key] = self.pdf.make_indirect(image)
        return out

    def _save(self, title: str) -> bytes:
        pdf = self.pdf
        profile = pdf.make_stream(self.cmyk.icc)
        profile.N = 4
        identifier, registry = CONDITION
        pdf.Root.OutputIntents = pikepdf.Array([pikepdf.Dictionary(
            Type=Name.OutputIntent, S=Name.GTS_PDFX, OutputConditionIdentifier=identifier,
            RegistryName=registry, OutputCondition=f"SWOP, profile {self.cmyk.description}",
            Info=self.cmyk.description, DestOutputProfile=profile)])
        info = pdf.docinfo
        for key in list(info.keys()):
            del info[key]
        info.Title, info.Creator, info.Producer = title, "pnp", "pnp (pikepdf)"
        info.CreationDate = info.ModDate = DATE
        info.Trapped = Name("/False")
        info.GTS_PDFXVersion = info.GTS_PDFXConformance = VERSION
        out = io.BytesIO()
        pdf.remove_unreferenced_resources()
        pdf.save(out, compress_streams=True, deterministic_id=True, force_version="1.4",
                 object_stream_mode=pikepdf.ObjectStreamMode.disable, fix_metadata_version=False)
        return out.getvalue()


def _page(recolour: Recolour, page: pikepdf.Page) -> None:
    """A page's own content (the clip and the face placement) through the same rewrite."""
    holder = page.obj.Contents
    holder.Resources = page.obj.Resources
    recolour.stream(holder)
    page.obj.Resources = holder.Resources
    del holder["/Resources"]


def _union(boxes):
    boxes = list(boxes)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _num(v: float) -> str:
    text = f"{v:.5f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
