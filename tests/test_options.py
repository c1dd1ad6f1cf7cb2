"""Options travel as one frozen object, and export targets are one table.

`BuildOptions` (generator/options.py) owns the defaults, units and checks of what a
command asks of a build; the pipeline's entry points take it beside the session. The
export targets of `exports/targets.py` are where the CLI's choices and help, the jail's
check and the docs come from: a new target is an entry there.
"""
from __future__ import annotations

import dataclasses
import inspect
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator import exporting, pipeline
from generator.cli import cli
from generator.exports.targets import TARGETS, Target, shops, tabletops
from generator.layout.cutters import CUTTERS
from generator.layout.modes import MODES
from generator.options import BuildOptions
from generator.session import Session

ROOT = Path(__file__).resolve().parents[1]


def test_options_own_their_units_and_checks():
    options = BuildOptions(papers=("A4", "11x17in"), mode="Duplex-Short", cutter="CRICUT", back_offset=("0.5", -1),
                           languages=())
    assert options.papers == ("a4", "279.4x431.8mm")
    assert (options.mode, options.cutter, options.back_offset, options.languages) == \
        ("duplex-short", "cricut", (0.5, -1.0), None)
    assert BuildOptions(papers=()).papers is None
    for bad, words in ((dict(mode="sideways"), "mode 'sideways' is not one of"),
                       (dict(cutter="scissors"), "cutter 'scissors'"),
                       (dict(back_offset=(25, 0)), "not a printer's misregistration"),
                       (dict(papers=("a9x",)), "paper"),
                       (dict(base_url="ftp://x"), "http:// or https://")):
        with pytest.raises(ValueError, match=re.escape(words)):
            BuildOptions(**bad)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.mode = "fronts-only"   # type: ignore[misc]
    assert options.but(draft=True).draft and not options.draft


def test_the_pipeline_takes_options_beside_a_required_session():
    for function in (pipeline.build, exporting.run_exports, exporting.run_kit):
        params = inspect.signature(function).parameters
        assert "options" in params and params["session"].default is inspect.Parameter.empty, function
        assert len(params) <= 6, function
    assert not hasattr(pipeline, "_validate"), "validate and export use the public stages (check_rules)"


def test_a_bad_option_is_a_usage_error_naming_it(mini):
    root = mini("- {id: a, name: Alpha, text: Words.}")
    result = CliRunner().invoke(cli, ["--root", str(root), "export", "tts", "--base-url", "file:///etc"])
    assert result.exit_code == 2 and "--base-url 'file:///etc'" in result.output and "Traceback" not in result.output


def test_the_cli_choices_come_from_the_tables():
    from generator.cli import commands, options, prints
    from generator.exports.shops import PROFILES

    assert shops() == list(PROFILES), "every print shop of shops.PROFILES is a target"
    assert list(options.MODE.choices) == list(MODES) and list(options.CUTTER.choices) == list(CUTTERS)
    assert list(prints.TARGET.choices) == tabletops()
    export = prints.export_cmd
    profile = next(p for p in export.params if p.name == "profile")
    assert list(profile.type.choices) == shops()
    helped = " ".join(CliRunner().invoke(cli, ["export", "--help"]).output.split())
    for name, target in TARGETS.items():
        assert name in helped and target.what.split(" (")[0] in helped, name
    assert commands.build.params   # the commands are click commands with their options


def test_the_docs_name_every_target():
    guide = (ROOT / "docs" / "guide.md").read_text()
    for name in tabletops():
        assert re.search(rf"pnp export [a-z|]*\b{name}\b", guide), f"docs/guide.md does not show pnp export {name}"
    assert f"--profile {'|'.join(shops())}" in guide
    readme = (ROOT / "README.md").read_text()
    assert f"--profile {'|'.join(shops())}" in readme


def test_a_target_that_runs_a_program_is_refused_in_the_jail_by_the_table():
    assert [name for name, t in TARGETS.items() if t.program] == ["dtc"]
    assert "Ghostscript" in TARGETS["dtc"].program


def test_the_command_line_reads_the_tables_without_the_makers():
    """`pnp --help` stays quick: the targets' and shops' tables import no maker (pikepdf, PDFium...)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import sys, generator.cli; "
                           "print(sorted(m for m in ('pikepdf', 'pypdfium2', 'generator.exports.profiles') "
                           "if m in sys.modules))"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_new_target_is_one_entry(mini, monkeypatch):
    """A target added to the table is exported by run_exports into its own folder, with
    nothing else changed."""
    root = mini("- {id: a, name: Alpha, text: Words.}")
    monkeypatch.setitem(TARGETS, "sample", Target("sample", "a test's target", "png:png_target"))
    results = exporting.run_exports(root, ["mini"], "sample", BuildOptions(dpi=30), Session())
    folder = root / "output" / "mini" / "exports" / "sample"
    assert results[0].target == "sample" and all(f.parent.parent == folder or f.parent == folder
                                                  for f in results[0].files)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["dpi"] == 30 and any(f["path"].endswith(".png") for f in manifest["files"])
