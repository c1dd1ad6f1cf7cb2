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

import operator
import os
import stat
import types
from functools import partial, update_wrapper
from itertools import islice
from pathlib import Path

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment
from markupsafe import Markup

from ..guard import Deadline, OutsideProject, inside, read_text_inside
from .sandboxbounds import (
    MAX_BITS,
    MAX_ITEMS,
    MAX_OUTPUT,
    WIDE,
    BoundedCode,
    TemplateLimit,
    bounded_concat,
    bounded_join,
    bounded_map,
    check_filter,
    check_join,
    check_percent,
    check_string_method,
    formatter_for,
    refuse_over,
    show,
    weight,
)


class Sandbox(ImmutableSandboxedEnvironment):
    """jinja2's immutable sandbox, with pnp's bounds on what a template may make.

    `deadline` (guard.Deadline) is looked at on every call a template makes, so that a
    template stuck in a loop stops even off the main thread (on it, the deadline's timer
    stops it anywhere). Arithmetic on numbers takes a fast path: templates do a lot of it.
    What one step may make is measured before it is made (sandboxbounds.py): `*`, `+`,
    `%` and `~`, formats (their nested widths too), joins, string methods and filters."""

    intercepted_binops = frozenset({"*", "**", "%", "+"})
    code_generator_class = BoundedCode

    def __init__(self, deadline: Deadline | None = None, **options):
        options.setdefault("finalize", _finalize)
        super().__init__(**options)
        self.deadline = deadline or Deadline(None)
        for name in _BOUNDED_FILTERS:
            self.filters[name] = _bounded_filter(self.filters[name], name)
        self.filters["join"] = bounded_join
        self.filters["map"] = bounded_map(self.filters["map"])
        self._trees: dict[tuple, object] = {}   # (source, name, filename) -> tree `parse_kept` made, not yet compiled

    def parse_kept(self, source: str, name: str | None, filename: str | None):
        """The template's syntax tree, as Jinja's compile would parse it, kept for that
        compile (which takes it instead of parsing the same source again): a template read
        before it is compiled (rendermemo.reads_decks) is parsed once, not twice."""
        tree = super()._parse(source, name, filename)
        self._trees[(source, name, filename)] = tree
        return tree

    def _parse(self, source, name, filename):
        tree = self._trees.pop((source, name, filename), None)   # compiled once: the compiler may change it
        return tree if tree is not None else super()._parse(source, name, filename)

    def call_binop(self, context, operator, left, right):
        if type(left) in _NUMBERS and type(right) in _NUMBERS:
            if operator == "**" and not (-1024 <= right <= 1024 or left in (0, 1, -1)):
                raise TemplateLimit(f"{_show(left)} ** {_show(right)}: pnp computes powers up to 1024")
            if operator == "*" and type(left) is int is type(right) and \
                    left.bit_length() + right.bit_length() > MAX_BITS:
                raise TemplateLimit(f"a product of {left.bit_length() + right.bit_length():,} bits: templates "
                                    f"multiply numbers of at most {MAX_BITS:,} bits")
            return _BINOPS[operator](left, right)
        if operator == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(n, int) and len(seq) * n > MAX_ITEMS:
                    raise TemplateLimit(f"a {type(seq).__name__} repeated {n:,} times would hold "
                                        f"{len(seq) * n:,} items; templates make at most {MAX_ITEMS:,}")
        elif operator == "+" and isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
            refuse_over(len(left) + len(right), "adding these")
        elif operator == "%" and isinstance(left, str):
            check_percent(left, right)
        return super().call_binop(context, operator, left, right)

    def call(__self, __context, __obj, *args, **kwargs):  # jinja2's own signature
        __self.deadline.check()
        if getattr(__obj, "__self__", None).__class__ in _STRINGS:  # a string's own method
            name = getattr(__obj, "__name__", "a string method")
            if name == "join" and args:
                items = list(args[0])
                check_join(items, __obj.__self__)
                args = (items, *args[1:])
            else:
                check_string_method(name, __obj.__self__, args, kwargs)
        return super().call(__context, __obj, *args, **kwargs)

    def is_safe_attribute(self, obj, attr, value):
        """jinja2's rules, and nothing at all of a function, a class or a module: templates
        call pnp's helpers, they never look inside them."""
        if isinstance(obj, _CLOSED):
            return False
        return super().is_safe_attribute(obj, attr, value)

    def wrap_str_format(self, value):
        """`str.format` and `format_map`, through a formatter that refuses a width of a
        million or more (a nested `{:{}}` one too) and a result past MAX_ITEMS."""
        if not isinstance(value, (types.MethodType, types.BuiltinMethodType)) or \
                value.__name__ not in ("format", "format_map") or not isinstance(value.__self__, str):
            return None
        text, is_map = value.__self__, value.__name__ == "format_map"
        formatter = formatter_for(self, text)

        def wrapper(*args, **kwargs):
            if is_map:
                if kwargs or len(args) != 1:
                    raise TypeError("format_map() takes exactly one mapping")
                args, kwargs = (), args[0]
            return type(text)(formatter.vformat(text, args, kwargs))
        return update_wrapper(wrapper, value)

    def concat_bounded(self, parts: tuple, markup) -> str:
        """`a ~ b` (BoundedCode compiles `~` to this)."""
        return bounded_concat(parts, markup)


_NUMBERS = frozenset({int, float, bool})
_STRINGS = frozenset({str, bytes, Markup})
_CLOSED = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType, type, partial)
_BINOPS = {"*": operator.mul, "**": operator.pow, "%": operator.mod, "+": operator.add}
_BOUNDED_FILTERS = ("center", "indent", "format", "replace", "wordwrap", "truncate", "slice", "batch", "string",
                    "pprint", "tojson", "urlencode", "xmlattr", "escape", "e", "forceescape", "sum")


def _finalize(value):
    """What `{{ value }}` writes: a list or mapping (written as its text) within MAX_ITEMS."""
    if type(value) not in _PLAIN:
        refuse_over(weight(value), "writing this list or mapping")
    return value


_PLAIN = frozenset({str, Markup, int, float, bool, type(None)})


def _bounded_filter(real, name: str):
    """A filter that refuses a width, count or result beyond MAX_ITEMS before making it
    (sandboxbounds.check_filter says what each filter would make)."""
    skip = 1 if hasattr(real, "jinja_pass_arg") else 0  # the context or environment Jinja passes first

    def bounded(*args, **kwargs):
        check_filter(name, args[skip:], kwargs, real)
        return real(*args, **kwargs)

    if skip:  # pass_context / pass_eval_context / pass_environment, as the real filter asks
        bounded.jinja_pass_arg = real.jinja_pass_arg  # type: ignore[attr-defined]
    return bounded


_show = show


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


def from_source(env: Sandbox, source: str, store: dict[str, bytes]) -> jinja2.Template:
    """`env.from_string(source)`, compiled once: its code kept in `store` (a session's
    compiled templates, as `CompiledTemplates` keeps a file's) by the source's digest, so
    the same text (a rulebook, laid out on each paper) is not compiled again."""
    import hashlib

    cache = CompiledTemplates(store)
    bucket = cache.get_bucket(env, f"<string {hashlib.sha256(source.encode()).hexdigest()}>", None, source)
    if bucket.code is None:
        bucket.code = env.compile(source)
        cache.set_bucket(bucket)
    return env.template_class.from_code(env, bucket.code, env.make_globals(None))


def bounded_format(value, spec: str) -> str:
    """`{{ x | fmt('.1f') }}`: Python's format(value, spec), refusing a width or precision
    of a million or more, and a list or mapping past MAX_ITEMS."""
    if WIDE.search(spec):
        raise TemplateLimit(f"the format {_show(spec)} asks for a width of a million or more")
    if type(value) not in _PLAIN:
        refuse_over(weight(value), "|fmt of a list or mapping")
    return format(value, spec)
