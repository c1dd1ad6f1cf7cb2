"""What a build says of a game's fonts, at the template line that names them.

In: a game (its templates' text) and the `FontSet` its faces are drawn with. Out:
`font_notes` (Problems of severity "note", once per family: a font people name that a
shipped face stands in for, a family the game ships its own copy of; a warning for
`fonts: system`) and `family_line` (the template file and line where a family is named,
so a font error points at the template, not at a card's data).
"""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import Problem
from .fonts import SYSTEM_FONT_DIRS, FontSet, drawn_by_another_game

TEMPLATE_SUFFIXES = (".j2", ".svg", ".jinja")
# font-family="Arial, sans-serif", style="font-family: 'Times New Roman'", textbox(..., family="Georgia")
_NAMED = re.compile(r"""(?:font-family\s*[=:]|\bfamily\s*=)\s*["'\s]*([^"';,<>{}()\n]+)""")
_FONT_ERROR = re.compile(r"^font '([^']+)' ")
# why a stand-in (fonts.STAND_INS, GENERIC) is not of the named font's very widths
WHY = {"georgia": "no open face with Georgia's widths ships, so text sets a little narrower",
       "verdana": "a face of Verdana's wide build, not of its exact widths",
       "serif": "the generic serif", "monospace": "the generic monospace", "sans": "the generic sans"}


def stand_in_note(family: str, face: str) -> str:
    """What a build says once of a font people name that a shipped face stands in for."""
    why = WHY.get(family.lower())
    kind = f" ({why})" if why else " (the same widths: text fits as it did)"
    return (f"font '{family}' is drawn with {face}, the open face pnp ships in its place{kind}; "
            "to print with the font itself, put its TTF or OTF files in templates/<game>/fonts/")


def _templates(game) -> list[Path]:
    folders = (game.templates_dir, game.root / "templates" / "shared")
    return sorted(p for folder in folders if folder.is_dir() for p in folder.rglob("*")
                  if p.suffix in TEMPLATE_SUFFIXES and p.is_file())


def _named(game) -> dict[str, tuple[str, str, int]]:
    """Each family the game's templates name (lower case) -> (its spelling, file, line) where first named."""
    found: dict[str, tuple[str, str, int]] = {}
    for path in _templates(game):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue   # the render says what is wrong with a template it cannot read
        shown = path.relative_to(game.root).as_posix() if path.is_relative_to(game.root) else str(path)
        for number, line in enumerate(text.splitlines(), start=1):
            for match in _NAMED.finditer(line):
                name = match.group(1).strip()
                found.setdefault(name.lower(), (name, shown, number))
    return found


def family_line(game, message: str) -> tuple[str, int] | None:
    """The template (file, line) naming the family a font error (`font 'X' ...`) is about."""
    match = _FONT_ERROR.match(message)
    named = _named(game).get(match.group(1).lower()) if match else None
    return named[1:] if named else None


def font_notes(game, fonts: FontSet) -> list[Problem]:
    """Notes (and the `fonts: system` warning) a build of `game` says once; an error when
    another game built by this process has its own copy of a family this one uses."""
    notes = [Problem(f"templates/{game.id}/fonts", f"font '{family}' is drawn in this process with the copy "
                     f"in {folder} (another game's own): build {game.id} on its own (pnp build {game.id})")
             for family, folder in drawn_by_another_game(fonts, game.templates_dir / "fonts")]
    for lower, (name, file, line) in _named(game).items():
        face = fonts.stand_in(name)
        if face is not None and lower != "sans-serif":   # the default of every text: said by no one
            notes.append(Problem(file, stand_in_note(name, face), line=line, severity="note"))
    shown = fonts.game_dir.as_posix() if fonts.game_dir else f"templates/{game.id}/fonts"
    notes += [Problem(shown, f"font family '{family}' is drawn with the game's own copy, not the one pnp ships",
                      severity="note") for family in fonts.shadowed()]
    if fonts.system:
        notes.append(Problem(game.source.file, "faces are drawn with this machine's fonts ("
                             f"{', '.join(d.as_posix() for d in SYSTEM_FONT_DIRS)}), embedded in the PDFs; "
                             "another machine may build them differently or not at all: ship the fonts in "
                             f"templates/{game.id}/fonts/ for a build that is the same everywhere",
                             line=1, field="fonts", severity="warning"))
    return notes
