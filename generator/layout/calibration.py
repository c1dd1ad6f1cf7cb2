"""The duplex calibration page: measures how far a printer misplaces the second side.

In: a paper and a `PrintMode` (long- or short-edge duplex, and the back offset in use).
Out: PDF bytes of two pages. The front has thin crosshairs at five points placed
symmetrically about the page's centre (so after either flip each lands on its partner) and
a 100 mm ruler to check the print is at 100 %. The back has, at the same five points, a
horizontal and a vertical scale from -5 to +5 mm (ticks every 0.5 mm), drawn with the back
offset applied, like every back of a build.

Hold the printed sheet against a light, back side towards you: where the front's vertical
line crosses the horizontal scale is X, where its horizontal line crosses the vertical
scale is Y. `back_offset: {x: X, y: Y}` (or `--back-offset X,Y`) moves the backs by what
the printer got wrong; printed again with that offset, both scales read 0.
"""
from __future__ import annotations

import io

from ..units import paper_size, pt
from .modes import PrintMode
from .pdfpage import label_font, new_canvas

ARM = 14.0        # mm: half the length of a crosshair line
SCALE = 5.0       # mm either side of zero on a back scale
INSET = 35.0      # mm from the page edges to the corner points


def points(w: float, h: float) -> list[tuple[float, float]]:
    """The five crosshair points: the centre and four inset corners (symmetric under both flips)."""
    return [(w / 2, h / 2), (INSET, INSET), (w - INSET, INSET), (INSET, h - INSET), (w - INSET, h - INSET)]


def calibration_pdf(paper: str, mode: PrintMode) -> bytes:
    if not mode.duplex:
        raise ValueError(f"the calibration page is for duplex printing; {mode.mode} prints no second side")
    w, h = paper_size(paper)
    buf = io.BytesIO()
    canvas = new_canvas(buf, (pt(w), pt(h)), "pnp duplex calibration")
    flip = "short" if mode.mode == "duplex-short" else "long"
    _front(canvas, w, h, paper, flip)
    canvas.showPage()
    _back(canvas, w, h, mode.back_offset, flip)
    canvas.showPage()
    canvas.save()
    return buf.getvalue()


def _text(canvas, x, y, text, size=8, centred=True):
    canvas.setFont(label_font(), size)
    (canvas.drawCentredString if centred else canvas.drawString)(pt(x), pt(y), text)


def _front(canvas, w, h, paper, flip):
    canvas.setLineWidth(0.25)
    canvas.setStrokeGray(0)
    for x, y in points(w, h):
        canvas.line(pt(x - ARM), pt(y), pt(x + ARM), pt(y))
        canvas.line(pt(x), pt(y - ARM), pt(x), pt(y + ARM))
    # a 100 mm ruler along the bottom: measure it to check the print is at 100 %
    x0, y0 = w / 2 - 50, 14.0
    canvas.line(pt(x0), pt(y0), pt(x0 + 100), pt(y0))
    for mm in range(101):
        tick = 4 if mm % 10 == 0 else (2.5 if mm % 5 == 0 else 1.5)
        canvas.line(pt(x0 + mm), pt(y0), pt(x0 + mm), pt(y0 + tick))
        if mm % 10 == 0:
            _text(canvas, x0 + mm, y0 + 5, str(mm), 6)
    _text(canvas, w / 2, y0 - 5, "this ruler must measure exactly 100 mm: print at 100 % (actual size)", 7)
    lines = [f"pnp duplex calibration · {paper.upper()} · print both sides, flip on the {flip} edge",
             "Hold the sheet against a light, the back towards you. Where each vertical line of this side crosses",
             "the horizontal scale on the back read X; where each horizontal line crosses the vertical scale read Y.",
             "Then build with --back-offset X,Y (or print: back_offset: {x: X, y: Y} in game.yaml)."]
    for i, line in enumerate(lines):
        _text(canvas, w / 2, h - 12 - 4.5 * i, line, 8 if i == 0 else 7)


def _back(canvas, w, h, offset, flip):
    dx, dy = offset
    canvas.saveState()
    canvas.translate(pt(dx), pt(dy))
    canvas.setStrokeGray(0)
    for x, y in points(w, h):
        _scale(canvas, x, y, horizontal=True)
        _scale(canvas, x, y, horizontal=False)
    canvas.restoreState()
    _text(canvas, w / 2, 12, f"back · read X on the horizontal scales, Y on the vertical ones (mm) · flip on the "
                             f"{flip} edge · back offset in use: {dx:g}, {dy:g} mm", 7)


def _scale(canvas, x, y, horizontal: bool):
    """Ticks every 0.5 mm from -5 to +5 mm about (x, y); numbers every mm, + to the right / up."""
    canvas.setLineWidth(0.2)
    gap = 7.0  # mm from the point to each scale: the two scales never cross, the front's lines cross both
    for half in range(-10, 11):
        v = half / 2
        tick = 3.0 if half == 0 else (2.0 if half % 2 == 0 else 1.2)
        if horizontal:
            canvas.line(pt(x + v), pt(y + gap), pt(x + v), pt(y + gap + tick))
        else:
            canvas.line(pt(x + gap), pt(y + v), pt(x + gap + tick), pt(y + v))
        if half % 2 == 0 and half:
            label = f"{v:+g}"
            if horizontal and half % 4 == 0:
                _text(canvas, x + v, y + gap + 3.6, label, 4.5)
            elif not horizontal and half % 4 == 0:
                _text(canvas, x + gap + 3.6, y + v - 0.7, label, 4.5, centred=False)
    if horizontal:
        canvas.line(pt(x - SCALE), pt(y + gap), pt(x + SCALE), pt(y + gap))
        _text(canvas, x - SCALE - 2.5, y + gap + 0.3, "X", 6)
    else:
        canvas.line(pt(x + gap), pt(y - SCALE), pt(x + gap), pt(y + SCALE))
        _text(canvas, x + gap + 0.3, y - SCALE - 3.2, "Y", 6)
