"""Text wrapped and shrunk to its box by Pango, from the real fonts, as `textbox()` asks.

In: a string in pnp's small text markup (markup.py), a box in card units (mm) and a font
request. Out: SVG that draws it: a `<pnp:text>` element carrying every input of its layout
(the size found, the soft hyphens its lines break at), which svgbridge.py hands to the same
Pango engine (pangotext.py) inside the face's drawing, plus the inline icons as plain SVG
placed where the layout put them. Measuring and drawing are one engine: what fits is what
is drawn.

Markup: `**bold**`, `*italic*`, `:icon-name:` for an inline icon sitting on the baseline,
and a newline for a line break (a blank line starts a new paragraph). Text that cannot fit
at `min_size` raises `TextDoesNotFit`; nothing overflows silently. Nor does text shrink
below the legibility floor (game.yaml `print: min_text_pt`, 6 pt): a box whose text would
is a `TextError` naming the size it needed (text a template sets smaller on purpose is
only a warning: render.py finds it in the faces' SVG, `small_text`).
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, fields
from xml.sax.saxutils import escape, quoteattr

from markupsafe import Markup

from .bidi import ordered
from .fonts import GENERIC, FontSet
from .hyphenate import looked_up
from .markup import TextDoesNotFit, TextError, parse
from .pangotext import ALIGN, Spec, engine, parsed

__all__ = ["Icon", "TextDoesNotFit", "TextError", "TextSetter", "TextStyle", "parse", "read_icon"]

NS = "urn:pnp:text"
VALIGN = {"top": 0.0, "middle": 0.5, "bottom": 1.0, "baseline": 0.0}   # baseline: y is the first baseline
_LANG = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*")
STYLES = ("text", "bold", "italic")
PT = 25.4 / 72          # mm per point: card units are mm
MIN_TEXT_PT = 6.0       # print: min_text_pt's default, the legibility floor


@dataclass(frozen=True)
class TextStyle:
    """How a text box sets and paints its text: every keyword of `textbox()` besides the box,
    with its default. The values are the template's as given; they are checked (and made
    numbers) where they are used, so a template's mistake is named as it always was."""

    family: str = "sans-serif"
    size: float = 3.5
    min_size: float | None = None   # None: size (the text never shrinks)
    leading: float = 1.2
    align: str = "left"
    valign: str = "top"
    color: str = "#000"
    bold: bool = False
    max_lines: int | None = None
    lang: str | None = None         # None: the edition's language
    features: str | Mapping = ""    # 'onum, smcp', or a mapping of STYLES to such a string
    letter_spacing: float = 0.0
    hyphenate: bool = True

    @classmethod
    def given(cls, caller: str, style: Mapping, names: frozenset | None = None) -> TextStyle:
        """The style these keywords ask for; a name not among `names` (default: every field) is
        refused as Python refuses an unknown keyword argument of `caller`."""
        for name in style:
            if name not in (FIELDS if names is None else names):
                raise TypeError(f"{caller}() got an unexpected keyword argument {name!r}")
        return cls(**style)

    def smallest(self):
        """The smallest size the text may shrink to (`min_size`, or `size`), checked with `valign`."""
        min_size = self.size if self.min_size is None else self.min_size
        if self.valign not in VALIGN:
            raise TextError(f"valign must be one of {', '.join(VALIGN)} (got {self.valign!r})")
        if min_size > self.size or min_size <= 0:
            raise TextError(f"min_size {min_size:g} must be above 0 and at most size {self.size:g}")
        return min_size

    def setting(self, default_lang: str) -> tuple[str, str, tuple]:
        """The font family asked for (a generic name resolved), the language (`default_lang`
        when none is given) and the OpenType features by style, checked."""
        name = (self.family or "sans-serif").split(",")[0].strip().strip("'\"")
        name = GENERIC.get(name.lower(), name)
        lang = default_lang if self.lang is None else str(self.lang)
        if not _LANG.fullmatch(lang):
            raise TextError(f"lang {lang!r} is not a BCP 47 language tag (en, de, ar, ja, pt-BR...)")
        if self.align not in ALIGN:
            raise TextError(f"align must be one of {', '.join(ALIGN)} (got {self.align!r})")
        features = self.features
        if isinstance(features, str):
            features = {"text": features}
        if not hasattr(features, "items") or any(k not in STYLES for k in features):
            raise TextError(f"features: a string such as 'onum, smcp', or a mapping of {', '.join(STYLES)} to one")
        return name, lang, tuple((k, check_features(str(v))) for k, v in sorted(features.items()) if v)


FIELDS = frozenset(f.name for f in fields(TextStyle))
FITTING = frozenset({"min_size", "valign", "color", "max_lines"})   # how a box is filled: svg() only
SETTING = FIELDS - FITTING   # what spec() takes besides the width


class TextSetter:
    """Lays out card text in the shipped fonts (and a game's own), with a game's icons inline."""

    def __init__(self, fonts: FontSet, icons: dict[str, Icon], lang: str = "en", hyphenation=None, *,
                 min_text_pt: float = 0.0):
        self.fonts = fonts
        self.icons = icons
        self.lang = lang
        self.hyphenation = hyphenation   # the game's (hyphenate.for_game): its rules, the words it protects
        self.floor = float(min_text_pt) * PT   # mm: no text shrinks below it (0: no floor)
        self.engine = engine_for(fonts)
        self.asked: set[str] | None = None   # while `asking`: the words looked up among the protected ones

    def asking(self, render):
        """`render()` and the words its text boxes may look up among those the game's
        hyphenation protects (hyphenate.looked_up: none of them, the protected words cannot
        change what it gives): what a face's memo key takes of them (rendermemo.py)."""
        self.asked = set()
        try:
            return render(), frozenset(self.asked)
        finally:
            self.asked = None

    def protected_among(self, words) -> tuple[str, ...]:
        """Those of `words` the game's hyphenation protects."""
        return self.hyphenation.protected_among(words) if self.hyphenation is not None else ()

    def spec(self, text, *, w, **style) -> Spec:
        """The layout request for `text`, `w` mm wide, in the style of `TextStyle`'s keywords
        (those that set the text: none of `FITTING`), checked."""
        return self.spec_for(text, w, TextStyle.given("TextSetter.spec", style, SETTING))

    def spec_for(self, text, w, style: TextStyle) -> Spec:
        """The layout request for `text` in `style`, checked: its font styles exist, its icons are known."""
        name, lang, features = style.setting(self.lang)
        name = self.fonts.stand_in(name) or name   # Arial: Liberation Sans (draw/fontnotes.py says so)
        bold = style.bold
        styles = {(bool(bold), False)}
        names = []
        for para in parsed(text):
            for word in para:
                for run in word:
                    if run.icon:
                        names.append(run.icon)
                    elif run.text:
                        styles.add((run.bold or bool(bold), run.italic))
        for b, i in sorted(styles):
            try:
                face = self.fonts.face(name, b, i)
            except KeyError as exc:
                raise TextError(str(exc).strip('"')) from None
        unknown = sorted(set(names) - set(self.icons))
        if unknown:
            known = ", ".join(sorted(self.icons)) or "none"
            raise TextError(f"unknown icon ':{unknown[0]}:' (icons: {known})")
        icons = tuple((n, self.icons[n].aspect) for n in dict.fromkeys(names))
        hyphenation = self.hyphenation if self.hyphenation is not None and lang == self.hyphenation.lang else None
        text = ordered(str(text), lang)
        if hyphenation is not None and self.asked is not None:
            self.asked.update(part for para in parsed(text) for word in para
                              for part in looked_up("".join(r.text for r in word if not r.icon)))
        return Spec(text, float(w), float(style.size),
                    face.family if name.lower() == face.family.lower() else name,
                    bool(bold), float(style.leading), style.align, lang, features, float(style.letter_spacing),
                    bool(style.hyphenate), None, icons, hyphenation)

    def svg(self, text, *, x, y, w, h, **style):
        """Fit `text` into the box and return the SVG that draws it: the keywords of
        `textbox()`, whose names and defaults are `TextStyle`'s."""
        return self.fitted_svg(text, (x, y, w, h), TextStyle.given("TextSetter.svg", style))

    def fitted_svg(self, text, box: tuple, style: TextStyle):
        """Fit `text` into `box` (x, y, w, h in mm) in `style` and return the SVG that draws it."""
        x, y, w, h = box
        min_size = style.smallest()
        spec = self.spec_for(text, w, style)
        missing = self.engine.unknown_characters(spec)
        if missing:
            ch = missing[0]
            raise TextError(f"character {ch!r} (U+{ord(ch):04X} {unicodedata.name(ch, '?')}) is in no font "
                            f"pnp ships nor the game's: put a font that has it in {self._where()}")
        # no shrinking below the floor, nor below a size a template sets under it on purpose (a warning: render.py)
        floor = min(self.floor, float(style.size))
        try:
            fitted = self.engine.fit(spec, float(h), max(float(min_size), floor), style.max_lines)
        except TextDoesNotFit as exc:
            if floor > min_size:
                raise TextError(self._below_floor(spec, h, min_size, style.max_lines, text)) from None
            raise TextDoesNotFit(f"{exc}: {_preview(text)!r}") from None
        if style.valign == "baseline":   # text of other fonts and boxes on the line sits on the same baseline
            top = y - self.engine.baseline(fitted.spec)
        else:
            top = y + VALIGN[style.valign] * (h - fitted.height)
        parts = [element(fitted.spec, x, top, style.color)]
        for name, ix, iy, ih in self.engine.icon_boxes(fitted.spec):
            parts.append(self.icons[name].svg(x + ix, top + iy, ih, fill=style.color))
        return Markup("".join(parts))

    def _below_floor(self, spec: Spec, h, min_size, max_lines, text) -> str:
        """Why a box's text is refused: it would shrink below the legibility floor."""
        try:
            size = self.engine.fit(spec, float(h), float(min_size), max_lines).spec.size
            needs = f"it would shrink to {size / PT:.1f} pt"
        except TextDoesNotFit:
            needs = "it does not fit even at its min_size"
        return (f"text under the legibility floor: {needs}, below print: min_text_pt "
                f"{self.floor / PT:g} pt (shorten it, give the box room, or set min_text_pt): {_preview(text)!r}")

    def _where(self) -> str:
        return (self.fonts.game_dir.as_posix() if self.fonts.game_dir else "templates/<game>/fonts") + "/"


def check_features(value: str) -> str:
    """`value` when it reads as CSS font-feature-settings ('onum, smcp', 'liga 0', '"ss01" on')."""
    for part in value.split(","):
        if not re.fullmatch(r"""\s*["']?[a-zA-Z0-9]{4}["']?(\s+(on|off|\d{1,3}))?\s*""", part):
            raise TextError(f"features {value!r}: write OpenType feature tags separated by commas, "
                            "e.g. 'onum, smcp' or 'liga 0'")
    return value


def engine_for(fonts: FontSet):
    """The Pango engine (pangotext.Engine) for a font set: its files, and the game's own
    families first in every fallback chain."""
    own = sorted({f.family for f in fonts.faces if f.path.parent != fonts.dir})
    return engine(tuple(str(f.path) for f in fonts.faces), tuple(own))


def element(spec: Spec, x: float, y: float, color: str) -> str:
    """The `<pnp:text>` element for a fitted spec, its block's top-left corner at (x, y):
    every input of the layout as an attribute (numbers by repr, so the drawing gets the
    very same floats), the pnp markup as its text."""
    attrs = {"x": repr(float(x)), "y": repr(float(y)), "width": repr(spec.width), "size": repr(spec.size),
             "family": spec.family, "bold": "true" if spec.bold else "", "leading": repr(spec.leading),
             "align": spec.align, "lang": spec.lang,
             **{("features" if k == "text" else f"features-{k}"): v for k, v in spec.features},
             "letter-spacing": repr(spec.letter_spacing) if spec.letter_spacing else "",
             "hyphens": " ".join(map(str, spec.hyphens or ())), "breaks": " ".join(map(str, spec.breaks)),
             "icons": " ".join(f"{n}:{a!r}" for n, a in spec.icons), "fill": color}
    body = " ".join(f"{k}={quoteattr(str(v))}" for k, v in attrs.items() if v != "")
    return f'<pnp:text xmlns:pnp="{NS}" {body}>{escape(spec.text)}</pnp:text>'


def spec_of(node, text: str) -> Spec:
    """The spec a `<pnp:text>` element carries (what `element` wrote)."""
    icons = tuple((n, float(a)) for n, a in (i.rsplit(":", 1) for i in node.get("icons", "").split()))
    features = tuple((k, node[a]) for k, a in (("bold", "features-bold"), ("italic", "features-italic"),
                                               ("text", "features")) if node.get(a))
    return Spec(text, float(node["width"]), float(node["size"]), node.get("family", "Lato"),
                node.get("bold") == "true", float(node.get("leading", 1.2)), node.get("align", "left"),
                node.get("lang", "en"), tuple(sorted(features)), float(node.get("letter-spacing", 0)), False,
                tuple(int(v) for v in node.get("hyphens", "").split()), icons,
                breaks=tuple(int(v) for v in node.get("breaks", "").split()))


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


_ROOT_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)mm"[^>]*?\bviewBox="[-\d.]+[ ,]+[-\d.]+[ ,]+([\d.]+)')
_STAMP = re.compile(r'<g data-pnp="stamp">.*?</g>', re.S)
_SIZES = re.compile(r'<pnp:text\b[^>]*?\bsize="([\d.e-]+)"[^>]*>([^<]{0,60})|\bfont-size="([\d.]+)(?:px)?"')


def small_text(svg: str, min_text_pt: float) -> list[str]:
    """Warnings for text a face's SVG sets below `min_text_pt` on purpose (a text box whose
    `size` is below it, a `font-size`; not the version stamp): the sizes are the face's
    units, made mm by its root's width and viewBox."""
    svg = _STAMP.sub("", svg)   # the version stamp (stamp.py) is the designer's mark, small on purpose
    root = _ROOT_SIZE.search(svg)
    scale = float(root.group(1)) / float(root.group(2)) if root and float(root.group(2)) else 1.0
    found = []
    for m in _SIZES.finditer(svg):
        pt = float(m.group(1) or m.group(3)) * scale / PT
        if pt < min_text_pt - 1e-6:
            what = f"text {_preview(m.group(2), 30)!r}" if m.group(1) else "a font-size"
            message = (f"{what} is set at {pt:.2f} pt, below print: min_text_pt {min_text_pt:g} pt "
                       "(players may not read it)")
            if message not in found:
                found.append(message)
    return found


def _preview(text: str, n: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"
