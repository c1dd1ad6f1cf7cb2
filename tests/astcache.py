"""The parsed source of pnp's modules, once a test process: the house's checks (test_house,
test_session, test_kinds) walk every module's syntax tree many times over."""
from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def _parsed(path: str, mtime_ns: int) -> ast.Module:
    return ast.parse(Path(path).read_text(encoding="utf-8"))


def parsed(path: Path) -> ast.Module:
    """`ast.parse` of the file at `path` (parsed again when the file changes). Read only."""
    return _parsed(str(path), path.stat().st_mtime_ns)


@functools.cache
def _walked(path: str, mtime_ns: int) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(_parsed(path, mtime_ns)))


def walked(path: Path) -> tuple[ast.AST, ...]:
    """Every node of `parsed(path)` in `ast.walk`'s order, walked once a process. Read only."""
    return _walked(str(path), path.stat().st_mtime_ns)
