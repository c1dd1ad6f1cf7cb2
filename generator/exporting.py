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
from .draw import fonts
from .draw.pictures import Asked
from .draw.stamp import stamp_of
from .errors import OutputError
from .exports.files import write_exports
from .session import Session

TARGETS = ("png", "tts", "tabletopia", "faces", "tgc", "mpc", "dtc")
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


def run_exports(root: Path, names, target: str, dpi: int | None = None, bleed: bool = True,
                out_dir: Path | None = None, validate: bool = True, base_url: str | None = None,
                stamp: str | None = None, image_dpi: float | None = None,
                draft: bool = False, languages=None) -> list[ExportResult]:
    """Export the named games (all when none are named) for `target`, every edition of a
    game of several languages (or those of `languages`) into a folder of its own
    (exports/<target>-<language>/; the language the cards are written in: exports/<target>/).

    :param dpi: resolution of images (None: the target's own: 300, Tabletopia's 10 px a mm).
    :param base_url: tts: where the designer uploads the files (None: their file:// folder).
    :param stamp: a version stamp to draw on every face (stamp.py); None: the game's `print: stamp`.
    :param image_dpi: the resolution pictures are embedded at (None: the game's `print: image_dpi`).
    :param draft: pictures at draft resolution (the manifest says so).
    """
    from .draw.render import render_game
    from .pipeline import editions_asked, resolve_games

    session = Session()   # an entry point: the session of the export (TODO(lead): the CLI's)
    out_dir = out_dir or root / "output"
    _activate_fonts(out_dir)
    asked = Asked(image_dpi, draft, str(out_dir / ".cache" / "pictures"))
    results = []
    for game_id, langs in editions_asked(root, resolve_games(root, names), names, languages).items():
        for edition in _editions(root, game_id, validate, langs, session):
            started = time.perf_counter()
            rendered = render_game(edition, session, stamp=stamp_of(edition, stamp), pictures=asked)
            name = _target(target, edition)
            folder = out_dir / game_id / "exports" / name
            files, summary = make_target(rendered, target, dpi, bleed, folder, base_url)
            if rendered.draft:
                summary = {**summary, "draft": "pictures at draft resolution (--draft): not for print"}
            summary = {**summary, **language_entry(edition)}
            log.info("%s: writing the %s export", edition.stem, target)
            try:
                written = write_exports(out_dir, game_id, name, files, summary)
            except OSError as exc:
                raise OutputError(f"cannot write {edition.stem}'s {target} export to {out_dir}: "
                                  f"{exc.strerror or exc}") from None
            results.append(ExportResult(edition.stem, target, written, time.perf_counter() - started,
                                        list(summary.get("skipped", [])), list(summary.get("notes", [])),
                                        list(rendered.warnings)))
    return results


def _editions(root: Path, game_id: str, validate: bool, languages, session: Session) -> list:
    """The editions of a game an export makes, its translations and (`validate`) its rules checked."""
    from .pipeline import _validate, load_editions

    game, made, _ = load_editions(root, game_id, languages, session)
    if validate:
        _validate(game, strict=False)
    return made


def _target(target: str, edition) -> str:
    """The folder under exports/ of a target for an edition (png; the German edition's png-de)."""
    return target + (f"-{edition.edition}" if edition.edition else "")


def run_kit(root: Path, game_id: str, papers=None, mode: str | None = None, back_offset=None,
            out_dir: Path | None = None, validate: bool = True, cutter: str | None = None,
            stamp: str | None = None, image_dpi: float | None = None, draft: bool = False,
            languages=None) -> list[ExportResult]:
    """Build a game in memory and write its print-and-play kit (a zip) to exports/kit/, one
    kit per edition of a game of several languages (exports/kit-<language>/)."""
    from .draw.render import render_game
    from .exports.kit import kit_words, kit_zip
    from .layout.calibration import calibration_pdf
    from .pipeline import game_papers, layout_game, print_mode_of, resolve_games

    session = Session()   # an entry point: the session of the kit (TODO(lead): the CLI's)
    out_dir = out_dir or root / "output"
    _activate_fonts(out_dir)
    (game_id,) = resolve_games(root, [game_id])
    results = []
    for edition in _editions(root, game_id, validate, languages, session):
        started = time.perf_counter()
        papers_of_kit = game_papers(edition, papers)
        print_mode = print_mode_of(edition, mode, back_offset, cutter)
        rendered = render_game(edition, session, stamp=stamp_of(edition, stamp),
                               pictures=Asked(image_dpi, draft, str(out_dir / ".cache" / "pictures")))
        artifacts = layout_game(edition, rendered, papers_of_kit, print_mode, session)
        calibration = {p: calibration_pdf(p, print_mode) for p in papers_of_kit} if print_mode.duplex else {}
        kit = kit_zip(edition, artifacts, print_mode, calibration)
        name = _target("kit", edition)
        log.info("%s: writing the kit", edition.stem)
        try:
            written = write_exports(out_dir, game_id, name, [kit], {"papers": list(papers_of_kit),
                                                                     **language_entry(edition)})
        except OSError as exc:
            raise OutputError(f"cannot write {edition.stem}'s kit to {out_dir}: {exc.strerror or exc}") from None
        notes = [] if kit_words(edition.language)[1] else [
            f"the kit's READ-ME is in English: pnp has no words for it in '{edition.language}'"]
        results.append(ExportResult(edition.stem, "kit", written, time.perf_counter() - started, [], notes,
                                    list(rendered.warnings)))
    return results


def make_target(rendered, target: str, dpi: int | None, bleed: bool, folder: Path, base_url: str | None = None):
    """The files of one target and the summary its manifest starts with."""
    if target == "png":
        from .exports.png import face_pngs
        return face_pngs(rendered, dpi or 300, bleed), {"dpi": dpi or 300, "bleed": bleed}
    if target == "tts":
        from .exports.tts import tts_decks
        return tts_decks(rendered, base_url or folder.resolve().as_uri(), dpi or 300, shared=base_url is not None)
    if target in ("tabletopia", "faces"):
        from .exports.faces import face_images
        return face_images(rendered, target, dpi)
    from .exports.profiles import profile_files
    return profile_files(rendered, target, scratch=folder.parents[2] / ".cache" / "preflight")


def _activate_fonts(out_dir: Path) -> None:
    try:
        fonts.activate(out_dir / ".cache")
    except OSError as exc:
        raise OutputError(f"cannot write to {out_dir}: {exc.strerror or exc}") from None
