"""The hostile-project suite (tests/hostile_suite.py, `make hostile`) holds: a few of its
cases run here under strace, and its reading of a trace is checked on a made-up one."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests import hostile_suite as suite

needs_strace = pytest.mark.skipif(not shutil.which("strace"), reason="strace is not installed (make test installs it)")


@pytest.mark.slow   # pnp under strace
@needs_strace
@pytest.mark.parametrize("case", ["ssti-card-text-0", "link-face-cache"])   # the rest: make hostile
def test_a_hostile_project_has_no_bad_outcome(case, tmp_path):
    outcomes = suite.run_case(case, suite.CASES[case], tmp_path)
    assert outcomes and all(o.code in (0, 1, 2) for o in outcomes)
    assert [b for o in outcomes for b in o.bad] == []


def test_the_suite_sees_a_program_run_a_file_read_and_a_file_deleted(tmp_path):
    root = tmp_path / "proj"
    trace = tmp_path / "t.1"
    trace.write_text("\n".join([
        '1.0 execve("/usr/bin/python", ["python"], 0x0 /* 1 vars */) = 0',              # pnp's own start
        f'2.0 openat(AT_FDCWD<{root}>, "cards/mini/game.yaml", O_RDONLY|O_CLOEXEC) = 3',  # the project is read
        '3.0 execve("/usr/bin/id", ["id"], 0x0 /* 1 vars */) = 0',
        '3.1 execve("/usr/bin/id", ["id"], 0x0 /* 1 vars */) = -1 EPERM (Operation not permitted)',
        '3.2 openat(AT_FDCWD</x>, "/etc/passwd", O_RDONLY) = 4',
        '3.3 openat(AT_FDCWD</x>, "/etc/shadow", O_RDONLY) = -1 EACCES (Permission denied)',
        f'3.4 unlinkat(5<{tmp_path}/outside>, "notes.txt", 0) = 0',
        f'3.5 openat(6<{root}/output/mini>, "sheets.pdf", O_WRONLY|O_CREAT|O_EXCL, 0644) = 7',
        '3.6 connect(8<socket:[1]>, {sa_family=AF_INET, sin_port=htons(80)}, 16) = 0',
    ]) + "\n")
    bad = suite.bad_calls([trace], root, root)
    assert len(bad) == 4, bad
    assert "ran a program" in bad[0] and "/usr/bin/id" in bad[0]
    assert bad[1] == "opened outside the project: /etc/passwd"
    assert bad[2] == f"unlinkat outside output/: {tmp_path}/outside/notes.txt"
    assert bad[3].startswith("connected")
    assert Path(root).name == "proj"
