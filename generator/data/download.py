"""One published spreadsheet downloaded over http(s), within a time and a size limit.

In: a URL as a designer copies it (a Google Sheets share link becomes its CSV export URL,
see `sheet_url`), an open file to write into (a temporary file the caller created), an
overall timeout in seconds and a size cap in bytes. Out: the bytes written into that file,
and the URL they came from; or a `DownloadError` saying why not, in the designer's words.

Only http and https are spoken; a redirect may go from http to https but never to another
scheme (ftp:, file:) nor from https back to http. The whole download, connection and
headers included, runs in a worker thread that is given up on at the deadline, so a server
that answers slowly, or never stops answering, cannot hold `pnp pull`. A web page (HTML) is
refused: it is what a sheet that is not shared or published sends instead of its cells.
"""
from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urljoin, urlsplit

from ..guard import shorten

CHUNK = 65536


class DownloadError(Exception):
    """The URL could not be downloaded as a table (message for designers)."""


def sheet_url(url: str) -> str:
    """The CSV export URL of a Google Sheets link (`.../d/ID/edit#gid=N`, `.../edit?usp=sharing`,
    a published `.../d/e/ID/pubhtml`); any other URL as it is."""
    parts = urlsplit(url)
    segments = parts.path.split("/")
    if parts.netloc.lower() != "docs.google.com" or segments[1:3] != ["spreadsheets", "d"] or len(segments) < 4:
        return url
    query = parse_qs(parts.query)
    fragment = parse_qs(parts.fragment)
    gid: str | None = (query.get("gid") or fragment.get("gid") or [""])[0]
    gid = gid if gid and gid.isdigit() else None
    if segments[3] == "e":  # published to the web: /d/e/ID/pubhtml or /pub
        if len(segments) < 6 or segments[5] not in ("pubhtml", "pub") or query.get("output") == ["csv"]:
            return url
        return (f"https://docs.google.com/spreadsheets/d/e/{segments[4]}/pub?output=csv"
                + (f"&gid={gid}&single=true" if gid else ""))
    if len(segments) > 4 and segments[4] == "export":
        return url
    return f"https://docs.google.com/spreadsheets/d/{segments[3]}/export?format=csv" + (f"&gid={gid}" if gid else "")


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Redirects within http(s) only, and never from https down to http (checked before urllib's
    own checks, which let ftp: through)."""

    def http_error_302(self, req, fp, code, msg, headers):
        location = headers.get("location") or headers.get("uri")
        if location:
            newurl = urljoin(req.full_url, location)
            old, new = urlsplit(req.full_url).scheme.lower(), urlsplit(newurl).scheme.lower()
            if new not in ("http", "https") or (old == "https" and new == "http"):
                raise DownloadError(f"it redirects to {shorten(newurl, 120)}: pnp follows redirects to http(s) "
                                    "only, never from https to http")
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def download(url: str, into, timeout: float, max_bytes: int) -> int:
    """Write what `url` sends into the open binary file `into`; returns the number of bytes.

    :raises DownloadError: not http(s), a refused redirect, an HTTP error, no answer, more than
        `max_bytes`, not done within `timeout` seconds, or a web page instead of a table.
    """
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        raise DownloadError(f"'{shorten(url, 120)}' is not an http(s) URL")
    outcome: dict = {}
    cancel = threading.Event()
    worker = threading.Thread(target=_fetch, args=(url, into, timeout, max_bytes, cancel, outcome), daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        cancel.set()  # the worker stops at its next chunk; its socket times out on its own
        raise _too_slow(timeout)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["size"]


def _fetch(url, into, timeout, max_bytes, cancel, outcome) -> None:
    deadline = time.monotonic() + timeout
    opener = urllib.request.build_opener(_Redirects)
    request = urllib.request.Request(url, headers={"User-Agent": "pnp-pull", "Accept": "text/csv, */*;q=0.5"})
    try:
        with opener.open(request, timeout=min(timeout, 15)) as response:
            kind = (response.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if kind in ("text/html", "application/xhtml+xml"):
                raise DownloadError("it sent a web page, not a table: is the sheet shared with anyone who has "
                                    "the link, or published to the web as CSV?")
            declared = response.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                raise DownloadError(f"it would send {int(declared) / 2**20:.1f} MB; pnp pulls at most "
                                    f"{max_bytes // 2**20} MB")
            size = 0
            while not cancel.is_set():
                chunk = response.read1(CHUNK)
                if not chunk:
                    break
                if size == 0 and _is_web_page(chunk):
                    raise DownloadError("it sent a web page, not a table: is the sheet shared with anyone "
                                        "who has the link, or published to the web as CSV?")
                size += len(chunk)
                if size > max_bytes:
                    raise DownloadError(f"it sent more than {max_bytes // 2**20} MB; pnp pulls at most that much")
                if time.monotonic() > deadline:
                    raise _too_slow(timeout)
                into.write(chunk)
            outcome["size"] = size
    except DownloadError as exc:
        outcome["error"] = exc
    except urllib.error.HTTPError as exc:
        outcome["error"] = DownloadError(f"the server answered {exc.code} {exc.reason}")
    except urllib.error.URLError as exc:
        outcome["error"] = (_too_slow(timeout) if isinstance(exc.reason, TimeoutError)
                            else DownloadError(f"cannot download it: {exc.reason}"))
    except TimeoutError:  # a read that waited its whole share of the time: the same as the overall bound
        outcome["error"] = _too_slow(timeout)
    except (OSError, ValueError) as exc:  # resets, bad URLs, bad chunked encoding
        outcome["error"] = DownloadError(f"cannot download it: {exc}")
    except Exception as exc:  # http.client's protocol errors and kin: the server is broken
        outcome["error"] = DownloadError(f"cannot download it: {type(exc).__name__}: {exc}")


def _too_slow(timeout: float) -> DownloadError:
    return DownloadError(f"not downloaded within {timeout:g} s (the server answers too slowly)")


def _is_web_page(start: bytes) -> bool:
    head = start[:4096].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith(b"<") and (head.startswith((b"<!doctype html", b"<html")) or b"<html" in head)
