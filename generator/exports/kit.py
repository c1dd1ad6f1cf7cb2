"""The print-and-play kit: `pnp kit GAME`, one zip a player downloads.

In: a game, its rendered faces, the layout artifacts of a build (sheets, cut files,
rulebooks per paper, from `pipeline.layout_game`) and the print mode. Out: an
`ExportFile` holding `<game>-print-and-play.zip`: those files, one duplex calibration page
per paper (duplex modes) and a short READ-ME for players: what to print, on which paper, at 100 %,
which way to flip or fold, how to cut. The zip is reproducible: fixed dates and
permissions, files in name order.
"""
from __future__ import annotations

import io
import unicodedata
import zipfile
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

import yaml

from ..rulebook.words import fill
from . import ExportFile

DATE = (1980, 1, 1, 0, 0, 0)
WORDS = Path(__file__).parents[1] / "assets" / "i18n" / "kit.yaml"


@lru_cache(maxsize=1)
def _all_words() -> Mapping[str, Mapping[str, str]]:
    """pnp's words of the READ-ME, each language's read-only (every caller gets the same)."""
    found = yaml.safe_load(WORDS.read_text(encoding="utf-8"))
    return MappingProxyType({lang: MappingProxyType(words) if isinstance(words, dict) else words
                             for lang, words in found.items()})


def kit_words(lang: str) -> tuple[Mapping[str, str], bool]:
    """The READ-ME's words in `lang` (its nearest: de-AT uses de), and whether pnp has them
    (else English)."""
    found = _all_words()
    own = found.get(lang) or found.get(lang.split("-")[0].lower())
    return (own, True) if own else (found["en"], False)


def readme(game, artifacts, mode) -> str:
    """The players' read-me: plain text, in the game's (or edition's) language when pnp
    knows it (assets/i18n/kit.yaml), else in English."""
    words, _ = kit_words(game.language)
    w = lambda key, **values: fill(words[key], **values)
    sheets = [a for a in artifacts if a.kind == "sheets"]
    title = w("title", title=game.title)
    lines = [title, "=" * _width(title), ""]
    stamp = next((a.extra.get("stamp") for a in sheets if a.extra.get("stamp")), None)
    if stamp:
        lines += [w("version", stamp=stamp), ""]
    if game.meta.get("players") or game.meta.get("playing_time"):
        lines += [" · ".join(filter(None, [game.meta.get("players") and w("players", players=game.meta["players"]),
                                          game.meta.get("playing_time")])), ""]
    lines += _heading(w("what_to_print"))
    for a in sheets:
        lines.append("* " + w("sheets", file=a.path, pages=a.pages, paper=a.paper.upper()))
    for a in artifacts:
        if a.kind == "rulebook":
            lines.append("* " + w("rulebook", file=a.path, pages=a.pages, paper=a.paper.upper()))
    lines += ["", *_heading(w("how_to_print")), "* " + w("actual_size"), "* " + w("card_stock"), "* " + w(mode.mode)]
    if mode.duplex:
        offset = "" if not any(mode.back_offset) else (
            " " + w("offset", x=f"{mode.back_offset[0]:g}", y=f"{mode.back_offset[1]:g}"))
        lines.append("* " + w("calibration") + offset)
    lines += ["", *_heading(w("how_to_cut")), "* " + w("crop_marks"), "* " + w("tokens"),
              *["* " + w("machine", machine=w(c)) for c in
                sorted({a.extra.get("cutter") for a in sheets if a.extra.get("cutter")})],
              "* " + w("cut_files"), "", w("have_fun"), ""]
    return "\n".join(lines)


def _heading(text: str) -> list[str]:
    return [text, "-" * _width(text)]


def _width(text: str) -> int:
    """Columns `text` takes in a monospaced font: a CJK character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def kit_zip(game, artifacts, mode, calibration: dict) -> ExportFile:
    """The zip of the kit and its manifest entry."""
    members = {a.path: a.data for a in artifacts if a.kind in ("sheets", "rulebook", "cut")}
    for paper, data in calibration.items():  # paper -> the duplex calibration page
        members[f"calibration-{paper}.pdf"] = data
    members["READ-ME.txt"] = readme(game, artifacts, mode).encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, members[name])
    return ExportFile(f"{game.stem}-print-and-play.zip", buf.getvalue(), {
        "kind": "kit", "mode": mode.mode, "contents": sorted(members)})
