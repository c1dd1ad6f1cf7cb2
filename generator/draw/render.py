"""Draw every face of a game: Jinja templates -> SVG -> one vector PDF of faces.

In: a loaded `Game`. Out: a `RenderedGame`: for every card its front and back face
keys, and the faces drawn as PDF pages (identical faces, e.g. a shared back, are drawn
once; font subsets are shared), which layout places as vector forms. Template errors, text
that cannot fit and characters the font lacks are collected and raised together, each
naming the card and the template.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
from jinja2.sandbox import SandboxedEnvironment
from markupsafe import Markup

from ..data.model import Card, Deck, Game
from ..errors import Problem, RenderError, collect
from ..guard import OutsideProject, inside, read_text_inside
from ..rendermemo import MEMO, card_json
from ..stopwatch import stage
from .bundles import SVGTexts
from .drawkey import SALT, _fonts_digest, _game_fonts_digest
from .faces import draw_faces
from .fonts import font_files, for_game
from .jinja_errors import plain_message, template_line
from .textfit import Icon, TextError, TextSetter, read_icon

SHARED = "_shared"  # templates/_shared/: macros and icons every game may use
PNP_SHARED = Path(__file__).parents[1] / "assets" / "shared"  # pnp's own macros: used when a project has none


@dataclass(frozen=True)
class RenderedCard:
    card: Card
    deck: Deck
    front: str            # face key
    back: str | None      # face key, None when the deck prints no back
    faces: tuple = ()     # dice: the key of every face, in the order of the card's `faces`


@dataclass(frozen=True)
class RenderedGame:
    game: Game
    cards: tuple[RenderedCard, ...]
    faces_pdfs: tuple      # PDFs whose pages are the faces
    page_of: dict          # face key -> (index in faces_pdfs, page index)
    warnings: tuple = ()   # Problems (severity warning): external references that were not followed
    draw_keys: dict = field(default_factory=dict)  # face key -> draw key (hash of all that decides its pixels)
    drawn: int = 0         # bundles of faces drawn by this build (the others came from the face cache)


def render_game(game: Game, guides: bool = False, cache=None, progress=None) -> RenderedGame:
    """Render every card of every deck.

    :param guides: draw the trim line and the safe area on each face (for template authors).
    :param cache: a `FaceCache` (faces.py draws only the bundles of faces it lacks).
    :param progress: see `draw_faces`.
    :raises RenderError: listing every card that could not be drawn.
    """
    with stage("jinja"):
        found = render_svgs(game, guides)
    rendered, svgs, sizes, roots, problems = list(found.cards), found.svgs, found.sizes, found.roots, found.problems
    # faces that did render are still drawn, so one run also finds their missing characters
    with stage("drawing (CairoSVG)"):
        faces = draw_faces(svgs, sizes, roots, cache=cache, progress=progress, game_fonts=found.game_fonts)
    owners = {}
    for rc in rendered:
        for key in (rc.front, rc.back, *rc.faces):
            owners.setdefault(key, rc)
    for key, message in faces.problems:
        card = owners[key].card
        problems.append(Problem(card.source.file, message, line=card.source.line, card=card.id))
    collect("while drawing", _unique(problems), RenderError)
    warnings = [Problem(owners[key].card.source.file, message, line=owners[key].card.source.line,
                        card=owners[key].card.id, severity="warning")
                for key in svgs for message in _external(svgs, key)]
    return RenderedGame(game, tuple(rendered), faces.documents, faces.page_of, tuple(warnings),
                        draw_keys=faces.draw_keys, drawn=faces.drawn)


@dataclass(frozen=True)
class FaceSVGs:
    """The render stage before drawing: every card's face keys and every distinct face's SVG."""
    cards: tuple[RenderedCard, ...]
    svgs: SVGTexts         # face key -> SVG text (kept compressed)
    sizes: dict            # face key -> (w, h) mm
    roots: tuple           # folders <image> may read
    problems: list         # templates that failed (raised once the others are drawn)
    game_fonts: tuple | None = None  # (templates dir, as shown) of a game with fonts of its own
    fonts_digest: str = ""           # hash of those fonts: part of every face's draw key


def render_svgs(game: Game, guides: bool = False) -> FaceSVGs:
    """Every face of every card as SVG text (Jinja only, nothing drawn); the templates that
    failed are in `problems`."""
    env = make_env(game)
    icons, problems = load_icons(game)
    game_fonts = (str(game.templates_dir), f"templates/{game.id}/fonts")
    setter = TextSetter(for_game(game.templates_dir, game_fonts[1]), icons)
    problems.extend(Problem(game_fonts[1], f"font family '{family}' ships with pnp already: use pnp's, or give "
                                           "the game's its own family name") for family in setter.fonts.clashes())
    env.globals.update(textbox=_textbox(setter), icon=_icon(icons))
    game_context = game.context()
    svgs = SVGTexts()
    sizes: dict[str, tuple[float, float]] = {}
    rendered = []
    own_fonts = _game_fonts_digest(game_fonts) if font_files(game.templates_dir / "fonts") else ""
    scope = MEMO.scope((game.templates_dir, game.root / "templates" / SHARED, PNP_SHARED), game_context,
                       SALT + _fonts_digest() + own_fonts) if MEMO.on else None
    for deck in game.decks:
        deck_context = deck.context()
        deck_scope = MEMO.deck_scope(scope, deck_context) if MEMO.on else None
        for card in deck.cards:
            keys = []
            card_key = card_json(card.context()) if MEMO.on else None
            sides = [("front", card.front, {}), ("back", card.back, {})]
            if deck.layout == "dice":  # the front template draws each face of the die in turn
                sides = [("front", card.front, {"face": face, "face_number": n})
                         for n, face in enumerate(card.fields.get("faces") or (), start=1)]
            for side, template, extra in sides:
                svg = None
                if template is not None and MEMO.on:  # the same inputs as a render this process did: its SVG
                    remembered = MEMO.key(deck_scope, card_key, side, template, extra,
                                          MEMO.reads_decks(env, scope[2], template))
                    svg = MEMO.get(remembered)
                    if svg is None:
                        svg = _render_face(env, game, game_context, deck_context, card, side, template, problems, extra)
                        if svg is not None:
                            MEMO.put(remembered, svg)
                elif template is not None:
                    svg = _render_face(env, game, game_context, deck_context, card, side, template, problems, extra)
                if svg is None:
                    keys.append(None)
                    continue
                if guides:
                    svg = _with_guides(svg, deck)
                home = f"{deck.id}/{card.id}/{side}{extra.get('face_number', '')}"
                key = svgs.add(MEMO.derived(("packed", svg), lambda svg=svg: svgs.pack(svg)) if MEMO.on else svg, home)
                sizes[key] = (deck.width, deck.height)
                keys.append(key)
            if deck.layout == "dice":
                rendered.append(RenderedCard(card, deck, keys[0] if keys else None, None, tuple(keys)))
            else:
                rendered.append(RenderedCard(card, deck, keys[0], keys[1]))
    roots = tuple(str(p.resolve()) for p in (game.templates_dir, game.root / "templates" / SHARED))
    return FaceSVGs(tuple(rendered), svgs, sizes, roots, problems, game_fonts if own_fonts else None, own_fonts)


_EXTERNAL = [
    (re.compile(r"<!DOCTYPE[^>]*\b(SYSTEM|PUBLIC)\b", re.I), "an external DTD (<!DOCTYPE ... SYSTEM>)"),
    (re.compile(r"<\?xml-stylesheet\b", re.I), "an <?xml-stylesheet?> link"),
    (re.compile(r"@import\b", re.I), "a CSS @import"),
    (re.compile(r"url\(\s*+['\"]?+(?!#|data:)([^)'\"]{0,60})", re.I), "url({0})"),
    (re.compile(r"<(?!image\b)(\w+)[^>]*?\s(?:xlink:)?href\s*=\s*['\"](?![#'\"]|data:)([^'\"]{0,60})"),
     "<{0} href=\"{1}\">"),
]


def _external(svgs, key: str) -> tuple[str, ...]:
    """`external_references` of a face (remembered by its key while `pnp watch` rebuilds)."""
    return MEMO.derived(("external references", key), lambda: tuple(external_references(svgs[key])))


def external_references(svg: str) -> list[str]:
    """Warnings for references to other files or the network in a face's SVG: CairoSVG never
    follows them (pnp reads nothing from the network), so what they point at is missing."""
    low = svg.lower()
    if not any(hint in low for hint in ("href", "url(", "@import", "<?xml-stylesheet", "<!doctype")):
        return []  # the usual face: none of the patterns can match
    found = []
    for pattern, what in _EXTERNAL:
        for m in pattern.finditer(svg):
            shown = what.format(*(g for g in m.groups() if g is not None)) if "{" in what else what
            message = f"{shown} is not followed (pnp fetches nothing outside the SVG); what it refers to is missing"
            if message not in found:
                found.append(message)
    return found


class CardTextError(Exception):
    """Jinja inside a card's text (expanded by fill()) failed."""


class _CompiledTemplates(jinja2.BytecodeCache):
    """Compiled templates kept for the life of the process (`pnp watch` rebuilds without
    recompiling); Jinja checks each entry against a checksum of the template's source."""

    def __init__(self):
        self.store: dict[str, bytes] = {}

    def load_bytecode(self, bucket):
        if bucket.key in self.store:
            bucket.bytecode_from_string(self.store[bucket.key])

    def dump_bytecode(self, bucket):
        self.store[bucket.key] = bucket.bytecode_to_string()


_COMPILED = _CompiledTemplates()


def make_env(game: Game) -> jinja2.Environment:
    """Jinja for SVG: autoescaped (a card named 'Salt & Pepper' works), strict about names."""
    shared = game.root / "templates" / SHARED
    env = jinja2.Environment(
        loader=ProjectLoader(game.root, [str(game.templates_dir), str(shared), str(PNP_SHARED)]),
        bytecode_cache=_COMPILED, autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["fmt"] = lambda v, spec="g": format(v, spec)
    # card text is data, not code: expand it in a sandbox
    text_env = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)

    @jinja2.pass_context
    def fill(ctx, text):
        """Expand Jinja inside card text (e.g. numbers from the game's data tables)."""
        g = ctx["game"]
        try:
            return text_env.from_string(str(text)).render(game=g, data=g["data"], card=ctx.get("card"))
        except jinja2.TemplateError as exc:
            raise CardTextError(f"Jinja in the card's text: {plain_message(exc)}") from None

    env.globals["fill"] = fill
    return env


class ProjectLoader(jinja2.FileSystemLoader):
    """Templates and `{% include %}`s from the template folders, refusing any file that a
    symlink leads outside the project (a folder `sys -> /etc` would print /etc on the cards)."""

    def __init__(self, root: Path, searchpath):
        super().__init__(searchpath)
        self.root = root

    def get_source(self, environment, template):
        source, filename, uptodate = super().get_source(environment, template)
        try:
            if Path(filename).parent != PNP_SHARED:
                inside(self.root, filename, f"template '{template}'")
        except OutsideProject as exc:
            raise TemplateOutside(str(exc)) from None
        return source, filename, uptodate


class TemplateOutside(jinja2.TemplateError):
    """A template or include that a symlink leads outside the project."""


def load_icons(game: Game) -> tuple[dict[str, Icon], list[Problem]]:
    """Icons from templates/_shared/icons/ and templates/<game>/icons/ (the game's win)."""
    icons, problems = {}, []
    for folder in (game.root / "templates" / SHARED / "icons", game.templates_dir / "icons"):
        for path in sorted(folder.glob("*.svg")) if folder.is_dir() else []:
            shown = str(path.relative_to(game.root))
            try:
                icons[path.stem] = read_icon(path.stem, read_text_inside(game.root, path, f"icon {shown}"))
            except (ValueError, OutsideProject) as exc:
                problems.append(Problem(shown, str(exc)))
    return icons, problems


def _textbox(setter: TextSetter):
    def textbox(text, x, y, w, h, **style):
        with stage("text fitting"):
            return setter.svg(text, x=x, y=y, w=w, h=h, **style)
    return textbox


def _icon(icons: dict[str, Icon]):
    def icon(name, x, y, size, width=None):
        if name not in icons:
            raise TextError(f"unknown icon '{name}' (icons: {', '.join(sorted(icons)) or 'none'})")
        return Markup(icons[name].svg(x, y, size, width))
    return icon


def _render_face(env, game, game_context, deck_context, card, side, template, problems, extra=None) -> str | None:
    where = f"templates/{game.id}/{template}"
    try:
        return env.get_template(template).render(
            card=card.context(), deck=deck_context, game=game_context, side=side, **(extra or {}))
    except jinja2.TemplateSyntaxError as exc:
        problems.append(Problem(_template_path(game, exc.filename, where), f"template syntax error: {exc.message}",
                                line=exc.lineno, card=card.id))
    except jinja2.TemplateNotFound as exc:
        problems.append(Problem(where, f"template '{exc.name}' not found", card=card.id, field=side))
    except TemplateOutside as exc:
        file, line = template_line(exc, lambda f: f.endswith((".j2", ".svg", ".jinja")))
        problems.append(Problem(_template_path(game, file, where), str(exc), line=line, card=card.id))
    except (TextError, CardTextError) as exc:
        problems.append(Problem(card.source.file, f"{side} ({template}): {exc}", line=card.source.line,
                                card=card.id))
    except (jinja2.TemplateError, LookupError, TypeError, ValueError, ArithmeticError) as exc:
        file, line = template_line(exc, lambda f: f.endswith((".j2", ".svg", ".jinja")))
        problems.append(Problem(_template_path(game, file, where),
                                f"{side}: {plain_message(exc, 'card data')} "
                                f"(card data at {card.source.file}:{card.source.line})", line=line, card=card.id))
    return None


_CARD_DATA = re.compile(r" \(card data at [^)]*\)$")
SHOWN_CARDS = 8


def _unique(problems: list[Problem]) -> list[Problem]:
    """The same problem met by many cards (a broken shared template, a character missing from
    a font) is one message listing the cards: "templates/x/card.svg.j2:12: front: 'cost' is
    undefined (54 cards: a, b, c, ...)"."""
    groups: dict[tuple, list[Problem]] = {}
    for p in problems:
        core = _CARD_DATA.sub("", p.message)
        key = (p.file, p.line, core) if p.file.startswith("templates/") else (p.file, core, p.field)
        groups.setdefault(key, []).append(p)
    out = []
    for found in groups.values():
        cards = list(dict.fromkeys(p.card for p in found if p.card))
        first = found[0]
        if len(cards) <= 1:
            out.append(first)
            continue
        shown = ", ".join(cards[:SHOWN_CARDS]) + (", ..." if len(cards) > SHOWN_CARDS else "")
        core = _CARD_DATA.sub("", first.message)
        out.append(Problem(first.file, f"{core} ({len(cards)} cards: {shown})", line=first.line,
                           field=first.field, severity=first.severity))
    return out


def _template_path(game: Game, filename: str | None, fallback: str) -> str:
    if not filename:
        return fallback
    try:
        return str(Path(filename).resolve().relative_to(game.root.resolve()))
    except ValueError:
        return filename


def _with_guides(svg: str, deck: Deck) -> str:
    """The face with its cut line (red) and safe area (blue) drawn on top, in the deck's shape."""
    b, s = deck.bleed, deck.safe
    cx, cy = b + deck.trim_w / 2, b + deck.trim_h / 2
    trim_style, safe_style = 'stroke="#e0004d" stroke-dasharray="1.5 1"', 'stroke="#0077cc" stroke-dasharray="0.6 0.8"'
    outline = deck.context()["outline"]
    if deck.shape == "circle":
        trim = f'<circle cx="{cx}" cy="{cy}" r="{deck.trim_w / 2}" {trim_style}/>'
        safe = f'<circle cx="{cx}" cy="{cy}" r="{deck.trim_w / 2 - s}" {safe_style}/>'
    elif deck.shape == "hex" or deck.layout == "dice":
        def ring(shrink):
            pts = []
            for x, y in outline:
                dx, dy = x - cx, y - cy
                d = (dx * dx + dy * dy) ** 0.5 or 1.0
                pts.append(f"{x - dx / d * shrink:.3f},{y - dy / d * shrink:.3f}")
            return " ".join(pts)
        if deck.layout == "dice":  # the polygon's own centre
            cx = sum(x for x, _ in outline) / len(outline)
            cy = sum(y for _, y in outline) / len(outline)
        trim = f'<polygon points="{ring(0)}" {trim_style}/>'
        safe = f'<polygon points="{ring(s)}" {safe_style}/>'
    else:
        trim = (f'<rect x="{b}" y="{b}" width="{deck.trim_w}" height="{deck.trim_h}" rx="{deck.corner}" '
                f'{trim_style}/>')
        safe = (f'<rect x="{b + s}" y="{b + s}" width="{deck.trim_w - 2 * s}" height="{deck.trim_h - 2 * s}" '
                f'{safe_style}/>')
    overlay = f'<g fill="none" stroke-width="0.25">{trim}{safe}</g>'
    end = svg.rstrip().rfind("</svg>")
    return svg[:end] + overlay + svg[end:]
