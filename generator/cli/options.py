"""`pnp`'s group and what every command shares: the project root, the paper and mode
options, and the `--root` / `--verbose` flags. Commands register on `cli` from the modules
beside this one."""
from __future__ import annotations

import functools
import logging
import os
from pathlib import Path

import click

from ..errors import InputError
from ..exports.targets import TARGETS
from ..layout.cutters import CUTTERS
from ..layout.modes import MODES
from ..options import BuildOptions

MODE = click.Choice(MODES, case_sensitive=False)


class PaperType(click.ParamType):
    """a4, letter, a3, a5, legal, tabloid, or WxH with a unit (300x400mm, 11x17in)."""

    name = "paper"

    def convert(self, value, param, ctx):
        from ..units import paper_name

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
CUTTER = click.Choice(CUTTERS, case_sensitive=False)


def stamp_option(command):
    """`--stamp TEXT`: a version stamp on every face and page footer ({version}, {date})."""
    return click.option("--stamp", metavar="TEXT",
                        help="Draw TEXT small on every face and in every page's footer; {version} is git "
                             "describe (or 'unversioned'), {date} the last commit's date (or SOURCE_DATE_EPOCH). "
                             "Default: the game's print: stamp; --stamp '' for none.")(command)


PROGRAM = "pnp.program"   # ctx.meta: set by the `pnp` program (cli.main), never by a caller in-process


def limits_options(command):
    """`--time-limit`, `--total-time-limit` and `--memory-limit`: the bounds of a command,
    chosen by whoever runs it (never by the project), passed to the command as one
    `limits` (guard.Limits). The `pnp` program also lowers its memory rlimit to
    `--memory-limit` (jail.py), once the options are read."""
    return _limits(command, untrusted=False)


def untrusted_limits_options(command):
    """`limits_options` plus `--untrusted[=strict]` and `--trusted`: a command that reads a
    stranger's project (`pnp build`, `validate`, `export`, `kit`) confines itself in the
    jail (jail.py) once its options are read, before anything of the project is; on
    whenever the environment has CI, unless `--trusted`."""
    return _limits(command, untrusted=True)


def _limits(command, untrusted: bool):
    from ..guard import FACE_SECONDS, MEMORY_BYTES, TOTAL_SECONDS, Limits

    @functools.wraps(command)
    def with_limits(*args, time_limit, total_time_limit, memory_limit, untrusted=None, trusted=False, **kwargs):
        mode = "off" if trusted or not with_jail else (untrusted or ("on" if os.environ.get("CI") else "off"))
        limits = Limits(face_seconds=time_limit, total_seconds=total_time_limit, memory_bytes=memory_limit,
                        untrusted=mode)
        ctx = click.get_current_context()
        if ctx.meta.get(PROGRAM):
            ctx.meta["pnp.limits"] = limits   # cli.main words a MemoryError with the budget
            limits = _confine(ctx, limits, kwargs)
        return command(*args, limits=limits, **kwargs)

    with_jail = untrusted
    options = [
        click.option("--time-limit", "time_limit", type=click.FloatRange(0.1, 3600), default=FACE_SECONDS,
                     show_default=True, metavar="SECONDS",
                     help="The most one face's template, and then its drawing, may take; longer is an "
                          "error naming the card."),
        click.option("--total-time-limit", "total_time_limit", type=click.FloatRange(1, 86400),
                     default=TOTAL_SECONDS, show_default=True, metavar="SECONDS",
                     help="The most the whole command may take, every face and stage together."),
        click.option("--memory-limit", "memory_limit", type=SIZE, default=MEMORY_BYTES, metavar="SIZE",
                     help="The most memory each pnp process may take (e.g. 2G, 1500M). Default: 2G."),
    ]
    if untrusted:
        options += [
            click.option("--untrusted", "untrusted", type=UNTRUSTED, is_flag=False, flag_value="on", default=None,
                         help="Build a stranger's project (a pull request) in a jail: the kernel lets pnp read "
                              "only the project, Python, libraries and fonts, write only the output folder, run "
                              "no program and open no socket (docs/security.md). --untrusted=strict refuses "
                              "where a wall is missing. On whenever CI is set."),
            click.option("--trusted", is_flag=True, help="No jail, even where CI is set."),
        ]
    for option in reversed(options):
        with_limits = option(with_limits)
    return with_limits


class UntrustedMode(click.ParamType):
    """`--untrusted` alone (on), or `--untrusted=strict`."""

    name = "mode"

    def convert(self, value, param, ctx):
        if value in ("on", "strict"):
            return value
        self.fail(f"{value!r}: --untrusted takes no value but =strict (--untrusted=strict); name the games "
                  "before it", param, ctx)


UNTRUSTED = UntrustedMode()


REF_TREE = "pnp.ref_tree"   # ctx.meta: (git ref, the folder it was unpacked into before the jail)


def ref_tree(ctx, ref: str):
    """The folder `_confine` unpacked git `ref` into before the jail, or None (not confined:
    the command unpacks it itself)."""
    found = ctx.meta.get(REF_TREE)
    return found[1] if found is not None and found[0] == ref else None


def _confine(ctx, limits, kwargs):
    """Before the command reads anything of the project: what needs a program is done (the
    libraries' look-ups, the stamp's git facts, a git ref's checkout for `pnp diff`) or
    refused, then the process confines itself. Returns the limits the command runs under
    (without drawing workers where the jail could not make /dev/shm private)."""
    import dataclasses

    from .. import jail

    if limits.untrusted == "off":
        jail.confine(Path("."), Path("."), limits, "off")
        return limits
    profile = (kwargs.get("profile") or "").lower()
    if profile in TARGETS and TARGETS[profile].program:
        raise InputError(f"--profile {profile}: {TARGETS[profile].program}, a program, which an untrusted build "
                         "cannot run (--untrusted, on where CI is set): export it with --trusted")
    since = kwargs.get("changed_since")
    if since not in (None, "last"):
        raise InputError(f"--changed-since {since}: reading a git ref runs git, which an untrusted build cannot "
                         "(--untrusted, on where CI is set): use --changed-since last, or --trusted")
    from .. import memory

    # libraries found by running ldconfig, before exec is refused (and frozen: memory.imported)
    memory.imported(("generator.pipeline", "generator.changes", "generator.preflight", "generator.exporting",
                     "generator.draw.drawpool"))
    root = _root(ctx)
    from .. import safefs
    from ..diskmemo import code_digest
    from ..draw import stamp

    stamp.before_jail(root)
    safefs.cache_key()   # kept outside the project: read now, the jail will not let it be read later
    code_digest()   # pnp's own files and its libraries' versions, read before the jail
    out_dir = kwargs.get("out_dir") or root / "output"
    ref = kwargs.get("ref")
    if ref is not None:   # pnp diff REF: git unpacks the ref now; the jailed command reads what it unpacked
        from ..changes import LAST, checkout

        jail.bound_memory(limits)   # git and the unpacking within the memory budget, as inside the command
        ctx.meta[REF_TREE] = (ref, None if ref == LAST else checkout(root, ref, out_dir))
    confined = jail.confine(root, out_dir, limits, limits.untrusted)
    if confined.line:
        click.echo(confined.line, err=True)
    return limits if confined.processes else dataclasses.replace(limits, forks=False)


class SizeType(click.ParamType):
    """A size in bytes: 2G, 1500M, 512K or a number of bytes."""

    name = "size"
    UNITS = {"": 1, "B": 1, "K": 2**10, "M": 2**20, "G": 2**30}

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        text = str(value).strip().upper().removesuffix("IB").removesuffix("B")
        number, unit = (text[:-1], text[-1]) if text[-1:] in "KMG" else (text, "")
        try:
            size = int(float(number) * self.UNITS[unit])
        except (ValueError, OverflowError):
            self.fail(f"{value!r} is not a size (e.g. 2G, 1500M)", param, ctx)
        if size < 256 * 2**20:
            self.fail(f"{value!r}: pnp needs at least 256M", param, ctx)
        return size


SIZE = SizeType()


def picture_options(command):
    """`--image-dpi DPI` and `--draft`: how pictures are embedded, chosen by whoever runs the
    command (the game's `print: image_dpi` otherwise)."""
    command = click.option("--draft", is_flag=True,
                           help="Pictures at 100 dpi, for fast proofs (the sheets say DRAFT: not for print).")(command)
    return click.option("--image-dpi", "image_dpi", type=click.FloatRange(30, 2400), metavar="DPI",
                        help="Resolution pictures are embedded at; larger ones are resampled (default: the "
                             "game's print: image_dpi, else 300).")(command)


def lang_option(command):
    """`--lang LANG`: one edition of a game of several languages (repeatable)."""
    return click.option("--lang", "languages", multiple=True, metavar="LANG",
                        help="Only this edition of a game of several languages (game.yaml languages:), e.g. de. "
                             "Repeatable. Default: every edition.")(command)


def build_options(command):
    """The command's options that say what a build makes (papers, mode, stamp, pictures,
    editions...) gathered into one `BuildOptions` (options.py), passed as `options`; a
    value it refuses is a usage error. `--no-validate` becomes `validate`, `--paper`
    (repeatable) `papers`, `--lang` `languages`."""
    names = set(BuildOptions.names())

    @functools.wraps(command)
    def with_options(*args, **kwargs):
        given = {name: kwargs.pop(name) for name in list(kwargs) if name in names}
        if "no_validate" in kwargs:
            given["validate"] = not kwargs.pop("no_validate")
        for many in ("papers", "languages"):
            if many in given:
                given[many] = tuple(given[many]) or None
        try:
            options = BuildOptions(**given)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        return command(*args, options=options, **kwargs)
    return with_options


def session_for(limits, remember: bool = False):
    """The session of one command: its limits from the command line, never from the project."""
    from ..session import Session

    return Session(remember=remember, limits=limits)


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
