"""`pnp export`, `pnp calibrate` and `pnp kit`: flags wired to the export stage (exports/,
layout/calibration.py), registered on the `pnp` group of cli.py."""
from __future__ import annotations

from pathlib import Path

import click

from ..exports.targets import TARGETS, shops, tabletops
from .options import (
    CUTTER,
    MODE,
    PAPER,
    OffsetType,
    _root,
    build_options,
    cli,
    lang_option,
    picture_options,
    session_for,
    stamp_option,
    untrusted_limits_options,
)

TABLETOPS, SHOPS = tabletops(), shops()
TARGET = click.Choice(TABLETOPS, case_sensitive=False)
PICTURES = [name for name in TABLETOPS if TARGETS[name].pictures]


class CardsType(click.ParamType):
    """Card ids, comma-separated: a,b,c."""

    name = "ids"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        return tuple(v.strip() for v in str(value).split(",") if v.strip())


class SizeType(click.ParamType):
    """A picture's size in pixels: 1600x900."""

    name = "WxH"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        try:
            w, h = (int(v) for v in str(value).lower().split("x"))
        except ValueError:
            self.fail(f"{value!r} is not WIDTHxHEIGHT in pixels (e.g. 1600x900)", param, ctx)
        return w, h


def _export_help(command):
    """`pnp export`'s help: a line for each target of the table (exports/targets.py)."""
    lines = [f"{f'pnp export {name} [GAMES]':<42}{TARGETS[name].what}" for name in TABLETOPS]
    lines.append(f"{f'pnp export --profile {chr(124).join(SHOPS)} [GAMES]':<42}print-shop files")
    command.__doc__ = command.__doc__.replace("{targets}", "\n    ".join(lines))
    return command


@cli.command("export")
@click.argument("args", nargs=-1, metavar=f"{'|'.join(TABLETOPS)} [GAMES]...")
@click.option("--profile", type=click.Choice(SHOPS, case_sensitive=False),
              help="Files a print shop accepts as is: " + ", ".join(f"{s} ({TARGETS[s].what})" for s in SHOPS)
                   + ". Then every argument is a game.")
@click.option("--target", type=TARGET, help="The export target, as an option: then every argument is a game.")
@click.option("--dpi", type=click.IntRange(30, 1200),
              help="Resolution of PNG images and TTS sheets (default 300; tabletopia: 10 px a mm, 254 dpi).")
@click.option("--base-url", metavar="URL",
              help="tts: the https:// folder the images will be uploaded to; the saved object's URLs point there.")
@click.option("--cards", type=CardsType(), metavar="ID[,ID...]",
              help="showcase, hand: the cards shown, in order (default: the first card of each deck).")
@click.option("--size", type=SizeType(), metavar="WxH",
              help="showcase, hand: the picture's width and height in pixels (default 1600x900, 1200x1000).")
@stamp_option
@click.option("--bleed/--no-bleed", default=True, show_default=True,
              help="PNG images keep the bleed, or show the trim.")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write (default: output/ in the project).")
@click.option("--no-validate", is_flag=True, help="Export even if the deck breaks its rules (not for print).")
@picture_options
@lang_option
@untrusted_limits_options
@build_options
@click.pass_context
@_export_help
def export_cmd(ctx, args, profile, target, options, limits):
    """Export GAMES (default: every game) into output/<game>/exports/<target>/.

    \b
    {targets}
    """
    from ..exporting import run_exports

    if profile:
        target, games = profile.lower(), args
    elif target:
        target, games = target.lower(), args
    elif args and args[0] in TABLETOPS:
        target, games = args[0], args[1:]
    else:
        raise click.UsageError(f"say what to export: `pnp export {'|'.join(TABLETOPS)}` or "
                               f"`pnp export --profile {'|'.join(SHOPS)}`")
    if options.base_url is not None and target != "tts":
        raise click.UsageError("--base-url is for `pnp export tts`")
    if (options.cards or options.size) and not TARGETS[target].pictures:
        raise click.UsageError(f"--cards and --size are for `pnp export {'|'.join(PICTURES)}`")
    session = session_for(limits)
    with session.budget(f"pnp export {target}"):
        results = run_exports(_root(ctx), games, target, options, session)
    for r in results:
        folder = r.files[-1].parent
        for w in r.drawing:
            click.echo(f"warning: {w}", err=True)
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
    from ..draw import fonts
    from ..errors import OutputError
    from ..exports.files import write_calibration
    from ..layout.calibration import calibration_pdf
    from ..layout.modes import PrintMode

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
@click.option("--paper", "papers", type=PAPER, multiple=True,
              help="Papers to include (default: the game's print: papers, else a4 and letter). Repeatable.")
@click.option("--mode", type=MODE, help="Print mode of the sheets (default: the game's print: mode).")
@click.option("--back-offset", type=OffsetType(), help="X,Y mm to move the backs by.")
@click.option("--cutter", type=CUTTER, help="Sheets for a print-then-cut machine (default: the game's print: cutter).")
@stamp_option
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write (default: output/ in the project).")
@picture_options
@lang_option
@untrusted_limits_options
@build_options
@click.pass_context
def kit(ctx, game, options, limits):
    """Zip GAME's sheets, rulebook, cut files and a read-me for players (output/<game>/exports/kit/;
    one kit per edition of a game of several languages: exports/kit-<language>/)."""
    from ..exporting import run_kit

    session = session_for(limits)
    with session.budget("pnp kit"):
        results = run_kit(_root(ctx), game, options, session)
    for r in results:
        for w in r.drawing:
            click.echo(f"warning: {w}", err=True)
        for note in r.notes:
            click.echo(f"note: {r.game}: {note}", err=True)
        click.echo(f"{r.game}: print-and-play kit {r.files[0]} ({r.seconds:.2f} s)")
