"""The low-ink proof of a face (`pnp build --proof`): the same drawing, ink taken out of it.

In: a face's SVG text as its template made it, and the face's size in mm. Out: the SVG
of its proof, made by one pass over the tree (svgtree.py), so every template gets one
without an edit:

- a background (a shape covering `BACKGROUND` of the face or more: full-bleed fills) is dropped;
- every other shape of the face's own drawing is a thin black outline (`LINE` mm), not filled;
  a small one (`SMALL` mm or less: a pip, a dot) is an icon;
- text is black; so are icons (nested `<svg>` drawings), whose light colours become white
  (a gradient or pattern is black); strokes around text go; an icon larger than
  `LARGE` mm both ways (an emblem, a coin with a number on it) is outlined as shapes are;
- a picture is an outlined box with its diagonals and its name (the file's stem);
- a filter (a shadow, a blur) goes; clip paths and masks stay, as the geometry does.

A template says otherwise on any element with `data-proof`: `omit` (left out), `outline`
(every shape in it outlined, icons too), `keep` (drawn as it is), `notes` (a rectangle
given as ruled space for a tester's notes). Any other value is the template's mistake,
raised as a `ValueError` naming it.
"""
from __future__ import annotations

from pathlib import PurePosixPath

from lxml import etree

from . import svgtree
from .svgtree import SHAPES, TEXTS, Matrix, local, multiply, number, paint, rgb, set_paint

LINE = 0.2          # mm: an outline's width on the face
RULE = 6.0          # mm between the ruled lines of a notes box
SMALL = 3.0         # mm: a shape no larger than this both ways is an icon, drawn black
LARGE = 8.0         # mm: an icon larger than this both ways is drawn as outlines, as shapes are
BACKGROUND = 0.85   # a shape covering this share of the face or more is a background
GREY = "#8c8c8c"    # the rules of notes boxes and a picture's diagonals
MODES = ("omit", "outline", "keep", "notes")
_NOT_DRAWN = frozenset({"clipPath", "mask", "pattern", "linearGradient", "radialGradient", "marker", "filter",
                        "style", "title", "desc", "metadata"})


def proof_svg(svg: str, width: float, height: float) -> str:
    """The proof of a face `width` x `height` mm drawn by `svg`."""
    root = svgtree.parse(svg)
    changes: list[tuple[etree._Element, etree._Element | None]] = []   # (element, what replaces it; None: removed)
    for child in root:
        _proof(child, svgtree.IDENTITY, False, "auto", (width, height), changes)
    for element, new in changes:
        parent = element.getparent()
        if new is not None:
            new.tail = element.tail
            parent.replace(element, new)
        else:
            _remove(element)
    return svgtree.text(root)


def _proof(el, outer: Matrix, icon: bool, mode: str, face: tuple[float, float], changes: list) -> None:
    name = local(el)
    if not name or name in _NOT_DRAWN:
        return
    asked = el.get("data-proof")
    if asked is not None and asked not in MODES:
        raise ValueError(f'data-proof="{asked}" on <{name}> is not one of {", ".join(MODES)}')
    m = multiply(outer, svgtree.transform(el.get("transform")))
    if asked == "keep":
        return
    if asked == "omit":
        changes.append((el, None))
        return
    if asked == "notes":
        changes.append((el, _notes(el, svgtree.scale_of(m))))
        return
    mode = "outline" if asked == "outline" else mode
    el.attrib.pop("filter", None)
    if name == "svg":
        scale = svgtree.scale_of(m)
        if min(number(el.get("width")), number(el.get("height"))) * scale > LARGE:
            mode = "outline"
        m = multiply(m, svgtree.viewport(el))
        icon = True
    if name == "image":
        changes.append((el, _picture(el, svgtree.scale_of(m))))
        return
    if name in TEXTS:
        _recolour(el, text=True)
    elif name in SHAPES:
        _shape(el, m, icon and mode != "outline", face, changes)
    else:   # a group, an icon's <svg>, a link: what it passes down is black (or white)
        _recolour(el, text=False)
    for child in el:
        _proof(child, m, icon, mode, face, changes)


def _shape(el, m: Matrix, icon: bool, face: tuple[float, float], changes: list) -> None:
    box = _bounds(el, m)
    if box is not None and not icon:
        x0, y0, x1, y1 = box
        covered = max(0.0, min(x1, face[0]) - max(x0, 0.0)) * max(0.0, min(y1, face[1]) - max(y0, 0.0))
        if covered >= BACKGROUND * face[0] * face[1]:
            changes.append((el, None))
            return
        icon = x1 - x0 <= SMALL and y1 - y0 <= SMALL
    if icon:
        _recolour(el, text=False)
        return
    fill, stroke = paint(el, "fill"), paint(el, "stroke")
    if fill == "none" and stroke in (None, "none"):
        return   # draws nothing (a clip's outline, a hit area)
    set_paint(el, fill="none", stroke="#000", stroke_width=f"{LINE / svgtree.scale_of(m):.4g}",
              fill_opacity=None, stroke_opacity=None)


def _recolour(el, text: bool) -> None:
    """Black for dark paint and paint servers, white for light paint; text is black whatever
    its colour, and loses its stroke."""
    changes = {prop: _ink(paint(el, prop), black=text) for prop in ("fill", "stroke") if paint(el, prop) is not None}
    if text:   # also when it would inherit a light colour from its group
        changes["fill"] = "none" if (paint(el, "fill") or "").strip() == "none" else "#000"
        changes["stroke"] = "none"
    if changes:
        set_paint(el, **changes)


def _ink(value: str | None, black: bool = False) -> str | None:
    if value is None or value.strip() in ("none", "currentColor", "inherit", "transparent"):
        return value
    colour = rgb(value)
    if colour is None or black:   # a gradient or a pattern
        return "#000"
    return "#fff" if _luminance(colour) > 0.6 else "#000"


def _luminance(colour: tuple[float, float, float]) -> float:
    """WCAG's relative luminance of an sRGB colour."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in colour]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _bounds(el, m: Matrix) -> tuple[float, float, float, float] | None:
    """The box a rect, circle, ellipse, line, polyline or polygon covers on the face (mm);
    None for a path (not read)."""
    name = local(el)
    if name == "rect":
        x, y = number(el.get("x")), number(el.get("y"))
        corners = [(x, y), (x + number(el.get("width")), y + number(el.get("height")))]
    elif name in ("circle", "ellipse"):
        cx, cy = number(el.get("cx")), number(el.get("cy"))
        rx = number(el.get("r") if name == "circle" else el.get("rx"))
        ry = number(el.get("r") if name == "circle" else el.get("ry"))
        corners = [(cx - rx, cy - ry), (cx + rx, cy + ry)]
    elif name == "line":
        corners = [(number(el.get("x1")), number(el.get("y1"))), (number(el.get("x2")), number(el.get("y2")))]
    elif name in ("polyline", "polygon"):
        v = [number(p) for p in (el.get("points") or "").replace(",", " ").split()]
        corners = list(zip(v[0::2], v[1::2]))
    else:
        return None
    if not corners:
        return None
    (x0, y0), (x1, y1) = corners[0], corners[-1]
    corners += [(x0, y1), (x1, y0)] if len(corners) == 2 else []
    placed = [svgtree.apply(m, x, y) for x, y in corners]
    xs, ys = [p[0] for p in placed], [p[1] for p in placed]
    return min(xs), min(ys), max(xs), max(ys)


def _box(el):
    return number(el.get("x")), number(el.get("y")), number(el.get("width")), number(el.get("height"))


def _element(tag: str, **attrs) -> etree._Element:
    made = etree.Element(f"{{{svgtree.SVG}}}{tag}", nsmap={None: svgtree.SVG})
    for key, value in attrs.items():
        made.set(key.replace("_", "-"), value)
    return made


def _notes(el, scale: float) -> etree._Element:
    """A notes box where the element was: its rectangle outlined, ruled every RULE mm."""
    x, y, w, h = _box(el)
    group = _element("g")
    for attr in ("transform", "clip-path"):
        if el.get(attr):
            group.set(attr, el.get(attr))
    width = f"{LINE / scale:.4g}"
    group.append(_element("rect", x=f"{x:g}", y=f"{y:g}", width=f"{w:g}", height=f"{h:g}", fill="none",
                          stroke="#000", stroke_width=width))
    step = RULE / scale
    line_y = y + step
    while line_y < y + h - step / 4:
        group.append(_element("line", x1=f"{x + step / 3:.4g}", x2=f"{x + w - step / 3:.4g}", y1=f"{line_y:.4g}",
                              y2=f"{line_y:.4g}", stroke=GREY, stroke_width=width))
        line_y += step
    return group


def _picture(el, scale: float) -> etree._Element:
    """A picture's place: its box outlined, its diagonals, its name in the middle."""
    x, y, w, h = _box(el)
    href = el.get("href") or el.get("{http://www.w3.org/1999/xlink}href") or ""
    name = "picture" if href.startswith("data:") or not href else PurePosixPath(href.split("?")[0]).stem
    group = _element("g")
    if el.get("transform"):
        group.set("transform", el.get("transform"))
    width = f"{LINE / scale:.4g}"
    group.append(_element("rect", x=f"{x:g}", y=f"{y:g}", width=f"{w:g}", height=f"{h:g}", fill="none",
                          stroke="#000", stroke_width=width))
    group.append(_element("path", d=f"M{x:g} {y:g}L{x + w:g} {y + h:g}M{x + w:g} {y:g}L{x:g} {y + h:g}",
                          fill="none", stroke=GREY, stroke_width=width))
    size = max(min(3.0 / scale, h / 5, w / max(len(name), 1) * 1.6), 0.5 / scale)
    label = _element("text", x=f"{x + w / 2:.4g}", y=f"{y + h / 2 + size * 0.35:.4g}", font_family="Lato",
                     font_size=f"{size:.4g}", text_anchor="middle", fill="#000")
    label.text = name
    group.append(label)
    return group


def _remove(element) -> None:
    """Take an element out, keeping the text that followed it."""
    parent = element.getparent()
    if element.tail:
        before = element.getprevious()
        if before is not None:
            before.tail = (before.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)
