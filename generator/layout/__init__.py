"""Layout: rendered faces placed on pages: card sheets, boards, token sheets, die nets,
standees, cut files, and the faces under the rulebook's pages.

In: a `draw.render.RenderedGame` (the faces as bundle PDF pages) and a paper. Out: the
sheets PDF as bytes, its page plans and placements (for the manifest and the cut file).
Each kind of component is a small geometry module (`grid`, `packing`, `boards`,
`dicenet`, `standee`) turned into page plans by `pages`; `sheets` writes them.
"""
