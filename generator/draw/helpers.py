"""Everything a template can reach: one table, and the only place Jinja environments are made.

In: where a template runs (`PLACES`: a face, Jinja inside card text, the rulebook) and what
one build gives its helpers (`Inputs`: the text setter, the icons, the edition's strings).
Out: the `HELPERS` table — every global, filter and test of every Jinja environment of
pnp, with where it is visible and which inputs besides its arguments it reads (they are
part of the face cache key: `reads`) — the data names a template is given (`DATA`), and
the environments made from them (`face_environment`, `rulebook_environment`).

By construction: an environment holds exactly what the table declares for its place
(jinja2's own globals, filters and tests included: those not declared are removed); each
of pnp's helpers takes and returns plain data (str, numbers, booleans, None, lists, tuples
and dicts of those: `plain`), refusing a function, a module, a class or any other object
before it runs; and any lookup a helper makes goes through the sandbox's `getitem` /
`getattr`. A helper written without the sandbox in mind cannot hand a template a way out.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import SecurityError
from markupsafe import Markup

from ..data import yamlsrc
from ..data.editions import PLACEHOLDER, direction_of, lookup, translator
from ..guard import Deadline, shorten
from ..units import per_mm, template_length
from . import cardid
from .jinja_errors import plain_message
from .sandboxbounds import MAX_RANGE, refuse_over
from .templates import (
    CardTextError,
    CompiledTemplates,
    ProjectLoader,
    Sandbox,
    TemplateLimit,
    bounded_format,
    joined,
)
from .textfit import TextError

PLACES = ("face", "card text", "rulebook")
FACE, CARD_TEXT, RULEBOOK = PLACES
EVERYWHERE = frozenset(PLACES)

@dataclass(frozen=True)
class Inputs:
    """What one build gives the helpers of its environments (None where a place has none)."""

    deadline: Deadline
    setter: Any = None                   # textfit.TextSetter: textbox()
    icons: Mapping | None = None         # name -> textfit.Icon: icon()
    strings: Mapping = field(default_factory=dict)   # t()
    language: str = "en"
    stage: Callable | None = None        # session.stage, so text fitting is timed apart
    fonts: str = ""                      # digest of the fonts the setter uses (drawkey's, shipped + the game's)


@dataclass(frozen=True)
class Read:
    """An input a helper may read besides its arguments, and what of it joins the face cache key."""

    doc: str
    word: Callable[[Inputs], str]       # its part of the key, from the build's Inputs


def _strings_word(inputs: Inputs) -> str:
    return json.dumps(yamlsrc.plain(inputs.strings), sort_keys=True, ensure_ascii=False, default=str)


# what a helper may read besides its arguments; `cache_words` makes the face cache key's part
# from the inputs the helpers of a place declare (render.py adds nothing of its own)
READS: dict[str, Read] = {
    "fonts": Read("the fonts pnp ships and the game's own (their digest)", lambda i: i.fonts),
    # the icon files lie in the template folders, every file of which the render memo's scope digests
    "icons": Read("the icon files of the template folders (their digests)", lambda i: ""),
    "language": Read("the edition's language", lambda i: i.language),
    "strings": Read("the edition's strings (i18n/<language>.yaml strings:)", _strings_word),
    "segno": Read("the version of segno, which draws QR codes", lambda i: cardid.qr_version()),
    "text floor": Read("print: min_text_pt (a box that would shrink below it is refused)",
                       lambda i: repr(getattr(i.setter, "floor", 0.0))),
}


@dataclass(frozen=True)
class Helper:
    """One name a template can use: a global, a filter or a test."""

    name: str
    kind: str                           # "global", "filter" or "test"
    places: frozenset
    doc: str
    make: Callable[[Inputs, jinja2.Environment], Any] | None = None   # pnp's own (None: jinja2's, kept)
    reads: frozenset = frozenset()      # keys of READS


# ---------------------------------------------------------------------------------------------
# pnp's own helpers: plain data in, plain data out, lookups through the sandbox

PLAIN_TYPES = (str, int, float, bool, type(None), Markup, range)


def plain(value, what: str = "a value") -> None:
    """Refuse anything but plain data: str, numbers, booleans, None, and lists, tuples and
    dicts of those (walked all the way down). An undefined value fails as Jinja says it.

    :raises SecurityError: naming what is not plain data.
    """
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if isinstance(item, PLAIN_TYPES):
            continue
        if isinstance(item, jinja2.Undefined):
            item._fail_with_undefined_error()
        if type(item) in (list, tuple, dict) or isinstance(item, tuple) and type(item).__module__ == "jinja2.filters":
            if id(item) in seen:
                continue
            seen.add(id(item))
            stack.extend(item.keys() if isinstance(item, dict) else ())
            stack.extend(item.values() if isinstance(item, dict) else item)
            continue
        raise SecurityError(f"{what} holds {_kind(item)}: templates pass helpers plain data only "
                            "(text, numbers, lists and mappings)")


def _kind(item) -> str:
    if callable(item):
        return f"a callable ({shorten(type(item).__name__, 40)})"   # its type only: nothing read of it
    return f"an object of type {shorten(type(item).__name__, 40)}"


def _plain_helper(name: str, real: Callable) -> Callable:
    """`real`, refusing arguments and results that are not plain data."""
    passes = getattr(real, "jinja_pass_arg", None)

    def checked(*args, **kwargs):
        given = args[1:] if passes else args
        for n, value in enumerate(given, start=1):
            if not isinstance(value, PLAIN_TYPES):
                plain(value, f"{name}()'s argument {n}")
        for key, value in kwargs.items():
            if not isinstance(value, PLAIN_TYPES):
                plain(value, f"{name}()'s argument {key}=")
        result = real(*args, **kwargs)
        if not isinstance(result, PLAIN_TYPES):
            plain(result, f"what {name}() gives")
        return result

    checked.__name__ = name
    if passes:
        checked.jinja_pass_arg = passes  # type: ignore[attr-defined]
    return checked


def bounded_range(*args):
    """range(), counting to at most MAX_RANGE numbers."""
    numbers = range(*args)
    if len(numbers) > MAX_RANGE:
        raise TemplateLimit(f"range({', '.join(f'{a:,}' for a in args)}) would count {len(numbers):,} numbers; "
                            f"templates count to at most {MAX_RANGE:,}")
    return list(numbers)


@jinja2.pass_environment
def keyed(env, items, key, value=None) -> dict:
    """`cards | keyed('id')`: a mapping from each item's `key` to the item (or to its
    `value`), for the lookups templates would otherwise build by changing a dict, which
    the sandbox does not allow. Each lookup is the sandbox's own (`env.getitem`)."""
    def get(item, name):
        found = env.getitem(item, name)
        if isinstance(found, jinja2.Undefined):   # no such key, or one the sandbox refuses
            found._fail_with_undefined_error()
        return found
    return {get(item, key): get(item, value) if value is not None else item for item in items}


def fmt(value, spec="g") -> str:
    """`{{ x | fmt('.1f') }}`: Python's format(), with widths bounded."""
    return bounded_format(value, str(spec))


def _fill(inputs: Inputs, env) -> Callable:
    text_env = environment(CARD_TEXT, inputs, undefined=jinja2.StrictUndefined, autoescape=False)

    @jinja2.pass_context
    def fill(ctx, text):
        """Expand Jinja inside card text (e.g. numbers from the game's data tables)."""
        g = ctx["game"]
        try:
            template = text_env.from_string(str(text))
            return joined(template.generate(game=g, data=g["data"], card=ctx.get("card")))
        except jinja2.TemplateError as exc:
            raise CardTextError(f"Jinja in the card's text: {plain_message(exc)}") from None
    return fill


def _textbox(inputs: Inputs, env) -> Callable:
    setter, stage = inputs.setter, inputs.stage

    @jinja2.pass_context
    def textbox(ctx, text, x, y, w, h, **style):
        """Text wrapped and shrunk to its box (textfit.py); its lengths in the template's units
        (the deck's: mm, or px) or with a unit ("9pt"), laid out in mm."""
        deck = ctx.get("deck") or {}
        scale = per_mm(deck.get("units", "mm"), deck.get("dpi"))
        box = [_in_mm(v, deck, scale) for v in (x, y, w, h)]
        style.update({k: _in_mm(style[k], deck, scale) for k in LENGTHS if style.get(k) is not None})
        if stage is None:
            svg = setter.svg(text, x=box[0], y=box[1], w=box[2], h=box[3], **style)
        else:
            with stage("text fitting"):
                svg = setter.svg(text, x=box[0], y=box[1], w=box[2], h=box[3], **style)
        return svg if scale == 1 else Markup(f'<g transform="scale({scale!r})">{svg}</g>')
    return textbox


LENGTHS = ("size", "min_size")   # textbox()'s keywords that are lengths


def _in_mm(value, deck: Mapping, scale: float):
    """A template length in mm: a bare number of an mm deck as given (no change for any game
    drawn before units), else converted (units.template_length)."""
    if scale == 1 and isinstance(value, (int, float)):
        return value
    return template_length(value, deck.get("units", "mm"), deck.get("dpi")) / scale


@jinja2.pass_context
def length(ctx, value) -> float:
    """`{{ length('9pt') }}`: a length in the template's units (mm, or px in a deck of units: px)."""
    deck = ctx.get("deck") or {}
    return template_length(value, deck.get("units", "mm"), deck.get("dpi"))


def _icon(inputs: Inputs, env) -> Callable:
    icons = inputs.icons or {}

    def icon(name, x, y, size, width=None):
        """An icon of the template folders, placed in a box."""
        if name not in icons:
            raise TextError(f"unknown icon '{shorten(str(name), 60)}' (icons: {', '.join(sorted(icons)) or 'none'})")
        return Markup(icons[name].svg(x, y, size, width))
    return icon


def _t(inputs: Inputs, env) -> Callable:
    real = translator(inputs.strings, inputs.language)

    def t(key, **values):
        """The edition's string `key`, its {placeholders} filled: measured before it is made."""
        found = lookup(inputs.strings, str(key))
        if isinstance(found, str):
            size = len(found) + sum(len(str(values.get(m.group(1), ""))) for m in PLACEHOLDER.finditer(found))
            refuse_over(size, f"t({shorten(str(key), 40)!r})")
        return real(key, **values)
    return t


def _own(name, kind, places, doc, make, reads=()) -> Helper:
    return Helper(name, kind, frozenset(places), doc, make, frozenset(reads))


def _jinja(kind: str, names: str, doc: str = "jinja2's own", places=EVERYWHERE) -> list[Helper]:
    return [Helper(n, kind, frozenset(places), doc) for n in names.split()]


HELPERS: tuple[Helper, ...] = (
    _own("range", "global", EVERYWHERE, "range(), counting to at most 100,000 numbers",
         lambda i, env: _plain_helper("range", bounded_range)),
    _own("keyed", "filter", EVERYWHERE, "a mapping from each item's key to the item (or a value of it)",
         lambda i, env: _plain_helper("keyed", keyed)),
    _own("fmt", "filter", EVERYWHERE, "Python's format() with a spec, widths bounded",
         lambda i, env: _plain_helper("fmt", fmt)),
    _own("fill", "global", (FACE,), "Jinja inside card text expanded, with game, data and card",
         lambda i, env: _plain_helper("fill", _fill(i, env))),
    _own("textbox", "global", (FACE,), "text wrapped and shrunk to a box, from the fonts' real metrics",
         lambda i, env: _plain_helper("textbox", _textbox(i, env)), reads=("fonts", "icons", "language", "text floor")),
    _own("length", "global", (FACE,), "a length with a unit ('9pt', '1in', '5mm', '300px') in the template's units",
         lambda i, env: _plain_helper("length", length)),
    _own("icon", "global", (FACE,), "an icon of the template folders in a box",
         lambda i, env: _plain_helper("icon", _icon(i, env)), reads=("icons",)),
    _own("t", "global", (FACE, RULEBOOK), "the edition's string, its {placeholders} filled",
         lambda i, env: _plain_helper("t", _t(i, env)), reads=("strings", "language")),
    _own("lang", "global", (FACE, RULEBOOK), "the edition's language (en, de, ar...)",
         lambda i, env: i.language, reads=("language",)),
    _own("direction", "global", (FACE, RULEBOOK), "ltr or rtl: how the edition's language is written",
         lambda i, env: direction_of(i.language), reads=("language",)),
    _own("card_id", "global", (FACE,), "the card's short id: six characters of its content's digest",
         lambda i, env: _plain_helper("card_id", cardid.card_id)),
    _own("qr", "global", (FACE,), "a QR code of a text as one vector path, at x, y, size wide",
         lambda i, env: _plain_helper("qr", cardid.qr_svg), reads=("segno",)),
    *_jinja("global", "dict cycler joiner namespace"),
    *_jinja("filter", "abs attr batch capitalize center count d default dictsort e escape filesizeformat "
                      "first float forceescape format groupby indent int items join last length list lower "
                      "map max min reject rejectattr replace reverse round safe select selectattr slice sort "
                      "string striptags sum title tojson trim truncate unique upper urlencode urlize wordcount "
                      "wordwrap xmlattr"),
    *_jinja("test", "boolean callable defined divisibleby eq equalto escaped even false filter float ge "
                    "greaterthan gt in integer iterable le lessthan lower lt mapping ne none number odd "
                    "sameas sequence string test true undefined upper"),
)
# jinja2's own left out: lipsum (filler text), random (a face would change from build to build),
# pprint (Python's repr of anything)

# the names a template is given as data, where: plain data (dicts, lists, text, numbers), checked
DATA = {
    FACE: ("card", "deck", "game", "side", "face", "face_number"),
    CARD_TEXT: ("game", "data", "card"),
    RULEBOOK: ("game", "data", "decks"),
}


def declared(place: str) -> dict[tuple[str, str], Helper]:
    """(kind, name) -> Helper: what an environment of `place` holds."""
    return {(h.kind, h.name): h for h in HELPERS if place in h.places}


def reads(place: str) -> frozenset:
    """Every input the helpers of `place` read besides their arguments (keys of READS)."""
    return frozenset().union(*(h.reads for h in HELPERS if place in h.places))


def environment(place: str, inputs: Inputs, **options) -> Sandbox:
    """A sandbox holding exactly what HELPERS declares for `place`."""
    env = Sandbox(inputs.deadline, **options)
    wanted = declared(place)
    for kind, table in (("global", env.globals), ("filter", env.filters), ("test", env.tests)):
        for name in [n for n in table if (kind, n) not in wanted]:
            del table[name]
    for (kind, name), helper in wanted.items():
        table = {"global": env.globals, "filter": env.filters, "test": env.tests}[kind]
        if helper.make is not None:
            table[name] = helper.make(inputs, env)
        elif name not in table:
            raise LookupError(f"jinja2 has no {kind} named {name}: HELPERS is out of date")
    return env


def face_environment(root: Path, folders, inputs: Inputs, compiled: dict[str, bytes] | None = None,
                     trusted=()) -> Sandbox:
    """Jinja for SVG faces: sandboxed, autoescaped (a card named 'Salt & Pepper' works),
    strict about names, templates read from `folders` inside `root` (`trusted` folders are
    pnp's own shared macros, read though they lie outside the project); compiled templates
    kept in `compiled` (a session's store) when given. Card text expanded by `fill()`
    runs in a sandbox of its own (the place "card text"), under the same deadline."""
    return environment(FACE, inputs, loader=ProjectLoader(root, folders, trusted),
                       bytecode_cache=CompiledTemplates(compiled) if compiled is not None else None,
                       autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                       keep_trailing_newline=True)


def rulebook_environment(inputs: Inputs) -> Sandbox:
    """Jinja for Markdown (the rulebook): sandboxed, not escaped, strict about names."""
    return environment(RULEBOOK, inputs, undefined=jinja2.StrictUndefined, autoescape=False,
                       keep_trailing_newline=True)


def template_data(place: str, **values) -> dict:
    """The data a template of `place` is given: only the names DATA declares, each plain.

    :raises SecurityError: a name not declared, or a value that is not plain data (pnp's own
        mistake, never the project's: the data comes from pnp's loaders).
    """
    for name, value in values.items():
        if name not in DATA[place]:
            raise SecurityError(f"'{name}' is not declared as data of a {place} template (helpers.DATA)")
        plain(value, f"the template's {name}")
    return values


def cache_words(place: str, inputs: Inputs) -> str:
    """The part of the face cache key that the helpers of `place` read: each input of READS
    they declare, in the order of its name."""
    return "".join(READS[name].word(inputs) for name in sorted(reads(place)))
