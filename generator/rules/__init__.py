"""Deck rules validator (placeholder until the rules engine lands)."""


class _Report:
    def raise_if_failed(self):
        return []


def check_game(game, strict=False):
    return _Report()
