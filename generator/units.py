"""Lengths as designers write them ("63mm", "2.5in", "9pt", 63) turned into millimetres.

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
}

CARD_SIZES = {  # trim width x height, mm
    "poker": (63.0, 88.0),
    "bridge": (57.0, 89.0),
    "tarot": (70.0, 120.0),
    "mini": (44.0, 63.0),
    "square": (70.0, 70.0),
}

_LENGTH = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(mm|cm|in|pt)?\s*$")

LENGTH_PATTERN = r"^\s*-?\d+(\.\d+)?\s*(mm|cm|in|pt)?\s*$"


def to_mm(value: float | int | str) -> float:
    """Parse a length; a bare number means millimetres.

    :raises ValueError: with a message fit for the designer.
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a length")
    if isinstance(value, (int, float)):
        return float(value)
    m = _LENGTH.match(str(value))
    if not m:
        raise ValueError(f"{value!r} is not a length (write e.g. 63mm, 2.5in, 9pt)")
    return float(m.group(1)) * MM_PER[m.group(2) or "mm"]


def pt(mm: float) -> float:
    """Millimetres to PDF points."""
    return mm * PT_PER_MM
