"""`pnp watch`: rebuild a game whenever one of its files is saved.

In: the project folder, the games to watch, build options and a `report` callback.
Out: nothing returned; each rebuild's outcome (the files written and the time it took,
or the problems that stopped it) goes to `report`, then watching goes on: first an early
one when the first paper's sheets (the PDF being previewed) are in place, then one when
the other papers and the rulebooks are. A failed build leaves the previous output in
place (the first paper's sheets too: they are put back when the rest fails).
File events come from the `watchfiles` library (inotify on Linux), debounced so that an
editor's save-as-several-writes is one rebuild.
"""
from __future__ import annotations

import gc
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..draw.render import SHARED
from ..errors import PnpError, Problem
from ..options import BuildOptions
from ..session import Session


@dataclass(frozen=True)
class Outcome:
    game: str
    ok: bool
    seconds: float
    changed: tuple[str, ...]            # project-relative paths that triggered the build
    result: object = None               # pipeline.BuildResult when ok
    problems: tuple[Problem, ...] = ()  # when not ok
    message: str = ""
    early: bool = False                 # only the first paper's sheets are in place: the rest follows


def affected_games(root: Path, paths, games: list[str]) -> dict[str, list[str]]:
    """Which of `games` each changed path belongs to: cards/<game>/… and templates/<game>/…
    to that game, templates/_shared/… to every game. Returns {game: [relative paths]}."""
    hit: dict[str, list[str]] = {}
    for path in sorted(set(paths)):
        try:
            rel = Path(path).resolve().relative_to(root.resolve())
        except ValueError:
            continue
        parts = rel.parts
        if len(parts) < 2 or parts[0] not in ("cards", "templates") or parts[-1].startswith("."):
            continue
        owners = games if parts[:2] == ("templates", SHARED) else [g for g in games if g == parts[1]]
        for g in owners:
            hit.setdefault(g, []).append(rel.as_posix())
    return hit


def editions_touched(root: Path, game: str, paths) -> tuple[str, ...] | None:
    """The editions a save touches when every path is one edition's own (its i18n/<lang>.yaml
    or rulebook.<lang>.md, for a language other than the one the cards are written in): a
    German text edited rebuilds the German edition alone. None: every edition."""
    from ..data.editions import languages_of
    from ..data.yamlsrc import read_yaml

    try:
        langs = languages_of(read_yaml(root / "cards" / game / "game.yaml", f"cards/{game}/game.yaml") or {})
    except PnpError:
        return None
    touched = set()
    for path in paths:
        parts = Path(path).parts
        name = parts[-1]
        if parts[:2] == ("cards", game) and len(parts) == 4 and parts[2] == "i18n" and name.endswith(".yaml"):
            lang = name[:-5]
        elif parts[:2] == ("cards", game) and len(parts) == 3 and name.count(".") == 2 and name.endswith(".md"):
            lang = name.split(".")[1]
        else:
            return None
        if lang not in langs[1:]:
            return None
        touched.add(lang)
    return tuple(lang for lang in langs if lang in touched) or None


def build_one(root: Path, game: str, options: BuildOptions, session: Session, changed=(), report=None) -> Outcome:
    """Build one game; never raises for the designer's mistakes (they come back as problems).
    With `report`, the first paper's sheets (the PDF being previewed) are put in place first
    and reported as an early Outcome; the other papers and the rulebooks follow."""
    from ..pipeline import build

    started = time.perf_counter()

    def early(result) -> None:
        report(Outcome(game, True, time.perf_counter() - started, tuple(changed), result=result, early=True))
    try:
        result = build(root, [game], options, session=session, early=early if report else None)[0]
    except PnpError as exc:
        problems = tuple(exc.problems) or (Problem(f"cards/{game}", exc.message),)
        return Outcome(game, False, time.perf_counter() - started, tuple(changed),
                       problems=problems, message=exc.message)
    return Outcome(game, True, time.perf_counter() - started, tuple(changed), result=result)


def watch(root: Path, games: list[str], report, options: BuildOptions, session: Session,
          stop: threading.Event | None = None) -> None:
    """Build every game once, then again on each save that touches it (only the edition a
    save touches, when it is one edition's own file), until `stop` is set (or Ctrl-C).
    Every build is made as `options` ask, in `session` (one that remembers: rebuilds
    re-render only the cards whose inputs changed), within its limits.
    `options.languages`: only these editions of games of several languages (the English
    one, while the translations catch up with a card just added)."""
    import watchfiles

    languages = options.languages
    try:
        for game in games:
            report(build_one(root, game, options, session, report=report))
            session.settle()
        folders = [str(root / "cards"), str(root / "templates")]
        for changes in watchfiles.watch(*folders, stop_event=stop, debounce=150, step=30,
                                        raise_interrupt=False):
            # an editor's or sed's temporary file, made and removed within the batch, is no change
            made = {p for change, p in changes if change == watchfiles.Change.added}
            paths = [p for _, p in changes if p not in made or Path(p).exists()]
            for game, touched in affected_games(root, paths, games).items():
                langs = editions_touched(root, game, touched) or languages
                if langs and languages:   # the watch's own editions only
                    langs = tuple(lang for lang in langs if lang in languages)
                    if not langs:
                        continue   # a translation the watch does not build was saved
                report(build_one(root, game, options.but(languages=langs), session, touched, report))
                session.settle()  # what the build let go, handed back once it is reported
    finally:
        gc.unfreeze()
