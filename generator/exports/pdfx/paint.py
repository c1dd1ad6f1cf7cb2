"""What each painting operator of a PDF content stream paints, and whether it uses transparency.

In: a content stream (a face's Form XObject, a nested form, a tiling pattern) with its
resources. Out: a `Paint` for every operator that puts marks on the page (fill, stroke,
shading, XObject, inline image, text): its index in the parsed stream, a box in the
stream's own space (never smaller than what it marks; clipped by the clip path's box) and
whether it is transparent: drawn with a constant alpha below 1, a soft mask or a blend mode
other than Normal, or an image or form or pattern that carries any of these. `raster_set`
picks the paints that must become pixels: the transparent ones and every paint beneath a
later one of those (boxes that touch); all others can stay vector, drawn over the pixels.
Nothing is changed here. Which operators the analysis follows, and how, is one table
(`OPERATORS`: operator -> method); every other operator changes nothing it follows.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pikepdf
from pikepdf import Name

from .textmarks import IDENTITY, SHOWS, TextObject, box_through, font_metrics, mul

FILLS = {"f", "F", "f*"}
STROKES = {"S", "s"}
BOTH = {"B", "B*", "b", "b*"}
NORMAL_BLEND = {Name.Normal, Name.Compatible}


@dataclass(frozen=True)
class Paint:
    index: int
    box: tuple[float, float, float, float] | None   # x0, y0, x1, y1; None: marks nothing
    transparent: bool
    kind: str          # path, shading, image, form, text
    text_mode: int = 0  # the text rendering mode a text paint was drawn with
    parts: tuple = ()   # a form's marks, box by box (the union is `box`)

    def boxes(self):
        return self.parts or (self.box,)


def meet(p, q):
    """Intersection of two boxes (may come out empty: x0 >= x1 or y0 >= y1)."""
    return (max(p[0], q[0]), max(p[1], q[1]), min(p[2], q[2]), min(p[3], q[3]))


def touch(p, q) -> bool:
    return p[0] <= q[2] and q[0] <= p[2] and p[1] <= q[3] and q[1] <= p[3]


class Analyser:
    """Finds transparency in content streams, remembering each form and pattern it has seen."""

    def __init__(self) -> None:
        self._seen: dict[tuple, bool] = {}
        self._marks: dict[tuple, list] = {}
        self._fonts: dict[tuple, object] = {}

    def transparent_inside(self, holder: pikepdf.Object) -> bool:
        """Whether a form XObject or tiling pattern paints anything transparently."""
        key = holder.objgen
        if key == (0, 0) or key not in self._seen:
            if key != (0, 0):
                self._seen[key] = True  # a form that draws itself counts as transparent (and stops)
            paints = self.paints(holder, _limit(holder))
            value = any(p.transparent for p in paints)
            if key == (0, 0):
                return value
            self._seen[key] = value
            self._marks[key] = [b for p in paints if p.box is not None for b in p.boxes()]
        return self._seen[key]

    def paints(self, holder: pikepdf.Object, limit, ops=None, res=None) -> list[Paint]:
        """Every painting operator of the stream `holder`, in order; `limit` is the box
        nothing it draws can leave (a form's BBox); `res` the resources when they are not
        the stream's own (a Type 3 glyph's are its font's). Each operator goes through its
        entry in `OPERATORS`; one not there changes nothing this analysis follows."""
        res = holder.get("/Resources", pikepdf.Dictionary()) if res is None else res
        ops = pikepdf.parse_content_stream(holder) if ops is None else ops
        walk = _Walk(res, _State(limit))
        for i, ins in enumerate(ops):
            op = INLINE if isinstance(ins, pikepdf.ContentStreamInlineImage) else str(ins.operator)
            handler = OPERATORS.get(op)
            if handler is not None:
                handler(self, walk, i, ins.operands, op)
        return walk.out

    # One method per family of operators, each named in OPERATORS below the class.

    def _save(self, walk: _Walk, i: int, args, op: str) -> None:
        walk.stack.append(walk.state.copy())

    def _restore(self, walk: _Walk, i: int, args, op: str) -> None:
        if walk.stack:
            walk.state = walk.stack.pop()

    def _concat(self, walk: _Walk, i: int, args, op: str) -> None:
        walk.state.ctm = mul(tuple(float(v) for v in args), walk.state.ctm)

    def _line_width(self, walk: _Walk, i: int, args, op: str) -> None:
        walk.state.lw = float(args[0])

    def _miter(self, walk: _Walk, i: int, args, op: str) -> None:
        walk.state.miter = float(args[0])

    def _graphics_state(self, walk: _Walk, i: int, args, op: str) -> None:
        walk.state.apply_gs(walk.res.get("/ExtGState", {}).get(args[0]))

    def _point(self, walk: _Walk, i: int, args, op: str) -> None:
        walk.path.append((float(args[0]), float(args[1])))

    def _curve(self, walk: _Walk, i: int, args, op: str) -> None:
        walk.path += [(float(args[k]), float(args[k + 1])) for k in range(0, len(args), 2)]

    def _rectangle(self, walk: _Walk, i: int, args, op: str) -> None:
        x, y, w, h = (float(v) for v in args)
        walk.path += [(x, y), (x + w, y + h)]

    def _clip(self, walk: _Walk, i: int, args, op: str) -> None:
        walk.clip_next = True

    def _end_path(self, walk: _Walk, i: int, args, op: str) -> None:
        """A fill, stroke, both or `n`: what the path paints, and the clip it may set."""
        state, res, path = walk.state, walk.res, walk.path
        box = None
        if path:
            xs, ys = [p[0] for p in path], [p[1] for p in path]
            box = (min(xs), min(ys), max(xs), max(ys))
        if op != "n" and box is not None:
            grow = state.lw / 2 * max(1.0, state.miter) if op not in FILLS else 0.0
            drawn = box_through((box[0] - grow, box[1] - grow, box[2] + grow, box[3] + grow), state.ctm)
            alpha = ((state.ca < 1 if op not in STROKES else False)
                     or (state.CA < 1 if op not in FILLS else False))
            pattern = (op not in STROKES and self._pattern_transparent(res, state.fill_pattern)) or \
                      (op not in FILLS and self._pattern_transparent(res, state.stroke_pattern))
            walk.out.append(Paint(i, _clipped(drawn, state.clip), alpha or pattern or state.masked, "path"))
        if walk.clip_next and box is not None:
            state.clip = meet(state.clip, box_through(box, state.ctm))
        walk.path, walk.clip_next = [], False

    def _shading(self, walk: _Walk, i: int, args, op: str) -> None:
        state = walk.state
        shading = walk.res.get("/Shading", {}).get(args[0])
        box = state.clip
        if shading is not None and "/BBox" in shading:
            box = meet(box, box_through([float(v) for v in shading.BBox], state.ctm))
        walk.out.append(Paint(i, _clipped(box, state.clip), state.ca < 1 or state.masked, "shading"))

    def _draw_xobject(self, walk: _Walk, i: int, args, op: str) -> None:
        walk.out.append(self._xobject(i, walk.res.get("/XObject", {}).get(args[0]), walk.state))

    def _inline_image(self, walk: _Walk, i: int, args, op: str) -> None:
        state = walk.state
        drawn = box_through((0, 0, 1, 1), state.ctm)
        walk.out.append(Paint(i, _clipped(drawn, state.clip), state.ca < 1 or state.masked, "image"))

    def _fill_space(self, walk: _Walk, i: int, args, op: str) -> None:
        walk.state.fill_pattern = None    # a space or colour set: no pattern fills

    def _stroke_space(self, walk: _Walk, i: int, args, op: str) -> None:
        walk.state.stroke_pattern = None

    def _pattern_colour(self, walk: _Walk, i: int, args, op: str) -> None:
        name = args[-1] if args and isinstance(args[-1], pikepdf.Name) else None
        if op == "scn":
            walk.state.fill_pattern = name
        else:
            walk.state.stroke_pattern = name

    def _begin_text(self, walk: _Walk, i: int, args, op: str) -> None:
        walk.text = TextObject(self._metrics)

    def _end_text(self, walk: _Walk, i: int, args, op: str) -> None:
        walk.text = None

    def _text(self, walk: _Walk, i: int, args, op: str) -> None:
        """A text operator: inside BT..ET (or once a text state operator began one), the
        text matrix follows it, and a string shown is a paint."""
        if walk.text is None and op not in TEXT_STATE:
            return
        walk.text = walk.text or TextObject(self._metrics)
        state, res = walk.state, walk.res
        paint = walk.text.step(op, args, state, res)
        if paint is not None:
            box, painted = paint
            alpha = state.masked or (state.ca < 1 and state.tr in (0, 2, 4, 6)) or \
                (state.CA < 1 and state.tr in (1, 2, 5, 6))
            pattern = self._pattern_transparent(res, state.fill_pattern) or \
                self._pattern_transparent(res, state.stroke_pattern) or self._type3_transparent(state.font)
            if state.tr in (1, 2, 5, 6) and box is not None:
                g = state.lw / 2 * max(1.0, state.miter)
                box = (box[0] - g, box[1] - g, box[2] + g, box[3] + g)
            box = _clipped(box_through(box, state.ctm), state.clip)
            walk.out.append(Paint(i, box if painted else None, painted and (alpha or pattern), "text", state.tr))

    def _xobject(self, i, xobj, state) -> Paint:
        if xobj is None:
            return Paint(i, None, False, "form")
        if xobj.get("/Subtype") == Name.Image:
            drawn = _clipped(box_through((0, 0, 1, 1), state.ctm), state.clip)
            soft = "/SMask" in xobj or "/SMaskInData" in xobj and int(xobj.SMaskInData) != 0 \
                or isinstance(xobj.get("/Mask"), pikepdf.Array)   # a colour key: pixels that are not drawn
            return Paint(i, drawn, soft or state.ca < 1 or state.masked, "image")
        matrix = mul(tuple(float(v) for v in xobj.get("/Matrix", IDENTITY)), state.ctm)
        inside = self.transparent_inside(xobj)
        transparent = inside or state.ca < 1 or state.CA < 1 or state.masked or _group_blends(xobj)
        clipped = [_clipped(box_through(b, matrix), state.clip) for b in self._marks.get(xobj.objgen, [])]
        parts = tuple(b for b in clipped if b is not None)
        if xobj.objgen == (0, 0) or len(parts) > 64:  # a direct form, or marks too many to track one by one
            parts = ()
            drawn = _clipped(box_through([float(v) for v in xobj.BBox], matrix), state.clip)
        else:
            drawn = _union(parts) if parts else None
        return Paint(i, drawn, transparent, "form", parts=parts)

    def _pattern_transparent(self, res, name) -> bool:
        if name is None:
            return False
        pattern = res.get("/Pattern", {}).get(name)
        if pattern is None:
            return False
        if int(pattern.get("/PatternType", 0)) == 1:
            return self.transparent_inside(pattern)
        gs = pattern.get("/ExtGState")
        return gs is not None and _gs_transparent(gs)

    def _type3_transparent(self, font) -> bool:
        """Whether a Type 3 font's glyphs paint anything transparently."""
        if font is None or font.get("/Subtype") != Name.Type3:
            return False
        key = ("type3",) + font.objgen
        if key not in self._seen:
            res = font.get("/Resources", pikepdf.Dictionary())
            huge = (-1e9, -1e9, 1e9, 1e9)
            self._seen[key] = any(p.transparent for glyph in font.CharProcs.values()
                                  for p in self.paints(glyph, huge, res=res))
        return self._seen[key]

    def _metrics(self, font):
        key = font.objgen
        if key == (0, 0):
            return font_metrics(font)
        if key not in self._fonts:
            self._fonts[key] = font_metrics(font)
        return self._fonts[key]


class _Walk:
    """What one stream's analysis has so far: its resources, the graphics state and those
    saved by `q`, the paints found, the path being built, whether it clips, the text object."""

    __slots__ = ("res", "state", "stack", "out", "path", "clip_next", "text")

    def __init__(self, res, state: _State):
        self.res, self.state = res, state
        self.stack: list[_State] = []
        self.out: list[Paint] = []
        self.path: list[tuple[float, float]] = []
        self.clip_next = False
        self.text: TextObject | None = None


INLINE = "INLINE IMAGE"   # how pikepdf names an inline image (BI ... ID ... EI) among the operators
TEXT_STATE = {"Tf", "Tc", "Tw", "Tz", "TL", "Ts", "Tr"}   # they begin a text object of their own
TEXT = TEXT_STATE | {"Td", "TD", "Tm", "T*"} | SHOWS

Handler = Callable[[Analyser, _Walk, int, Any, str], None]

# Every operator the analysis follows, and what it does with it; any other changes nothing
# it follows (marked content, dashes, joins, colours' values, Type 3 glyph widths...).
OPERATORS: dict[str, Handler] = {
    "q": Analyser._save, "Q": Analyser._restore, "cm": Analyser._concat,
    "w": Analyser._line_width, "M": Analyser._miter, "gs": Analyser._graphics_state,
    "m": Analyser._point, "l": Analyser._point,
    "c": Analyser._curve, "v": Analyser._curve, "y": Analyser._curve, "re": Analyser._rectangle,
    "W": Analyser._clip, "W*": Analyser._clip,
    **dict.fromkeys(sorted(FILLS | STROKES | BOTH | {"n"}), Analyser._end_path),
    "sh": Analyser._shading, "Do": Analyser._draw_xobject, INLINE: Analyser._inline_image,
    "cs": Analyser._fill_space, "rg": Analyser._fill_space, "k": Analyser._fill_space,
    "g": Analyser._fill_space, "sc": Analyser._fill_space,
    "CS": Analyser._stroke_space, "RG": Analyser._stroke_space, "K": Analyser._stroke_space,
    "G": Analyser._stroke_space, "SC": Analyser._stroke_space,
    "scn": Analyser._pattern_colour, "SCN": Analyser._pattern_colour,
    "BT": Analyser._begin_text, "ET": Analyser._end_text,
    **dict.fromkeys(sorted(TEXT), Analyser._text),
}


def raster_set(paints: list[Paint]) -> set[int]:
    """Indices of the paints to draw as pixels: each transparent paint, and each paint whose
    box touches that of a later paint in the set (it lies beneath pixels). The others lie
    above every pixel they meet, so drawing them as vectors over the pixels is exact."""
    chosen: set[int] = set()
    boxes: list[tuple] = []
    union = None
    for paint in reversed(paints):
        if paint.box is None:
            continue
        hit = paint.transparent or (union is not None and touch(paint.box, union)
                                    and any(touch(p, b) for p in paint.boxes() for b in boxes))
        if hit:
            chosen.add(paint.index)
            boxes += paint.boxes()
            union = paint.box if union is None else _union((union, paint.box))
    return chosen


def without(ops, skip: dict[int, int]) -> list:
    """The operators with those in `skip` (index -> text rendering mode it was drawn with)
    kept from painting but not from changing the graphics state: a fill or stroke ends its
    path with `n` (a clip it sets stays), text is shown in mode 3 (invisible, still
    searchable) or 7 (when it clips), an image, form, shading or inline image is left out."""
    out = []
    for i, ins in enumerate(ops):
        if i not in skip:
            out.append(ins)
        elif isinstance(ins, pikepdf.ContentStreamInlineImage):
            continue
        elif str(ins.operator) in FILLS | STROKES | BOTH:
            out.append(pikepdf.ContentStreamInstruction([], pikepdf.Operator("n")))
        elif str(ins.operator) in SHOWS:
            mode = skip[i]
            out += [pikepdf.ContentStreamInstruction([7 if mode >= 4 else 3], pikepdf.Operator("Tr")), ins,
                    pikepdf.ContentStreamInstruction([mode], pikepdf.Operator("Tr"))]
    return out


class _State:
    __slots__ = ("ctm", "clip", "lw", "miter", "ca", "CA", "masked", "fill_pattern", "stroke_pattern",
                 "font", "size", "Tc", "Tw", "Th", "TL", "rise", "tr")

    def __init__(self, limit):
        self.ctm, self.clip, self.lw, self.miter = IDENTITY, limit, 1.0, 10.0
        self.ca = self.CA = 1.0
        self.masked = False
        self.fill_pattern = self.stroke_pattern = None
        self.font, self.size = None, 0.0
        self.Tc = self.Tw = self.TL = self.rise = 0.0
        self.Th, self.tr = 1.0, 0

    def copy(self) -> _State:
        other = _State.__new__(_State)
        for slot in self.__slots__:
            setattr(other, slot, getattr(self, slot))
        return other

    def apply_gs(self, gs) -> None:
        if gs is None:
            return
        if "/ca" in gs:
            self.ca = float(gs.ca)
        if "/CA" in gs:
            self.CA = float(gs.CA)
        if "/LW" in gs:
            self.lw = float(gs.LW)
        if "/SMask" in gs:
            self.masked = gs.SMask != Name("/None")
        if "/BM" in gs:
            self.masked = self.masked or not _normal_blend(gs.BM)
        if "/Font" in gs:
            self.font, self.size = gs.Font[0], float(gs.Font[1])


def _clipped(box, clip):
    """`box` within the clip; None when nothing of it is left."""
    box = meet(box, clip)
    return box if box[0] < box[2] and box[1] < box[3] else None


def _union(boxes):
    boxes = list(boxes)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _limit(holder):
    """The box a form or tiling pattern cannot draw outside of, in its own space."""
    return tuple(float(v) for v in holder.BBox)


def _normal_blend(bm) -> bool:
    if isinstance(bm, pikepdf.Array):
        return len(bm) > 0 and bm[0] in NORMAL_BLEND
    return bm in NORMAL_BLEND


def _gs_transparent(gs) -> bool:
    return float(gs.get("/ca", 1)) < 1 or float(gs.get("/CA", 1)) < 1 or \
        ("/SMask" in gs and gs.SMask != Name("/None")) or ("/BM" in gs and not _normal_blend(gs.BM))


def _group_blends(xobj) -> bool:
    """A form whose own group is knocked out or has a soft mask: treated as transparent."""
    group = xobj.get("/Group")
    return group is not None and bool(group.get("/K", False))
