"""A rendered face's SVG as a tree: read safely, walked with each element's place on the face.

In: a face's SVG text (what a template made: untrusted markup). Out: an lxml tree (no
entities expanded, no network, no DTD loaded: `parse`), its text again (`text`), every
element with the matrix from its own units to the face's millimetres (`walk`: `transform`
attributes and nested `<svg>` viewports, as CairoSVG places them), its paint (`paint`,
`set_paint`: the presentation attribute or the `style` property, which wins) and colours
as numbers (`rgb`, through CairoSVG's own reading of a colour). The proof profile
(proof.py) and the colour check (colourfacts.py) read faces through it.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterator

from lxml import etree

from .svgbridge import colour

SVG = "http://www.w3.org/2000/svg"
SHAPES = frozenset({"rect", "circle", "ellipse", "line", "polyline", "polygon", "path"})
TEXTS = frozenset({"text", "tspan", "textPath"})
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                          remove_comments=True, remove_pis=True)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_STEP = re.compile(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)")

Matrix = tuple[float, float, float, float, float, float]   # a b c d e f, as SVG's matrix()
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def parse(svg: str):
    """The root element of a face's SVG text."""
    return etree.fromstring(svg.encode(), _PARSER)


def text(root) -> str:
    """The tree as SVG text again."""
    return etree.tostring(root, encoding="unicode")


def local(element) -> str:
    """An element's tag without its namespace ('' for a comment or other non-element)."""
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def number(value, default: float = 0.0) -> float:
    """The leading number of an attribute's value ('2.5', '2.5mm', '40%' read as 2.5, 2.5, 40)."""
    found = _NUMBER.match(str(value).strip()) if value is not None else None
    return float(found.group()) if found else default


def multiply(m: Matrix, n: Matrix) -> Matrix:
    """m then n applied inside it (m · n)."""
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2, a * e2 + c * f2 + e,
            b * e2 + d * f2 + f)


def apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def scale_of(m: Matrix) -> float:
    """How much the matrix scales lengths (the square root of its area factor)."""
    return math.sqrt(abs(m[0] * m[3] - m[1] * m[2])) or 1.0


def transform(value: str | None) -> Matrix:
    """The matrix of a `transform` attribute (a step it does not know is left out)."""
    return _transform(value, strict=False) or IDENTITY


def exact_transform(value: str | None) -> Matrix | None:
    """The matrix of a `transform` attribute, or None where a step cannot be told."""
    return _transform(value, strict=True)


def _transform(value: str | None, strict: bool) -> Matrix | None:
    m = IDENTITY
    for name, args in _STEP.findall(value or ""):
        v = [float(x) for x in _NUMBER.findall(args)]
        step = IDENTITY
        if name == "matrix" and len(v) == 6:
            step = (v[0], v[1], v[2], v[3], v[4], v[5])
        elif name == "translate" and v:
            step = (1, 0, 0, 1, v[0], v[1] if len(v) > 1 else 0.0)
        elif name == "scale" and v:
            step = (v[0], 0, 0, v[1] if len(v) > 1 else v[0], 0, 0)
        elif name == "rotate" and v:
            r = math.radians(v[0])
            cx, cy = (v[1], v[2]) if len(v) == 3 else (0.0, 0.0)
            step = multiply(multiply((1, 0, 0, 1, cx, cy), (math.cos(r), math.sin(r), -math.sin(r), math.cos(r), 0, 0)),
                            (1, 0, 0, 1, -cx, -cy))
        elif name in ("skewX", "skewY") and v:
            t = math.tan(math.radians(v[0]))
            step = (1, 0, t, 1, 0, 0) if name == "skewX" else (1, t, 0, 1, 0, 0)
        elif strict:
            return None
        m = multiply(m, step)
    return m


def viewport(element) -> Matrix:
    """The matrix of an `<svg>` element's viewport: its x, y and its viewBox fitted into its
    width and height as `preserveAspectRatio` asks (xMidYMid meet unless it says none)."""
    x, y = number(element.get("x")), number(element.get("y"))
    box = [float(v) for v in _NUMBER.findall(element.get("viewBox") or "")]
    if len(box) != 4 or box[2] <= 0 or box[3] <= 0:
        return (1, 0, 0, 1, x, y)
    width, height = number(element.get("width"), box[2]), number(element.get("height"), box[3])
    sx, sy = width / box[2], height / box[3]
    if (element.get("preserveAspectRatio") or "").strip().startswith("none"):
        return (sx, 0, 0, sy, x - box[0] * sx, y - box[1] * sy)
    s = min(sx, sy)
    return (s, 0, 0, s, x + (width - box[2] * s) / 2 - box[0] * s, y + (height - box[3] * s) / 2 - box[1] * s)


def walk(root) -> Iterator[tuple[object, Matrix, int]]:
    """Every element under the root (the root's own viewBox is the face's mm, so it is not
    applied) with the matrix from its units to the face's, and how many `<svg>` elements
    hold it (0: the face's own drawing; 1 or more: inside an icon)."""
    stack = [(child, IDENTITY, 0) for child in reversed(root)]
    while stack:
        element, outer, depth = stack.pop()
        if not isinstance(element.tag, str):
            continue
        m = multiply(outer, transform(element.get("transform")))
        if local(element) == "svg":
            m = multiply(m, viewport(element))
            depth += 1
        yield element, m, depth
        stack.extend((child, m, depth) for child in reversed(element))


def style(element) -> dict[str, str]:
    """An element's `style` attribute as properties."""
    found = {}
    for part in (element.get("style") or "").split(";"):
        name, _, value = part.partition(":")
        if name.strip() and value.strip():
            found[name.strip()] = value.strip()
    return found


def paint(element, prop: str) -> str | None:
    """The element's own `prop` (fill, stroke...): its style property, else its attribute."""
    return style(element).get(prop, element.get(prop))


def set_paint(element, **props) -> None:
    """Set properties as attributes, and drop them from its `style` (which would win); a
    value None removes the property."""
    styles = style(element)
    for prop, value in props.items():
        prop = prop.replace("_", "-")
        styles.pop(prop, None)
        if value is None:
            element.attrib.pop(prop, None)
        else:
            element.set(prop, value)
    if styles:
        element.set("style", ";".join(f"{k}:{v}" for k, v in styles.items()))
    else:
        element.attrib.pop("style", None)


def rgb(value: str | None) -> tuple[float, float, float] | None:
    """A colour as red, green, blue from 0 to 1; None for none, a paint server (url(...)),
    currentColor, inherit or what is no colour."""
    if value is None:
        return None
    value = value.strip()
    if not value or value in ("none", "transparent", "inherit", "currentColor") or value.startswith("url("):
        return None
    r, g, b, a = colour(value)
    return None if a == 0 else (r, g, b)
