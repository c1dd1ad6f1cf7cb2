"""Rule checks that need real logic, written in Python and named from rules files.

Each check gets a `CheckContext` and the rule's `args`, and yields `Failure`s. Register
one with `@register("name")`; a rules file uses it as `check: name`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

CHECKS: dict[str, Callable] = {}


@dataclass(frozen=True)
class Failure:
    found: Any
    expected: Any
    item: Any = None          # what to point at (a card, a table row, a list)
    fields: dict | None = None


def register(name: str, required: tuple[str, ...] = ()):
    """Make `fn(ctx, args)` available to rules files as `check: name`; `required` args are
    checked when the rules load."""
    def wrap(fn):
        fn.required = required
        CHECKS[name] = fn
        return fn
    return wrap


@register("ranges_cover", required=("rows", "from", "to"))
def ranges_cover(ctx, args) -> Iterable[Failure]:
    """Rows with a low and a high bound cover `from`..`to` exactly once (no gap, no overlap).

    args: rows (JMESPath list), low, high (keys of a row), from, to (numbers or {expr}).
    """
    rows = ctx.value(args["rows"])
    lo_key, hi_key = args.get("low", "min"), args.get("high", "max")
    start, end = ctx.value(args["from"]), ctx.value(args["to"])
    expected = f"{start}..{end} covered once"
    spans = sorted(((r[lo_key], r[hi_key], r) for r in rows), key=lambda s: (s[0], s[1]))
    for lo, hi, row in spans:
        if lo > hi:
            yield Failure(f"{lo}..{hi} is empty (low above high)", expected, row)
    cursor = start
    previous = None
    for lo, hi, row in spans:
        if lo > cursor:
            yield Failure(f"gap {cursor}..{lo - 1}", expected, row)
        elif lo < cursor and previous is not None:
            yield Failure(f"overlap {lo}..{min(hi, cursor - 1)}", expected, row)
        cursor = max(cursor, hi + 1)
        previous = row
    if cursor <= end:
        yield Failure(f"gap {cursor}..{end}", expected, rows)
    if spans and (spans[0][0] < start or max(s[1] for s in spans) > end):
        yield Failure(f"range {spans[0][0]}..{max(s[1] for s in spans)} goes outside {start}..{end}",
                      expected, rows)
