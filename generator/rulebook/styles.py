"""The rulebook's look: paragraph and table styles in the shipped fonts.

In: the game's language (BCP 47) and its hyphenation (draw/hyphenate.py). Out: reportlab
paragraph styles. Running text (body, lists, quotes) is broken as whole paragraphs and
hyphenated by the typographer's rules (breaking.py: the style's `whole`); headings, titles,
captions, contents and table cells are shaped by HarfBuzz (reportlab's `shaping`, through
uharfbuzz: kerning; no ligatures, see rlbridge.py). reportlab 5.1 cannot do both to one paragraph (it
garbles a shaped word it hyphenates), so running text is hyphenated and the rest shaped.
Table cells never break inside a word (`splitLongWords` off; book.py gives every column
the room of its longest word)."""
from __future__ import annotations

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase.pdfmetrics import registerFontFamily

from ..draw.hyphenate import Hyphenation, rules_for
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


def styles(lang: str = "en", hyphenation: Hyphenation | None = None) -> dict[str, ParagraphStyle]:
    """The book's styles; running text is broken by breaking.py with `hyphenation` (else the
    language's rules, no words protected)."""
    f = fonts()
    shaped = ParagraphStyle("shaped", fontName=f["normal"], fontSize=9.6, leading=13.4, textColor=INK,
                            shaping=1, hyphenationLang="")
    plain = ParagraphStyle("plain", parent=shaped, shaping=0)
    body = ParagraphStyle("body", parent=plain, spaceAfter=5.5, embeddedHyphenation=1, uriWasteReduce=0.3,
                          whole=hyphenation or Hyphenation(str(lang), rules_for(str(lang))))
    return {
        "body": body,
        "quote": ParagraphStyle("quote", parent=body, leftIndent=14, textColor=ACCENT,
                                fontName=f["italic"]),
        "bullet": ParagraphStyle("bullet", parent=body, spaceAfter=2.5),
        "caption": ParagraphStyle("caption", parent=shaped, fontName=f["italic"], fontSize=8.4, leading=11,
                                  alignment=TA_CENTER, textColor=ACCENT, spaceBefore=3, spaceAfter=9),
        "cell": ParagraphStyle("cell", parent=plain, fontSize=8.8, leading=11.2, spaceAfter=0, splitLongWords=0),
        "cell_head": ParagraphStyle("cell_head", parent=plain, fontName=f["bold"], fontSize=8.8, leading=11.2,
                                    spaceAfter=0, textColor=colors.white, splitLongWords=0),
        "h1": ParagraphStyle("h1", parent=shaped, fontName=f["garamond"], fontSize=21, leading=25,
                             spaceBefore=10, spaceAfter=8),
        "h2": ParagraphStyle("h2", parent=shaped, fontName=f["garamond"], fontSize=15, leading=19,
                             spaceBefore=10, spaceAfter=5),
        "h3": ParagraphStyle("h3", parent=shaped, fontName=f["bold"], fontSize=10.6, leading=14, textColor=ACCENT,
                             spaceBefore=7, spaceAfter=3),
        "title": ParagraphStyle("title", parent=shaped, fontName=f["garamond"], fontSize=46, leading=52,
                                alignment=TA_CENTER),
        "subtitle": ParagraphStyle("subtitle", parent=shaped, fontName=f["garamond_italic"], fontSize=17,
                                   leading=22, alignment=TA_CENTER, textColor=ACCENT, spaceBefore=6),
        "facts": ParagraphStyle("facts", parent=shaped, fontSize=10.5, leading=15, alignment=TA_CENTER,
                                spaceBefore=14),
        "toc_title": ParagraphStyle("toc_title", parent=shaped, fontName=f["garamond"], fontSize=21, leading=25,
                                    spaceAfter=10),
        "toc1": ParagraphStyle("toc1", parent=plain, fontName=f["bold"], fontSize=10.5, leading=15,
                               leftIndent=0, spaceBefore=4),
        "toc2": ParagraphStyle("toc2", parent=plain, fontSize=9.6, leading=13, leftIndent=16),
        "toc3": ParagraphStyle("toc3", parent=plain, fontName=f["italic"], fontSize=9, leading=12,
                               textColor=ACCENT, leftIndent=32),
        "running": ParagraphStyle("running", parent=plain, fontSize=8.2, leading=10, textColor=ACCENT),
    }
