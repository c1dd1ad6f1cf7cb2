"""`pnp export` and `pnp kit`, start to finish: load -> validate -> render -> export target -> write.

In: the project root, game names and a target (png, tts, or a print-shop profile). Out:
files under output/<game>/exports/<target>/ (written as one set by `files.write_exports`) and
an `ExportResult` per game.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from .data.load import load_game
from .draw import fonts
from .draw.glyphs import printed_text_problems
from .draw.pictures import Asked
from .draw.stamp import stamp_of
from .errors import OutputError, collect
from .exports.files import write_exports

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
                draft: bool = False) -> list[ExportResult]:
    """Export the named games (all when none are named) for `target`.

    :param dpi: resolution of images (None: the target's own: 300, Tabletopia's 10 px a mm).
    :param base_url: tts: where the designer uploads the files (None: their file:// folder).
    :param stamp: a version stamp to draw on every face (stamp.py); None: the game's `print: stamp`.
    :param image_dpi: the resolution pictures are embedded at (None: the game's `print: image_dpi`).
    :param draft: pictures at draft resolution (the manifest says so).
    """
    from .draw.render import render_game
    from .pipeline import _validate, resolve_games

    out_dir = out_dir or root / "output"
    _activate_fonts(out_dir)
    asked = Asked(image_dpi, draft, str(out_dir / ".cache" / "pictures"))
    results = []
    for game_id in resolve_games(root, names):
        started = time.perf_counter()
        game = load_game(root, game_id)
        collect(f"in cards/{game_id}/", printed_text_problems(game))
        if validate:
            _validate(game, strict=False)
        rendered = render_game(game, stamp=stamp_of(game, stamp), pictures=asked)
        folder = out_dir / game_id / "exports" / target
        files, summary = make_target(rendered, target, dpi, bleed, folder, base_url)
        if rendered.draft:
            summary = {**summary, "draft": "pictures at draft resolution (--draft): not for print"}
        log.info("%s: writing the %s export", game_id, target)
        try:
            written = write_exports(out_dir, game_id, target, files, summary)
        except OSError as exc:
            raise OutputError(f"cannot write {game_id}'s {target} export to {out_dir}: "
                              f"{exc.strerror or exc}") from None
        results.append(ExportResult(game_id, target, written, time.perf_counter() - started,
                                    list(summary.get("skipped", [])), list(summary.get("notes", [])),
                                    list(rendered.warnings)))
    return results


def run_kit(root: Path, game_id: str, papers=None, mode: str | None = None, back_offset=None,
            out_dir: Path | None = None, validate: bool = True, cutter: str | None = None,
            stamp: str | None = None, image_dpi: float | None = None, draft: bool = False) -> ExportResult:
    """Build a game in memory and write its print-and-play kit (a zip) to exports/kit/."""
    from .draw.render import render_game
    from .exports.kit import kit_zip
    from .layout.calibration import calibration_pdf
    from .pipeline import _validate, game_papers, layout_game, print_mode_of, resolve_games

    out_dir = out_dir or root / "output"
    _activate_fonts(out_dir)
    started = time.perf_counter()
    (game_id,) = resolve_games(root, [game_id])
    game = load_game(root, game_id)
    collect(f"in cards/{game_id}/", printed_text_problems(game))
    papers = game_papers(game, papers)
    print_mode = print_mode_of(game, mode, back_offset, cutter)
    game_stamp = stamp_of(game, stamp)
    if validate:
        _validate(game, strict=False)
    rendered = render_game(game, stamp=game_stamp,
                           pictures=Asked(image_dpi, draft, str(out_dir / ".cache" / "pictures")))
    artifacts = layout_game(game, rendered, papers, print_mode)
    calibration = {p: calibration_pdf(p, print_mode) for p in papers} if print_mode.duplex else {}
    kit = kit_zip(game, artifacts, print_mode, calibration)
    log.info("%s: writing the kit", game_id)
    try:
        written = write_exports(out_dir, game_id, "kit", [kit], {"papers": list(papers)})
    except OSError as exc:
        raise OutputError(f"cannot write {game_id}'s kit to {out_dir}: {exc.strerror or exc}") from None
    return ExportResult(game_id, "kit", written, time.perf_counter() - started, [], [], list(rendered.warnings))


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
