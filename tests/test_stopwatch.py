"""The stage profile: nested stages are charged exclusively, so the rows add up."""
import time

import pytest
from click.testing import CliRunner

from generator.cli import cli
from generator.stopwatch import Stopwatch


def _spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_nested_stage_time_is_not_charged_to_its_parent():
    watch = Stopwatch()
    with watch.stage("outer"):
        _spin(0.05)
        with watch.stage("inner"):
            _spin(0.1)
        _spin(0.05)
    rows = {name: cpu for name, cpu, _ in watch.rows()}
    assert list(rows) == ["outer", "inner"]
    assert 0.09 <= rows["inner"] < 0.14
    assert 0.09 <= rows["outer"] < 0.14   # 0.05 + 0.05, not 0.2


def test_repeated_stages_accumulate_and_other_processes_count_apart():
    watch = Stopwatch()
    for _ in range(3):
        with watch.stage("load"):
            _spin(0.02)
    watch.add_cpu("drawing", 1.5)
    rows = {name: (cpu, wall) for name, cpu, wall in watch.rows()}
    assert 0.055 <= rows["load"][0] < 0.1
    assert rows["drawing"] == (1.5, 0.0)
    # the workers' seconds are not taken from this process's own
    assert abs(watch.untimed_cpu() - (time.process_time() - rows["load"][0])) < 0.05
    assert "drawing" in watch.table() and watch.table().splitlines()[-1].startswith("total")


@pytest.mark.slow
def test_build_timings_prints_every_stage_of_a_build(project, monkeypatch):
    import os

    from generator.stopwatch import Stopwatch

    elsewhere = []
    counted = Stopwatch.add_cpu
    monkeypatch.setattr(Stopwatch, "add_cpu", lambda self, name, s: elsewhere.append(s) or counted(self, name, s))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})   # bundles on two workers: their CPU is counted too
    # MetiKoro: the smallest shipped game with every stage (rules, a rulebook, faces on two workers)
    result = CliRunner().invoke(cli, ["--root", str(project), "build", "metikoro", "--paper", "a4", "--lang", "en", "--timings"])
    assert sum(elsewhere) > 0
    assert result.exit_code == 0, result.output
    table = {line.split("  ")[0].strip(): line.split() for line in result.stderr.splitlines()
             if line and not line.startswith(("stage", "untimed", "metikoro"))}
    for name in ("load", "rules", "jinja", "text fitting", "drawing (CairoSVG)", "form placement",
                 "PDF assembly", "rulebook", "writing", "total"):
        assert name in table, (name, result.stderr)
    assert float(table["drawing (CairoSVG)"][-2]) > 0
