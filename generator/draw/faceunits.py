"""A face drawn in pixels (a deck of `units: px`, at its `dpi:`) made a face in millimetres.

In: the SVG a template rendered, whose root <svg> gives its size in pixels (width="825"
height="1125", or a viewBox), and the deck. Out: the same drawing in a root <svg> of the
deck's size in millimetres (viewBox in mm, as every face), its content scaled from pixels
in one group: printed at exactly the deck's size, guides and stamps drawn in mm on top.
`ValueError` names a face whose pixels are not the deck's size at its dpi.
"""
from __future__ import annotations

import re

_ROOT = re.compile(r"<svg\b[^>]*>")
_ATTRIBUTE = r"""\s{name}\s*=\s*["']([^"']*)["']"""
_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(px)?\s*$")
TOLERANCE_PX = 1.0   # a face may be a pixel off the deck's size (rounded pixels)


def _attribute(tag: str, name: str) -> str | None:
    found = re.search(_ATTRIBUTE.format(name=name), tag)
    return found.group(1) if found else None


def _without(tag: str, *names: str) -> str:
    for name in names:
        tag = re.sub(_ATTRIBUTE.format(name=name), "", tag)
    return tag


def in_print_units(svg: str, deck) -> str:
    """`svg` drawn in pixels as a face of `deck` in millimetres (see the module's docstring).

    :raises ValueError: the face's size in pixels is not the deck's at its dpi, or not given.
    """
    root = _ROOT.search(svg)
    if root is None:
        raise ValueError("the template made no <svg> element")
    tag = root.group(0)
    k = deck.dpi / 25.4
    want = (deck.width * k, deck.height * k)
    box = _attribute(tag, "viewBox")
    if box is not None:
        try:
            x, y, w, h = (float(v) for v in box.replace(",", " ").split())
        except ValueError:
            raise ValueError(f"the root <svg>'s viewBox {box!r} is not four numbers") from None
    else:
        sizes = [_NUMBER.match(_attribute(tag, n) or "") for n in ("width", "height")]
        if not all(sizes):
            raise ValueError(f"units: px: give the root <svg> its size in pixels, width=\"{want[0]:g}\" "
                             f"height=\"{want[1]:g}\" (the deck at {deck.dpi:g} dpi, bleed included)")
        x, y, (w, h) = 0.0, 0.0, (float(m.group(1)) for m in sizes if m)
    if abs(w - want[0]) > TOLERANCE_PX or abs(h - want[1]) > TOLERANCE_PX:
        raise ValueError(f"the face is {w:g} x {h:g} px but the deck is {want[0]:g} x {want[1]:g} px at "
                         f"{deck.dpi:g} dpi ({deck.width:g} x {deck.height:g} mm, bleed included): draw it at that "
                         "size, or give the deck the size and bleed the face was drawn for")
    opened = (_without(tag, "width", "height", "viewBox")[:-1].rstrip("/ ") +
              f' width="{deck.width!r}mm" height="{deck.height!r}mm" viewBox="0 0 {deck.width!r} {deck.height!r}">')
    shift = f" translate({-x!r} {-y!r})" if x or y else ""
    group = f'<g transform="scale({deck.width / w!r} {deck.height / h!r}){shift}">'
    end = svg.rstrip().rfind("</svg>")
    if end < root.end():
        raise ValueError("the template's root <svg> is not closed")
    return svg[:root.start()] + opened + group + svg[root.end():end] + "</g>" + svg[end:]
