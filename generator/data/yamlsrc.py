"""YAML files read into plain dicts and lists that remember their line numbers.

`read_yaml(path)` returns data whose mappings are `LineDict` and sequences `LineList`:
ordinary `dict`/`list` (jsonschema, Jinja and JMESPath see no difference) that also
know the line of themselves and of each key or item, so every later problem can point
at the line the designer has to edit. Duplicate keys are errors, not silent overrides.
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

import yaml

from ..errors import InputError, Problem
from ..guard import MAX_DEPTH, MAX_FILE_BYTES, data_bounds, shorten
from .yamlbridge import streaming_loader

try:
    from yaml import CSafeLoader as _Base
except ImportError:  # PyYAML built without libyaml
    from yaml import SafeLoader as _Base


class LineDict(dict):
    """A mapping that knows its own line and the line of each key."""

    line: int = 0
    lines: dict


class LineList(list):
    """A sequence that knows its own line and the line of each item."""

    line: int = 0
    lines: list


class _Loader(_Base):
    def resolve(self, kind, value, implicit):
        """PyYAML's tag resolution (a few regular expressions per scalar, in Python even
        under the C parser), remembered for short scalars: it depends on nothing else."""
        if kind is not yaml.ScalarNode or len(value) > 40:
            return super().resolve(kind, value, implicit)
        return _scalar_tag(value, implicit)  # a deck repeats its keys and short values

    def construct_mapping(self, node, deep=False):
        own = {id(k) for k, _ in node.value if k.tag != "tag:yaml.org,2002:merge"}
        self.flatten_mapping(node)  # `<<: *shared` merge keys, exactly as PyYAML merges them
        result = LineDict()
        result.line = node.start_mark.line + 1
        result.lines = {}
        seen_own = set()
        for key_node, value_node in node.value:  # merged pairs first, later ones winning, then own keys
            key = self.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    None, None, "a key must be a plain word or number, not a list or mapping",
                    key_node.start_mark) from None
            if id(key_node) in own:
                if key in seen_own:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {shorten(repr(key))}", key_node.start_mark)
                seen_own.add(key)
            result[key] = self.construct_object(value_node, deep=True)
            result.lines[key] = key_node.start_mark.line + 1
        return result

    def construct_sequence(self, node, deep=False):
        result = LineList(self.construct_object(child, deep=True) for child in node.value)
        result.line = node.start_mark.line + 1
        result.lines = [child.start_mark.line + 1 for child in node.value]
        return result

    def construct_object(self, node, deep=False):
        depth = getattr(self, "_depth", 0)
        if depth >= MAX_DEPTH and node.id in ("mapping", "sequence"):
            raise yaml.constructor.ConstructorError(
                None, None, f"lists and mappings are nested more than {MAX_DEPTH} levels deep (the most pnp "
                "accepts)", node.start_mark)
        self._depth = depth + (node.id in ("mapping", "sequence"))
        try:
            return super().construct_object(node, deep)
        except (ValueError, LookupError, TypeError, OverflowError, AttributeError) as exc:  # `!!int abc`...
            if isinstance(exc, yaml.YAMLError):
                raise
            raise yaml.constructor.ConstructorError(
                None, None, f"{shorten(repr(node.value))} is not a valid !!{node.tag.rsplit(':', 1)[-1]}",
                node.start_mark) from None
        finally:
            self._depth = depth


_Loader.add_constructor("tag:yaml.org,2002:map", _Loader.construct_mapping)
_Loader.add_constructor("tag:yaml.org,2002:seq", _Loader.construct_sequence)


def read_yaml(path: Path, shown_as: str) -> Any:
    """Parse one YAML file; a syntax error becomes an InputError naming file and line."""
    return parse_yaml(read_source(path, shown_as), shown_as)


def read_kept(path: Path, shown_as: str, memo) -> tuple[Any, str]:
    """`read_yaml`, and the sha256 of the file's text: a remembering session's `memo`
    (rendermemo.Memo.parsed) parses a file once for its text and hands out copies."""
    text = read_source(path, shown_as)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return memo.parsed(("yaml", shown_as, digest), lambda: parse_yaml(text, shown_as), copied), digest


def copied(data: Any, seen: dict | None = None) -> Any:
    """A copy of data `parse_yaml` made (4x faster than copy.deepcopy, which walks the same),
    its mappings and sequences new (with their lines),
    one copy of a node several places share (a YAML alias), its scalars as they are."""
    seen = {} if seen is None else seen
    kind = type(data)
    if kind is not LineDict and kind is not LineList and kind is not set:
        return data
    if id(data) in seen:
        return seen[id(data)]
    if kind is set:
        seen[id(data)] = out = set(data)
        return out
    if kind is LineDict:
        mapping = seen[id(data)] = LineDict()
        for key, value in data.items():
            mapping[key] = copied(value, seen)
        mapping.line, mapping.lines = data.line, dict(data.lines)
        return mapping
    sequence = seen[id(data)] = LineList(copied(value, seen) for value in data)
    sequence.line, sequence.lines = data.line, list(data.lines)
    return sequence


def read_source(path: Path, shown_as: str, encoding: str = "utf-8") -> str:
    """The text of one data file (YAML, JSON) of at most MAX_FILE_BYTES; an InputError naming
    the file when it is larger or cannot be read."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise InputError("1 problem reading input", [Problem(
                shown_as, f"the file is larger than {MAX_FILE_BYTES // 2**20} MiB, the most pnp reads")])
        return path.read_text(encoding=encoding)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or shorten(str(exc))
        raise InputError("1 problem reading input", [Problem(shown_as, f"cannot read: {reason}")]) from None


def parse_yaml(text: str, shown_as: str) -> Any:
    """`read_yaml` of text already read."""
    try:
        data = yaml.load(text, Loader=streaming_loader(_Loader) if len(text) > STREAM_ABOVE else _Loader)
    except RecursionError:
        raise InputError("1 problem in YAML", [Problem(
            shown_as, "lists and mappings are nested too deeply to read")]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        what = " ".join(s for s in (exc.context, exc.problem) if s)
        raise InputError("1 problem in YAML syntax", [Problem(shown_as, f"YAML syntax error: {what}",
                                                               line=line)]) from None
    except yaml.YAMLError as exc:
        raise InputError("1 problem in YAML syntax", [Problem(
            shown_as, f"YAML syntax error: {shorten(str(exc), 300)}")]) from None
    too_big = data_bounds(data)
    if too_big:
        raise InputError("1 problem in YAML", [Problem(shown_as, too_big)])
    return data


STREAM_ABOVE = 256 * 1024  # characters: larger files are read by yamlbridge.streaming_loader


def line_of(data: Any, path: tuple | list) -> int | None:
    """Best known line for a JSON path inside data read by `read_yaml`."""
    best = getattr(data, "line", None)
    node = data
    for step in path:
        lines = getattr(node, "lines", None)
        try:
            if isinstance(node, dict) and lines is not None and step in lines:
                best = lines[step]
            elif isinstance(node, list) and lines is not None and isinstance(step, int) and step < len(lines):
                best = lines[step]
            node = node[step]
        except (KeyError, IndexError, TypeError):
            break
        best = getattr(node, "line", None) or best
    return best


def plain(value: Any) -> Any:
    """The same data as ordinary dicts and lists, for templates: Jinja's `row.line` looks for
    an attribute first, so a field called `line` or `lines` must not meet the line numbers."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


@functools.lru_cache(maxsize=2048)
def _scalar_tag(value: str, implicit) -> str:
    """PyYAML's tag of a plain scalar: a pure function of the scalar and how it was written."""
    return _RESOLVER.resolve(yaml.ScalarNode, value, implicit)


_RESOLVER = yaml.resolver.Resolver()   # the resolver SafeLoader and CSafeLoader use
