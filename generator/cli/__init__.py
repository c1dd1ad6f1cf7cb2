"""The `pnp` command: thin click wiring from flags to the stage functions.

In: the command line. Out: exit codes and messages. `options` holds the group and what
every command shares; `commands` (build, validate, list, new, schema, pull), `i18n`
(translations: export, import, status, accept), `loop` (watch, serve, diff, clean) and
`prints` (export, calibrate, kit) register theirs on it. Nothing outside this package
imports it.
"""
from __future__ import annotations

import sys

import click

from ..errors import PnpError
from . import commands, i18n, loop, prints  # noqa: F401  (each registers its commands on the group)
from .options import cli


def main(argv=None):
    """Console entry point; user errors exit cleanly with their own code, never a traceback."""
    try:
        code = cli.main(args=argv, prog_name="pnp", standalone_mode=False)
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
    except (MemoryError, RecursionError, OverflowError) as exc:
        sys.exit(_last_resort(exc))
    sys.exit(code if isinstance(code, int) else 0)


LAST_RESORT = {
    MemoryError: "pnp ran out of memory (see --memory-limit)",
    RecursionError: "what pnp was given is nested too deeply to go through (a template or data that refers to "
                    "itself?)",
    OverflowError: "a number too large to use",
}


def _last_resort(exc: BaseException) -> int:
    """An error no stage said more precisely, in one clean line naming the stage it ended
    (stopwatch.py marks it as it passes), never a traceback: exit 2."""
    said = next(text for kind, text in LAST_RESORT.items() if isinstance(exc, kind))
    stage = getattr(exc, "pnp_stage", None)
    detail = f" ({exc})" if str(exc) and not isinstance(exc, MemoryError) else ""
    click.echo(f"{said}{detail}" + (f", at the stage '{stage}'" if stage else ""), err=True)
    return 2
