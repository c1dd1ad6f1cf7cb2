"""`pnp export`, `pnp calibrate` and `pnp kit`: flags wired to the export stage (exports/,
layout/calibration.py), registered on the `pnp` group of cli.py."""
from __future__ import annotations

import re
from pathlib import Path

import click

from .options import (
    CUTTER,
    MODE,
    PAPER,
    OffsetType,
    _root,
    cli,
    lang_option,
    picture_options,
    session_for,
    stamp_option,
    untrusted_limits_options,
)

TARGET = click.Choice(["png", "tts", "tabletopia", "faces"], case_sensitive=False)


@cli.command("export")
@click.argument("args", nargs=-1, metavar="png|tts|tabletopia|faces [GAMES]...")
@click.option("--profile", type=click.Choice(["tgc", "mpc", "dtc"], case_sensitive=False),
              help="Files a print shop accepts as is: tgc (The Game Crafter), mpc (MakePlayingCards), "
                   "dtc (DriveThruCards). Then every argument is a game.")
@click.option("--target", type=TARGET, help="The export target, as an option: then every argument is a game.")
@click.option("--dpi", type=click.IntRange(30, 1200),
              help="Resolution of PNG images and TTS sheets (default 300; tabletopia: 10 px a mm, 254 dpi).")
@click.option("--base-url", metavar="URL",
              help="tts: the https:// folder the images will be uploaded to; the saved object's URLs point there.")
@stamp_option
@click.option("--bleed/--no-bleed", default=True, show_default=True,
              help="PNG images keep the bleed, or show the trim.")
@click.option("--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write (default: output/ in the project).")
@click.option("--no-validate", is_flag=True, help="Export even if the deck breaks its rules (not for print).")
@picture_options
@lang_option
@untrusted_limits_options
@click.pass_context
def export_cmd(ctx, args, profile, target, dpi, base_url, stamp, bleed, out_dir, no_validate, image_dpi, draft,
               languages, limits):
    """Export GAMES (default: every game) into output/<game>/exports/<target>/.

    \b
    pnp export png [GAMES]      one PNG per face, named by card id
    pnp export tts [GAMES]      Tabletop Simulator deck sheets and a saved object
    pnp export tabletopia [GAMES]   one PNG per face, 10 px a mm, each deck's faces one size
    pnp export faces [GAMES]    the same at --dpi, for any tabletop that takes one image per face
    pnp export --profile tgc|mpc|dtc [GAMES]   print-shop files
    """
    from ..exporting import run_exports

    if profile:
        target, games = profile.lower(), args
    elif target:
        target, games = target.lower(), args
    elif args and args[0] in ("png", "tts", "tabletopia", "faces"):
        target, games = args[0], args[1:]
    else:
        raise click.UsageError("say what to export: `pnp export png|tts|tabletopia|faces` or "
                               "`pnp export --profile tgc|mpc|dtc`")
    if base_url is not None:
        if target != "tts":
            raise click.UsageError("--base-url is for `pnp export tts`")
        if not re.fullmatch(r"https?://[^\s\"'<>]+", base_url):
            raise click.UsageError(f"--base-url {base_url!r}: an http:// or https:// URL of the folder the images "
                                   "will be uploaded to")
    with session_for(limits).budget(f"pnp export {target}"):
        results = run_exports(_root(ctx), games, target, dpi, bleed, out_dir, validate=not no_validate,
                              base_url=base_url, stamp=stamp, image_dpi=image_dpi, draft=draft,
                              languages=tuple(languages) or None)
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
@click.option("--paper", type=PAPER, multiple=True,
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
@click.pass_context
def kit(ctx, game, paper, mode, back_offset, cutter, stamp, out_dir, image_dpi, draft, languages, limits):
    """Zip GAME's sheets, rulebook, cut files and a read-me for players (output/<game>/exports/kit/;
    one kit per edition of a game of several languages: exports/kit-<language>/)."""
    from ..exporting import run_kit

    with session_for(limits).budget("pnp kit"):
        results = run_kit(_root(ctx), game, tuple(paper) or None, mode.lower() if mode else None, back_offset,
                          out_dir, cutter=cutter.lower() if cutter else None, stamp=stamp, image_dpi=image_dpi,
                          draft=draft, languages=tuple(languages) or None)
    for r in results:
        for w in r.drawing:
            click.echo(f"warning: {w}", err=True)
        for note in r.notes:
            click.echo(f"note: {r.game}: {note}", err=True)
        click.echo(f"{r.game}: print-and-play kit {r.files[0]} ({r.seconds:.2f} s)")
