"""pnp: print-and-play components from YAML data and Jinja SVG templates.

Stages, in the order data flows through them:
load (YAML + schema) -> validate (rules) -> render (Jinja -> SVG -> CairoSVG)
-> layout (sheets, rulebook) -> export (the only stage that writes files).
"""

__version__ = "0.1.0"

from generator import bindings  # before anything imports cairo or Pango

bindings.install()
