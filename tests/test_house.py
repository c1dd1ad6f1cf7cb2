"""The house rules of the code itself: no import cycles, data flowing one way through the
packages, every module and package saying what comes in and what goes out, no function
wider than eight parameters."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.astcache import imports, parsed

PACKAGE = Path(__file__).resolve().parents[1] / "generator"

# The floors of the house, lowest first: a module may import from its own floor or below.
FLOORS = [
    {"errors", "guard", "units", "shapes", "memory", "progress", "stopwatch", "session", "rendermemo", "pdfiumlock",
     "jail", "jailbridge", "safefs", "diskstore", "diskmemo", "distributions", "bindings", "_cairoffi", "_pixbufffi", "_pangoffi"},
    {"data"},
    {"rules"},
    {"draw"},
    {"layout"},
    {"rulebook"},
    {"exports"},
    {"pipeline", "exporting", "preflight", "changes", "options", "clean", "printing", "deckstats", "errata",
     "erratapack", "colourcheck", "outputfolder"},
    {"loop"},
    {"cli", "__main__"},
]


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(["generator", *parts])] = path
    return found


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The generator modules `name` imports, at the top or inside a function."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in imports(path):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if not target.startswith("generator"):
                continue
            for alias in node.names:  # `from . import fonts` names a module
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in known else target)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("generator"))
    return {m for m in out if m in known and m != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, set(modules)) for name, path in modules.items()}


def _floor(module: str) -> int:
    top = module.split(".")[1] if "." in module else ""
    for n, floor in enumerate(FLOORS):
        if top in floor:
            return n
    raise AssertionError(f"{module} is on no floor of the house: add its package to FLOORS")


def test_no_import_cycles():
    graph = _graph()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_data_flows_one_way_through_the_packages():
    upward = [f"{m} imports {t}" for m, targets in _graph().items() if m != "generator"
              for t in targets if t != "generator" and _floor(t) > _floor(m)]
    assert not upward, "a lower floor imports a higher one:\n" + "\n".join(sorted(upward))


def test_every_module_and_package_says_what_it_is():
    silent = [name for name, path in _modules().items()   # (but the declarations cffi writes: bindings.py)
              if not ast.get_docstring(parsed(path)) and not path.read_text().startswith("# auto-generated file")]
    assert not silent, f"modules without a docstring: {silent}"
    packages = [p for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE]
    vague = [str(p.relative_to(PACKAGE)) for p in packages
             if not any(w in (ast.get_docstring(parsed(p)) or "") for w in ("In:", "Out:"))]
    assert not vague, f"package docstrings that do not say what comes in and goes out: {vague}"


def test_modules_stay_small():
    big = {name: n for name, path in _modules().items() if (n := len(path.read_text().splitlines())) > 420}
    assert not big, f"modules over ~400 lines: {big}"


MAX_PARAMETERS = 8


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Positional-only, positional and keyword-only parameters, less a method's self or cls
    (*args and **kwargs not counted)."""
    args = function.args
    named = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    return len(named) - (1 if named[:1] in (["self"], ["cls"]) else 0)


def _wide_functions(package: Path = PACKAGE) -> dict[str, int]:
    """'module path:qualified name' -> parameters, of every function over MAX_PARAMETERS."""
    wide = {}

    def walk(node: ast.AST, prefix: str, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef) and (n := _parameters(child)) > MAX_PARAMETERS:
                    wide[f"{where}:{name}"] = n
                walk(child, name + ".", where)
            else:
                walk(child, prefix, where)

    for path in sorted(package.rglob("*.py")):
        walk(parsed(path), "", path.relative_to(package).as_posix())
    return wide


def test_no_function_takes_more_than_eight_parameters():
    wide = _wide_functions()
    assert not wide, (f"functions over {MAX_PARAMETERS} parameters (group the ones that travel together "
                     f"into a frozen dataclass, or pass a context object, as BuildOptions): {wide}")


def test_the_parameter_count_sees_every_kind_of_parameter(tmp_path):
    (tmp_path / "wide.py").write_text(
        "def fine(a, b, c, d, e, f, g, h, *args, **kwargs): ...\n"
        "def mixed(a, /, b, c, *, d, e, f, g, h, i): ...\n"
        "class Holder:\n"
        "    def method(self, a, b, c, d, e, f, g, h): ...\n"
        "    @classmethod\n"
        "    def made(cls, a, b, c, d, e, f, g, h, i): ...\n"
        "    def outer(self):\n"
        "        def inner(a, b, c, d, e, f, g, h, i): ...\n")
    assert _wide_functions(tmp_path) == {"wide.py:mixed": 9, "wide.py:Holder.made": 9,
                                         "wide.py:Holder.outer.inner": 9}


def test_the_pdfx_package_is_used_through_its_surface_only():
    """exports/pdfx/ (DriveThruCards' PDF/X-1a) is a fenced sub-package: the rest of pnp and
    the benchmarks import `generator.exports.pdfx` itself, never a module inside it (the
    tests may, to test its parts)."""
    inside = "generator.exports.pdfx"
    graph = _graph()
    through = [f"{m} imports {t}" for m, targets in graph.items() if m != inside and not m.startswith(inside + ".")
               for t in targets if t.startswith(inside + ".")]
    for path in (PACKAGE.parent / "benchmarks").glob("*.py"):
        for node in imports(path):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            names += [f"{node.module}.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom) else []
            through += [f"benchmarks/{path.name} imports {n}" for n in names if n.startswith(inside + ".")]
    assert not through, "modules inside exports/pdfx/ imported from outside:\n" + "\n".join(sorted(through))
    assert {t for targets in graph.values() for t in targets if t.startswith(inside)} >= {inside}


@pytest.mark.slow   # vulture reads every module: make test runs it
def test_no_dead_code(monkeypatch):
    """vulture (pyproject.toml's [tool.vulture]; make test runs it here) finds no name in generator/ that nothing uses, but those
    tests/vulture_whitelist.py explains."""
    from vulture.config import make_config
    from vulture.core import Vulture

    monkeypatch.chdir(PACKAGE.parent)
    config = make_config(["--config", "pyproject.toml"])
    vulture = Vulture(ignore_names=config["ignore_names"], ignore_decorators=config["ignore_decorators"])
    vulture.scavenge(config["paths"], exclude=config["exclude"])
    dead = [f"{item.filename}:{item.first_lineno}: {item.message}"
            for item in vulture.get_unused_code(min_confidence=config["min_confidence"])]
    assert not dead, "dead code (remove it, or say in tests/vulture_whitelist.py why it is used):\n" + "\n".join(dead)
