"""The one bridge to libhunspell: a language's Hunspell dictionary, asked whether a word is
spelled right and what it might have meant.

In: a language tag (`en`, `de`, `fr-CA`) and the Hunspell dictionaries Debian installs
(`hunspell-en-us`, `hunspell-de-de`, `hunspell-fr`, `hunspell-ar`: /usr/share/hunspell,
`<lang>_<REGION>.aff/.dic` or `<lang>.aff/.dic`). Out: a `Speller` (`spell`, `suggest`), or
None when the language has no dictionary here (Japanese: no Hunspell dictionary exists).

libhunspell is opened by its soname through `bindings.c_library` (as fonts.py opens
fontconfig) and called through ctypes: five functions of its C API (`FUNCTIONS`). Why not
spylls, Hunspell ported to Python: measured on this machine (benchmarks/words.md) it loads
the French dictionary in 3.5 s and takes 200 s for one suggestion, libhunspell 0.06 s and
0.1 s. tests/test_words.py checks the functions this module calls and how the dictionaries
answer, so an upgrade of either fails there first.
"""
from __future__ import annotations

import ctypes
from functools import lru_cache
from pathlib import Path

from ..bindings import c_library

SONAME = "libhunspell-1.7.so.0"     # Debian's libhunspell-1.7-0
DICTIONARIES = Path("/usr/share/hunspell")
# the dictionary a bare language tag means, where Debian has no file named by the tag alone
REGIONS = {"en": "en_US", "de": "de_DE", "fr": "fr", "ar": "ar", "es": "es_ES", "it": "it_IT", "nl": "nl",
           "pt": "pt_PT"}
MOST_SUGGESTIONS = 3
_CHARS = ctypes.POINTER(ctypes.c_char_p)
# name: (restype, argtypes)
FUNCTIONS = {
    "Hunspell_create": (ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_char_p]),
    "Hunspell_get_dic_encoding": (ctypes.c_char_p, [ctypes.c_void_p]),
    "Hunspell_spell": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]),
    "Hunspell_suggest": (ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(_CHARS), ctypes.c_char_p]),
    "Hunspell_free_list": (None, [ctypes.c_void_p, ctypes.POINTER(_CHARS), ctypes.c_int]),
}


@lru_cache(maxsize=1)
def library() -> ctypes.CDLL:
    """libhunspell with the signatures of the functions pnp calls.

    :raises OSError: it is not installed (`make` installs it: libhunspell-1.7-0)."""
    lib = c_library(SONAME, "hunspell-1.7")
    for name, (restype, argtypes) in FUNCTIONS.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


KNOWN_WORDS = 200_000   # verdicts a speller remembers (a word and a bool: some 20 MB at most)


class Speller:
    """One language's dictionary, opened once a process (`speller`)."""

    def __init__(self, name: str, aff: Path, dic: Path):
        self.name = name   # the dictionary's file name: en_US
        self._lib = library()
        self._handle = self._lib.Hunspell_create(str(aff).encode(), str(dic).encode())
        self._encoding = (self._lib.Hunspell_get_dic_encoding(self._handle) or b"UTF-8").decode("ascii")
        self._suggested: dict[tuple[str, int], tuple[str, ...]] = {}   # Hunspell takes 0.1 s a suggestion
        self._known: dict[str, bool] = {}   # its verdicts: a validate asks thousands, `pnp watch` again each save

    def _bytes(self, word: str) -> bytes | None:
        try:
            return word.encode(self._encoding)
        except (UnicodeEncodeError, LookupError):
            return None

    def spell(self, word: str) -> bool:
        """Whether the dictionary knows the word (as Hunspell reads it: affixes, compounds)."""
        known = self._known.get(word)
        if known is None:
            if len(self._known) >= KNOWN_WORDS:
                self._known.clear()
            raw = self._bytes(word)
            known = self._known[word] = raw is not None and bool(self._lib.Hunspell_spell(self._handle, raw))
        return known

    def suggest(self, word: str, most: int = MOST_SUGGESTIONS) -> tuple[str, ...]:
        """Hunspell's nearest words, best first."""
        if (word, most) not in self._suggested:
            self._suggested[word, most] = self._suggest(word, most)
        return self._suggested[word, most]

    def _suggest(self, word: str, most: int) -> tuple[str, ...]:
        raw = self._bytes(word)
        if raw is None:
            return ()
        found = _CHARS()
        n = self._lib.Hunspell_suggest(self._handle, ctypes.byref(found), raw)
        try:
            return tuple(found[i].decode(self._encoding, "replace") for i in range(min(n, most)))
        finally:
            if n > 0:
                self._lib.Hunspell_free_list(self._handle, ctypes.byref(found), n)


def dictionary_files(lang: str) -> tuple[Path, Path] | None:
    """The .aff and .dic a language tag means (`fr-CA`: fr_CA, else fr), or None."""
    parts = str(lang).replace("-", "_").split("_")
    names = []
    if len(parts) > 1:
        names.append(f"{parts[0].lower()}_{parts[1].upper()}")
    names += [REGIONS.get(parts[0].lower(), ""), parts[0].lower()]
    for name in filter(None, names):
        aff, dic = DICTIONARIES / f"{name}.aff", DICTIONARIES / f"{name}.dic"
        if aff.is_file() and dic.is_file():
            return aff, dic
    return None


@lru_cache(maxsize=16)
def speller(lang: str) -> Speller | None:
    """The language's `Speller`, opened once a process; None when there is no dictionary for it.

    :raises OSError: libhunspell is not installed."""
    files = dictionary_files(lang)
    return None if files is None else Speller(files[0].stem, *files)
