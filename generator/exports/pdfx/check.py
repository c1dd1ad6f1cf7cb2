"""Check a written file against the PDF/X-1a:2003 rules pnp can break.

In: a PDF's bytes. Out: a list of problems (empty: none found), each naming the object.
It reads the file as a print shop's preflight would, independently of how it was made:
the header (PDF 1.3 or 1.4, no object or cross-reference streams), the Info keys
(GTS_PDFXVersion, Title, CreationDate, ModDate, Trapped True or False), a trailer /ID, no
encryption, one GTS_PDFX OutputIntent with a CMYK printer profile or a registry name, and
on every page a TrimBox (no ArtBox) inside the BleedBox inside the MediaBox. Then every
object: no RGB, CalRGB, Lab or ICCBased colour space (images, shadings, groups, named
spaces, `cs`/`rg` in content streams), no transparency (ca or CA below 1, soft masks, blend
modes, transparency groups), and every font embedded. profiles.py runs it on each
DriveThruCards file before writing it; the tests run it too.

`ink_problems` measures the total ink of every page as a press would lay it down: the file
rendered in CMYK by Ghostscript (Debian's `ghostscript`; device pamcmyk32, DeviceCMYK
passed through unchanged, no anti-aliasing, so every painted colour reaches a pixel as it
is), C+M+Y+K summed per pixel and the maximum of each page compared with the limit.
"""
from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pikepdf
from pikepdf import Name
from PIL import Image

from ... import safefs
from .cmyk import most_ink

INK_DPI = 100          # resolution the pages are rendered at to measure their ink
GS_SECONDS = 300       # the most Ghostscript may take for one file

RGB_FAMILIES = {Name.DeviceRGB, Name.CalRGB, Name.Lab, Name.ICCBased}
NORMAL = {Name.Normal, Name.Compatible}


def pdfx_problems(data: bytes) -> list[str]:
    """What keeps `data` from being a PDF/X-1a:2003 file (as far as pnp can tell)."""
    problems = []
    header = re.match(rb"%PDF-1\.(\d)", data)
    if not header or int(header.group(1)) > 4:
        problems.append(f"header {data[:8]!r}: PDF/X-1a:2003 is PDF 1.3 or 1.4")
    if b"/ObjStm" in data or re.search(rb"/Type\s*/XRef\b", data):
        problems.append("object or cross-reference streams (PDF 1.5)")
    pdf = pikepdf.open(io.BytesIO(data))
    if pdf.is_encrypted:
        problems.append("encrypted")
    if "/ID" not in pdf.trailer:
        problems.append("no /ID in the trailer")
    info = pdf.docinfo
    if str(info.get("/GTS_PDFXVersion", "")) not in ("PDF/X-1a:2003", "PDF/X-1:2001"):
        problems.append(f"Info GTS_PDFXVersion is {info.get('/GTS_PDFXVersion')!s}")
    for key in ("/Title", "/CreationDate", "/ModDate"):
        if not str(info.get(key, "")):
            problems.append(f"Info has no {key[1:]}")
    if info.get("/Trapped") not in (Name("/True"), Name("/False")):
        problems.append("Info Trapped is not /True or /False")
    problems += _intent(pdf)
    contents: list[tuple[str, pikepdf.Page | pikepdf.Object]] = []   # what holds a content stream
    for n, page in enumerate(pdf.pages, start=1):
        problems += [f"page {n}: {p}" for p in _boxes(page) + _dictionary(page.obj)]
        contents.append((f"page {n}", page))
    for obj in pdf.objects:
        where = f"object {obj.objgen[0]}"
        for d in _dictionaries(obj):
            problems += [f"{where}: {p}" for p in _dictionary(d)]
        if isinstance(obj, (pikepdf.Stream, pikepdf.Dictionary)):
            if obj.get("/Subtype") == Name.Form or obj.get("/PatternType") == 1:
                contents.append((where, obj))
            if obj.get("/Type") == Name.Font and obj.get("/Subtype") == Name.Type3:
                contents += [(f"{where} glyph {k}", v) for k, v in obj.CharProcs.items()]
    for where, holder in contents:
        problems += [f"{where}: {p}" for p in _content(holder)]
    return problems


def page_inks(data: bytes, scratch: Path | None = None, dpi: int = INK_DPI) -> list[float]:
    """The highest total ink (C+M+Y+K, percent) of each page of `data`, rendered in CMYK.
    `scratch` is a folder for Ghostscript's files (output/.cache/preflight, never reached
    through a link; default: the system's temporary folder).

    :raises OutputError: Ghostscript is missing or fails.
    """
    from ...errors import OutputError

    gs = shutil.which("gs")
    if gs is None:
        raise OutputError("measuring a CMYK file's total ink needs Ghostscript: install Debian's ghostscript "
                          "(apt-get install ghostscript)")
    if scratch is not None:   # output/.cache/preflight: real folders under the one holding output/
        safefs.real_folder(scratch.parents[2], scratch)
    with tempfile.TemporaryDirectory(dir=scratch, prefix="ink-") as folder:
        pdf = Path(folder) / "file.pdf"
        pdf.write_bytes(data)
        try:
            done = subprocess.run(
                [gs, "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=pamcmyk32", f"-r{dpi}",
                 "-dUseFastColor=true", "-dGraphicsAlphaBits=1", "-dTextAlphaBits=1", "-dNOINTERPOLATE",
                 "-sOutputFile=-", str(pdf)],
                capture_output=True, timeout=GS_SECONDS, stdin=subprocess.DEVNULL,
                env={**os.environ, "TMPDIR": folder}, cwd=folder)
        except subprocess.TimeoutExpired:
            raise OutputError(f"Ghostscript took more than {GS_SECONDS} s to render the file in CMYK") from None
    if done.returncode != 0:
        raise OutputError("Ghostscript could not render the file in CMYK: "
                          + done.stderr.decode(errors="replace").strip()[:300])
    return [most_ink(image) for image in _pam_pages(done.stdout)]


def ink_problems(data: bytes, max_ink: float, scratch: Path | None = None) -> list[str]:
    """A problem for each page whose total ink passes `max_ink` percent."""
    return [f"page {n}: total ink {ink:.0f} % (the limit is {max_ink:g} %)"
            for n, ink in enumerate(page_inks(data, scratch), start=1) if ink > max_ink + 1e-9]


def _pam_pages(stream: bytes):
    """The CMYK images of a stream of PAM pages (P7, TUPLTYPE CMYK), one after another."""
    at = 0
    while at < len(stream):
        end = stream.index(b"ENDHDR\n", at) + len(b"ENDHDR\n")
        fields = dict(line.split(b" ", 1) for line in stream[at:end].splitlines()[1:-1] if b" " in line)
        w, h, depth = int(fields[b"WIDTH"]), int(fields[b"HEIGHT"]), int(fields[b"DEPTH"])
        if depth != 4:
            raise ValueError(f"a page of {depth} channels, not CMYK")
        yield Image.frombytes("CMYK", (w, h), stream[end:end + w * h * 4])
        at = end + w * h * 4


def _dictionaries(obj, top=True):
    """The object if it is a dictionary or stream, and every direct dictionary inside it."""
    if not top and getattr(obj, "is_indirect", False):
        return
    if isinstance(obj, (pikepdf.Dictionary, pikepdf.Stream)):
        yield obj
        for value in obj.values():
            yield from _dictionaries(value, False)
    elif isinstance(obj, pikepdf.Array):
        for value in obj:
            yield from _dictionaries(value, False)


def _intent(pdf) -> list[str]:
    intents = [i for i in pdf.Root.get("/OutputIntents", []) if i.get("/S") == Name.GTS_PDFX]
    if len(intents) != 1:
        return [f"{len(intents)} GTS_PDFX OutputIntents (one is needed)"]
    intent = intents[0]
    named = str(intent.get("/OutputConditionIdentifier", ""))
    problems = [] if named else ["OutputIntent has no OutputConditionIdentifier"]
    profile = intent.get("/DestOutputProfile")
    if profile is None:
        if not str(intent.get("/RegistryName", "")):
            problems.append("OutputIntent has neither a profile nor a RegistryName")
    else:
        head = profile.read_bytes()[:20]
        if head[12:16] != b"prtr" or head[16:20] != b"CMYK":
            problems.append("the OutputIntent's profile is not a CMYK printer profile")
    return problems


def _boxes(page) -> list[str]:
    obj = page.obj
    if "/TrimBox" not in obj:
        return ["no TrimBox"]
    if "/ArtBox" in obj:
        return ["both TrimBox and ArtBox"]
    media = [float(v) for v in obj.MediaBox]
    bleed = [float(v) for v in obj.get("/BleedBox", obj.MediaBox)]
    trim = [float(v) for v in obj.TrimBox]
    problems = []
    for inner, outer, what in ((trim, bleed, "TrimBox outside the BleedBox"),
                               (bleed, media, "BleedBox outside the MediaBox")):
        if (inner[0] < outer[0] - 1e-6 or inner[1] < outer[1] - 1e-6
                or inner[2] > outer[2] + 1e-6 or inner[3] > outer[3] + 1e-6):
            problems.append(what)
    return problems


def _dictionary(d) -> list[str]:
    problems = []
    space = d.get("/ColorSpace")
    if space is not None and d.get("/Type") != Name.OutputIntent:
        for value in (space.values() if isinstance(space, pikepdf.Dictionary) else [space]):
            if _rgb(value):
                problems.append(f"colour space {_family(value)}")
    if "/SMask" in d and d.SMask != Name("/None"):
        problems.append("soft mask")
    for key in ("/CA", "/ca"):
        if key in d and float(d[key]) < 1:
            problems.append(f"{key[1:]} {float(d[key]):g} (constant alpha)")
    if "/BM" in d and (d.BM not in NORMAL if not isinstance(d.BM, pikepdf.Array) else d.BM[0] not in NORMAL):
        problems.append(f"blend mode {d.BM}")
    group = d.get("/Group")
    if isinstance(group, pikepdf.Dictionary) and group.get("/S") == Name.Transparency:
        problems.append("transparency group")
    if d.get("/Type") == Name.Font:
        problems += _font(d)
    return problems


def _font(font) -> list[str]:
    kind = font.get("/Subtype")
    if kind == Name.Type3:
        return []
    if kind == Name.Type0:
        font = font.DescendantFonts[0]
    descriptor = font.get("/FontDescriptor", {})
    if not any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")):
        return [f"font {font.get('/BaseFont')} not embedded"]
    return []


def _content(holder) -> list[str]:
    """A content stream's own colour operators (a page's, a form's, a pattern's, a glyph's)."""
    problems = set()
    for ins in pikepdf.parse_content_stream(holder):
        if isinstance(ins, pikepdf.ContentStreamInlineImage):
            if ins.iimage.mode not in ("L", "1", "CMYK"):
                problems.add(f"inline image in {ins.iimage.mode}")
            continue
        op = str(ins.operator)
        if op in ("rg", "RG"):
            problems.add(f"RGB colour operator {op}")
        elif op in ("cs", "CS") and ins.operands[0] in (Name.DeviceRGB, Name.CalRGB):
            problems.add(f"{op} {ins.operands[0]}")
    return sorted(problems)


def _rgb(space) -> bool:
    if isinstance(space, pikepdf.Name):
        return space == Name.DeviceRGB
    if isinstance(space, pikepdf.Array) and len(space) > 0:
        family = space[0]
        if family in RGB_FAMILIES:
            return True   # ICCBased too: PDF/X-1a prints device colour only
        if family == Name.Indexed:
            return _rgb(space[1])
        if family in (Name.Separation, Name.DeviceN):
            return _rgb(space[2])
        if family == Name.Pattern and len(space) > 1:
            return _rgb(space[1])
    return False


def _family(space) -> str:
    return str(space[0]) if isinstance(space, pikepdf.Array) and len(space) else str(space)
