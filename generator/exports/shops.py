"""The print shops pnp makes files for, as one table: each shop's products (trim and canvas
sizes), resolution, bleed, total ink and where the numbers come from.

In: nothing (data). Out: `PROFILES`, read by `profiles.py` (which makes the files) and by
`targets.py` (each shop is an export target, `pnp export --profile NAME`). A new print
shop is one entry here. Light on purpose: the command line reads it at start-up.
"""
from __future__ import annotations

from dataclasses import dataclass

IN = 25.4


@dataclass(frozen=True)
class Product:
    name: str
    trim_in: tuple[float, float]     # width, height of the cut card, inches
    canvas: tuple[float, float]      # the file's size: px for images, inches for PDF pages


@dataclass(frozen=True)
class Profile:
    name: str
    shop: str
    kind: str            # png or pdf
    dpi: int
    bleed_in: float      # per side
    products: tuple[Product, ...]
    source: str
    max_ink: float | None = None   # total ink limit (C+M+Y+K, percent) of a CMYK file; None: RGB files
    program: str | None = None     # a program its files are checked with (an untrusted build cannot run one)


PROFILES = {
    # ../shared/research/print-targets.md §2 [S13][S15][S16]: 300 dpi, 1/8 in (37.5 px) bleed a side,
    # image = (trim + 1/4 in) x 300; the product table from templative's TGC table.
    "tgc": Profile("tgc", "The Game Crafter", "png", 300, 0.125, (
        Product("poker", (2.5, 3.5), (825, 1125)),
        Product("bridge", (2.25, 3.5), (750, 1125)),
        Product("mini", (1.75, 2.5), (600, 825)),
        Product("tarot", (2.75, 4.75), (900, 1500)),
        Product("square", (3.5, 3.5), (1125, 1125)),
        Product("small square", (2.5, 2.5), (825, 825)),
        Product("mini square tile", (1.25, 1.25), (450, 450)),
        Product("small square tile", (2.0, 2.0), (675, 675)),
        Product("small chit", (0.5, 0.5), (225, 225)),
        Product("medium chit", (0.75, 0.75), (300, 300)),
        Product("large chit", (1.0, 1.0), (375, 375)),
    ), "help.thegamecrafter.com/article/33-dpi-dots-per-inch; templative componentInfo.js (print-targets.md §2)"),
    # print-targets.md §3 and anchors.md (POD-mpc1..3, MPC upload FAQ makeplayingcards.com/pops/faq-photo.html,
    # second-hand): 300 dpi, 36 px bleed a side; poker 822 x 1122 (trim 750 x 1050), tarot 897 x 1497.
    "mpc": Profile("mpc", "MakePlayingCards", "png", 300, 36 / 300, (
        Product("poker", (2.5, 3.5), (822, 1122)),
        Product("tarot", (2.75, 4.75), (897, 1497)),
    ), "makeplayingcards.com/pops/faq-photo.html via print-targets.md §3 (second-hand)"),
    # print-targets.md §4 [S20] and anchors.md (POD-dtc1, Squib drivethrucards_1up sprue): bleed 1/8 in on all
    # four sides built into the PDF, poker page 2.75 x 3.75 in, one card per page, back and front alternating
    # (andymeneely/squib lib/squib/builtin/sprues/drivethrucards_1up.yml: "alternate back/front, back/front").
    "dtc": Profile("dtc", "DriveThruCards", "pdf", 300, 0.125, (
        Product("poker", (2.5, 3.5), (2.75, 3.75)),
        Product("bridge", (2.25, 3.5), (2.5, 3.75)),
        Product("tarot", (2.75, 4.75), (3.0, 5.0)),
        Product("square", (3.5, 3.5), (3.75, 3.75)),
    ), "onebookshelfpublisherservice.zendesk.com/hc/en-us/articles/227867607 (print-targets.md §4)",
        # total ink at most 240 %: help.drivethrupartners.com/hc/de/articles/12780748203543 and the Common
        # Card Prep article above (../shared/research/user-asks.md §4, DriveThruCards row, and item 16)
        max_ink=240, program="DriveThruCards' ink check runs Ghostscript"),
}
