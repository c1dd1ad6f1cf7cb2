"""`pnp changes A..B [GAMES]` and `pnp changes --printed VERSION`: the errata kit, flags wired
to errata.py (what changed, card by card) and erratapack.py (the changelog sheet, the reprint
pack, the JSON), registered on the `pnp` group."""
from __future__ import annotations

import json
import re
from pathlib import Path

import click

from .options import MODE, PAPER, _root, build_options, cli, limits_options, session_for, stamp_option


@cli.command("changes")
@click.argument("args", nargs=-1, metavar="[A..B] [GAMES]...")
@click.option("--printed", metavar="VERSION",
              help="Which printed cards are out of date: the cards printed at VERSION (the version their stamp "
                   "shows, e.g. v1.2-3-gabc1234) against now. Then every argument is a game.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="How the changes are printed on stdout.")
@click.option("--files/--no-files", default=True, show_default=True,
              help="Also write output/<game>/<game>-changes-<paper>.pdf (the changelog sheet), "
                   "<game>-reprint-<paper>.pdf (the reprint pack) and <game>-changes.json.")
@click.option("--paper", "papers", type=PAPER, multiple=True,
              help="The sheets' paper (default: the game's print: papers, else a4 and letter). Repeatable.")
@click.option("--mode", type=MODE, help="The reprint pack's print mode (default: the game's print: mode).")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="The output folder (default: output/ in the project).")
@stamp_option
@limits_options
@build_options
@click.pass_context
def changes_cmd(ctx, args, printed, fmt, files, options, limits):
    """What changed on each card of GAMES (default: every game) from version A to B: text (a
    word-level diff), count (+/-), added, removed, art only, back only; the cards to pull from
    the box (by name and short id) and to reprint.

    A and B are git refs; `A` or `A..` compares A with the working tree, `last..` the last
    build with it. A..A lists nothing. Exit 0 (2 for a bad ref or unreadable input).
    """
    from ..errata import as_data, as_text, errata
    from ..erratapack import artifacts
    from ..exports.files import write_game
    from ..outputfolder import face_cache_ready
    from ..pipeline import resolve_games

    root = _root(ctx)
    if printed is not None:
        spec, games = re.sub(r"-dirty$", "", printed.strip()) + "..", args
    elif not args:
        raise click.UsageError("name the versions: pnp changes A..B [GAMES] (or --printed VERSION)")
    else:
        spec, games = args[0], args[1:]
    out_dir = options.output(root)
    session = session_for(limits)
    found, written = [], []
    with session.budget("pnp changes"):   # git runs here: bounded, not jailed (as pnp diff)
        names = resolve_games(root, games)
        cache = face_cache_ready(out_dir) if files else None
        for name in names:
            e, old, new = errata(root, name, spec, out_dir, session)
            found.append(e)
            if files and e.any:
                made = artifacts(e, old, new, root, options, session, cache)
                written += write_game(out_dir, name, made, merge=True)
    if fmt == "json":
        click.echo(json.dumps([as_data(e) for e in found], indent=1, ensure_ascii=False))
    else:
        for e in found:
            if printed is not None:
                out = sum(p["copies"] for p in as_data(e)["pull_list"])
                click.echo(f"{e.game}: {out} printed card{'s' if out != 1 else ''} of {printed} out of date")
            click.echo(as_text(e))
    for path in written:
        if path.name != "manifest.json":
            click.echo(f"wrote {path.relative_to(path.parents[1])}", err=True)
