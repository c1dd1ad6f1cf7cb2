"""The PDF/X-1a converter's operators: two tables (`recolour.OPERATORS`: how each is
rewritten in CMYK; `paint.OPERATORS`: what each paints, transparently or not), and content
streams using every operator in them converted and analysed as before the tables (pinned
from the if/elif chains they replace)."""
from __future__ import annotations

import ast
import hashlib
import inspect
import io
import textwrap

import pikepdf
from pikepdf import Array, Dictionary, Name

from generator.exports.pdfx import paint, recolour
from generator.exports.pdfx.cmyk import Cmyk
from generator.exports.pdfx.recolour import INLINE, OPERATORS, Recolour

# what recolour.py's docstring says the rewrite changes, or keeps the resources of: colours
# (fill and stroke, device and named spaces, patterns), graphics states, shadings, XObjects,
# fonts (Type 3 glyphs), marked content's properties and inline images
CLAIMED = {"rg", "RG", "g", "G", "k", "K", "cs", "CS", "sc", "scn", "SC", "SCN", "gs", "sh", "Do", "Tf",
           "BDC", "DP", INLINE}

CONTENT = (b"q 1 0 0 rg 0 0 1 RG 0.5 g 0.2 G 0 0 0 1 k 0 0 0 0.5 K\n"
           b"/C0 cs 0.1 0.2 0.3 sc /C0 CS 0.3 0.2 0.1 SC\n"
           b"/DeviceRGB cs 0.4 0.5 0.6 scn /DeviceRGB CS 0.6 0.5 0.4 SCN 0 0 5 5 re B\n"
           b"/Pattern cs /P0 scn 0 0 5 5 re f /Pattern CS /P1 SCN 0 0 5 5 re S\n"
           b"/G0 gs /G1 gs /Sh0 sh /Im0 Do /Fm0 Do\n"
           b"BT /F0 12 Tf 1 0 0 1 2 2 Tm (A) Tj ET\n"
           b"/Span /M0 BDC EMC /Note /M1 DP /Span <</MCID 1>> BDC EMC\n"
           b"BI /W 3 /H 3 /CS /RGB /BPC 8 ID " + b"\xff\x80\x10" * 9 + b" EI Q\n")

# text, paths and clips: what paint.py follows beyond CONTENT
TEXT = (b"q 0.5 0 0 0.5 1 1 cm 2 w 4 M /G0 gs BT /F0 12 Tf 3 Tr 1 Tc 2 Tw 90 Tz 14 TL 1 Ts 1 0 0 1 2 2 Tm (AB) Tj "
        b"5 6 Td (C) Tj 1 2 TD [(D) -200 (E)] TJ T* (F) ' 1 2 (G) \" 2 Tr (H) Tj ET "
        b"/F0 9 Tf (I) Tj 0 0 m 5 5 l 1 1 2 2 3 3 c 1 1 2 2 v 1 1 2 2 y h W n 0 0 9 9 re W* f* "
        b"/Pattern cs /P1 scn 0 0 3 3 re b* 0 0 1 rg 1 1 3 3 re F 0 0 3 3 re s 0 0 2 2 re B* 0 0 2 2 re b Q (J) Tj\n")

# what the rewrite made of CONTENT before its operators were a table (the if/elif chain)
EXPECTED = textwrap.dedent("""\
    q
    0 1 1 0 k
    0.8784 0.7686 0 0 K
    0.5 g
    0.2 G
    0 0 0 1 k
    0 0 0 0.5 K
    /DeviceCMYK cs
    0.9216 0.7608 0.4549 0.4196 sc
    /DeviceCMYK CS
    0.4784 0.6667 0.8745 0.5804 SC
    /DeviceCMYK cs
    0.6431 0.4353 0.2824 0.0275 scn
    /DeviceCMYK CS
    0.3765 0.4549 0.6196 0.0941 SCN
    0 0 5 5 re
    B
    /Pattern cs
    /P0 scn
    0 0 5 5 re
    f
    /Pattern CS
    /DeviceGray CS
    0 SC
    0 0 5 5 re
    S
    /G0 gs
    /Sh0 sh
    /Im0 Do
    /Fm0 Do
    BT
    /F0 12 Tf
    1 0 0 1 2 2 Tm
    (A) Tj
    ET
    /Span /M0 BDC
    EMC
    /Note /M1 DP
    /Span << /MCID 1 >> BDC
    EMC
    /PnpInline40 Do
    Q""").encode()
EXPECTED_RESOURCES = [("/ExtGState", ["/G0"]), ("/Font", ["/F0"]), ("/Pattern", ["/P0"]),
                      ("/Properties", ["/M0", "/M1"]), ("/Shading", ["/Sh0"]),
                      ("/XObject", ["/Fm0", "/Im0", "/PnpInline40"])]
# the whole file, nested form, patterns, image, shading and inline image included
EXPECTED_FILE = "6f4283e9181769c736f429dab25b9f05f9c9296d097a2a061d01a39b9043e970"


# what paint.py found in CONTENT and in TEXT (with CONTENT's resources) before its table
PAINTS = [
    "Paint(index=16, box=(0.0, 0.0, 10.0, 10.0), transparent=False, kind='path', text_mode=0, parts=())",
    "Paint(index=20, box=(0.0, 0.0, 5.0, 5.0), transparent=False, kind='path', text_mode=0, parts=())",
    "Paint(index=24, box=(0.0, 0.0, 10.0, 10.0), transparent=True, kind='path', text_mode=0, parts=())",
    "Paint(index=27, box=(0.0, 0.0, 10.0, 10.0), transparent=True, kind='shading', text_mode=0, parts=())",
    "Paint(index=28, box=(0.0, 0.0, 1.0, 1.0), transparent=True, kind='image', text_mode=0, parts=())",
    "Paint(index=29, box=(0.0, 0.0, 1.0, 1.0), transparent=True, kind='form', text_mode=0, parts=((0.0, 0.0, 1.0, 1.0),))",
    "Paint(index=33, box=(0.0, 0.0, 10.0, 10.0), transparent=True, kind='text', text_mode=0, parts=())",
    "Paint(index=40, box=(0.0, 0.0, 1.0, 1.0), transparent=True, kind='image', text_mode=0, parts=())",
]
TEXT_PAINTS = [
    "Paint(index=14, box=None, transparent=False, kind='text', text_mode=3, parts=())",
    "Paint(index=16, box=None, transparent=False, kind='text', text_mode=3, parts=())",
    "Paint(index=18, box=None, transparent=False, kind='text', text_mode=3, parts=())",
    "Paint(index=20, box=None, transparent=False, kind='text', text_mode=3, parts=())",
    "Paint(index=21, box=None, transparent=False, kind='text', text_mode=3, parts=())",
    "Paint(index=23, box=(0.0, 1.5, 10.0, 10.0), transparent=True, kind='text', text_mode=2, parts=())",
    "Paint(index=26, box=(0.0, 0.0, 10.0, 10.0), transparent=True, kind='text', text_mode=2, parts=())",
    "Paint(index=37, box=(1.0, 1.0, 3.5, 3.5), transparent=True, kind='path', text_mode=0, parts=())",
    "Paint(index=41, box=(1.0, 1.0, 3.5, 3.5), transparent=True, kind='path', text_mode=0, parts=())",
    "Paint(index=44, box=(1.5, 1.5, 3.0, 3.0), transparent=True, kind='path', text_mode=0, parts=())",
    "Paint(index=46, box=(1.0, 1.0, 3.5, 3.5), transparent=False, kind='path', text_mode=0, parts=())",
    "Paint(index=48, box=(1.0, 1.0, 3.5, 3.5), transparent=True, kind='path', text_mode=0, parts=())",
    "Paint(index=50, box=(1.0, 1.0, 3.5, 3.5), transparent=True, kind='path', text_mode=0, parts=())",
    "Paint(index=52, box=None, transparent=False, kind='text', text_mode=0, parts=())",
]


def _tiling(pdf, content: bytes, resources) -> pikepdf.Object:
    tile = pdf.make_stream(content)
    tile.update({"/Type": Name.Pattern, "/PatternType": 1, "/PaintType": 1, "/TilingType": 1,
                 "/BBox": [0, 0, 2, 2], "/XStep": 2, "/YStep": 2, "/Resources": resources})
    return tile


def _every_operator(pdf: pikepdf.Pdf) -> pikepdf.Object:
    form = pdf.make_stream(CONTENT)
    form.Type, form.Subtype, form.BBox = Name.XObject, Name.Form, [0, 0, 10, 10]
    inner = pdf.make_stream(b"1 0 0 rg 0 0 1 1 re f")
    inner.Type, inner.Subtype, inner.BBox = Name.XObject, Name.Form, [0, 0, 1, 1]
    image = pdf.make_stream(b"\xff\x00\x00\x00\x00\xff")
    image.update({"/Type": Name.XObject, "/Subtype": Name.Image, "/Width": 2, "/Height": 1,
                  "/ColorSpace": Name.DeviceRGB, "/BitsPerComponent": 8})
    shading = pdf.make_indirect(Dictionary(ShadingType=2, ColorSpace=Name.DeviceRGB, Coords=[0, 0, 10, 0],
                                           Function=Dictionary(FunctionType=2, Domain=[0, 1], C0=[1, 0, 0],
                                                               C1=[0, 0, 1], N=1), Extend=[True, True]))
    form.Resources = Dictionary(
        ColorSpace=Dictionary(C0=Array([Name.CalRGB, Dictionary(WhitePoint=[0.9505, 1, 1.089])])),
        Pattern=Dictionary(P0=_tiling(pdf, b"0 1 0 rg 0 0 2 2 re f", Dictionary()),
                           P1=_tiling(pdf, b"/A gs 0 0 1 rg 0 0 2 2 re f",   # transparent: drawn as pixels
                                      Dictionary(ExtGState=Dictionary(A=Dictionary(ca=0.5))))),
        ExtGState=Dictionary(G0=pdf.make_indirect(Dictionary(Type=Name.ExtGState, ca=0.5, LW=2)),
                             G1=pdf.make_indirect(Dictionary(Type=Name.ExtGState, CA=0.5))),   # alpha only: dropped
        Shading=Dictionary(Sh0=shading),
        XObject=Dictionary(Im0=image, Fm0=inner),
        Font=Dictionary(F0=pdf.make_indirect(Dictionary(Type=Name.Font, Subtype=Name.Type1,
                                                        BaseFont=Name.Helvetica))),
        Properties=Dictionary(M0=Dictionary(MCID=0), M1=Dictionary(Note="n")))
    return form


def test_the_operators_the_rewrite_handles_are_one_table():
    assert set(OPERATORS) == CLAIMED
    pdf = pikepdf.new()
    used = {INLINE if isinstance(ins, pikepdf.ContentStreamInlineImage) else str(ins.operator)
            for ins in pikepdf.parse_content_stream(_every_operator(pdf))}
    assert CLAIMED <= used   # the stream below uses every one of them
    # the loop dispatches through the table alone: no operator compared by name in it
    stream = ast.parse(textwrap.dedent(inspect.getsource(Recolour.stream)))
    compared = [ast.unparse(n) for n in ast.walk(stream) if isinstance(n, ast.Compare)
                and any(isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value in CLAIMED
                        for c in ast.walk(n))]
    assert not compared, compared
    assert all(inspect.getmodule(handler) is recolour for handler in OPERATORS.values())


def test_a_stream_using_every_operator_is_converted_as_before():
    pdf = pikepdf.new()
    form = _every_operator(pdf)
    Recolour(pdf, Cmyk()).stream(form)
    assert form.read_bytes() == EXPECTED
    assert sorted((k, sorted(str(n) for n in v.keys())) for k, v in form.Resources.items()) == EXPECTED_RESOURCES
    page = pdf.add_blank_page(page_size=(10, 10))
    page.obj.Resources = Dictionary(XObject=Dictionary(Fm=form))
    page.obj.Contents = pdf.make_stream(b"/Fm Do")
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True, compress_streams=False, qdf=True, static_id=True)
    assert hashlib.sha256(out.getvalue()).hexdigest() == EXPECTED_FILE


def test_what_each_operator_paints_is_one_table():
    pdf = pikepdf.new()
    text = _every_operator(pdf)
    text.write(TEXT)
    used = {INLINE if isinstance(ins, pikepdf.ContentStreamInlineImage) else str(ins.operator)
            for form in (_every_operator(pdf), text) for ins in pikepdf.parse_content_stream(form)}
    assert set(paint.OPERATORS) <= used   # the streams use every operator of the table
    follows = {"q", "Q", "cm", "w", "M", "gs", "m", "l", "c", "v", "y", "re", "W", "W*", "f", "F", "f*", "S", "s",
               "B", "B*", "b", "b*", "n", "sh", "Do", INLINE, "cs", "CS", "sc", "SC", "scn", "SCN", "rg", "RG",
               "g", "G", "k", "K", "BT", "ET", "Tf", "Tc", "Tw", "Tz", "TL", "Ts", "Tr", "Td", "TD", "Tm", "T*",
               "Tj", "TJ", "'", '"'}
    assert set(paint.OPERATORS) == follows
    loop = ast.parse(textwrap.dedent(inspect.getsource(paint.Analyser.paints)))
    assert not [n for n in ast.walk(loop) if isinstance(n, ast.Compare) and any(
        isinstance(c, ast.Constant) and c.value in follows for c in ast.walk(n))]


def test_streams_using_every_operator_are_analysed_as_before():
    pdf = pikepdf.new()
    form = _every_operator(pdf)
    found = [repr(p) for p in paint.Analyser().paints(form, tuple(float(v) for v in form.BBox))]
    assert found == PAINTS
    form.write(TEXT)
    found = [repr(p) for p in paint.Analyser().paints(form, tuple(float(v) for v in form.BBox))]
    assert found == TEXT_PAINTS
