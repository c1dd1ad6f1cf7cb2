"""`pnp stats`: the games' deck statistics, printed, and their stats sheets written.

In: the project root, the games asked for (none: every game), `BuildOptions` (the papers,
the output folder) and the session. Out: each game's statistics (`rules/stats.game_stats`,
after loading the game) and, with `write_sheets`, `output/<game>/<game>-stats-<paper>.pdf`
for each of the game's papers, laid out by `layout/statsheet.py` and written by the export
stage (`exports/files.write_game`, merged into the game's set: listed in its manifest as
kind `stats`; the next `pnp build` makes a new set without it).
"""
from __future__ import annotations

from pathlib import Path

from .data.load import load_game
from .data.model import Game
from .exports.files import Artifact, write_game
from .layout.statsheet import stats_pdf
from .options import BuildOptions
from .outputfolder import prepare_output
from .pipeline import resolve_games
from .printing import game_papers
from .rules.stats import game_stats


def games_stats(root: Path, games, session) -> list[tuple[Game, dict]]:
    """(the loaded game, its statistics) for each game asked for."""
    out = []
    for game_id in resolve_games(root, list(games)):
        game = load_game(root, game_id, session)
        out.append((game, game_stats(game)))
    return out


def write_sheets(root: Path, loaded: list[tuple[Game, dict]], options: BuildOptions) -> list[Path]:
    """Each game's stats sheet on each of its papers, written into its output folder."""
    out_dir = options.output(root)
    prepare_output(out_dir)
    written: list[Path] = []
    for game, stats in loaded:
        artifacts = []
        for paper in game_papers(game, options):
            data, pages = stats_pdf(stats, paper)
            artifacts.append(Artifact(f"{game.id}-stats-{paper}.pdf", data, "stats", paper, pages))
        written.extend(p for p in write_game(out_dir, game.id, artifacts, merge=True) if p.suffix == ".pdf")
    return written
