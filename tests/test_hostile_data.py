"""Hostile spreadsheets and hostile servers for `pnp pull` (issue 22, deliverable 4).

Every case runs the command a designer or a CI job would run and asserts: a clean exit 1 or 2
with a message naming the file, no traceback, nothing changed outside output/ (nothing
deleted, nothing created), and an answer within a time bound. The servers are real local web
servers (http.server in a thread) serving good CSV, web pages, a redirect to ftp://, a slow
endless answer and a huge one.
"""
from __future__ import annotations

import http.server
import os
import threading
import time
import zipfile
from pathlib import Path

import openpyxl
import pytest

from generator.data.download import sheet_url
from tests.conftest import run
from tests.test_spreadsheets import with_table

BOUND_S = 30  # far above the second or two these take; far below the minutes they took


def files_outside_output(root: Path) -> dict:
    """Every file and link under root but output/, with its size and content hash."""
    seen = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        if rel.parts[:1] == ("output",):
            continue
        for name in filenames + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]:
            path = Path(dirpath) / name
            if path.is_symlink():
                seen[str(rel / name)] = os.readlink(path)
            else:
                seen[str(rel / name)] = path.read_bytes() if path.is_file() else f"special {path.lstat().st_mode:o}"
    return seen


def clean(result, codes=(1, 2)):
    """A clean refusal: the expected exit code, a message, no traceback."""
    assert result.exit_code in codes, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output and result.output.strip()


def timed_run(root, *args):
    started = time.monotonic()
    result = run(root, *args)
    elapsed = time.monotonic() - started
    assert elapsed < BOUND_S, f"took {elapsed:.1f} s"
    return result


@pytest.fixture
def sheet_game(mini):
    """A one-deck game whose cards come from `cards/mini/<name>`; returns (root, folder, use)."""
    root = mini("- {id: a, name: A, text: x}")
    folder = root / "cards" / "mini"

    def use(name: str):
        with_table(folder / "deck.yaml", f"{{from: {name}}}")
        return folder / name
    return root, folder, use


def refused(root, name, needle=None):
    """`pnp validate` refuses the sheet cleanly and in time, naming it; nothing outside output/ changes."""
    before = files_outside_output(root)
    result = timed_run(root, "validate", "--no-render")
    clean(result, codes=(2,))
    assert f"cards/mini/{name}" in result.output, result.output
    if needle:
        assert needle in result.output, result.output
    assert files_outside_output(root) == before
    return result.output


# ---- spreadsheets: sizes checked before parsing, every reader's failure a clean error ------------

def test_a_33_mb_workbook_is_refused_before_it_is_parsed(sheet_game):
    root, folder, use = sheet_game
    path = use("cards.xlsx")
    book = openpyxl.Workbook()
    book.active.append(["id", "name", "text"])
    book.save(path)
    with zipfile.ZipFile(path, "a", zipfile.ZIP_STORED) as zf:  # a real workbook carrying 33 MB of pictures
        zf.writestr("xl/media/image1.png", os.urandom(33 * 2**20))
    assert path.stat().st_size > 33 * 2**20
    refused(root, "cards.xlsx", "pnp reads spreadsheets of at most 16 MB")


def _bomb(path, member, head: bytes, repeat: bytes, tail: bytes, mb: int, extra=()):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in extra:
            zf.writestr(name, data)
        with zf.open(member, "w", force_zip64=True) as out:
            out.write(head)
            block = repeat * (2**20 // len(repeat))
            for _ in range(mb):
                out.write(block)
            out.write(tail)


@pytest.mark.slow
def test_an_xlsx_zip_bomb_is_refused_by_its_declared_size(sheet_game):
    root, folder, use = sheet_game
    path = use("cards.xlsx")
    book = openpyxl.Workbook()
    book.active.append(["id", "name", "text"])
    book.save(path)
    with zipfile.ZipFile(path) as zf:
        parts = [(i.filename, zf.read(i)) for i in zf.infolist() if i.filename != "xl/worksheets/sheet1.xml"]
    _bomb(path, "xl/worksheets/sheet1.xml", b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/'
          b'2006/main"><sheetData>', b'<row><c t="inlineStr"><is><t>x</t></is></c></row>', b"</sheetData></worksheet>",
          100, parts)
    assert path.stat().st_size < 2 * 2**20
    refused(root, "cards.xlsx", "pnp reads workbooks of at most 64 MB unpacked")


@pytest.mark.slow
def test_an_ods_zip_bomb_is_refused_by_its_declared_size(sheet_game):
    root, folder, use = sheet_game
    path = use("cards.ods")
    ns = (b'<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          b'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          b'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>'
          b'<table:table table:name="S">')
    _bomb(path, "content.xml", ns, b"<table:table-row><table:table-cell/></table:table-row>",
          b"</table:table></office:spreadsheet></office:body></office:document-content>", 100,
          [("mimetype", "application/vnd.oasis.opendocument.spreadsheet")])
    assert path.stat().st_size < 2 * 2**20
    refused(root, "cards.ods", "unpacked")


ODS_HEAD = ('<?xml version="1.0"?>{dtd}<office:document-content '
            'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
            'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
            'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>'
            '<table:table table:name="S">')
ODS_TAIL = "</table:table></office:spreadsheet></office:body></office:document-content>"


def write_ods_xml(path, rows_xml: str, dtd: str = ""):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        zf.writestr("content.xml", ODS_HEAD.format(dtd=dtd) + rows_xml + ODS_TAIL)


def cell(text):
    return f'<table:table-cell office:value-type="string"><text:p>{text}</text:p></table:table-cell>'


@pytest.mark.parametrize("rows, needle", [
    # a value repeated across a million columns, or a row of values repeated a billion times
    ("<table:table-row>" + cell("id") + cell("name") + cell("text") + "</table:table-row>"
     '<table:table-row><table:table-cell office:value-type="string" table:number-columns-repeated="5000000">'
     "<text:p>x</text:p></table:table-cell></table:table-row>", "more than 1,000,000 cells"),
    ("<table:table-row>" + cell("id") + cell("name") + cell("text") + "</table:table-row>"
     '<table:table-row table:number-rows-repeated="1000000000">' + cell("a") + cell("A") + cell("x") +
     "</table:table-row>", "more than 100,000 rows"),
    # trailing empty cells and rows, as LibreOffice writes them, cost nothing
])
def test_ods_repeats_are_bounded_by_the_cell_and_row_limits(sheet_game, rows, needle):
    root, folder, use = sheet_game
    write_ods_xml(use("cards.ods"), rows)
    refused(root, "cards.ods", needle)


def test_ods_trailing_repeats_as_libreoffice_writes_them_are_free(sheet_game):
    root, folder, use = sheet_game
    write_ods_xml(use("cards.ods"), "<table:table-row>" + cell("id") + cell("name") + cell("text") +
                  '<table:table-cell table:number-columns-repeated="16381"/></table:table-row>'
                  "<table:table-row>" + cell("a") + cell("Alpha") + cell("x  y") +
                  '<table:table-cell table:number-columns-repeated="16381"/></table:table-row>'
                  '<table:table-row table:number-rows-repeated="1048574"><table:table-cell '
                  'table:number-columns-repeated="16384"/></table:table-row>')
    started = time.monotonic()
    result = run(root, "validate", "--no-render")
    assert result.exit_code == 0, result.output
    assert time.monotonic() - started < BOUND_S


@pytest.mark.parametrize("name, content, needle", [
    ("cards.xlsx", b"this is not a zip at all", "not an XLSX file"),
    ("cards.ods", b"PK\x03\x04 truncated zip", "not an ODS file"),
    ("cards.xlsx", None, "cannot read it as XLSX"),                 # a zip, but no workbook in it
    ("cards.ods", "zip-no-content", "no content.xml"),
    ("cards.ods", ODS_HEAD.format(dtd="") + "<table:table-row><unclosed>", "cannot read it as ODS"),
    ("cards.ods", ODS_HEAD.format(dtd='<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>')
     + "<table:table-row>" + cell("&b;") + "</table:table-row>" + ODS_TAIL, "cannot read it as ODS"),
    ("cards.ods", ODS_HEAD.format(dtd="") + '<table:table-row><table:table-cell office:value-type="float" '
     'office:value="lots"/></table:table-row>' + ODS_TAIL, "cannot read it as ODS"),
    ("cards.csv", b"\xff\xfe\x00", "not valid UTF-16"),             # a UTF-16 byte-order mark, then half a character
    ("cards.csv", b"id,name,text\na,\x00A,x\n", "cards.csv"),       # a NUL byte
    ("cards.csv", b"id,name,text\na,\"" + b"y" * 200_000 + b"\",x\n", "field larger than field limit"),
])
def test_unreadable_sheets_are_clean_errors_naming_the_file(sheet_game, name, content, needle):
    root, folder, use = sheet_game
    path = use(name)
    if content is None:
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("hello.txt", "not a workbook")
    elif content == "zip-no-content":
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
    elif isinstance(content, str):
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("content.xml", content)
    else:
        path.write_bytes(content)
    refused(root, name, needle)


@pytest.mark.slow
def test_a_300_mb_one_line_csv_is_refused_by_its_size(sheet_game):
    root, folder, use = sheet_game
    path = use("cards.csv")
    with open(path, "wb") as f:  # sparse: 300 MB on paper, nothing on disk
        f.write(b"id,name,text\n")
        f.truncate(300 * 2**20)
    refused(root, "cards.csv", "it is 300.0 MB")


def test_a_fifo_for_a_sheet_is_refused_without_reading_it(sheet_game):
    root, folder, use = sheet_game
    os.mkfifo(use("cards.csv"))
    refused(root, "cards.csv", "not a regular file")


def test_random_bytes_for_a_csv_are_a_clean_error(sheet_game):
    root, folder, use = sheet_game
    use("cards.csv").write_bytes(bytes(range(1, 256)) * 40 + os.urandom(4000).replace(b"\x00", b"."))
    clean(timed_run(root, "validate", "--no-render"), codes=(2,))


def test_a_windows_1252_sheet_is_read_not_a_traceback(sheet_game):
    root, folder, use = sheet_game
    use("cards.csv").write_bytes("id,name,text\na,Café,Crème brûlée – 2\n".encode("cp1252"))
    result = timed_run(root, "validate", "--no-render")
    assert result.exit_code == 0 and "Windows-1252" in result.output, result.output


# ---- pnp pull: a temporary file of its own, http(s) only, bounded, tables only --------------------

GOOD = "id,name,text\na,Alpha,First\nb,Beta,Second\n"


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, body: bytes, kind="text/csv", code=200, headers=()):
        self.send_response(code)
        self.send_header("Content-Type", kind)
        for k, v in headers:
            self.send_header(k, v)
        if body is not None:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/good.csv":
            self._send(GOOD.encode())
        elif path == "/page":
            self._send(b"<!DOCTYPE html><html><body>Sign in to continue</body></html>", "text/html")
        elif path == "/page-as-text":
            self._send(b"<!doctype html>\n<html><head><title>x</title></head></html>", "text/plain")
        elif path == "/to-ftp":
            self._send(b"", code=302, headers=[("Location", "ftp://127.0.0.1/secret.csv")])
        elif path == "/to-file":
            self._send(b"", code=302, headers=[("Location", "file:///etc/passwd")])
        elif path == "/redirect-good":
            self._send(b"", code=302, headers=[("Location", "/good.csv")])
        elif path == "/not-the-deck":
            self._send(b"colour,shape\nred,round\n")
        elif path == "/missing":
            self._send(b"gone", "text/plain", code=404)
        elif path == "/slow":  # headers at once, then a byte now and then, for ever
            self.send_response(200)
            self.send_header("Content-Type", "text/csv")
            self.end_headers()
            self.wfile.write(b"id,name,text\n")
            try:
                while True:
                    time.sleep(0.2)
                    self.wfile.write(b"a")
                    self.wfile.flush()
            except OSError:
                return
        elif path == "/huge":  # no Content-Length, rows as fast as the socket takes them
            self.send_response(200)
            self.send_header("Content-Type", "text/csv")
            self.end_headers()
            row = b"a,Alpha,First\n" * 4096
            try:
                self.wfile.write(b"id,name,text\n")
                for _ in range(100_000):
                    self.wfile.write(row)
            except OSError:
                return
        elif path == "/silent":  # accepts, then never answers
            time.sleep(60)


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def pull_game(sheet_game):
    """A game whose cards.csv is pulled from a URL: set(url) then pull; the old file is known."""
    root, folder, use = sheet_game
    path = use("cards.csv")
    path.write_text("id,name,text\nold,Old,Kept\n")

    def set_url(url):
        (folder / "game.yaml").write_text(f"title: Mini\ndecks: [deck.yaml]\npull:\n  cards.csv: {url}\n")
    return root, path, set_url


def test_pull_of_a_good_sheet_replaces_the_local_copy(pull_game, server):
    root, path, set_url = pull_game
    set_url(f"{server}/redirect-good")
    result = timed_run(root, "pull", "mini")
    assert result.exit_code == 0, result.output
    assert path.read_text() == GOOD and "2 rows, updated" in result.output
    assert list((root / "output" / ".cache" / "pull").iterdir()) == []  # its temporary file, gone


@pytest.mark.parametrize("where, needle", [
    ("/page", "sent a web page, not a table"),
    ("/page-as-text", "sent a web page, not a table"),
    ("/to-ftp", "pnp follows redirects to http(s) only"),
    ("/to-file", "pnp follows redirects to http(s) only"),
    ("/not-the-deck", "does not fit cards/mini/deck.yaml"),
    ("/missing", "answered 404"),
    ("/huge", "more than 16 MB"),
    pytest.param("/slow", "not downloaded within 1 s", marks=pytest.mark.slow),   # each waits 1 s
    pytest.param("/silent", "not downloaded within 1 s", marks=pytest.mark.slow),
])
def test_pull_refuses_what_is_not_the_table_and_keeps_the_old_file(pull_game, server, where, needle):
    root, path, set_url = pull_game
    set_url(f"{server}{where}")
    before = files_outside_output(root)
    result = timed_run(root, "pull", "mini", "--timeout", "1")
    clean(result, codes=(2,))
    assert needle in result.output and "cards/mini/game.yaml:4" in result.output, result.output
    assert "no file was changed" in result.output
    assert files_outside_output(root) == before  # the old file stays; nothing created or deleted
    assert list((root / "output" / ".cache" / "pull").iterdir()) == []


def test_pull_never_deletes_through_a_planted_symlink(pull_game, server, tmp_path):
    """The old pull emptied whatever folder `cards/<game>/.pull-tmp` linked to."""
    root, path, set_url = pull_game
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep me")
    (root / "cards" / "mini" / ".pull-tmp").symlink_to(victim)
    for url in (f"{server}/good.csv", f"{server}/page"):
        set_url(url)
        run(root, "pull", "mini")
        assert (victim / "precious.txt").read_text() == "keep me"
        assert [p.name for p in victim.iterdir()] == ["precious.txt"]
    assert (root / "cards" / "mini" / ".pull-tmp").is_symlink()


def test_pull_accepts_only_http_urls(pull_game):
    root, path, set_url = pull_game
    for url in ("ftp://127.0.0.1/cards.csv", "file:///etc/passwd", "/etc/passwd"):
        set_url(url)
        result = timed_run(root, "pull", "mini")
        clean(result, codes=(2,))
        assert "is not an http(s) URL" in result.output, result.output
        assert path.read_text() == "id,name,text\nold,Old,Kept\n"


@pytest.mark.parametrize("link, export", [
    ("https://docs.google.com/spreadsheets/d/AbC_12-x/edit#gid=123",
     "https://docs.google.com/spreadsheets/d/AbC_12-x/export?format=csv&gid=123"),
    ("https://docs.google.com/spreadsheets/d/AbC_12-x/edit?usp=sharing",
     "https://docs.google.com/spreadsheets/d/AbC_12-x/export?format=csv"),
    ("https://docs.google.com/spreadsheets/d/AbC_12-x/edit?gid=7#gid=7",
     "https://docs.google.com/spreadsheets/d/AbC_12-x/export?format=csv&gid=7"),
    ("https://docs.google.com/spreadsheets/d/AbC_12-x/export?format=csv&gid=5",
     "https://docs.google.com/spreadsheets/d/AbC_12-x/export?format=csv&gid=5"),
    ("https://docs.google.com/spreadsheets/d/e/2PACX-1v/pubhtml?gid=9&single=true",
     "https://docs.google.com/spreadsheets/d/e/2PACX-1v/pub?output=csv&gid=9&single=true"),
    ("https://docs.google.com/spreadsheets/d/e/2PACX-1v/pub?output=csv",
     "https://docs.google.com/spreadsheets/d/e/2PACX-1v/pub?output=csv"),
    ("https://example.com/sheet.csv", "https://example.com/sheet.csv"),
])
def test_google_sheets_share_links_are_read_as_their_csv_export(link, export):
    assert sheet_url(link) == export
