"""docs/tutorial.md is followed step by step: every ```sh block runs, in order, in a fresh
folder, so the tutorial can never go stale."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pikepdf

from tests.conftest import REPO

TUTORIAL = REPO / "docs" / "tutorial.md"


def sh_blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```$", text, flags=re.S | re.M)


def test_tutorial_steps_run_as_written(tmp_path):
    blocks = sh_blocks(TUTORIAL.read_text())
    assert len(blocks) >= 6
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    env.pop("PNP_FONTCONFIG_ACTIVE", None)  # each pnp run sets up its own fonts, as for a user
    env.pop("FONTCONFIG_FILE", None)
    for n, block in enumerate(blocks, start=1):
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"step {n} failed:\n{block}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    sheets = tmp_path / "output" / "space-race" / "space-race-sheets-a4.pdf"
    with pikepdf.open(io.BytesIO(sheets.read_bytes())) as pdf:
        fonts = {str(o["/FontName"]).split("+")[-1] for o in pdf.objects
                 if isinstance(o, pikepdf.Dictionary) and o.get("/Type") == "/FontDescriptor"
                 and "/FontFile2" in o}
    assert "SpaceSerif-Regular" in fonts, fonts  # the game's own font, embedded
