"""Rulebook (placeholder)."""


def layout_rulebook(game, rendered, paper):
    return None
