"""The build session: what a rebuild may reuse is passed in, never a process-wide switch."""
from __future__ import annotations

import ast
import hashlib
from pathlib import Path

import pytest

from generator.layout.pdfstream import PDFStream
from generator.pipeline import build
from generator.session import Kept, Session

PACKAGE = Path(__file__).resolve().parents[1] / "generator"

# Module-level state that is not a constant, each with why it may stay.
ALLOWED = {
    ("generator/rules/checks.py", "CHECKS"): "the registry of rule checks, filled once as the module is imported",
    ("generator/draw/fonts.py", "_added"): "font folders added to this process's fontconfig: a process fact",
}
MUTABLE = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.slow
def test_a_session_that_remembers_builds_what_a_fresh_one_builds(project):
    out = project / "output" / "olympians"
    watching = Session(remember=True)
    build(project, ["olympians"], ("a4",), session=watching, languages=("en",))
    first = _digests(out)
    assert watching.memo.svgs and len(watching.segments) and len(watching.furniture)
    replays = []
    replay = PDFStream.replay
    PDFStream.replay = lambda self, written: replays.append(1) or replay(self, written)
    try:
        build(project, ["olympians"], ("a4",), session=watching, languages=("en",))
    finally:
        PDFStream.replay = replay
    assert replays, "the second build reused what the first wrote"
    again = _digests(out)
    build(project, ["olympians"], ("a4",), session=Session(), languages=("en",))
    assert again == _digests(out) == first


@pytest.mark.slow
def test_a_one_shot_session_keeps_nothing(project, tmp_path):
    once = Session()
    build(project, ["olympians"], ("a4",), out_dir=tmp_path, session=once, languages=("en",))
    assert not once.memo.svgs and not len(once.segments) and not len(once.furniture) and not len(once.rulebooks)
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
    assert not off.on and off.get("a") is None


def test_no_module_holds_state_a_build_could_read():
    """Module-level dicts, lists and sets (and instances made at import) would be state
    shared by every build of the process: caches belong to a session or to `lru_cache`."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        rel = str(path.relative_to(PACKAGE.parent))
        for node in ast.parse(path.read_text()).body:
            targets, value = ([node.target], node.value) if isinstance(node, ast.AnnAssign) else \
                (node.targets, node.value) if isinstance(node, ast.Assign) else ([], None)
            for target in targets:
                name = getattr(target, "id", None)
                if name is None or value is None:
                    continue
                made = isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
                    value.func.id in ("dict", "list", "set", "OrderedDict", "defaultdict")
                if (isinstance(value, MUTABLE) and not name.isupper() and not name.startswith("__")) or made:
                    if (rel, name) not in ALLOWED:
                        found.append(f"{rel}: {name}")
    assert not found, f"module-level state outside a session: {found}"
