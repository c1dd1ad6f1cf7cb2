"""What a template may make in one step, measured before it is made (the sandbox's bounds).

In: the arguments of an operation a template asks for (a `%` or `{}` format and its
values, a join, a concatenation, a filter's width, a string method's arguments). Out:
nothing when what it would make stays within `MAX_ITEMS` characters or items, else a
`TemplateLimit` saying what was refused; and the pieces that route Jinja's own work
through these checks: a formatter for `str.format`, a code generator whose `~` and
constants go through the environment, and a bounded `map` filter.

Every estimate is an upper bound of what Python would allocate, computed in time
proportional to the arguments (never to what they would make), so a template passing
them cannot make a string or list larger than a small multiple of the bounds in one step,
and the deadline stops it from taking many steps.
"""
from __future__ import annotations

import math
import re
from string import Formatter

import jinja2
from jinja2.compiler import CodeGenerator, optimizeconst
from jinja2.filters import make_attrgetter
from jinja2.sandbox import SandboxedEscapeFormatter, SandboxedFormatter

MAX_OUTPUT = 8 * 2**20      # characters a face's SVG, a card's text or a rulebook may come to
MAX_ITEMS = 1_000_000       # characters or items one string or list a template makes may have
MAX_RANGE = 100_000         # numbers in one range() (jinja2's sandbox's own bound), slices of a list
MAX_BITS = 10_000           # bits of an integer a product may have (9 ** 1024 has 3,247)
WIDE = re.compile(r"\d{7,}")   # a width or precision of a million or more in a format
_LARGE = re.compile(r"\*|\d{4}")   # a `*` width, or one of 1,000 or more
_HUGE = 10**100
_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d*)(?:\.(\*|\d*))?[hlL]?[a-zA-Z%]")


class TemplateLimit(jinja2.TemplateRuntimeError):
    """A template passed one of pnp's bounds; the message says which and how far."""


def show(value) -> str:
    text = repr(value) if not isinstance(value, str) or len(value) < 60 else repr(value[:60])
    return text if len(text) <= 40 else text[:37] + "..."


def weight(value, limit: int = MAX_ITEMS) -> int:
    """About how many characters `value` comes to as text (a list of strings: their
    lengths and separators); counted until past `limit`, so at most ~`limit` items are
    looked at. A list holding one long string 3,000 times weighs 3,000 times as much."""
    total, stack = 0, [value]
    while stack and total <= limit:
        v = stack.pop()
        if isinstance(v, (str, bytes)):
            total += len(v) + 2
        elif isinstance(v, (int, float)):
            total += 24 if type(v) is not int else v.bit_length() // 3 + 2
        elif isinstance(v, dict):
            total += 2
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple, set, frozenset)):
            total += 2
            stack.extend(v)
        else:
            total += 64
    return total


def refuse_over(size: int, what: str, limit: int = MAX_ITEMS) -> None:
    if size > limit:
        raise TemplateLimit(f"{what} would make {size:,} characters or items or more; templates make at most "
                            f"{limit:,} in one step")


def check_percent(fmt: str, values) -> None:
    """`fmt % values` (and `|format`): widths, precisions (also `*` ones, taken from
    `values`) and each value's weight, added up, stay within MAX_ITEMS.

    The usual case is quick: a short format without `*` or a width of 1,000 or more, of
    numbers and short strings, cannot pass the bound (100 fields of 3,000 characters)."""
    if len(fmt) < 200 and not _LARGE.search(fmt):
        simple = values if type(values) is tuple else (values,)
        if all(type(v) is float or type(v) is int and -_HUGE < v < _HUGE or type(v) is str and len(v) < 1000
               for v in simple):
            return
    if WIDE.search(fmt):
        raise TemplateLimit(f"the format {show(fmt)} asks for a width of a million or more")
    items = list(values.values()) if isinstance(values, dict) else list(values) if isinstance(values, tuple) \
        else [values]
    numbers = [abs(v) for v in items if type(v) is int]
    star = max(numbers, default=0)
    heaviest = max((weight(v) for v in items), default=0)
    size = len(fmt)
    for width, precision in _PERCENT.findall(fmt):
        size += heaviest + sum(star if p == "*" else int(p) if p else 0 for p in (width, precision))
        if size > MAX_ITEMS:
            break
    refuse_over(size, f"the format {show(fmt)}")


def check_join(items: list, sep) -> None:
    size = (len(items) - 1) * len(sep) if items and isinstance(sep, str) else 0
    for item in items:
        size += weight(item, MAX_ITEMS - size) - 2
        if size > MAX_ITEMS:
            break
    refuse_over(size, f"joining {len(items):,} items")


def check_string_method(name: str, text, args, kwargs) -> None:
    """A string's own method (`'x'.join(l)`, `.replace`, `.expandtabs`, `.translate`)
    whose result would pass MAX_ITEMS."""
    given = (*args, *kwargs.values())
    for value in given:
        if type(value) is int and value > MAX_ITEMS:
            raise TemplateLimit(f"{name}({value:,}): templates make strings of at most {MAX_ITEMS:,} characters")
        if isinstance(value, str) and len(value) > MAX_ITEMS:
            raise TemplateLimit(f"a string of {len(value):,} characters; templates make at most {MAX_ITEMS:,}")
    if name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        refuse_over(replaced_size(text, args[0], args[1]), f"{name}()")
    elif name == "expandtabs":
        tab = given[0] if given and type(given[0]) is int else 8
        refuse_over(len(text) + text.count("\t" if isinstance(text, str) else b"\t") * max(tab, 0), f"{name}()")
    elif name == "translate" and given and isinstance(given[0], dict):
        longest = max((len(v) for v in given[0].values() if isinstance(v, str)), default=1)
        refuse_over(len(text) * longest, f"{name}()")


def replaced_size(text: str, old: str, new: str) -> int:
    """The most characters `text.replace(old, new)` may come to."""
    if not old:
        return len(text) + (len(text) + 1) * len(new)
    return len(text) + len(text) // len(old) * len(new)


class _Counting:
    """A formatter that refuses a field's width of a million or more (also one given by a
    nested `{:{}}`) and a result past MAX_ITEMS, before making it."""

    made = 0

    def vformat(self, format_string, args, kwargs):
        self.made = len(format_string)
        return super().vformat(format_string, args, kwargs)

    def format_field(self, value, format_spec):
        if WIDE.search(format_spec):
            raise TemplateLimit(f"the format field {{:{show(format_spec)}}} asks for a width of a million or more")
        widths = sum(int(n) for n in re.findall(r"\d+", format_spec))
        self.made += weight(value, MAX_ITEMS) + widths
        refuse_over(self.made, "the format")
        return super().format_field(value, format_spec)


class BoundedFormatter(_Counting, SandboxedFormatter):
    pass


class BoundedEscapeFormatter(_Counting, SandboxedEscapeFormatter):
    pass


def formatter_for(env, text: str) -> Formatter:
    from markupsafe import Markup

    if isinstance(text, Markup):
        return BoundedEscapeFormatter(env, escape=text.escape)
    return BoundedFormatter(env)


def check_filter(name: str, args: tuple, kwargs: dict, real) -> None:
    """A builtin filter's arguments (`args[0]` the value filtered) checked before it runs."""
    given = (*args[1:], *kwargs.values())
    for n in given:
        if type(n) is int and not -MAX_ITEMS <= n <= MAX_ITEMS:
            raise TemplateLimit(f"|{name}({n:,}): templates make strings of at most {MAX_ITEMS:,} characters")
    value = args[0] if args else None
    if name == "format":
        if isinstance(value, str):
            check_percent(value, kwargs or tuple(args[1:]))
        return
    text = str(value) if isinstance(value, str) else ""
    if name == "replace" and len(args) >= 3:
        refuse_over(replaced_size(str(value), str(args[1]), str(args[2])), "|replace")
    elif name == "indent":
        width = args[1] if len(args) > 1 else kwargs.get("width", 4)
        pad = len(width) if isinstance(width, str) else width if type(width) is int else 0
        refuse_over(len(text) + (text.count("\n") + 1) * max(pad, 0), "|indent")
    elif name == "wordwrap":
        wrap = args[4] if len(args) > 4 else kwargs.get("wrapstring") or "\n"
        width = args[1] if len(args) > 1 else kwargs.get("width", 79)
        lines = min(len(text) + 1, len(text) // max(int(width) if type(width) is int else 1, 1)
                    + text.count(" ") + text.count("\n") + 1)
        refuse_over(len(text) + lines * len(str(wrap)), "|wordwrap")
    elif name == "slice" and len(args) > 1 and type(args[1]) is int and args[1] > MAX_RANGE:
        raise TemplateLimit(f"|slice({args[1]:,}): templates cut a list into at most {MAX_RANGE:,} slices")
    elif name in ("string", "pprint", "tojson", "urlencode", "xmlattr", "escape", "e", "forceescape") \
            and not isinstance(value, str):
        refuse_over(weight(value), f"|{name} of a list or mapping")
    elif name == "sum" and isinstance(kwargs.get("start", args[3] if len(args) > 3 else 0), (list, tuple)):
        items = list(value) if value is not None else []
        refuse_over(sum(len(i) if isinstance(i, (list, tuple)) else 1 for i in items), "|sum of lists")


@jinja2.pass_eval_context
def bounded_join(eval_ctx, value, d: str = "", attribute=None):
    """`|join`, refused before joining when the total would pass MAX_ITEMS."""
    from jinja2.filters import sync_do_join

    items = list(value)
    shown = [make_attrgetter(eval_ctx.environment, attribute)(i) for i in items] if attribute is not None else items
    check_join(shown, d)
    return sync_do_join(eval_ctx, items, d, attribute)


def bounded_map(real):
    """`|map`: what it makes, counted as it is made (its items' lengths together stay
    within MAX_OUTPUT), so a mapped filter cannot make a million large strings."""
    def mapped(context, value, *args, **kwargs):
        made = 0
        for item in real(context, value, *args, **kwargs):
            made += len(item) if isinstance(item, (str, bytes, list, tuple, dict)) else 1
            if made > MAX_OUTPUT:
                raise TemplateLimit(f"|map made more than {MAX_OUTPUT:,} characters or items; templates make "
                                    f"at most {MAX_ITEMS:,} in one step")
            yield item
    mapped.jinja_pass_arg = real.jinja_pass_arg
    return mapped


def bounded_concat(parts: tuple, markup) -> str:
    """`a ~ b ~ c`: refused before joining when the text would pass MAX_ITEMS."""
    from jinja2.runtime import markup_join, str_join

    size = 0
    for part in parts:
        size += len(part) if isinstance(part, str) else weight(part, MAX_ITEMS - size)
    refuse_over(size, "joining with ~")
    return markup_join(parts) if markup else str_join(parts)


class BoundedCode(CodeGenerator):
    """Jinja's code generator with a keyword given twice refused with its line, `~`
    routed through the environment's `concat_bounded` (Jinja otherwise compiles it to a
    join the sandbox never sees) and non-finite constants written as Python can read them
    back (`inf` folded from `'inf'|float` was written as the name `inf`)."""

    def visit_Const(self, node, frame) -> None:
        value = node.as_const(frame.eval_ctx)
        if isinstance(value, float) and not math.isfinite(value):
            self.write(f"float({str(value)!r})")
        else:
            super().visit_Const(node, frame)

    def signature(self, node, frame, extra_kwargs=None) -> None:
        """A call's arguments; a keyword given twice is a template syntax error on its own
        line (Python's compiler would say it of the generated code, with no template line)."""
        names = [kw.key for kw in node.kwargs]
        for name in names:
            if names.count(name) > 1:
                self.fail(f"keyword argument repeated: {name}", node.lineno)
        super().signature(node, frame, extra_kwargs)

    @optimizeconst
    def visit_Concat(self, node, frame) -> None:
        if frame.eval_ctx.volatile:
            markup = "context.eval_ctx.volatile"
        else:
            markup = "True" if frame.eval_ctx.autoescape else "False"
        self.write("environment.concat_bounded((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write(f"), {markup})")
