"""Everything `pnp build` would refuse, found in one pass without writing a file.

In: a loaded `Game` and the papers to check. Out: a list of `Problem`s from every later
stage of a build: the game's own words in the fonts that print them, every card drawn in
memory (template errors, text that cannot fit, fonts and characters, images, face sizes),
the sheets planned on each paper (a component larger than the paper; inside the area of
the game's `print: cutter`; warnings for text on the seams of a glued board), the game's
`print: stamp` (its fields, its room on every deck), and the rulebook (a missing file,
Jinja errors, figures naming unknown cards); `validate_games` adds the word checks
(rules/words.py: spelling, terms, keywords, style) of every edition asked, and with
`--strict` the colour check of the game as written (colourcheck.py). `pnp validate` runs it by
default; the rules themselves are checked by `rules/`. After a build it reads what the build
kept (its face cache, and its memo read only: diskmemo.py), so unchanged faces and rulebooks
are not rendered or laid out again.
"""
from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path

from .draw.glyphs import printed_text_problems
from .errors import InputError, PnpError, Problem
from .options import BuildOptions
from .printing import PAPERS
from .session import Session


@dataclass(frozen=True)
class Validated:
    """`pnp validate`'s findings: a report a game, whether some input could not be read,
    and the notes to show beside the report (how a game was read, what was not checked)."""

    reports: list
    unreadable: bool
    notes: list[str]


def validate_games(root: Path, games, options: BuildOptions, session: Session, draw: bool = True) -> Validated:
    """The rules, translations and (`draw`) everything a build would refuse, of the named
    games (all when none are named), every edition `options.languages` asks for; the rules
    run once a game, on the cards as written."""
    from .outputfolder import face_cache_ready
    from .pipeline import editions_asked, resolve_games

    ids = resolve_games(root, games)
    asked = editions_asked(root, ids, games, options.languages)
    if not draw:
        return _validated(root, asked, options, session, None, lambda game_id: nullcontext())
    # faces drawn through the build's face cache, and the faces' SVG and facts, the cards'
    # schema checks and the laid-out rulebooks as the last `pnp build` of these games (or of
    # the game alone, or of every game) kept them (diskmemo.py), read only: a validate after
    # a build draws, renders and lays out nothing again, and writes nothing in the memo
    out = options.output(root)
    cache = face_cache_ready(out)
    return _validated(root, asked, options, session, cache, kept_by_build(root, ids, games, out, session))


def kept_by_build(root: Path, ids: list[str], games, out: Path, session: Session):
    """`kept(game_id)`: a `with` in which `session` reads what the last `pnp build` into `out`
    kept of the game (output/.cache/memo, read only): the pack of a build of the command's
    games `ids` (as named: `games`), else of the game alone, else of every game."""
    from .data.load import list_games
    from .diskmemo import pack_name
    from .pipeline import editions_asked

    command, everyone = (pack_name(editions_asked(root, named, games, None)) for named in (ids, list_games(root)))

    def kept(game_id: str):
        packs = tuple(dict.fromkeys((command, pack_name({game_id: None}), everyone)))
        return session.kept_on_disk(out / ".cache" / "memo", out.parent, packs, keep=False)
    return kept


def _validated(root: Path, asked: dict, options: BuildOptions, session: Session, cache, kept) -> Validated:
    """`validate_games` of the editions `asked` ({game: languages}), faces drawn through
    `cache` (None: nothing drawn), each game within `kept(game)` (what a build kept)."""
    from .data.i18ncheck import checked_editions
    from .data.load import load_game
    from .errors import RenderError
    from .rules import RulesReport, check_game
    from .rules.report import from_problem
    from .rules.words import word_findings

    reports, unreadable, notes = [], False, []
    draw = cache is not None
    for game_id in asked:
        with kept(game_id):
            try:
                with session.stage("load"):
                    game = load_game(root, game_id, session)
                notes += [f"note: {note}" for note in game.notes]
                with session.stage("rules"):
                    report = check_game(game, strict=options.strict, memo=session.memo)
                with session.stage("load"):
                    made, translated = checked_editions(game, asked[game_id])
                report = _with(report, translated, "translations")
                with session.stage("words"):
                    words, word_notes = word_findings(game, made)
                notes += [f"note: {note}" for note in word_notes]
                if words:
                    report = replace(report, rules=(*report.rules, *sorted({f.rule for f in words})),
                                     findings=(*report.findings, *words))
                if draw:
                    for edition in made:
                        report, drawn_notes = _with_drawing(edition, report, options, session, cache)
                        notes += [f"note: {note}" for note in drawn_notes]
                    unreadable = unreadable or report.broken
                else:
                    notes.append(f"{game_id}: --no-render: cards were not drawn, nor sheets and rulebook laid out")
                reports.append(report)
            except (InputError, RenderError) as exc:
                unreadable = True
                problems = exc.problems or [Problem(f"cards/{game_id}", exc.message)]
                kind = "render" if isinstance(exc, RenderError) else "schema"
                findings = tuple(from_problem(game_id, p, kind) for p in problems)
                reports.append(RulesReport(game_id, (kind,), findings, options.strict))
    return Validated(reports, unreadable, notes)


def _with_drawing(game, report, options: BuildOptions, session: Session, cache):
    """The report plus every problem a build of the game (or edition) would meet after the
    rules, its faces drawn through `cache` (a `FaceCache`)."""
    from .data.editions import in_edition

    problems, warned = preflight_report(game, session=session, pictures=options.pictures(game.root), cache=cache)
    notes = [p for p in warned if p.severity == "note"]   # said once, beside the report
    warned = [replace(p, severity="warning") for p in warned if p.severity != "note"]
    report = _with(report, in_edition([*problems, *warned], game), "render")
    if options.strict and not problems and not game.edition:   # --strict: the colour check too (colourcheck.py)
        from .colourcheck import check_colour

        report = _with(report, check_colour(game, session, cache, sheet=False).problems, "colour", checked=True)
    return report, notes


def _with(report, problems, kind: str, checked: bool = False):
    """The report plus `problems` as findings of `kind` (errors: input a build refuses;
    `checked`: a check's failures, not input that cannot be read)."""
    from .rules.engine import Finding
    from .rules.report import from_problem

    if not problems:
        return report
    found = tuple(from_problem(report.game, p, kind) if p.severity == "error" and not checked else
                  Finding(kind, report.game, p.severity, ": ".join(x for x in (p.field, p.message) if x), p.file,
                          p.line, (p.card,) if p.card else ()) for p in problems)
    return replace(report, rules=(*report.rules, kind), findings=(*report.findings, *found))


def preflight_report(game, session: Session, papers: tuple[str, ...] | None = None,
                     pictures=None, cache=None) -> tuple[list[Problem], list[Problem]]:
    """The problems a build would stop at, and the warnings it would print (a picture
    below `print: min_image_dpi`, an external reference in an SVG that cannot be
    followed); within the session's limits, pictures as `pictures` (draw.pictures.Asked) asks,
    faces drawn through `cache` (a `FaceCache`; None: all in memory). A face drawn with a
    problem is never stored there, so the cache changes only how long this takes."""
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
        rendered = render_game(game, session=session, pictures=pictures, cache=cache)
        warnings = [*rendered.warnings, *rendered.notes]
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
            back = f"{card.id}/back" if card.back is not None and not deck.family.per_face else None
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


def lint_games(root: Path, games, languages, strict: bool, session: Session) -> Validated:
    """`pnp lint`: the word checks alone (rules/words.py) of the named games (all when none
    are named), every edition `languages` asks for; nothing drawn."""
    from .data.i18ncheck import checked_editions
    from .data.load import load_game
    from .pipeline import editions_asked, resolve_games
    from .rules import RulesReport
    from .rules.report import from_problem
    from .rules.words import word_findings

    reports, unreadable, notes = [], False, []
    for game_id, langs in editions_asked(root, resolve_games(root, games), games, languages).items():
        try:
            with session.stage("load"):
                game = load_game(root, game_id, session)
                made, _ = checked_editions(game, langs)
            with session.stage("words"):
                found, word_notes = word_findings(game, made)
            notes += [f"note: {note}" for note in word_notes]
            reports.append(RulesReport(game_id, tuple(sorted({f.rule for f in found})), tuple(found), strict))
        except InputError as exc:
            unreadable = True
            problems = exc.problems or [Problem(f"cards/{game_id}", exc.message)]
            reports.append(RulesReport(game_id, ("schema",), tuple(from_problem(game_id, p) for p in problems), strict))
    return Validated(reports, unreadable, notes)
