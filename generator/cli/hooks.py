"""`pnp hook`: the entry points of pre-commit's hooks (.pre-commit-hooks.yaml) and of the
GitHub Action (action.yml), given the changed files' names, wired to data/touched.py.

`pnp hook validate FILES` validates the games the files touch (`--no-render` unless told
`--render`), `pnp hook schema FILES` brings each touched project's editor schemas up to
date (exit 1 when one was not: add it to the commit), `pnp hook games FILES` prints the
games of the project at --root (or here) the files touch, one a line (the Action's list).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click

from .options import _root, cli


@cli.group()
def hook():
    """Run on the changed files only: pre-commit's hooks and CI's (FILES as git names them)."""


@hook.command("games")
@click.argument("files", nargs=-1)
@click.pass_context
def games_cmd(ctx, files):
    """Print the games FILES touch (named from the project's folder: git diff --name-only --relative)."""
    from ..data.touched import touched

    root = _root(ctx)
    for found in touched(root, files):
        if found.root == root:
            for game in found.names():
                click.echo(game)


@hook.command("validate")
@click.argument("files", nargs=-1)
@click.option("--render/--no-render", "draw", default=False, show_default=True,
              help="Also draw every card and lay out the sheets and rulebook (as pnp validate does).")
@click.option("--strict", is_flag=True, help="Warnings fail too.")
@click.pass_context
def validate_cmd(ctx, files, draw, strict):
    """`pnp validate` on the games FILES touch (named from here, the repository's top)."""
    from ..data.touched import touched
    from .commands import validate

    projects = [(t.root, t.names()) for t in touched(Path.cwd(), files)]
    projects = [(root, games) for root, games in projects if games]
    worst = 0
    for root, games in projects:
        if len(projects) > 1:   # each project in a process of its own: an untrusted one's jail is its folder
            flags = ["--render" if draw else "--no-render"] + (["--strict"] if strict else [])
            code = subprocess.run([sys.executable, "-m", "generator", "--root", str(root), "validate",
                                   *flags, *games]).returncode
        else:
            ctx.obj = root
            try:
                ctx.invoke(validate, games=tuple(games), draw=draw, strict=strict)
                code = 0
            except click.exceptions.Exit as exc:
                code = exc.exit_code
        worst = max(worst, code)
    ctx.exit(worst)


@hook.command("schema")
@click.argument("files", nargs=-1)
@click.pass_context
def schema_cmd(ctx, files):
    """Write pnp's JSON Schemas into schemas/ of each project FILES fall in; exit 1 when one
    was missing or out of date (it is now written: add it to the commit)."""
    from ..data.starter import write_schemas
    from ..data.touched import touched

    stale = [path for found in touched(Path.cwd(), files) for path in write_schemas(found.root, only_changed=True)]
    for path in stale:
        click.echo(f"{path.relative_to(Path.cwd())}: missing or out of date; written now (add it to the commit)",
                   err=True)
    ctx.exit(1 if stale else 0)
