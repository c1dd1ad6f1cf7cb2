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
import zipfile

from . import ExportFile

FLIP = {
    "duplex-long": "Print the sheets double-sided, flipping on the LONG edge (most printers' default "
                   "\"two-sided\"). Each page of backs then lies behind its page of fronts.",
    "duplex-short": "Print the sheets double-sided, flipping on the SHORT edge. The backs are printed "
                    "upside down on purpose: after the flip they lie behind their fronts.",
    "gutter-fold": "Print one-sided. Each page holds fronts on the left and backs on the right: fold it "
                   "along the dashed line (printed side out), glue the halves together, then cut.",
    "fronts-only": "Print one-sided: these sheets hold fronts only.",
    "fronts-then-backs": "Print one-sided, in two runs. The first pages hold every sheet's fronts, the last pages "
                         "their backs, in the same order. Print the fronts; take the printed stack as it came out, "
                         "turn it over on its LONG edge (like turning a book's page) without changing its order, put "
                         "it back in the paper tray and print the backs. Try it with two sheets of plain paper first.",
    "interleaved": "Print one sheet at a time. Each page of fronts is followed by its page of backs: print the "
                   "front, put the same sheet back in the tray turned over on its LONG edge, and print the next page.",
}
DATE = (1980, 1, 1, 0, 0, 0)
MACHINE = {
    "silhouette": "a Silhouette (CAMEO, Portrait, Curio): open *-cut-*-sheetN.dxf (or the .svg) in Silhouette "
                  "Studio, turn its Registration Marks on (Type 1, length 20 mm, thickness 0.5 mm, inset 10 mm) - "
                  "they fall on the printed marks - delete the file's own mark layer, and cut",
    "cricut": "a Cricut: the cards lie inside the 6.75 x 9.25 in Print Then Cut area within the black border; "
              "upload *-cut-*.svg to Design Space for the cut lines",
    "scanncut": "a Brother ScanNCut: the four round marks are its print-and-cut marks; open *-cut-*.svg in "
                "CanvasWorkspace for the cut lines",
}


def readme(game, artifacts, mode) -> str:
    """The players' read-me: plain text, in the designer's words."""
    sheets = [a for a in artifacts if a.kind == "sheets"]
    lines = [f"{game.title} — print-and-play kit", "=" * (len(game.title) + 23), ""]
    stamp = next((a.extra.get("stamp") for a in sheets if a.extra.get("stamp")), None)
    if stamp:
        lines += [f"Version: {stamp} (printed small on every card, to tell printings apart)", ""]
    if game.meta.get("players") or game.meta.get("playing_time"):
        lines += [" · ".join(filter(None, [game.meta.get("players") and f"{game.meta['players']} players",
                                          game.meta.get("playing_time")])), ""]
    lines += ["What to print", "-------------"]
    for a in sheets:
        lines.append(f"* {a.path}: {a.pages} pages on {a.paper.upper()} paper — pick the file for your paper.")
    for a in artifacts:
        if a.kind == "rulebook":
            lines.append(f"* {a.path}: the rules ({a.pages} pages, {a.paper.upper()}), on plain paper.")
    lines += ["", "How to print", "------------",
              "* Print at 100 % / \"actual size\". Turn OFF \"fit to page\" or \"shrink to fit\": the cards must "
              "come out at their true size.",
              "* Card stock of about 200-300 g/m2 (or paper glued onto card) makes components that shuffle well.",
              f"* {FLIP[mode.mode]}"]
    if mode.duplex:
        offset = "" if not any(mode.back_offset) else (
            f" These sheets already move the backs by {mode.back_offset[0]:g}, {mode.back_offset[1]:g} mm.")
        lines.append("* Not sure your printer lines the two sides up? Print calibration-<paper>.pdf first (both sides) "
                     "and read the two numbers X and Y (mm) off it as it says. Up to about 1 mm is lost in the cut: "
                     "print as is. More than that: look in your printer's settings for a back-side (side 2) image "
                     "shift or margin adjustment and shift side 2 by X, Y; or send the numbers to the designer, "
                     "who can make sheets whose backs are moved to suit your printer." + offset)
    lines += ["", "How to cut", "----------",
              "* Cut along the crop marks — the short lines outside each card — with a ruler and a craft knife, "
              "or a paper trimmer. The coloured border beyond the marks (bleed) is cut away.",
              "* Round and hexagonal tokens carry their own thin cut lines.",
              *[f"* These sheets are made for {MACHINE[c]}." for c in
                sorted({a.extra.get("cutter") for a in sheets if a.extra.get("cutter")})],
              "* A cutting machine (Cricut, Silhouette) can follow the *-cut-*.svg files: one layer per sheet of "
              "fronts, placed exactly as printed.",
              "", "Have fun!", ""]
    return "\n".join(lines)


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
    return ExportFile(f"{game.id}-print-and-play.zip", buf.getvalue(), {
        "kind": "kit", "mode": mode.mode, "contents": sorted(members)})
