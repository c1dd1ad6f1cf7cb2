"""Limits that keep hostile or mistaken input harmless: confinement, bounds, short messages.

In: paths a build is about to read, values about to be echoed in a message, data read
from YAML. Out: the real path (only when it lies inside the project once every symlink
is followed), shortened text, or a message saying which bound was passed. Every bound
pnp enforces is defined here, so the README and the messages agree.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

MAX_COUNT = 10_000            # copies of one card
MAX_COPIES = 20_000           # copies of every card of a game together
MAX_SIZE_MM = 2000.0          # a component's width or height, and its bleed or safe margin (2 m)
MAX_DEPTH = 64                # nesting of lists and mappings in a YAML file
MAX_VALUES = 1_000_000        # values in a YAML file once its aliases are expanded
MAX_FILE_BYTES = 16 * 2**20   # a YAML, JSON, Markdown or template file (16 MiB)
MAX_IMAGE_BYTES = 64 * 2**20  # a picture a face draws (64 MiB)
SHOWN = 80                    # characters of a value shown in a message
MESSAGE_CHARS = 1000          # characters of a whole message, whatever it quotes


def shorten(value: Any, limit: int = SHOWN) -> str:
    """`repr`-like text of `value` cut to `limit` characters with an ellipsis and the full length."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit - 1]}… ({len(text)} characters)"


def short_repr(value: Any, limit: int = SHOWN) -> str:
    """`repr(value)` shortened for a message."""
    return shorten(repr(value), limit)


class OutsideProject(Exception):
    """A path that cannot be read, or that leads outside the project; the message says which."""


def inside(root: Path | str, path: Path | str, shown: str | None = None) -> Path:
    """The real path of `path` when, with every symlink followed, it is inside `root`.

    :raises OutsideProject: when it leads outside `root` (a symlink to /etc, say) or its name
        cannot be used (too long, a NUL byte). It does not say whether the file exists.
    """
    shown = shorten(str(shown if shown is not None else path), 120)
    try:
        real = os.path.realpath(path)
        base = os.path.realpath(root)
    except (OSError, ValueError) as exc:
        raise OutsideProject(f"{shown} cannot be used as a file name: {_reason(exc)}") from None
    if real != base and not real.startswith(base.rstrip(os.sep) + os.sep):
        raise OutsideProject(f"{shown} leads outside the project (a symlink to {shorten(real, 120)}); "
                             "pnp reads only files inside the project")
    return Path(real)


def is_file_inside(root: Path | str, path: Path | str) -> bool:
    """True when `path` is a regular file inside `root` (see `inside`); OSError-free."""
    try:
        return os.path.isfile(inside(root, path))
    except (OutsideProject, OSError, ValueError):
        return False


def missing_message(root: Path | str, path: Path | str, what: str) -> str:
    """Why `what` at `path` cannot be read: it leads outside the project, or it does not exist."""
    try:
        inside(root, path, what)
    except OutsideProject as exc:
        return str(exc)
    return f"{what} does not exist"


def read_text_inside(root: Path | str, path: Path | str, shown: str | None = None) -> str:
    """A UTF-8 text file inside `root`, at most MAX_FILE_BYTES long.

    :raises OutsideProject: outside the project, unreadable, too big or not UTF-8.
    """
    real = inside(root, path, shown)
    shown = shorten(str(shown if shown is not None else path), 120)
    try:
        if os.path.getsize(real) > MAX_FILE_BYTES:
            raise OutsideProject(f"'{shown}' is larger than {MAX_FILE_BYTES // 2**20} MiB, the most pnp reads")
        return real.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise OutsideProject(f"cannot read '{shown}': {_reason(exc)}") from None


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def data_bounds(data: Any) -> str | None:
    """Why YAML data is too deep or too big once aliases are expanded, or None.

    Aliases of aliases can make a small file stand for billions of values (the "billion
    laughs"); each node is measured once, so this check itself stays cheap.
    """
    sizes: dict[int, int] = {}
    stack = [(data, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        if depth > MAX_DEPTH:
            return f"lists and mappings are nested more than {MAX_DEPTH} levels deep (the most pnp accepts)"
        children = list(node.values()) if isinstance(node, dict) else node
        if done:
            sizes[id(node)] = 1 + sum(sizes.get(id(c), 1) for c in children)
            if sizes[id(node)] > MAX_VALUES:
                return (f"the file stands for more than {MAX_VALUES:,} values once its aliases are "
                        "expanded (the most pnp accepts)")
            continue
        if id(node) in sizes:
            continue
        stack.append((node, depth, True))
        stack.extend((c, depth + 1, False) for c in children if isinstance(c, (dict, list)))
    return None
