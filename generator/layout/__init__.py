"""Layout: rendered faces placed on pages (card sheets, rulebook pages)."""
