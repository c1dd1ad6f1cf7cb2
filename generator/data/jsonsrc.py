"""JSON files read into the same line-remembering dicts and lists as YAML files.

In: a JSON file (a deck's `cards: {from: cards.json}`). Out: its data as `yamlsrc.LineDict`
and `LineList` (each mapping and list knows its line and the line of each key or item), so
a problem with a card read from JSON names the line to edit, as one read from YAML does.
The file is parsed by Python's own JSON decoder with its pure-Python scanner, whose object
and array steps are wrapped to note where each value starts. Duplicate keys, `NaN` and
`Infinity` are errors (JSON has none of them), as is a file over `MAX_FILE_BYTES`.
"""
from __future__ import annotations

import bisect
import json
import json.decoder
import json.scanner
from pathlib import Path
from typing import Any

from ..errors import InputError, Problem
from ..guard import data_bounds, shorten
from .yamlsrc import LineDict, LineList, read_source


class _Duplicate(ValueError):
    """A key given twice in one object, at `line`."""

    def __init__(self, key: str, line: int):
        super().__init__(f"duplicate key {shorten(repr(key))}")
        self.line = line


class _Decoder(json.JSONDecoder):
    """A decoder whose objects and arrays are LineDicts and LineLists (see the docstring)."""

    def __init__(self, text: str):
        super().__init__(parse_constant=self._constant)
        self.breaks = [i for i, c in enumerate(text) if c == "\n"]
        self.parse_object = self._object
        self.parse_array = self._array
        self.scan_once = json.scanner.py_make_scanner(self)  # type: ignore[attr-defined]

    def line(self, index: int) -> int:
        return bisect.bisect_left(self.breaks, index) + 1

    @staticmethod
    def _constant(name: str):
        raise ValueError(f"{name} is not a JSON value")

    def _noting(self, scan_once, starts: list):
        def scan(string, idx):
            starts.append(idx)
            return scan_once(string, idx)
        return scan

    def _object(self, s_and_end, strict, scan_once, _object_hook, _pairs_hook, memo=None):
        """json's JSONObject, called as py_make_scanner calls it (its hooks are this decoder's own)."""
        starts: list[int] = []
        pairs, end = json.decoder.JSONObject(s_and_end, strict, self._noting(scan_once, starts), None,
                                             list, memo)
        result = LineDict()
        result.line, result.lines = self.line(s_and_end[1] - 1), {}
        for (key, value), start in zip(pairs, starts):
            if key in result:
                raise _Duplicate(key, self.line(start))
            result[key] = value
            result.lines[key] = self.line(start)
        return result, end

    def _array(self, s_and_end, scan_once):
        starts: list[int] = []
        values, end = json.decoder.JSONArray(s_and_end, self._noting(scan_once, starts))
        result = LineList(values)
        result.line = self.line(s_and_end[1] - 1)
        result.lines = [self.line(i) for i in starts[:len(values)]]
        return result, end


def read_json(path: Path, shown_as: str) -> Any:
    """Parse one JSON file; a syntax error becomes an InputError naming file and line."""
    return parse_json(read_source(path, shown_as, encoding="utf-8-sig"), shown_as)


def parse_json(text: str, shown_as: str) -> Any:
    """`read_json` of text already read."""
    decoder = _Decoder(text)
    try:
        data = decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise InputError("1 problem in JSON syntax", [Problem(shown_as, f"JSON syntax error: {exc.msg}",
                                                               line=exc.lineno)]) from None
    except RecursionError:
        raise InputError("1 problem in JSON", [Problem(
            shown_as, "lists and mappings are nested too deeply to read")]) from None
    except ValueError as exc:  # a duplicate key, NaN, a number of too many digits
        raise InputError("1 problem in JSON", [Problem(shown_as, shorten(str(exc), 200),
                                                       line=getattr(exc, "line", None))]) from None
    too_big = data_bounds(data)
    if too_big:
        raise InputError("1 problem in JSON", [Problem(shown_as, too_big)])
    return data
