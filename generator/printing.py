"""What a game is printed on and how: the papers and the print mode a build asked for,
else the game's own `print:` settings, else pnp's defaults.

In: a loaded game (its `print:` settings) and the build's `BuildOptions`. Out: the paper
names to lay out (`game_papers`) and the `PrintMode` (`print_mode_of`: duplex or not, the
backs' offset, a cutting machine), or an `InputError` when the two cannot go together.
"""
from __future__ import annotations

from .errors import InputError
from .layout.modes import TWO_SIDED, PrintMode
from .options import BuildOptions
from .units import paper_name

PAPERS = ("a4", "letter")


def game_papers(game, options: BuildOptions) -> tuple[str, ...]:
    """The papers to build: those asked for, else the game's `print: papers`, else A4 and Letter."""
    settings = game.meta.get("print") or {}
    return tuple(options.papers or [paper_name(p) for p in settings.get("papers") or PAPERS])


def print_mode_of(game, options: BuildOptions) -> PrintMode:
    return _print_mode(game.meta.get("print") or {}, options.mode, options.back_offset, options.cutter)


def _print_mode(settings: dict, mode: str | None, back_offset, cutter: str | None = None) -> PrintMode:
    """The print mode of a build: the command line's, else the game's `print:` settings."""
    offset = settings.get("back_offset") or {}
    offset = back_offset if back_offset is not None else (float(offset.get("x", 0)), float(offset.get("y", 0)))
    chosen = mode or settings.get("mode") or "duplex-long"
    if (offset[0] or offset[1]) and chosen not in TWO_SIDED:
        raise InputError(f"back_offset moves the backs of a duplex print; {chosen} prints no second side")
    machine = cutter or settings.get("cutter") or None
    if machine and chosen == "gutter-fold":
        raise InputError(f"a cutting machine ({machine}) cuts a flat sheet it can read the marks of; gutter-fold "
                         "sheets are folded and glued first: choose another print mode")
    return PrintMode(chosen, (float(offset[0]), float(offset[1])), machine)
