"""What the colour check reads off a face's SVG: where its text is, and what tells it apart
besides colour.

In: a face's SVG text (what its template made). Out: `Facts`: every text box (`TextBox`:
the box on the face in mm, the text's colour, size and weight, its text) and the face's
non-colour cues (`cues`: each icon's shape, whatever its colour, and each word printed),
which the colour check (colourcheck.py) compares between the cards a game says must be
told apart. A `<pnp:text>` box is as wide as its template made it and one line high (the
first line's band); an SVG `<text>` is measured from its anchor, at about 0.55 em a
character.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache

from lxml import etree

from . import svgtree
from .svgtree import IDENTITY, Matrix, local, multiply, number, rgb

_NOT_DRAWN = frozenset({"defs", "clipPath", "mask", "pattern", "linearGradient", "radialGradient", "marker",
                        "filter", "style", "title", "desc", "metadata", "symbol"})
_WORD = re.compile(r"\w+")
_PAINTS = ("fill", "stroke", "style", "color", "opacity", "fill-opacity", "stroke-opacity", "stop-color")


@dataclass(frozen=True)
class TextBox:
    box: tuple[float, float, float, float]   # x0, y0, x1, y1 on the face, mm
    colour: tuple[float, float, float] | None   # sRGB, 0 to 1; None: a gradient, a pattern, or faint (a shadow)
    size: float                              # mm
    bold: bool
    text: str


@dataclass(frozen=True)
class Facts:
    texts: tuple[TextBox, ...]
    cues: frozenset[str]


def face_facts(svg: str) -> Facts:
    """The text boxes and non-colour cues of a face."""
    root = svgtree.parse(svg)
    texts: list[TextBox] = []
    cues: set[str] = set()
    stack = [(child, IDENTITY, {"fill": "#000", "font-size": "4", "font-weight": "normal", "text-anchor": "start",
                                "opacity": "1", "fill-opacity": "1"}) for child in reversed(root)]
    while stack:
        el, outer, inherited = stack.pop()
        name = local(el)
        if not name or name in _NOT_DRAWN:
            continue
        m = multiply(outer, svgtree.transform(el.get("transform")))
        here = dict(inherited)
        own = svgtree.style(el)   # its style read once: `paint` of each property
        for prop in here:
            value = own.get(prop, el.get(prop))
            if value is not None and value != "inherit":
                here[prop] = value
        here["opacity"] = f"{number(own.get('opacity', el.get('opacity')), 1.0) * number(inherited['opacity'], 1.0):g}"
        if name == "svg":
            cues.add("icon:" + _shape_of(el))
            m = multiply(m, svgtree.viewport(el))
        if name == "text" and el.tag == f"{{{_pnp()}}}text":
            texts.append(_pnp_box(el, m, here))
            cues.update(f"icon:{icon.rsplit(':', 1)[0]}" for icon in (el.get("icons") or "").split())
            cues.update(f"word:{w.lower()}" for w in _WORD.findall(el.text or ""))
            continue
        if name == "text":
            words = "".join(el.itertext())
            box = _svg_text_box(el, m, here, words)
            if box is not None:
                texts.append(box)
            cues.update(f"word:{w.lower()}" for w in _WORD.findall(words))
            continue
        stack.extend((child, m, here) for child in reversed(el))
    return Facts(tuple(texts), frozenset(cues))


def _pnp() -> str:
    from .textfit import NS

    return NS


def _shape_of(icon) -> str:
    """An icon's drawing without its colours: the same shape in another colour is the same cue."""
    return _shape_of_text(etree.tostring(icon))


@lru_cache(maxsize=1024)
def _shape_of_text(text: bytes) -> str:
    """`_shape_of` an icon written as `text` (the same icon on many faces: once)."""
    copy = etree.fromstring(text)
    for el in copy.iter():
        if isinstance(el.tag, str):
            for attr in ("x", "y", "width", "height", *_PAINTS):
                if el is copy or attr in _PAINTS:
                    el.attrib.pop(attr, None)
    return hashlib.sha256(etree.tostring(copy, method="c14n")).hexdigest()[:16]


def _colour(here: dict, own: str | None = None) -> tuple[float, float, float] | None:
    """The text's colour; None for a paint server, or text under half opacity (a shadow, a
    watermark: not read), whether the opacity is the element's or its fill's."""
    if number(here["opacity"], 1.0) * number(here["fill-opacity"], 1.0) < 0.5:
        return None
    return rgb(own or here["fill"])


def _placed(m: Matrix, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
    corners = [svgtree.apply(m, x, y) for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _pnp_box(el, m: Matrix, here: dict) -> TextBox:
    x, y, width, size = (number(el.get(a)) for a in ("x", "y", "width", "size"))
    height = size * number(el.get("leading"), 1.2)
    colour = _colour(here, el.get("fill"))
    return TextBox(_placed(m, x, y, x + width, y + height), colour, size * svgtree.scale_of(m),
                   el.get("bold") == "true", el.text or "")


def _svg_text_box(el, m: Matrix, here: dict, words: str) -> TextBox | None:
    if not words.strip():
        return None
    size = number(here["font-size"], 4.0)
    width = 0.55 * size * len(words.strip())
    x, y = number(el.get("x")), number(el.get("y"))
    x0 = x - width * {"middle": 0.5, "end": 1.0}.get(here["text-anchor"], 0.0)
    weight = here["font-weight"]
    bold = weight == "bold" or (weight.isdigit() and int(weight) >= 600)
    return TextBox(_placed(m, x0, y - 0.8 * size, x0 + width, y + 0.2 * size), _colour(here),
                   size * svgtree.scale_of(m), bold, words.strip())
