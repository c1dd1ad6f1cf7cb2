"""Lengths as designers write them ("63mm", "2.5in", "9pt", "300px" at a dpi, 63) turned into
millimetres, or into a template's own units (`template_length`: millimetres, or pixels in a
deck of `units: px`).

The one place that knows units; every other module works in millimetres and converts to
points only when talking to a PDF library.
"""
from __future__ import annotations

import re

MM_PER = {"mm": 1.0, "cm": 10.0, "in": 25.4, "pt": 25.4 / 72}
PT_PER_MM = 72 / 25.4

PAPERS = {  # portrait width x height, mm
    "a4": (210.0, 297.0),
    "letter": (215.9, 279.4),
    "a3": (297.0, 420.0),
    "a5": (148.0, 210.0),
    "legal": (215.9, 355.6),
    "tabloid": (279.4, 431.8),
}
_CUSTOM_PAPER = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*x\s*(\d+(?:\.\d+)?)\s*(mm|cm|in)?\s*$", re.IGNORECASE)

CARD_SIZES = {  # trim width x height, mm
    "poker": (63.0, 88.0),
    "bridge": (57.0, 89.0),
    "tarot": (70.0, 120.0),
    "mini": (44.0, 63.0),
    "square": (70.0, 70.0),
}

_LENGTH = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(mm|cm|in|pt|px)?\s*$")


def to_mm(value: float | int | str, dpi: float | None = None) -> float:
    """Parse a length; a bare number means millimetres, "px" pixels at `dpi`.

    :raises ValueError: with a message fit for the designer.
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a length")
    if isinstance(value, (int, float)):
        return float(value)
    m = _LENGTH.match(str(value))
    if not m:
        raise ValueError(f"{value!r} is not a length (write e.g. 63mm, 2.5in, 9pt, or 300px with a dpi:)")
    if m.group(2) == "px":
        if not dpi:
            raise ValueError(f"{value!r}: pixels are a length only at a resolution: give the deck a dpi: (e.g. 300)")
        return float(m.group(1)) * 25.4 / dpi
    return float(m.group(1)) * MM_PER[m.group(2) or "mm"]


def per_mm(units: str = "mm", dpi: float | None = None) -> float:
    """A template's units in a millimetre: 1 (mm), or dpi / 25.4 (px)."""
    return dpi / 25.4 if units == "px" and dpi else 1.0


def template_length(value, units: str = "mm", dpi: float | None = None) -> float:
    """A length in a template's units: a bare number is one already (millimetres, or pixels
    in a deck of `units: px`); "12pt", "1in", "5mm", "300px" (at `dpi`) are converted.

    :raises ValueError: with a message fit for the designer.
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    m = _LENGTH.match(str(value))
    if m and m.group(2) is None:   # "12": a number written as text, in the template's units as 12 is
        return float(m.group(1))
    return to_mm(value, dpi) * per_mm(units, dpi)


def paper_size(name: str) -> tuple[float, float]:
    """Width x height (mm) of a paper: a known name (a4, letter, a3, a5, legal, tabloid) or
    a custom size written WxH with a unit (300x400mm, 11x17in; a bare WxH means mm).

    :raises ValueError: with a message fit for the designer.
    """
    key = str(name).strip().lower()
    if key in PAPERS:
        return PAPERS[key]
    m = _CUSTOM_PAPER.match(key)
    if not m:
        raise ValueError(f"unknown paper {name!r} (papers: {', '.join(PAPERS)}, or WxH like 300x400mm)")
    unit = MM_PER[(m.group(3) or "mm").lower()]
    w, h = float(m.group(1)) * unit, float(m.group(2)) * unit
    if min(w, h) < 50:
        raise ValueError(f"paper {name!r} is smaller than 50 mm on a side")
    return w, h


def paper_name(value) -> str:
    """The name a paper goes by in file names: `a4`, or `300x400mm` for a custom size
    (game.yaml may write it as {width: 30cm, height: 40cm})."""
    if isinstance(value, dict):
        w, h = to_mm(value["width"]), to_mm(value["height"])
        name = f"{w:g}x{h:g}mm"
    else:
        name = str(value).strip().lower()
        if name not in PAPERS:
            w, h = paper_size(name)
            name = f"{w:g}x{h:g}mm"
    paper_size(name)
    return name


def pt(mm: float) -> float:
    """Millimetres to PDF points."""
    return mm * PT_PER_MM
