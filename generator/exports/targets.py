"""The export targets, as one table: what `pnp export` can make.

In: a target's name (the command line's `pnp export png`, `--target tts`, `--profile dtc`).
Out: its `Target`: the words the command's help and docs use, whether it is a print shop
(`--profile`), the program it runs, if any (which an untrusted build cannot), and `make`,
which turns a `RenderedGame` into the target's files and the summary its manifest starts
with. The table is read by the CLI for its choices and help, by the jail's check and by
`exporting.py`; nothing else lists target names. The code of a target is imported only
when it is made (`module:function`), so `pnp --help` stays quick.

A new target is one entry here and the function it names (in a module of its own, or
beside its kin); a new print shop is one entry of `shops.PROFILES`, which every shop's
target comes from (tests/test_options.py checks the CLI and the docs name every target).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from .shops import PROFILES


@dataclass(frozen=True)
class Target:
    name: str
    what: str                  # one line for `pnp export --help` and the docs
    maker: str                 # "module:function" under generator.exports; see `make`
    shop: bool = False         # a print shop's files (`--profile NAME`); else a tabletop's (`pnp export NAME`)
    program: str | None = None   # a program it runs, and what for (refused by an untrusted build)
    pictures: bool = False     # one picture of chosen cards: takes --cards and --size

    def make(self, rendered, folder: Path, dpi: int | None = None, bleed: bool = True,
             base_url: str | None = None, shown: tuple = (None, None)):
        """The target's files and its manifest summary: (list[ExportFile], dict); `shown`:
        the cards and the picture size (w, h px) of a picture of cards (showcase, hand)."""
        module, function = self.maker.split(":")
        made = getattr(importlib.import_module(f"generator.exports.{module}"), function)
        return made(rendered, _Asked(self.name, folder, dpi, bleed, base_url, *shown))


@dataclass(frozen=True)
class _Asked:
    """What a target's maker is given besides the rendered game."""

    target: str
    folder: Path               # output/<game>/exports/<target>/
    dpi: int | None            # --dpi; None: the target's own
    bleed: bool                # --bleed/--no-bleed
    base_url: str | None       # tts: --base-url
    cards: tuple | None = None   # showcase, hand: --cards (ids); None: the target's choice
    size: tuple | None = None    # showcase, hand: --size (w, h px); None: the target's own


TARGETS: dict[str, Target] = {t.name: t for t in (
    Target("png", "one PNG per face, named by card id", "png:png_target"),
    Target("tts", "Tabletop Simulator deck sheets and a saved object", "tts:tts_target"),
    Target("tabletopia", "one PNG per face, 10 px a mm, each deck's faces one size", "faces:faces_target"),
    Target("faces", "one image per face at --dpi, for any tabletop that takes one", "faces:faces_target"),
    Target("showcase", "one PNG of --cards in a row, in perspective, reflected (Squib's showcase)",
           "showcase:showcase_target", pictures=True),
    Target("hand", "one PNG of --cards fanned as a hand holds them (Squib's hand)", "showcase:hand_target",
           pictures=True),
    *(Target(name, profile.shop, "profiles:profile_target", shop=True, program=profile.program)
      for name, profile in PROFILES.items()),
)}


def tabletops() -> list[str]:
    """The targets named as `pnp export NAME`."""
    return [name for name, t in TARGETS.items() if not t.shop]


def shops() -> list[str]:
    """The targets named as `pnp export --profile NAME`."""
    return [name for name, t in TARGETS.items() if t.shop]
