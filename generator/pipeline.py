"""The build, start to finish, in one readable place.

For each game: load (YAML + schema) -> validate (rules) -> render (faces PDF)
-> layout (sheets per paper, rulebook) -> export (files + manifest). Nothing is written
until every artifact of the game is complete in memory.
"""
from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import safefs
from .data.editions import in_edition, language_entry, languages_of
from .data.i18ncheck import checked_editions
from .data.load import list_games, load_game
from .diskmemo import pack_name
from .draw.glyphs import printed_text_problems
from .errors import InputError, OutputError, PnpError, RulesFailed, collect
from .exports.files import Artifact, first_in_place, put_back_on_failure, write_game
from .layout.modes import PrintMode
from .options import BuildOptions
from .outputfolder import drawn_through_cache
from .printing import game_papers, print_mode_of
from .progress import Progress, _Silent
from .session import Session

if TYPE_CHECKING:
    from collections.abc import Callable

    from .draw.facecache import FaceCache
    from .draw.render import RenderedGame

log = logging.getLogger("pnp")
DRAFT_NOTE = "pictures at draft resolution (--draft): not for print"


@dataclass(frozen=True)
class BuildResult:
    game: str
    files: list[Path]
    seconds: float
    warnings: list
    rendered: RenderedGame     # its faces (of the first edition built), for the live preview
    changed: tuple | None = None  # with changed_since: the ids of the components that changed
    editions: tuple = ()       # every edition built (RenderedGame), in the game's order of languages


def resolve_games(root: Path, names: tuple[str, ...] | list[str]) -> list[str]:
    known = list_games(root)
    if not known:
        raise InputError(f"no games found: {root / 'cards'} has no <game>/game.yaml")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise InputError(f"unknown game {', '.join(map(repr, unknown))} (games: {', '.join(known)})")
    return list(names) or known


def editions_asked(root: Path, games: list[str], named, asked) -> dict[str, tuple[str, ...] | None]:
    """The editions to make of each game for `--lang` (`asked`; None: every edition). A game
    named on the command line must have each language asked for (or an error says so); of
    the games not named (pnp build --lang de: every game), those without any are left out,
    and no game having one is an error."""
    from .data.yamlsrc import read_yaml

    if not asked:
        return {g: None for g in games}
    out: dict[str, tuple[str, ...] | None] = {}
    for g in games:
        langs = languages_of(read_yaml(root / "cards" / g / "game.yaml", f"cards/{g}/game.yaml") or {})
        mine = tuple(lang for lang in asked if lang in langs)
        if named and len(mine) < len(asked):
            unknown = [lang for lang in asked if lang not in langs]
            raise InputError(f"{g} has no edition in {', '.join(map(repr, unknown))} (game.yaml languages: "
                             f"{', '.join(langs)})")
        if mine:
            out[g] = mine
    if not out:
        raise InputError(f"no game has an edition in {', '.join(map(repr, asked))} (a game's editions: game.yaml "
                         "languages:)")
    return out


def load_editions(root: Path, game_id: str, languages: tuple[str, ...] | None, session: Session) -> tuple:
    """The game and the editions of it to make (`languages`; None: all), its printed text
    and translations checked: (game, editions, the translations' warnings).

    :raises InputError: a character the fonts lack, a text not translated, ...
    """
    game = load_game(root, game_id, session)
    collect(f"in cards/{game_id}/", printed_text_problems(game))
    made, translated = checked_editions(game, languages)
    collect(f"in the translations of {game_id}", translated)
    return game, made, [p for p in translated if p.severity == "warning"]


def build(root: Path, games=(), options: BuildOptions = BuildOptions(), *, session: Session,
          progress=None, early=None) -> list[BuildResult]:
    """Build the named games (all when none are named) as `options` ask (options.py: papers,
    print mode, stamp, pictures, editions...; None: each game's `print:` settings) into
    `options.output(root)`, within `session` (what this build may reuse from earlier ones,
    and leave to later ones: `pnp watch` hands the same session to every rebuild).

    :param progress: a progress.Progress (bars on a terminal, plain lines in logs); default silent.
    :param early: `pnp watch`'s: each game's first paper's sheets in place first, `early(result)` told.
    """
    from .draw.drawpool import drawing_workers
    from .progress import SILENT

    session.stopwatch.reset()
    out_dir = options.output(root)
    asked = editions_asked(root, resolve_games(root, games), games, options.languages)
    memo = out_dir / ".cache" / "memo"   # what this build leaves the next (session.kept_on_disk)
    with drawn_through_cache(out_dir) as (cache, drawn):
        run = Run(root, options, session, progress or SILENT, cache, early)
        with session.kept_on_disk(memo, out_dir.parent, pack_name(asked)), drawing_workers(session):
            results = [_build_game(run, game_id, asked[game_id]) for game_id in asked]
        drawn += [key for r in results for ed in r.editions for key in ed.faces_pdfs.keys()]
    return results


@dataclass(frozen=True)
class Run:
    """One command's build: the project, its options, its session, where its progress goes
    and the face cache it draws through (None: none)."""

    root: Path
    options: BuildOptions
    session: Session
    progress: Progress | _Silent
    cache: FaceCache | None = None
    early: Callable[[BuildResult], None] | None = None   # build(early=)

    @property
    def out_dir(self) -> Path:
        return self.options.output(self.root)


def _build_game(run: Run, game_id: str, languages: tuple[str, ...] | None) -> BuildResult:
    """One game: loaded and checked once, each edition drawn and laid out, its files written as one set."""
    options, session = run.options, run.session
    started = time.perf_counter()
    with run.progress.bar(f"{game_id}: reading and checking the cards", 2) as advance:
        log.info("%s: step 1/5 load", game_id)
        with session.stage("load"):
            game, made, warnings = load_editions(run.root, game_id, languages, session)
        papers = game_papers(game, options)
        print_mode = print_mode_of(game, options)
        advance()
        if options.validate:
            log.info("%s: step 2/5 validate", game_id)
            with session.stage("rules"):
                warnings = check_rules(game, options.strict, session.memo) + warnings
        advance()
    if options.strict and warnings:
        _strict_stop(warnings, "in the translations")
    session.release()  # the YAML parser's nodes
    artifacts, rendered_editions, changed = [], [], None
    later: list | None = [] if run.early else None   # what makes the rest, each edition's (build(early=))
    def edition(n: int, ed, later_parts: list | None) -> list[Artifact]:
        nonlocal changed
        built, drawn_warnings, ed_changed, rendered = _build_edition(
            run, ed, papers, print_mode, last=n == len(made) - 1, later=later_parts)
        warnings.extend(drawn_warnings)   # pictures too small to print, external references
        rendered_editions.append(rendered)
        if ed_changed is not None:
            changed = [*(changed or []), *(f"{cid} ({ed.edition})" if ed.edition else cid for cid in ed_changed)]
        return built
    for n, ed in enumerate(made):   # early: the first paper is the first edition's; the others follow it
        if later is not None and n > 0:
            later.append(lambda n=n, ed=ed: edition(n, ed, None))
        artifacts.append([] if later is not None and n > 0 else edition(n, ed, later))
    log.info("%s: step 5/5 export", game_id)
    partial = options.papers is not None or options.guides or options.proof or len(made) < len(languages_of(game.meta))
    def result(files: list[Path]) -> BuildResult:
        return BuildResult(game_id, files, time.perf_counter() - started, warnings, rendered_editions[0],
                           tuple(changed) if changed is not None else None, tuple(rendered_editions))
    try:
        return result(_write(run, game_id, artifacts, later, partial, result))
    except OSError as exc:
        raise OutputError(f"cannot write {game_id}'s files to {run.out_dir}: {exc.strerror or exc}") from None


def _write(run: Run, game_id: str, artifacts: list[list[Artifact]], later, partial: bool, result) -> list[Path]:
    """A game's files written as one set (`artifacts`: each edition's); with `later`, the first
    paper's sheets first (`run.early(result(files))`), then, once `later` made the rest, all."""
    first = [a for ed in artifacts for a in ed]
    with run.session.stage("writing"):
        if run.early is None or not any(later or ()):
            return write_game(run.out_dir, game_id, first, merge=partial)
        files = first_in_place(run.out_dir, game_id, first)
    with put_back_on_failure(run.out_dir, game_id):
        run.early(result(files))
        rest = [make() if make else [] for make in later]
        with run.session.stage("writing"):
            write_game(run.out_dir, game_id, [a for ed in rest for a in ed], merge=partial, placed=first)
    return [run.out_dir / game_id / a.path for ed, more in zip(artifacts, rest) for a in [*ed, *more]] + \
        [run.out_dir / game_id / "manifest.json"]


def render_edition(run: Run, game, drawing=None) -> RenderedGame:
    """An edition's faces drawn as `run.options` ask (stamp, pictures, guides), through the
    run's face cache; `drawing(todo, total)` is the progress of the bundles drawn."""
    from .draw.render import render_game
    from .draw.stamp import stamp_of

    options = run.options
    try:
        return render_game(game, guides=options.guides, cache=run.cache, progress=drawing, session=run.session,
                           stamp=stamp_of(game, options.stamp), pictures=options.pictures(run.root),
                           proof=options.proof)
    except PnpError as exc:
        raise type(exc)(exc.message, in_edition(exc.problems, game)) from None


def _build_edition(run: Run, game, papers, print_mode: PrintMode, last: bool = True, later: list | None = None):
    """One edition of a game drawn and laid out: its artifacts, the warnings of its
    drawing, and (with `changed_since`) the ids of its components that changed. The early
    drawing workers are kept for the game's next edition (`last` False), else ended. `later`:
    only the first paper's sheets now; what lays out the rest is appended to it."""
    from . import changes  # a game's faces compared: only for a build that draws
    from .draw import drawpool

    options, session, out_dir = run.options, run.session, run.out_dir
    name = f"{game.id} ({game.edition})" if game.edition else game.id
    since = options.changed_since
    reference = changes.before(game.root, game.id, since, out_dir, game.edition, session)[1] if since else None
    log.info("%s: step 3/5 render", name)

    def drawing(todo, total):
        return run.progress.bar(f"{name}: drawing {todo} of {total} bundles of faces "
                                f"({total - todo} unchanged, from the cache)", todo)
    rendered = render_edition(run, game, drawing)
    if last:
        drawpool.end_drawing_workers(session)  # the early workers: idle from here on
    if options.strict and rendered.warnings:
        _strict_stop(rendered.warnings, "while drawing")
    session.release()  # the SVG text
    changed = None
    if reference is not None:
        changed = changes.changed_ids(reference, changes.component_keys(rendered.cards, rendered.draw_keys))
    log.info("%s: step 4/5 layout", name)
    spool = out_dir / ".cache"   # the sheets are written there as they are made, not held in memory
    layout = Layout(papers, print_mode, session, options.guides, spool, options.proof)
    sheets_only = options.guides or options.proof
    more = later is not None and (len(papers) > 1 or changed or not sheets_only and _has_rulebook(game))

    def laid_out(part, advance=lambda: None) -> list[Artifact]:
        try:
            safefs.real_folder(out_dir.parent, spool)
            artifacts = layout_game(game, rendered, layout, advance, part)
            if changed and part != "first":
                artifacts += [_changed_sheets(rendered, changed, paper, layout) for paper in papers]
        except OSError as exc:
            raise OutputError(f"cannot write {name}'s sheets into {spool}: {exc.strerror or exc}") from None
        except PnpError as exc:
            raise type(exc)(exc.message, in_edition(exc.problems, game)) from None
        return artifacts
    with run.progress.bar(f"{name}: laying out {', '.join(papers)}", len(papers)) as advance:
        artifacts = laid_out("first" if more else None, advance)
    record = functools.partial(changes.record_written, out_dir, game.stem, rendered, name)
    if later is not None:   # None: nothing more to make (the build record: once the first paper is in place)
        later.append((lambda: laid_out("rest") + ([] if sheets_only else record())) if more else None)
    if sheets_only:
        return artifacts, list(rendered.warnings), changed, rendered
    words = []
    if _has_rulebook(game):   # else Platypus is not even imported
        from .rulebook import rulebook_warnings

        words = rulebook_warnings(game)
    if options.strict and words:
        _strict_stop(words, "in the rulebook's own words (Contents, Rules of play...)")
    if later is None or not more:
        record()
    return artifacts, [*rendered.warnings, *words], changed, rendered


@dataclass(frozen=True)
class Layout:
    """How a rendered game is laid out: on which papers, in which print mode, within which
    session; `guides`: proofs (sheets only); `spool`: the folder the sheets are written
    into as they are made (None: in memory); `proof`: the low-ink proof's sheets (--proof)
    and cut files, no rulebook."""

    papers: tuple[str, ...]
    print_mode: PrintMode
    session: Session
    guides: bool = False
    spool: Path | None = None
    proof: bool = False


def layout_game(game, rendered, layout: Layout, advance=lambda: None, part: str | None = None) -> list[Artifact]:
    """Sheets (or proofs), cut files and rulebooks of a rendered game for each paper, in memory
    (the sheets in temporary files in `layout.spool`, when given); `advance` is called after
    each paper (a progress bar). `part`: "first", the first paper's sheets and cut files
    only; "rest", all but those (in the same order); None: all."""
    from .layout.cutfile import cut_svg
    from .layout.sheets import layout_sheets

    settings = game.meta.get("print") or {}
    print_mode, session, guides = layout.print_mode, layout.session, layout.guides
    no_book = guides or layout.proof   # proofs are sheets (and --proof's cut files) only
    artifacts: list[Artifact] = []
    kept: dict = {}   # the rulebook's work that does not depend on the paper, done for the first
    for index, paper in enumerate(layout.papers):
        if part == "rest" and index == 0:   # its sheets are made: its rulebook
            artifacts += [] if no_book else _rulebooks(game, rendered, paper, session, kept)
            continue
        sheets = layout_sheets(rendered, paper, crop_marks=settings.get("crop_marks", True), mode=print_mode,
                               session=session, spool=layout.spool)
        kind = "proof-sheets" if layout.proof else "proof" if guides else "sheets"
        extra = {"mode": print_mode.mode, "back_offset_mm": list(print_mode.back_offset)}
        marks = next((p.registration for p in sheets.plans if p.registration), ())
        if print_mode.cutter:  # the same marks on every page of fronts
            extra.update(cutter=print_mode.cutter, registration=[m.manifest() for m in marks])
        if rendered.stamp is not None:
            extra["stamp"] = rendered.stamp.text
        artifacts.append(Artifact(
            path=f"{game.stem}-{kind}-{paper}.pdf", data=sheets.pdf, kind=kind, paper=paper,
            pages=sheets.pages, components=list(sheets.components),
            placements=sheets.placements, extra={**extra, **_draft(rendered), **language_entry(game)}))
        if not guides:
            fronts = sum(1 for p in sheets.plans if p.side == "front")
            cut_extra = {"cutter": print_mode.cutter, "registration": [m.manifest() for m in marks]} \
                if print_mode.cutter else {}
            cut_extra.update(language_entry(game))
            artifacts.append(Artifact(
                path=f"{game.stem}-cut-{paper}.svg", data=cut_svg(sheets.plans, game.sheet_title), kind="cut",
                paper=paper, pages=fronts, extra=cut_extra))
            if print_mode.cutter == "silhouette":  # Silhouette Studio Basic Edition opens DXF, not SVG
                from .layout.cutfile import cut_dxf
                artifacts += [Artifact(path=f"{game.stem}-cut-{paper}-sheet{n}.dxf", data=data, kind="cut",
                                       paper=paper, pages=1, extra=cut_extra) for n, data in cut_dxf(sheets.plans)]
        if not no_book and part != "first":  # proofs are sheets only; the rulebook keeps its clean figures
            artifacts.extend(_rulebooks(game, rendered, paper, session, kept))
        session.release()  # the paper's page objects
        advance()
        if part == "first":
            break
    return artifacts


def _strict_stop(warnings, where: str):
    """--strict: the warnings found `where` stop the build."""
    n = len(warnings)
    raise RulesFailed(f"{n} warning{'s' if n != 1 else ''} {where}, and --strict makes warnings fail", list(warnings))


def check_rules(game, strict: bool, memo=None) -> list:
    """The game's rules run (with `memo`, those reading what changed): their warnings; RulesFailed if unfit to print."""
    from .rules import check_game

    return check_game(game, strict=strict, memo=memo).raise_if_failed()


def _changed_sheets(rendered, changed, paper, layout: Layout):
    """Sheets of only the `changed` components (fronts and their backs, registered as usual)."""
    import dataclasses

    from .layout.sheets import layout_sheets

    wanted = set(changed)
    subset = dataclasses.replace(rendered, cards=tuple(rc for rc in rendered.cards if rc.card.id in wanted))
    crop_marks = (rendered.game.meta.get("print") or {}).get("crop_marks", True)
    sheets = layout_sheets(subset, paper, crop_marks=crop_marks, mode=layout.print_mode, session=layout.session,
                           spool=layout.spool)
    return Artifact(path=f"{rendered.game.stem}-changed-{paper}.pdf", data=sheets.pdf, kind="changed", paper=paper,
                    pages=sheets.pages, components=list(sheets.components), placements=sheets.placements,
                    extra={**_draft(rendered), **language_entry(rendered.game)})


def _has_rulebook(game) -> bool:
    return bool(game.meta.get("rulebook"))   # a rulebook.md game.yaml does not name is not read


def _rulebooks(game, rendered, paper, session: Session, kept: dict | None = None):
    if not _has_rulebook(game):
        return []  # no rulebook: Platypus is not even imported
    from .rulebook import layout_rulebook

    with session.stage("rulebook"):
        book = layout_rulebook(game, rendered, paper, session, kept)
    if book is None:
        return []
    return [Artifact(path=f"{game.stem}-rulebook-{paper}.pdf", data=book.pdf, kind="rulebook", paper=paper,
                     pages=book.pages, components=list(book.components), placements=list(book.placements),
                     extra={**_draft(rendered), **language_entry(game)})]


def _draft(rendered) -> dict:
    """The manifest's mark on files whose pictures are drafts (--draft)."""
    return {"draft": DRAFT_NOTE} if rendered.draft else {}
