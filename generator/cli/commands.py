"""The commands on one game's files: `pnp build`, `validate`, `list`, `new`, `schema` and
`pull`, flags wired to the pipeline and the data stage."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from ..errors import InputError
from .options import (
    CUTTER,
    MODE,
    PAPER,
    OffsetType,
    _root,
    cli,
    find_root,
    lang_option,
    picture_options,
    session_for,
    stamp_option,
    untrusted_limits_options,
)


@cli.command()
@click.argument("games", nargs=-1)
@click.option("--paper", type=PAPER, multiple=True,
              help="a4, letter, a3, a5, legal, tabloid or WxH like 300x400mm (default: the game's "
                   "print: papers, else a4 and letter). Repeatable.")
@click.option("--mode", type=MODE, help="duplex-long (default), duplex-short, gutter-fold, fronts-only, "
                                        "fronts-then-backs or interleaved (default: the game's print: mode).")
@click.option("--back-offset", type=OffsetType(),
              help="X,Y mm to move the backs by (read it off `pnp calibrate`), e.g. 0.5,-0.3.")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write (default: output/ in the project).")
@click.option("--no-validate", is_flag=True, help="Build even if the deck breaks its rules (not for print).")
@click.option("--strict", is_flag=True, help="Warnings stop the build too (rules, and pictures below print: "
                                            "min_image_dpi).")
@click.option("--guides", is_flag=True, help="Draw trim and safe-area lines on every face (proof sheets).")
@click.option("--changed-since", "changed_since", metavar="REF",
              help="Also write <game>-changed-<paper>.pdf with only the components whose faces differ "
                   "from git REF (or from the last build: --changed-since last), with their backs.")
@click.option("--timings", is_flag=True, help="Print the CPU and wall seconds of each stage of the build.")
@click.option("--cutter", type=CUTTER, help="Print-then-cut: keep components inside the machine's area, print its "
                                          "registration marks, write a cut file with the same marks (default: the "
                                          "game's print: cutter).")
@stamp_option
@picture_options
@lang_option
@untrusted_limits_options
@click.pass_context
def build(ctx, games, paper, mode, back_offset, out_dir, no_validate, strict, guides, changed_since, timings,
          cutter, stamp, image_dpi, draft, languages, limits):
    """Build GAMES (default: every game) into output/<game>/."""
    from ..pipeline import build as run_build
    from ..progress import Progress

    root = _root(ctx)
    session = session_for(limits)
    if no_validate:
        click.secho("WARNING: --no-validate: the rules were NOT checked; these files may not be a "
                    "playable game.", fg="yellow", bold=True, err=True)
    with session.budget("the build"):
        results = run_build(root, games, tuple(paper) or None, out_dir, validate=not no_validate, guides=guides,
                            strict=strict, mode=mode.lower() if mode else None, back_offset=back_offset,
                            changed_since=changed_since, progress=Progress(), session=session, stamp=stamp,
                            cutter=cutter.lower() if cutter else None, image_dpi=image_dpi, draft=draft,
                            languages=tuple(languages) or None)
    for r in results:
        for note in r.rendered.game.notes:
            click.echo(f"note: {note}", err=True)
        for w in r.warnings:
            click.echo(f"warning: {w}", err=True)
        if r.changed is not None:
            since = "the last build" if changed_since == "last" else changed_since
            click.echo(f"{r.game}: {len(r.changed)} component{'s' if len(r.changed) != 1 else ''} changed since "
                       f"{since}{': ' + ', '.join(r.changed) if r.changed else ' (no changed sheets written)'}")
        names = ", ".join(str(p.relative_to(p.parents[1])) for p in r.files)
        click.echo(f"{r.game}: {len(r.files)} files in {r.seconds:.2f} s: {names}")
    if timings:
        watch = session.stopwatch
        click.echo(watch.table(), err=True)
        click.echo(f"untimed (start-up, imports, bookkeeping) in this process: cpu {watch.untimed_cpu():.3f} s",
                   err=True)


@cli.command()
@click.argument("games", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github", "junit"]), default="text",
              show_default=True, help="Report format, printed on stdout.")
@click.option("--strict", is_flag=True, help="Warnings fail too.")
@click.option("--render/--no-render", "draw", default=True, show_default=True,
              help="Also do everything a build does short of writing files: draw every card in memory "
                   "(templates, text fit, fonts), plan the sheets on each paper, lay out the rulebook.")
@picture_options
@lang_option
@untrusted_limits_options
@click.pass_context
def validate(ctx, games, fmt, strict, draw, image_dpi, draft, languages, limits):
    """Check GAMES (default: every game): schemas, rules, translations, and everything `pnp
    build` would refuse, in every edition of a game of several languages.

    Exit 0 when clean, 1 when a rule fails, 2 for unreadable input, a text not translated, a
    card that cannot be drawn, a component that does not fit the paper, a rulebook problem,
    or bad usage.
    """
    from ..rules.report import render

    root = _root(ctx)
    session = session_for(limits)
    with session.budget("pnp validate"):
        reports, unreadable = _validate_games(root, games, fmt, strict, draw, image_dpi, draft, languages, session)
    output = render(reports, fmt)
    if output:
        click.echo(output)
    unreadable = unreadable or any(r.broken for r in reports)
    ctx.exit(2 if unreadable else (0 if all(r.ok for r in reports) else 1))


def _validate_games(root, games, fmt, strict, draw, image_dpi, draft, languages, session):
    """`pnp validate`'s reports, one a game, and whether some input could not be read."""
    from ..data.i18ncheck import checked_editions
    from ..data.load import load_game
    from ..errors import RenderError
    from ..pipeline import editions_asked, resolve_games
    from ..rules import RulesReport, check_game
    from ..rules.report import from_problem

    reports, unreadable = [], False
    asked = editions_asked(root, resolve_games(root, games), games, tuple(languages) or None)
    for game_id in asked:
        try:
            with session.stage("load"):
                game = load_game(root, game_id, session)
            if fmt == "text":
                for note in game.notes:
                    click.echo(f"note: {note}", err=True)
            with session.stage("rules"):
                report = check_game(game, strict=strict)
            with session.stage("load"):
                made, translated = checked_editions(game, asked[game_id])
            report = _with(report, translated, "translations")
            if draw:
                for edition in made:   # the rules ran once, on the cards as written
                    report = _with_drawing(root, edition, report, session, image_dpi, draft)
                unreadable = unreadable or report.broken
            elif fmt == "text":
                click.echo(f"{game_id}: --no-render: cards were not drawn, nor sheets and rulebook laid out",
                           err=True)
            reports.append(report)
        except (InputError, RenderError) as exc:
            unreadable = True
            problems = exc.problems or [_problem_from(exc, game_id)]
            kind = "render" if isinstance(exc, RenderError) else "schema"
            findings = tuple(from_problem(game_id, p, kind) for p in problems)
            reports.append(RulesReport(game_id, (kind,), findings, strict))
    return reports, unreadable


def _with_drawing(root, game, report, session, image_dpi=None, draft=False):
    """The report plus every problem a build of the game (or edition) would meet after the
    rules (see preflight.py)."""
    from ..data.editions import in_edition
    from ..draw import fonts
    from ..draw.pictures import Asked
    from ..errors import OutputError
    from ..preflight import preflight_report

    try:
        fonts.activate(root / "output" / ".cache")
    except OSError as exc:
        raise OutputError(f"cannot write the font cache in {root / 'output'}: {exc.strerror or exc}") from None
    asked = Asked(image_dpi, draft, str(root / "output" / ".cache" / "pictures"))
    problems, warned = preflight_report(game, session=session, pictures=asked)
    return _with(report, in_edition([*problems, *(replace(p, severity="warning") for p in warned)], game), "render")


def _with(report, problems, kind: str):
    """The report plus `problems` as findings of `kind` (errors: input a build refuses)."""
    from ..rules.engine import Finding
    from ..rules.report import from_problem

    if not problems:
        return report
    found = tuple(from_problem(report.game, p, kind) if p.severity == "error" else
                  Finding(kind, report.game, "warning", ": ".join(x for x in (p.field, p.message) if x), p.file,
                          p.line, (p.card,) if p.card else ()) for p in problems)
    return replace(report, rules=(*report.rules, kind), findings=(*report.findings, *found))


def _problem_from(exc, game_id):
    from ..errors import Problem

    return Problem(f"cards/{game_id}", exc.message)


@cli.command("list")
@click.pass_context
def list_cmd(ctx):
    """List the games and their components with counts (and a game's editions)."""
    from ..data.editions import languages_of
    from ..data.load import list_games, load_game
    from ..session import Session

    root = _root(ctx)
    failed = 0
    for game_id in list_games(root):
        try:
            game = load_game(root, game_id, Session())
        except InputError as exc:
            failed += 1
            click.echo(f"{game_id}: cannot be read ({exc.message}); run `pnp validate {game_id}`", err=True)
            continue
        total = sum(c.count for d in game.decks for c in d.cards)
        langs = languages_of(game.meta)
        editions = f", editions: {', '.join(langs)}" if len(langs) > 1 else ""
        click.echo(f"{game_id}: {game.title} ({total} components{editions})")
        for d in game.decks:
            copies = sum(c.count for c in d.cards)
            click.echo(f"  {d.id}: {d.name}, {copies} x {_shape(d)} ({len(d.cards)} designs, {d.kind})")
    ctx.exit(2 if failed else 0)


@cli.command("new")
@click.argument("game")
@click.option("--title", help="The game's title (default: from GAME).")
@click.pass_context
def new_cmd(ctx, game, title):
    """Start GAME from a small working game: a deck with fronts and backs, tokens, rules and a
    rulebook, in cards/GAME/ and templates/GAME/ (a new project when run in an empty folder)."""
    from ..data.starter import new_game

    root = (ctx.obj or _project_or_here(Path.cwd())).resolve()
    written = new_game(root, game, title)
    click.echo(f"{game}: wrote {len(written)} files in {root}")
    click.echo(f"next: pnp build {game}   (then open output/{game}/{game}-sheets-a4.pdf)")


def _project_or_here(start: Path) -> Path:
    try:
        return find_root(start)
    except InputError:
        return start


@cli.command("schema")
@click.pass_context
def schema_cmd(ctx):
    """Write pnp's JSON Schemas into schemas/ for editors (the YAML files' first lines use them)."""
    from ..data.starter import write_schemas

    root = (ctx.obj or _project_or_here(Path.cwd())).resolve()
    for path in write_schemas(root):
        click.echo(str(path.relative_to(root)))


@cli.command("pull")
@click.argument("games", nargs=-1)
@click.option("--timeout", type=click.FloatRange(1, 3600), default=60, show_default=True,
              help="Seconds each download may take, from connecting to the last byte.")
@click.pass_context
def pull_cmd(ctx, games, timeout):
    """Download the published spreadsheets named in each game's `pull:` (default: every game that has one).

    A URL is a sheet published to the web as CSV, or a Google Sheets share link (read as its
    CSV export). Every file changes, or none does."""
    from ..data.load import list_games
    from ..data.pull import pull_game
    from ..data.yamlsrc import read_yaml

    root = _root(ctx)
    known = list_games(root)
    unknown = [g for g in games if g not in known]
    if unknown:
        raise InputError(f"unknown game {', '.join(map(repr, unknown))} (games: {', '.join(known)})")
    if not games:
        games = [g for g in known
                 if (read_yaml(root / "cards" / g / "game.yaml", f"cards/{g}/game.yaml") or {}).get("pull")]
        if not games:
            raise InputError("no game has a `pull:` in its game.yaml")
    for game in games:
        for pulled in pull_game(root, game, timeout=timeout):
            state = "updated" if pulled.changed else "unchanged"
            click.echo(f"{game}: {pulled.file.relative_to(root)}: {pulled.rows} rows, {state}")


def _shape(deck) -> str:
    """A deck's size and cut shape as a designer says it: '25 mm circle', '63 x 88 mm rect',
    'd12 nets, 16 mm edges' (sizes to one decimal, as a person reads them)."""
    def mm(v):
        return f"{round(v, 1):g}"
    if deck.layout == "dice":
        return f"{deck.die} nets, {mm(deck.edge)} mm edges"
    if deck.shape == "circle":
        return f"{mm(deck.trim_w)} mm circle"
    size = f"{mm(deck.trim_w)} x {mm(deck.trim_h)} mm"
    if deck.shape == "hex":
        return f"{size} hex ({deck.orientation}-top)"
    if deck.shape == "rounded":
        return f"{size} rounded ({deck.corner:g} mm corners)"
    if deck.layout == "board" and deck.sections:
        return f"{size} board in {deck.sections[0]} x {deck.sections[1]} sections"
    return f"{size} {'board' if deck.layout == 'board' else 'rect'}"
