"""Draw: every face of a game, from Jinja templates to vector PDF pages.

In: a loaded `Game`. Out: a `render.RenderedGame`: each card's face keys and the bundle
PDFs whose pages are the faces. `render` runs the (sandboxed) templates and fits text
(`textfit`: text boxes set by Pango through `pangotext` and `pangobridge`, the one module
below the Pango bindings; `markup`, `fonts`, `glyphs`); `faces` draws the SVGs with
CairoSVG in bundles (`bundles`, `drawpool`, `bundlepdf`; `svgbridge` is the one module
touching CairoSVG's internals, and draws text boxes with Pango inside the face), keyed by
`drawkey` and kept in `facecache`.
"""
