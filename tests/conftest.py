"""Shared fixtures: copies of the real project to mutate, tiny games to break, one real build."""
from __future__ import annotations

import atexit
import functools
import gc
import os
import re
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import cli
from generator.draw import fonts

REPO = Path(__file__).resolve().parents[1]
CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []   # before a worker is pinned
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "").startswith("gw")
WORKER_PID = os.getpid()


def pytest_configure(config):
    """Each pytest-xdist worker runs on a core of its own: the builds it runs then draw in
    their own process (`Session.jobs` is the CPUs a process may use) instead of forking
    drawing workers onto cores the other test workers are busy with. Tests of the drawing
    workers ask for them (`Session(jobs=2)`)."""
    os.environ.setdefault("PNP_CACHE_KEY", "5e" * 32)   # the caches' key: never the tester's ~/.cache
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if worker.startswith("gw") and CPUS:
        os.sched_setaffinity(0, {CPUS[int(worker[2:]) % len(CPUS)]})


# The fixtures that build every shipped game (or need such a build): a test asking for one is
# slow, marked here so `make check` (pytest -m "not slow") never waits for the build.
SLOW_FIXTURES = frozenset({"drawn_faces", "olympians_build", "all_builds", "olympians_dtc", "warm", "warm_project"})


def pytest_sessionfinish(session):
    """A test worker's results are all with the controller when its session ends: its heap is
    frozen for the last garbage collections pytest makes (about 2 s of walking it), and once
    its exit handlers have run it leaves without tearing the heap down (about 4 s more), so
    the run ends when its tests do."""
    if WORKER:
        gc.freeze()


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After each test its garbage is collected and what outlives it (modules, test items,
    fixtures, the run's shared builds) frozen out of later collections. A test worker's heap
    grows to hundreds of MB no `pnp` process holds; unfrozen, every full collection of a
    build run in it (memory.release, after a stage of a one-shot build) walked all of it
    (measured: 74 full collections, 39 CPU s of a run). Frozen, a build in a test walks what
    it made, as in its own process. The collection walks only what the test made."""
    yield
    gc.collect()
    gc.freeze()


def _leave():
    if os.getpid() == WORKER_PID:   # not in a process a test forked: its exit status is its own
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


if WORKER:
    atexit.register(_leave)   # registered first: runs after every other exit handler


def pytest_collection_modifyitems(items):
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", autouse=True)
def shipped_fonts(tmp_path_factory):
    """Every test process draws with the shipped fonts only (as `pnp build` does)."""
    fonts.activate(tmp_path_factory.mktemp("fontcache"))


@pytest.fixture
def project(tmp_path) -> Path:
    """A private copy of the real project (cards + templates) that a test may change."""
    for name in ("cards", "templates"):
        shutil.copytree(REPO / name, tmp_path / name)
    return tmp_path


def game_copy(dest: Path, game: str) -> Path:
    """`dest` made a copy of the real project holding one game (its cards and templates):
    a test given it reads and breaks that game alone (a read of another's folders fails)."""
    for name in ("cards", "templates"):
        shutil.copytree(REPO / name / game, dest / name / game)
    return dest


WARM_ENTRIES = {"faces": re.compile(r"[^.].*\.pdf"), "memo": re.compile(r"[0-9a-f]{64}")}


@pytest.fixture
def warm(drawn_faces):
    """warm(output_folder): give a build's output folder the caches a designer's project has
    after its first build, as the run's one build of the shipped games left them: the faces
    it drew, and what a one-shot build keeps for the next (output/.cache/memo: laid-out
    sheets, rulebooks), so that a test's build draws and lays out only what the test
    changed (a test about the build, not the drawing; tests/test_oneshot.py holds that a
    build from these equals a cold one). The entries are hard links: the caches only ever
    rename a whole entry into place or remove one, never write into a file."""
    def seed(output: Path) -> Path:
        for store, entry in WARM_ENTRIES.items():   # a folder made once, its entries linked (scandir: no glob)
            for shelf in os.scandir(drawn_faces.parent / store):
                if shelf.name.startswith(".") or not shelf.is_dir(follow_symlinks=False):
                    continue
                names = [e.name for e in os.scandir(shelf.path) if entry.fullmatch(e.name)]
                if names:
                    folder = output / ".cache" / store / shelf.name
                    folder.mkdir(parents=True, exist_ok=True)
                    for name in names:
                        os.link(os.path.join(shelf.path, name), folder / name)
        return output
    return seed


@pytest.fixture
def warm_project(project, warm) -> Path:
    """`project` after a first build: its output/.cache holds every shipped game's faces and
    the memo the build left."""
    warm(project / "output")
    return project


def run(root: Path, *args: str):
    """Run the CLI in-process the way a user would; returns click's Result."""
    return CliRunner().invoke(cli, ["--root", str(root), *args], catch_exceptions=True)


def edit(path: Path, old: str, new: str) -> None:
    """Replace exactly one occurrence of `old` in a file (a mutation must be unambiguous)."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


MINI_FRONT = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="#fafafa"/>
  <text x="6" y="12" font-family="Lato" font-size="4">{{ card.name }}</text>
  {{ textbox(card.text, 6, 20, deck.trim_w - 6, 30, size=3.5, min_size=2.5) }}
</svg>
"""
MINI_BACK = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="#335"/>
  <text x="10" y="40" font-family="Lato" font-weight="bold" font-size="6" fill="#fff">BACK {{ card.id }}</text>
</svg>
"""


@pytest.fixture
def mini(tmp_path):
    """Factory for a one-deck game in a fresh folder: mini(cards_yaml, front=..., deck_extra=...)."""
    def make(cards: str, front: str = MINI_FRONT, back: str = MINI_BACK, deck_extra: str = "") -> Path:
        root = tmp_path / "proj"
        (root / "cards" / "mini").mkdir(parents=True, exist_ok=True)
        (root / "templates" / "mini").mkdir(parents=True, exist_ok=True)
        (root / "cards" / "mini" / "game.yaml").write_text("title: Mini\ndecks: [deck.yaml]\n")
        (root / "cards" / "mini" / "deck.yaml").write_text(
            "deck: things\nname: Things\nfront: front.svg.j2\nback: back.svg.j2\n" + deck_extra +
            "fields:\n  text: {type: string}\n  cost: {type: integer, minimum: 0}\nrequired: [text]\n"
            "cards:\n" + textwrap.indent(textwrap.dedent(cards).strip("\n"), "  ") + "\n")
        (root / "templates" / "mini" / "front.svg.j2").write_text(front)
        (root / "templates" / "mini" / "back.svg.j2").write_text(back)
        return root
    return make


def _once(tmp_path_factory, name: str, marker: str, make) -> Path:
    """`make(FOLDER)` run once for the whole run: pytest-xdist's workers share FOLDER (the
    run's common temporary folder / `name`) under a lock per `marker`; the marker file says
    it was made. Tests only read FOLDER."""
    import fcntl

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out = shared / name
    with open(shared / f"{name}{marker}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # released when the file closes
        if not (out / marker).exists():
            make(out)
            (out / marker).touch()
    return out


def _built_once(tmp_path_factory, name: str, *args: str, marker: str = ".built", every_core: bool = True) -> Path:
    """`pnp ARGS --output FOLDER` on the repository's own games, run once for the whole run
    (`_once`), so the shipped games are not built once per core."""
    def build(out: Path) -> None:
        pinned = os.sched_getaffinity(0) if CPUS and every_core else None
        if pinned is not None:   # every core: the other test workers mostly wait for this build
            os.sched_setaffinity(0, CPUS)
        try:
            result = CliRunner().invoke(cli, ["--root", str(REPO), *args, "--output", str(out)])
        finally:
            if pinned is not None:
                os.sched_setaffinity(0, pinned)
        assert result.exit_code == 0, result.output
    return _once(tmp_path_factory, name, marker, build)


def made_once(tmp_path_factory, name: str, make) -> Path:
    """`make(FOLDER)` run once for the whole run (`_once`), in a folder of its own: a
    reference that several tests compare with (a cold build of the same edited data) is
    made once."""
    def fresh(out: Path) -> None:
        if out.exists():   # what a failed attempt left
            shutil.rmtree(out)
        out.mkdir()
        make(out)
    return _once(tmp_path_factory, name, ".made", fresh)


def _shipped_build(tmp_path_factory) -> Path:
    """The output folder of the run's one build of every shipped game (both papers, every
    edition). Each game is built once for the run under a lock of its own, and the test
    workers take the games in opposite orders: two workers build two games at once, each on
    its own core, instead of one waiting for the other."""
    from generator.data.load import list_games

    games = list_games(REPO)
    if os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] not in ("", "0") and len(CPUS) > 1:
        games = games[::-1]
    out = None
    for game in games:
        out = _built_once(tmp_path_factory, "all-out", "build", game, marker=f".built-{game}", every_core=False)
    assert out is not None
    return out


@pytest.fixture(scope="session")
def drawn_faces(tmp_path_factory) -> Path:
    """The face cache of the run's one build of every shipped game (read only)."""
    return _shipped_build(tmp_path_factory) / ".cache" / "faces"


@pytest.fixture(scope="session")
def olympians_build(tmp_path_factory):
    """One real build of Olympians (both papers, every edition) from the repository's own data."""
    return _built_once(tmp_path_factory, "all-out", "build", "olympians", marker=".built-olympians",
                       every_core=False) / "olympians"


@pytest.fixture(scope="session")
def all_builds(tmp_path_factory):
    """Every shipped game built once (both papers): {game: its output folder}."""
    from generator.data.load import list_games
    out = _shipped_build(tmp_path_factory)
    return {game: out / game for game in list_games(REPO)}


@pytest.fixture(scope="session")
def olympians_dtc(tmp_path_factory):
    """Olympians exported once for DriveThruCards (PDF/X-1a): its exports/dtc/ folder."""
    return _built_once(tmp_path_factory, "olympians-dtc", "export", "--profile", "dtc", "--lang", "en",
                       "olympians") / "olympians" / "exports" / "dtc"


def kit_of(root: Path, game: str, paper: str) -> dict[str, bytes]:
    """`pnp kit GAME --paper PAPER` run in this process: the zip's files by name."""
    import io
    import zipfile

    result = run(root, "kit", game, "--paper", paper)
    assert result.exit_code == 0, result.output
    kit = root / "output" / game / "exports" / "kit" / f"{game}-print-and-play.zip"
    with zipfile.ZipFile(io.BytesIO(kit.read_bytes())) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


@functools.cache
def all_pdfs() -> tuple:
    """(game, file name) of every PDF a full build writes, every edition of a game of several
    languages included, for parametrised tests (read once a process)."""
    import yaml

    from generator.data.editions import languages_of
    from generator.data.load import list_games

    def stems(g):
        langs = languages_of(yaml.safe_load((REPO / "cards" / g / "game.yaml").read_text(encoding="utf-8")))
        return [g, *(f"{g}-{lang}" for lang in langs[1:])]
    return tuple((g, f"{stem}-{kind}-{paper}.pdf") for g in list_games(REPO) for stem in stems(g)
                 for kind in ("sheets", "rulebook") for paper in ("a4", "letter"))


def named(game_dir: Path, *keys: str) -> None:
    """game.yaml names its rules file (`rules: rules.yaml`) or rulebook (`rulebook:
    rulebook.md`): pnp reads only the files game.yaml names (issue 38)."""
    path = game_dir / "game.yaml"
    text = path.read_text(encoding="utf-8")
    usual = {"rules": "rules.yaml", "rulebook": "rulebook.md"}
    path.write_text(text + "".join(f"{key}: {usual[key]}\n" for key in keys if f"\n{key}:" not in f"\n{text}"),
                    encoding="utf-8")
