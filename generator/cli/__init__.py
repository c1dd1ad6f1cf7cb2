"""The `pnp` command: thin click wiring from flags to the stage functions.

In: the command line. Out: exit codes and messages. `options` holds the group and what
every command shares; `commands` (build, validate, list, new, schema, pull), `i18n`
(translations: export, import, status, accept), `loop` (watch, serve, diff, clean) and
`prints` (export, calibrate, kit), `errata` (changes) and `hooks` (pre-commit's and CI's: hook games, validate,
schema) register theirs on it. Nothing outside this package
imports it.
"""
from __future__ import annotations

import sys

import click

from ..errors import PnpError
from ..stopwatch import stage_of
from . import checks, commands, errata, hooks, i18n, loop, prints  # noqa: F401  (each registers its commands on the group)
from .options import PROGRAM, cli


def main(argv=None):
    """Console entry point; user errors exit cleanly with their own code, never a traceback.

    Only here, in the `pnp` program, does a command bound its own process (the memory
    rlimit, and the jail of an untrusted build: jail.py): a caller running the commands
    in-process (click's CliRunner, the tests) is never confined."""
    ctx = None
    try:
        with cli.make_context("pnp", sys.argv[1:] if argv is None else list(argv)) as ctx:
            ctx.meta[PROGRAM] = True
            code = cli.invoke(ctx)
    except (EOFError, KeyboardInterrupt):
        click.echo("aborted", err=True)
        sys.exit(130)
    except (MemoryError, RecursionError, OverflowError) as exc:
        click.echo(_last_resort(ctx, exc), err=True)
        sys.exit(2)
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


LAST_RESORT = {
    RecursionError: "what pnp was given is nested too deeply to go through (a template or data that refers to "
                    "itself?)",
    OverflowError: "a number too large to use",
}


def _last_resort(ctx, exc: BaseException) -> str:
    """An error no stage said more precisely, in one clean line naming the stage it ended
    (stopwatch.py marks it as it passes), never a traceback; a MemoryError names the
    memory budget (the rlimit of jail.py) and the command."""
    stage = stage_of(exc)
    if isinstance(exc, MemoryError):
        from ..guard import Limits
        from ..jail import memory_message

        limits = (ctx.meta.get("pnp.limits") if ctx is not None else None) or Limits()
        command = f"pnp {ctx.invoked_subcommand}" if ctx is not None and ctx.invoked_subcommand else "pnp"
        return "error: " + memory_message(limits, f"{command} was at its '{stage}' stage" if stage
                                          else f"running {command}")
    said = next(text for kind, text in LAST_RESORT.items() if isinstance(exc, kind))
    detail = f" ({exc})" if str(exc) else ""
    return f"{said}{detail}" + (f", at the stage '{stage}'" if stage else "")
