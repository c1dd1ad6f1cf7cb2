"""Text laid out by Pango: one engine measures and draws, so "fits" means fits.

In: a `Spec` (pnp markup, a box width, font, size, leading, alignment, language, OpenType
features, letter-spacing, hyphenation by the typographer's rules: hyphenate.py) and the fonts
a game may use. Out: `Engine.fit`, the largest size at which the text fits a box (shrinking
within its range before hyphenating) and the spec that draws exactly that (a text of three
lines or more broken as a whole: textlines.py); the laid out block's height, its inline
icons' boxes, the characters no font has and the glyph clusters it draws (bundlepdf.py); and
`Engine.draw`, which shows the layout on a cairo context (the face CairoSVG is drawing).

HarfBuzz, through Pango, shapes every run: kerning and standard ligatures on by default,
Arabic joining, Indic conjuncts; FriBidi orders right-to-left runs and `left` means the start
of an Arabic or Hebrew paragraph; lines break by UAX #14 (Japanese punctuation never starts a
line; Thai by dictionary). Each box names a fallback chain (its family, the game's own
families, Lato, the Noto fonts for Arabic, Hebrew, Devanagari, Thai and Japanese, DejaVu
Sans), so a character its font lacks is drawn by the next font that has it.

Every layout is made at font size `NOMINAL` and drawn scaled: with hinting off and glyph
positions not rounded, size s at width w is exactly size NOMINAL at width w * NOMINAL / s,
so fitting re-wraps one layout instead of shaping the text again at every size.
"""
from __future__ import annotations

import string
import weakref
from dataclasses import replace
from functools import lru_cache
from xml.sax.saxutils import escape

from cachetools import LRUCache

from .. import memory
from . import pangobridge as pb
from . import textlines
from .fonts import fontconfig_rules
from .hyphenate import Hyphenation, rules_for
from .markup import Run, TextDoesNotFit, parse
from .textspec import Fitted, Laid, Spec

NOMINAL = 10.0          # the font size every layout is made at
ICON_HEIGHT = 1.0       # em
ICON_DROP = 0.14        # em below the baseline, like a descender
PARAGRAPH_GAP = 0.35    # line heights between paragraphs
OBJECT = "\ufffc"       # stands in the text for an inline icon (a shape attribute gives its room)
SOFT_HYPHEN = "\u00ad"
LINE_SEPARATOR = "\u2028"   # a forced line break inside a paragraph
FALLBACK = ("Lato", "Noto Sans Arabic", "Noto Sans Hebrew", "Noto Sans Devanagari", "Noto Sans Thai",
            "Noto Sans CJK JP", "DejaVu Sans")
PAIRS = tuple(a + b for a in string.ascii_lowercase for b in string.ascii_lowercase)   # where ligatures form
ALIGN = {"left": 0, "center": 1, "right": 2, "justify": 0}   # PangoAlignment
MEMO = 20_000           # fits an engine remembers (a deck repeats many boxes)
LAYOUTS = 1_000         # layouts (and their clusters) it keeps: each holds its glyphs


@lru_cache(maxsize=4096)
def parsed(text: str):
    """`markup.parse`, remembered: a deck repeats its texts."""
    return parse(text)


@lru_cache(maxsize=16)
def language_hyphenation(lang: str) -> Hyphenation:
    """A language's hyphenation with its default rules and no protected words."""
    return Hyphenation(lang, rules_for(lang))


class Engine:
    """Lays out, fits and draws text with the fonts of one game (see the module's docstring)."""

    def __init__(self, files, fallback: tuple[str, ...] = FALLBACK):
        self.fonts = pb.FontMap(files, fontconfig_rules())
        self.fallback = fallback
        self._laid: LRUCache = LRUCache(LAYOUTS)
        self._fits: LRUCache = LRUCache(MEMO)
        self._clusters: LRUCache = LRUCache(LAYOUTS)
        _ENGINES.add(self)

    def forget(self) -> None:
        """Let go of the layouts and fits remembered (the fonts stay loaded)."""
        self._laid.clear()
        self._fits.clear()
        self._clusters.clear()

    @staticmethod
    def _remember(memo: LRUCache, key, value):
        memo[key] = value   # the least recently used dropped past its bound
        return value

    # building a layout ------------------------------------------------------------------
    def laid(self, spec: Spec) -> Laid:
        """The layout of `spec` (remembered), wrapped to the spec's width."""
        key = spec.shaped()
        found = self._laid.get(key) or self._remember(self._laid, key, self._build(spec))
        self._wrap(found, spec)
        return found

    def _build(self, spec: Spec) -> Laid:
        markup, icons, hyphens, paragraphs = self._markup(spec)
        layout = self.fonts.layout()
        pango, ffi = pb.pango, pb.ffi
        desc = pango.pango_font_description_new()
        families = ",".join(dict.fromkeys((spec.family, *self.fallback)))
        pango.pango_font_description_set_family(desc, families.encode())
        pango.pango_font_description_set_absolute_size(desc, NOMINAL * pb.SCALE)
        if spec.bold:
            pango.pango_font_description_set_weight(desc, pango.PANGO_WEIGHT_BOLD)
        pango.pango_layout_set_font_description(layout, desc)
        pango.pango_font_description_free(desc)
        pango.pango_layout_set_markup(layout, markup.encode(), -1)
        pango.pango_layout_set_wrap(layout, pango.PANGO_WRAP_WORD)
        pango.pango_layout_set_alignment(layout, ALIGN[spec.align])
        pango.pango_layout_set_justify(layout, spec.align == "justify")
        pango.pango_layout_set_auto_dir(layout, True)
        attrs = pb.text_attributes(layout, round(spec.leading * NOMINAL * pb.SCALE), spec.lang)
        every = dict(spec.features).get("text")
        if every:
            pango.pango_attr_list_insert_before(attrs, pango.pango_attr_font_features_new(every.encode()))
        if spec.letter_spacing:
            pango.pango_attr_list_insert_before(attrs, pango.pango_attr_letter_spacing_new(
                round(spec.letter_spacing * NOMINAL * pb.SCALE)))
        text = ffi.string(pango.pango_layout_get_text(layout))
        gap = round(PARAGRAPH_GAP * spec.leading * NOMINAL * pb.SCALE)
        i = text.find(b"\n\n")
        while i >= 0:   # the empty line between two paragraphs
            attr = pango.pango_attr_line_height_new_absolute(gap)
            attr.start_index, attr.end_index = i + 1, i + 2
            pango.pango_attr_list_insert(attrs, attr)
            i = text.find(b"\n\n", i + 2)
        aspects, at, placed = dict(spec.icons), -1, []
        for name in icons:
            at = text.index(OBJECT.encode(), at + 1)
            em = NOMINAL * pb.SCALE
            pango.pango_attr_list_insert(attrs, pb.shape(at, at + 3, aspects[name] * ICON_HEIGHT * em,
                                                         (ICON_HEIGHT - ICON_DROP) * em, ICON_DROP * em))
            placed.append((name, at))
        pango.pango_layout_context_changed(layout)
        char_at, n = [], 0   # byte index -> index of the character it belongs to
        for byte in text:
            n += byte & 0xC0 != 0x80
            char_at.append(n - 1)
        char_at.append(n)
        shy = SOFT_HYPHEN.encode()
        hyphen_at: dict[int, int] = {}
        b = text.find(shy)
        while b >= 0:
            hyphen_at[b] = hyphens[len(hyphen_at)]
            b = text.find(shy, b + 1)
        return Laid(layout, text, char_at, placed, hyphen_at, paragraphs)

    def _markup(self, spec: Spec):
        """Pango markup for the spec's text; the icons in order; the offsets of the soft
        hyphens it holds (in the text without them); the number of paragraphs."""
        styled = dict(spec.features)
        wanted, forced = set(spec.hyphens or ()), set(spec.breaks)
        by_dictionary = spec.hyphens is None and spec.hyphenate and not spec.letter_spacing
        rules = spec.hyphenation or language_hyphenation(spec.lang)
        paragraphs = parsed(spec.text)
        out, icons, hyphens, offset = [], [], [], 0
        for p, words in enumerate(paragraphs):
            if p:
                out.append("\n\n")
                offset += 2
            after_break, sentence = True, True
            for n, word in enumerate(words):
                if word[0].text == "\n":
                    out.append(LINE_SEPARATOR)
                    offset += 1
                    after_break = True
                    continue
                if not after_break:
                    out.append(LINE_SEPARATOR if offset in forced else " ")
                    offset += 1
                after_break = False
                joined = "".join(r.text for r in word if not r.icon)
                last = n == len(words) - 1 or words[n + 1][0].text == "\n"   # a paragraph's last word stays whole
                cuts = set(rules.points(joined, sentence)) if by_dictionary and (spec.last_words or not last) else None
                sentence = joined[-1:] in (".", "!", "?", ":")
                at = 0   # offset in `joined`
                for run in word:
                    if run.icon:
                        out.append(OBJECT)
                        icons.append(run.icon)
                        offset += 1
                        continue
                    pieces = []
                    for k, ch in enumerate(run.text):
                        here = offset + k
                        if k + at and ((cuts is not None and (at + k) in cuts) or here in wanted):
                            pieces.append(SOFT_HYPHEN)
                            hyphens.append(here)
                        pieces.append(ch)
                    out.append(self._styled(escape("".join(pieces)), run, styled))
                    offset += len(run.text)
                    at += len(run.text)
        return "".join(out), icons, hyphens, len(paragraphs)

    @staticmethod
    def _styled(text: str, run: Run, features: dict) -> str:
        for style, on in (("italic", run.italic), ("bold", run.bold)):
            if on and features.get(style):
                text = f'<span font_features="{escape(features[style], {chr(34): "&quot;"})}">{text}</span>'
        if run.italic:
            text = f"<i>{text}</i>"
        if run.bold:
            text = f"<b>{text}</b>"
        return text

    def _wrap(self, laid: Laid, spec: Spec) -> None:
        """Wrap to the spec's width. Pango 1.50 justifies a line broken at a soft hyphen as if
        the hyphen took no room, so such a line sticks out by the hyphen: a justified text is
        wrapped that much narrower (part of the layout, so measuring still equals drawing)."""
        width = round(spec.width * NOMINAL / spec.size * pb.SCALE)
        if laid.width == width:
            return
        pb.pango.pango_layout_set_width(laid.layout, width)
        if spec.align == "justify":
            over = max(x + w for _, x, w in pb.lines(laid.layout)) - width
            if over > 0:
                pb.pango.pango_layout_set_width(laid.layout, width - over)
        laid.width = width

    # measuring --------------------------------------------------------------------------
    def _measure(self, laid: Laid, spec: Spec, h: float, max_lines: int | None) -> Fitted | None:
        self._wrap(laid, spec)
        scale = spec.size / NOMINAL
        found = pb.lines(laid.layout)
        lines = len(found) - (laid.paragraphs - 1)   # the empty lines between paragraphs are gaps
        if max_lines is not None and lines > max_lines:
            return None
        height = pb.height(laid.layout) / pb.SCALE * scale
        if height > h + 1e-9:
            return None
        limit = spec.width * NOMINAL / spec.size * pb.SCALE
        if any(w > limit + 1 for _, _, w in found):
            return None
        if len(found) > 1:
            if laid.breaks is None:
                laid.breaks = pb.line_breaks(laid.layout)   # the text's, whatever the width
            breaks = laid.breaks
            if any(not breaks[laid.char_at[start]] for start, _, _ in found[1:]):
                return None   # a word broken where it may not be: Pango's last resort, not a fit
        return Fitted(spec, height, lines)

    def fit(self, spec: Spec, h: float, min_size: float, max_lines: int | None = None) -> Fitted:
        """The largest size, in steps of 1 % of `spec.size` down to `min_size`, at which the
        text fits `spec.width` x `h` (bisected: fitting gets easier as the size goes down).
        Text that fits at some size down to `min_size` with its words whole keeps them whole
        (it shrinks within its range before it hyphenates); otherwise every soft hyphen the
        typographer's rules allow (hyphenate.py, but in a paragraph's last word, unless
        nothing fits without) is available at every size. The spec
        returned keeps only the soft hyphens its lines break at (the text layer carries no
        others), and draws the same lines.

        :raises TextDoesNotFit: when it does not fit even at `min_size`.
        """
        key = (spec, h, min_size, max_lines)
        found = self._fits.get(key)
        if found is not None:
            return found
        if spec.hyphens is None and spec.hyphenate:   # words are hyphenated only when they must be
            whole = replace(spec, hyphenate=False, hyphens=(), hyphenation=None)
            attempts = (whole, spec, replace(spec, last_words=True))
            for n, attempt in enumerate(attempts):
                try:
                    fitted = self._fit(attempt, h, min_size, max_lines)
                    return self._remember(self._fits, key, textlines.even(self, attempt, fitted, h, max_lines))
                except TextDoesNotFit:
                    if n == len(attempts) - 1:
                        raise
        return self._remember(self._fits, key, self._fit(spec, h, min_size, max_lines))

    def _fit(self, spec: Spec, h: float, min_size: float, max_lines: int | None) -> Fitted:
        laid = self.laid(spec)
        step = max(spec.size * 0.01, 0.01)
        n = max(0, int((spec.size - min_size - 1e-9) // step) + 1)

        def at(k):
            return self._measure(laid, replace(spec, size=min_size if k >= n else round(spec.size - k * step, 4)),
                                 h, max_lines)

        best = at(0)
        if best is None:
            lo, hi = 1, n
            while lo <= hi:
                mid = (lo + hi) // 2
                result = at(mid)
                if result is None:
                    lo = mid + 1
                else:
                    best, hi = result, mid - 1
        if best is None:
            raise TextDoesNotFit(f"text does not fit its {spec.width:g} x {h:g} mm box even at the minimum size "
                                 f"{min_size:g}")
        self._wrap(laid, best.spec)
        return self._keep_used_hyphens(laid, best, h, max_lines)

    def _keep_used_hyphens(self, laid: Laid, best: Fitted, h: float, max_lines) -> Fitted:
        """The fitted spec with only the soft hyphens its lines break at, when that gives the
        same lines (Pango breaks greedily, so it does); otherwise with all of them."""
        every = tuple(laid.hyphen_at.values())
        starts = [start for start, _, _ in pb.lines(laid.layout)]
        used = tuple(laid.hyphen_at[s - 2] for s in starts if s - 2 in laid.hyphen_at)
        plain = [self._plain(laid, s) for s in starts]
        lean = replace(best.spec, hyphenate=False, hyphens=used, hyphenation=None, last_words=False)
        again = self.laid(lean)
        if [self._plain(again, s) for s, _, _ in pb.lines(again.layout)] != plain:
            lean = replace(best.spec, hyphenate=False, hyphens=every, hyphenation=None, last_words=False)
            again = self.laid(lean)
        return self._measure(again, lean, float("inf"), None) or best

    @staticmethod
    def _plain(laid: Laid, start: int) -> int:
        """A byte index as an offset in the text without soft hyphens."""
        return laid.char_at[start] - sum(1 for b in laid.hyphen_at if b < start)

    def height(self, spec: Spec) -> float:
        """The height of the laid out block."""
        return pb.height(self.laid(spec).layout) / pb.SCALE * spec.size / NOMINAL

    def baseline(self, spec: Spec) -> float:
        """How far below the block's top its first line's baseline lies."""
        return pb.line_boxes(self.laid(spec).layout)[0][4] / pb.SCALE * spec.size / NOMINAL

    def icon_boxes(self, spec: Spec) -> list[tuple[str, float, float, float]]:
        """(name, x, y, height) of each inline icon, from the block's top-left corner."""
        laid = self.laid(spec)
        scale = spec.size / NOMINAL
        out = []
        for name, index in laid.icons:
            x, baseline = pb.position(laid.layout, index)
            out.append((name, x / pb.SCALE * scale, baseline / pb.SCALE * scale - (ICON_HEIGHT - ICON_DROP) * spec.size,
                        ICON_HEIGHT * spec.size))
        return out

    def unknown_characters(self, spec: Spec) -> list[str]:
        """Characters of the text that none of the fonts has."""
        return sorted(set(pb.unknown_characters(self.laid(spec).layout)))

    def clusters(self, spec: Spec) -> list[tuple[str, bytes, tuple]]:
        """The glyph clusters the spec draws: (font, text, glyphs) (see pangobridge.clusters)."""
        found = self._clusters.get(spec)
        if found is None:
            laid = self.laid(spec)
            found = self._remember(self._clusters, spec, tuple(pb.clusters(laid.layout, laid.text)))
        return found

    def common_clusters(self, font: str) -> tuple:
        """The clusters of printable ASCII and of every pair of lowercase letters (with the f
        ligatures) in one font (a description as `clusters` gives it), leaving out what the
        font lacks: the ligatures a word may bring (EB Garamond Italic joins e+s, i+s, u+s),
        so that a new word seldom changes the primer page, and with it every bundle."""
        key = ("common", font)
        found = self._clusters.get(key)
        if found is None:
            layout = self.fonts.layout()
            desc = pb.pango.pango_font_description_from_string(font.encode())
            pb.pango.pango_layout_set_font_description(layout, desc)
            pb.pango.pango_font_description_free(desc)
            text = " ".join([*(chr(c) for c in range(33, 127)), *PAIRS, "ffi", "ffl"]).encode()
            pb.pango.pango_layout_set_text(layout, text, len(text))
            found = self._remember(self._clusters, key, tuple(
                (cluster, glyphs) for face, cluster, glyphs in pb.clusters(layout, text) if face == font))
        return found

    # drawing ----------------------------------------------------------------------------
    def draw(self, ctx, spec: Spec, x: float, y: float) -> None:
        """Show the text with its block's top-left corner at (x, y) on cairo context `ctx`.
        The layout keeps the engine's own context (never updated from `ctx`): what was
        measured is what is drawn, whatever the transformation."""
        laid = self.laid(spec)
        ctx.save()
        ctx.translate(x, y)
        ctx.scale(spec.size / NOMINAL, spec.size / NOMINAL)
        ctx.move_to(0, 0)
        pb.show_layout(ctx, laid.layout)
        ctx.restore()
        ctx.new_path()


_ENGINES: weakref.WeakSet = weakref.WeakSet()   # every engine of this process


def forget_layouts() -> None:
    """Every engine's layouts and fits, and the texts parsed, let go: by a one-shot build
    between its stages (session.release), once its faces are rendered."""
    for each in list(_ENGINES):
        each.forget()
    parsed.cache_clear()


memory.droppable(forget_layouts)


@lru_cache(maxsize=4)
def engine(files: tuple[str, ...], own: tuple[str, ...] = ()) -> Engine:
    """The engine for these font files (the shipped ones and a game's own, whose families
    `own` come first in every fallback chain): one per process and font set."""
    return Engine(files, tuple(dict.fromkeys((*own, *FALLBACK))))


def warm_up(text: Engine) -> None:
    """Lay out a line in the Latin styles every game uses: Pango loads those fonts now (before
    the drawing workers are forked, which then inherit them). The fonts of other scripts are
    loaded when a text first needs them."""
    text.unknown_characters(Spec("Aa **Aa** *Aa*", 100.0, NOMINAL))
