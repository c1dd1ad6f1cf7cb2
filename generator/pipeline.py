"""The build, start to finish, in one readable place.

For each game: load (YAML + schema) -> validate (rules) -> render (faces PDF)
-> layout (sheets per paper, rulebook) -> export (files + manifest). Nothing is written
until every artifact of the game is complete in memory.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

from . import fonts
from .errors import InputError, OutputError, collect
from .export import Artifact, write_game
from .glyphs import printed_text_problems
from .layout.modes import PrintMode
from .load import list_games, load_game
from .units import paper_name

log = logging.getLogger("pnp")
PAPERS = ("a4", "letter")


@dataclass(frozen=True)
class BuildResult:
    game: str
    files: list[Path]
    seconds: float
    warnings: list


def resolve_games(root: Path, names: tuple[str, ...] | list[str]) -> list[str]:
    known = list_games(root)
    if not known:
        raise InputError(f"no games found: {root / 'cards'} has no <game>/game.yaml")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise InputError(f"unknown game {', '.join(map(repr, unknown))} (games: {', '.join(known)})")
    return list(names) or known


def build(root: Path, names=(), papers: tuple[str, ...] | None = None, out_dir: Path | None = None,
          validate: bool = True, guides: bool = False, strict: bool = False, mode: str | None = None,
          back_offset: tuple[float, float] | None = None) -> list[BuildResult]:
    """Build the named games (all when none are named) into `out_dir` (default output/).

    :param papers: paper sizes to build; None means each game's `print: papers` (default both).
    :param mode: home print mode (duplex-long, duplex-short, gutter-fold, fronts-only); None
        means each game's `print: mode` (default duplex-long).
    :param back_offset: mm (x, y) the backs move; None means each game's `print: back_offset`.
    """
    out_dir = out_dir or root / "output"
    games = resolve_games(root, names)
    try:
        fonts.activate(out_dir / ".cache")
    except OSError as exc:
        raise OutputError(f"cannot write to {out_dir}: {exc.strerror or exc}") from None
    from .render import render_game

    results = []
    for game_id in games:
        started = time.perf_counter()
        log.info("%s: step 1/5 load", game_id)
        game = load_game(root, game_id)
        collect(f"in cards/{game_id}/", printed_text_problems(game))
        papers_of_game = game_papers(game, papers)
        print_mode = print_mode_of(game, mode, back_offset)
        warnings = []
        if validate:
            log.info("%s: step 2/5 validate", game_id)
            warnings = _validate(game, strict)
        log.info("%s: step 3/5 render", game_id)
        rendered = render_game(game, guides=guides)
        warnings = [*warnings, *rendered.warnings]  # external references not followed
        log.info("%s: step 4/5 layout", game_id)
        artifacts = layout_game(game, rendered, papers_of_game, print_mode, guides)
        log.info("%s: step 5/5 export", game_id)
        partial = papers is not None or guides  # other files of the game stay listed
        try:
            files = write_game(out_dir, game_id, artifacts, merge=partial)
        except OSError as exc:
            raise OutputError(f"cannot write {game_id}'s files to {out_dir}: {exc.strerror or exc}") from None
        results.append(BuildResult(game_id, files, time.perf_counter() - started, warnings))
    return results


def layout_game(game, rendered, papers, print_mode: PrintMode, guides: bool = False) -> list[Artifact]:
    """Sheets (or proofs), cut files and rulebooks of a rendered game for each paper, in memory."""
    from .layout.cutfile import cut_svg
    from .layout.sheets import layout_sheets

    settings = game.meta.get("print") or {}
    artifacts = []
    for paper in papers:
        sheets = layout_sheets(rendered, paper, crop_marks=settings.get("crop_marks", True), mode=print_mode)
        kind = "proof" if guides else "sheets"
        artifacts.append(Artifact(
            path=f"{game.id}-{kind}-{paper}.pdf", data=sheets.pdf, kind=kind, paper=paper,
            pages=sheets.pages, components=list(sheets.components),
            placements=list(sheets.placements),
            extra={"mode": print_mode.mode, "back_offset_mm": list(print_mode.back_offset)}))
        if not guides:
            artifacts.append(Artifact(
                path=f"{game.id}-cut-{paper}.svg", data=cut_svg(sheets.plans, game.title), kind="cut",
                paper=paper, pages=sum(1 for p in sheets.plans if p.side == "front")))
        if not guides:  # proofs are sheets only; the rulebook keeps its clean figures
            artifacts.extend(_rulebooks(game, rendered, paper))
    return artifacts


def game_papers(game, papers=None) -> tuple[str, ...]:
    """The papers to build: those asked for, else the game's `print: papers`, else A4 and Letter."""
    settings = game.meta.get("print") or {}
    return tuple(papers or [paper_name(p) for p in settings.get("papers") or PAPERS])


def print_mode_of(game, mode=None, back_offset=None) -> PrintMode:
    return _print_mode(game.meta.get("print") or {}, mode, back_offset)


def _print_mode(settings: dict, mode: str | None, back_offset) -> PrintMode:
    """The print mode of a build: the command line's, else the game's `print:` settings."""
    offset = settings.get("back_offset") or {}
    offset = back_offset if back_offset is not None else (float(offset.get("x", 0)), float(offset.get("y", 0)))
    chosen = mode or settings.get("mode") or "duplex-long"
    if (offset[0] or offset[1]) and chosen not in ("duplex-long", "duplex-short"):
        raise InputError(f"back_offset moves the backs of a duplex print; {chosen} prints no second side")
    return PrintMode(chosen, (float(offset[0]), float(offset[1])))


def _validate(game, strict):
    """Run the game's rules; raises RulesFailed when the deck is not fit to print."""
    from .rules import check_game

    return check_game(game, strict=strict).raise_if_failed()


def _rulebooks(game, rendered, paper):
    from .rulebook import layout_rulebook

    book = layout_rulebook(game, rendered, paper)
    if book is None:
        return []
    return [Artifact(path=f"{game.id}-rulebook-{paper}.pdf", data=book.pdf, kind="rulebook", paper=paper,
                     pages=book.pages, components=list(book.components), placements=list(book.placements))]
