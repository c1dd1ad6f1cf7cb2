"""The commands on one game's files: `pnp build`, `validate`, `stats`, `lint`, `list`, `new`,
`schema`
and `pull`, flags wired to the pipeline and the data stage."""
from __future__ import annotations

from pathlib import Path

import click

from ..errors import InputError
from .options import (
    CUTTER,
    MODE,
    PAPER,
    OffsetType,
    _root,
    build_options,
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
@click.option("--paper", "papers", type=PAPER, multiple=True,
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
@click.option("--proof", is_flag=True, help="A low-ink proof for playtesting: <game>-proof-sheets-<paper>.pdf "
                                           "and the cut files (same geometry; no backgrounds, frames as outlines, "
                                           "text and icons black, pictures as named boxes).")
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
@build_options
@click.pass_context
def build(ctx, games, timings, options, limits):
    """Build GAMES (default: every game) into output/<game>/."""
    from ..pipeline import build as run_build
    from ..progress import Progress

    root = _root(ctx)
    session = session_for(limits)
    if not options.validate:
        click.secho("WARNING: --no-validate: the rules were NOT checked; these files may not be a "
                    "playable game.", fg="yellow", bold=True, err=True)
    with session.budget("the build"):
        results = run_build(root, games, options, session=session, progress=Progress())
    changed_since = options.changed_since
    for r in results:
        for note in (*r.rendered.game.notes, *r.rendered.notes):
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
        from ..draw import vipsbridge
        from ..draw.picturevips import describe
        click.echo(describe(vipsbridge.chosen()), err=True)


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
@build_options
@click.pass_context
def validate(ctx, games, fmt, draw, options, limits):
    """Check GAMES (default: every game): schemas, rules, translations, and everything `pnp
    build` would refuse, in every edition of a game of several languages.

    Exit 0 when clean, 1 when a rule fails, 2 for unreadable input, a text not translated, a
    card that cannot be drawn, a component that does not fit the paper, a rulebook problem,
    or bad usage.
    """
    from ..preflight import validate_games
    from ..rules.report import render

    root = _root(ctx)
    session = session_for(limits)
    with session.budget("pnp validate"):
        checked = validate_games(root, games, options, session, draw)
    if fmt == "text":
        for note in checked.notes:
            click.echo(note, err=True)
    output = render(checked.reports, fmt)
    if output:
        click.echo(output)
    unreadable = checked.unreadable or any(r.broken for r in checked.reports)
    ctx.exit(2 if unreadable else (0 if all(r.ok for r in checked.reports) else 1))


@cli.command()
@click.argument("games", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv"]), default="text", show_default=True,
              help="How the statistics are printed on stdout.")
@click.option("--pdf", is_flag=True, help="Also write the printable stats sheet, vector charts: "
                                          "output/<game>/<game>-stats-<paper>.pdf.")
@click.option("--paper", "papers", type=PAPER, multiple=True,
              help="The sheet's paper (default: the game's print: papers, else a4 and letter). Repeatable.")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write the sheet (default: output/ in the project).")
@untrusted_limits_options
@click.pass_context
def stats(ctx, games, fmt, pdf, papers, out_dir, limits):
    """Deck statistics of GAMES (default: every game): each field's counts, sum, mean, min, max
    and histogram, tallies of categories and of :icons: in text, cross-tables and a cost curve,
    as declared under `stats:` in game.yaml or rules.yaml (default: every field)."""
    import json

    from ..deckstats import games_stats, write_sheets
    from ..options import BuildOptions
    from ..rules.stats import as_csv, as_text

    root = _root(ctx)
    session = session_for(limits)
    with session.budget("pnp stats"):
        loaded = games_stats(root, games, session)
    all_stats = [s for _, s in loaded]
    click.echo({"text": as_text, "csv": as_csv}[fmt](all_stats) if fmt != "json"
               else json.dumps(all_stats, indent=1, ensure_ascii=False), nl=fmt != "csv")
    if pdf:
        options = BuildOptions(papers=tuple(papers) or None, out_dir=out_dir)
        with session.budget("pnp stats --pdf"):
            written = write_sheets(root, loaded, options)
        for path in written:
            click.echo(f"wrote {path.relative_to(path.parents[1])}", err=True)


@cli.command()
@click.argument("games", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github", "junit"]), default="text",
              show_default=True, help="Report format, printed on stdout.")
@click.option("--strict", is_flag=True, help="Warnings fail too.")
@click.option("--fix", is_flag=True, help="Write the mechanical fixes (quotes, double spaces) back into the game's "
                                          "YAML files (comments and order untouched) and card sheets (CSV, TSV, XLSX, "
                                          "ODS: only those cells); then report what is left.")
@lang_option
@untrusted_limits_options
@click.pass_context
def lint(ctx, games, fmt, strict, fix, languages, limits):
    """The word checks of GAMES (default: every game), every edition: spelling (Hunspell, the
    game's names, words.txt), the glossary's terms and keywords, near-duplicate texts,
    numbers, quotes and spaces (docs/words.md). `pnp validate` runs them too.

    Exit 0 when clean (warnings allowed but under --strict), 1 when a finding fails, 2 for
    unreadable input.
    """
    from ..exports.files import write_atomic
    from ..preflight import lint_games
    from ..rules.report import render
    from ..rules.wordfix import fixes

    root = _root(ctx)
    session = session_for(limits)
    if fix and limits.untrusted != "off":
        raise InputError("pnp lint --fix writes the game's own files, which an untrusted run cannot (--untrusted, "
                         "on where CI is set): run it with --trusted")
    with session.budget("pnp lint"):
        checked = lint_games(root, games, tuple(languages), strict, session)
        if fix:
            done, left = fixes(root, [f for r in checked.reports for f in r.findings])
            for one in done:
                write_atomic(root, Path(one.file), one.data)
                click.echo(f"{one.file}: fixed {one.values} value{'s' if one.values != 1 else ''}", err=True)
            for finding, why in left:
                click.echo(f"{finding.file}:{finding.line}: not fixed ({finding.rule}): {why}", err=True)
            if done:
                checked = lint_games(root, games, tuple(languages), strict, session)
    if fmt == "text":
        for note in dict.fromkeys(checked.notes):
            click.echo(note, err=True)
    output = render(checked.reports, fmt)
    if output:
        click.echo(output)
    ctx.exit(2 if checked.unreadable else (0 if all(r.ok for r in checked.reports) else 1))


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
@click.option("--bare", is_flag=True, help="The card deck alone: no tokens, rules file or rulebook.")
@click.pass_context
def new_cmd(ctx, game, title, bare):
    """Start GAME from a small working game: a deck with fronts and backs, tokens, rules and a
    rulebook, in cards/GAME/ and templates/GAME/ (a new project when run in an empty folder),
    and a .gitignore that keeps output/ out of git."""
    from ..data.starter import new_game

    root = (ctx.obj or _project_or_here(Path.cwd())).resolve()
    written = new_game(root, game, title, bare)
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
    'd12 nets, 16 mm edges' (sizes to one decimal, as a person reads them): its kind's words."""
    return deck.family.listing(deck)
