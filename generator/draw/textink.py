"""Where the ink of a face's plain SVG text lands: text that leaves the card is cut off in print.

In: a face's SVG (as Jinja made it), the deck's trim (mm) and the `FontSet` CairoSVG draws
with. Out: one `Overflow` for each `<text>` (with its `<tspan>`s) whose ink leaves the
trim, or the box of a nested `<svg>` viewport it sits in (which clips it), and the
template source line each comes from (`template_line`).

The ink is measured as CairoSVG draws it (cairosvg/text.py): letter by letter, each at the
advance of the one before (no kerning), `letter-spacing` between letters, `x`/`y`/`dx`/`dy`
(lists too), `text-anchor` centring the ink of each text or tspan, `font-size` (user
units, px, pt, mm, in, em, %), the family, weight and style looked up as `fonts.FontSet`
does, and the glyphs' own outlines (fontTools: each glyph's bounds in the font file), moved
by the `transform`s of the element and its parents and nested `<svg>` viewports. Not
handled (such text is not checked): `<textPath>` (its ink follows a path), `rotate=`,
text reached through `<use>`, styles given by a `<style>` sheet's classes, and a round or
hexagonal card's outline (its bounding rectangle is the trim checked).
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET  # nosec B405: the face's own SVG, made by pnp's sandboxed Jinja
from dataclasses import dataclass
from functools import lru_cache

from . import svgtree
from .fonts import FontSet
from .glyphink import Letters

SVG_NS = "{http://www.w3.org/2000/svg}"
INHERITED = ("font-family", "font-size", "font-weight", "font-style", "text-anchor", "letter-spacing",
             "display", "visibility")
NOT_DRAWN = {"defs", "symbol", "clipPath", "mask", "pattern", "marker", "linearGradient", "radialGradient",
             "filter", "title", "desc", "metadata", "style", "script", "foreignObject"}
TEXT_TAGS = (SVG_NS + "text", "text")
SLACK = 0.05    # mm of ink past an edge let through (antialiasing, a glyph's overshoot)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_LENGTH = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(px|pt|pc|mm|cm|in|em|ex|%)?\s*$")
PX_PER = {None: 1.0, "px": 1.0, "pt": 96 / 72, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}


@dataclass(frozen=True)
class Overflow:
    """A text whose ink leaves `box` ("the trim" or "its <svg> viewport") by `past` mm."""
    text: str
    box: str
    past: float
    side: str        # "left", "right", "top", "bottom"
    tag: str         # the element's start tag as written in the face (to find its template line)

    def message(self) -> str:
        shown = self.text if len(self.text) <= 40 else self.text[:39] + "…"
        return (f"<text> {shown!r} runs {self.past:.1f} mm past {self.box}'s {self.side} edge and is cut off in "
                "print: move it, make it smaller, or set it with textbox(), which fits text to its box")


def overflows(svg: str, trim: tuple[float, float, float, float], letters: Letters) -> list[Overflow]:
    """The texts of `svg` whose ink leaves `trim` (x, y, w, h in mm from the face's top-left)
    or the nested <svg> viewport that holds them; `letters`: the fonts CairoSVG draws with."""
    if "<text" not in svg:
        return []
    try:
        root = ET.fromstring(svg)  # nosec B314: see the import
    except ET.ParseError:
        return []   # drawing says the SVG is invalid
    to_mm = _root_mm(root)
    if to_mm is None:
        return []
    found: list[Overflow] = []
    written = re.findall(r"<text\b[^>]*>", svg)
    texts = [e for e in root.iter() if e.tag in TEXT_TAGS]
    tags = {id(e): t for e, t in zip(texts, written)} if len(texts) == len(written) else {}
    style = _style(root, {"font-size": 12.0})
    for child in root:   # the root <svg>'s own box is the face: its children are laid in its units
        if child.tag in TEXT_TAGS or child.find(".//" + SVG_NS + "text") is not None:
            _walk(child, to_mm, style, [("the trim", _mm_box(trim))], letters, found, tags)
    return found


def _root_mm(root) -> tuple | None:
    """The affine map from the root's user units to mm (CairoSVG's 96 px an inch)."""
    w, h = (_length(root.get(k)) for k in ("width", "height"))
    w_mm = w[0] * PX_PER.get(w[1], 1.0) * 25.4 / 96 if w and w[1] not in ("em", "ex", "%") else None
    h_mm = h[0] * PX_PER.get(h[1], 1.0) * 25.4 / 96 if h and h[1] not in ("em", "ex", "%") else None
    box = [float(v) for v in _NUMBER.findall(root.get("viewBox") or "")]
    if len(box) == 4 and box[2] > 0 and box[3] > 0:
        sx = (w_mm or box[2] * 25.4 / 96) / box[2]
        sy = (h_mm or box[3] * 25.4 / 96) / box[3]
        return (sx, 0.0, 0.0, sy, -box[0] * sx, -box[1] * sy)
    return (25.4 / 96, 0.0, 0.0, 25.4 / 96, 0.0, 0.0)


def _mm_box(trim) -> tuple[float, float, float, float]:
    x, y, w, h = trim
    return (x, y, x + w, y + h)


def _walk(node, ctm, style, boxes, letters, found, tags) -> None:
    tag = node.tag.removeprefix(SVG_NS)
    if tag in NOT_DRAWN or tag in ("use", "textPath"):
        return
    style = _style(node, style)
    if style.get("display") == "none":
        return
    ctm = _times(ctm, _transform(node.get("transform") or ""))
    if tag == "svg" and node.get("width") and node.get("height") and len(boxes) >= 1 and ctm is not None:
        ctm, boxes = _viewport(node, ctm, style, boxes)
    if tag == "text":
        tag_text = tags.get(id(node), "")
        if ctm is not None and style.get("visibility") not in ("hidden", "collapse"):
            _check_text(node, ctm, style, boxes, letters, found, tag_text)
        return
    for child in node:
        if child.tag in TEXT_TAGS or child.find(".//" + SVG_NS + "text") is not None:
            _walk(child, ctm, style, boxes, letters, found, tags)


def _viewport(node, ctm, style, boxes):
    """A nested <svg>: its box (which clips what it holds) and its user units."""
    x, y = (_size(node.get(k), style) or 0.0 for k in ("x", "y"))
    w, h = (_size(node.get(k), style) or 0.0 for k in ("width", "height"))
    box = _bounds(ctm, (x, y, x + w, y + h))
    vb = [float(v) for v in _NUMBER.findall(node.get("viewBox") or "")]
    inner = _times(ctm, (1, 0, 0, 1, x, y))
    if len(vb) == 4 and vb[2] > 0 and vb[3] > 0 and w > 0 and h > 0:
        inner = _times(inner, (w / vb[2], 0, 0, h / vb[3], -vb[0] * w / vb[2], -vb[1] * h / vb[3]))
    return inner, [*boxes, ("its <svg> viewport", box)]


def _check_text(node, ctm, style, boxes, letters, found, tag_text) -> None:
    """The ink of one <text> and its tspans, laid out as CairoSVG lays them, against each box."""
    ink: list[tuple] = []   # each glyph's (x0, y0, x1, y1) in the text's user units
    words: list[str] = []
    cursor = [0.0, 0.0]
    if not _lay(node, style, letters, cursor, ink, words, node.text):
        return
    text = " ".join(" ".join(words).split())
    if not ink or not text:
        return
    corners = [_bounds(ctm, box) for box in ink]
    x0, y0 = min(c[0] for c in corners), min(c[1] for c in corners)
    x1, y1 = max(c[2] for c in corners), max(c[3] for c in corners)
    for name, (bx0, by0, bx1, by1) in boxes:
        for side, past in (("left", bx0 - x0), ("right", x1 - bx1), ("top", by0 - y0), ("bottom", y1 - by1)):
            if past > SLACK:
                found.append(Overflow(text, name, past, side, tag_text))
                return


def _lay(node, style, letters, cursor, ink, words, text) -> bool:
    """Lay `text` (the node's own) then its children and their tails; False when a font is
    unknown or a feature is not handled (the text is then not checked)."""
    if node.get("rotate"):
        return False
    if not _run(node, style, letters, cursor, ink, words, text):
        return False
    for child in node:
        tag = child.tag.removeprefix(SVG_NS)
        if tag != "tspan":
            return False   # textPath, a, ...: not handled
        child_style = _style(child, style)
        if child_style.get("display") != "none":
            if not _lay(child, child_style, letters, cursor, ink, words, child.text):
                return False
        if child.tail and child.tail.strip():   # an anonymous tspan, in the parent's style
            if not _run(ET.Element("tspan"), style, letters, cursor, ink, words, child.tail):
                return False
    return True


def _run(node, style, letters, cursor, ink, words, text) -> bool:
    """One node's letters, as cairosvg.text.text() places them."""
    text = re.sub(" +", " ", (text or "").replace("\n", "").replace("\r", "").replace("\t", " "))
    size = style["font-size"]
    xs, ys, dxs, dys = (_list(node.get(k), style) for k in ("x", "y", "dx", "dy"))
    if not text.strip():
        if xs:
            cursor[0] = xs[0]
        if ys:
            cursor[1] = ys[0]
        return True
    family = (style.get("font-family") or "sans-serif").split(",")[0].strip("\"' ")
    weight = style.get("font-weight") or "normal"
    bold = weight == "bold" or (weight.isdigit() and int(weight) >= 550)
    italic = style.get("font-style") in ("italic", "oblique")
    try:
        face = letters.face(family, bold, italic)
    except KeyError:
        return False    # an unknown font: an error of its own when the face is drawn
    spacing = _size(style.get("letter-spacing"), style) or 0.0
    left, right, top, bottom = letters.ink(face, text)
    if right < left:
        return True     # spaces only: no ink
    align = 0.0
    anchor = style.get("text-anchor")
    if anchor == "middle":
        align = -((right - left) * size / 2 + left * size) - (len(text) - 1) * spacing / 2
    elif anchor == "end":
        align = -(right * size) - (len(text) - 1) * spacing
    d = [0.0, 0.0]
    for i, letter in enumerate(text):
        x = xs[i] if i < len(xs) else None
        y = ys[i] if i < len(ys) else None
        if x is not None:
            d[0] = 0.0
        if y is not None:
            d[1] = 0.0
        d[0] += dxs[i] if i < len(dxs) else 0.0
        d[1] += dys[i] if i < len(dys) else 0.0
        px = cursor[0] if x is None else x
        py = cursor[1] if y is None else y
        if i:
            px += spacing
        if not letter.isspace():
            gl, gr, gt, gb = letters.ink(face, letter)
            if gr >= gl:
                ox, oy = px + d[0] + align, py + d[1]
                box = (ox + gl * size, oy - gt * size, ox + gr * size, oy - gb * size)
                ink.append(box)
        cursor[0], cursor[1] = px + letters.advance(face, letter) * size, py
    words.append(text)
    return True


def _style(node, parent: dict) -> dict:
    """The inherited text properties of `node`: its attributes, then its style="" (which wins)."""
    own = {k: node.get(k) for k in INHERITED if node.get(k) is not None}
    for decl in (node.get("style") or "").split(";"):
        name, _, value = decl.partition(":")
        if name.strip() in INHERITED and value.strip():
            own[name.strip()] = value.strip()
    if not own:
        return parent
    style = dict(parent)
    for k, v in own.items():
        if k == "font-size":
            size = _size(v, parent, relative_to=parent["font-size"])
            if size is not None:
                style[k] = size
        elif v != "inherit":
            style[k] = v
    return style


def _length(value: str | None) -> tuple[float, str | None] | None:
    m = _LENGTH.match(value or "")
    return (float(m.group(1)), m.group(2)) if m else None


def _size(value, style: dict, relative_to: float | None = None) -> float | None:
    """A length in user units, as cairosvg.helpers.size reads it."""
    found = _length(value)
    if found is None:
        return None
    number, unit = found
    if unit in ("em", "%"):
        base = relative_to if relative_to is not None else style["font-size"]
        return number * base / (100 if unit == "%" else 1)
    if unit == "ex":
        return number * (relative_to if relative_to is not None else style["font-size"]) / 2
    return number * PX_PER[unit]


def _list(value, style) -> list[float]:
    if not value:
        return []
    return [v for v in (_size(p, style) for p in value.replace(",", " ").split()) if v is not None]


def _transform(value: str) -> tuple | None:
    """The affine matrix (a, b, c, d, e, f) of an SVG transform list; None for a step it
    cannot tell (svgtree.exact_transform)."""
    return svgtree.exact_transform(value)


def _times(m, n):
    """m then n applied inside it (SVG's order: the parent's matrix times the child's)."""
    if m is None or n is None:
        return None
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2,
            a * e2 + c * f2 + e, b * e2 + d * f2 + f)


def _bounds(m, box) -> tuple[float, float, float, float]:
    a, b, c, d, e, f = m
    x0, y0, x1, y1 = box
    xs, ys = [], []
    for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
        xs.append(a * x + c * y + e)
        ys.append(b * x + d * y + f)
    return min(xs), min(ys), max(xs), max(ys)


@lru_cache(maxsize=256)
def template_line(source: str, tag: str) -> tuple[int, int | None]:
    """(score, line) of the line of `source` (a template) whose <text ...> start tag best
    matches `tag` (as the face has it): the most of its literal attribute values found in the
    face's tag, the first such line on a tie; (-1, None) when the template has no <text>."""
    best, best_line = -1, None
    for number, line in enumerate(source.splitlines(), start=1):
        for m in re.finditer(r"<text\b[^>]*", line):
            score = sum(1 for pair in re.findall(r"""[\w:-]+=["'][^"'{}]*["']""", m.group(0)) if pair in tag)
            if score > best:
                best, best_line = score, number
    return best, best_line


def ink_warnings(game, owners: dict, svgs, fonts: FontSet, memo) -> list:
    """A warning (a `Problem`) for each plain text of each face whose ink leaves the card,
    naming the first card that shows the face and the template line of the text; a
    session's memo keeps each face's findings by its key (its SVG's digest), and the
    letters of the fonts measured (glyphink.Letters)."""
    from ..errors import Problem

    problems, sources, letters = [], {}, Letters(fonts, memo)
    for key, rc in owners.items():
        if key is None or key not in svgs:
            continue
        deck = rc.deck
        trim = (deck.bleed, deck.bleed, deck.trim_w, deck.trim_h)
        found = memo.derived(("text ink", key, trim),
                             lambda key=key, trim=trim: tuple(overflows(svgs[key], trim, letters)))
        if not found:
            continue
        side = "back" if key == rc.back and key != rc.front else "front"
        template = rc.card.back if side == "back" else rc.card.front
        if template not in sources:
            sources[template] = _template_sources(game, template)
        for over in found:
            file, line, best = f"templates/{game.id}/{template}", None, -1
            for shown, text in sources[template]:   # the face's own template wins a tie
                score, number = template_line(text, over.tag)
                if score > best:
                    file, line, best = shown, number, score
            problems.append(Problem(file, f"{side}: {over.message()}", line=line, card=rc.card.id,
                                    severity="warning"))
    letters.keep()
    letters.carry()
    return problems


def _template_sources(game, name: str | None) -> list[tuple[str, str]]:
    """(path as shown, text) of the face's template first, then its folder's and the shared
    folder's other templates (the macros it may call) that hold a <text>."""
    from ..guard import OutsideProject, read_text_inside

    out = []
    for folder in (game.templates_dir, game.root / "templates" / "_shared"):
        paths = ([folder / name] if name else []) + sorted(folder.glob("*.j2")) if folder.is_dir() else []
        for path in dict.fromkeys(paths):
            try:
                text = read_text_inside(game.root, path, f"template {path.name}") if path.is_file() else ""
            except (OSError, OutsideProject):
                continue
            if "<text" in text:
                out.append((path.relative_to(game.root).as_posix(), text))
    return out
