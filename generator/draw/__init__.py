"""Draw: every face of a game, from Jinja templates to vector PDF pages.

In: a loaded `Game`. Out: a `render.RenderedGame`: each card's face keys and the bundle
PDFs whose pages are the faces. `render` runs the (sandboxed) templates and fits text
(`textfit`, `fonts`, `glyphs`); `faces` draws the SVGs with CairoSVG in bundles
(`bundles`, `drawpool`), keyed by `drawkey` and kept in `facecache`.
"""
