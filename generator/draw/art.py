"""Pictures a face draws (`<image>`): where they may come from.

In: the href CairoSVG hands its url fetcher, and the folders a game's pictures may live
in. Out: the picture's bytes, or `ImageNotFound` saying why it cannot be used: `data:`
URIs and files inside the game's template folders only, never the network.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import unquote

from .svgbridge import fetch_data_url


class ImageNotFound(Exception):
    """An <image> refers to a file that is missing or outside the project's folders."""


@dataclass(frozen=True)
class ArtFetcher:
    """CairoSVG url_fetcher: `data:` URIs, and files inside the game's template folders only."""

    roots: tuple[str, ...]

    def __call__(self, url: str, resource_type):
        if url.startswith("data:"):
            return fetch_data_url(url, resource_type)
        if not url.startswith("file://"):
            raise ImageNotFound(f"image '{url}' is not a file in the game's templates folder "
                                "(pnp never fetches from the network)")
        # CairoSVG made the href absolute against the working folder; it is meant relative to
        # the game's templates folder (no base URL is given: a '#' in a folder name would end it)
        href = os.path.relpath(unquote(url[len("file://"):]), os.getcwd())
        path = os.path.realpath(os.path.join(self.roots[0], href)) if self.roots else href
        shown = os.path.relpath(path, os.path.dirname(self.roots[0])) if self.roots else path
        if not any(path.startswith(os.path.realpath(r) + os.sep) for r in self.roots):
            raise ImageNotFound(f"image '{shown}' is outside the game's templates folder")
        if not os.path.isfile(path):
            raise ImageNotFound(f"image '{shown}' does not exist")
        with open(path, "rb") as fh:
            return fh.read()
