"""Check that every character a face draws exists in the font CairoSVG will use.

In: a parsed CairoSVG tree and the shipped `FontSet`. Out: messages naming each missing
character and the font, because cairo has no per-glyph fallback and would otherwise
print an empty box without a word.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

from .fonts import FontSet

DRAWN_TEXT = ("text", "tspan", "textPath")


def _requested(node) -> tuple[str, bool, bool]:
    """The family, bold and italic that CairoSVG's text drawer will ask cairo for."""
    family = (node.get("font-family") or "sans-serif").split(",")[0].strip("\"' ")
    weight = node.get("font-weight") or "normal"
    bold = weight == "bold" or (weight.isdigit() and int(weight) >= 550)
    italic = node.get("font-style") in ("italic", "oblique")
    return family, bold, italic


def missing_message(ch: str, face) -> str:
    return f"character {ch!r} (U+{ord(ch):04X} {unicodedata.name(ch, '?')}) is not in font {face.postscript_name}"


@lru_cache(maxsize=64)
def needs_pango(rtl: bool, text: str) -> bool:
    """Is text reportlab would set (a rulebook) set by Pango instead? When it runs right to
    left, or is written in letters Lato lacks (Japanese, Thai...). A symbol the fonts lack
    stays an error naming it, as it is in any book reportlab sets."""
    from .fonts import shipped

    letters = "".join(ch for ch in set(text) if unicodedata.category(ch).startswith("L"))
    return rtl or bool(shipped().face("Lato").missing(letters))


def printed_text_problems(game) -> list:
    """Characters missing from the fonts that print a game's own words outside its cards:
    titles on the rulebook's title page and sheet labels (EB Garamond and Lato), deck names
    in the component list (Lato italic). An edition's sheets are labelled with the words the
    cards are written in, and its own words go to its rulebook alone, which Pango sets when
    reportlab's fonts cannot (and checks then)."""
    from ..data.editions import direction_of
    from ..data.yamlsrc import line_of
    from ..errors import Problem
    from .fonts import shipped

    fonts = shipped()
    garamond, lato, lato_italic = fonts.face("EB Garamond"), fonts.face("Lato"), fonts.face("Lato", italic=True)
    places = [(game.source.file, line_of(game.meta, (k,)), k, str(game.meta[k]), faces)
              for k, faces in (("title", (garamond, lato)), ("subtitle", (garamond,)),
                               ("players", (lato,)), ("playing_time", (lato,)), ("ages", (lato,)))
              if k in game.meta]
    if game.edition:
        if needs_pango(direction_of(game.language) == "rtl", "".join(str(text) for *_, text, _ in places)):
            return []
        places = [(f"cards/{game.id}/i18n/{game.edition}.yaml", None, f"game.{field}", text, faces)
                  for _, _, field, text, faces in places]
    else:
        places += [(d.source.file, line_of(d.raw, ("name",)), "name", d.name, (lato_italic,)) for d in game.decks]
    problems: list[Problem] = []
    for file, line, field, text, faces in places:
        for face in faces:
            problems.extend(Problem(file, missing_message(ch, face), line=line, field=field)
                            for ch in face.missing(text))
    return problems


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
                    msg = missing_message(ch, face)
                    if any(not f.missing(ch) for f in fonts.faces):   # a text box would find it
                        msg += " (an SVG <text> uses its one font: set this text with textbox(), which " \
                               "falls back through the fonts pnp ships)"
                    if msg not in seen:
                        seen.add(msg)
                        messages.append(msg)
        for child in node.children:
            walk(child)

    walk(tree)
    return messages
