"""What a rulebook's layout keeps in the session's memo for the next one, by these keys.

In: a book (game, language, paper) and its hyphenation. Out: the keys of its contents
(book.py: the first guess of the next layout) and of its paragraphs' line ends
(breaking.LineEnds), made in one place for the layout that keeps them and for the build
that finds the book laid out and carries them on (`layout_rulebook`, which imports no
Platypus).
"""
from __future__ import annotations


def contents_key(book: tuple) -> tuple:
    """The contents a layout of `book` (game, language, paper) ended with."""
    return ("rulebook contents", *book)


def lines_key(hyphenation, book: tuple) -> tuple:
    """The line ends of the paragraphs of `book` under `hyphenation`'s rules."""
    return ("rulebook line ends", *book, hyphenation.rules_key())
