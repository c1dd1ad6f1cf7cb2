"""The printable changelog sheet of `pnp changes`: what changed on each card, its face beside.

In: the title, the two versions' names, a paper and the entries (plain data: name, deck,
short ids, what changed in words, the word-level diff of each text field, and the PNG of
the face to show, or None). Out: the PDF's bytes and its page count. Old words are struck
through (red), new words bold (green); each entry's face (the new version's, the old one's
for a card removed) beside it, at its printed size up to 32 mm wide, framed. reportlab's invariant
canvas: the same entries give the same bytes.
"""
from __future__ import annotations

import io
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import Image, KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from ..units import paper_size
from .pdfpage import register

FACE_W = 32 * mm     # at most: a face is shown at its printed size, or shrunk to this width
INK = colors.HexColor("#223344")
STRUCK, NEW = "#a01010", "#0a6a1a"


def changelog_pdf(title: str, versions: tuple[str, str], entries: list[dict], paper: str) -> tuple[bytes, int]:
    """The changelog of one game on `paper`: (PDF bytes, pages). Each entry: `name`,
    `heading` (what changed, in words), `words` ({field: [(op, text)]}), `face` (PNG bytes
    or None) and `face_mm` ((w, h) of the face as printed)."""
    w, h = paper_size(paper)
    font, bold = register("Lato"), register("Lato", bold=True)
    styles = {"title": ParagraphStyle("title", fontName=bold, fontSize=15, leading=19, textColor=INK),
              "sub": ParagraphStyle("sub", fontName=font, fontSize=9, leading=12, textColor=INK),
              "card": ParagraphStyle("card", fontName=bold, fontSize=11, leading=14, textColor=INK),
              "body": ParagraphStyle("body", fontName=font, fontSize=9, leading=12.5)}
    buf = io.BytesIO()
    doc = SimpleDocTemplate(buf, pagesize=(w * mm, h * mm), leftMargin=12 * mm, rightMargin=12 * mm,
                            topMargin=12 * mm, bottomMargin=12 * mm, title=f"{title}: changes",
                            author="pnp", creator="pnp", invariant=1)
    old, new = versions
    story: list = [Paragraph(escape(f"{title}: changes from {old} to {new}"), styles["title"]),
                   Paragraph(escape(f"{len(entries)} card{'s' if len(entries) != 1 else ''}; ") +
                             f'<strike><font color="{STRUCK}">struck</font></strike> words are gone, '
                             f'<font name="{bold}" color="{NEW}">bold</font> words are new.', styles["sub"]),
                   Spacer(1, 4 * mm)]
    text_w = doc.width - FACE_W - 6 * mm
    for entry in entries:
        lines = [Paragraph(escape(entry["name"]) + f'<font name="{font}" size="9"> {escape(entry["heading"])}</font>',
                           styles["card"])]
        for key, ops in entry["words"].items():
            lines.append(Paragraph(f'<font color="#667788">{escape(key)}:</font> ' + _marked(ops, bold),
                                   styles["body"]))
        row = [_face(entry), lines]
        table = Table([row], colWidths=[FACE_W + 4 * mm, text_w], hAlign="LEFT")
        table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                                   ("LINEBELOW", (0, 0), (-1, -1), 0.4, colors.HexColor("#c8ccd0")),
                                   ("BOTTOMPADDING", (0, 0), (-1, -1), 3 * mm)]))
        story += [KeepTogether(table), Spacer(1, 2 * mm)]
    doc.build(story)
    return buf.getvalue(), doc.page


def _marked(ops, bold: str) -> str:
    """A field's diffed words as reportlab markup: struck, bold or plain."""
    parts = []
    for op, text in ops:
        text = escape(text)
        if op == "-":
            parts.append(f'<strike><font color="{STRUCK}">{text}</font></strike>')
        elif op == "+":
            parts.append(f'<font name="{bold}" color="{NEW}">{text}</font>')
        else:
            parts.append(text)
    return " ".join(parts) or "&nbsp;"


def _face(entry: dict):
    if entry.get("face") is None:
        return ""
    fw, fh = entry["face_mm"]
    scale = min(1.0, FACE_W / (fw * mm))
    return _Framed(io.BytesIO(entry["face"]), width=fw * mm * scale, height=fh * mm * scale)


class _Framed(Image):
    """A face's picture with a thin grey frame (a white face on white paper)."""

    def draw(self):
        super().draw()
        self.canv.setStrokeColor(colors.HexColor("#9aa0a6"))
        self.canv.setLineWidth(0.5)
        self.canv.rect(0, 0, self.drawWidth, self.drawHeight)
