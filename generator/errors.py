"""Problems found in user input, and the exceptions that carry them to the CLI.

A `Problem` names where it is (file, line, card, field) and what is wrong. Stages
collect every problem they find and raise one exception holding all of them, so a
designer sees the whole list at once (the mkdocs habit), never a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass

import click

from .guard import MESSAGE_CHARS, shorten


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, located as precisely as we know."""

    file: str
    message: str
    line: int | None = None
    card: str | None = None
    field: str | None = None
    severity: str = "error"

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "")
        parts = [where]
        if self.card:
            parts.append(f"card {shorten(str(self.card))}")
        if self.field:
            parts.append(shorten(str(self.field)))
        parts.append(shorten(self.message, MESSAGE_CHARS))
        return ": ".join(parts)


class PnpError(click.ClickException):
    """Base of every user-facing error: printed cleanly, with its own exit code."""

    exit_code = 2

    def __init__(self, message: str, problems: list[Problem] | None = None):
        super().__init__(message)
        self.problems = list(problems or [])

    def format_message(self) -> str:
        lines = [str(p) for p in self.problems]
        if self.message:
            lines.append(self.message)
        return "\n".join(lines)

    def show(self, file=None) -> None:  # click prints "Error: ..." by default
        click.echo(self.format_message(), err=True)


class InputError(PnpError):
    """The data or templates cannot be read or do not match their schema (exit 2)."""

    exit_code = 2


class RenderError(PnpError):
    """A card could not be drawn: template error, text that cannot fit, missing glyph (exit 2)."""

    exit_code = 2


class OutputError(PnpError):
    """The output folder cannot be written (exit 2)."""

    exit_code = 2


class TookTooLong(PnpError):
    """The whole command ran past its total time (--total-time-limit) (exit 2)."""

    exit_code = 2


class RulesFailed(PnpError):
    """The deck breaks the game's rules (exit 1)."""

    exit_code = 1


def collect(message: str, problems: list[Problem], kind: type[PnpError] = InputError) -> None:
    """Raise `kind` with every error-level problem, if there is any."""
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        n = len(errors)
        raise kind(f"{n} problem{'s' if n != 1 else ''} {message}", problems)
