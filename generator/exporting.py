"""`pnp export` and `pnp kit`, start to finish: load -> validate -> render -> export target -> write.

In: the project root, game names and a target (png, tts, or a print-shop profile). Out:
files under output/<game>/exports/<target>/ (written as one set by `files.write_exports`;
an edition in another language than the cards are written in: exports/<target>-<lang>/)
and an `ExportResult` per game (and edition).
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from .data.editions import language_entry
from .errors import OutputError
from .exports.files import write_exports
from .exports.targets import TARGETS
from .options import BuildOptions
from .outputfolder import drawn_through_cache
from .pipeline import (
    Layout,
    Run,
    check_rules,
    editions_asked,
    layout_game,
    load_editions,
    render_edition,
    resolve_games,
)
from .printing import game_papers, print_mode_of
from .progress import SILENT
from .session import Session

log = logging.getLogger("pnp")


@dataclass(frozen=True)
class ExportResult:
    game: str
    target: str
    files: list[Path]
    seconds: float
    warnings: list
    notes: list = field(default_factory=list)
    drawing: list = field(default_factory=list)   # warnings of the drawing (pictures below print: min_image_dpi...)


def run_exports(root: Path, games, target: str, options: BuildOptions, session: Session) -> list[ExportResult]:
    """Export the named games (all when none are named) for `target` (exports/targets.py),
    every edition of a game of several languages (or those of `options.languages`) into a
    folder of its own (exports/<target>-<language>/; the language the cards are written
    in: exports/<target>/), as `options` ask (dpi, bleed, base_url; stamp and pictures)."""
    made_by = TARGETS[target]
    results = []
    with drawn_through_cache(options.output(root)) as (cache, drawn):   # an export after a build draws nothing
        run = Run(root, options, session, SILENT, cache=cache)
        for game_id, langs in editions_asked(root, resolve_games(root, games), games, options.languages).items():
            for edition in _editions(run, game_id, langs):
                started = time.perf_counter()
                rendered = render_edition(run, edition)
                drawn += rendered.faces_pdfs.keys()
                name = _target(target, edition)
                folder = run.out_dir / game_id / "exports" / name
                files, summary = made_by.make(rendered, folder, options.dpi, options.bleed, options.base_url,
                                              (options.cards, options.size))
                if rendered.draft:
                    summary = {**summary, "draft": "pictures at draft resolution (--draft): not for print"}
                summary = {**summary, **language_entry(edition)}
                log.info("%s: writing the %s export", edition.stem, target)
                written = _write(run.out_dir, edition, name, files, summary, f"{target} export")
                results.append(ExportResult(edition.stem, target, written, time.perf_counter() - started,
                                            list(summary.get("skipped", [])), list(summary.get("notes", [])),
                                            list(rendered.warnings)))
    return results


def _editions(run: Run, game_id: str, languages) -> list:
    """The editions of a game an export makes, its translations and (`validate`) its rules checked."""
    game, made, _ = load_editions(run.root, game_id, languages, run.session)
    if run.options.validate:
        check_rules(game, strict=False)
    return made


def _target(target: str, edition) -> str:
    """The folder under exports/ of a target for an edition (png; the German edition's png-de)."""
    return target + (f"-{edition.edition}" if edition.edition else "")


def _write(out_dir: Path, edition, name: str, files, summary: dict, what: str) -> list[Path]:
    """An export's files written as one set (exports/files.py); `what` names it in an error."""
    try:
        return write_exports(out_dir, edition.id, name, files, summary)
    except OSError as exc:
        raise OutputError(f"cannot write {edition.stem}'s {what} to {out_dir}: {exc.strerror or exc}") from None


def run_kit(root: Path, game_id: str, options: BuildOptions, session: Session) -> list[ExportResult]:
    """Build a game in memory (its faces through the face cache, as `pnp build` draws them)
    and write its print-and-play kit (a zip) to exports/kit/, one kit per edition of a game
    of several languages (exports/kit-<language>/)."""
    from .exports.kit import kit_words, kit_zip
    from .layout.calibration import calibration_pdf

    (game_id,) = resolve_games(root, [game_id])
    results = []
    with drawn_through_cache(options.output(root)) as (cache, drawn):   # a kit after a build draws nothing
        run = Run(root, options, session, SILENT, cache=cache)
        for edition in _editions(run, game_id, options.languages):
            started = time.perf_counter()
            papers_of_kit = game_papers(edition, options)
            print_mode = print_mode_of(edition, options)
            rendered = render_edition(run, edition)
            drawn += rendered.faces_pdfs.keys()
            artifacts = layout_game(edition, rendered, Layout(papers_of_kit, print_mode, session))
            calibration = {p: calibration_pdf(p, print_mode) for p in papers_of_kit} if print_mode.duplex else {}
            kit = kit_zip(edition, artifacts, print_mode, calibration)
            name = _target("kit", edition)
            log.info("%s: writing the kit", edition.stem)
            summary = {"papers": list(papers_of_kit), **language_entry(edition)}
            written = _write(run.out_dir, edition, name, [kit], summary, "kit")
            notes = [] if kit_words(edition.language)[1] else [
                f"the kit's READ-ME is in English: pnp has no words for it in '{edition.language}'"]
            results.append(ExportResult(edition.stem, "kit", written, time.perf_counter() - started, [], notes,
                                        list(rendered.warnings)))
    return results
