"""docs/tutorial.md is followed step by step: every ```sh block runs, in order, in a fresh
folder, with only the PATH the tutorial documents (`make install` links ~/.local/bin/pnp;
the system's own commands), so the tutorial can never go stale."""
from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pikepdf
import pytest

from tests.conftest import REPO

TUTORIAL = REPO / "docs" / "tutorial.md"


def sh_blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```$", text, flags=re.S | re.M)


def stand_in_font(downloads: Path) -> None:
    """What step 6 assumes the reader downloaded: a font whose family is "Space Serif" (a copy
    of the DejaVu Serif pnp ships, renamed) and its licence."""
    from fontTools.ttLib import TTFont

    from generator.draw.fonts import FONT_DIR

    downloads.mkdir(parents=True)
    font = TTFont(FONT_DIR / "DejaVuSerif.ttf")
    for record in font["name"].names:
        if record.nameID in (1, 16):
            record.string = "Space Serif"
        elif record.nameID in (4, 6):
            record.string = "SpaceSerif-Regular"
    font.save(downloads / "SpaceSerif.ttf")
    shutil.copy(FONT_DIR / "licenses" / "dejavu-core.txt", downloads / "SpaceSerif-LICENSE.txt")


@pytest.mark.slow   # runs the tutorial's commands in fresh processes
def test_tutorial_steps_run_as_written(tmp_path):
    blocks = sh_blocks(TUTORIAL.read_text())
    assert len(blocks) >= 6
    home, games = tmp_path / "home", tmp_path / "games"
    games.mkdir()
    venv = Path(sys.executable).parents[1]  # the environment these tests run in (make test: .venv)
    installed = subprocess.run(["make", "-s", "-C", str(REPO), "-o", f"{venv}/.installed", f"VENV={venv}",
                                f"HOME={home}", "install"], capture_output=True, text=True, timeout=120)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert (home / ".local" / "bin" / "pnp").resolve() == (venv / "bin" / "pnp").resolve()
    stand_in_font(home / "Downloads")
    path = os.pathsep.join([str(home / ".local" / "bin"), "/usr/local/bin", "/usr/bin", "/bin"])
    env = {"HOME": str(home), "PATH": path, "LANG": "C.UTF-8"}  # nothing else: no venv, no PYTHONPATH
    for n, block in enumerate(blocks, start=1):
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=games, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"step {n} failed:\n{block}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    sheets = games / "output" / "space-race" / "space-race-sheets-a4.pdf"
    with pikepdf.open(io.BytesIO(sheets.read_bytes())) as pdf:
        fonts = {str(o["/FontName"]).split("+")[-1] for o in pdf.objects
                 if isinstance(o, pikepdf.Dictionary) and o.get("/Type") == "/FontDescriptor"
                 and "/FontFile2" in o}
    assert "SpaceSerif-Regular" in fonts, fonts  # the game's own font, embedded
