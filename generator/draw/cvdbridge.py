"""The one bridge to colorspacious: faces as colour-blind eyes and grey printers see them.

In: sRGB pixels (floats from 0 to 1, any shape ending in 3). Out: the same pixels as each
of `SIMULATIONS` sees them (`simulate`: Machado, Oliveira and Fernandes' 2009 model of
dichromacy at full severity for protanopia, deuteranopia and tritanopia; CIE L* alone for
a grey printer), and distances between colours in CAM02-UCS (`ucs`, `delta_e`: Luo, Cui
and Li's uniform colour space, where 1 is about a just noticeable difference).

colorspacious is pinned (pyproject.toml); `tests/test_colour.py` checks its version is one
this bridge was tested with, and pins the numbers it gives for known colours, so an upgrade
that moves them fails there.
"""
from __future__ import annotations

import colorspacious
import numpy as np

TESTED = ("1.1.2",)
SIMULATIONS = ("protanopia", "deuteranopia", "tritanopia", "greyscale")
_CVD = {"protanopia": "protanomaly", "deuteranopia": "deuteranomaly", "tritanopia": "tritanomaly"}


def version() -> str:
    return colorspacious.__version__


def simulate(rgb: np.ndarray, seen_as: str) -> np.ndarray:
    """`rgb` as `seen_as` (one of SIMULATIONS) sees it, clipped to sRGB."""
    if seen_as == "greyscale":
        lab = colorspacious.cspace_convert(rgb, "sRGB1", "CIELab")
        lab[..., 1:] = 0.0
        return np.clip(colorspacious.cspace_convert(lab, "CIELab", "sRGB1"), 0.0, 1.0)
    space = {"name": "sRGB1+CVD", "cvd_type": _CVD[seen_as], "severity": 100}
    return np.clip(colorspacious.cspace_convert(rgb, space, "sRGB1"), 0.0, 1.0)


def ucs(rgb: np.ndarray) -> np.ndarray:
    """sRGB pixels in CAM02-UCS (J', a', b')."""
    return colorspacious.cspace_convert(rgb, "sRGB1", "CAM02-UCS")


def delta_e(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The distance of colours already in CAM02-UCS (`ucs`), pixel by pixel."""
    return np.sqrt(((a - b) ** 2).sum(axis=-1))
