"""The rulebook's look: paragraph and table styles in the shipped fonts."""
from __future__ import annotations

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase.pdfmetrics import registerFontFamily

from ..layout.pdfpage import register

INK = colors.HexColor("#2b2233")
ACCENT = colors.HexColor("#6b4a12")
RULE = colors.HexColor("#c9a23f")
STRIPE = colors.HexColor("#f6efdc")
HEAD_BG = colors.HexColor("#3a2b4f")


def fonts() -> dict:
    """Register the shipped faces with reportlab; Lato for text, EB Garamond for headings."""
    lato = {k: register("Lato", b, i) for k, b, i in
            (("normal", 0, 0), ("bold", 1, 0), ("italic", 0, 1), ("boldItalic", 1, 1))}
    registerFontFamily("Lato", **lato)
    garamond = register("EB Garamond")
    garamond_italic = register("EB Garamond", False, True)
    # EB Garamond ships no bold: bold inside a heading stays regular rather than faked
    registerFontFamily("EB Garamond", normal=garamond, bold=garamond, italic=garamond_italic,
                       boldItalic=garamond_italic)
    register("DejaVu Sans")
    return {"text": "Lato", "head": "EB Garamond", **lato, "garamond": garamond, "garamond_italic": garamond_italic}


def styles() -> dict[str, ParagraphStyle]:
    f = fonts()
    body = ParagraphStyle("body", fontName=f["normal"], fontSize=9.6, leading=13.4, textColor=INK,
                          spaceAfter=5.5)
    return {
        "body": body,
        "quote": ParagraphStyle("quote", parent=body, leftIndent=14, textColor=ACCENT,
                                fontName=f["italic"]),
        "bullet": ParagraphStyle("bullet", parent=body, spaceAfter=2.5),
        "caption": ParagraphStyle("caption", parent=body, fontName=f["italic"], fontSize=8.4, leading=11,
                                  alignment=TA_CENTER, textColor=ACCENT, spaceBefore=3, spaceAfter=9),
        "cell": ParagraphStyle("cell", parent=body, fontSize=8.8, leading=11.2, spaceAfter=0),
        "cell_head": ParagraphStyle("cell_head", parent=body, fontName=f["bold"], fontSize=8.8, leading=11.2,
                                    spaceAfter=0, textColor=colors.white),
        "h1": ParagraphStyle("h1", fontName=f["garamond"], fontSize=21, leading=25, textColor=INK,
                             spaceBefore=10, spaceAfter=8),
        "h2": ParagraphStyle("h2", fontName=f["garamond"], fontSize=15, leading=19, textColor=INK,
                             spaceBefore=10, spaceAfter=5),
        "h3": ParagraphStyle("h3", fontName=f["bold"], fontSize=10.6, leading=14, textColor=ACCENT,
                             spaceBefore=7, spaceAfter=3),
        "title": ParagraphStyle("title", fontName=f["garamond"], fontSize=46, leading=52, alignment=TA_CENTER,
                                textColor=INK),
        "subtitle": ParagraphStyle("subtitle", fontName=f["garamond_italic"], fontSize=17, leading=22,
                                   alignment=TA_CENTER, textColor=ACCENT, spaceBefore=6),
        "facts": ParagraphStyle("facts", fontName=f["normal"], fontSize=10.5, leading=15, alignment=TA_CENTER,
                                textColor=INK, spaceBefore=14),
        "toc_title": ParagraphStyle("toc_title", fontName=f["garamond"], fontSize=21, leading=25, textColor=INK,
                                    spaceAfter=10),
        "toc1": ParagraphStyle("toc1", fontName=f["bold"], fontSize=10.5, leading=15, textColor=INK,
                               leftIndent=0, spaceBefore=4),
        "toc2": ParagraphStyle("toc2", fontName=f["normal"], fontSize=9.6, leading=13, textColor=INK,
                               leftIndent=16),
        "toc3": ParagraphStyle("toc3", fontName=f["italic"], fontSize=9, leading=12, textColor=ACCENT,
                               leftIndent=32),
    }
