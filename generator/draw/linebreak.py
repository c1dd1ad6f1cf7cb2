"""A paragraph's lines chosen as a whole (total fit, Knuth and Plass's method as TeX uses it)
or one at a time (first fit), from widths measured by whoever sets the text.

In: the paragraph as `Word`s (each its width, the width of the space after it and the
hyphenations its rules allow, as (width of the head with its hyphen, width of the tail)),
the width of its first line and of the others, and `Settings`. Out: the positions its lines
end at, (word, cut): after the word (cut -1) or inside it at that hyphenation; `fills`, how
full each line is.

Total fit finds the breaks whose sum of demerits is least: a line's demerits grow with the
cube of its slack (ragged right: the slack is measured against `stretch` of the line, as
TeX's \\rightskip stretch), a hyphenated end adds `hyphen`, a second in a row `double`, a
break that leaves or carries only two letters `short` (typographers avoid them: "eben-so"),
a third hyphenated line in a row is never chosen, and the last word is never hyphenated.
So a word is hyphenated only where the line would otherwise be much shorter than its box
(by some 6.5 % of the line, 11 mm on A4: the values were chosen on the shipped rulebooks,
docs/typography.md). Written here rather than taken
from PyPI: the two packages there (`justified` 0.1, 2016, fixed-width type only; `pyparagraph`
0.0.7, 2022, drawing on PIL images) are neither kept nor able to take another engine's widths.
"""
from __future__ import annotations

from dataclasses import dataclass

END = -1           # a line ending after its word, not inside it
FUZZ = 1e-6        # widths are sums of floats
OVERFULL = 1e12    # a word wider than its line: it stands alone, whatever it costs


@dataclass(frozen=True)
class Word:
    width: float
    space: float = 0.0           # after it (none after the last)
    cuts: tuple = ()             # ((head with its hyphen, tail, short), ...): widths in order, and
    #                              whether the break leaves or carries fewer than three letters


@dataclass(frozen=True)
class Settings:
    stretch: float = 0.07        # of the line: slack this large is badness 100
    line: float = 10.0           # demerits every line costs (fewer lines, all else equal)
    hyphen: float = 8000.0       # demerits of a line ending in a hyphen: worth it only against
    double: float = 8000.0       # slack of about 6.5 % of the line; more for a second in a row
    short: float = 16000.0       # more for a break that leaves or carries two letters ("eben-so")
    in_a_row: int = 2            # hyphenated lines in a row, at most


def _positions(words) -> list[tuple[int, int]]:
    last = len(words) - 1
    return [(j, k) for j, w in enumerate(words) for k in (*(range(len(w.cuts)) if j < last else ()), END)]


class _Paragraph:
    def __init__(self, words, widths):
        self.words = words
        self.first, self.rest = (widths, widths) if isinstance(widths, (int, float)) else widths
        self.at = [0.0]
        for w in words:
            self.at.append(self.at[-1] + w.width + w.space)

    def natural(self, p: tuple[int, int] | None, q: tuple[int, int]) -> float:
        """The natural width of the line from position p (None: the paragraph's start) to q."""
        if p is None:
            lead, base = 0.0, 0.0
        elif p[1] == END:
            lead, base = 0.0, self.at[p[0] + 1]
        else:
            i = p[0]
            lead, base = self.words[i].cuts[p[1]][1] + self.words[i].space, self.at[i + 1]
        j, k = q
        if k == END:
            return lead + self.at[j + 1] - self.words[j].space - base
        return lead + self.at[j] - base + self.words[j].cuts[k][0]


def total_fit(words: list[Word], widths, settings: Settings = Settings()) -> list[tuple[int, int]]:
    """The ends of the lines whose demerits sum least (see the module's docstring)."""
    if not words:
        return []
    para = _Paragraph(words, widths)
    places = _positions(words)
    last = len(places) - 1
    best: dict = {(-1, 0): (0.0, None)}   # (place index, hyphens in a row) -> (demerits, previous key)
    for start in range(-1, last):
        for run in range(settings.in_a_row + 1):
            here = best.get((start, run))
            if here is None:
                continue
            p = places[start] if start >= 0 else None
            width = para.first if p is None else para.rest
            tried = False
            for n in range(start + 1, last + 1):
                q = places[n]
                if p is not None and p[1] != END and q[0] == p[0] and q[1] != END:
                    continue   # a word is hyphenated once
                natural = para.natural(p, q)
                if natural > width + FUZZ:
                    if q[1] == END:
                        if tried:
                            break
                        cost = OVERFULL   # nothing fits: the word stands alone
                    else:
                        continue
                else:
                    cost = 0.0 if n == last else _demerits(natural, width, q[1] != END, run, settings)
                    if q[1] != END and n != last and words[q[0]].cuts[q[1]][2:3] == (True,):
                        cost += settings.short
                tried = True
                hyphenated = q[1] != END and n != last
                key = (n, run + 1 if hyphenated else 0)
                if key[1] > settings.in_a_row:
                    continue
                total = here[0] + cost
                if key not in best or total < best[key][0]:
                    best[key] = (total, (start, run))
                if cost == OVERFULL:
                    break
    ends = min((k for k in best if k[0] == last), key=lambda k: best[k][0])
    out = []
    while ends[0] >= 0:
        out.append(places[ends[0]])
        ends = best[ends][1]
    return out[::-1]


def _demerits(natural: float, width: float, hyphenated: bool, run: int, s: Settings) -> float:
    badness = 100.0 * ((width - natural) / (s.stretch * width)) ** 3
    out = (s.line + badness) ** 2
    if hyphenated:
        out += s.hyphen + (s.double if run else 0.0)
    return out


def first_fit(words: list[Word], widths) -> list[tuple[int, int]]:
    """Line by line: as many words as fit, then as much of the next as a hyphenation lets in."""
    para = _Paragraph(words, widths)
    places = _positions(words)
    out: list[tuple[int, int]] = []
    start = -1
    while start < len(places) - 1:
        p = places[start] if start >= 0 else None
        width = para.first if p is None else para.rest
        fit = None
        for n in range(start + 1, len(places)):
            q = places[n]
            if p is not None and p[1] != END and q[0] == p[0] and q[1] != END:
                continue   # a word is hyphenated once
            if para.natural(p, q) <= width + FUZZ:
                fit = n
            elif q[1] == END:
                if fit is None:
                    fit = n   # nothing fits: the word stands alone
                break
        fit = len(places) - 1 if fit is None else fit   # (the last place is an end: never None)
        out.append(places[fit])
        start = fit
    return out


def fills(words: list[Word], ends: list[tuple[int, int]], widths) -> list[float]:
    """How full each line is (natural width over the line's width), the last line too."""
    para = _Paragraph(words, widths)
    out, p = [], None
    for q in ends:
        out.append(para.natural(p, q) / (para.first if p is None else para.rest))
        p = q
    return out
