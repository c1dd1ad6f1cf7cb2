"""Draw every face of a game: Jinja templates -> SVG -> one vector PDF of faces.

In: a loaded `Game`. Out: a `RenderedGame`: for every card its front and back face
keys, and the faces drawn as PDF pages (identical faces, e.g. a shared back, are drawn
once; font subsets are shared), which layout places as vector forms. Template errors, text that cannot fit and characters the font
lacks are collected and raised together, each naming the card and the template.
"""
from __future__ import annotations

import hashlib
import io
import re
import traceback
from dataclasses import dataclass
from pathlib import Path

import jinja2

from .errors import Problem, RenderError, collect
from .faces import draw_faces
from .fonts import shipped
from .model import Card, Deck, Game
from .textfit import Icon, TextDoesNotFit, TextSetter, read_icon

SHARED = "_shared"  # templates/_shared/: macros and icons every game may use


@dataclass(frozen=True)
class RenderedCard:
    card: Card
    deck: Deck
    front: str            # face key
    back: str | None      # face key, None when the deck prints no back


@dataclass(frozen=True)
class RenderedGame:
    game: Game
    cards: tuple[RenderedCard, ...]
    faces_pdfs: tuple      # PDFs whose pages are the faces
    page_of: dict          # face key -> (index in faces_pdfs, page index)
    svgs: dict             # face key -> SVG text (for previews and tests)


def render_game(game: Game, guides: bool = False) -> RenderedGame:
    """Render every card of every deck.

    :param guides: draw the trim line and the safe area on each face (for template authors).
    :raises RenderError: listing every card that could not be drawn.
    """
    fonts = shipped()
    env = make_env(game)
    icons, problems = load_icons(game)
    setter = TextSetter(fonts, icons)
    env.globals.update(textbox=_textbox(setter), icon=_icon(icons))
    svgs: dict[str, str] = {}
    rendered = []
    for deck in game.decks:
        for card in deck.cards:
            keys = []
            for side, template in (("front", card.front), ("back", card.back)):
                if template is None:
                    keys.append(None)
                    continue
                svg = _render_face(env, game, deck, card, side, template, problems)
                if svg is None:
                    keys.append(None)
                    continue
                if guides:
                    svg = _with_guides(svg, deck)
                key = hashlib.sha256(svg.encode()).hexdigest()[:16]
                svgs.setdefault(key, svg)
                keys.append(key)
            rendered.append(RenderedCard(card, deck, keys[0], keys[1]))
    collect("while rendering", problems, RenderError)
    faces = draw_faces(svgs)
    for key, message in faces.problems:
        owner = _owner(rendered, key)
        problems.append(Problem(owner.card.source.file, message, line=owner.card.source.line, card=owner.card.id))
    collect("while drawing", problems, RenderError)
    return RenderedGame(game, tuple(rendered), faces.documents, faces.page_of, svgs)


def make_env(game: Game) -> jinja2.Environment:
    """Jinja for SVG: autoescaped (a card named 'Salt & Pepper' works), strict about names."""
    shared = game.root / "templates" / SHARED
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(game.templates_dir), str(shared)]),
        autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["fmt"] = lambda v, spec="g": format(v, spec)
    text_env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)

    @jinja2.pass_context
    def fill(ctx, text):
        """Expand Jinja inside card text (e.g. numbers from the game's data tables)."""
        g = ctx["game"]
        return text_env.from_string(str(text)).render(game=g, data=g["data"], card=ctx.get("card"))

    env.globals["fill"] = fill
    return env


def load_icons(game: Game) -> tuple[dict[str, Icon], list[Problem]]:
    """Icons from templates/_shared/icons/ and templates/<game>/icons/ (the game's win)."""
    icons, problems = {}, []
    for folder in (game.root / "templates" / SHARED / "icons", game.templates_dir / "icons"):
        for path in sorted(folder.glob("*.svg")) if folder.is_dir() else []:
            try:
                icons[path.stem] = read_icon(path.stem, path.read_text(encoding="utf-8"))
            except ValueError as exc:
                problems.append(Problem(str(path.relative_to(game.root)), str(exc)))
    return icons, problems


def _textbox(setter: TextSetter):
    def textbox(text, x, y, w, h, **style):
        return setter.svg(text, x=x, y=y, w=w, h=h, **style)
    return textbox


def _icon(icons: dict[str, Icon]):
    def icon(name, x, y, size, width=None):
        if name not in icons:
            raise TextDoesNotFit(f"unknown icon '{name}' (icons: {', '.join(sorted(icons)) or 'none'})")
        from markupsafe import Markup
        return Markup(icons[name].svg(x, y, size, width))
    return icon


def _render_face(env, game, deck, card, side, template, problems) -> str | None:
    where = f"templates/{game.id}/{template}"
    try:
        return env.get_template(template).render(
            card=card.context(), deck=deck.context(), game=_game_context(game), side=side)
    except jinja2.TemplateSyntaxError as exc:
        problems.append(Problem(_template_path(game, exc.filename, where), f"template syntax error: {exc.message}",
                                line=exc.lineno, card=card.id))
    except jinja2.TemplateNotFound as exc:
        problems.append(Problem(card.source.file, f"template '{exc.name}' not found", line=card.source.line,
                                card=card.id, field=side))
    except TextDoesNotFit as exc:
        problems.append(Problem(card.source.file, f"{side} ({template}): {exc}", line=card.source.line,
                                card=card.id))
    except (jinja2.UndefinedError, KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        file, line = _template_frame(game, exc, where)
        message = re.sub(r"'[\w.]*(LineDict|dict) object'", "card data", str(exc))
        problems.append(Problem(file, f"{side}: {message} (card data at {card.source.file}:{card.source.line})",
                                line=line, card=card.id))
    return None


_GAME_CONTEXT: dict = {}


def _game_context(game: Game) -> dict:
    key = id(game)
    if key not in _GAME_CONTEXT:
        _GAME_CONTEXT.clear()
        _GAME_CONTEXT[key] = game.context()
    return _GAME_CONTEXT[key]


def _template_path(game: Game, filename: str | None, fallback: str) -> str:
    if not filename:
        return fallback
    try:
        return str(Path(filename).resolve().relative_to(game.root.resolve()))
    except ValueError:
        return filename


def _template_frame(game: Game, exc: BaseException, fallback: str) -> tuple[str, int | None]:
    """The template file and line where a runtime error happened (Jinja maps frames to templates)."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename.endswith((".j2", ".svg", ".jinja")):
            return _template_path(game, frame.filename, fallback), frame.lineno
    return fallback, None


def _with_guides(svg: str, deck: Deck) -> str:
    b, s = deck.bleed, deck.safe
    overlay = (
        f'<g fill="none" stroke-width="0.25"><rect x="{b}" y="{b}" width="{deck.trim_w}" height="{deck.trim_h}" '
        f'rx="{deck.corner}" stroke="#e0004d" stroke-dasharray="1.5 1"/>'
        f'<rect x="{b + s}" y="{b + s}" width="{deck.trim_w - 2 * s}" height="{deck.trim_h - 2 * s}" '
        f'stroke="#0077cc" stroke-dasharray="0.6 0.8"/></g>')
    end = svg.rstrip().rfind("</svg>")
    return svg[:end] + overlay + svg[end:]


def _owner(rendered, key):
    for rc in rendered:
        if key in (rc.front, rc.back):
            return rc
    return None
