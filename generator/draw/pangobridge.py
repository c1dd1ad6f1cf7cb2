"""The one bridge to Pango below the Python wrappers of pangocffi and pangocairocffi: every
raw C declaration, struct layout and library pnp needs beyond them is here, and
tests/test_pangobridge.py fails loudly when an upgrade of Pango or the bindings breaks one.

In: font files, the names of generic families, PangoLayouts made by `pangotext`. Out:
`FontMap`, a Pango font map bound to a *private* fontconfig configuration that sees only
the given files (nothing of the machine's fonts, no environment variable, no cache on
disk), with the one PangoContext that both measures and draws (no hinting, glyph positions
not rounded, 72 dpi so sizes are in the SVG's own units); and readers of what a layout
decided: its lines, runs, glyphs and clusters, the font file of each run, where a line may
break, and the characters no font had. `show_layout` and `show_clusters` draw on a
cairocffi context (the one CairoSVG draws a face with).

What the bindings (pangocffi 0.14, pangocairocffi 0.7) lack or declare unusably, and is
declared here (`EXTRA_CDEF`):
- fontconfig and pangoft2 (a private FcConfig for a font map; which file a run uses);
- `cairo_font_type_t` is `void` in pangocairocffi, so `pango_cairo_font_map_new_for_font_type`
  cannot be called: `pango_cairo_font_map_new()` is checked to be the fontconfig one instead;
- `PangoItem.analysis` is declared a pointer though it is a struct held by value, and
  `PangoGlyphString`, `PangoLogAttr` (bit fields) and `PangoLayoutLine` are opaque: their
  real layouts (Pango >= 1.44, unchanged since) are mirrored as `Pnp*` structs.
"""
from __future__ import annotations

import ctypes.util
import struct

import cairocffi
import pangocairocffi
import pangocffi

from generator import bindings
from generator.distributions import version

TESTED = {"pangocffi": ("0.14.1",), "pangocairocffi": ("0.7.1",)}  # the bindings this bridge was checked with
PANGO_AT_LEAST = (1, 50)   # line-height attributes (1.50); font features (1.38); the mirrored structs (1.44)
SCALE = 1024               # PANGO_SCALE: Pango units per unit
GLYPH_EMPTY = 0x0FFFFFFF
GLYPH_UNKNOWN = 0x10000000
_GLYPH = struct.Struct("=I3iI")   # PnpGlyphInfo: glyph, width, x offset, y offset, attributes

EXTRA_CDEF = r"""
typedef struct _FcConfig FcConfig;
typedef struct _FcPattern FcPattern;
typedef int FcBool;
typedef unsigned char FcChar8;
FcConfig *FcConfigCreate (void);
void FcConfigDestroy (FcConfig *config);
FcBool FcConfigParseAndLoadFromMemory (FcConfig *config, const FcChar8 *buffer, FcBool complain);
FcBool FcConfigAppFontAddFile (FcConfig *config, const FcChar8 *file);
FcBool FcConfigBuildFonts (FcConfig *config);
int FcPatternGetString (const FcPattern *p, const char *object, int n, FcChar8 **s);
const char *g_type_name_from_instance (void *instance);
void *g_object_ref (void *object);
FcPattern *pango_fc_font_get_pattern (void *font);
void pango_fc_font_map_set_config (void *fcfontmap, FcConfig *fcconfig);

typedef struct {
  void *shape_engine; void *lang_engine; PangoFont *font;
  uint8_t level; uint8_t gravity; uint8_t flags; uint8_t script;
  void *language; void *extra_attrs;
} PnpAnalysis;
typedef struct { int offset; int length; int num_chars; PnpAnalysis analysis; } PnpItem;
typedef struct { int32_t width; int32_t x_offset; int32_t y_offset; } PnpGlyphGeometry;
typedef struct { uint32_t glyph; PnpGlyphGeometry geometry; uint32_t attr; } PnpGlyphInfo;
typedef struct { int num_glyphs; PnpGlyphInfo *glyphs; int *log_clusters; int space; } PnpGlyphString;
typedef struct {
  unsigned int is_line_break : 1; unsigned int is_mandatory_break : 1;
  unsigned int is_char_break : 1; unsigned int is_white : 1;
  unsigned int is_cursor_position : 1; unsigned int is_word_start : 1;
  unsigned int is_word_end : 1; unsigned int is_sentence_boundary : 1;
  unsigned int is_sentence_start : 1; unsigned int is_sentence_end : 1;
  unsigned int backspace_deletes_character : 1; unsigned int is_expandable_space : 1;
  unsigned int is_word_boundary : 1; unsigned int break_inserts_hyphen : 1;
  unsigned int break_removes_preceding : 1; unsigned int reserved : 17;
} PnpLogAttr;
typedef struct {
  void *layout; int start_index; int length; void *runs;
  unsigned int is_paragraph_start : 1; unsigned int resolved_dir : 3;
} PnpLayoutLine;
"""

if bindings.written("pango"):   # one FFI: the bindings' declarations and EXTRA_CDEF, written out once
    ffi = pangocairocffi.ffi
else:
    from cffi import FFI

    ffi = FFI()
    ffi.include(pangocairocffi.ffi)
    ffi.cdef(EXTRA_CDEF)
pango = pangocffi.pango
pangocairo = pangocairocffi.pangocairo
gobject = pangocffi.gobject


def _open(*names: str):
    """The first of `names` (sonames, then a library name for find_library) that loads."""
    for name in names:
        try:
            return ffi.dlopen(name)
        except OSError:
            found = ctypes.util.find_library(name)
            if found:
                return ffi.dlopen(found)
    raise OSError(f"cannot load {names[0]}: install Debian's libpango-1.0-0, libpangocairo-1.0-0 and "
                  "libpangoft2-1.0-0 (make does)")


fc = _open("libfontconfig.so.1", "fontconfig")
pangoft2 = _open("libpangoft2-1.0.so.0", "pangoft2-1.0")
gobj = _open("libgobject-2.0.so.0", "gobject-2.0")


def versions() -> dict[str, str]:
    """Pango's and the bindings' versions (part of every face's draw key)."""
    return {"pango": ffi.string(pango.pango_version_string()).decode(),
            "pangocffi": version("pangocffi"), "pangocairocffi": version("pangocairocffi")}


def fontconfig_xml(rules: str) -> str:
    """A configuration with no <dir> and no <include>: fonts are added file by file; `rules`:
    its aliases and scan rules (draw/fonts.fontconfig_rules)."""
    body = rules
    return ('<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">'
            f"<fontconfig>{body}</fontconfig>")


def text_font_options() -> cairocffi.FontOptions:
    """The font options CairoSVG draws text with (text-rendering="geometricPrecision"), which
    every other text pnp draws asks for too: Pango's, the primer page's and the fonts'
    warm-up (draw/drawpool.py). cairo resolves a font once per set of options: warmed up
    with its defaults, a family was resolved again for the faces, whose PDFs stored it twice."""
    options = cairocffi.FontOptions()
    options.set_antialias(cairocffi.ANTIALIAS_BEST)
    options.set_hint_style(cairocffi.HINT_STYLE_NONE)
    options.set_hint_metrics(cairocffi.HINT_METRICS_OFF)
    return options


class FontMap:
    """A Pango font map that resolves only `files` (its own FcConfig) and the PangoContext
    that lays out and draws with it."""

    def __init__(self, files, rules: str):
        have = tuple(int(v) for v in ffi.string(pango.pango_version_string()).decode().split(".")[:2])
        if have < PANGO_AT_LEAST:
            raise OSError(f"Pango {'.'.join(map(str, have))} is too old: pnp needs Pango "
                          f"{'.'.join(map(str, PANGO_AT_LEAST))} or later")
        self.config = ffi.gc(fc.FcConfigCreate(), fc.FcConfigDestroy)
        if not fc.FcConfigParseAndLoadFromMemory(self.config, fontconfig_xml(rules).encode(), 1):
            raise OSError("fontconfig refused pnp's generated configuration")
        for path in files:
            if not fc.FcConfigAppFontAddFile(self.config, str(path).encode()):
                raise OSError(f"fontconfig cannot read the font {path}")
        fc.FcConfigBuildFonts(self.config)
        self.pointer = ffi.gc(pangocairo.pango_cairo_font_map_new(), gobject.g_object_unref)
        kind = ffi.string(gobj.g_type_name_from_instance(self.pointer))
        if kind != b"PangoCairoFcFontMap":
            raise OSError(f"Pango's cairo font map is a {kind.decode()}, not the fontconfig one pnp needs")
        pangoft2.pango_fc_font_map_set_config(self.pointer, self.config)  # the map takes its own reference
        pangocairo.pango_cairo_font_map_set_resolution(ffi.cast("PangoCairoFontMap *", self.pointer), 72.0)
        self.context = ffi.gc(pango.pango_font_map_create_context(ffi.cast("PangoFontMap *", self.pointer)),
                              gobject.g_object_unref)
        options = text_font_options()
        pangocairo.pango_cairo_context_set_font_options(self.context, options._pointer)  # copied by Pango
        pango.pango_context_set_round_glyph_positions(self.context, False)

    def layout(self):
        """A new, empty PangoLayout on this map's context (freed with its Python object)."""
        return ffi.gc(pango.pango_layout_new(self.context), gobject.g_object_unref)

    def load_font(self, description: str):
        """The PangoFont this map gives for a description such as 'Lato Bold 10'."""
        desc = pango.pango_font_description_from_string(description.encode())
        try:
            return pango.pango_font_map_load_font(ffi.cast("PangoFontMap *", self.pointer), self.context, desc)
        finally:
            pango.pango_font_description_free(desc)


def runs(layout) -> list:
    """The runs (PangoLayoutRun *) of a layout, line by line in logical order."""
    it = pango.pango_layout_get_iter(layout)
    out = []
    try:
        while True:
            run = pango.pango_layout_iter_get_run_readonly(it)
            if run != ffi.NULL:
                out.append(run)
            if not pango.pango_layout_iter_next_run(it):
                return out
    finally:
        pango.pango_layout_iter_free(it)


def run_font(run):
    """The PangoFont a run is drawn with (after fallback)."""
    return ffi.cast("PnpItem *", run.item).analysis.font


def run_level(run) -> int:
    """The run's bidi embedding level: odd is right to left."""
    return ffi.cast("PnpItem *", run.item).analysis.level


def describe(font) -> str:
    """'Family Style Size' of a PangoFont, which `FontMap.load_font` takes back."""
    desc = pango.pango_font_describe(font)
    try:
        return ffi.string(pango.pango_font_description_to_string(desc)).decode()
    finally:
        pango.pango_font_description_free(desc)


def font_file(font) -> str:
    """The file a PangoFont comes from (its fontconfig pattern's FC_FILE)."""
    out = ffi.new("FcChar8 **")
    if fc.FcPatternGetString(pangoft2.pango_fc_font_get_pattern(font), b"file", 0, out) != 0:
        return ""
    return ffi.string(out[0]).decode()


def glyphs(run) -> list[tuple[int, int, int, int]]:
    """(glyph, advance, x offset, y offset) of a run, in Pango units."""
    gs = ffi.cast("PnpGlyphString *", run.glyphs)
    return [(g.glyph, g.geometry.width, g.geometry.x_offset, g.geometry.y_offset)
            for g in (gs.glyphs[i] for i in range(gs.num_glyphs))]


def clusters(layout, text: bytes) -> list[tuple[str, bytes, tuple]]:
    """Every glyph cluster a layout draws: (font description, its text, its glyphs). Empty
    glyphs (spaces Pango does not draw) are left out."""
    out = []
    for run in runs(layout):
        item = ffi.cast("PnpItem *", run.item)
        gs = ffi.cast("PnpGlyphString *", run.glyphs)
        n = gs.num_glyphs
        font = describe(item.analysis.font)
        ids = [g[0] for g in _GLYPH.iter_unpack(ffi.buffer(gs.glyphs, n * _GLYPH.size))]
        at = ffi.unpack(gs.log_clusters, n)
        groups: dict[int, list] = {}
        for glyph, start in zip(ids, at):
            if glyph != GLYPH_EMPTY and not glyph & GLYPH_UNKNOWN:
                groups.setdefault(start, []).append(glyph)
        starts = sorted(set(at)) + [item.length]
        for k, start in enumerate(starts[:-1]):
            if start in groups:
                out.append((font, text[item.offset + start:item.offset + starts[k + 1]], tuple(groups[start])))
    return out


def unknown_characters(layout) -> list[str]:
    """Characters that no font of the map has (Pango would draw them as boxes)."""
    return [chr(g & ~GLYPH_UNKNOWN) for run in runs(layout) for g, *_ in glyphs(run)
            if g & GLYPH_UNKNOWN and g != GLYPH_EMPTY]


def line_breaks(layout) -> list[bool]:
    """For each character of the layout's text, whether a line may break before it."""
    n = ffi.new("int *")
    attrs = ffi.cast("PnpLogAttr *", pango.pango_layout_get_log_attrs_readonly(layout, n))
    return [bool(attrs[i].is_line_break) for i in range(n[0])]


def lines(layout) -> list[tuple[int, int, int]]:
    """(start byte, logical x, logical width) of each line, in Pango units."""
    return [(start, x, width) for start, x, width, *_ in line_boxes(layout)]


def text_attributes(layout, line_height: int, lang: str):
    """The layout's attribute list (made when it has none), with a line height (Pango units)
    and a language for its whole text: what every pnp layout sets."""
    attrs = pango.pango_layout_get_attributes(layout)
    if attrs == ffi.NULL:
        attrs = pango.pango_attr_list_new()
        pango.pango_layout_set_attributes(layout, attrs)
        pango.pango_attr_list_unref(attrs)
        attrs = pango.pango_layout_get_attributes(layout)
    for attr in (pango.pango_attr_line_height_new_absolute(line_height),
                 pango.pango_attr_language_new(pango.pango_language_from_string(lang.encode()))):
        pango.pango_attr_list_insert_before(attrs, attr)   # the whole text
    return attrs


def line_boxes(layout) -> list[tuple[int, int, int, int, int, int]]:
    """(start byte, logical x, logical width, top, baseline, bottom) of each line, from the
    layout's top-left corner, in Pango units."""
    it = pango.pango_layout_get_iter(layout)
    ink, logical = ffi.new("PangoRectangle *"), ffi.new("PangoRectangle *")
    y0, y1 = ffi.new("int *"), ffi.new("int *")
    out = []
    try:
        while True:
            line = ffi.cast("PnpLayoutLine *", pango.pango_layout_iter_get_line_readonly(it))
            pango.pango_layout_iter_get_line_extents(it, ink, logical)
            pango.pango_layout_iter_get_line_yrange(it, y0, y1)
            out.append((line.start_index, logical.x, logical.width, y0[0],
                        pango.pango_layout_iter_get_baseline(it), y1[0]))
            if not pango.pango_layout_iter_next_line(it):
                return out
    finally:
        pango.pango_layout_iter_free(it)


def show_line(ctx: cairocffi.Context, layout, index: int) -> None:
    """Draw line `index` of a layout, the start of its baseline at the current point of `ctx`."""
    pangocairo.pango_cairo_show_layout_line(cairo_t(ctx), pango.pango_layout_get_line_readonly(layout, index))


def baselines(layout) -> list[int]:
    """The baseline of each line, from the layout's top, in Pango units."""
    it = pango.pango_layout_get_iter(layout)
    out = []
    try:
        while True:
            out.append(pango.pango_layout_iter_get_baseline(it))
            if not pango.pango_layout_iter_next_line(it):
                return out
    finally:
        pango.pango_layout_iter_free(it)


def height(layout) -> int:
    """The layout's logical height, in Pango units."""
    ink, logical = ffi.new("PangoRectangle *"), ffi.new("PangoRectangle *")
    pango.pango_layout_get_extents(layout, ink, logical)
    return logical.height


def position(layout, index: int) -> tuple[int, int]:
    """(left x, baseline y) of the character at byte `index`, in Pango units."""
    rect = ffi.new("PangoRectangle *")
    pango.pango_layout_index_to_pos(layout, index, rect)
    it = pango.pango_layout_get_iter(layout)
    try:
        while pango.pango_layout_iter_get_index(it) < index and pango.pango_layout_iter_next_char(it):
            pass
        baseline = pango.pango_layout_iter_get_baseline(it)
    finally:
        pango.pango_layout_iter_free(it)
    return min(rect.x, rect.x + rect.width), baseline


def shape(start: int, end: int, width: float, above: float, below: float):
    """A shape attribute reserving `width` x (`above` + `below`) around the baseline (Pango
    units) for the bytes start:end: the room of an inline icon."""
    rect = ffi.new("PangoRectangle *", {"x": 0, "y": -round(above), "width": round(width),
                                        "height": round(above + below)})
    attr = pango.pango_attr_shape_new(rect, rect)
    attr.start_index, attr.end_index = start, end
    return attr


def cairo_t(ctx: cairocffi.Context):
    """The cairo_t * behind a cairocffi context."""
    return ffi.cast("cairo_t *", ctx._pointer)


def show_layout(ctx: cairocffi.Context, layout) -> None:
    """Draw a layout with its top-left corner at the current point of `ctx`."""
    pangocairo.pango_cairo_show_layout(cairo_t(ctx), layout)


def show_clusters(ctx: cairocffi.Context, font, found: list[tuple[bytes, tuple]], advance: float) -> None:
    """Draw glyph clusters (text, glyphs) of `font` in one run, each with its own text,
    `advance` units apart from the current point: what the faces draw of that font, as cairo
    will meet it there (the primer page of a bundle). One run, because cairo leaves out a
    call that inks nothing (a space drawn alone)."""
    text = b"".join(t for t, _ in found)
    item = pango.pango_item_new()
    glyph_string = pango.pango_glyph_string_new()
    run = ffi.new("PangoGlyphItem *")
    try:
        pnp_item = ffi.cast("PnpItem *", item)
        pnp_item.analysis.font = ffi.cast("PangoFont *", gobj.g_object_ref(font))  # freed with the item
        pnp_item.offset, pnp_item.length, pnp_item.num_chars = 0, len(text), len(text.decode())
        run.item, run.glyphs = item, glyph_string
        pango.pango_glyph_string_set_size(glyph_string, sum(len(g) for _, g in found))
        gs = ffi.cast("PnpGlyphString *", glyph_string)
        i = at = 0
        for cluster, glyph_ids in found:
            for k, glyph in enumerate(glyph_ids):
                gs.glyphs[i].glyph = glyph
                gs.glyphs[i].geometry.width = round(advance * SCALE)
                gs.glyphs[i].geometry.x_offset = gs.glyphs[i].geometry.y_offset = 0
                gs.glyphs[i].attr = 1 if k == 0 else 0   # is_cluster_start
                gs.log_clusters[i] = at
                i += 1
            at += len(cluster)
        pangocairo.pango_cairo_show_glyph_item(cairo_t(ctx), text, run)
    finally:
        pango.pango_glyph_string_free(glyph_string)
        pango.pango_item_free(item)


def xs(layout, indices: list[int]) -> dict[int, int]:
    """The x of the character at each byte index (its leading edge), in Pango units."""
    rect = ffi.new("PangoRectangle *")
    out = {}
    for index in indices:
        pango.pango_layout_index_to_pos(layout, index, rect)
        out[index] = rect.x
    return out
