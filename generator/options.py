"""What whoever runs a command asks of a build, as one frozen object.

In: the command line's choices (`pnp build`, `validate`, `export`, `kit`, `watch`), or a
caller's keywords. Out: a `BuildOptions`, made once and passed beside the `Session` down
through the pipeline (as mkdocs passes its `config`): it owns the defaults (None: the
game's own `print:` setting), the units (papers by their file names, modes and cutters in
lower case, languages as a tuple) and the checks (an unknown mode, a back offset that is
no printer's misregistration, a --base-url that is no URL), raising `ValueError` with a
sentence for the person who asked. Nothing in it comes from the project being built: the
project's settings are read by the stages, and the options only override them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .layout.cutters import CUTTERS
from .layout.modes import MODES
from .units import paper_name

if TYPE_CHECKING:
    from .draw.pictures import Asked

MAX_OFFSET_MM = 20.0   # more than this is no printer's misregistration
MIN_PICTURE_PX, MAX_PICTURE_PX = 64, 8000   # --size of a picture of cards (showcase, hand)


@dataclass(frozen=True)
class BuildOptions:
    """A build's options; every None means "the game's own `print:` setting"."""

    papers: tuple[str, ...] | None = None       # paper names (a4, letter, 300x400mm); None: print: papers
    out_dir: Path | None = None                  # None: output/ in the project
    validate: bool = True                        # False: --no-validate (the rules are not checked)
    strict: bool = False                         # warnings stop the build too
    guides: bool = False                         # proofs: trim and safe lines on every face
    mode: str | None = None                      # a print mode of layout/modes.MODES; None: print: mode
    back_offset: tuple[float, float] | None = None   # mm the backs move; None: print: back_offset
    cutter: str | None = None                    # a print-then-cut machine; None: print: cutter
    changed_since: str | None = None             # a git ref or "last": also the changed sheets
    stamp: str | None = None                     # a version stamp; None: print: stamp; "": none
    image_dpi: float | None = None               # pictures' resolution; None: print: image_dpi
    draft: bool = False                          # pictures at draft resolution
    proof: bool = False                          # the low-ink proof: <game>-proof-sheets-<paper>.pdf (draw/proof.py)
    languages: tuple[str, ...] | None = None     # the editions to make; None: every edition
    dpi: int | None = None                       # exports: the images' resolution; None: the target's
    bleed: bool = True                           # exports: PNG images keep the bleed
    base_url: str | None = None                  # exports (tts): where the images will be uploaded
    cards: tuple[str, ...] | None = None         # exports (showcase, hand): the cards shown; None: the target's
    size: tuple[int, int] | None = None          # exports (showcase, hand): the picture's pixels; None: the target's

    def __post_init__(self):
        if self.papers is not None:
            set_ = object.__setattr__
            try:
                set_(self, "papers", tuple(paper_name(p) for p in self.papers) or None)
            except ValueError as exc:
                raise ValueError(f"paper: {exc}") from None
        for name, known in (("mode", MODES), ("cutter", CUTTERS)):
            value = getattr(self, name)
            if value is not None:
                value = str(value).lower()
                if value not in known:
                    raise ValueError(f"{name} {value!r} is not one of {', '.join(known)}")
                object.__setattr__(self, name, value)
        if self.back_offset is not None:
            x, y = (float(v) for v in self.back_offset)
            if max(abs(x), abs(y)) > MAX_OFFSET_MM:
                raise ValueError(f"back offset {x:g},{y:g}: an offset over {MAX_OFFSET_MM:g} mm is not a "
                                 "printer's misregistration")
            object.__setattr__(self, "back_offset", (x, y))
        if self.languages is not None:
            object.__setattr__(self, "languages", tuple(self.languages) or None)
        if self.cards is not None:
            object.__setattr__(self, "cards", tuple(c for c in self.cards if c) or None)
        if self.size is not None:
            w, h = (int(v) for v in self.size)
            if not (MIN_PICTURE_PX <= w <= MAX_PICTURE_PX and MIN_PICTURE_PX <= h <= MAX_PICTURE_PX):
                raise ValueError(f"--size {w}x{h}: each side from {MIN_PICTURE_PX} to {MAX_PICTURE_PX} pixels")
            object.__setattr__(self, "size", (w, h))
        if self.base_url is not None and not re.fullmatch(r"https?://[^\s\"'<>]+", self.base_url):
            raise ValueError(f"--base-url {self.base_url!r}: an http:// or https:// URL of the folder the images "
                             "will be uploaded to")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The options' names (the keywords a command passes)."""
        return tuple(f.name for f in fields(cls))

    def output(self, root: Path) -> Path:
        """The output folder of a build of the project at `root`."""
        return self.out_dir or root / "output"

    def pictures(self, root: Path) -> Asked:
        """What the build asks of its pictures (draw/pictures.py): their resolution, drafts,
        and the picture store in the output folder's cache."""
        from .draw.pictures import Asked  # Pillow and libvips: only for a command that draws

        return Asked(self.image_dpi, self.draft, str(self.output(root) / ".cache" / "pictures"))

    def but(self, **changes) -> BuildOptions:
        """The same options with `changes` (checked again)."""
        return replace(self, **changes)
