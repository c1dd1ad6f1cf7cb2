"""The byte pin: a change that should change no output is checked against the code of REF.

    python -m tests.bytepin REF [--exports]      (make bytepin REF=main)

Builds every shipped game and edition (`pnp build`) with the code of the working tree and
with the code of git REF (a worktree of REF, run with this venv), each into a folder of
its own with a cold cache, and compares every file byte for byte; `--exports` also
compares the exports (png, tts, tabletopia and a kit of MetiKoro, The Game Crafter's
files of Olympians). Exit 0 when every file is identical, 1 with the list of those that
differ. A refactor (issue 36: options, tables, the session) must pass it; a change meant
to change bytes says so in its commit instead.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPORTS = (("export", "png", "metikoro"), ("export", "tts", "metikoro"), ("export", "tabletopia", "metikoro"),
           ("kit", "metikoro"), ("export", "--profile", "tgc", "olympians", "--lang", "en"))


def outputs(code: Path, out: Path, exports: bool) -> dict[str, str]:
    """Every file the code at `code` writes for the shipped games into `out`, by its sha256."""
    env = {**os.environ, "PYTHONPATH": str(code), "SOURCE_DATE_EPOCH": "1700000000"}
    env.pop("CI", None)
    runs = [("build",), *(EXPORTS if exports else ())]
    for args in runs:
        done = subprocess.run([sys.executable, "-m", "generator", "--root", str(ROOT), *args, "--output", str(out),
                               "--trusted"], cwd=code, env=env, capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"{' '.join(args)} failed with the code of {code}:\n{done.stderr[-3000:]}")
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file() and ".cache" not in p.relative_to(out).parts}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ref", help="the git ref whose code the working tree's must write the same bytes as")
    parser.add_argument("--exports", action="store_true", help="compare exports too")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bytepin-") as scratch:
        tree = Path(scratch) / "ref"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), args.ref], check=True)
        try:
            out = Path(scratch) / "output"   # one place for both: manifests and tts name their folder
            before = outputs(tree, out, args.exports)
            shutil.rmtree(out)
            after = outputs(ROOT, out, args.exports)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
    differ = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    print(f"{len(after)} files written; {len(differ)} differ from {args.ref}")
    for name in differ:
        print(f"  {name}: {'missing' if name not in after else 'new' if name not in before else 'changed'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
