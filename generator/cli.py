"""The `pnp` command: thin wiring from flags to the pipeline, nothing else."""
from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from .errors import InputError, PnpError

MODE = click.Choice(["duplex-long", "duplex-short", "gutter-fold", "fronts-only"], case_sensitive=False)


class PaperType(click.ParamType):
    """a4, letter, a3, a5, legal, tabloid, or WxH with a unit (300x400mm, 11x17in)."""

    name = "paper"

    def convert(self, value, param, ctx):
        from .units import paper_name

        try:
            return paper_name(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


class OffsetType(click.ParamType):
    """X,Y in mm, e.g. 0.5,-0.3."""

    name = "x,y"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        try:
            x, y = (float(v) for v in str(value).split(","))
        except ValueError:
            self.fail(f"{value!r} is not X,Y in mm (e.g. 0.5,-0.3)", param, ctx)
        if max(abs(x), abs(y)) > 20:
            self.fail(f"{value!r}: an offset over 20 mm is not a printer's misregistration", param, ctx)
        return x, y


PAPER = PaperType()


def find_root(start: Path) -> Path:
    """The project folder: the nearest folder at or above `start` that has cards/."""
    for folder in (start, *start.parents):
        if (folder / "cards").is_dir():
            return folder
    raise InputError(f"no cards/ folder in {start} or above it; run pnp inside a project or pass --root")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--root", type=click.Path(file_okay=False, path_type=Path),
              help="Project folder (holds cards/ and templates/). Default: found from the current folder.")
@click.option("-v", "--verbose", is_flag=True, help="Show each build step.")
@click.version_option(package_name="pnp-components", prog_name="pnp")
@click.pass_context
def cli(ctx, root, verbose):
    """pnp: print-and-play components from YAML cards and SVG templates."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(message)s")
    ctx.obj = root


def _root(ctx) -> Path:
    root = (ctx.obj or find_root(Path.cwd())).resolve()
    if not (root / "cards").is_dir():
        raise InputError(f"{root} has no cards/ folder: is it a pnp project?")
    return root


@cli.command()
@click.argument("games", nargs=-1)
@click.option("--paper", type=PAPER, multiple=True,
              help="a4, letter, a3, a5, legal, tabloid or WxH like 300x400mm (default: the game's "
                   "print: papers, else a4 and letter). Repeatable.")
@click.option("--mode", type=MODE, help="duplex-long (default), duplex-short, gutter-fold or fronts-only "
                                        "(default: the game's print: mode).")
@click.option("--back-offset", type=OffsetType(),
              help="X,Y mm to move the backs by (read it off `pnp calibrate`), e.g. 0.5,-0.3.")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write (default: output/ in the project).")
@click.option("--no-validate", is_flag=True, help="Build even if the deck breaks its rules (not for print).")
@click.option("--strict", is_flag=True, help="Rule warnings stop the build too.")
@click.option("--guides", is_flag=True, help="Draw trim and safe-area lines on every face (proof sheets).")
@click.option("--changed-since", "changed_since", metavar="REF",
              help="Also write <game>-changed-<paper>.pdf with only the components whose faces differ "
                   "from git REF (or from the last build: --changed-since last), with their backs.")
@click.option("--timings", is_flag=True, help="Print the CPU and wall seconds of each stage of the build.")
@click.pass_context
def build(ctx, games, paper, mode, back_offset, out_dir, no_validate, strict, guides, changed_since, timings):
    """Build GAMES (default: every game) into output/<game>/."""
    from .pipeline import build as run_build
    from .progress import Progress

    root = _root(ctx)
    if no_validate:
        click.secho("WARNING: --no-validate: the rules were NOT checked; these files may not be a "
                    "playable game.", fg="yellow", bold=True, err=True)
    results = run_build(root, games, tuple(paper) or None, out_dir, validate=not no_validate, guides=guides,
                        strict=strict, mode=mode.lower() if mode else None, back_offset=back_offset,
                        changed_since=changed_since, progress=Progress())
    for r in results:
        for w in r.warnings:
            click.echo(f"warning: {w}", err=True)
        if r.changed is not None:
            since = "the last build" if changed_since == "last" else changed_since
            click.echo(f"{r.game}: {len(r.changed)} component{'s' if len(r.changed) != 1 else ''} changed since "
                       f"{since}{': ' + ', '.join(r.changed) if r.changed else ' (no changed sheets written)'}")
        names = ", ".join(str(p.relative_to(p.parents[1])) for p in r.files)
        click.echo(f"{r.game}: {len(r.files)} files in {r.seconds:.2f} s: {names}")
    if timings:
        from .stopwatch import WATCH

        click.echo(WATCH.table(), err=True)
        click.echo(f"untimed (start-up, imports, bookkeeping) in this process: cpu {WATCH.untimed_cpu():.3f} s",
                   err=True)


@cli.command()
@click.argument("games", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github", "junit"]), default="text",
              show_default=True, help="Report format, printed on stdout.")
@click.option("--strict", is_flag=True, help="Warnings fail too.")
@click.option("--render/--no-render", "draw", default=True, show_default=True,
              help="Also do everything a build does short of writing files: draw every card in memory "
                   "(templates, text fit, fonts), plan the sheets on each paper, lay out the rulebook.")
@click.pass_context
def validate(ctx, games, fmt, strict, draw):
    """Check GAMES (default: every game): schemas, rules, and everything `pnp build` would refuse.

    Exit 0 when clean, 1 when a rule fails, 2 for unreadable input, a card that cannot be
    drawn, a component that does not fit the paper, a rulebook problem, or bad usage.
    """
    from .errors import RenderError
    from .load import load_game
    from .pipeline import resolve_games
    from .rules import RulesReport, check_game
    from .rules.report import from_problem, render

    root = _root(ctx)
    reports, unreadable = [], False
    for game_id in resolve_games(root, games):
        try:
            game = load_game(root, game_id)
            report = check_game(game, strict=strict)
            if draw:
                report = _with_drawing(root, game, report)
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
    output = render(reports, fmt)
    if output:
        click.echo(output)
    unreadable = unreadable or any(r.broken for r in reports)
    ctx.exit(2 if unreadable else (0 if all(r.ok for r in reports) else 1))


def _with_drawing(root, game, report):
    """The report plus every problem a build would meet after the rules (see preflight.py)."""
    from dataclasses import replace

    from . import fonts
    from .errors import OutputError
    from .preflight import preflight_report
    from .rules.engine import Finding
    from .rules.report import from_problem

    try:
        fonts.activate(root / "output" / ".cache")
    except OSError as exc:
        raise OutputError(f"cannot write the font cache in {root / 'output'}: {exc.strerror or exc}") from None
    problems, warned = preflight_report(game)
    found = tuple(from_problem(game.id, p, "render") for p in problems)
    warnings = tuple(Finding("render", game.id, "warning", p.message, p.file, p.line, (p.card,) if p.card else ())
                     for p in warned)
    if not found and not warnings:
        return report
    return replace(report, rules=(*report.rules, "render"), findings=(*report.findings, *found, *warnings))


def _problem_from(exc, game_id):
    from .errors import Problem

    return Problem(f"cards/{game_id}", exc.message)


@cli.command("export")
@click.argument("args", nargs=-1, metavar="png|tts [GAMES]...")
@click.option("--profile", type=click.Choice(["tgc", "mpc", "dtc"], case_sensitive=False),
              help="Files a print shop accepts as is: tgc (The Game Crafter), mpc (MakePlayingCards), "
                   "dtc (DriveThruCards). Then every argument is a game.")
@click.option("--dpi", type=click.IntRange(30, 1200), default=300, show_default=True,
              help="Resolution of PNG images and TTS sheets.")
@click.option("--bleed/--no-bleed", default=True, show_default=True, help="PNG images keep the bleed, or show the trim.")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write (default: output/ in the project).")
@click.option("--no-validate", is_flag=True, help="Export even if the deck breaks its rules (not for print).")
@click.pass_context
def export_cmd(ctx, args, profile, dpi, bleed, out_dir, no_validate):
    """Export GAMES (default: every game) into output/<game>/exports/<target>/.

    \b
    pnp export png [GAMES]      one PNG per face, named by card id
    pnp export tts [GAMES]      Tabletop Simulator deck sheets and a saved object
    pnp export --profile tgc|mpc|dtc [GAMES]   print-shop files
    """
    from .exports.run import run_exports

    if profile:
        target, games = profile.lower(), args
    elif args and args[0] in ("png", "tts"):
        target, games = args[0], args[1:]
    else:
        raise click.UsageError("say what to export: `pnp export png`, `pnp export tts` or "
                               "`pnp export --profile tgc|mpc|dtc`")
    for r in run_exports(_root(ctx), games, target, dpi, bleed, out_dir, validate=not no_validate):
        folder = r.files[-1].parent
        for w in r.warnings:
            click.echo(f"warning: skipped: {w}", err=True)
        for note in r.notes:
            click.echo(f"note: {r.game}: {note}", err=True)
        click.echo(f"{r.game}: {len(r.files)} files in {folder} ({r.seconds:.2f} s)")


@cli.command()
@click.option("--paper", type=PAPER, default="a4", show_default=True, help="Paper to calibrate.")
@click.option("--mode", type=click.Choice(["duplex-long", "duplex-short"], case_sensitive=False),
              default="duplex-long", show_default=True, help="How the printer flips the sheet.")
@click.option("--back-offset", type=OffsetType(), default="0,0", show_default=True,
              help="The offset in use, X,Y mm: print again with it to check the scales read 0.")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write (default: output/ in the project).")
@click.pass_context
def calibrate(ctx, paper, mode, back_offset, out_dir):
    """Write a duplex calibration page (output/calibration/) to read a printer's back offset."""
    from . import fonts
    from .errors import OutputError
    from .export import write_calibration
    from .layout.calibration import calibration_pdf
    from .layout.modes import PrintMode

    out_dir = out_dir or _root(ctx) / "output"
    try:
        fonts.activate(out_dir / ".cache")
        x, y = back_offset
        path = write_calibration(out_dir, f"calibration-{paper}-{mode.lower()}.pdf",
                                 calibration_pdf(paper, PrintMode(mode.lower(), (x, y))))
    except OSError as exc:
        raise OutputError(f"cannot write to {out_dir}: {exc.strerror or exc}") from None
    click.echo(f"calibration page: {path}")


@cli.command()
@click.argument("game")
@click.option("--paper", type=PAPER, multiple=True,
              help="Papers to include (default: the game's print: papers, else a4 and letter). Repeatable.")
@click.option("--mode", type=MODE, help="Print mode of the sheets (default: the game's print: mode).")
@click.option("--back-offset", type=OffsetType(), help="X,Y mm to move the backs by.")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write (default: output/ in the project).")
@click.pass_context
def kit(ctx, game, paper, mode, back_offset, out_dir):
    """Zip GAME's sheets, rulebook, cut files and a read-me for players (output/<game>/exports/kit/)."""
    from .exports.run import run_kit

    r = run_kit(_root(ctx), game, tuple(paper) or None, mode.lower() if mode else None, back_offset, out_dir)
    click.echo(f"{r.game}: print-and-play kit {r.files[0]} ({r.seconds:.2f} s)")


def _watch_options(f):
    for option in reversed([
        click.argument("games", nargs=-1),
        click.option("--paper", type=PAPER, multiple=True, help="a4 or letter (default: the game's papers)."),
        click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
                     help="Where to write (default: output/ in the project)."),
        click.option("--no-validate", is_flag=True, help="Build even if the deck breaks its rules."),
        click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
                     help="Preview port on 127.0.0.1 (0: any free port)."),
    ]):
        f = option(f)
    return f


@cli.command()
@_watch_options
@click.option("--serve", is_flag=True, help="Also serve a live preview on http://127.0.0.1:PORT/.")
@click.pass_context
def watch(ctx, games, paper, out_dir, no_validate, port, serve):
    """Rebuild GAMES (default: every game) each time one of their files is saved.

    Prints what changed and how long the build took; a build that fails prints its
    problems, keeps the last good output, and the watch goes on. Ctrl-C stops.
    """
    _run_watch(ctx, games, paper, out_dir, no_validate, port, serve)


@cli.command()
@_watch_options
@click.pass_context
def serve(ctx, games, paper, out_dir, no_validate, port):
    """Watch GAMES and show every face live in the browser (same as `pnp watch --serve`)."""
    _run_watch(ctx, games, paper, out_dir, no_validate, port, True)


def _run_watch(ctx, games, paper, out_dir, no_validate, port, serve):
    from .pipeline import resolve_games
    from .watch import watch as run_watch

    root = _root(ctx)
    names = resolve_games(root, games)
    preview = None
    if serve:
        from .preview import Preview, serve as start_server

        preview = Preview()
        try:
            server = start_server(preview, port)
        except OSError as exc:
            raise InputError(f"cannot serve the preview on 127.0.0.1:{port}: {exc.strerror or exc}") from None
        click.echo(f"preview: http://127.0.0.1:{server.server_address[1]}/")

    def report(outcome):
        if preview is not None:
            preview.update(outcome)
        what = f" ({', '.join(outcome.changed)} changed)" if outcome.changed else ""
        if outcome.ok:
            written = len(outcome.result.files)
            click.echo(f"{outcome.game}: built in {outcome.seconds:.2f} s{what}, {written} files")
        else:
            click.echo(f"{outcome.game}: build failed after {outcome.seconds:.2f} s{what}; "
                       "the last good output is kept", err=True)
            for p in outcome.problems:
                click.echo(f"  {p}", err=True)

    click.echo(f"watching {', '.join(names)} (cards/ and templates/); Ctrl-C stops")
    run_watch(root, names, report, papers=tuple(p.lower() for p in paper) or None, out_dir=out_dir,
              validate=not no_validate)


@cli.command()
@click.argument("ref")
@click.argument("games", nargs=-1)
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="The output folder (default: output/ in the project); the report goes to its diff/.")
@click.option("--fail-on-change", is_flag=True, help="Exit 1 when any component changed (a CI gate).")
@click.pass_context
def diff(ctx, ref, games, out_dir, fail_on_change):
    """List the components of GAMES (default: every game) whose faces differ from git REF.

    Writes output/diff/index.html and one before/after PNG per changed component (a CI
    artifact for review). Exit 0, or 1 with --fail-on-change when something changed.
    """
    import shutil

    from . import fonts
    from .diffreport import diff_game, report_files
    from .errors import OutputError
    from .export import write_atomic
    from .facecache import FaceCache
    from .pipeline import resolve_games

    root = _root(ctx)
    out_dir = out_dir or root / "output"
    try:
        fonts.activate(out_dir / ".cache")
    except OSError as exc:
        raise OutputError(f"cannot write to {out_dir}: {exc.strerror or exc}") from None
    cache = FaceCache(out_dir / ".cache" / "faces")
    diffs = [diff_game(root, g, ref, out_dir, cache) for g in resolve_games(root, games)]
    folder = out_dir / "diff"
    try:
        shutil.rmtree(folder, ignore_errors=True)
        for name, data in report_files(diffs, ref).items():
            write_atomic(folder / name, data)
    except OSError as exc:
        raise OutputError(f"cannot write the diff report to {folder}: {exc.strerror or exc}") from None
    for d in diffs:
        if not d.any:
            click.echo(f"{d.game}: no component changed since {ref}")
        for label, ids in (("changed", d.changed), ("added", d.added), ("removed", d.removed)):
            if ids:
                click.echo(f"{d.game}: {len(ids)} {label} since {ref}: {', '.join(ids)}")
    click.echo(f"report: {folder / 'index.html'}")
    ctx.exit(1 if fail_on_change and any(d.any for d in diffs) else 0)


@cli.command()
@click.argument("games", nargs=-1)
@click.option("--all", "everything", is_flag=True, help="Also remove the built files (output/<game>/).")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="The output folder (default: output/ in the project).")
@click.pass_context
def clean(ctx, games, everything, out_dir):
    """Remove the build caches (output/.cache/); with --all, the built files of GAMES too.

    The face cache is shared by every game (a face drawn for one game serves another), so
    it is removed whole, whether or not GAMES are named.
    """
    from .pipeline import clean as run_clean

    root = _root(ctx)
    for line in run_clean(root, games, out_dir, everything):
        click.echo(line)


@cli.command("list")
@click.pass_context
def list_cmd(ctx):
    """List the games and their components with counts."""
    from .load import list_games, load_game

    root = _root(ctx)
    failed = 0
    for game_id in list_games(root):
        try:
            game = load_game(root, game_id)
        except InputError as exc:
            failed += 1
            click.echo(f"{game_id}: cannot be read ({exc.message}); run `pnp validate {game_id}`", err=True)
            continue
        total = sum(c.count for d in game.decks for c in d.cards)
        click.echo(f"{game_id}: {game.title} ({total} components)")
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
    from .starter import new_game

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
    from .starter import write_schemas

    root = (ctx.obj or _project_or_here(Path.cwd())).resolve()
    for path in write_schemas(root):
        click.echo(str(path.relative_to(root)))


@cli.command("pull")
@click.argument("games", nargs=-1)
@click.pass_context
def pull_cmd(ctx, games):
    """Download the published spreadsheets named in each game's `pull:` (default: every game that has one)."""
    from .load import list_games
    from .pull import pull_game
    from .yamlsrc import read_yaml

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
        for pulled in pull_game(root, game):
            state = "updated" if pulled.changed else "unchanged"
            click.echo(f"{game}: {pulled.file.relative_to(root)}: {pulled.rows} rows, {state}")


def _shape(deck) -> str:
    """A deck's size and cut shape as a designer says it: '25 mm circle', '63 x 88 mm rect'."""
    if deck.shape == "circle":
        return f"{deck.trim_w:g} mm circle"
    size = f"{deck.trim_w:g} x {deck.trim_h:g} mm"
    if deck.shape == "hex":
        return f"{size} hex ({deck.orientation}-top)"
    if deck.shape == "rounded":
        return f"{size} rounded ({deck.corner:g} mm corners)"
    if deck.layout == "board" and deck.sections:
        return f"{size} board in {deck.sections[0]} x {deck.sections[1]} sections"
    return f"{size} {'board' if deck.layout == 'board' else 'rect'}"


def main(argv=None):
    """Console entry point; user errors exit cleanly with their own code, never a traceback."""
    try:
        code = cli.main(args=argv, prog_name="pnp", standalone_mode=False)
    except PnpError as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
