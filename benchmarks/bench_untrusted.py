"""Benchmark: what the jail of an untrusted build costs (generator/jail.py). The five shipped
games are built cold (`pnp build --paper a4`, a fresh copy of cards/ and templates/ each
time), with `--trusted` and with `--untrusted`, interleaved, for a few rounds; the figure is
the CPU of the whole process tree (the build and its drawing workers, from
getrusage(RUSAGE_CHILDREN)), median over the rounds, and the ratio untrusted / trusted
(the target is at most 1.03). Also printed: the peak address space (VmPeak) of the build's
main process, which the memory rlimit (--memory-limit, 2 GiB by default) bounds.

    python benchmarks/bench_untrusted.py [--rounds 3]
"""
from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the build's main process reports its own peak address space as it exits (from a file it
# opened before the jail, which hides /proc)
PEAK = ("import atexit, sys\n"
        "status = open('/proc/self/status')\n"
        "def peak():\n"
        "    status.seek(0)\n"
        "    for line in status:\n"
        "        if line.startswith('VmPeak'):\n"
        "            sys.stderr.write('VMPEAK ' + line.split()[1] + '\\n')\n"
        "atexit.register(peak)\n"
        "from generator.cli import main\nmain(sys.argv[1:])\n")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(work: Path, mode: str) -> tuple[float, float, int]:
    """(CPU s, wall s, VmPeak kB) of one cold build of the shipped games."""
    if work.exists():
        shutil.rmtree(work)
    for name in ("cards", "templates"):
        shutil.copytree(ROOT / name, work / name)
    before, started = _children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK, "--root", str(work), "build", "--paper", "a4", mode],
                          capture_output=True, text=True, cwd=work)
    wall, cpu = time.perf_counter() - started, _children_cpu() - before
    if done.returncode != 0:
        sys.exit(f"pnp build {mode} failed:\n{done.stderr[-3000:]}")
    if "lacks" in done.stderr:
        print(f"note: {[line for line in done.stderr.splitlines() if 'lacks' in line][0]}")
    peak = max((int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("VMPEAK ")), default=0)
    return cpu, wall, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    cpu: dict[str, list[float]] = {"--trusted": [], "--untrusted": []}
    peak: dict[str, int] = {"--trusted": 0, "--untrusted": 0}
    with tempfile.TemporaryDirectory(prefix="pnp-untrusted-") as tmp:
        for n in range(args.rounds):
            order = ("--trusted", "--untrusted") if n % 2 == 0 else ("--untrusted", "--trusted")
            for mode in order:
                c, w, p = run_once(Path(tmp) / "work", mode)
                cpu[mode].append(c)
                peak[mode] = max(peak[mode], p)
                print(f"round {n + 1} {mode:<12} cpu {c:6.2f} s  wall {w:6.2f} s  VmPeak {p / 1024:6.0f} MiB",
                      flush=True)
    trusted, untrusted = statistics.median(cpu["--trusted"]), statistics.median(cpu["--untrusted"])
    print(f"five shipped games, pnp build --paper a4, median CPU of {args.rounds} rounds: trusted {trusted:.2f} s, "
          f"untrusted {untrusted:.2f} s, ratio {untrusted / trusted:.3f} (target <= 1.03)")
    print(f"VmPeak of the build's process: trusted {peak['--trusted'] / 1024:.0f} MiB, "
          f"untrusted {peak['--untrusted'] / 1024:.0f} MiB (the memory budget: 2048 MiB)")


if __name__ == "__main__":
    main()
