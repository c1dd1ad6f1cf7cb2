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

from . import changes, fonts
from .errors import InputError, OutputError, collect
from .export import Artifact, write_atomic, write_game
from .facecache import FaceCache
from .glyphs import printed_text_problems
from .load import list_games, load_game

log = logging.getLogger("pnp")
PAPERS = ("a4", "letter")


@dataclass(frozen=True)
class BuildResult:
    game: str
    files: list[Path]
    seconds: float
    warnings: list
    rendered: object = None    # the RenderedGame (faces, for the live preview)
    changed: tuple | None = None  # with changed_since: the ids of the components that changed


def resolve_games(root: Path, names: tuple[str, ...] | list[str]) -> list[str]:
    known = list_games(root)
    if not known:
        raise InputError(f"no games found: {root / 'cards'} has no <game>/game.yaml")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise InputError(f"unknown game {', '.join(map(repr, unknown))} (games: {', '.join(known)})")
    return list(names) or known


def build(root: Path, names=(), papers: tuple[str, ...] | None = None, out_dir: Path | None = None,
          validate: bool = True, guides: bool = False, strict: bool = False,
          changed_since: str | None = None, progress=None) -> list[BuildResult]:
    """Build the named games (all when none are named) into `out_dir` (default output/).

    :param papers: paper sizes to build; None means each game's `print: papers` (default both).
    :param changed_since: a git ref or "last": also write <game>-changed-<paper>.pdf holding
        only the components whose faces differ from that version, with their backs.
    :param progress: a progress.Progress (bars on a terminal, plain lines in logs); default silent.
    """
    from .progress import SILENT

    progress = progress or SILENT
    out_dir = out_dir or root / "output"
    games = resolve_games(root, names)
    cache = FaceCache(out_dir / ".cache" / "faces")
    try:
        fonts.activate(out_dir / ".cache")
        cache.folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot write to {out_dir}: {exc.strerror or exc}") from None
    from .layout.cutfile import cut_svg
    from .layout.sheets import layout_sheets
    from .render import render_game

    results = []
    for game_id in games:
        started = time.perf_counter()
        with progress.bar(f"{game_id}: reading and checking the cards", 2) as advance:
            log.info("%s: step 1/5 load", game_id)
            game = load_game(root, game_id)
            collect(f"in cards/{game_id}/", printed_text_problems(game))
            advance()
            settings = game.meta.get("print") or {}
            game_papers = tuple(papers or settings.get("papers") or PAPERS)
            warnings = []
            if validate:
                log.info("%s: step 2/5 validate", game_id)
                warnings = _validate(game, strict)
            advance()
        reference = changes.before(root, game_id, changed_since, out_dir)[1] if changed_since else None
        log.info("%s: step 3/5 render", game_id)
        rendered = render_game(game, guides=guides, cache=cache, progress=lambda todo, total: progress.bar(
            f"{game_id}: drawing {todo} of {total} bundles of faces ({total - todo} unchanged, from the cache)", todo))
        changed = None
        if reference is not None:
            changed = changes.changed_ids(reference, changes.component_keys(rendered.cards, rendered.draw_keys))
        log.info("%s: step 4/5 layout", game_id)
        artifacts = []
        with progress.bar(f"{game_id}: laying out {', '.join(game_papers)}", len(game_papers)) as advance:
            for paper in game_papers:
                sheets = layout_sheets(rendered, paper, crop_marks=settings.get("crop_marks", True))
                kind = "proof" if guides else "sheets"
                artifacts.append(Artifact(
                    path=f"{game_id}-{kind}-{paper}.pdf", data=sheets.pdf, kind=kind, paper=paper,
                    pages=sheets.pages, components=list(sheets.components),
                    placements=list(sheets.placements)))
                if not guides:
                    artifacts.append(Artifact(
                        path=f"{game_id}-cut-{paper}.svg", data=cut_svg(sheets.plans, game.title), kind="cut",
                        paper=paper, pages=sum(1 for p in sheets.plans if p.side == "front")))
                if not guides:  # proofs are sheets only; the rulebook keeps its clean figures
                    artifacts.extend(_rulebooks(game, rendered, paper))
                if changed:
                    artifacts.append(_changed_sheets(rendered, changed, paper, settings.get("crop_marks", True)))
                advance()
        log.info("%s: step 5/5 export", game_id)
        partial = papers is not None or guides  # other files of the game stay listed
        try:
            files = write_game(out_dir, game_id, artifacts, merge=partial)
        except OSError as exc:
            raise OutputError(f"cannot write {game_id}'s files to {out_dir}: {exc.strerror or exc}") from None
        if not guides:
            try:
                write_atomic(changes.record_path(out_dir, game_id), changes.record(rendered))
            except OSError as exc:
                raise OutputError(f"cannot write {game_id}'s build record: {exc.strerror or exc}") from None
        results.append(BuildResult(game_id, files, time.perf_counter() - started, warnings, rendered,
                                   tuple(changed) if changed is not None else None))
    cache.prune()
    return results


def _validate(game, strict):
    """Run the game's rules; raises RulesFailed when the deck is not fit to print."""
    from .rules import check_game

    return check_game(game, strict=strict).raise_if_failed()


def _changed_sheets(rendered, changed, paper, crop_marks):
    """Sheets of only the `changed` components (fronts and their backs, registered as usual)."""
    import dataclasses

    from .layout.sheets import layout_sheets

    wanted = set(changed)
    subset = dataclasses.replace(rendered, cards=tuple(rc for rc in rendered.cards if rc.card.id in wanted))
    sheets = layout_sheets(subset, paper, crop_marks=crop_marks)
    return Artifact(path=f"{rendered.game.id}-changed-{paper}.pdf", data=sheets.pdf, kind="changed", paper=paper,
                    pages=sheets.pages, components=list(sheets.components), placements=list(sheets.placements))


def _rulebooks(game, rendered, paper):
    from .rulebook import layout_rulebook

    book = layout_rulebook(game, rendered, paper)
    if book is None:
        return []
    return [Artifact(path=f"{game.id}-rulebook-{paper}.pdf", data=book.pdf, kind="rulebook", paper=paper,
                     pages=book.pages, components=list(book.components), placements=list(book.placements))]


def clean(root: Path, names=(), out_dir: Path | None = None, everything: bool = False) -> list[str]:
    """Remove output/.cache/ and, with `everything`, the named games' output folders (all
    games when none are named). Returns one line per thing removed."""
    import shutil

    out_dir = out_dir or root / "output"
    done = []
    cache = out_dir / ".cache"
    if cache.is_dir():
        size = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())
        shutil.rmtree(cache)
        done.append(f"removed {cache} ({size / 1e6:.1f} MB)")
    if everything:
        games = resolve_games(root, names) if names else sorted(
            p.name for p in out_dir.iterdir() if p.is_dir() and not p.name.startswith(".")) if out_dir.is_dir() else []
        for game_id in games:
            if (out_dir / game_id).is_dir():
                shutil.rmtree(out_dir / game_id)
                done.append(f"removed {out_dir / game_id}")
    return done or ["nothing to remove"]
