"""What every pnp process pays before its real work (issue 37's one-shot rebuilds, and the
suite's ~115 pnp processes): a command imports only the libraries it uses, and a deck's
schema is checked against JSON Schema's metaschema without jsonschema's slow walk where
the schema is plainly valid."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from generator.data import schema
from generator.data.yamlsrc import read_yaml
from tests.conftest import REPO

# the libraries of drawing, pictures, PDFs and the rulebook: none is needed to say what pnp
# can do, nor to check a game without drawing it
DRAWING = ("cairosvg", "cairocffi", "pangocffi", "pangocairocffi", "reportlab", "pikepdf", "pyvips", "PIL",
           "numpy", "jinja2", "fontTools", "pypdfium2", "markdown_it", "colorspacious", "importlib.metadata")

PROBE = """
import sys
from generator.cli import main

def modules(*args):
    try:
        main(list(args))
    except SystemExit:
        pass
    print("MODULES", " ".join(m for m in sys.argv[2].split() if m in sys.modules), file=sys.stderr)

modules("--help")
modules("--root", sys.argv[1], "validate", "--no-render")
"""


@pytest.mark.slow
def test_a_command_that_draws_nothing_imports_no_drawing_library(mini):
    """`pnp --help`, then `pnp validate --no-render` in the same fresh process: neither
    imports a drawing, picture or PDF library (each used to: pipeline imported the whole
    drawing stack through changes.py, options.py Pillow and libvips, the session
    importlib.metadata); jsonschema only once a game is validated."""
    root = mini("- {id: a, name: A, text: Hello}")
    env = {k: v for k, v in os.environ.items() if k != "CI"}   # no jail: it imports the drawing stack first
    done = subprocess.run([sys.executable, "-c", PROBE, str(root), " ".join((*DRAWING, "jsonschema"))],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)
    said = [line.split()[1:] for line in done.stderr.splitlines() if line.startswith("MODULES")]
    assert len(said) == 2, done.stderr[-3000:]
    assert "errors" in done.stdout and "OK" in done.stdout, done.stdout + done.stderr[-3000:]
    after_help, after_validate = said
    assert after_help == [], f"pnp --help imported {after_help}"
    assert after_validate == ["jsonschema"], f"pnp validate --no-render imported {after_validate}"


BUILD_PROBE = """
import sys
from generator.cli import main
try:
    main(["--root", sys.argv[1], "build", "--paper", "a4"])
except SystemExit as done:
    if done.code:
        raise
print("MODULES", " ".join(m for m in ("fontTools", "importlib.metadata") if m in sys.modules), file=sys.stderr)
"""


@pytest.mark.slow
def test_a_one_shot_rebuild_reads_no_font_with_fonttools_and_no_library_metadata(mini):
    """A rebuild after a card's text is edited measures the ink of its plain text from the
    letters the last build kept (glyphink.Letters), and every library version from the
    folders' names (distributions.py): the first build opens its font with fontTools, the
    rebuild neither that nor importlib.metadata (each some 50 ms of a one-shot rebuild)."""
    root = mini("- {id: a, name: Alpha, text: Hello}\n- {id: b, name: Beta, text: There}")
    env = {k: v for k, v in os.environ.items() if k != "CI"}

    def modules() -> list[str]:
        done = subprocess.run([sys.executable, "-c", BUILD_PROBE, str(root)], cwd=root, env=env,
                              capture_output=True, text=True, timeout=120)
        said = [line.split()[1:] for line in done.stderr.splitlines() if line.startswith("MODULES")]
        assert done.returncode == 0 and said, done.stderr[-3000:]
        return said[0]

    assert "fontTools" in modules(), "the first build measures its letters in the font file"
    deck = root / "cards" / "mini" / "deck.yaml"
    deck.write_text(deck.read_text().replace("text: Hello", "text: Hello again"))
    assert modules() == []


def _shipped_schemas() -> list:
    """Every schema the shipped games give pnp: their data schemas and their decks' fields."""
    found = [json.loads(p.read_text()) for p in sorted((REPO / "cards").glob("*/*.schema.json"))]
    for path in sorted((REPO / "cards").glob("*/*.yaml")):
        data = read_yaml(path, path.name)
        if isinstance(data, dict) and isinstance(data.get("fields"), dict):
            found += [json.loads(json.dumps(sub)) for sub in data["fields"].values()]
    return found


VALUES = [None, True, False, 0, 1, -1, 1.5, 0.0, "", "string", "integer", "strin", "^a+$", "(", "#/$defs/x",
          "https://json-schema.org/draft/2020-12/schema", "a b", [], ["string"], ["string", "string"],
          ["a", 1], [{}], [True], {}, {"a": {}}, {"a": 1}, {"(": {}}, {"a": ["b"]}, {"a": ["b", "b"]}]


def _candidates() -> list:
    """Schemas good and bad: each keyword pnp plainly checks, and a few it does not, with
    each of VALUES, alone, and every third one under `properties` and under `items`."""
    keywords = [*schema.PLAIN, "$id", "$anchor", "$dynamicRef", "dependencies", "minimun"]
    alone = [{k: v} for k in keywords for v in VALUES]
    return [*alone, *({"properties": {"a": s}} for s in alone[::3]), *({"items": s} for s in alone[1::3]),
            True, False, 1, "string", [], None, {"type": "string", "maxLength": 3, "minLength": 1.0}]


def test_a_schema_plainly_valid_is_one_jsonschema_accepts():
    """The fast path never passes a schema jsonschema's metaschema check refuses (a refused
    one goes on to jsonschema, which words the problem as before), and it does pass every
    schema the shipped games give (else it would save nothing)."""
    shipped = _shipped_schemas()
    assert len(shipped) > 50
    for each in shipped:
        assert schema.plainly_valid(each), each
    metaschema = Draft202012Validator(Draft202012Validator.META_SCHEMA,
                                      format_checker=Draft202012Validator.FORMAT_CHECKER)   # check_schema's
    passed = [each for each in [*shipped, *_candidates()] if schema.plainly_valid(each)]
    assert len(passed) > 200
    let_through = [each for each in passed if not metaschema.is_valid(each)]
    assert not let_through, let_through[:5]
    bad = {"properties": {"a": {"type": "strin"}}}
    with pytest.raises(SchemaError) as told:
        Draft202012Validator.check_schema(bad)
    assert schema.schema_problem(bad) == told.value.message


# sha256 of the 2020-12 metaschema and its vocabularies as jsonschema_specifications ships them
METASCHEMA = "969e9dedb9dd9e845b8f050b3f136cd595761ca3512165457afeae22d549ef32"


def test_the_plain_table_follows_the_metaschema():
    """`schema.PLAIN` copies what the 2020-12 metaschema asks of each keyword: it names
    only keywords the metaschema declares, and a jsonschema that ships another metaschema
    fails here until PLAIN is read against it again (then pin its new digest)."""
    from jsonschema_specifications import REGISTRY

    base = "https://json-schema.org/draft/2020-12/"
    documents = [REGISTRY.contents(base + "schema")] + [
        REGISTRY.contents(f"{base}meta/{name}") for name in
        ("core", "applicator", "unevaluated", "validation", "meta-data", "format-annotation", "content")]
    declared = {key for document in documents for key in document.get("properties", {})}
    assert set(schema.PLAIN) <= declared, set(schema.PLAIN) - declared
    digest = hashlib.sha256(json.dumps(documents, sort_keys=True).encode()).hexdigest()
    assert digest == METASCHEMA, f"the metaschema changed ({digest}): read schema.PLAIN against it again"


def test_an_untrusted_start_up_is_frozen_and_a_fork_does_not_thaw_it():
    """`pnp` confining itself (cli/options._confine) first imports what the command needs with
    the collector off and freezes it (memory.imported): those objects live as long as the
    process, and no collection of the build walks them again (0.1-0.2 CPU s of every
    untrusted start). The drawing pool freezes the heap before it forks and thaws it after
    (memory.frozen_for_fork): in such a process the start-up stays frozen. In a child process, as the
    test process must keep its own collector as it is."""
    pid = os.fork()
    if pid == 0:   # the child: answer by the exit code alone
        code = 1
        try:
            import gc

            from generator import memory

            frozen_before = gc.get_freeze_count()
            memory.imported(("generator.pipeline", "generator.draw.drawpool"))
            frozen = gc.get_freeze_count()
            with memory.frozen_for_fork():   # as drawpool forks its workers
                pass
            code = 0 if gc.isenabled() and frozen > frozen_before and gc.get_freeze_count() >= frozen else 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0

