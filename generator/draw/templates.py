"""Jinja for faces, card text and rulebooks, run as data, never as code.

In: a game's template folders (read through `ProjectLoader`: files inside the project
only) and a build's `Limits`. Out: Jinja environments in a sandbox, whose templates
cannot reach Python: no attribute starting with `_`, no module, file or process, data
they cannot change; whose work is bounded (ranges, strings and lists a template makes,
the length of what it writes, and time: `render` stops a template that runs too long);
and whose refusals say what was refused (`TemplateLimit`, jinja2's `SecurityError`).

Templates from a stranger's pull request are as safe to validate as card data: the worst
they can do is fail with a message naming the file and line.
"""
from __future__ import annotations

import functools
import operator
import os
import re
import stat
import types
from itertools import islice
from pathlib import Path

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

from ..guard import Deadline, OutsideProject, inside, read_text_inside

MAX_OUTPUT = 8 * 2**20      # characters a face's SVG, a card's text or a rulebook may come to
MAX_ITEMS = 1_000_000       # characters or items one string or list a template makes may have
MAX_RANGE = 100_000         # numbers in one range() (jinja2's sandbox's own bound)
_WIDE = re.compile(r"\d{7,}")   # a width or precision of a million or more in a format


class TemplateLimit(jinja2.TemplateRuntimeError):
    """A template passed one of pnp's bounds; the message says which and how far."""


class Sandbox(ImmutableSandboxedEnvironment):
    """jinja2's immutable sandbox, with pnp's bounds on what a template may make.

    `deadline` (guard.Deadline) is looked at on every call a template makes, so that a
    template stuck in a loop stops even off the main thread (on it, the deadline's timer
    stops it anywhere). Arithmetic on numbers takes a fast path: templates do a lot of it."""

    intercepted_binops = frozenset({"*", "**", "%"})

    def __init__(self, deadline: Deadline | None = None, **options):
        super().__init__(**options)
        self.deadline = deadline or Deadline(None)
        for name in ("center", "indent", "format", "replace", "wordwrap", "truncate"):
            self.filters[name] = _bounded_filter(self.filters[name], name)

    def call_binop(self, context, operator, left, right):
        if type(left) in _NUMBERS and type(right) in _NUMBERS:
            if operator != "**" or -1024 <= right <= 1024 or left in (0, 1, -1):
                return _BINOPS[operator](left, right)
            raise TemplateLimit(f"{_show(left)} ** {_show(right)}: pnp computes powers up to 1024")
        if operator == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(n, int) and len(seq) * n > MAX_ITEMS:
                    raise TemplateLimit(f"a {type(seq).__name__} repeated {n:,} times would hold "
                                        f"{len(seq) * n:,} items; templates make at most {MAX_ITEMS:,}")
        elif operator == "%" and isinstance(left, str) and _WIDE.search(left):
            raise TemplateLimit(f"the format {_show(left)} asks for a width of a million or more")
        return super().call_binop(context, operator, left, right)

    def call(__self, __context, __obj, *args, **kwargs):  # jinja2's own signature
        __self.deadline.check()
        if getattr(__obj, "__self__", None).__class__ in (str, bytes):  # a string's own method
            for value in (*args, *kwargs.values()):
                if isinstance(value, int) and not isinstance(value, bool) and value > MAX_ITEMS:
                    raise TemplateLimit(f"{getattr(__obj, '__name__', 'a string method')}({value:,}): "
                                        f"templates make strings of at most {MAX_ITEMS:,} characters")
                if isinstance(value, str) and len(value) > MAX_ITEMS:
                    raise TemplateLimit(f"a string of {len(value):,} characters; templates make at most "
                                        f"{MAX_ITEMS:,}")
        return super().call(__context, __obj, *args, **kwargs)

    def format_string(self, s, args, kwargs, format_func=None):
        if _WIDE.search(s):
            raise TemplateLimit(f"the format {_show(s)} asks for a width of a million or more")
        return super().format_string(s, args, kwargs, format_func)

    def is_safe_attribute(self, obj, attr, value):
        """jinja2's rules, and nothing at all of a function, a class or a module: templates
        call pnp's helpers, they never look inside them."""
        if isinstance(obj, _CLOSED):
            return False
        return super().is_safe_attribute(obj, attr, value)

    def getattr(self, obj, attribute):
        if attribute in ("format", "format_map") and isinstance(obj, str) and _WIDE.search(obj):
            raise TemplateLimit(f"the format {_show(obj)} asks for a width of a million or more")
        return super().getattr(obj, attribute)


_NUMBERS = frozenset({int, float, bool})
_CLOSED = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType, type,
           functools.partial)
_BINOPS = {"*": operator.mul, "**": operator.pow, "%": operator.mod}


def _bounded_filter(real, name: str):
    """A filter that refuses a width, count or result beyond MAX_ITEMS before making it."""
    skip = 1 if hasattr(real, "jinja_pass_arg") else 0  # the context or environment Jinja passes first

    def bounded(*args, **kwargs):
        for n in (*args[skip + 1:], *kwargs.values()):
            if type(n) is int and not -MAX_ITEMS <= n <= MAX_ITEMS:
                raise TemplateLimit(f"|{name}({n:,}): templates make strings of at most {MAX_ITEMS:,} characters")
        if name == "replace" and len(args) >= skip + 3:
            text, old, new = (str(a) for a in args[skip:skip + 3])
            if old and len(text) // len(old) * max(len(new), 1) > MAX_OUTPUT:
                raise TemplateLimit(f"|replace would make a string of over {MAX_OUTPUT:,} characters")
        elif name == "format" and len(args) > skip and isinstance(args[skip], str) and _WIDE.search(args[skip]):
            raise TemplateLimit(f"the format {_show(args[skip])} asks for a width of a million or more")
        return real(*args, **kwargs)

    if skip:  # pass_context / pass_eval_context / pass_environment, as the real filter asks
        bounded.jinja_pass_arg = real.jinja_pass_arg  # type: ignore[attr-defined]
    return bounded


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def render(template: jinja2.Template, deadline: Deadline, **context) -> str:
    """`template` rendered with `context`, within `deadline` and MAX_OUTPUT characters.

    :raises TemplateLimit: the output passed MAX_OUTPUT characters.
    :raises guard.TimeLimit: the template ran past its deadline.
    """
    with deadline.running():
        return joined(template.generate(**context))


def joined(chunks) -> str:
    """The chunks a template writes, joined, stopped once they pass MAX_OUTPUT characters
    (taken a few hundred at a time, so the bound costs nothing per chunk)."""
    out: list[str] = []
    size = 0
    for batch in iter(lambda: list(islice(chunks, 512)), []):
        size += sum(map(len, batch))
        if size > MAX_OUTPUT:
            raise TemplateLimit(f"the template writes more than {MAX_OUTPUT // 2**20} MB "
                                "(the most pnp takes from one template)")
        out += batch
    return "".join(out)


class ProjectLoader(jinja2.BaseLoader):
    """Templates, `{% include %}`s and `{% import %}`s from the template folders: regular
    files inside the project, of at most MAX_FILE_BYTES, read as UTF-8. A symlink out of the
    project, a device or a FIFO is refused before a byte is read (TemplateOutside)."""

    def __init__(self, root: Path, searchpath, trusted=()):
        self.root = root
        self.searchpath = [str(p) for p in searchpath]
        self.trusted = {str(p) for p in trusted}  # pnp's own folders: confined to themselves

    def get_source(self, environment, template):
        pieces = jinja2.loaders.split_template_path(template)  # refuses '..'
        for folder in self.searchpath:
            path = os.path.join(folder, *pieces)
            try:
                st = os.stat(path)
            except (OSError, ValueError):
                continue
            if not stat.S_ISREG(st.st_mode):
                raise TemplateOutside(f"template '{template}' is not a regular file (a folder, device or FIFO)")
            within = folder if folder in self.trusted else self.root
            try:
                real = inside(within, path, f"template '{template}'")
                source = read_text_inside(within, real, f"template '{template}'")
            except OutsideProject as exc:
                raise TemplateOutside(str(exc)) from None
            mtime = st.st_mtime_ns
            return source, str(real), lambda p=real, m=mtime: _unchanged(p, m)
        raise jinja2.TemplateNotFound(template)

    def list_templates(self):
        found = set()
        for folder in self.searchpath:
            for dirpath, _, files in os.walk(folder):
                for f in files:
                    found.add(os.path.relpath(os.path.join(dirpath, f), folder).replace(os.sep, "/"))
        return sorted(found)


def _unchanged(path: Path, mtime: int) -> bool:
    try:
        return os.stat(path).st_mtime_ns == mtime
    except OSError:
        return False


class TemplateOutside(jinja2.TemplateError):
    """A template or include that cannot be read: outside the project, not a file, too big."""


class CardTextError(Exception):
    """Jinja inside a card's text (expanded by fill()) failed."""


class CompiledTemplates(jinja2.BytecodeCache):
    """Compiled templates kept in a session's `templates` store (`pnp watch` rebuilds
    without recompiling); Jinja checks each entry against a checksum of the template's
    source."""

    def __init__(self, store: dict[str, bytes]):
        self.store = store

    def load_bytecode(self, bucket):
        if bucket.key in self.store:
            bucket.bytecode_from_string(self.store[bucket.key])

    def dump_bytecode(self, bucket):
        self.store[bucket.key] = bucket.bytecode_to_string()


def bounded_format(value, spec: str) -> str:
    """Python's format(value, spec), refusing a width or precision of a million or more."""
    if _WIDE.search(spec):
        raise TemplateLimit(f"the format {_show(spec)} asks for a width of a million or more")
    return format(value, spec)
