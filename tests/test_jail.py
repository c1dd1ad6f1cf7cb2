"""The jail of an untrusted build (generator/jail.py): the kernel, not the template sandbox,
refuses a payload that escaped. Every run is the `pnp` program in a subprocess (the jail is
one-way), some with the Jinja sandbox switched off ON PURPOSE by a prelude, to prove the
second wall holds on its own."""
from __future__ import annotations

import ctypes
import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from generator import jailbridge
from generator.draw.templates import Sandbox
from tests.conftest import run

REPO = Path(__file__).resolve().parents[1]
needs_walls = pytest.mark.skipif(not (jailbridge.landlock_abi() >= 3 and jailbridge.seccomp_available()),
                                 reason="this kernel lacks Landlock (ABI 3) or seccomp")
pytestmark = pytest.mark.slow   # each test starts pnp in a fresh process

NO_SANDBOX = """
from generator.draw.templates import Sandbox
Sandbox.is_safe_attribute = lambda self, obj, attr, value: True   # the first wall down, on purpose
Sandbox.is_safe_callable = lambda self, obj: True
"""

PAYLOAD = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
{% set g = cycler.__init__.__globals__ %}{% set b = g.__builtins__ %}
{% if card.text == 'system' %}<desc>{{ g.os.system('touch MARK/system') }}</desc>
{% elif card.text == 'popen' %}<desc>{{ g.os.popen('touch MARK/popen').read() }}</desc>
{% elif card.text == 'passwd' %}<text x="1" y="5" font-family="Lato" font-size="1">{{ b.open('/etc/passwd').read()[:40]|e }}</text>
{% elif card.text == 'connect' %}<desc>{{ b.__import__('socket').create_connection(('127.0.0.1', PORT), 3).close() }}</desc>
{% elif card.text == 'outside' %}<desc>{{ b.open('MARK/outside', 'w').write('x') }}</desc>
{% endif %}<rect width="5" height="5"/>
</svg>
"""
CARDS = "\n".join(f"- {{id: {name}, name: {name}, text: {name}}}" for name in
                  ("system", "popen", "passwd", "connect", "outside"))


def pnp(root: Path, *args: str, prelude: str = "", ci: bool = False, timeout: float = 300):
    """`pnp --root ROOT ARGS` as the program runs (cli.main), in a fresh interpreter, with
    CI set or not (whatever the environment running the tests has)."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    code = prelude + "\nimport sys\nfrom generator.cli import main\nmain(sys.argv[1:])\n"
    return subprocess.run([sys.executable, "-c", code, "--root", str(root), *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=timeout)


def unjailed(monkeypatch, root: Path, *args: str):
    """`pnp --root ROOT ARGS` with the Jinja sandbox down (as NO_SANDBOX), run in this process
    without the jail (the control of a jail test: the payloads work when nothing stops them;
    no process of its own is needed for that, and none is jailed). ARGS say --trusted."""
    assert "--trusted" in args
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(Sandbox, "is_safe_attribute", lambda self, obj, attr, value: True)
    monkeypatch.setattr(Sandbox, "is_safe_callable", lambda self, obj: True)
    return run(root, *args)


@pytest.fixture
def hostile(mini, tmp_path):
    """(project, marker folder, listening server): a game whose faces, the sandbox off, run
    commands, read /etc/passwd, connect to the server and write outside the project."""
    marks = tmp_path / "marks"
    marks.mkdir()
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    front = PAYLOAD.replace("MARK", str(marks)).replace("PORT", str(server.getsockname()[1]))
    root = mini(CARDS, front=front)
    yield root, marks, server
    server.close()


def accepted(server: socket.socket) -> bool:
    try:
        server.accept()[0].close()
        return True
    except TimeoutError:
        return False


@needs_walls
def test_an_escaped_template_is_refused_by_the_kernel(hostile, monkeypatch):
    root, marks, server = hostile
    done = pnp(root, "build", "--paper", "a4", "--untrusted", prelude=NO_SANDBOX)
    said = done.stdout + done.stderr
    assert done.returncode == 2, said[-3000:]
    assert sorted(p.name for p in marks.iterdir()) == []    # no command ran, nothing written outside
    assert "root:x:0" not in said and "Permission denied" in said
    assert not accepted(server)
    assert "Traceback" not in said
    # the same payloads without the jail: each of them works (the test proves what it claims)
    done = unjailed(monkeypatch, root, "build", "--paper", "a4", "--trusted")
    assert sorted(p.name for p in marks.iterdir()) == ["outside", "popen", "system"], done.output[-3000:]
    assert accepted(server)


@needs_walls
def test_ci_turns_the_jail_on_and_trusted_turns_it_off(hostile):
    root, marks, _ = hostile
    pnp(root, "validate", prelude=NO_SANDBOX, ci=True)
    assert not (marks / "system").exists()
    pnp(root, "validate", "--trusted", prelude=NO_SANDBOX, ci=True)
    assert (marks / "system").exists()


FORTY = "\n".join(f"- {{id: c{n}, name: C{n}, text: T{n}}}" for n in range(40))


def forty_cards(root: Path) -> Path:
    """The `mini` game (conftest) of 40 cards in `root`: for a fixture wider than one test."""
    from tests.conftest import MINI_BACK, MINI_FRONT

    for folder in ("cards", "templates"):
        (root / folder / "mini").mkdir(parents=True)
    (root / "cards" / "mini" / "game.yaml").write_text("title: Mini\ndecks: [deck.yaml]\n")
    (root / "cards" / "mini" / "deck.yaml").write_text(
        "deck: things\nname: Things\nfront: front.svg.j2\nback: back.svg.j2\nfields:\n  text: {type: string}\n"
        "  cost: {type: integer, minimum: 0}\nrequired: [text]\ncards:\n" + textwrap.indent(FORTY, "  ") + "\n")
    (root / "templates" / "mini" / "front.svg.j2").write_text(MINI_FRONT)
    (root / "templates" / "mini" / "back.svg.j2").write_text(MINI_BACK)
    return root


# A drawing worker, as it starts a bundle, tries what escaped code would: run a program, read
# /etc/passwd, read a file another program keeps in /dev/shm (SECRET) and leave one there
# (named LEFT-<its pid>). What it met goes to WORKERS and SHM in the build's output/.
WORKER_SPY = """
import ctypes
import json
import os
import generator.session
from generator.draw import drawpool
generator.session.usable_cpus = lambda: 2
MAIN = os.getpid()
drawn = drawpool._draw_in_worker

def spying(*args, **kwargs):
    said = os.system('touch MARKS/worker-ran-a-program')
    try:
        open('/etc/passwd').read()
        read = 'read'
    except OSError as exc:
        read = type(exc).__name__
    with open('WORKERS', 'a') as f:
        f.write(f'{os.getpid() != MAIN} {said != 0} {read}\\n')
    try:
        secret = open('SECRET').read()
    except OSError as exc:
        secret = type(exc).__name__
    left = 'LEFT-' + str(os.getpid())
    if not os.path.exists(left):
        os.close(os.open(left, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    with open('SHM', 'a') as f:
        f.write(f'{secret}\\n')
    return drawn(*args, **kwargs)
drawpool._draw_in_worker = spying
"""


@pytest.fixture(scope="module")
def spied_workers(tmp_path_factory):
    """One untrusted build of 40 cards, drawn by two workers spied on (WORKER_SPY), shared by
    the tests of what a worker meets in the jail: (project, its marker folder, the secret
    /dev/shm file, the prefix of what a worker leaves there, the finished pnp process)."""
    if not Path("/dev/shm").is_dir():
        pytest.skip("no /dev/shm")
    base = tmp_path_factory.mktemp("workers")
    root = forty_cards(base / "proj")
    marks = base / "marks"
    marks.mkdir()
    secret = Path("/dev/shm") / f"pnp-test-secret-{os.getpid()}"
    secret.write_text("another program's memory")
    left = f"/dev/shm/pnp-left-by-{os.getpid()}-"
    try:
        done = pnp(root, "build", "--paper", "a4", "--untrusted", prelude=spy(root, marks, secret, left))
        yield root, marks, secret, left, done
    finally:
        secret.unlink()
        for found in Path("/dev/shm").glob(f"pnp-left-by-{os.getpid()}-*"):
            found.unlink()


def spy(root: Path, marks: Path, secret: Path, left: str) -> str:
    out = root / "output"
    for name, value in (("MARKS", str(marks)), ("WORKERS", str(out / "workers.txt")), ("SHM", str(out / "shm.txt")),
                        ("SECRET", str(secret)), ("LEFT-", left)):
        assert repr(value)[1:-1] == value   # a plain path: no quoting needed inside the prelude's strings
    return (WORKER_SPY.replace("MARKS", str(marks)).replace("WORKERS", str(out / "workers.txt"))
            .replace("SHM", str(out / "shm.txt")).replace("SECRET", str(secret)).replace("LEFT-", left))


@needs_walls
def test_the_drawing_workers_are_confined_too(spied_workers):
    """Faces drawn in forked workers (two, whatever the cores) still cannot run a program nor
    read outside: the jail is inherited, not re-applied."""
    root, marks, _, _, done = spied_workers
    assert done.returncode == 0, done.stderr[-3000:]
    lines = set((root / "output" / "workers.txt").read_text().splitlines())
    assert lines == {"True True PermissionError"}
    assert not (marks / "worker-ran-a-program").exists()


@needs_walls
def test_dev_shm_is_a_private_empty_folder_for_the_jailed_build(spied_workers, tmp_path):
    """The drawing workers' queues need semaphore files in /dev/shm, so the jail lets the build
    write there: into an empty tmpfs of its own (a user and a mount namespace), not the
    system's, where other programs keep their shared memory. A file planted there by another
    process cannot be read, and what the build leaves there is gone with it."""
    root, _, secret, left, done = spied_workers
    assert done.returncode == 0, done.stderr[-3000:]
    seen = set((root / "output" / "shm.txt").read_text().splitlines())
    assert {line.split()[0] for line in seen} == {"FileNotFoundError"}, seen
    assert list(Path("/dev/shm").glob(Path(left).name + "*")) == []
    assert secret.read_text() == "another program's memory"
    # the same spy, untrusted off: the system's /dev/shm (the test proves what it claims)
    again = forty_cards(tmp_path / "proj")   # (a face cache of its own: every face drawn again)
    marks = tmp_path / "marks"
    marks.mkdir()
    pnp(again, "build", "--paper", "a4", "--trusted", prelude=spy(again, marks, secret, left))
    assert "another program's memory" in (again / "output" / "shm.txt").read_text()
    assert list(Path("/dev/shm").glob(Path(left).name + "*")) != []


@needs_walls
def test_where_dev_shm_cannot_be_made_private_the_build_draws_in_one_process(mini):
    """A system that refuses user namespaces (Ubuntu's AppArmor rule) keeps /dev/shm out of
    the jail's reach altogether: the build draws its faces itself, says so, and still works."""
    root = mini("\n".join(f"- {{id: c{n}, name: C{n}, text: T{n}}}" for n in range(40)))
    prelude = f"""
import multiprocessing
import generator.session
from generator import jailbridge
from generator.draw import bundlepdf, drawpool
generator.session.usable_cpus = lambda: 2
jailbridge.private_tmpfs = lambda path, options: "refused here, for the test"
drawn = drawpool.draw_bundle

def spying(*args, **kwargs):
    import gc
    with open({str(root / 'output' / 'where.txt')!r}, 'a') as f:
        f.write(f'{{multiprocessing.parent_process() is None}} {{gc.get_freeze_count() > 0}}\\n')
    return drawn(*args, **kwargs)
drawpool.draw_bundle = spying
"""
    done = pnp(root, "build", "--paper", "a4", "--untrusted", prelude=prelude)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "drawing on one core: /dev/shm could not be made private (refused here, for the test)" in done.stderr
    # (and what the untrusted command imported before its jail is frozen: memory.imported,
    # tests/test_startup.py; nothing else in a build drawn in one process freezes)
    assert set((root / "output" / "where.txt").read_text().splitlines()) == {"True True"}


@needs_walls
def test_a_diff_draws_the_git_ref_inside_the_jail(hostile, monkeypatch):
    """pnp diff REF renders the faces of REF's templates, a stranger's too: git unpacks REF
    before the jail, and the drawing happens inside it (it ran unjailed before)."""
    root, marks, _ = hostile
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "the payload"], cwd=root, check=True)
    for front in [root / "templates" / "mini" / "front.svg.j2"]:   # now harmless: only REF's face runs code
        front.write_text(front.read_text().split("{% set g")[0] + '<rect width="5" height="5"/></svg>\n')
    done = pnp(root, "diff", "HEAD", "--untrusted", prelude=NO_SANDBOX)
    said = done.stdout + done.stderr
    assert sorted(p.name for p in marks.iterdir()) == [], said[-3000:]
    assert "root:x:0" not in said and "Traceback" not in said, said[-3000:]
    done = unjailed(monkeypatch, root, "diff", "HEAD", "--trusted")
    assert "system" in [p.name for p in marks.iterdir()], done.output[-3000:]


@needs_walls
def test_an_untrusted_build_of_a_shipped_game_is_the_same_bytes(tmp_path, all_builds):
    """In the jail, MetiKoro's A4 files are those the run's trusted build wrote."""
    for name in ("cards", "templates"):
        shutil.copytree(REPO / name, tmp_path / name)
    done = pnp(tmp_path, "build", "metikoro", "--paper", "a4", "--untrusted", "--output", str(tmp_path / "untrusted"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "lacks" not in done.stderr
    trusted = all_builds["metikoro"]
    files = sorted(p.relative_to(trusted) for p in trusted.rglob("*-a4.*"))
    assert len(files) >= 3
    for f in files:
        assert (trusted / f).read_bytes() == (tmp_path / "untrusted" / "metikoro" / f).read_bytes(), f


def test_strict_refuses_where_a_wall_is_missing_and_on_goes_on_saying_which(mini):
    root = mini("- {id: a, name: A, text: A}")
    missing = "\nimport generator.jailbridge as bridge\nbridge.seccomp_available = lambda: False\n"
    done = pnp(root, "validate", "--untrusted=strict", prelude=missing)
    assert done.returncode == 2
    assert "--untrusted=strict: this system lacks seccomp" in done.stderr and "Traceback" not in done.stderr
    done = pnp(root, "validate", "--untrusted", prelude=missing)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if "lacks" in line]
    assert lines == ["pnp: --untrusted: this system lacks seccomp (programs can be run, sockets opened); going on "
                     "with the other walls (--untrusted=strict refuses instead)"]


def test_an_output_folder_that_is_a_link_is_refused(mini, tmp_path):
    root = mini("- {id: a, name: A, text: A}")
    (tmp_path / "elsewhere").mkdir()
    (root / "output").symlink_to(tmp_path / "elsewhere")
    done = pnp(root, "validate", "--untrusted")
    assert done.returncode == 2 and "is a link" in done.stderr and "Traceback" not in done.stderr


def test_running_out_of_the_memory_budget_is_a_clean_exit(mini):
    """The memory rlimit holds in every mode: an allocation past --memory-limit is a
    MemoryError, worded with the budget and the stage, exit 2, no traceback."""
    root = mini("- {id: a, name: A, text: A}")
    prelude = ("\nimport generator.pipeline as p\nloaded = p.load_game\n"
               "p.load_game = lambda *a, **k: (bytearray(3 * 2**30), loaded(*a, **k))[1]\n")
    done = pnp(root, "build", "--memory-limit", "512M", prelude=prelude)
    assert done.returncode == 2, done.stderr[-3000:]
    assert ("error: pnp ran out of its memory budget of 512 MiB (--memory-limit) while pnp build was at its "
            "'load' stage") in done.stderr
    assert "Traceback" not in done.stderr


@needs_walls
def test_git_runs_before_the_jail_for_a_stamp_and_a_git_ref_is_refused(mini):
    root = mini("- {id: a, name: A, text: A}")
    game = root / "cards" / "mini" / "game.yaml"
    game.write_text(game.read_text() + "print: {stamp: 'v{version} {date}'}\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "one"], cwd=root, check=True)
    done = pnp(root, "validate", "--untrusted")
    assert done.returncode == 0, done.stdout + done.stderr
    done = pnp(root, "build", "--untrusted", "--changed-since", "HEAD")
    assert done.returncode == 2 and "--changed-since last, or --trusted" in done.stderr


@needs_walls
def test_the_cache_key_is_read_before_the_jail_and_an_untrusted_rebuild_uses_the_cache(mini, tmp_path, monkeypatch):
    """The key lives outside the project (~/.cache/pnp), where the jail does not let pnp read:
    it is read before, so an untrusted rebuild draws nothing again."""
    monkeypatch.delenv("PNP_CACHE_KEY", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    root = mini("- {id: a, name: Alpha, text: Words.}")
    first = pnp(root, "build", "--paper", "a4", "--untrusted")
    again = pnp(root, "build", "--paper", "a4", "--untrusted")
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    assert "cache key" not in first.stderr + again.stderr, again.stderr
    assert "drawing 0 of 1 bundles" in again.stderr, again.stderr
    assert (tmp_path / "home-cache" / "pnp" / "cache-key").stat().st_size == 32


def test_a_folder_laid_out_as_a_bare_repository_cannot_run_a_command_through_git(mini, tmp_path, monkeypatch):
    """A pull request cannot commit a .git folder, but it can commit a game's folder laid out
    as a bare repository whose config names a command (core.fsmonitor): git found it from
    the project folder and ran it while pnp asked for the stamp's facts, before the jail."""
    root = mini("- {id: a, name: Alpha, text: Words.}")
    mark = tmp_path / "FSMONITOR-RAN"
    (root / "HEAD").write_text("ref: refs/heads/main\n")
    for folder in ("objects/info", "refs/heads"):
        (root / folder).mkdir(parents=True)
        (root / folder / ".keep").write_text("")
    (root / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n"
                                 f'\tfsmonitor = "touch {mark}; echo"\n')
    env = {k: v for k, v in os.environ.items() if k not in ("GIT_DIR", "GIT_WORK_TREE")}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env)   # the checkout around it
    done = pnp(root, "validate", "--untrusted")
    assert "Traceback" not in done.stderr, done.stderr
    assert not mark.exists(), done.stderr
    # a trusted build asks git for the stamp's facts too: in this process (the jail plays no part)
    monkeypatch.delenv("CI", raising=False)
    done = run(root, "build", "--paper", "a4", "--stamp", "{version} {date}", "--trusted")
    assert "Traceback" not in done.output and isinstance(done.exception, (SystemExit, type(None))), done.output
    assert not mark.exists(), done.output


MANY_STEPS = ("{% set big = 'x' * 999000 %}{% set ns = namespace(l=[]) %}{% for i in range(3000) %}"
              "{% set ns.l = ns.l + [big ~ i] %}{% endfor %}<desc>{{ ns.l|length }}</desc></svg>")


@pytest.mark.parametrize("args", [("export", "png"), ("kit", "mini"), ("diff", "HEAD")])
def test_export_kit_and_diff_keep_the_memory_budget(mini, args):
    """Each step within its bound, 3 GB together: exports, kits and diffs had no budget (a
    hostile review); now the memory limit is theirs too, a clean exit 2."""
    from tests.conftest import MINI_FRONT

    root = mini("- {id: a, name: Alpha, text: Words.}", front=MINI_FRONT.replace("</svg>", MANY_STEPS))
    if args[0] == "diff":
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(root), "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x"],
                       check=True)
        (root / "cards/mini/deck.yaml").write_text((root / "cards/mini/deck.yaml").read_text().replace("Words", "Other"))
    done = pnp(root, *args, "--memory-limit", "768M")
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    said = done.stderr + done.stdout
    assert "memory budget" in said or "more than this machine can hold" in said, said[-2000:]
    assert "Traceback" not in done.stderr + done.stdout, done.stderr[-2000:]


@needs_walls
def test_an_export_is_jailed_where_ci_is_set_and_ghostscript_needs_trusted(mini):
    root = mini("- {id: a, name: Alpha, text: Words.}")
    done = pnp(root, "export", "png", ci=True)
    assert done.returncode == 0 and (root / "output/mini/exports/png").is_dir(), done.stderr
    done = pnp(root, "export", "--profile", "dtc", ci=True)
    assert done.returncode == 2 and "Ghostscript" in done.stderr and "--trusted" in done.stderr, done.stderr


@needs_walls
def test_an_untrusted_build_writes_to_an_output_folder_outside_the_project(mini, tmp_path):
    """--output names a folder outside the project, not yet made: the jail grants it, and the
    writer reaches it without listing the folder that holds it."""
    root = mini("- {id: a, name: Alpha, text: Words.}")
    out = tmp_path / "elsewhere" / "out"
    done = pnp(root, "build", "--paper", "a4", "--untrusted", "--output", str(out))
    assert done.returncode == 0, done.stderr[-2000:]
    assert (out / "mini" / "manifest.json").is_file()


def after_the_jail(attack: str, report: Path, before: str = "") -> str:
    """A prelude running `attack` (Python, filling the dict `found`) in the pnp process right
    after it confined itself, as code that escaped the template sandbox would; the findings go
    to `report` as JSON and the process ends there (nothing of the project needs reading)."""
    body = "\n".join("    " + line for line in attack.strip().splitlines())
    return f"""
import ctypes, json, os
from generator import jail, jailbridge
{before}
confine = jail.confine
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.shmat.restype = ctypes.c_void_p

def call(*args):
    ctypes.set_errno(0)
    result = libc.syscall(*args)
    return result if result >= 0 else os.strerror(ctypes.get_errno())

def confined(*args, **kwargs):
    done = confine(*args, **kwargs)
    found = {{}}
{body}
    with open({str(report)!r}, "w") as f:
        json.dump(found, f)
    os._exit(0)
jail.confine = confined
"""


SHM_KEY = 0x706E70   # "pnp": a System V segment another program of this user keeps


@needs_walls
def test_other_programs_system_v_shared_memory_is_out_of_reach(mini, tmp_path):
    """System V shared memory is no file: Landlock does not see it, so seccomp refuses its
    calls. Without that the jailed build read and wrote another program's segment, and left
    segments of any size behind (memory filled until the next reboot)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    theirs = libc.shmget(SHM_KEY, 4096, 0o1000 | 0o600)
    if theirs < 0:
        pytest.skip("System V shared memory unavailable")
    where = libc.shmat(theirs, None, 0)
    ctypes.memmove(where, b"another program's memory\0", 25)
    libc.shmdt(ctypes.c_void_p(where))
    root = mini("- {id: c, name: C, text: T}")
    report = root / "output" / "found.json"   # (the one folder the jail lets it write)
    attack = f"""
sid = libc.shmget({SHM_KEY}, 0, 0)
at = libc.shmat(sid, None, 0) if sid >= 0 else None
found["read"] = ctypes.string_at(at).decode() if at not in (None, 2**64 - 1) else os.strerror(ctypes.get_errno())
left = libc.shmget(0, 1 << 20, 0o1000 | 0o600)
found["left"] = left
if left >= 0:
    libc.shmctl(left, 0, None)   # IPC_RMID: the test leaves nothing behind either
"""
    try:
        pnp(root, "validate", "--untrusted", prelude=after_the_jail(attack, report))
        found = json.loads(report.read_text())
        assert found == {"read": "Operation not permitted", "left": -1}, found
        pnp(root, "validate", "--trusted", prelude=after_the_jail(attack, report))   # the test proves what it claims
        assert json.loads(report.read_text())["read"] == "another program's memory"
    finally:
        libc.shmctl(theirs, 0, None)


@needs_walls
def test_the_user_namespace_gives_no_mount_right_even_without_landlock(mini, tmp_path):
    """The private /dev/shm makes the build root of a user namespace of its own, which may
    mount there; seccomp must refuse the new mount calls as it refuses mount(2), or on a
    kernel without Landlock (untrusted=on goes on) the private tmpfs outgrows its 4 MiB
    (fspick + fsconfig) and is moved away, showing the system's /dev/shm (move_mount)."""
    if not Path("/dev/shm").is_dir():
        pytest.skip("no /dev/shm")
    root = mini("- {id: c, name: C, text: T}")
    report = root / "output" / "found.json"   # (the one folder the jail lets it write)
    secret = Path("/dev/shm") / f"pnp-test-system-{os.getpid()}"
    secret.write_text("another program's memory")
    attack = f"""
os.mkdir({str(root / 'output' / 'away')!r})
fs = call(433, -100, b"/dev/shm", 1)   # fspick
if isinstance(fs, int):
    found["grow"] = [call(431, fs, 1, b"size", b"1g", 0), call(431, fs, 7, None, None, 0)]
else:
    found["grow"] = fs
found["size"] = os.statvfs("/dev/shm").f_blocks * os.statvfs("/dev/shm").f_frsize
found["move"] = call(429, -100, b"/dev/shm", -100, {str(root / 'output' / 'away').encode()!r}, 0)
found["setattr"] = call(442, -100, b"/dev/shm", 0, (ctypes.c_uint64 * 4)(0, 4, 0, 0), 32)   # noexec cleared
found["tmpfs"] = call(430, b"tmpfs", 1)   # fsopen
found["clone"] = call(428, -100, b"/", 1 | 0x8000)   # open_tree(OPEN_TREE_CLONE | AT_RECURSIVE)
try:
    found["seen"] = sorted(os.listdir("/dev/shm"))
except OSError as exc:
    found["seen"] = exc.strerror
"""
    try:
        done = pnp(root, "validate", "--untrusted", prelude=after_the_jail(attack, report, before="""
jailbridge.landlock_abi = lambda: 0   # a kernel without Landlock: untrusted=on goes on with the other walls
"""))
        found = json.loads(report.read_text())
        refused = "Operation not permitted"
        assert found == {"grow": refused, "size": 4 * 2**20, "move": refused, "setattr": refused,
                         "tmpfs": refused, "clone": refused, "seen": []}, (found, done.stderr[-2000:])
    finally:
        secret.unlink()


def committed(root: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "the reference"], cwd=root, check=True)


@needs_walls
def test_git_unpacks_a_diffs_reference_within_the_memory_budget(mini, tmp_path):
    """git archive of the ref and its unpacking run before the jail now, but still under
    --memory-limit (as they did inside the command before): a ref whose blobs inflate to
    gigabytes is bounded."""
    root = mini("- {id: c, name: C, text: T}")
    committed(root)
    seen = tmp_path / "rlimit.txt"
    prelude = f"""
import resource
from generator import changes
checkout = changes.checkout

def spying(*args, **kwargs):
    with open({str(seen)!r}, "w") as f:
        f.write(str(resource.getrlimit(resource.RLIMIT_AS)[0]))
    return checkout(*args, **kwargs)
changes.checkout = spying
"""
    # (below the 2 GiB default: a test process may have lowered its own soft limit to that, and a
    # limit is never raised)
    done = pnp(root, "diff", "HEAD", "--untrusted", "--memory-limit", "1500M", prelude=prelude)
    assert int(seen.read_text()) == 1500 * 2**20, done.stderr[-2000:]


@needs_walls
def test_a_reference_holding_a_link_outside_is_refused_in_words(mini):
    """tarfile's data filter refuses a link of the ref's tree leading outside: a clear error
    (exit 2, no traceback), and no half-unpacked folder left in output/.cache/refs."""
    root = mini("- {id: c, name: C, text: T}")
    (root / "cards" / "mini" / "secret.yaml").symlink_to("/etc/passwd")
    committed(root)
    (root / "cards" / "mini" / "secret.yaml").unlink()
    done = pnp(root, "diff", "HEAD", "--untrusted")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "cards/mini/secret.yaml" in done.stderr
    assert list((root / "output" / ".cache" / "refs").iterdir()) == []
