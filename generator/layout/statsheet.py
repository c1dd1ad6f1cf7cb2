"""The printable stats sheet: a game's deck statistics as vector charts on pages of a paper.

In: the plain statistics of one game (`rules/stats.game_stats`) and a paper name. Out: the
PDF's bytes and its page count. Charts are reportlab's own (`reportlab.graphics.charts`:
bar charts of histograms, tallies and the cost curve), drawn as vectors with the shipped
fonts; a cross-table is a table. The canvas is reportlab's reproducible one (invariant), so
the same statistics give the same bytes.
"""
from __future__ import annotations

import io

from reportlab.graphics.charts.barcharts import VerticalBarChart
from reportlab.graphics.shapes import Drawing, String
from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from ..units import paper_size
from .pdfpage import register

TALLY_MOST = 12             # a chart shows a tally's most frequent values, the rest as "others"
CHART_H = 48 * mm
INK = colors.HexColor("#223344")
BAR = colors.HexColor("#4a7fb0")


def stats_pdf(stats: dict, paper: str) -> tuple[bytes, int]:
    """The stats sheet of one game on `paper`: (PDF bytes, pages)."""
    w, h = paper_size(paper)
    font, bold = register("Lato"), register("Lato", bold=True)
    styles = {"title": ParagraphStyle("title", fontName=bold, fontSize=16, leading=20, textColor=INK),
              "deck": ParagraphStyle("deck", fontName=bold, fontSize=12, leading=15, spaceBefore=8, textColor=INK),
              "body": ParagraphStyle("body", fontName=font, fontSize=8.5, leading=11)}
    buf = io.BytesIO()
    doc = SimpleDocTemplate(buf, pagesize=(w * mm, h * mm), leftMargin=12 * mm, rightMargin=12 * mm,
                            topMargin=12 * mm, bottomMargin=12 * mm, title=f"{stats['title']}: deck statistics",
                            author="pnp", creator="pnp", invariant=1)
    width = doc.width
    story: list = [Paragraph(_esc(f"{stats['title']}: deck statistics"), styles["title"])]
    for deck in stats["decks"]:
        story.append(Paragraph(_esc(f"{deck['name']} ({deck['copies']} cards, {deck['designs']} designs)"),
                               styles["deck"]))
        charts, notes = _deck_charts(deck, width, font)
        for note in notes:
            story.append(Paragraph(_esc(note), styles["body"]))
        for row in range(0, len(charts), 2):
            pair = charts[row:row + 2]
            story.append(KeepTogether(Table([pair], colWidths=[width / 2] * len(pair), hAlign="LEFT")))
        for cross in deck["cross"]:
            story.append(KeepTogether([Spacer(1, 2 * mm), _cross_table(cross, font, bold, width)]))
    doc.build(story)
    return buf.getvalue(), doc.page


def _deck_charts(deck: dict, width: float, font: str) -> tuple[list, list[str]]:
    charts, notes = [], []
    for name, s in deck["fields"].items():
        if s["kind"] == "number":
            charts.append(_bars(f"{name}: n {s['count']}, sum {s['sum']}, mean {s['mean']}, {s['min']}..{s['max']}",
                                s["histogram"], width / 2 - 4 * mm, font))
        elif s["kind"] == "category" and s["distinct"] == s["count"] > 3:   # a name: one value a card
            notes.append(f"{name}: a different value on each of the {s['count']} cards")
        elif s["kind"] in ("category", "list"):
            charts.append(_bars(f"{name}" + (" (items)" if s["kind"] == "list" else ""), _top(s["tally"]),
                                width / 2 - 4 * mm, font))
        else:
            notes.append(f"{name}: text on {s['count']} cards, {s['distinct']} different, "
                         f"{s['mean_length']} characters on average")
    if deck["icons"]:
        charts.append(_bars("icons in text", _top(deck["icons"]), width / 2 - 4 * mm, font))
    if deck["curve"] and deck["curve"]["histogram"]:
        charts.append(_bars(f"curve of {deck['curve']['field']}", deck["curve"]["histogram"], width / 2 - 4 * mm,
                            font, colour=colors.HexColor("#b0642a")))
    return charts, notes


def _top(tally: dict) -> dict:
    items = list(tally.items())
    if len(items) <= TALLY_MOST:
        return tally
    shown = dict(items[:TALLY_MOST - 1])
    shown["others"] = sum(n for _, n in items[TALLY_MOST - 1:])
    return shown


def _bars(title: str, counts: dict, width: float, font: str, colour=BAR) -> Drawing:
    """A vertical bar chart of {label: copies}, its title above it and each bar's count on it."""
    drawing = Drawing(width, CHART_H)
    drawing.add(String(0, CHART_H - 9, _cut(title, 70), fontName=font, fontSize=8, fillColor=INK))
    chart = VerticalBarChart()
    chart.x, chart.y = 22, 22
    chart.width, chart.height = width - 30, CHART_H - 40
    chart.data = [list(counts.values()) or [0]]
    chart.categoryAxis.categoryNames = [_cut(str(k), 10) for k in counts] or [""]
    chart.categoryAxis.labels.fontName = font
    chart.categoryAxis.labels.fontSize = 6
    chart.categoryAxis.labels.angle = 30 if len(counts) > 6 else 0
    chart.categoryAxis.labels.boxAnchor = "ne" if len(counts) > 6 else "n"
    chart.valueAxis.labels.fontName = font
    chart.valueAxis.labels.fontSize = 6
    chart.valueAxis.valueMin = 0
    top = max(counts.values(), default=0)
    chart.valueAxis.valueMax = max(1, top) * 1.15
    chart.valueAxis.valueStep = _step(top)
    chart.bars[0].fillColor = colour
    chart.bars[0].strokeColor = None
    chart.barLabelFormat = "%d"
    chart.barLabels.fontName = font
    chart.barLabels.fontSize = 6
    chart.barLabels.nudge = 5
    drawing.add(chart)
    return drawing


def _step(top: int) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000):
        if top / step <= 6:
            return step
    return max(1, top // 5)


def _cross_table(cross: dict, font: str, bold: str, width: float) -> Table:
    head = [f"{cross['a']} \\ {cross['b']}", *(_cut(c, 14) for c in cross["columns"]), "all"]
    rows = [[_cut(r, 18), *row, sum(row)] for r, row in zip(cross["rows"], cross["counts"])]
    totals = ["all", *(sum(col) for col in zip(*cross["counts"])), sum(map(sum, cross["counts"]))]
    table = Table([head, *rows, totals], hAlign="LEFT", repeatRows=1)
    table.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), font, 7.5), ("FONT", (0, 0), (-1, 0), bold, 7.5),
        ("FONT", (0, 0), (0, -1), bold, 7.5), ("ALIGN", (1, 0), (-1, -1), "RIGHT"),
        ("GRID", (0, 0), (-1, -1), 0.3, colors.HexColor("#99a3ad")),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e4e9ee")),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5)]))
    return table


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
