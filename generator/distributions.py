"""The versions of the libraries installed beside pnp, read from the names of their metadata
folders (pip writes `pikepdf-10.17.0.dist-info`): one listing of each folder on Python's path.

In: Python's path. Out: `version(name)`, what a draw key or a memo key takes of a library,
and `installed()`, every distribution found that way (the one-shot memo's code version,
diskmemo.code_digest). importlib.metadata gives the same versions but imports email,
zipfile and csv and reads each METADATA file: 45-60 ms in every build process, for a
handful of strings. As with it, the first entry of the path that holds a distribution
wins (the copy Python imports). A name this listing cannot settle is asked of
importlib.metadata: an entry of the path that is not a folder (a zip), an egg, an
egg-info (its folder names no version), or two versions side by side in one folder.
"""
from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

SUFFIX = ".dist-info"
UNSETTLED = ""   # a version this listing cannot tell: importlib.metadata is asked


def version(name: str) -> str:
    """The installed version of the distribution `name`, as importlib.metadata.version gives it."""
    wanted = _normal(name)
    for folder in sys.path:
        listed = _listed(folder or ".")
        if listed is None:
            break   # a zip or an egg on the path: importlib.metadata reads inside it
        found = listed.get(wanted)
        if found is not None:
            if found != UNSETTLED:
                return found
            break
    from importlib import metadata  # not settled by the folders' names: read from its metadata

    return metadata.version(name)


def installed() -> tuple[str, ...]:
    """Every distribution on the path as `name version` (the first entry holding it), the
    version UNSETTLED where the folders' names do not tell it, in name order."""
    seen: dict[str, str] = {}
    for folder in sys.path:
        for name, number in (_listed(folder or ".") or {}).items():
            seen.setdefault(name, number)
    return tuple(f"{name} {number}" for name, number in sorted(seen.items()))


@lru_cache(maxsize=64)
def _listed(folder: str) -> Mapping[str, str] | None:
    """{normalised name: version} of the distributions in `folder` (UNSETTLED where its
    folders do not name one version); None for an entry of the path that is not a folder
    of them (a zip, an egg); empty when it cannot be listed."""
    if folder.endswith(".egg") or os.path.isfile(folder):
        return None
    try:
        entries = os.listdir(folder)
    except OSError:
        return MappingProxyType({})
    found: dict[str, str] = {}
    for entry in sorted(entries):
        if entry.endswith(SUFFIX) and "-" in entry:
            stem, _, number = entry[:-len(SUFFIX)].partition("-")   # as importlib.metadata splits it
            name = _normal(stem)
            found[name] = number if name not in found else UNSETTLED
        elif entry.endswith((".egg-info", ".egg")):
            found[_normal(entry.partition("-")[0].partition(".")[0])] = UNSETTLED
    return MappingProxyType(found)


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()
