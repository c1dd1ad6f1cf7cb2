"""The hostile-project suite: what a stranger's pull request could do, run as CI runs pnp on it.

    .venv/bin/python -m tests.hostile_suite [CASE...] [--trusted] [--keep]   (make hostile)

Each case is a small project made in a fresh folder beside a folder of the user's own files
(`outside/`, with a canary file), holding one hostile thing: a template injection through
each route, a link planted where pnp writes, a bomb against each bound. `pnp validate` and
`pnp build` run on it as CI runs them (`CI=true`: untrusted mode) under `strace -f`, which
records every program started, file opened, file removed or renamed and connection made by
pnp and its drawing workers: everything from the moment pnp first reads a file of the
project; before it (pnp's own start-up: finding its libraries, git's facts for a version
stamp), any program but those (`STARTUP_PROGRAMS`) and whatever touches the project or the
user's files. A bad outcome is any of:

- a program run (an `execve` that succeeded, after pnp's own start);
- a connection made (a `connect` that succeeded);
- a file outside the project opened that is not on the read-only list (`ALLOWED`), or any
  file outside `output/` opened for writing, made, removed or renamed;
- the canary changed, or the payload's mark file made anywhere;
- a command past the time budget, a process over the memory budget, a traceback, or an
  exit other than 0, 1 or 2 (a process killed by a signal).

It prints one line a case and the bad outcomes, and exits 1 if there is any.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import MINI_BACK, MINI_FRONT

REPO = Path(__file__).resolve().parents[1]
MARK = "PWNED"
BUDGET_S = 60            # --total-time-limit given to every command
MEMORY = "1G"            # --memory-limit given to every command
MEMORY_BYTES = 2**30

FRONT, BACK = MINI_FRONT, MINI_BACK   # the tests' one-deck game
LEAK = "{{ ([range]|keyed('__name__','__globals__'))['_bounded_range']['os'].popen('touch %s').read() }}"
SSTI = [
    LEAK,
    "{{ cycler.__init__.__globals__.os.popen('touch %s').read() }}",
    "{{ self._TemplateReference__context.cycler.__init__.__globals__.os.popen('touch %s') }}",
    "{{ [fill]|keyed('__name__', '__globals__') }}{{ '%s' }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}{# %s #}",
]


@dataclass
class Project:
    root: Path
    outside: Path
    cards: str = "- {id: a, name: Alpha, text: Words.}"
    front: str = FRONT
    deck_extra: str = ""
    files: dict = field(default_factory=dict)       # path in the project -> text
    commands: tuple = (("validate",), ("build", "--paper", "a4"))

    def make(self) -> None:
        game = self.root / "cards" / "mini"
        game.mkdir(parents=True)
        (self.root / "templates" / "mini").mkdir(parents=True)
        (game / "game.yaml").write_text("title: Mini\ndecks: [deck.yaml]\n")
        (game / "deck.yaml").write_text(
            "deck: things\nname: Things\nfront: front.svg.j2\nback: back.svg.j2\n" + self.deck_extra +
            "fields:\n  text: {type: string}\nrequired: [text]\ncards:\n"
            + textwrap.indent(textwrap.dedent(self.cards).strip("\n"), "  ") + "\n")
        (self.root / "templates" / "mini" / "front.svg.j2").write_text(self.front)
        (self.root / "templates" / "mini" / "back.svg.j2").write_text(BACK)
        for name, text in self.files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)


def _with_payload(template: str, payload: str) -> str:
    return template.replace("</svg>", payload.replace("%s", MARK) + "</svg>")


def _link(path: Path, target: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


# --- the cases: name -> what it does to a fresh Project --------------------------------------

def _ssti_template(p, payload):
    p.front = _with_payload(FRONT, payload)


def _ssti_rulebook(p, payload):
    p.files["cards/mini/rulebook.md"] = f"# Rules\n\nPlay.\n\n{payload.replace('%s', MARK)}\n"
    p.files["cards/mini/game.yaml"] = "title: Mini\ndecks: [deck.yaml]\nrulebook: rulebook.md\n"


def _ssti_card_text(p, payload):
    p.front = FRONT.replace("{{ card.name }}", "{{ fill(card.text) }}")
    p.cards = '- {id: a, name: Alpha, text: "' + payload.replace("%s", MARK).replace('"', "'") + '"}'


def _ssti_cell(p, payload):
    p.front = FRONT.replace("{{ card.name }}", "{{ fill(card.text) }}")
    p.cards = ""
    p.deck_extra = "cards: {from: cards.csv}\n"
    cell = payload.replace("%s", MARK).replace('"', '""')
    p.files["cards/mini/cards.csv"] = f'id,name,text\na,Alpha,"{cell}"\n'


def _bomb(source: str) -> Callable:
    def case(p):
        p.front = FRONT.replace("</svg>", source + "</svg>")
    return case


def _slow_faces(p):
    """Every face spends most of its --time-limit: the total budget must stop the build."""
    p.cards = "\n".join(f"- {{id: c{i}, name: C{i}, text: Words.}}" for i in range(400))
    p.front = FRONT.replace("</svg>", "{% for i in range(99999) %}{% for j in range(30) %}{% endfor %}{% endfor %}</svg>")
    p.commands = (("validate", "--total-time-limit", "20"),)


def _markdown_bomb(p):
    p.files["cards/mini/rulebook.md"] = "# Rules\n\n" + "[" * 4_000_000 + "\n"
    p.files["cards/mini/game.yaml"] = "title: Mini\ndecks: [deck.yaml]\nrulebook: rulebook.md\n"


def _huge_export(p):
    p.deck_extra = "size: 2000x2000mm\n"
    p.commands = (("export", "png"),)


def _picture_outside(p):
    p.front = FRONT.replace("</svg>", '<image x="5" y="50" width="20" height="20" href="/etc/passwd"/></svg>')


def _bare_repository(p):
    """The game's folder laid out as a bare git repository whose config names a command."""
    subprocess.run(["git", "init", "-q", str(p.root.parent)], check=True, capture_output=True)
    p.files["HEAD"] = "ref: refs/heads/main\n"
    p.files["objects/info/.keep"] = p.files["refs/heads/.keep"] = ""
    p.files["config"] = ("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n"
                         f'\tfsmonitor = "touch {p.root.parent / MARK}; echo"\n')
    p.commands = (("validate",), ("build", "--paper", "a4", "--stamp", "{version} {date}"))


def _output_linked(p):
    _link(p.root / "output", p.outside)
    p.commands = (("build", "--paper", "a4"), ("clean", "--all"))


def _faces_linked(p):
    _link(p.root / "output" / ".cache" / "faces", p.outside)


def _fonts_tmp_linked(p):
    _link(p.root / "output" / ".cache" / "fonts.tmp", p.outside / "canary.txt")


def _game_folder_linked(p):
    _link(p.root / "output" / "mini", p.outside)
    p.commands = (("build", "--paper", "a4"), ("clean", "--all"))


def _file_linked(p):
    _link(p.root / "output" / "mini" / "mini-sheets-a4.pdf", p.outside / "canary.txt")


CASES: dict[str, Callable] = {
    **{f"ssti-template-{n}": (lambda p, s=s: _ssti_template(p, s)) for n, s in enumerate(SSTI)},
    **{f"ssti-rulebook-{n}": (lambda p, s=s: _ssti_rulebook(p, s)) for n, s in enumerate(SSTI[:3])},
    **{f"ssti-card-text-{n}": (lambda p, s=s: _ssti_card_text(p, s)) for n, s in enumerate(SSTI[:3])},
    "ssti-spreadsheet-cell": lambda p: _ssti_cell(p, LEAK),
    "bomb-star-width": _bomb("{{ '%*d' % (100000000, 1) }}"),
    "bomb-nested-width": _bomb("{{ '{:{}}'.format(1, 100000000) }}"),
    "bomb-join": _bomb("{{ (['x' * 1000000] * 3000)|join }}"),
    "bomb-indent": _bomb("{{ ('a\\n' * 100000)|indent('x' * 100000) }}"),
    "bomb-concat": _bomb("{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
                         "{% endfor %}{{ ns.s|length }}"),
    "bomb-slice": _bomb("{{ [1]|slice(100000000)|list|length }}"),
    "bomb-inf": _bomb("{{ 'inf'|float }}{{ ('inf'|float)|int }}"),
    "slow-every-face": _slow_faces,
    "markdown-bomb": _markdown_bomb,
    "huge-raster-export": _huge_export,
    "picture-outside": _picture_outside,
    "git-bare-repository": _bare_repository,
    "link-output": _output_linked,
    "link-face-cache": _faces_linked,
    "link-fonts-tmp": _fonts_tmp_linked,
    "link-game-folder": _game_folder_linked,
    "link-output-file": _file_linked,
}


# --- watching what pnp does ----------------------------------------------------------------

def allowed_reads(root: Path) -> list[str]:
    """Where pnp may open files for reading: the project, Python and its packages, system
    libraries, fonts and fontconfig, and the few system files a process reads."""
    paths = {str(root), sys.prefix, sys.base_prefix, sys.exec_prefix, sysconfig.get_paths()["purelib"],
             str(REPO / "generator"), "/usr/lib", "/lib", "/lib64", "/usr/lib64", "/usr/local/lib",
             "/usr/share/fonts", "/usr/local/share/fonts", "/usr/share/fontconfig", "/etc/fonts",
             "/var/cache/fontconfig", "/etc/ld.so.cache", "/etc/localtime", "/usr/share/zoneinfo",
             "/dev/null", "/dev/urandom", "/proc/self", "/sys/devices/system/cpu", "/etc/nsswitch.conf",
             "/usr/share/color/icc", "/usr/share/hunspell",
             os.path.expanduser("~/.cache/pnp/cache-key"), os.path.expanduser("~/.cache/fontconfig"),
             os.path.expanduser("~/.fonts"), os.path.expanduser("~/.local/share/fonts"),
             os.path.expanduser("~/.config/fontconfig"),
             os.path.dirname(os.environ.get("FONTCONFIG_FILE", ""))}   # a fontconfig set up by whoever runs pnp
    return sorted(p for p in paths if p)


_CALL = re.compile(r"^(\d+\.\d+) (\w+)\((.*)\)\s+=\s+(-?\d+|\?)")
_PATH = re.compile(r'(?:(?:\d+|AT_FDCWD)<([^>]*)>|AT_FDCWD), "((?:[^"\\]|\\.)*)"')
_FIRST = re.compile(r'^"((?:[^"\\]|\\.)*)"')
_WRITE = re.compile(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC")


def _under(path: str, folders) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def bad_calls(trace_files: list[Path], root: Path, cwd: Path) -> list[str]:
    """What pnp did that it must not, read off strace's per-process files."""
    bad: list[str] = []
    reads, output = allowed_reads(root), str(root / "output")
    calls = []
    for trace in trace_files:
        for line in trace.read_text(errors="replace").splitlines():
            m = _CALL.match(line)
            if m and m.group(4) != "?" and int(m.group(4)) >= 0:    # not refused (by the kernel or pnp)
                calls.append((float(m.group(1)), m.group(2), m.group(3), line))
    project = [str(root / "cards"), str(root / "templates")]
    opened = [t for t, call, args, _ in calls if call in ("openat", "open") and "O_DIRECTORY" not in args
              and _under(_path_of(args, cwd) or "", project)]
    # from the first read of the project on, everything counts; before it (pnp's own start-up:
    # finding its libraries, git's facts for the stamp) only what touches the user's files
    start = min(opened, default=float("inf"))
    mine = str(root.parent)
    for when, call, args, line in sorted(calls):
        line = line.split(" ", 1)[1]
        path = _path_of(args, cwd) if call not in ("execve", "execveat", "connect") else None
        if call in ("execve", "execveat") and when < start and _program(args) in STARTUP_PROGRAMS:
            continue   # pnp's own start-up: finding its libraries, git's facts for a stamp
        if when < start and call not in ("execve", "execveat") and \
                not (path and _under(path, [mine]) and not _under(path, [output])):
            continue
        if call in ("execve", "execveat"):
            bad.append(f"ran a program: {line[:160]}")
            continue
        if call == "connect":
            if "AF_UNIX" not in args:
                bad.append(f"connected: {line[:160]}")
            continue
        if path is None:
            continue
        if call in ("openat", "open"):
            if _WRITE.search(args):
                if not _under(path, [output, "/dev/null"]):
                    bad.append(f"opened for writing outside output/: {path}")
            elif not _under(path, reads):
                bad.append(f"opened outside the project: {path}")
        elif not _under(path, [output]):
            bad.append(f"{call} outside output/: {path}")
    return bad


# what pnp itself runs before it reads the project: ctypes.util.find_library's helpers, git
STARTUP_PROGRAMS = {"python", "python3", "ldconfig", "gcc", "cc", "collect2", "ld", "git"}


def _program(args: str) -> str:
    first = _FIRST.match(args)
    name = os.path.basename(first.group(1)) if first else ""
    return "python" if name.startswith("python") else name


def _path_of(args: str, cwd: Path) -> str | None:
    m = _PATH.search(args)
    if m:
        base, name = m.group(1) or str(cwd), m.group(2)
    else:
        first = _FIRST.match(args)
        if not first:
            return None
        base, name = str(cwd), first.group(1)
    return os.path.normpath(os.path.join(base, name))


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


@dataclass
class Outcome:
    case: str
    command: str
    code: int
    seconds: float
    max_rss: int
    bad: list


def run_case(name: str, make: Callable, work: Path, trusted: bool = False) -> list[Outcome]:
    folder = work / name
    root, outside = folder / "proj", folder / "outside"
    outside.mkdir(parents=True)
    (outside / "canary.txt").write_text("the user's own file\n")
    (outside / "keep").mkdir()
    (outside / "keep" / "notes.txt").write_text("notes\n")
    project = Project(root, outside)
    make(project)
    project.make()
    canary = _digest(outside)
    outcomes = []
    env = {**os.environ, "CI": "true", "PYTHONDONTWRITEBYTECODE": "1"}
    for n, args in enumerate(project.commands):
        traces = folder / f"trace-{n}"
        traces.mkdir()
        extra = ("--trusted",) if trusted and args[0] in ("validate", "build", "export") else ()
        limits = ("--total-time-limit", str(BUDGET_S), "--memory-limit", MEMORY) \
            if args[0] in ("validate", "build") and "--total-time-limit" not in args else ()
        command = [sys.executable, "-m", "generator", "--root", str(root), *args, *extra, *limits]
        probe = ("import resource, subprocess, sys, time; t = time.monotonic(); "
                 "r = subprocess.run(sys.argv[2:], capture_output=True, text=True, timeout=float(sys.argv[1])); "
                 "sys.stdout.write(r.stdout + r.stderr); "
                 "print(f'\\n@@ {r.returncode} {time.monotonic() - t:.1f} "
                 "{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}')")
        strace = ["strace", "-f", "-ff", "-qq", "-y", "-ttt", "-o", str(traces / "t"),
                  "-e", "trace=execve,execveat,connect,open,openat,creat,unlink,unlinkat,rename,renameat,"
                        "renameat2,rmdir,mkdir,mkdirat,symlink,symlinkat,link,linkat,truncate"]
        try:
            done = subprocess.run([sys.executable, "-c", probe, str(BUDGET_S * 3), *strace, *command],
                                  capture_output=True, text=True, env=env, cwd=root, timeout=BUDGET_S * 4)
            text = done.stdout + done.stderr
            tail = re.search(r"@@ (-?\d+) ([\d.]+) (\d+)\s*$", text)
            code, seconds, rss = (int(tail.group(1)), float(tail.group(2)), int(tail.group(3)) * 1024) \
                if tail else (-999, float(BUDGET_S * 3), 0)
        except subprocess.TimeoutExpired:
            text, code, seconds, rss = "", -999, float(BUDGET_S * 4), 0
        bad = bad_calls(sorted(traces.iterdir()), root, root)
        if code not in (0, 1, 2):
            bad.append(f"exit {code}" + (" (past the time budget)" if code == -999 else " (killed)"))
        if seconds > BUDGET_S + 15:
            bad.append(f"took {seconds:.0f} s, past the {BUDGET_S} s budget")
        if rss > MEMORY_BYTES:
            bad.append(f"a process held {rss / 2**20:.0f} MB, over the {MEMORY} budget")
        if "Traceback (most recent call last)" in text:
            bad.append("a traceback: " + text[text.index("Traceback"):][:300].replace("\n", " | "))
        outcomes.append(Outcome(name, " ".join(args), code, seconds, rss, bad))
    after = _digest(outside)
    found_marks = [str(p) for p in folder.rglob(MARK)] + ([MARK] if Path(MARK).exists() else [])
    if after != canary or found_marks:
        outcomes[-1].bad.append(f"the user's files changed or a mark was made: {sorted(set(canary) ^ set(after))} "
                                f"{found_marks}")
    return outcomes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", help="case names (default: all); a prefix picks several")
    parser.add_argument("--trusted", action="store_true", help="without the jail (to see what the second wall adds)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (traces, projects)")
    args = parser.parse_args(argv)
    if not shutil.which("strace"):
        print("strace is needed: apt-get install strace (make hostile installs it)", file=sys.stderr)
        return 2
    chosen = {n: c for n, c in CASES.items() if not args.cases or any(n.startswith(a) for a in args.cases)}
    work = Path(tempfile.mkdtemp(prefix="pnp-hostile-"))
    total_bad = 0
    try:
        for name, make in chosen.items():
            for o in run_case(name, make, work, args.trusted):
                total_bad += len(o.bad)
                state = "ok " if not o.bad else "BAD"
                print(f"{state} {o.case:<24} {o.command:<22} exit {o.code:>3}  {o.seconds:5.1f} s  "
                      f"{o.max_rss / 2**20:5.0f} MB", flush=True)
                for b in o.bad:
                    print(f"      {b}", flush=True)
    finally:
        if args.keep:
            print(f"work folder: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{len(chosen)} cases, {total_bad} bad outcomes")
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
