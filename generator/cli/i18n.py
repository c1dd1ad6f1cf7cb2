"""`pnp i18n`: a game's texts out to translators and back (export, import, status, accept),
flags wired to data/i18nfiles.py, registered on the `pnp` group of cli.py."""
from __future__ import annotations

from pathlib import Path

import click

from .options import _root, cli


def _game(root: Path, game_id: str):
    from ..data.load import load_game
    from ..pipeline import resolve_games
    from ..session import Session

    resolve_games(root, [game_id])
    return load_game(root, game_id, Session())


@cli.group("i18n")
def i18n():
    """Translations of a game of several languages (game.yaml languages:) for translators."""


@i18n.command("export")
@click.argument("game")
@click.option("--format", "fmt", type=click.Choice(["po", "csv", "xlsx"]), default="po", show_default=True,
              help="po: a gettext file per language (Poedit, Weblate, Crowdin); csv, xlsx: one table, a column "
                   "per language.")
@click.option("--lang", "languages", multiple=True, metavar="LANG", help="Only this language (repeatable).")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write (default: output/<game>/i18n/).")
@click.pass_context
def export_cmd(ctx, game, fmt, languages, out_dir):
    """Write GAME's texts, each with its translations, for translators."""
    from ..data.i18nfiles import export
    from ..exports.files import write_atomic

    root = _root(ctx)
    files = export(_game(root, game), fmt, tuple(languages) or None)
    folder = out_dir or root / "output" / game / "i18n"
    base = root if out_dir is None else out_dir.parent   # the project, or where the folder named lies
    base.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        write_atomic(base, folder / name, data)
        click.echo(str((folder / name).relative_to(root) if (folder / name).is_relative_to(root) else folder / name))


@i18n.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.pass_context
def import_cmd(ctx, file):
    """Write the translations FILE holds (a .po, .csv or .xlsx pnp exported, filled in) into
    cards/<game>/i18n/<language>.yaml. Each keeps the source text it was made from: one made
    from an older source is marked stale."""
    from ..data.i18nfiles import import_file, read_file

    root = _root(ctx)
    imported = read_file(file)
    written = import_file(_game(root, imported.game), imported, str(file))
    for note in imported.notes:
        click.echo(f"note: {file}: {note}", err=True)
    for path, n in written:
        click.echo(f"{path}: {n} text{'s' if n != 1 else ''} imported")
    if not written:
        click.echo(f"{file}: no translation differs from the game's: nothing to import")
        return
    from ..data.editions import read_translation
    from ..data.i18ncheck import check_translation

    game = _game(root, imported.game)   # as it is now
    for lang in imported.texts:
        for problem in check_translation(game, read_translation(game, lang)):
            click.echo(f"{problem.severity}: {problem}", err=True)   # pnp validate will say it again


@i18n.command("status")
@click.argument("games", nargs=-1)
@click.pass_context
def status_cmd(ctx, games):
    """How far each language of GAMES (default: every game of several languages) has come."""
    from ..data.editions import languages_of
    from ..data.i18nfiles import status
    from ..data.load import load_game
    from ..pipeline import resolve_games
    from ..session import Session

    root = _root(ctx)
    shown = 0
    for game_id in resolve_games(root, games):
        game = load_game(root, game_id, Session())
        if len(languages_of(game.meta)) < 2 and not games:
            continue
        for p in status(game):
            shown += 1
            if p.unreadable:
                click.echo(f"{game_id} {p.lang}: cannot be read: {p.unreadable}")
                continue
            extra = (f", {p.unrecorded} with no recorded source" if p.unrecorded else "") + \
                (f"; rulebook {p.rulebook}" if p.rulebook else "")
            click.echo(f"{game_id} {p.lang}: {p.translated} of {p.total} texts translated, {p.missing} missing, "
                       f"{p.stale} stale{extra} ({'complete' if p.complete else 'incomplete'})")
    if not shown:
        click.echo("no game lists languages: in its game.yaml")


@i18n.command("accept")
@click.argument("game")
@click.option("--lang", "languages", multiple=True, metavar="LANG", help="Only this language (repeatable).")
@click.pass_context
def accept_cmd(ctx, game, languages):
    """Mark GAME's translations up to date with their source as it is now (after a translator
    has checked the stale ones): records the source of each in the file's sources: block."""
    from ..data.i18nfiles import accept

    root = _root(ctx)
    for path, n in accept(_game(root, game), tuple(languages) or None):
        what = "its source" if path.endswith(".md") else f"the sources of {n} text{'s' if n != 1 else ''}"
        click.echo(f"{path}: recorded {what}, as they are now")
