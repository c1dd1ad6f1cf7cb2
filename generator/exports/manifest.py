"""A manifest as JSON (indent 1), written in pieces: a deck of thousands of faces never
holds its placements all at once.

In: the manifest of a set of files (a dict whose files' placements may be lazy sequences:
plan.Placements). Out: its JSON text as pieces of bytes, for files.py to write.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from itertools import chain
from json.encoder import encode_basestring as _json_str

LISTED = ("placements", "components")   # a file's lists of a dict per face or card: written one at a time


def manifest_json(manifest: dict):
    """The manifest as JSON (indent 1), in pieces of bytes: each list of placements (a lazy
    one: sheets make them when read) and of components is written one item at a time, so a
    deck of thousands of faces never has them all in memory at once as text (json.dumps'
    indenting encoder held some 10 MB of pieces for a deck of 10,000 cards)."""
    lazy: dict[str, Sequence[dict]] = {}

    def marked(entry: dict) -> dict:
        out = entry
        for field in LISTED:   # a list too is written by _item_json: json.dumps' indenting encoder is slow
            found = entry.get(field)
            if found is None or field != "placements" and not all(isinstance(i, dict) for i in found):
                continue
            token = json.dumps(f"@@placements {len(lazy)}@@")
            lazy[token] = found
            out = {**out, field: f"@@placements {len(lazy) - 1}@@"}
        return out

    text = json.dumps({**manifest, "files": [marked(e) for e in manifest.get("files", [])]},
                      indent=1, ensure_ascii=False) + "\n"
    if not lazy:
        yield text.encode()
        return
    for piece in re.split(r'("@@placements \d+@@")', text):
        if piece not in lazy:
            yield piece.encode()
            continue
        items = iter(lazy[piece])
        first = next(items, None)
        if first is None:
            yield b"[]"
            continue
        inner = "\n" + " " * (len(text[:text.index(piece)].rsplit("\n", 1)[1]) - len('"placements": ') + 1)
        yield b"[" + inner.encode()
        for n, item in enumerate(chain([first], items)):
            yield ((("," + inner) if n else "") + _item_json(item).replace("\n", inner)).encode()
        yield (inner[:-1] + "]").encode()


def _item_json(item: dict) -> str:
    """json.dumps(item, indent=1, ensure_ascii=False), written directly for dicts and lists
    of strings, numbers, booleans and None (a placement, its outline's points): the
    indenting encoder is pure Python, and a deck's manifest holds thousands of placements."""
    parts: list[str] = []
    if not _put(item, "\n", parts):
        return json.dumps(item, indent=1, ensure_ascii=False)
    return "".join(parts)


def _put(value, inner: str, parts: list[str]) -> bool:
    """`value` as json.dumps(indent=1) writes it at the indent of `inner` ("\n" and the
    spaces before its lines), appended to `parts`; False for what it does not write alike
    (a key that is not text, a float that is not finite, a value of another type)."""
    kind = type(value)
    if kind is str:
        parts.append(_json_str(value))
    elif kind is int:
        parts.append(int.__repr__(value))
    elif kind is float:
        if not math.isfinite(value):
            return False
        parts.append(float.__repr__(value))
    elif value is True or value is False or value is None:
        parts.append("true" if value else "false" if value is False else "null")
    elif kind is dict or kind is list:
        if not value:
            parts.append("{}" if kind is dict else "[]")
            return True
        deeper = inner + " "
        parts.append("{" if kind is dict else "[")
        for n, entry in enumerate(value.items() if kind is dict else value):
            parts.append("," + deeper if n else deeper)
            if kind is dict:
                if type(entry[0]) is not str:
                    return False
                parts.append(_json_str(entry[0]) + ": ")
                entry = entry[1]
            if not _put(entry, deeper, parts):
                return False
        parts.append(inner + ("}" if kind is dict else "]"))
    else:
        return False
    return True
