"""Exports for print shops, virtual tabletops and players: the export stage's targets.

In: a `RenderedGame` (every face as a vector PDF page). Out: `ExportFile`s (bytes and a
manifest entry each) that `export.write_exports` writes under output/<game>/exports/.
Nothing here writes files. `raster.py` turns a face into pixels of an exact size;
`png.py` makes one image per face, `tts.py` Tabletop Simulator decks, `profiles.py` the
files print shops accept (DriveThruCards' as PDF/X-1a: the package `pdfx/`, which makes
a file CMYK without transparency and checks it), `kit.py` the zip a player downloads.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ExportFile:
    path: str                 # relative to output/<game>/exports/<target>/
    data: bytes
    entry: dict = field(default_factory=dict)   # what the manifest says about the file

    def manifest(self) -> dict:
        return {"path": self.path, "bytes": len(self.data), **self.entry}
