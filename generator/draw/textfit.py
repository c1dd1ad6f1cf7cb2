"""Text wrapped and shrunk to its box from the real metrics of the shipped fonts.

In: a string in pnp's small text markup, a box in card units (mm) and a font request.
Out: SVG markup that draws it, one `<text>` per run at an explicit position, so what
CairoSVG draws is exactly what was measured (no kerning, plain advance sums).

Markup: `**bold**`, `*italic*`, `:icon-name:` for an inline icon sitting on the
baseline, and a newline for a line break (a blank line starts a new paragraph).
Text that cannot fit at `min_size` raises `TextDoesNotFit`; nothing overflows silently.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from markupsafe import Markup

from .fonts import Face, FontSet

_TOKEN = re.compile(r"(\\[*:\\]|\*\*|\*|:[a-z][a-z0-9_-]*:|\s+)")
ICON_HEIGHT = 1.0     # em
ICON_DROP = 0.14      # em below the baseline, like a descender
PARAGRAPH_GAP = 0.35  # extra line heights between paragraphs
ALIGN = {"left": 0.0, "center": 0.5, "right": 1.0}
VALIGN = {"top": 0.0, "middle": 0.5, "bottom": 1.0}


class TextError(Exception):
    """Card text that cannot be set: bad markup, an unknown icon, or no room."""


class TextDoesNotFit(TextError):
    """The text needs more room than its box gives, even at the smallest allowed size."""


@dataclass(frozen=True)
class Run:
    text: str          # a word fragment, or "" for an icon
    bold: bool
    italic: bool
    icon: str | None = None


def parse(text: str) -> list[list[list[Run]]]:
    """Paragraphs -> words; each word a list of runs (styled pieces or icons).

    `*` and `**` open when followed by a non-space and close when preceded by one, like
    Markdown; any other `*` is printed as it is. `\\*` and `\\:` print `*` and `:`.
    Styles end with their paragraph: one left open is an error, not a restyled card.
    """
    paragraphs: list[list[list[Run]]] = []
    for para in re.split(r"\n\s*\n", str(text).strip()):
        bold = italic = False
        words: list[list[Run]] = []
        current: list[Run] = []
        parts = _TOKEN.split(para)
        for n, part in enumerate(parts):
            if not part:
                continue
            before = parts[n - 1][-1:] if n else ""
            after = parts[n + 1][:1] if n + 1 < len(parts) else ""
            if part in ("**", "*"):
                on = bold if part == "**" else italic
                if on and before and not before.isspace():
                    on = False
                elif not on and after and not after.isspace():
                    on = True
                else:
                    current.append(Run(part, bold, italic))
                    continue
                if part == "**":
                    bold = on
                else:
                    italic = on
            elif part.startswith("\\"):
                current.append(Run(part[1], bold, italic))
            elif part.isspace():
                if current:
                    words.append(current)
                    current = []
                if "\n" in part:
                    words.append([Run("\n", bold, italic)])  # forced line break
            elif part.startswith(":") and part.endswith(":") and len(part) > 2:
                current.append(Run("", bold, italic, icon=part[1:-1]))
            else:
                current.append(Run(part, bold, italic))
        if current:
            words.append(current)
        if bold or italic:
            raise TextError(f"unclosed {'**' if bold else '*'} in {_preview(para)!r} "
                            "(write \\* for a literal asterisk)")
        paragraphs.append(words)
    return paragraphs


class TextSetter:
    """Lays out card text in the shipped fonts, with a game's icons inline."""

    def __init__(self, fonts: FontSet, icons: dict[str, Icon]):
        self.fonts = fonts
        self.icons = icons

    def _face(self, family: str, run: Run, base_bold: bool) -> Face:
        return self.fonts.face(family, bold=run.bold or base_bold, italic=run.italic)

    def _run_width(self, family, run, size, base_bold) -> float:
        if run.icon:
            icon = self.icons.get(run.icon)
            if icon is None:
                known = ", ".join(sorted(self.icons)) or "none"
                raise TextError(f"unknown icon ':{run.icon}:' (icons: {known})")
            return icon.aspect * size * ICON_HEIGHT
        return self._face(family, run, base_bold).width(run.text, size)

    def _wrap(self, paragraphs, family, size, width, base_bold):
        """Greedy wrap; returns paragraphs of lines, each line a list of (word, width)."""
        space = self.fonts.face(family, base_bold, False).width(" ", size)
        out = []
        for words in paragraphs:
            lines, line, used = [], [], 0.0
            for word in words:
                if word[0].text == "\n":
                    lines.append(line)
                    line, used = [], 0.0
                    continue
                w = sum(self._run_width(family, r, size, base_bold) for r in word)
                extra = w + (space if line else 0.0)
                if line and used + extra > width:
                    lines.append(line)
                    line, used, extra = [], 0.0, w
                line.append((word, w))
                used += extra
            lines.append(line)
            out.append(lines)
        return out, space

    def fit(self, text, *, w, h, family, size, min_size, leading, bold, max_lines=None):
        """Largest size (in steps of 1 % of `size`) at which the text fits; raises if none.

        Fitting gets easier as the size goes down, so the sizes are bisected.
        """
        paragraphs = parse(text)
        step = max(size * 0.01, 0.01)
        sizes = []
        s = size
        while s > min_size + 1e-9:
            sizes.append(s)
            s = round(s - step, 4)
        sizes.append(min_size)

        def attempt(s):
            laid, space = self._wrap(paragraphs, family, s, w, bold)
            return (laid, space) if self._fits(laid, s, w, h, leading, family, bold, max_lines) else None

        if sizes:
            best = attempt(sizes[0])
            if best is not None:
                return sizes[0], *best
            lo, hi, found = 1, len(sizes) - 1, None  # sizes[lo-1] fails; find the first that fits
            while lo <= hi:
                mid = (lo + hi) // 2
                result = attempt(sizes[mid])
                if result is None:
                    lo = mid + 1
                else:
                    found, hi = (sizes[mid], *result), mid - 1
            if found is not None:
                return found
        raise TextDoesNotFit(
            f"text does not fit its {w:g} x {h:g} mm box even at the minimum size {min_size:g}: "
            f"{_preview(text)!r}")

    def _fits(self, laid, size, w, h, leading, family, bold, max_lines):
        face = self.fonts.face(family, bold, False)
        n = sum(len(p) for p in laid)
        if max_lines is not None and n > max_lines:
            return False
        height = self._block_height(laid, size, leading, face)
        if height > h + 1e-9:
            return False
        return all(self._line_width(line, size, family, bold) <= w + 1e-9
                   for p in laid for line in p)

    def _line_width(self, line, size, family, bold):
        return self._segments(line, 0.0, size, family, bold)[1]

    def _segments(self, line, x, size, family, bold):
        """Place a line's runs from `x`: text pieces of one style (spaces inside them) and icons.

        Both measuring and drawing use this, so the fitted width is the drawn width.
        """
        items, cursor = [], x
        text, text_x, text_style = "", x, None
        for k, (word, _) in enumerate(line):
            for j, run in enumerate(word):
                style = (run.bold or bold, run.italic)
                gap = k > 0 and j == 0
                if run.icon or (text and style != text_style):
                    if text:
                        items.append(("text", text_x, text_style, text))
                        text = ""
                if gap:
                    cursor += self.fonts.face(family, *(text_style if text else (bold, False))).width(" ", size)
                    if text:
                        text += " "
                if run.icon:
                    icon = self.icons[run.icon]
                    items.append(("icon", cursor, run.icon, None))
                    cursor += icon.aspect * size * ICON_HEIGHT
                    continue
                if not text:
                    text_x, text_style = cursor, style
                text += run.text
                cursor += self.fonts.face(family, *style).width(run.text, size)
        if text:
            items.append(("text", text_x, text_style, text))
        return items, cursor - x

    @staticmethod
    def _block_height(laid, size, leading, face):
        n = sum(len(p) for p in laid)
        gaps = (len(laid) - 1) * PARAGRAPH_GAP * leading * size
        return face.ascent * size + (n - 1) * leading * size + face.descent * size + gaps

    def svg(self, text, *, x, y, w, h, family="sans-serif", size=3.5, min_size=None,
            leading=1.2, align="left", valign="top", color="#000", bold=False,
            max_lines=None):
        """Fit `text` into the box and return the SVG that draws it."""
        min_size = size if min_size is None else min_size
        if align not in ALIGN or valign not in VALIGN:
            raise TextError(f"align must be one of {', '.join(ALIGN)} and valign one of {', '.join(VALIGN)} "
                            f"(got align={align!r}, valign={valign!r})")
        if min_size > size or min_size <= 0:
            raise TextError(f"min_size {min_size:g} must be above 0 and at most size {size:g}")
        size, laid, space = self.fit(text, w=w, h=h, family=family, size=size,
                                     min_size=min_size, leading=leading, bold=bold,
                                     max_lines=max_lines)
        face = self.fonts.face(family, bold, False)
        block = self._block_height(laid, size, leading, face)
        top = y + VALIGN[valign] * (h - block)
        baseline = top + face.ascent * size
        parts = []
        for p_index, para in enumerate(laid):
            if p_index:
                baseline += PARAGRAPH_GAP * leading * size
            for line in para:
                lw = self._line_width(line, size, family, bold)
                cx = x + ALIGN[align] * (w - lw)
                parts.extend(self._draw_line(line, cx, baseline, size, family, bold, color))
                baseline += leading * size
        return Markup("".join(parts))

    def _draw_line(self, line, x, baseline, size, family, bold, color):
        """One <text> per run of equal style, icons as nested SVG, at measured positions."""
        out = []
        for kind, ix, style, text in self._segments(line, x, size, family, bold)[0]:
            if kind == "icon":
                ih = size * ICON_HEIGHT
                out.append(self.icons[style].svg(ix, baseline + ICON_DROP * size - ih, ih, fill=color))
                continue
            b, i = style
            weight = ' font-weight="bold"' if b else ""
            slant = ' font-style="italic"' if i else ""
            out.append(
                f'<text x="{ix:.3f}" y="{baseline:.3f}" font-family={quoteattr(family)} '
                f'text-rendering="geometricPrecision" '
                f'font-size="{size:.3f}"{weight}{slant} fill={quoteattr(color)}>'
                f"{escape(text)}</text>")
        return out


@dataclass(frozen=True)
class Icon:
    """A small SVG drawing that can sit in a line of text or anywhere on a card."""

    name: str
    view_box: tuple[float, float, float, float]
    body: str

    @property
    def aspect(self) -> float:
        return self.view_box[2] / self.view_box[3]

    def svg(self, x: float, y: float, height: float, width: float | None = None, fill: str | None = None) -> str:
        """The icon in a box; shapes without their own colour take `fill` (or the parent's)."""
        width = self.aspect * height if width is None else width
        vb = " ".join(f"{v:g}" for v in self.view_box)
        colour = f" fill={quoteattr(fill)}" if fill else ""
        return (f'<svg x="{x:.3f}" y="{y:.3f}" width="{width:.3f}" height="{height:.3f}" '
                f'viewBox="{vb}" overflow="visible"{colour}>{self.body}</svg>')


_VIEWBOX = re.compile(r'viewBox\s*=\s*"([^"]+)"')
_ROOT = re.compile(r"<svg\b[^>]*>(.*)</svg>\s*$", re.S)


def read_icon(name: str, source: str) -> Icon:
    """Parse an icon file: an `<svg>` with a viewBox whose children are the drawing."""
    vb = _VIEWBOX.search(source)
    body = _ROOT.search(source)
    if not vb or not body:
        raise ValueError("an icon must be an <svg> element with a viewBox")
    numbers = tuple(float(v) for v in vb.group(1).replace(",", " ").split())
    if len(numbers) != 4 or numbers[2] <= 0 or numbers[3] <= 0:
        raise ValueError(f"bad viewBox {vb.group(1)!r}")
    return Icon(name, numbers, body.group(1).strip())


def _preview(text: str, n: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"
