"""The parsed source of pnp's modules, once a test process: the house's checks (test_house,
test_session, test_kinds) walk every module's syntax tree many times over."""
from __future__ import annotations

import ast
import functools
import gc
from pathlib import Path


@functools.cache
def _parsed(path: str, mtime_ns: int) -> ast.Module:
    text = Path(path).read_text(encoding="utf-8")
    gc.disable()   # a syntax tree holds no cycles: collecting while it grows only walks the trees kept
    try:
        return ast.parse(text)
    finally:
        gc.enable()


def parsed(path: Path) -> ast.Module:
    """`ast.parse` of the file at `path` (parsed again when the file changes). Read only."""
    return _parsed(str(path), path.stat().st_mtime_ns)


@functools.cache
def _walked(path: str, mtime_ns: int) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(_parsed(path, mtime_ns)))


def walked(path: Path) -> tuple[ast.AST, ...]:
    """Every node of `parsed(path)` in `ast.walk`'s order, walked once a process. Read only."""
    return _walked(str(path), path.stat().st_mtime_ns)


@functools.cache
def _imports(path: str, mtime_ns: int) -> tuple[ast.Import | ast.ImportFrom, ...]:
    found, todo = [], list(_parsed(path, mtime_ns).body)
    while todo:   # statements only: an import is one, at the top or nested in a block
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, ()):
                if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                    todo.append(child)
    return tuple(found)


def imports(path: Path) -> tuple[ast.Import | ast.ImportFrom, ...]:
    """The import statements of `parsed(path)` wherever they stand (in functions, classes,
    `if`, `try`...), found without walking every expression. Read only."""
    return _imports(str(path), path.stat().st_mtime_ns)
