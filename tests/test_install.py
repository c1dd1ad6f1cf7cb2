"""pnp installed like any tool: a wheel of the project (not an editable install) in a fresh
venv gives a `pnp` that starts a project in an empty folder and builds it at once, with
nothing read from this repository (fonts, schemas, shared macros and the starter game all
come from inside the package).

No network: the wheel is built with this environment's setuptools (--no-build-isolation),
installed with --no-deps, and the fresh venv borrows this environment's dependencies through
a .pth line (their folder is added to sys.path; its own .pth files, and so the editable
install of this checkout, are not read).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pikepdf
import pytest

from tests.conftest import REPO


def sh(*args, **kw):
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300, **kw)
    assert proc.returncode == 0, f"{args}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    return proc.stdout


@pytest.mark.slow   # builds a wheel and a fresh venv
def test_a_wheel_in_a_fresh_venv_starts_and_builds_a_game_in_an_empty_folder(tmp_path):
    source = tmp_path / "source"  # a copy: building writes build/ and *.egg-info beside the sources
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "generator", source / "generator", ignore=shutil.ignore_patterns("__pycache__"))
    wheels = tmp_path / "wheels"
    sh(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
       "-w", wheels, source)
    wheel = next(wheels.glob("pnp_components-*.whl"))

    venv = tmp_path / "venv"
    sh(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    sh(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", wheel)
    site = Path(sh(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())
    (site / "zz_borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    empty = tmp_path / "my-games"
    empty.mkdir()
    env = {"HOME": str(tmp_path), "PATH": f"{venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin", "LANG": "C.UTF-8"}
    where = sh("pnp", "--help", cwd=empty, env=env)
    assert "build" in where
    package = sh(python, "-c", "import generator; print(generator.__file__)", cwd=empty, env=env).strip()
    assert Path(package).is_relative_to(site), package  # the installed copy, not this checkout

    sh("pnp", "new", "demo", "--title", "Demo", cwd=empty, env=env)
    assert (empty / "templates" / "_shared" / "macros.j2").read_text() == \
        (REPO / "generator" / "assets" / "shared" / "macros.j2").read_text()
    assert (empty / "schemas" / "deck.schema.json").is_file()
    sh("pnp", "build", "demo", "--paper", "a4", cwd=empty, env=env)
    sheets = empty / "output" / "demo" / "demo-sheets-a4.pdf"
    with pikepdf.open(sheets) as pdf:
        assert len(pdf.pages) >= 2
        fonts = {str(o["/FontName"]).split("+")[-1] for o in pdf.objects
                 if isinstance(o, pikepdf.Dictionary) and o.get("/Type") == "/FontDescriptor"}
    assert any(f.startswith("Lato") for f in fonts), fonts  # the shipped fonts, from the package
    assert (empty / "output" / "demo" / "demo-rulebook-a4.pdf").is_file()

    # a project without templates/_shared/ uses the macros inside the package
    shutil.rmtree(empty / "templates" / "_shared")
    out = sh("pnp", "validate", "demo", cwd=empty, env=env)
    assert "demo: 3 rules, 0 errors, 0 warnings — OK" in out
    assert sorted(p.name for p in empty.iterdir()) == [".gitignore", "cards", "output", "schemas", "templates"]
