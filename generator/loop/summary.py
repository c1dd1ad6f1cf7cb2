"""`pnp diff --format html|markdown`: the review's summary of a pull request, one page.

In: the `GameDiff`s of `diffreport.py` (components changed, added, removed, a before/after
PNG each), the validation reports of the same games (`rules.RulesReport`), the git ref,
the format and where the markdown's pictures are (`BESIDE`, a URL, or `None`: not shown).
Out: {path under output/diff/: bytes}: the PNGs (`<game>/<component>.png`) and either
`index.html`, self-contained (pictures as data URIs: one file to open or attach), or
`summary.md`, with the pictures beside it as files (a CI's job summary, a merge request's
note). The findings come first, then each game that prints differently; a game with no
finding and no change gets nothing. Card data is untrusted: every text taken from the
project is escaped for the page it goes into (no markup, link or picture of its own).
"""
from __future__ import annotations

import base64
import html
import re

FORMATS = ("html", "markdown")
BESIDE = ""        # the markdown's pictures: paths relative to summary.md
PAGES = {"html": "index.html", "markdown": "summary.md"}

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~&:@])")


def summary_files(diffs: list, ref: str, reports: list, fmt: str, pictures: str | None = BESIDE) -> dict[str, bytes]:
    """The summary page (PAGES[fmt]) and the pictures it shows, by path under output/diff/."""
    files = {_picture(d.game, cid): png for d in diffs for cid, png in d.images.items()}
    page = _html(diffs, ref, reports, files) if fmt == "html" else _markdown(diffs, ref, reports, pictures)
    files[PAGES[fmt]] = page.encode()
    return files


def _picture(game: str, cid: str) -> str:
    return f"{game}/{_safe(cid)}.png"


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _findings(reports: list) -> list[tuple[str, str, str, str]]:
    """(severity, where, game/rule, message with its cards) of every finding, errors first."""
    from ..rules.report import cards_shown, message, title  # not at `pnp`'s start-up: 0.3 s of imports

    rows = []
    for r in reports:
        for f in r.errors + r.warnings:
            level = "error" if f in r.errors else "warning"
            where = f.file + (f":{f.line}" if f.line else "")
            cards = f" (cards: {cards_shown(f)})" if f.cards else ""
            rows.append((level, where, title(f), message(f) + cards))
    return sorted(rows, key=lambda row: row[0] != "error")


def _changes(d) -> list[tuple[str, str]]:
    """(component, change) of a game: changed and added (those have pictures), then removed."""
    status = {cid: "added" for cid in d.added} | {cid: "changed" for cid in d.changed}
    return [(cid, status[cid]) for cid in d.images] + [(cid, "removed") for cid in d.removed]


def _counts(d) -> str:
    return ", ".join(f"{len(ids)} {label}" for label, ids in
                     (("changed", d.changed), ("added", d.added), ("removed", d.removed)) if ids)


def _md(text: str) -> str:
    """Text from the project as plain Markdown text in a table cell: every character that could
    make markup, a link or a picture escaped, on one line."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _markdown(diffs: list, ref: str, reports: list, pictures: str | None) -> str:
    out = [f"## pnp: what prints differently than at `{ref.replace('`', '')}`", ""]
    rows = _findings(reports)
    if rows:
        out += ["### Findings", "", "| | where | rule | message |", "| --- | --- | --- | --- |"]
        out += [f"| {'❌' if level == 'error' else '⚠️'} {level} | {_md(where)} | {_md(rule)} | {_md(text)} |"
                for level, where, rule, text in rows]
        out.append("")
    changed = [d for d in diffs if d.any]
    if not changed:
        out.append("No component prints differently.")
    for d in changed:
        out += [f"### {_md(d.game)}: {_counts(d)}", "",
                "| component | change | before / after |", "| --- | --- | --- |"]
        for cid, status in _changes(d):
            shown = "" if status == "removed" else _shown(d.game, cid, pictures)
            out.append(f"| {_md(cid)} | {status} | {shown} |")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _shown(game: str, cid: str, pictures: str | None) -> str:
    """A component's before/after picture in the markdown: the image (beside, or at the URL
    `pictures`), or with `pictures` None its file's name in the report folder."""
    path = _picture(game, cid)
    if pictures is None:
        return f"`{path}`"
    url = f"{pictures.rstrip('/')}/{path}" if pictures else path
    return f"![{_md(cid)}: before and after]({url})"


def _html(diffs: list, ref: str, reports: list, files: dict[str, bytes]) -> str:
    e = html.escape
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>pnp diff {e(ref)}</title>"
             "<style>body{font-family:sans-serif;margin:1.5em}img{max-width:100%;border:1px solid #ccc}"
             "td,th{padding:.2em .6em;text-align:left;vertical-align:top}.error{color:#a00}.warning{color:#a60}"
             "</style></head><body>",
             f"<h1>What prints differently than at {e(ref)}</h1>"]
    rows = _findings(reports)
    if rows:
        parts.append("<h2>Findings</h2><table><tr><th></th><th>where</th><th>rule</th><th>message</th></tr>")
        parts += [f"<tr class='{level}'><td>{level}</td><td>{e(where)}</td><td>{e(rule)}</td><td>{e(text)}</td></tr>"
                  for level, where, rule, text in rows]
        parts.append("</table>")
    changed = [d for d in diffs if d.any]
    if not changed:
        parts.append("<p>No component prints differently.</p>")
    for d in changed:
        parts.append(f"<h2>{e(d.game)}: {_counts(d)}</h2>")
        for cid, status in _changes(d):
            parts.append(f"<h3 id='{e(d.game)}-{e(cid)}'>{e(cid)} ({status})</h3>")
            if status != "removed":
                data = base64.b64encode(files[_picture(d.game, cid)]).decode()
                parts.append(f"<img src='data:image/png;base64,{data}' alt='{e(cid)} before and after'>")
    parts.append("</body></html>\n")
    return "".join(parts)
