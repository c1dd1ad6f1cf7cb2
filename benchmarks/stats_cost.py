"""What `pnp stats` adds to `pnp validate` on the shipped games, as a ratio in one run.

In: the shipped games (this checkout's cards/). Out, printed: the median CPU time of
`pnp validate`'s work in process (`preflight.validate_games`, by default without drawing:
`--render` draws every card as `pnp validate` does by default), of the statistics of the
same games once loaded (`rules/stats.game_stats`: what `pnp stats` computes beyond
loading), and of a whole `pnp stats` (each game loaded and its statistics, `deckstats`);
the milliseconds the statistics add and the ratio (validate + stats) / validate. The issue's
bar: the statistics add at most 100 ms to validate.

    python benchmarks/stats_cost.py [--repeat 7] [--render]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    from generator.data.load import list_games, load_game
    from generator.deckstats import games_stats
    from generator.options import BuildOptions
    from generator.preflight import validate_games
    from generator.rules.stats import game_stats
    from generator.session import Session

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--render", action="store_true", help="validate draws every card (pnp validate's default)")
    args = parser.parse_args()
    games = list_games(ROOT)
    loaded = [load_game(ROOT, g, Session()) for g in games]
    game_stats(loaded[0])   # imports and regexes compiled once, as in a running command
    validate, stats, whole = [], [], []
    for _ in range(args.repeat):
        validate.append(_cpu(lambda: validate_games(ROOT, (), BuildOptions(), Session(), args.render)))
        stats.append(_cpu(lambda: [game_stats(g) for g in loaded]))
        whole.append(_cpu(lambda: games_stats(ROOT, (), Session())))
    v, s, w = (statistics.median(x) for x in (validate, stats, whole))
    print(f"{len(games)} games, median CPU of {args.repeat} runs")
    print(f"  pnp validate{' (drawing)' if args.render else ' --no-render'}: {v * 1000:8.1f} ms")
    print(f"  statistics of the loaded games: {s * 1000:8.1f} ms   (added to validate: ratio {(v + s) / v:.3f})")
    print(f"  pnp stats (load + statistics):  {w * 1000:8.1f} ms   (ratio to validate: {w / v:.3f})")
    print(f"  bar: the statistics add <= 100 ms: {'met' if s <= 0.1 else 'NOT met'}")


if __name__ == "__main__":
    main()
