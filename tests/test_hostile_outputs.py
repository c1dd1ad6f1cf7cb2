"""A hostile project or a hostile web page meets what pnp writes and serves: the preview
server (threads, Host header, slow and vanishing clients), rule checks given arguments of
the wrong type, values of 100 kB in every report format, and a disk that fills up.

Every case runs pnp (or its preview server) in a subprocess and asserts a clean ending
(exit 1 or 2 for bad input, 0 for a server that refused a request and went on), no
traceback, no side effect (nothing written outside output/, nothing removed) and a time
bound."""
from __future__ import annotations

import http.client
import json
import re
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import named, run

# ---- the preview server ---------------------------------------------------------------------

FACES_PDF = """
import io, sys
from reportlab.pdfgen import canvas
buf = io.BytesIO()
c = canvas.Canvas(buf, pagesize=(180, 252))
for page in range(8):
    for i in range(120):
        c.setFillColorRGB((i * 7 % 255) / 255, (page * 30 % 255) / 255, 0.5)
        c.circle(10 + i % 17 * 10, 10 + i // 17 * 20, 6 + page, fill=1)
        c.drawString(5, 5 + i, f"page {page} line {i}")
    c.showPage()
c.save()
open(sys.argv[1], "wb").write(buf.getvalue())
"""

# A preview of 8 pages under 64 face keys; prints its port, serves until stdin closes, then
# prints how many times the page state and face images were asked of the build.
SERVER = """
import json, sys
from generator.loop.preview import Preview, serve

class Counted(Preview):
    def __init__(self):
        super().__init__()
        self.asked = {"state": 0, "png": 0}
    def state(self):
        self.asked["state"] += 1
        return super().state()
    def png(self, key, zoomed=False):
        self.asked["png"] += 1
        return super().png(key, zoomed)

pdf = open(sys.argv[1], "rb").read()
preview = Counted()
preview.pages["g"] = {f"k{n}": (pdf, n % 8) for n in range(64)}
server = serve(preview, 0, idle_seconds=float(sys.argv[2]), request_seconds=float(sys.argv[3]))
print(server.server_address[1], flush=True)
sys.stdin.read()
server.shutdown()
print(json.dumps(preview.asked), flush=True)
"""

# 8 threads at once ask the preview for faces it has not drawn yet (each is rasterised)
EIGHT_THREADS = SERVER.replace("""print(server.server_address[1], flush=True)
sys.stdin.read()""", """import threading, urllib.request
base = f"http://127.0.0.1:{server.server_address[1]}"
bad = []
def fetch(t):
    for r in range(int(sys.argv[4])):
        data = urllib.request.urlopen(f"{base}/face/k{r * 8 + t}.png", timeout=60).read()
        if not data.startswith(bytes([137]) + b"PNG"):
            bad.append((t, r))
threads = [threading.Thread(target=fetch, args=(t,)) for t in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not bad, bad""")


@pytest.fixture(scope="module")
def faces_pdf(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("preview") / "faces.pdf"
    subprocess.run([sys.executable, "-c", FACES_PDF, str(path)], check=True, timeout=60)
    return path


class Server:
    """The preview server in a subprocess (its own stderr, its own exit code)."""

    def __init__(self, pdf: Path, cwd: Path, idle: float = 10.0, request: float = 30.0):
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER, str(pdf), str(idle), str(request)], cwd=cwd,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.port = int(self.proc.stdout.readline())

    def get(self, path: str, host: str | None = None) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.putrequest("GET", path, skip_host=True)
        if host is not None:
            conn.putheader("Host", host)
        conn.endheaders()
        response = conn.getresponse()
        body = response.read()
        conn.close()
        return response.status, body

    def stop(self) -> tuple[int, dict, str]:
        """(exit code, what was asked of the build, stderr)."""
        out, err = self.proc.communicate("", timeout=30)
        return self.proc.returncode, json.loads(out.strip().splitlines()[-1]), err


@pytest.mark.slow
def test_eight_threads_rasterising_through_the_preview_at_once_do_not_crash(faces_pdf, tmp_path):
    """PDFium aborts the interpreter when two threads call it at once: the preview draws one
    face at a time. Without the lock this run dies (SIGABRT, SIGSEGV) most of the time.
    Eight rounds of eight threads: each of the 64 faces rasterised once, alongside seven
    others (as many as two runs of four rounds made, one start-up fewer)."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", EIGHT_THREADS, str(faces_pdf), "10", "60", "8"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=150)
    assert done.returncode == 0, f"the preview died (exit {done.returncode}): {done.stderr[-2000:]}"
    assert json.loads(done.stdout.splitlines()[-1])["png"] == 64
    assert "Traceback" not in done.stderr and time.monotonic() - started < 150
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_request_naming_another_host_is_refused_without_touching_the_build(faces_pdf, tmp_path):
    """DNS rebinding: a page on evil.example whose name now points at 127.0.0.1."""
    server = Server(faces_pdf, tmp_path)
    started = time.monotonic()
    port = server.port
    try:
        for host in ("evil.example", f"evil.example:{port}", "127.0.0.1", f"localhost:{port + 1}",
                     f"127.0.0.1.evil.example:{port}", "", None):
            for path in ("/", "/state.json", "/face/k0.png"):
                status, body = server.get(path, host)
                assert status == 403, (host, path, status)
                assert b"k0" not in body and b"version" not in body
        assert server.get("/state.json", f"127.0.0.1:{port}")[0] == 200
        assert server.get("/face/k1.png", f"localhost:{port}")[0] == 200
    finally:
        code, asked, err = server.stop()
    assert code == 0 and asked == {"state": 1, "png": 1}, asked  # only the two good requests reached it
    assert err == "" and time.monotonic() - started < 60
    assert list(tmp_path.iterdir()) == []


def _closed_after(sock: socket.socket, limit: float, trickle: bytes = b"") -> float:
    """Seconds until the server closes `sock` (sending `trickle` a byte at a time meanwhile)."""
    started = time.monotonic()
    sock.settimeout(0.1)
    sent = 0
    while time.monotonic() - started < limit:
        try:
            if sock.recv(1024) == b"":
                return time.monotonic() - started
        except TimeoutError:
            pass
        except ConnectionResetError:
            return time.monotonic() - started
        if sent < len(trickle):
            try:
                sock.send(trickle[sent:sent + 1])
            except OSError:
                return time.monotonic() - started
            sent += 1
            time.sleep(0.1)
    pytest.fail(f"the connection was still open after {limit} s")


@pytest.mark.slow   # waits out the server's timeouts
def test_idle_and_slow_connections_are_closed_after_their_timeouts(faces_pdf, tmp_path):
    server = Server(faces_pdf, tmp_path, idle=0.5, request=2.0)
    try:
        with socket.create_connection(("127.0.0.1", server.port)) as idle:
            assert 0.3 < _closed_after(idle, 10) < 3   # sends nothing: closed after 0.5 s
        with socket.create_connection(("127.0.0.1", server.port)) as slow:  # a byte every 0.2 s (slowloris)
            trickle = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Slow: " + b"a" * 200
            assert 1.5 < _closed_after(slow, 10, trickle) < 4.5   # the request's own deadline, 2 s
        assert server.get("/state.json", f"127.0.0.1:{server.port}")[0] == 200   # still serving
    finally:
        code, asked, err = server.stop()
    assert code == 0 and err == "", err
    assert list(tmp_path.iterdir()) == []


def _reset(sock: socket.socket) -> None:
    """Close with a TCP reset, as a browser tab closed mid-load may."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


@pytest.mark.slow   # waits for the server to notice
def test_a_client_that_goes_away_mid_answer_leaves_no_traceback(faces_pdf, tmp_path):
    server = Server(faces_pdf, tmp_path)
    started = time.monotonic()
    try:
        for n in range(12):
            sock = socket.create_connection(("127.0.0.1", server.port))
            sock.sendall(f"GET /face/k{n}.png HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
            if n % 2:
                sock.recv(10)   # the answer has begun
            _reset(sock)
        for path in ("/", "/state.json"):
            sock = socket.create_connection(("127.0.0.1", server.port))
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
            _reset(sock)
        time.sleep(0.5)   # the server has met the resets
        assert server.get("/face/k20.png", f"127.0.0.1:{server.port}")[0] == 200
    finally:
        code, asked, err = server.stop()
    assert code == 0 and "Traceback" not in err and err == "", err
    assert time.monotonic() - started < 60 and list(tmp_path.iterdir()) == []


def test_every_pdfium_call_goes_through_the_one_lock():
    """PDFium is imported only where its calls hold `pdfiumlock.PDFIUM`; elsewhere a
    document is opened through `pdfium_document`, which holds it."""
    pnp = Path(__file__).resolve().parents[1] / "generator"
    callers = sorted(str(p.relative_to(pnp)) for p in pnp.rglob("*.py")
                     if re.search(r"^\s*(import|from) pypdfium2", p.read_text(), re.M))
    assert callers == ["exports/pdfx/convert.py", "exports/raster.py", "pdfiumlock.py"], callers
    assert "with PDFIUM:" in (pnp / "exports" / "raster.py").read_text()
    for user in ("exports/pdfx/convert.py", "layout/seams.py"):
        assert "with pdfium_document(" in (pnp / user).read_text(), user
    from generator.pdfiumlock import PDFIUM

    done = threading.Event()
    with PDFIUM:
        t = threading.Thread(target=lambda: (PDFIUM.acquire(), PDFIUM.release(), done.set()))
        t.start()
        assert not done.wait(0.2)   # another thread waits while one holds it
    assert done.wait(5)


# ---- a project run as a user would, in a subprocess ------------------------------------------

def pnp(root: Path, *args: str, timeout: float = 120, prelude: str = "") -> subprocess.CompletedProcess:
    """`pnp --root ROOT ARGS` in a fresh interpreter (after `prelude`, which may patch it)."""
    code = prelude + "\nimport sys\nfrom generator.cli import main\nmain(sys.argv[1:])\n"
    return subprocess.run([sys.executable, "-c", code, "--root", str(root), *args], cwd=root,
                          capture_output=True, text=True, timeout=timeout)


def tree(root: Path, skip: str = "output") -> dict:
    """Every file and folder under `root` (but `skip`) with its size: what a run may not touch."""
    return {p.relative_to(root).as_posix(): (p.stat().st_size if p.is_file() else -1)
            for p in sorted(root.rglob("*")) if p.relative_to(root).parts[0] != skip}


def validated_here(root: Path, codes=(2,)) -> str:
    """`pnp validate --no-render` in this process (click's runner, as test_cli does): it
    ended with one of `codes`, by a clean exit and not an escaped exception, and printed no
    traceback; returns what it printed. For the rule-argument cases, many and alike: a fresh
    interpreter each would cost a second of start-up apiece."""
    result = run(root, "validate", "--no-render")
    escaped = result.exception if not isinstance(result.exception, SystemExit) else None
    assert escaped is None, f"{type(escaped).__name__}: {escaped}"
    assert result.exit_code in codes, f"exit {result.exit_code}: {result.output[-3000:]}"
    assert "Traceback" not in result.output, result.output[-3000:]
    return result.output


def clean(done: subprocess.CompletedProcess, codes=(1, 2)) -> str:
    """The run ended with one of `codes` and no traceback; returns what it printed."""
    printed = done.stdout + done.stderr
    assert done.returncode in codes, f"exit {done.returncode}: {printed[-3000:]}"
    assert "Traceback" not in printed, printed[-3000:]
    return printed


RULE = "  - id: r-{n}\n    message: m\n    check: {check}\n    args: {args}\n"
MINI_CARDS = "\n".join(f'- {{id: c{n}, name: Card {n}, text: "Words {n}.", cost: {n % 3}}}' for n in range(6))


def _rules(root: Path, rules: list[tuple[str, dict]]) -> dict[int, int]:
    """Write rules.yaml with one rule per (check, args); returns {rule number: its args line}."""
    text, lines = "rules:\n", {}
    for n, (check, args) in enumerate(rules):
        lines[n] = text.count("\n") + 4
        text += RULE.format(n=n, check=check, args=json.dumps(args))
    (root / "cards" / "mini" / "rules.yaml").write_text(text)
    named(root / "cards" / "mini", "rules")
    return lines


WRONG = {"a": ["x"]}   # a mapping of a list of text: no check argument takes this

# selections that give data of the wrong shape, at run time (`game.title` is text)
SELECTING_WRONG = {
    "ranges_cover": {"rows": "game.title", "from": 0, "to": 10},
    "track_lines_well_formed": {"items": "game.title"},
    "track_lines_match": {"items": "game.title", "table": "game.title"},
    "track_symmetry": {"items": "game.title"},
    "board_fields": {"quarter": "game.title"},
    "fixed_track_fields": {"quarter": ["HH", "GG"], "pieces": "game.title", "on": ["H"], "enters": ["G"]},
    "enough_alike": {"rows": "game.title", "items": "game.title", "match": ["suit"], "min": 1},
    "draw_odds": {"draw": {"from": "game.title", "cards": 2}, "where": "cost == `1`", "at_least": 1, "p_min": 0.5},
    "pack_odds": {"from": "game.title", "slots": [{"cards": 1}], "where": "cost == `1`", "p_min": 0.5},
    "deal_odds": {"from": "game.title", "rows": "game.title", "where": "cost == `1`", "p_min": 0.5},
}
# what the probe tried: AttributeError (`counts` a list), IndexError (`quarter` empty)
PROBED = [("board_fields", {"quarter": "game.title", "counts": [1, 2]}),
          ("board_fields", {"quarter": []}),
          ("fixed_track_fields", {"quarter": [], "pieces": [], "on": ["H"], "enters": ["G"]}),
          ("fixed_track_fields", {"quarter": ["HH", "GG"], "pieces": [{"x": 9, "y": 0, "lines": []}],
                                  "on": ["H"], "enters": ["G"]}),
          ("ranges_cover", {"rows": [{"min": 0}], "from": 0, "to": 3})]


def _check_names():
    from generator.rules.checks import CHECKS
    return sorted(CHECKS)


@pytest.mark.parametrize("check", _check_names())
def test_each_registered_check_given_wrongly_typed_args_is_a_clean_error(mini, check):
    """One rule per argument of the check, each argument of a type it does not take: every
    one is reported at once, naming rules.yaml, the line, the rule and the argument (exit 2)."""
    from generator.rules.checks import CHECKS

    schema = CHECKS[check].args_schema
    assert schema["properties"] and set(schema["required"]) <= set(schema["properties"])
    root = mini(MINI_CARDS)
    names = sorted(schema["properties"])
    lines = _rules(root, [(check, {name: WRONG}) for name in names] + [(check, {"typo": 1})])
    before = tree(root)
    started = time.monotonic()
    printed = validated_here(root)
    assert time.monotonic() - started < 60
    for n, name in enumerate(names):
        assert re.search(rf"^cards/mini/rules\.yaml:{lines[n]}: error: mini/schema: rule r-{n}: args\.{name}(\.\S+)?: ",
                         printed, re.M), printed
    assert f"rule r-{len(names)}: args.typo: unknown key 'typo'" in printed
    assert tree(root) == before and not (root / "output").exists()


@pytest.mark.parametrize("check", _check_names())
def test_each_registered_check_given_selections_of_the_wrong_shape_cannot_run_cleanly(mini, check):
    assert set(SELECTING_WRONG) == set(_check_names()), "a new check needs its case here"
    root = mini(MINI_CARDS)
    _rules(root, [(check, SELECTING_WRONG[check])])
    before = tree(root)
    started = time.monotonic()
    printed = validated_here(root)
    assert time.monotonic() - started < 60
    assert "mini/r-0: the rule cannot run: args." in printed and "gives 'Mini'" in printed, printed
    assert tree(root) == before


@pytest.mark.parametrize("check, args", PROBED)
def test_the_probes_wrong_args_are_clean_errors(mini, check, args):
    root = mini(MINI_CARDS)
    line = _rules(root, [(check, args)])[0]
    started = time.monotonic()
    printed = validated_here(root)
    assert time.monotonic() - started < 60
    assert f"cards/mini/rules.yaml:{line}: error: mini/schema: rule r-0: args." in printed or \
        "mini/r-0: the rule cannot run: args." in printed, printed
    assert "AttributeError" not in printed and "IndexError" not in printed


HUGE = "x" * 100_000


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "json", "github", "junit"])
def test_a_100_kb_value_is_cut_in_every_output_format(mini, fmt):
    root = mini(f'- {{id: huge, name: Huge, text: "{HUGE}"}}\n- {{id: small, name: Small, text: "Short."}}')
    (root / "cards" / "mini" / "rules.yaml").write_text(
        "rules:\n  - id: short-texts\n    message: 'text is {found}, card {name}'\n"
        "    for_each: decks.things.cards\n    expect: it.text\n    one_of: ['Short.']\n"
        "  - id: any-text\n    message: 'first text is {found}'\n    select: decks.things.cards\n"
        "    expect: 'it[0].text'\n    equals: 'Short.'\n")
    named(root / "cards" / "mini", "rules")
    before = tree(root)
    started = time.monotonic()
    done = run(root, "validate", "--no-render", "--format", fmt)   # in this process: the printing is tested
    escaped = done.exception if not isinstance(done.exception, SystemExit) else None
    assert escaped is None, f"{type(escaped).__name__}: {escaped}"
    printed = done.output
    assert done.exit_code == 1 and "Traceback" not in printed, printed[-3000:]
    assert time.monotonic() - started < 60
    assert "x" * 1001 not in printed and len(printed) < 20_000, len(printed)
    assert "… (100" in printed   # where a value was cut, and how long it was
    if fmt == "json":
        findings = [f for g in json.loads(done.stdout)["games"] for f in g["findings"]]
        assert {f["rule"] for f in findings} == {"short-texts", "any-text", "spelling"}   # the word too, cut
        assert all(f["found"].startswith("xxx") and f["found"].endswith("… (100000 characters)") for f in findings)
        assert all(len(f["message"]) < 1100 for f in findings)
    if fmt == "junit":
        import xml.etree.ElementTree as ET
        assert ET.fromstring(done.stdout.split("\n", 1)[1]).get("failures") == "2"
    assert tree(root) == before


# ---- a disk that fills up ----------------------------------------------------------------

def full_disk(monkeypatch, budget: int, scope: str) -> None:
    """The disk is full after `budget` more bytes: a write past it writes what fits and fails
    with ENOSPC. `scope` "files": the writes of a game's file set (exports/files.py); "all":
    every write into output/ (the face cache's and the memo's too), by path or by the folder
    descriptor safefs opens a file by. Patched in this process for one run (the failing run
    is pnp's code as any run: a process of its own adds nothing but a second of start-up)."""
    import builtins
    import errno
    import os

    import generator.exports.files as files

    left = [budget]
    real_open = builtins.open

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def write(self, data):
            if len(data) > left[0]:
                self.fh.write(bytes(data[:left[0]]))
                left[0] = 0
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            left[0] -= len(data)
            return self.fh.write(data)

        def __getattr__(self, name):
            return getattr(self.fh, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    def full_open(file, mode="r", *args, **kwargs):
        fh = real_open(file, mode, *args, **kwargs)
        # a file pnp opens by its folder's descriptor (generator/safefs.py) is named by a number
        return Full(fh) if "w" in mode and ("output" in str(file) or isinstance(file, int)) else fh

    if scope == "files":
        monkeypatch.setattr(files, "open", full_open, raising=False)
    else:
        monkeypatch.setattr(builtins, "open", full_open)


def _staging(out: Path) -> list[str]:
    return [p.relative_to(out).as_posix() for p in out.rglob("*") if ".new-" in p.name or p.name.endswith(".tmp")]


@pytest.mark.slow
@pytest.mark.parametrize("command, budget, scope", [
    (("build", "mini", "--paper", "a4"), 30_000, "files"),   # the disk fills mid-way through the set
    (("build", "mini", "--paper", "a4"), 0, "all"),          # ...before anything: the face cache fails first
    (("export", "png", "mini", "--dpi", "100"), 40_000, "files"),
    (("export", "--profile", "dtc", "mini", "--trusted"), 10_000, "files"),   # Ghostscript: trusted where CI is set
])
def test_a_full_disk_leaves_no_partial_folder_and_a_clean_error(mini, monkeypatch, command, budget, scope):
    root = mini(MINI_CARDS)
    ok = run(root, *command)   # the files the full disk must leave alone: made in this process
    assert ok.exit_code == 0, ok.output
    out = root / "output"
    target = out / "mini" if command[0] == "build" else out / "mini" / "exports" / command[2 if command[1] == "--profile" else 1]
    kept = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file() and ".cache" not in p.parts}
    deck = root / "cards" / "mini" / "deck.yaml"
    deck.write_text(deck.read_text().replace("Words 2.", "Other words 2."))   # new faces: the face cache writes too
    before = tree(root)
    started = time.monotonic()
    full_disk(monkeypatch, budget, scope)
    result = run(root, *command)
    monkeypatch.undo()
    escaped = result.exception if not isinstance(result.exception, SystemExit) else None
    assert escaped is None, f"{type(escaped).__name__}: {escaped}"
    printed = result.output
    assert result.exit_code == 2 and "Traceback" not in printed, printed[-3000:]
    assert time.monotonic() - started < 90
    assert "No space left on device" in printed and "cannot write" in printed, printed
    assert str(out) in printed   # names what could not be written
    assert _staging(out) == [], "a partial folder or file was left behind"
    now = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file() and ".cache" not in p.parts}
    assert now == kept, "the previous files changed"
    assert target.is_dir() and tree(root) == before
