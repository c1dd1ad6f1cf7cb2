"""References a face's SVG makes to other files or the network, which CairoSVG never
follows (pnp fetches nothing outside the SVG).

In: a face's SVG text (and the memo of a remembering session). Out: a warning message for
each kind of reference found, for `render.py` to pin on the card.
"""
from __future__ import annotations

import re

HREF = r"<(?!image\b)(\w++)[^>]*?\s(?:xlink:)?href\s*=\s*['\"](?![#'\"]|data:)([^'\"]{0,60})"
_EXTERNAL = [
    (re.compile(r"<!DOCTYPE[^>]*\b(SYSTEM|PUBLIC)\b", re.I), "an external DTD (<!DOCTYPE ... SYSTEM>)"),
    (re.compile(r"<\?xml-stylesheet\b", re.I), "an <?xml-stylesheet?> link"),
    (re.compile(r"@import\b", re.I), "a CSS @import"),
    (re.compile(r"url\(\s*+['\"]?+(?!#|data:)([^)'\"]{0,60})", re.I), "url({0})"),
    # the tag's name taken whole (possessive: a tag without an href is not tried again with a
    # shorter name, once a letter fewer each time; the same matches, about 4x less CPU a face)
    (re.compile(HREF), "<{0} href=\"{1}\">"),
]


def remembered(svgs, key: str, memo) -> tuple[str, ...]:
    """`external_references` of a face (remembered by its key while `pnp watch` rebuilds)."""
    return memo.derived(("external references", key), lambda: tuple(external_references(svgs[key])))


def external_references(svg: str) -> list[str]:
    """Warnings for references to other files or the network in a face's SVG: CairoSVG never
    follows them (pnp reads nothing from the network), so what they point at is missing."""
    low = svg.lower()
    if not any(hint in low for hint in ("href", "url(", "@import", "<?xml-stylesheet", "<!doctype")):
        return []  # the usual face: none of the patterns can match
    found = []
    for pattern, what in _EXTERNAL:
        for m in pattern.finditer(svg):
            shown = what.format(*(g for g in m.groups() if g is not None)) if "{" in what else what
            message = f"{shown} is not followed (pnp fetches nothing outside the SVG); what it refers to is missing"
            if message not in found:
                found.append(message)
    return found
