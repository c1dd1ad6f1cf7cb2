"""Draw every face of a game: Jinja templates -> SVG -> one vector PDF of faces.

In: a loaded `Game` and what the command line asks of its pictures (`pictures.Asked`).
Out: a `RenderedGame`: for every card its front and back face keys, and the faces drawn
as PDF pages (identical faces, e.g. a shared back, are drawn once; font subsets are
shared), which layout places as vector forms, with the warnings of the drawing (a
picture below `print: min_image_dpi`, a reference that is not followed). Template errors,
text that cannot fit and characters the font lacks are collected and raised together,
each naming the card and the template.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import jinja2
from jinja2.sandbox import SecurityError

from ..data.glossary import glossary_of
from ..data.model import Card, Deck, Game
from ..errors import Problem, RenderError, collect
from ..guard import OutsideProject, TimeLimit, read_text_inside
from ..session import Session
from . import external
from .bundlepdf import Facts, face_facts, fontset
from .bundles import SVGTexts
from .cardid import short_id
from .drawkey import SALT, _fonts_digest, _game_fonts_digest
from .facecache import Bundles
from .faces import FontsUsed, draw_faces
from .faceunits import in_print_units
from .fontnotes import family_line, font_notes
from .fonts import font_files, for_game, game_font_problems, shipped
from .helpers import FACE, Inputs, cache_words, face_environment, template_data
from .hyphenate import for_game as hyphenation_of
from .hyphenate import keep_points, remembering_points
from .jinja_errors import plain_message, template_line
from .markup import expand_keywords
from .pictures import Asked, Policy, policy_for
from .templates import CardTextError, TemplateLimit, TemplateOutside, render
from .textfit import MIN_TEXT_PT, Icon, TextError, TextSetter, read_icon, small_text
from .textink import ink_warnings

SHARED = "_shared"  # templates/_shared/: macros and icons every game may use
PNP_SHARED = Path(__file__).parents[1] / "assets" / "shared"  # pnp's own macros: used when a project has none


@dataclass(frozen=True)
class RenderedCard:
    card: Card
    deck: Deck
    front: str | None     # face key; None only when its template failed (render_game raises then)
    back: str | None      # face key, None when the deck prints no back
    faces: tuple = ()     # dice: the key of every face, in the order of the card's `faces`


@dataclass(frozen=True)
class RenderedGame:
    game: Game
    cards: tuple[RenderedCard, ...]
    faces_pdfs: Bundles    # PDFs whose pages are the faces
    page_of: dict          # face key -> (index in faces_pdfs, page index)
    warnings: tuple = ()   # Problems (severity warning): pictures too small to print, external references
    draw_keys: dict = field(default_factory=dict)  # face key -> draw key (hash of all that decides its pixels)
    drawn: int = 0         # bundles of faces drawn by this build (the others came from the face cache)
    stamp: object = None   # the version stamp every face carries (stamp.Stamp), for page footers too
    draft: bool = False    # pictures drawn at draft resolution (--draft): not for print
    notes: tuple = ()      # Problems of severity "note": said once (a shipped face standing in for Arial)
    proof: bool = False    # the low-ink proof of every face (--proof: draw/proof.py)


def render_game(game: Game, session: Session, guides: bool = False, cache=None, progress=None,
                stamp=None, pictures: Asked | None = None, proof: bool = False) -> RenderedGame:
    """Render every card of every deck.

    :param guides: draw the trim line and the safe area on each face (for template authors).
    :param stamp: a `stamp.Stamp` drawn on every face (a version mark), or None.
    :param cache: a `FaceCache` (faces.py draws only the bundles of faces it lacks).
    :param progress: see `draw_faces`.
    :param session: what the render may reuse from earlier builds, its limits and stopwatch.
    :param pictures: what the command line asks of pictures (--image-dpi, --draft, the store).
    :param proof: draw each face's low-ink proof (draw/proof.py) instead of the face.
    :raises RenderError: listing every card that could not be drawn.
    """
    with session.stage("jinja"):
        found = render_svgs(game, session, guides, stamp, proof)
    return draw_found(game, found, session, cache, progress, pictures, stamp, proof)


def draw_found(game: Game, found: FaceSVGs, session: Session, cache=None, progress=None,
               pictures: Asked | None = None, stamp=None, proof: bool = False) -> RenderedGame:
    """`render_game` once `render_svgs` made the faces' SVG (the colour check reads them too)."""
    policy = policy_for(game.meta.get("print"), pictures)
    rendered, svgs, sizes, roots, problems = list(found.cards), found.svgs, found.sizes, found.roots, found.problems
    # faces that did render are still drawn, so one run also finds their missing characters
    with session.stage("drawing (CairoSVG)"):
        faces = draw_faces(svgs, session, sizes, roots, cache=cache, progress=progress,
                           fonts_used=FontsUsed(found.game_fonts, found.facts), policy=policy)
    owners: dict[str | None, RenderedCard] = {}   # face key -> the first card that shows it
    for rc in rendered:
        for key in (rc.front, rc.back, *rc.faces):
            owners.setdefault(key, rc)
    for key, message in faces.problems:
        card = owners[key].card
        named = family_line(game, message)   # a font error: at the template line naming the font
        problems.append(Problem(named[0], f"{message} (card data at {card.source.file}:{card.source.line})",
                                line=named[1], card=card.id) if named else
                        Problem(card.source.file, message, line=card.source.line, card=card.id))
    collect("while drawing", _unique(problems), RenderError)
    warnings = [p for p in found.notes if p.severity == "warning"] + _unique(_picture_warnings(faces.pictures,
                                                                                              owners, policy))
    warnings += [Problem(owners[key].card.source.file, message, line=owners[key].card.source.line,
                         card=owners[key].card.id, severity="warning")
                 for key in svgs for message in external.remembered(svgs, key, session.memo)]
    with session.stage("text ink"):
        warnings += _unique(ink_warnings(game, owners, svgs, fontset(found.game_fonts), session.memo))
    floor = min_text_pt_of(game)
    warnings += [Problem(owners[key].card.source.file, message, line=owners[key].card.source.line,
                         card=owners[key].card.id, severity="warning")
                 for key in svgs for message in session.memo.derived(
                     ("small text", floor, key), lambda key=key: tuple(small_text(svgs[key], floor)))]
    return RenderedGame(game, tuple(rendered), faces.documents, faces.page_of, tuple(warnings),
                        draw_keys=faces.draw_keys, drawn=faces.drawn, draft=policy.draft, stamp=stamp,
                        notes=tuple(p for p in found.notes if p.severity == "note"),
                        proof=proof)


def _picture_warnings(pictures: dict, owners: dict, policy: Policy) -> list[Problem]:
    """A warning for each picture a face places below `print: min_image_dpi`, and for each
    remark on its colours, naming the card (the first that shows the face) and its side."""
    found = []
    for key, (placed, notes) in sorted(pictures.items(), key=lambda item: _card_order(owners, item[0])):
        rc = owners[key]
        side = "front" if key == rc.front else "back" if key == rc.back else f"face {rc.faces.index(key) + 1}"
        messages = [m for m in (p.warning(policy.min_dpi) for p in placed) if m] + list(notes)
        for message in dict.fromkeys(messages):
            found.append(Problem(rc.card.source.file, f"{side}: {message}", line=rc.card.source.line,
                                 card=rc.card.id, severity="warning"))
    return found


def min_text_pt_of(game: Game) -> float:
    """The legibility floor: game.yaml's `print: min_text_pt`, else 6 pt."""
    return float((game.meta.get("print") or {}).get("min_text_pt", MIN_TEXT_PT))


def _card_order(owners: dict, key: str) -> tuple:
    rc = owners[key]
    return rc.card.source.file, rc.card.source.line or 0, key


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
    facts: tuple | None = None       # every face's `bundlepdf.face_facts` together (for the primer page)
    notes: tuple = ()                # what is said once of its fonts (draw/fontnotes.py)


def render_svgs(game: Game, session: Session, guides: bool = False, stamp=None, proof: bool = False) -> FaceSVGs:
    """Every face of every card as SVG text (Jinja only, nothing drawn; `proof`: their
    low-ink proofs, proof.py); the templates that failed are in `problems`. A remembering
    session's memo gives back the SVG of a face whose inputs are those of a face it
    rendered before."""
    memo = session.memo
    icons, problems = load_icons(game)
    shown_fonts = f"templates/{game.id}/fonts"
    unusable = game_font_problems(game.root, game.templates_dir / "fonts")
    problems.extend(Problem(f"{shown_fonts}/{path.name}", message) for path, message in unusable)
    # (templates dir, as shown); None: the game's fonts are not used at all (fontconfig would read every file)
    system = game.meta.get("fonts") == "system"   # "system" third: the machine's fonts too
    game_fonts: tuple | None = None if unusable else (str(game.templates_dir), shown_fonts, *(("system",) * system))
    hyphenation = remembering_points(hyphenation_of(game), memo)
    setter = TextSetter(for_game(game.templates_dir, game_fonts[1], system) if game_fonts else shipped(), icons,
                        game.meta.get("language", "en"), hyphenation, min_text_pt=min_text_pt_of(game))
    notes = font_notes(game, setter.fonts)
    problems.extend(p for p in notes if p.severity == "error")
    deadline = session.limits.deadline("rendering the face")
    own_fonts = _game_fonts_digest(game_fonts) if game_fonts and (font_files(game.templates_dir / "fonts") or system) \
        else ""
    inputs = Inputs(deadline, setter=setter, icons=icons, strings=game.strings, language=game.language,
                    stage=session.stage, fonts=_fonts_digest() + _fonts_digest(True) + own_fonts)
    env = make_env(game, session, inputs)
    game_context = template_data(FACE, game=game.context())["game"]
    svgs = SVGTexts()
    facts = Facts()
    sizes: dict[str, tuple[float, float]] = {}
    rendered = []
    keywords = glossary_of(game).keywords   # :kw[Name]: in card text, printed with its reminder
    words = cache_words(FACE, inputs)   # what the helpers read besides their arguments (helpers.READS)
    scope = memo.scope((game.templates_dir, game.root / "templates" / SHARED, PNP_SHARED), game_context,
                       lambda: SALT + words + hyphenation.rules_key())
    for deck in game.decks:
        deck_context = template_data(FACE, deck=deck.context())["deck"]
        deck_scope = memo.deck_scope(scope, deck_context)
        for card in deck.cards:
            session.working_on = card.id   # named if the command runs out of time here
            keys: list[str | None] = []
            fields = expand_keywords(card.context(), keywords, game.language) if keywords else card.context()
            card_context = template_data(FACE, card=fields)["card"]   # once a card, both sides
            card_key = memo.card_key(card_context)
            contexts = (game_context, deck_context, card_context)
            sides: list[tuple[str, str | None, dict]] = [("front", card.front, {}), ("back", card.back, {})]
            if deck.family.per_face:  # the front template draws each face of the die in turn
                sides = [("front", card.front, {"face": face, "face_number": n})
                         for n, face in enumerate(card.fields.get("faces") or (), start=1)]
            for side, template, extra in sides:
                svg = None
                if template is not None:   # the same inputs as a render a remembering session did: its SVG
                    svg = memo.face(partial(memo.face_key, env, scope, deck_scope, card_key, side, template, extra),
                                    partial(_render_face, env, game, contexts, card, side, template, problems, extra),
                                    setter)
                if svg is not None and deck.units == "px":   # drawn in pixels: a face in mm (faceunits.py)
                    try:
                        svg = in_print_units(svg, deck)
                    except ValueError as exc:
                        problems.append(Problem(f"templates/{game.id}/{template}", f"{side}: {exc}", card=card.id))
                        svg = None
                if svg is not None and proof:
                    svg = _proofed(memo, svg, deck, problems, card, f"{side}: {template}")
                if svg is None:
                    keys.append(None)
                    continue
                if guides:
                    svg = _with_guides(svg, deck)
                if stamp is not None:
                    svg = stamp.on(svg, deck, short_id(card_context) if stamp.face else "")
                home = f"{deck.id}/{card.id}/{side}{extra.get('face_number', '')}"
                key = svgs.add(memo.derived(("packed", svg), lambda svg=svg: svgs.pack(svg)), home)
                if key not in sizes:   # its facts now, while the layouts of its text boxes are at hand
                    facts.add(memo.derived(("face facts", own_fonts, key),
                                           lambda svg=svg: face_facts(svg, setter.fonts)))
                sizes[key] = (deck.width, deck.height)
                keys.append(key)
            if deck.family.per_face:
                rendered.append(RenderedCard(card, deck, keys[0] if keys else None, None, tuple(keys)))
            else:
                rendered.append(RenderedCard(card, deck, keys[0], keys[1]))
    session.working_on = None
    keep_points(hyphenation, memo)
    roots = tuple(str(p.resolve()) for p in (game.templates_dir, game.root / "templates" / SHARED))
    return FaceSVGs(tuple(rendered), svgs, sizes, roots, problems, game_fonts if own_fonts else None, own_fonts,
                    facts.merged(), tuple(notes))


def _proofed(memo, svg: str, deck: Deck, problems: list, card: Card, where: str) -> str | None:
    """The proof of a face (remembered by a remembering memo); None, with a problem naming
    the card and its template, when a `data-proof` is not one proof.py knows."""
    from lxml.etree import XMLSyntaxError

    from .proof import proof_svg

    try:
        return memo.derived(("proof", svg), lambda: proof_svg(svg, deck.width, deck.height))
    except (ValueError, XMLSyntaxError) as exc:
        problems.append(Problem(card.source.file, f"{where}: proof: {exc}", line=card.source.line, card=card.id))
        return None


def make_env(game: Game, session: Session, inputs: Inputs):
    """The sandboxed Jinja environment for a game's faces (helpers.face_environment):
    the game's template folders, then the shared ones; the session's store of compiled
    templates; the helpers' `inputs`."""
    folders = [game.templates_dir, game.root / "templates" / SHARED, PNP_SHARED]
    return face_environment(game.root, folders, inputs, session.templates, trusted=(PNP_SHARED,))


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


def _render_face(env, game, contexts, card, side, template, problems, extra=None) -> str | None:
    """One face's SVG, or None with its problem added; `contexts`: the game's, the deck's and
    the card's template data."""
    game_context, deck_context, card_context = contexts
    where = f"templates/{game.id}/{template}"

    def in_template(exc):  # (file, line) of the template code that failed
        file, line = template_line(exc, lambda f: f.endswith((".j2", ".svg", ".jinja")))
        return _template_path(game, file, where), line
    try:
        return render(env.get_template(template), env.deadline, card=card_context, deck=deck_context,
                      game=game_context, side=side, **(extra or {}))
    except jinja2.TemplateSyntaxError as exc:
        problems.append(Problem(_template_path(game, exc.filename, where), f"template syntax error: {exc.message}",
                                line=exc.lineno, card=card.id))
    except SyntaxError as exc:  # what Jinja's parser lets through to Python's (a keyword given twice)
        problems.append(Problem(_template_path(game, exc.filename, where), f"template syntax error: {exc.msg}",
                                card=card.id))   # its line is one of the generated Python, not the template's
    except jinja2.TemplateNotFound as exc:
        problems.append(Problem(where, f"template '{exc.name}' not found", card=card.id, field=side))
    except TemplateOutside as exc:
        file, line = in_template(exc)
        problems.append(Problem(file, str(exc), line=line, card=card.id))
    except SecurityError as exc:
        file, line = in_template(exc)
        problems.append(Problem(file, f"{side}: the template reaches for what templates may not use "
                                      f"({plain_message(exc)}): a template is data, not code, and pnp renders "
                                      "it in a sandbox", line=line, card=card.id))
    except (TemplateLimit, TimeLimit) as exc:
        file, line = in_template(exc)
        problems.append(Problem(file, f"{side}: {exc}", line=line, card=card.id))
    except RecursionError as exc:
        file, line = in_template(exc)
        problems.append(Problem(file, f"{side}: the template calls itself without end (a macro that calls "
                                      "itself?)", line=line, card=card.id))
    except MemoryError:
        problems.append(Problem(where, f"{side}: the template made more than this machine can hold",
                                card=card.id))
    except OSError as exc:   # only a template past the sandbox reaches the system, and the jail refuses it
        file, line = in_template(exc)
        problems.append(Problem(file, f"{side}: the template reached past the sandbox and the system refused "
                                      f"({exc.strerror or type(exc).__name__}): a template is data, not code",
                                line=line, card=card.id))
    except (TextError, CardTextError) as exc:
        if str(exc).startswith("font '"):   # the template names the font: said at its line
            file, line = in_template(exc)
            problems.append(Problem(file, f"{side}: {exc} (card data at {card.source.file}:{card.source.line})",
                                    line=line, card=card.id))
        else:
            problems.append(Problem(card.source.file, f"{side} ({template}): {exc}", line=card.source.line,
                                    card=card.id))
    except (jinja2.TemplateError, LookupError, TypeError, ValueError, ArithmeticError) as exc:
        file, line = in_template(exc)
        problems.append(Problem(file, f"{side}: {plain_message(exc, 'card data')} "
                                      f"(card data at {card.source.file}:{card.source.line})", line=line, card=card.id))
    except Exception as exc:  # anything else a template or its data provoke: said, never a traceback
        file, line = in_template(exc)
        problems.append(Problem(file, f"{side}: {type(exc).__name__}: {plain_message(exc, 'card data')}",
                                line=line, card=card.id))
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
    elif deck.shape == "hex" or deck.family.polygon:
        def ring(shrink):
            pts = []
            for x, y in outline:
                dx, dy = x - cx, y - cy
                d = (dx * dx + dy * dy) ** 0.5 or 1.0
                pts.append(f"{x - dx / d * shrink:.3f},{y - dy / d * shrink:.3f}")
            return " ".join(pts)
        if deck.family.polygon:  # the polygon's own centre
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
