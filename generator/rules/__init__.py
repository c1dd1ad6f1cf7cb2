"""Validate: a game's rules file run against its loaded data.

In: a loaded `Game`. Out: a `RulesReport` with every finding. `pnp validate` prints it in
the chosen format; `pnp build` calls `raise_if_failed()` so an invalid deck is never printed.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError, RulesFailed
from .document import build_document
from .engine import Finding, known_fields, load_rules, run_rules


@dataclass(frozen=True)
class RulesReport:
    game: str
    rules: tuple            # the rules that ran (ids)
    findings: tuple[Finding, ...]
    strict: bool = False

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error" or self.strict]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning" and not self.strict]

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def broken(self) -> bool:
        """Some rule could not run at all: the rules file needs fixing (exit 2, like bad input)."""
        return any(f.broken for f in self.findings)

    def raise_if_failed(self) -> list[Finding]:
        """Raise `RulesFailed` (exit 1; `InputError`, exit 2, when a rule cannot run) listing the
        findings; else return the warnings."""
        if self.broken:
            from .report import text_line

            raise InputError("\n".join(text_line(f) for f in self.findings if f.broken) +
                             f"\n{self.game}: the rules file has rules that cannot run")
        if not self.ok:
            from .report import text_line

            lines = [text_line(f) for f in self.findings]
            n = len(self.errors)
            raise RulesFailed("\n".join(lines) + f"\n{self.game}: {n} rule{'s' if n != 1 else ''} failed; "
                              "nothing was built (use --no-validate to build anyway)")
        return self.warnings


def check_game(game, strict: bool = False) -> RulesReport:
    document = build_document(game)
    rules = load_rules(game, known_fields(document.doc, game))
    return RulesReport(game.id, tuple(r.id for r in rules), tuple(run_rules(game, rules, document)), strict)
