"""Validate: a game's rules file run against its loaded data.

In: a loaded `Game` (and the session's memo: a rebuild runs again only the rules that read
what changed, rules/footprint.py). Out: a `RulesReport` with every finding. `pnp validate` prints it in
the chosen format; `pnp build` calls `raise_if_failed()` so an invalid deck is never printed.
"""
from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass

from ..errors import InputError, RulesFailed
from .document import build_document
from .engine import Finding, known_fields, load_rules, rules_path, run_rules
from .footprint import part_digests, parts_read, rule_key


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


def check_game(game, strict: bool = False, memo=None) -> RulesReport:
    """Every rule of `game` run against it. `memo` (a session's, rendermemo.Memo): the rules
    file read and checked once for its text and the game's fields, and each rule's findings
    kept by what it reads (footprint.rule_key): a rule that reads only unchanged decks is
    not run again."""
    document = build_document(game)
    fields = known_fields(document.doc, game)
    if memo is None:
        rules = load_rules(game, fields)
        return RulesReport(game.id, tuple(r.id for r in rules), tuple(run_rules(game, rules, document)), strict)
    rules = memo.derived(_rules_file_key(game, fields), lambda: load_rules(game, fields))
    digests = part_digests(game, document)
    findings: list[Finding] = []
    for rule in rules:
        kept = memo.derived(rule_key(rule, parts_read(rule.spec), digests),
                            lambda rule=rule: tuple(_plain(f) for f in run_rules(game, [rule], document)))
        findings.extend(Finding(*f) for f in kept)
    return RulesReport(game.id, tuple(r.id for r in rules), tuple(findings), strict)


def _plain(finding: Finding) -> tuple:
    """A finding as plain data (what the disk memo keeps)."""
    return dataclasses.astuple(finding)


def _rules_file_key(game, fields: set[str]) -> tuple:
    """The key of a game's rules as `load_rules` reads them: the file's text, where it is in
    the project (the rules name it so; not the project's folder, which they never name, as
    the YAML memo keys a file) and the game's fields."""
    path = rules_path(game)
    try:
        text = path.read_bytes() if path is not None else b""
    except OSError as exc:
        text = repr(exc).encode()
    h = hashlib.sha256(text)
    h.update("\0".join(sorted(fields)).encode())
    return ("rules file", str(path.relative_to(game.root)) if path is not None else "", h.hexdigest())
