"""The versions of the libraries installed beside pnp, read from the names of their metadata
folders (pip writes `pikepdf-10.17.0.dist-info`): one listing of each folder on Python's path.

In: Python's path. Out: `version(name)`, what a draw key or a memo key takes of a library
(the one-shot memo's code version, diskmemo.code_digest, too). importlib.metadata gives the
same answer but imports email, zipfile and csv and reads each METADATA file: 45-60 ms in
every build process, for a handful of strings. As it does, the first folder on the path
that holds the distribution wins (the copy Python imports); a folder holding two versions
of it, or one whose folder does not name its version (an egg-info, an egg or a zip on the
path), is asked of importlib.metadata.
"""
from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

SUFFIX = ".dist-info"


def version(name: str) -> str:
    """The installed version of the distribution `name`, as importlib.metadata.version gives it."""
    wanted = _normal(name)
    for folder in sys.path:
        found = _listed(folder or ".").get(wanted)
        if found is None:
            continue
        if len(found) == 1:
            return found[0]
        break   # two versions side by side: which one is the distribution's, metadata says
    from importlib import metadata  # not named by a folder name alone: read from its metadata

    return metadata.version(name)


@lru_cache(maxsize=64)
def _listed(folder: str) -> Mapping[str, tuple[str, ...]]:
    """{normalised name: versions} of the `.dist-info` folders in `folder`; and for each
    other distribution there (an `.egg-info`, an egg), its name with no version, so the
    look-up stops there as importlib.metadata's would."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return MappingProxyType({})
    found: dict[str, list[str]] = {}
    for entry in sorted(entries):
        if entry.endswith(SUFFIX):
            stem, _, number = entry[:-len(SUFFIX)].rpartition("-")
            if stem:
                found.setdefault(_normal(stem), []).append(number)
                continue
        if entry.endswith((SUFFIX, ".egg-info", ".egg")):
            found.setdefault(_normal(entry.rpartition(".")[0].split("-")[0]), []).extend(("", ""))
    return MappingProxyType({name: tuple(numbers) for name, numbers in found.items()})


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()
