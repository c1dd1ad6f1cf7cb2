"""The build session: what a rebuild may reuse is passed in, never a process-wide switch."""
from __future__ import annotations

import ast
import hashlib
from pathlib import Path

import pytest

from generator.layout.pdfstream import PDFStream
from generator.options import BuildOptions
from generator.pipeline import build
from generator.rendermemo import Forgets
from generator.session import Kept, Session
from tests.astcache import parsed, walked

PACKAGE = Path(__file__).resolve().parents[1] / "generator"

# Module-level state that is not a constant, each with why it may stay.
ALLOWED = {
    ("generator/rules/checks.py", "CHECKS"): "the registry of rule checks, filled once as the module is imported",
    ("generator/draw/fonts.py", "_added"): "font folders added to this process's fontconfig: a process fact",
    ("generator/draw/vipsbridge.py", "_HELPER"): "the process that runs libvips for this one: a process fact "
                                                 "(it keeps nothing of a build between pictures)",
    ("generator/memory.py", "_DROPPABLE"): "the process-wide memos a one-shot build's hand-back may drop, "
                                           "registered once as their modules are imported",
    ("generator/draw/pangotext.py", "_ENGINES"): "weak references to the engines of `engine`'s lru_cache, so their "
                                                 "memos can be dropped (memory.droppable): nothing more",
}
MUTABLE = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
MUTABLE_CALLS = {"dict", "list", "set", "OrderedDict", "defaultdict", "deque", "Counter", "bytearray"}
MUTABLE_TYPES = {"dict", "list", "set", "Dict", "List", "Set", "OrderedDict", "defaultdict", "deque", "Counter",
                 "bytearray", "MutableMapping", "MutableSequence", "MutableSet"}
MUTATORS = {"append", "extend", "insert", "add", "update", "setdefault", "pop", "popitem", "clear", "remove",
            "discard", "appendleft", "extendleft", "popleft", "sort", "reverse", "move_to_end", "__setitem__",
            "__delitem__", "difference_update", "intersection_update", "symmetric_difference_update"}
def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.usefixtures("warm_project")   # what a session keeps is tested, not the drawing: faces drawn already
def test_a_session_that_remembers_builds_what_a_fresh_one_builds(project):
    out = project / "output" / "olympians"
    watching = Session(remember=True)
    build(project, ["olympians"], BuildOptions(papers=("a4",), languages=("en",)), session=watching)
    first = _digests(out)
    assert watching.memo.svgs and len(watching.segments) and len(watching.furniture)
    replays = []
    replay = PDFStream.replay
    PDFStream.replay = lambda self, written: replays.append(1) or replay(self, written)
    try:
        build(project, ["olympians"], BuildOptions(papers=("a4",), languages=("en",)), session=watching)
    finally:
        PDFStream.replay = replay
    assert replays, "the second build reused what the first wrote"
    again = _digests(out)
    build(project, ["olympians"], BuildOptions(papers=("a4",), languages=("en",)), session=Session())
    assert again == _digests(out) == first


def test_a_one_shot_session_keeps_nothing(warm_project):
    once = Session()
    build(warm_project, ["olympians"], BuildOptions(papers=("a4",), languages=("en",)), session=once)
    assert not hasattr(once.memo, "svgs") and not len(once.segments) and not len(once.furniture) and not len(once.rulebooks)
    assert once.workers is None  # the workers it forked are ended with the build
    assert once.stopwatch.rows(), "its stopwatch timed the build"


def test_kept_values_are_bounded_by_count_or_by_size():
    few = Kept(2)
    for i in range(5):
        few.put(i, str(i))
    assert len(few) == 2 and few.get(4) == "4" and few.get(0) is None
    sized = Kept(10, size=len)
    sized.put("a", b"123456")
    sized.put("b", b"123456")
    assert sized.get("a") is None and sized.get("b") == b"123456"
    off = Kept(0)
    off.put("a", 1)
    assert off.get("a") is None and not len(off)
    sized.put("c", b"12345678901")   # larger than the whole bound: not kept, nothing dropped for it
    assert sized.get("c") is None and sized.get("b") == b"123456"
    forgets = Forgets()
    forgets.put("a", 1)
    forgets.keep("b", lambda: 1 / 0)   # what it would keep is never even made
    assert forgets.get("a") is None and not len(forgets)


def _mutable(value) -> bool:
    """A dict, list or set made by this expression (a literal, a comprehension, dict()...)."""
    return isinstance(value, MUTABLE) or isinstance(value, ast.Call) and (
        getattr(value.func, "id", None) in MUTABLE_CALLS or getattr(value.func, "attr", None) in MUTABLE_CALLS)


def _module_names(tree: ast.Module) -> dict[str, ast.expr]:
    """The names a module binds at its top level, with what they are bound to."""
    names = {}
    for node in tree.body:
        targets, value = ([node.target], node.value) if isinstance(node, ast.AnnAssign) else \
            (node.targets, node.value) if isinstance(node, ast.Assign) else ([], None)
        for target in targets:
            if isinstance(target, ast.Name) and value is not None:
                names[target.id] = value
    return names


FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _function_nodes(tree: ast.Module) -> dict[ast.AST, list[ast.AST]]:
    """Every function and lambda of a module with all its nodes (its nested functions'
    included), found in one walk of the tree: walking each function again for itself read
    a nested function's nodes once for every function around it."""
    found: dict[ast.AST, list[ast.AST]] = {}
    stack: list[tuple[ast.AST, tuple[list[ast.AST], ...]]] = [(tree, ())]
    while stack:
        node, around = stack.pop()
        if isinstance(node, FUNCTIONS):
            found[node] = []
            around = (*around, found[node])
        for nodes in around:
            nodes.append(node)
        stack.extend((child, around) for child in ast.iter_child_nodes(node))
    return found


def _mutated(functions: dict[ast.AST, list[ast.AST]], names) -> set[str]:
    """The module-level names code of the module changes: `global` rebinds them, or a
    function stores into them (x[k] = v, x.a = v, del x[k]) or calls a mutating method on
    them (x.append, x.clear, x.setdefault...), a name of its own aside."""
    found = set()
    for fn, nodes in functions.items():
        declared = {n for node in nodes if isinstance(node, ast.Global) for n in node.names}
        found |= declared & set(names)
        args = fn.args
        local = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a}
        local |= {node.id for node in nodes if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
        outer = (set(names) - local) | declared
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                for target in node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]:
                    while isinstance(target, (ast.Subscript, ast.Attribute)):
                        target = target.value
                        if isinstance(target, ast.Name) and target.id in outer:
                            found.add(target.id)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in MUTATORS and isinstance(node.func.value, ast.Name) and node.func.value.id in outer:
                found.add(node.func.value.id)
    return found


def _caches_of_mutables(functions: dict[ast.AST, list[ast.AST]]) -> list[str]:
    """Functions cached by `functools.cache`/`lru_cache` that hand out a dict, list or set
    (by their return annotation or what they return): every caller gets the same object, so
    what one build puts in it the next one reads."""
    found = []
    for fn, nodes in functions.items():
        if isinstance(fn, ast.Lambda):
            continue
        cached = any(ast.unparse(d.func if isinstance(d, ast.Call) else d).split(".")[-1] in ("cache", "lru_cache")
                     for d in fn.decorator_list)
        if not cached:
            continue
        inner = {id(n) for other in nodes if other is not fn and other in functions for n in functions[other]}
        own = [node for node in nodes if id(node) not in inner]   # a nested helper's returns are its own
        made = {node.targets[0].id for node in own if isinstance(node, ast.Assign)
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and _mutable(node.value)}
        returns = [node.value for node in own if isinstance(node, ast.Return) and node.value is not None]
        annotation = ast.unparse(fn.returns).split("[")[0].split(".")[-1].strip("'\"") if fn.returns else ""
        if annotation in MUTABLE_TYPES or any(_mutable(r) or isinstance(r, ast.Name) and r.id in made
                                              for r in returns):
            found.append(fn.name)
    return found


def state_outside_a_session(source: str | ast.Module, rel: str) -> list[str]:
    """What a module (its source, or its syntax tree) holds that one build could leave to
    the next: module-level dicts, lists and sets not named as constants, any module-level
    name its code changes (upper case or not), and cached functions that return a mutable
    container."""
    tree = ast.parse(source) if isinstance(source, str) else source
    names = _module_names(tree)
    functions = _function_nodes(tree)
    found = [f"{rel}: {name} (module-level {type(value).__name__})" for name, value in names.items()
             if _mutable(value) and not name.isupper() and not name.startswith("__") and (rel, name) not in ALLOWED]
    found += [f"{rel}: {name} (changed by the module's code)" for name in sorted(_mutated(functions, names))
              if (rel, name) not in ALLOWED and not any(name in f.split(": ")[1].split(" ")[0] for f in found)]
    found += [f"{rel}: {name}() (a cache that returns a mutable container)" for name in _caches_of_mutables(functions)]
    return found


def test_no_module_holds_state_a_build_could_read():
    """Module-level dicts, lists and sets (and instances made at import) would be state
    shared by every build of the process: caches belong to a session or to `lru_cache`
    of what is immutable. Upper-case names are constants only while nothing changes them."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        found += state_outside_a_session(parsed(path), str(path.relative_to(PACKAGE.parent)))
    assert not found, f"module-level state outside a session: {found}"


def test_the_state_guard_sees_a_mutated_constant_and_a_cache_returning_a_dict():
    """The two holes the guard had: an upper-case module dict filled at run time, and an
    `lru_cache` that hands every caller the same dict to fill in."""
    mutated = "_SEEN: dict = {}\nLIMITS = {'a': 1}\n\ndef f(k):\n    _SEEN[k] = 1\n    LIMITS.clear()\n"
    assert len(state_outside_a_session(mutated, "m.py")) == 2
    assert state_outside_a_session("TABLE = {'a': 1}\n\ndef f(k):\n    return TABLE[k]\n", "m.py") == []
    assert state_outside_a_session("def f(TABLE):\n    TABLE.clear()\nTABLE = {}\n", "m.py") == []  # its own
    cached = "import functools\n\n@functools.lru_cache(maxsize=8)\ndef digests(key: bytes) -> dict:\n    return {}\n"
    assert state_outside_a_session(cached, "m.py") == ["m.py: digests() (a cache that returns a mutable container)"]
    helper = ("import functools\n\n@functools.lru_cache(maxsize=8)\ndef net(k) -> tuple:\n"
              "    def pts(ps):\n        return [p for p in ps]\n    return tuple(pts(k))\n")
    assert state_outside_a_session(helper, "m.py") == []   # what a nested helper returns stays inside
    built = "from functools import cache\n\n@cache\ndef f(k):\n    out = []\n    return out\n"
    assert len(state_outside_a_session(built, "m.py")) == 1
    frozen = "from functools import cache\n\n@cache\ndef f(k) -> tuple:\n    return tuple(k)\n"
    assert state_outside_a_session(frozen, "m.py") == []


# Who may make a Session: the commands (cli/, which makes the one `pnp watch` keeps too).
def _made_here(rel: str) -> bool:
    """Only the commands make a session (the CLI, for `pnp watch` too); everything below is given one."""
    return rel.startswith("generator/cli/")


def _functions(tree: ast.Module):
    """(function, the top-level function or class it is in) for every function of a module."""
    for top in tree.body:
        for node in ast.walk(top):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield node, top


def test_below_the_commands_the_session_is_passed_in():
    """No stage quietly makes a fresh `Session()` (which would turn caching, the limits and
    `--timings` off without a word), and none takes `session` with a default."""
    made, defaulted = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = str(path.relative_to(PACKAGE.parent))
        if rel == "generator/session.py" or _made_here(rel):
            continue
        for fn, _ in _functions(parsed(path)):
            args = fn.args
            positional = [*args.posonlyargs, *args.args]
            defaults = dict(zip([a.arg for a in positional][len(positional) - len(args.defaults):], args.defaults))
            defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
            if "session" in defaults:
                defaulted.append(f"{rel}: {fn.name}")
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Session":
                    made.append(f"{rel}: {fn.name}")
    assert not made, f"a Session made below the commands: {made}"
    assert not defaulted, f"a session that may be left out: {defaulted}"


def test_no_stage_asks_whether_its_session_remembers():
    """Only session.py knows whether a session remembers (`.remember`) or a memo keeps
    anything (`.on`): the stages call the memo, the segments, the pictures..., which do
    the plain thing in a session that remembers nothing."""
    asked = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = str(path.relative_to(PACKAGE.parent))
        if rel == "generator/session.py":
            continue
        nodes = walked(path)
        called = {id(node.func) for node in nodes if isinstance(node, ast.Call)}
        asked += [f"{rel}:{node.lineno} .{node.attr}" for node in nodes
                  if isinstance(node, ast.Attribute) and node.attr in ("on", "remember", "remembering")
                  and id(node) not in called]
    assert not asked, f"a stage asks whether the session remembers: {asked}"
    session = Session()
    assert not any(hasattr(held, "on") for held in (session.memo, session.segments, session.pictures,
                                                      session.furniture, session.rulebooks))


def test_a_memo_that_remembers_nothing_builds_no_key():
    """The null memo of a one-shot session does the plain thing: it makes what is asked
    for, never the key a remembering memo would keep it under (those cost a digest each)."""
    from generator.rendermemo import Memo, RenderMemo

    def no_key():
        raise AssertionError("a key was built")
    memo = Session().memo
    assert type(memo) is Memo
    assert memo.face(no_key, lambda: "<svg/>") == "<svg/>"
    assert memo.unless_passed(no_key, lambda: ["a problem"]) == ["a problem"]
    assert memo.scope((), {}, no_key) == ("", "", "") and memo.derived(("k",), lambda: 3) == 3
    assert memo.recall(("k",)) is None
    remembering = Session(remember=True).memo
    assert isinstance(remembering, RenderMemo)
    assert remembering.face(lambda: "k", lambda: "<svg/>") == "<svg/>"
    assert remembering.face(lambda: "k", no_key) == "<svg/>"   # remembered: not rendered again
    assert remembering.unless_passed(lambda: ("passes", 1), list) == []
    assert remembering.unless_passed(lambda: ("passes", 1), no_key) == []   # passed before: not checked again
    assert Session().keeps_workers and not Session(remember=True).keeps_workers


def test_bounded_maps_are_cachetools_not_hand_rolled():
    """Every bounded map of pnp is cachetools' `LRUCache` (the session's, the render memo's,
    the text engine's): no policy of its own made of an OrderedDict and popitem."""
    from cachetools import LRUCache

    rolled = [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}" for path in sorted(PACKAGE.rglob("*.py"))
              for node in walked(path)
              if isinstance(node, ast.Attribute) and node.attr in ("popitem", "move_to_end")
              or isinstance(node, ast.Name) and node.id == "OrderedDict"]
    assert not rolled, f"a bounded map of its own: {rolled}"
    watching = Session(remember=True)
    assert all(isinstance(held, LRUCache) for held in (watching.segments, watching.furniture, watching.rulebooks,
                                                        watching.pictures, watching.memo.svgs, watching.font_digests))
