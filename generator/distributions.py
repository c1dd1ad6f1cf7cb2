"""The versions of the libraries installed beside pnp, read from the names of their metadata
folders (pip writes `pikepdf-10.17.0.dist-info`): one listing of each site-packages folder.

In: Python's path. Out: `installed()`, every distribution there as `name-version` folder
names (the one-shot memo's code version, diskmemo.code_digest), and `version(name)`, what a
draw key or a memo key takes of a library. importlib.metadata gives the same versions but
imports email, zipfile and csv and reads each METADATA file: 45-60 ms in every build
process, for a handful of strings. A distribution whose folder does not name its version
(an egg-info of a source checkout) is asked of importlib.metadata.
"""
from __future__ import annotations

import os
import re
import sys
from functools import lru_cache

SITE_FOLDERS = ("site-packages", "dist-packages")
METADATA = (".dist-info", ".egg-info")


@lru_cache(maxsize=1)
def installed() -> tuple[str, ...]:
    """The metadata folders in Python's site-packages folders, sorted: any library installed,
    upgraded or removed changes them."""
    names: set[str] = set()
    for folder in sys.path:
        if not folder.endswith(SITE_FOLDERS):
            continue
        try:
            names.update(e for e in os.listdir(folder) if e.endswith(METADATA))
        except OSError:
            continue
    return tuple(sorted(names))


def version(name: str) -> str:
    """The installed version of the distribution `name` (as importlib.metadata.version gives it)."""
    wanted = _normal(name)
    for entry in installed():
        if entry.endswith(".dist-info"):
            stem, _, found = entry[:-len(".dist-info")].rpartition("-")
            if stem and _normal(stem) == wanted:
                return found
    from importlib import metadata  # not named by a folder: read from its metadata

    return metadata.version(name)


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()
