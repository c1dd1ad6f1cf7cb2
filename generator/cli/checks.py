"""`pnp check colour`: checks of what the printed game looks like, wired to colourcheck.py."""
from __future__ import annotations

from pathlib import Path

import click

from .options import PAPER, _root, cli, session_for, untrusted_limits_options


@cli.group()
def check():
    """Checks of how the printed game looks (beyond its rules, which `pnp validate` checks)."""


@check.command("colour")
@click.argument("games", nargs=-1)
@click.option("--paper", type=PAPER, help="The sheet's paper (default: the game's first print: paper, else a4).")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write the sheet (default: output/ in the project).")
@click.option("--no-sheet", is_flag=True, help="Only the findings: no <game>-colour-<paper>.pdf.")
@untrusted_limits_options
@click.pass_context
def colour(ctx, games, paper, out_dir, no_sheet, limits):
    """Can colour-blind players tell GAMES' cards apart, and can everyone read them? Every face
    seen as protanopia, deuteranopia, tritanopia and greyscale: the fields game.yaml lists
    under `distinguish:` must differ by an icon or a word, or by enough colour in every
    simulation; text must stand out from what is behind it (WCAG contrast). Writes
    output/<game>/<game>-colour-<paper>.pdf, the faces as each simulation sees them.

    Exit 0 when nothing fails (warnings are printed), 1 when something does."""
    from ..colourcheck import check_colour, write_sheet
    from ..data.editions import source_edition
    from ..data.load import load_game
    from ..options import BuildOptions
    from ..outputfolder import face_cache_ready
    from ..pipeline import resolve_games
    from ..preflight import kept_by_build
    from ..printing import game_papers

    root = _root(ctx)
    session = session_for(limits)
    options = BuildOptions(papers=(paper,) if paper else None, out_dir=out_dir)
    out = options.output(root)
    failed = False
    with session.budget("pnp check colour"):
        cache = face_cache_ready(out)
        ids = resolve_games(root, list(games))
        kept = kept_by_build(root, ids, games, out, session)   # the faces as the last build rendered them
        checks = []
        for game_id in ids:
            with kept(game_id):
                checks.append(check_colour(source_edition(load_game(root, game_id, session)), session, cache,
                                           sheet=not no_sheet))
        for checked in checks:
            for problem in checked.problems:
                click.echo(f"{problem.severity}: {problem}")
            errors = sum(p.severity == "error" for p in checked.problems)
            failed = failed or errors > 0
            warnings = len(checked.problems) - errors
            click.echo(f"{checked.game.id}: colour: {errors} error{'s' * (errors != 1)}, "
                       f"{warnings} warning{'s' * (warnings != 1)}", err=True)
            if not no_sheet:
                for path in write_sheet(out, checked, game_papers(checked.game, options)[0]):
                    click.echo(f"wrote {path.relative_to(path.parents[1])}", err=True)
    ctx.exit(1 if failed else 0)
