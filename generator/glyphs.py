"""Check that every character a face draws exists in the font CairoSVG will use.

In: a parsed CairoSVG tree and the shipped `FontSet`. Out: messages naming each missing
character and the font, because cairo has no per-glyph fallback and would otherwise
print an empty box without a word.
"""
from __future__ import annotations

import unicodedata

from .fonts import FontSet


DRAWN_TEXT = ("text", "tspan", "textPath")


def _requested(node) -> tuple[str, bool, bool]:
    """The family, bold and italic that CairoSVG's text drawer will ask cairo for."""
    family = (node.get("font-family") or "sans-serif").split(",")[0].strip("\"' ")
    weight = node.get("font-weight") or "normal"
    bold = weight == "bold" or (weight.isdigit() and int(weight) >= 550)
    italic = node.get("font-style") in ("italic", "oblique")
    return family, bold, italic


def check_glyphs(tree, fonts: FontSet) -> list[str]:
    """Messages for unknown fonts and missing characters in every text node of `tree`."""
    messages: list[str] = []
    seen = set()

    def walk(node):
        text = getattr(node, "text", None)
        if text and text.strip() and node.tag in DRAWN_TEXT:
            family, bold, italic = _requested(node)
            try:
                face = fonts.face(family, bold, italic)
            except KeyError as exc:
                msg = str(exc).strip('"')
                if msg not in seen:
                    seen.add(msg)
                    messages.append(msg)
            else:
                for ch in face.missing(text):
                    msg = (f"character {ch!r} (U+{ord(ch):04X} {unicodedata.name(ch, '?')}) "
                           f"is not in font {face.postscript_name}")
                    if msg not in seen:
                        seen.add(msg)
                        messages.append(msg)
        for child in node.children:
            walk(child)

    walk(tree)
    return messages
