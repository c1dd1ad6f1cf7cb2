"""What a text box asks of the Pango engine (pangotext.py), and what it answers.

In: nothing (plain records). Out: `Spec`, everything that decides a text box's lines;
`Laid`, a PangoLayout at the engine's nominal size with what was learnt building it;
`Fitted`, the size found and the lines it gives.
"""
from __future__ import annotations

from dataclasses import dataclass

from .hyphenate import Hyphenation


@dataclass(frozen=True)
class Spec:
    """Everything that decides a text box's lines (the box's height only decides its size)."""
    text: str                    # pnp markup
    width: float                 # of the box, in the face's units (mm)
    size: float                  # font size, in the same units
    family: str = "Lato"         # a family name fontconfig knows (generic names already resolved)
    bold: bool = False
    leading: float = 1.2         # line height, in font sizes
    align: str = "left"          # left (the start, in a right-to-left paragraph), center, right, justify
    lang: str = "en"             # BCP 47: hyphenation, line breaking and shaping follow it
    features: tuple = ()         # ((style, "onum, smcp"), ...): style is "text", "bold" or "italic"
    letter_spacing: float = 0.0  # em
    hyphenate: bool = True       # insert soft hyphens from the language's dictionary
    hyphens: tuple | None = None  # or exactly these: offsets in the text without soft hyphens
    icons: tuple = ()            # ((name, width / height), ...) of the icons the text uses
    hyphenation: Hyphenation | None = None   # the game's rules and protected words (None: the language's)
    last_words: bool = False     # a paragraph's last word may be hyphenated too (when nothing else fits)
    breaks: tuple = ()           # offsets (in the text without soft hyphens) of spaces set as line breaks

    def shaped(self) -> tuple:
        """What the layout itself depends on (not the size or width it is wrapped to)."""
        return (self.text, self.family, self.bold, self.leading, self.align, self.lang, self.features,
                self.letter_spacing, self.hyphenate, self.hyphens, self.icons, self.hyphenation, self.last_words,
                self.breaks)


@dataclass
class Laid:
    """A PangoLayout at size NOMINAL and what was learnt building it."""
    layout: object
    text: bytes                 # the layout's text (UTF-8)
    char_at: list               # byte index -> character index (for the log attributes)
    icons: list                 # (name, byte index) of each inline icon
    hyphen_at: dict             # byte index of each soft hyphen -> its offset in the text without them
    paragraphs: int
    width: int = -1             # the Pango width it is wrapped to now
    breaks: list | None = None  # per character, whether a line may break before it (read once)


@dataclass(frozen=True)
class Fitted:
    spec: Spec                  # the size found and the soft hyphens the lines break at
    height: float               # of the laid out block
    lines: int
