"""Everything `pnp build` would refuse, found in one pass without writing a file.

In: a loaded `Game` and the papers to check. Out: a list of `Problem`s from every later
stage of a build: the game's own words in the fonts that print them, every card drawn in
memory (template errors, text that cannot fit, fonts and characters, images, face sizes),
the sheets planned on each paper (a component larger than the paper; inside the area of
the game's `print: cutter`; warnings for text on the seams of a glued board), the game's
`print: stamp` (its fields, its room on every deck), and the rulebook (a missing file,
Jinja errors, figures naming unknown cards). `pnp validate` runs it by
default; the rules themselves are checked by `rules/`.
"""
from __future__ import annotations

from .draw.glyphs import printed_text_problems
from .errors import InputError, PnpError, Problem
from .session import Session

PAPERS = ("a4", "letter")


def preflight(game, session: Session, papers: tuple[str, ...] | None = None) -> list[Problem]:
    """Every problem a build of `game` would stop at (none: the build will succeed, rules aside)."""
    return preflight_report(game, session, papers)[0]


def preflight_report(game, session: Session, papers: tuple[str, ...] | None = None,
                     pictures=None) -> tuple[list[Problem], list[Problem]]:
    """The problems a build would stop at, and the warnings it would print (a picture
    below `print: min_image_dpi`, an external reference in an SVG that cannot be
    followed); within the session's limits, pictures as `pictures` (draw.pictures.Asked) asks."""
    from .draw.render import render_game
    from .draw.stamp import stamp_of
    from .layout.cutters import CutterError, cutter_sheet
    from .layout.pages import plan_for_cutter, plan_pages
    from .layout.seams import text_on_seams
    from .units import paper_size

    with session.stage("fonts"):
        problems = list(printed_text_problems(game))
    warnings: list[Problem] = []
    try:
        rendered = render_game(game, session=session, pictures=pictures)
        warnings = list(rendered.warnings)
    except PnpError as exc:  # RenderError: every card that cannot be drawn, already grouped
        problems.extend(exc.problems or [Problem(game.source.file, exc.message)])
        rendered = None
    settings = game.meta.get("print") or {}
    try:
        stamp_of(game)
    except InputError as exc:
        problems.extend(exc.problems or [Problem(game.source.file, exc.message)])
    for paper in papers or settings.get("papers") or PAPERS:
        try:
            if settings.get("cutter"):
                plan_for_cutter(rendered or _geometry_only(game), paper,
                                cutter_sheet(settings["cutter"], paper, *paper_size(paper)))
            else:
                plan_pages(rendered or _geometry_only(game), paper)
            if rendered is not None:
                warnings.extend(text_on_seams(rendered, paper))  # words cut by a glued join
        except CutterError as exc:
            problems.append(Problem(game.source.file, f"print: cutter: {exc}", field="cutter"))
        except InputError as exc:
            problems.extend(p if paper in p.message.lower() or len(papers or ()) == 1 else
                            Problem(p.file, f"{p.message} ({paper.upper()})", line=p.line, card=p.card,
                                    field=p.field) for p in exc.problems)
    with session.stage("rulebook"):
        problems.extend(_rulebook_problems(game, rendered, (papers or settings.get("papers") or PAPERS)[0], session))
    warnings.extend(_rulebook_warnings(game))
    return _dedupe(problems), _dedupe(warnings)


def _geometry_only(game):
    """Every card with its deck and stand-in face keys: enough to plan the pages when some
    card could not be drawn."""
    from .draw.facecache import Bundles
    from .draw.render import RenderedCard, RenderedGame

    cards = []
    for deck in game.decks:
        for card in deck.cards:
            faces = tuple(f"{card.id}/{n}" for n, _ in enumerate(card.fields.get("faces") or ()))
            back = f"{card.id}/back" if card.back is not None and deck.layout != "dice" else None
            cards.append(RenderedCard(card, deck, f"{card.id}/front", back, faces))
    return RenderedGame(game, tuple(cards), Bundles(None, []), {})


def _rulebook_problems(game, rendered, paper, session: Session) -> list[Problem]:
    from .rulebook import layout_rulebook
    from .rulebook.source import parse_blocks, render_markdown, rulebook_file

    try:
        if rendered is not None:
            layout_rulebook(game, rendered, paper, session)
        else:  # the cards are broken: still check the file and its Jinja
            path = rulebook_file(game)
            if path is not None:
                parse_blocks(render_markdown(game, path, session), None, str(path.relative_to(game.root)),
                             session.limits)
    except InputError as exc:
        return exc.problems or [Problem(game.source.file, exc.message)]
    return []


def _rulebook_warnings(game) -> list[Problem]:
    from .rulebook import rulebook_warnings

    try:
        return rulebook_warnings(game)
    except InputError:   # the rulebook file named in game.yaml is missing: a problem said already
        return []


def _dedupe(problems: list[Problem]) -> list[Problem]:
    return list(dict.fromkeys(problems))
