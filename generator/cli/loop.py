"""The edit loop's commands: `pnp watch`, `pnp serve`, `pnp diff` and `pnp clean`, flags
wired to watch.py, preview.py, changes.py and clean.py, registered on the `pnp`
group of cli.py."""
from __future__ import annotations

import functools
from pathlib import Path

import click

from ..errors import InputError
from ..loop.summary import BESIDE, FORMATS
from .options import (
    PAPER,
    _root,
    build_options,
    cli,
    lang_option,
    limits_options,
    picture_options,
    ref_tree,
    session_for,
    untrusted_limits_options,
)


def _watch_options(f):
    for option in reversed([
        click.argument("games", nargs=-1),
        click.option("--paper", "papers", type=PAPER, multiple=True, help="a4 or letter (default: the game's papers)."),
        click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
                     help="Where to write (default: output/ in the project)."),
        click.option("--no-validate", is_flag=True, help="Build even if the deck breaks its rules."),
        click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
                     help="Preview port on 127.0.0.1 (0: any free port)."),
        picture_options,
        lang_option,
        limits_options,
        build_options,
    ]):
        f = option(f)
    return f


@cli.command()
@_watch_options
@click.option("--serve", is_flag=True, help="Also serve a live preview on http://127.0.0.1:PORT/.")
@click.pass_context
def watch(ctx, games, port, serve, options, limits):
    """Rebuild GAMES (default: every game) each time one of their files is saved.

    Prints what changed and how long the build took; a build that fails prints its
    problems, keeps the last good output, and the watch goes on. Ctrl-C stops.
    """
    _run_watch(ctx, games, port, serve, options, limits)


@cli.command()
@_watch_options
@click.pass_context
def serve(ctx, games, port, options, limits):
    """Watch GAMES and show every face live in the browser (same as `pnp watch --serve`)."""
    _run_watch(ctx, games, port, True, options, limits)


def _run_watch(ctx, games, port, serve, options, limits):
    from ..loop.watch import watch as run_watch
    from ..pipeline import resolve_games

    root = _root(ctx)
    names = resolve_games(root, games)
    preview = None
    if serve:
        from ..loop.preview import Preview
        from ..loop.preview import serve as start_server

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
        if outcome.early:
            first = outcome.result.files[0].name if outcome.result.files else "the first paper"
            click.echo(f"{outcome.game}: {first} in place in {outcome.seconds:.2f} s{what}; the rest follows")
        elif outcome.ok:
            written = len(outcome.result.files)
            click.echo(f"{outcome.game}: built in {outcome.seconds:.2f} s{what}, {written} files")
        else:
            click.echo(f"{outcome.game}: build failed after {outcome.seconds:.2f} s{what}; "
                       "the last good output is kept", err=True)
            for p in outcome.problems:
                click.echo(f"  {p}", err=True)

    click.echo(f"watching {', '.join(names)} (cards/ and templates/); Ctrl-C stops")
    run_watch(root, names, report, options, session_for(limits, remember=True))


def _page_options(command):
    """`--format` (repeatable), `--pictures-url` and `--no-pictures`, passed on as `page`:
    (the formats, where the markdown's pictures are: summary.BESIDE, a URL, or None)."""
    @functools.wraps(command)
    def with_page(*args, formats, pictures_url, no_pictures, **kwargs):
        if pictures_url is not None and no_pictures:
            raise click.UsageError("--pictures-url and --no-pictures: choose one")
        pictures = None if no_pictures else (pictures_url if pictures_url is not None else BESIDE)
        return command(*args, page=(tuple(dict.fromkeys(formats)), pictures), **kwargs)

    for option in reversed([
        click.option("--format", "formats", type=click.Choice(FORMATS), multiple=True, default=("html",),
                     show_default=True, help="The summary page: index.html with the pictures inside it, or "
                                             "summary.md with them beside it (repeatable: both)."),
        click.option("--pictures-url", metavar="URL",
                     help="markdown: the pictures are at URL/<game>/<component>.png (where CI publishes "
                          "output/diff/)."),
        click.option("--no-pictures", is_flag=True,
                     help="markdown: name each picture's file instead of showing it (a page that cannot show them)."),
    ]):
        with_page = option(with_page)
    return with_page


@cli.command()
@click.argument("ref")
@click.argument("games", nargs=-1)
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="The output folder (default: output/ in the project); the report goes to its diff/.")
@click.option("--fail-on-change", is_flag=True, help="Exit 1 when any component changed (a CI gate).")
@_page_options
@lang_option
@untrusted_limits_options
@click.pass_context
def diff(ctx, ref, games, out_dir, fail_on_change, page, languages, limits):
    """List the components of GAMES (default: every game) whose faces differ from git REF.

    Writes a summary to output/diff/ (the validation findings, then each changed component
    before and after; nothing for a game without either) and one before/after PNG per
    changed component (a CI artifact for review). Exit 0, or 1 with --fail-on-change when
    something changed.
    """
    from .. import safefs
    from ..errors import OutputError
    from ..exports.files import write_atomic
    from ..loop.diffreport import Reference, diff_games
    from ..loop.summary import PAGES, summary_files
    from ..options import BuildOptions
    from ..outputfolder import face_cache_ready
    from ..pipeline import resolve_games
    from ..preflight import validate_games

    formats, pictures = page
    root = _root(ctx)
    out_dir = out_dir or root / "output"
    cache = face_cache_ready(out_dir)
    session = session_for(limits)
    asked = tuple(languages) or None
    reference = Reference(ref, ref_tree(ctx, ref))   # unpacked before the jail, where there is one
    with session.budget("pnp diff"):
        names = resolve_games(root, games)
        reports = validate_games(root, names, BuildOptions(languages=asked), session, draw=False).reports
        diffs = [d for g in names for d in diff_games(root, g, reference, out_dir, session, cache, asked)]
    folder = out_dir / "diff"
    try:
        safefs.remove(out_dir.parent, folder)   # the last report: never through a link
        pages = {name: data for fmt in formats
                 for name, data in summary_files(diffs, ref, reports, fmt, pictures).items()}
        for name, data in pages.items():
            write_atomic(out_dir.parent, folder / name, data)
    except OSError as exc:
        raise OutputError(f"cannot write the diff report to {folder}: {exc.strerror or exc}") from None
    for d in diffs:
        if not d.any:
            click.echo(f"{d.game}: no component changed since {ref}")
        for label, ids in (("changed", d.changed), ("added", d.added), ("removed", d.removed)):
            if ids:
                click.echo(f"{d.game}: {len(ids)} {label} since {ref}: {', '.join(ids)}")
    for fmt in formats:
        click.echo(f"report: {folder / PAGES[fmt]}")
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
    from ..clean import clean as run_clean

    root = _root(ctx)
    for line in run_clean(root, games, out_dir, everything):
        click.echo(line)
