"""The two tiers of the tests: `make check` runs the fast one (`pytest -m "not slow"`, about a
minute on two cores), `make test` runs everything. The fast tier must still reach every
package of generator/, and must never wait for a build of the shipped games.

Read from the tests' source, not by running them: a test is slow when it is marked
`@pytest.mark.slow`, its module sets `pytestmark`, or it asks for a fixture that builds the
shipped games (conftest.SLOW_FIXTURES, marked slow by conftest). What a test reaches is
every generator module named in it, in the helpers and fixtures it uses, and in theirs.
"""
from __future__ import annotations

import ast
from functools import cache, lru_cache
from pathlib import Path

import pytest

from tests.conftest import SLOW_FIXTURES
from tests.test_house import FLOORS, _floor, _modules

TESTS = Path(__file__).resolve().parent

# What the fast tier must reach: each package, and the floors of loose modules by name
PARTS = {"data", "rules", "draw", "layout", "rulebook", "exports", "loop", "cli", "ground floor", "top floor"}


def _part(module: str) -> str | None:
    """The part of generator/ a module belongs to (generator.draw.render -> draw)."""
    if module == "generator":
        return None
    top = module.split(".")[1]
    if (PACKAGE_DIR / top).is_dir():
        return top
    floor = FLOORS[_floor(module)]
    return "ground floor" if floor is FLOORS[0] else "top floor" if "pipeline" in floor else None


PACKAGE_DIR = TESTS.parent / "generator"


def _is_slow_mark(node: ast.AST) -> bool:
    """`pytest.mark.slow`, or a list/tuple holding it (a module's `pytestmark`)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(_is_slow_mark(e) for e in node.elts)
    return isinstance(node, ast.Attribute) and node.attr == "slow" and ast.unparse(node) == "pytest.mark.slow"


class _File:
    """One file of tests/: its symbols (functions, classes, constants) and what each names."""

    def __init__(self, path: Path, generator_modules: set[str]):
        self.name = path.stem
        tree = ast.parse(path.read_text(encoding="utf-8"))
        self.imports: dict[str, tuple[str, str]] = {}   # local name -> ("gen", module) or ("tests", "file:name")
        self.symbols: dict[str, ast.AST] = {}
        self.fixtures: set[str] = set()
        self.tests: dict[str, bool] = {}                # test name -> slow
        module_slow = False
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.imports.update(_imported(node, generator_modules))
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                self.symbols[node.name] = node
                if any("fixture" in ast.unparse(d) for d in node.decorator_list):
                    self.fixtures.add(node.name)
                elif node.name.startswith("test") and isinstance(node, ast.FunctionDef):
                    self.tests[node.name] = any(_is_slow_mark(d) for d in node.decorator_list)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        self.symbols[t.id] = node
                        if t.id == "pytestmark" and node.value is not None and _is_slow_mark(node.value):
                            module_slow = True
        if module_slow:
            self.tests = dict.fromkeys(self.tests, True)


def _imported(node: ast.Import | ast.ImportFrom, generator_modules: set[str]) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    if isinstance(node, ast.Import):
        for a in node.names:
            if a.name.startswith("generator"):
                out[(a.asname or a.name).split(".")[0] if not a.asname else a.asname] = ("gen", a.name)
        return out
    base = node.module or ""
    for a in node.names:
        local = a.asname or a.name
        if base.startswith("generator"):
            sub = f"{base}.{a.name}"
            out[local] = ("gen", sub if sub in generator_modules else base)
        elif base.startswith("tests.") or base in ("conftest",):
            out[local] = ("tests", f"{base.rpartition('.')[2]}:{a.name}")
    return out


@lru_cache(maxsize=1)
def _generator_modules() -> frozenset[str]:
    return frozenset(_modules())


@lru_cache(maxsize=1)
def _files() -> dict[str, _File]:
    return {p.stem: _File(p, set(_generator_modules())) for p in sorted(TESTS.glob("*.py"))}


def _reached(file: str, symbol: str, seen: set[tuple[str, str]] | None = None) -> set[str]:
    """The generator modules that `symbol` of tests/`file`.py names, directly or through the
    helpers, constants and fixtures it uses (fixtures found in its file or conftest)."""
    files = _files()
    seen = set() if seen is None else seen
    if (file, symbol) in seen or file not in files:
        return set()
    seen.add((file, symbol))
    f = files[file]
    node = f.symbols.get(symbol)
    if node is None:
        return set()
    out: set[str] = set()
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    if isinstance(node, ast.FunctionDef):   # arguments name the fixtures a test or fixture asks for
        names |= {a.arg for a in node.args.args}
    for inner in ast.walk(node):   # imports inside a function
        if isinstance(inner, (ast.Import, ast.ImportFrom)):
            for kind, target in _imported(inner, set(_generator_modules())).values():
                if kind == "gen":
                    out.add(target)
                else:
                    out |= _reached(*target.split(":"), seen)
            if isinstance(inner, ast.Import):
                out |= {a.name for a in inner.names if a.name.startswith("generator")}
    for name in names:
        if name in f.imports:
            kind, target = f.imports[name]
            if kind == "gen":
                out.add(target)
            else:
                out |= _reached(*target.split(":"), seen)
        elif name in f.symbols and name != symbol:
            out |= _reached(file, name, seen)
        elif name in files["conftest"].fixtures:
            out |= _reached("conftest", name, seen)
    return out


@cache
def _reached_by(file: str, test: str) -> frozenset[str]:
    return frozenset(_reached(file, test))


def _fixtures_used(file: str, test: str) -> set[str]:
    """Every fixture a test asks for, and the fixtures those ask for."""
    files = _files()
    todo, found = [(file, test)], set()
    while todo:
        where, name = todo.pop()
        node = files[where].symbols.get(name)
        if not isinstance(node, ast.FunctionDef):
            continue
        asked = [a.arg for a in node.args.args]
        for d in node.decorator_list:   # @pytest.mark.usefixtures("warm_project")
            if isinstance(d, ast.Call) and ast.unparse(d.func) == "pytest.mark.usefixtures":
                asked += [a.value for a in d.args if isinstance(a, ast.Constant)]
        for arg in asked:
            if arg in found:
                continue
            home = where if arg in files[where].fixtures else "conftest" if arg in files["conftest"].fixtures else None
            if home:
                found.add(arg)
                todo.append((home, arg))
    return found


def fast_tests(also_slow: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """(file, test) of the fast tier; the files in `also_slow` counted as marked slow."""
    return [(name, test) for name, f in _files().items() if name.startswith("test_") and name not in also_slow
            for test, slow in f.tests.items() if not slow and not (_fixtures_used(name, test) & SLOW_FIXTURES)]


def reached_by_fast_tier(also_slow: frozenset[str] = frozenset()) -> dict[str, set[str]]:
    """{part of generator/: the fast test files that reach it}."""
    out: dict[str, set[str]] = {}
    for file, test in fast_tests(also_slow):
        for module in _reached_by(file, test):
            part = _part(module)
            if part:
                out.setdefault(part, set()).add(file)
    return out


@pytest.mark.slow   # reads every test file; a property of the suite, checked by make test
def test_the_fast_tier_reaches_every_package():
    reached = reached_by_fast_tier()
    assert set(reached) >= PARTS, f"no fast test reaches {sorted(PARTS - set(reached))}: unmark one, or add a fast test"
    assert PARTS >= {_part(m) for m in _modules()} - {None}, "a new package of generator/: add it to PARTS"


@pytest.mark.slow   # reads every test file, as the check it tests does
def test_the_check_sees_a_package_left_to_the_slow_tier():
    """Were every test file that reaches the rulebook marked slow, the check above would fail."""
    reaching = frozenset(reached_by_fast_tier()["rulebook"])
    assert "rulebook" not in reached_by_fast_tier(also_slow=reaching)
    assert set(reached_by_fast_tier(also_slow=reaching)) >= PARTS - {"rulebook"}


def test_the_fast_tier_never_waits_for_the_shipped_build():
    """Every conftest fixture that builds the shipped games, or asks for one that does, is in
    conftest.SLOW_FIXTURES, so the tests asking for it are slow."""
    conftest = _files()["conftest"]
    building = set()
    for fixture in conftest.fixtures:
        seen: set[tuple[str, str]] = set()
        _reached("conftest", fixture, seen)
        if {("conftest", "_built_once"), ("conftest", "_shipped_build")} & seen:
            building.add(fixture)
    assert {"all_builds", "drawn_faces", "olympians_build", "olympians_dtc", "warm"} <= building
    assert building <= SLOW_FIXTURES, f"fixtures that build the shipped games: mark them slow: {building - SLOW_FIXTURES}"
