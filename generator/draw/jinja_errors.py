"""Jinja errors turned into where-and-what for designers (shared by cards and rulebooks)."""
from __future__ import annotations

import re
import traceback


def template_line(exc: BaseException, is_template) -> tuple[str | None, int | None]:
    """(file, line) of the innermost traceback frame that is template code.

    Jinja rewrites tracebacks so that template code appears with the template's own
    file name and line; `is_template(filename)` says which frames those are.
    """
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if is_template(frame.filename):
            return frame.filename, frame.lineno
    return None, None


def plain_message(exc: BaseException, data_word: str = "the data") -> str:
    """The error message without Python class names ("'dict object' has no attribute")."""
    return re.sub(r"'[\w.]*(LineDict|LineList|dict|list) object'", data_word, str(exc))
