"""The live preview: a small web server on 127.0.0.1 that shows every face of the watched games.

In: build outcomes from `watch.py` (`Preview.update`: the early one, when the first
paper's sheets are in place, and the full one each bump the version). Out: over HTTP, `/` (one page: a
deck-by-deck grid of every component, fronts beside backs, a search box, a zoom (a face opened
large at ZOOMED_SCALE), a language switch
for games of several languages, the last build's problems naming file, line and card),
`/state.json` (what the page draws, every edition of each game, with a `version` that
grows on every build), `/stats` (a page of each game's deck statistics, `rules/stats.py`, the
cards as written: bars, cross-tables and the cost curve) with `/stats.json`, and
`/face/<draw key>.png` (and `@2x.png`, at 300 dpi, for a face opened large; a face rasterised from
its drawn PDF page with pypdfium2, so the browser shows exactly what prints). Each page
polls its JSON and redraws when the version changes: live reload without a plugin.
Only the standard library's http.server serves it, bound to 127.0.0.1.

A page on another site cannot use it: a request whose Host header is not 127.0.0.1 or
localhost with the server's port (DNS rebinding) is refused (403) before anything is read.
Faces are drawn one at a time (PDFium allows one call at a time in a process: the lock in
`exports.raster`). A connection that sends nothing for `idle_seconds` is closed, and one
request (waiting, reading, answering) is cut off after `request_seconds`. A browser that
goes away mid-answer is not an error: nothing is printed.
"""
from __future__ import annotations

import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from ..data.editions import direction_of, languages_of
from ..errors import InputError
from ..rules.stats import game_stats

PNG_SCALE = 150 / 72   # 150 dpi: sharp on screen, quick to draw
ZOOMED_SCALE = 300 / 72   # a face opened large (/face/<draw key>@2x.png): twice as sharp
ZOOMED = "@2x"
IDLE_SECONDS = 15.0    # a connection that sends nothing for this long is closed
REQUEST_SECONDS = 60.0  # the longest one request may take, from waiting for it to the last byte sent


class Preview:
    """What the page shows; updated by the watch loop, read by the server threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.version = 0
        self.games: dict[str, dict] = {}
        self.errors: dict[str, list[dict]] = {}
        self.pages: dict[tuple, dict] = {}  # (game, language) -> {draw key: (faces PDF, page)}, last good build
        self.pngs: dict[str, bytes] = {}   # draw key -> PNG, for the faces of the last good builds
        self.stats: dict[str, dict] = {}   # game -> its deck statistics, of the last good build

    def update(self, outcome) -> None:
        with self.lock:
            if outcome.ok and outcome.result is not None and outcome.result.editions:
                # a build of one edition (a translation edited) leaves the others as they were shown
                shown = {e["lang"]: e for e in (self.games.get(outcome.game) or {}).get("editions", [])}
                for rendered in outcome.result.editions:
                    shown[rendered.game.language] = _snapshot(rendered)
                    self.pages[(outcome.game, rendered.game.language)] = {
                        dk: (rendered.faces_pdfs[rendered.page_of[key][0]], rendered.page_of[key][1])
                        for key, dk in rendered.draw_keys.items() if key in rendered.page_of}
                order = languages_of(outcome.result.editions[0].game.meta)
                source = next((r.game for r in outcome.result.editions if r.game.language == order[0]), None)
                if source is not None:   # the cards as written (an edit of a translation leaves them)
                    self.stats[outcome.game] = _stats(source)
                editions = [shown[lang] for lang in order if lang in shown]
                self.games[outcome.game] = {"id": outcome.game, "seconds": round(outcome.seconds, 3),
                                            "languages": [e["lang"] for e in editions], "editions": editions}
                current = set().union(*self.pages.values())
                self.pngs = {k: v for k, v in self.pngs.items() if k in current}  # a long watch stays small
                self.errors.pop(outcome.game, None)
            elif not outcome.ok:
                self.errors[outcome.game] = [
                    {"file": p.file, "line": p.line, "card": p.card, "message": p.message, "text": str(p)}
                    for p in outcome.problems]
            self.version += 1

    def state(self) -> dict:
        with self.lock:
            return {"version": self.version, "games": list(self.games.values()),
                    "errors": [{"game": g, "problems": ps} for g, ps in sorted(self.errors.items())]}

    def stats_state(self) -> dict:
        with self.lock:
            return {"version": self.version, "games": [self.stats[g] for g in sorted(self.stats)]}

    def png(self, draw_key: str, zoomed: bool = False) -> bytes | None:
        """A face's PNG at PNG_SCALE, or (`zoomed`: the page's face opened large) at ZOOMED_SCALE."""
        name = draw_key + ZOOMED if zoomed else draw_key
        with self.lock:
            if name in self.pngs:
                return self.pngs[name]
            found = next((pages[draw_key] for pages in self.pages.values() if draw_key in pages), None)
        if found is None:
            return None
        pdf, page = found
        data = _rasterise(pdf, page, ZOOMED_SCALE if zoomed else PNG_SCALE)
        with self.lock:
            self.pngs[name] = data
        return data


def _stats(game) -> dict:
    """A game's statistics for the stats page; a `stats:` declaration it cannot follow is
    shown there (naming the file) instead."""
    try:
        return game_stats(game)
    except InputError as exc:
        return {"game": game.id, "title": game.title, "decks": [], "error": str(exc)}


def _snapshot(rendered) -> dict:
    """One edition of a game as the page lists it: decks, components, their face image addresses."""
    keys = rendered.draw_keys

    def url(key):
        return f"/face/{keys[key]}.png" if key in keys else None

    decks: dict[str, dict] = {}
    for rc in rendered.cards:
        deck = decks.setdefault(rc.deck.id, {"id": rc.deck.id, "name": rc.deck.name, "components": []})
        faces = [url(k) for k in rc.faces] if rc.faces else [url(rc.front)]
        words = " ".join(str(v) for v in rc.card.fields.values() if isinstance(v, (str, int, float)))
        deck["components"].append({
            "id": rc.card.id, "name": rc.card.name, "count": rc.card.count,
            "fronts": [f for f in faces if f], "back": url(rc.back) if rc.back else None,
            "search": f"{rc.card.id} {rc.card.name} {words}".lower(),
            "source": f"{rc.card.source.file}:{rc.card.source.line or ''}"})
    return {"lang": rendered.game.language, "direction": direction_of(rendered.game.language),
            "title": rendered.game.title, "decks": list(decks.values())}


def _rasterise(pdf: bytes, page: int, scale: float) -> bytes:
    from ..exports.raster import page_png  # holds the PDFium lock: one face at a time

    return page_png(pdf, page, scale)


def allowed_hosts(port: int) -> set[str]:
    """The Host headers a request to the preview may carry (a browser omits port 80)."""
    hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
    return hosts | {"127.0.0.1", "localhost"} if port == 80 else hosts


class PreviewServer(ThreadingHTTPServer):
    """ThreadingHTTPServer that says nothing when a client goes away or times out, and one
    line (never a traceback) for anything else a request runs into."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, OSError):   # ConnectionResetError, BrokenPipeError, TimeoutError...
            return   # the browser left, or was too slow: nothing to report
        print(f"pnp preview: a request failed: {type(exc).__name__}: {exc}", file=sys.stderr)


def serve(preview: Preview, port: int = 8000, idle_seconds: float = IDLE_SECONDS,
          request_seconds: float = REQUEST_SECONDS) -> ThreadingHTTPServer:
    """Start serving on 127.0.0.1:`port` (0: any free port) in a daemon thread; returns the server
    (its `server_address` holds the port; call `shutdown()` to stop)."""

    class Handler(BaseHTTPRequestHandler):
        timeout = idle_seconds   # the socket's timeout: nothing received for this long closes it

        def handle_one_request(self):
            # one request, from waiting for its first line to its last byte sent, has a deadline
            timer = threading.Timer(request_seconds, self._cut_off)
            timer.daemon = True
            timer.start()
            try:
                super().handle_one_request()
            finally:
                timer.cancel()

        def _cut_off(self):
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass   # already closed

        def do_GET(self):
            if self.headers.get("Host", "").lower() not in allowed_hosts(self.server.server_address[1]):
                self.close_connection = True
                self._send(403, "text/plain", b"the preview answers only to 127.0.0.1 and localhost")
                return
            path = self.path.split("?", 1)[0]
            if path == "/":
                self._send(200, "text/html; charset=utf-8", PAGE.encode())
            elif path == "/state.json":
                self._send(200, "application/json", json.dumps(preview.state()).encode())
            elif path == "/stats":
                self._send(200, "text/html; charset=utf-8", STATS_PAGE.encode())
            elif path == "/stats.json":
                self._send(200, "application/json", json.dumps(preview.stats_state()).encode())
            elif path.startswith("/face/") and path.endswith(".png"):
                stem = Path(path).stem
                data = preview.png(stem.removesuffix(ZOOMED), zoomed=stem.endswith(ZOOMED))
                if data is None:
                    self._send(404, "text/plain", b"no such face (rebuilt since?)")
                else:
                    self._send(200, "image/png", data, cache=True)
            else:
                self._send(404, "text/plain", b"not found")

        def _send(self, status, kind, body, cache=False):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            # a face's address is the hash of its content: it never changes
            self.send_header("Cache-Control", "max-age=31536000, immutable" if cache else "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):  # quiet: the watch prints what matters
            pass

    server = PreviewServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, name="pnp-preview", daemon=True).start()
    return server


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pnp preview</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;background:#f4f1ea;color:#222}
header{position:sticky;top:0;background:#223344;color:#fff;padding:.6em 1em;display:flex;gap:1em;align-items:center;z-index:1}
header input{flex:0 1 24em;padding:.35em .6em;font-size:1em;border-radius:4px;border:0}
#status{font-size:.9em;opacity:.85}
#errors{background:#fde2e2;color:#7a0000;border-bottom:2px solid #c00;padding:.6em 1em;white-space:pre-wrap;font-family:monospace}
#errors:empty{display:none}
h2{margin:1em 1em .2em} h3{margin:.8em 1em .3em;font-weight:600}
.deck{display:flex;flex-wrap:wrap;gap:.8em;padding:0 1em}
.component{background:#fff;border-radius:6px;padding:.4em;box-shadow:0 1px 3px #0002;font-size:.8em;max-width:max(22em,calc(var(--face) * 1.6))}
:root{--face:180px}
.component img{height:var(--face);margin:2px;vertical-align:top;cursor:zoom-in}
header label{font-size:.9em;display:flex;gap:.4em;align-items:center}
#big{position:fixed;inset:0;background:#000c;display:flex;align-items:center;justify-content:center;z-index:2;cursor:zoom-out}
#big img{height:94vh;max-width:96vw;object-fit:contain}
#big.hidden{display:none}
.component .name{font-weight:600;margin:.2em}
.hidden{display:none}
</style></head>
<body><header><strong>pnp preview</strong><input id="search" type="search" placeholder="Search cards" autofocus>
<select id="lang" class="hidden" title="Language of the editions shown"></select>
<label title="Zoom the faces (+ and - keys); click a face to see it large">zoom
<input id="zoom" type="range" min="60" max="600" step="20" value="180"></label>
<a href="/stats" style="color:#fff">stats</a>
<span id="status">connecting...</span></header>
<div id="errors"></div><main id="games"></main><div id="big" class="hidden"><img alt=""></div>
<script>
let version = -1, state = null, lang = "";
function esc(s){return String(s).replace(/[&<>"]/g,c=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]))}
function draw(){
  const errs = state.errors.flatMap(e => e.problems.map(p => e.game + ": " + p.text));
  document.getElementById("errors").textContent = errs.length ? "Build failed (showing the last good build):\\n" + errs.join("\\n") : "";
  const langs = [...new Set(state.games.flatMap(g => g.languages))];
  const pick = document.getElementById("lang");
  pick.classList.toggle("hidden", langs.length < 2);
  if (pick.options.length !== langs.length || langs.some((l, i) => pick.options[i].value !== l))
    pick.innerHTML = langs.map(l => `<option value="${esc(l)}">${esc(l)}</option>`).join("");
  if (!langs.includes(lang)) lang = langs[0] || "";
  pick.value = lang;
  let html = "";
  for (const g of state.games) {
    const e = g.editions.find(x => x.lang === lang) || g.editions[0];
    html += `<section class="edition" lang="${esc(e.lang)}" dir="${esc(e.direction)}"><h2>${esc(e.title)}</h2>`;
    for (const d of e.decks) {
      html += `<h3>${esc(d.name)}</h3><div class="deck">`;
      for (const c of d.components) {
        const imgs = c.fronts.map(u => `<img src="${u}" alt="${esc(c.name)} (front)" class="front">`).join("")
          + (c.back ? `<img src="${c.back}" alt="${esc(c.name)} (back)" class="back">` : "");
        html += `<div class="component" data-search="${esc(c.search)}" data-id="${esc(c.id)}">`
          + `<div class="name">${esc(c.name)} <small>&times;${c.count}</small></div>${imgs}</div>`;
      }
      html += "</div>";
    }
    html += "</section>";
  }
  document.getElementById("games").innerHTML = html;
  filter();
  document.getElementById("status").textContent = "build " + state.version + " - " +
    state.games.map(g => g.id + " " + g.seconds + " s").join(", ");
}
function filter(){
  const q = document.getElementById("search").value.trim().toLowerCase();
  for (const el of document.querySelectorAll(".component"))
    el.classList.toggle("hidden", q !== "" && !el.dataset.search.includes(q));
}
async function poll(){
  try {
    const r = await fetch("/state.json", {cache: "no-store"});
    const s = await r.json();
    if (s.version !== version) { version = s.version; state = s; draw(); }
  } catch (e) { document.getElementById("status").textContent = "preview server stopped"; }
  setTimeout(poll, 400);
}
const zoom = document.getElementById("zoom"), big = document.getElementById("big");
function setZoom(v){
  v = Math.max(+zoom.min, Math.min(+zoom.max, Math.round(+v / 20) * 20 || 180));
  zoom.value = v;
  document.documentElement.style.setProperty("--face", v + "px");
  try { localStorage.setItem("pnp-zoom", v); } catch (e) {}
}
function closeBig(){ big.classList.add("hidden"); }
zoom.addEventListener("input", e => setZoom(e.target.value));
document.getElementById("games").addEventListener("click", e => {
  if (e.target.tagName !== "IMG") return;
  const img = big.querySelector("img");
  img.src = e.target.getAttribute("src").replace(/\\.png$/, "@2x.png");
  img.alt = e.target.alt;
  big.classList.remove("hidden");
});
big.addEventListener("click", closeBig);
document.addEventListener("keydown", e => {
  if (e.key === "Escape") closeBig();
  else if (e.target.id === "search") return;
  else if (e.key === "+" || e.key === "=") setZoom(+zoom.value + 40);
  else if (e.key === "-") setZoom(+zoom.value - 40);
});
try { setZoom(localStorage.getItem("pnp-zoom") || 180); } catch (e) { setZoom(180); }
document.getElementById("search").addEventListener("input", filter);
document.getElementById("lang").addEventListener("change", e => { lang = e.target.value; draw(); });
poll();
</script></body></html>
"""


STATS_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pnp stats</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;background:#f4f1ea;color:#222}
header{position:sticky;top:0;background:#223344;color:#fff;padding:.6em 1em;display:flex;gap:1em;align-items:center}
header a{color:#fff} #status{font-size:.9em;opacity:.85}
h2{margin:1em 1em .2em} h3{margin:.8em 1em .3em}
.deck{display:flex;flex-wrap:wrap;gap:.8em;padding:0 1em}
.chart{background:#fff;border-radius:6px;padding:.5em;box-shadow:0 1px 3px #0002;font-size:.8em;min-width:14em}
.chart .title{font-weight:600;margin-bottom:.3em}
.bar{display:flex;align-items:center;gap:.4em;margin:1px 0}
.bar .k{width:7em;text-align:right;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.bar .v{background:#4a7fb0;height:.9em}
.curve .bar .v{background:#b0642a}
table{border-collapse:collapse} td,th{border:1px solid #ccd;padding:1px 5px;text-align:right}
.error{background:#fde2e2;color:#7a0000;padding:.6em 1em;white-space:pre-wrap;font-family:monospace}
</style></head>
<body><header><strong>pnp stats</strong><a href="/">faces</a><span id="status">connecting...</span></header>
<main id="stats"></main>
<script>
let version = -1;
function esc(s){return String(s).replace(/[&<>"]/g,c=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]))}
function bars(title, counts, cls){
  const top = Math.max(1, ...Object.values(counts));
  return `<div class="chart ${cls||""}" data-chart="${esc(title)}"><div class="title">${esc(title)}</div>` +
    Object.entries(counts).map(([k, n]) => `<div class="bar" data-key="${esc(k)}"><span class="k">${esc(k)}</span>` +
      `<span class="v" style="width:${Math.round(120 * n / top)}px"></span><span class="n">${n}</span></div>`).join("") + "</div>";
}
function draw(s){
  let html = "";
  for (const g of s.games) {
    html += `<section data-game="${esc(g.game)}"><h2>${esc(g.title)}</h2>`;
    if (g.error) html += `<div class="error">${esc(g.error)}</div>`;
    for (const d of g.decks) {
      html += `<h3 data-deck="${esc(d.id)}">${esc(d.name)} <small>${d.copies} cards, ${d.designs} designs</small></h3><div class="deck">`;
      for (const [name, f] of Object.entries(d.fields)) {
        if (f.kind === "number") html += bars(`${name}: sum ${f.sum}, mean ${f.mean}, ${f.min}..${f.max}`, f.histogram);
        else if (f.tally) html += bars(name, f.tally);
      }
      if (Object.keys(d.icons).length) html += bars("icons in text", d.icons);
      for (const x of d.cross) {
        html += `<div class="chart"><div class="title">${esc(x.a)} x ${esc(x.b)}</div><table><tr><th></th>` +
          x.columns.map(c => `<th>${esc(c)}</th>`).join("") + "</tr>" +
          x.rows.map((r, i) => `<tr><th>${esc(r)}</th>` + x.counts[i].map(n => `<td>${n}</td>`).join("") + "</tr>").join("") +
          "</table></div>";
      }
      if (d.curve) html += bars(`curve of ${d.curve.field}`, d.curve.histogram, "curve");
      html += "</div>";
    }
    html += "</section>";
  }
  document.getElementById("stats").innerHTML = html;
  document.getElementById("status").textContent = "build " + s.version;
}
async function poll(){
  try {
    const r = await fetch("/stats.json", {cache: "no-store"});
    const s = await r.json();
    if (s.version !== version) { version = s.version; draw(s); }
  } catch (e) { document.getElementById("status").textContent = "preview server stopped"; }
  setTimeout(poll, 400);
}
poll();
</script></body></html>
"""
