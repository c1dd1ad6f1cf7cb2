"""Rulebook source: Markdown rendered through Jinja, parsed into simple blocks.

In: `cards/<game>/rulebook.md` and the loaded game. Out: a list of `Block`s (headings,
paragraphs, lists, tables, figures, rules) in reading order. Jinja runs first, so the
text can print numbers and tables from the game's YAML; a Jinja error names the file
and the line. Parsing is markdown-it-py's (CommonMark plus tables).
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

import jinja2
from jinja2.sandbox import SecurityError

from ..data.yamlsrc import line_of
from ..draw.helpers import RULEBOOK, Inputs, cache_words, rulebook_environment, template_data
from ..draw.jinja_errors import plain_message, template_line
from ..draw.templates import from_source, render
from ..errors import InputError, Problem
from ..guard import (
    MAX_MARKDOWN,
    Limits,
    OutsideProject,
    TimeLimit,
    is_file_inside,
    missing_message,
    read_text_inside,
)
from ..rendermemo import Memo
from ..session import Session


@dataclass
class Block:
    kind: str                       # heading, paragraph, list, table, figure, rule, quote
    text: str = ""                  # inline markup for reportlab (already escaped)
    level: int = 0                  # heading level / list nesting
    items: list = field(default_factory=list)    # list items (inline markup), table rows
    ordered: bool = False
    figure: tuple = ()              # (kind: card|cards|components, ids)
    line: int | None = None         # line in the rendered Markdown


def rulebook_file(game):
    """The game's rulebook source, or None when it has none; naming a missing file is an
    error. An edition in another language than the cards are written in reads its own,
    rulebook.<lang>.md beside rulebook.md, and must have one when the game has a rulebook."""
    name = game.meta.get("rulebook")
    if not name:
        return None   # a rulebook is read only where game.yaml names it
    path = game.cards_dir / name
    found = is_file_inside(game.root, path)
    if not found:
        raise InputError("1 problem in game.yaml", [Problem(
            game.source.file, missing_message(game.root, path, f"rulebook file '{name}'"),
            line=line_of(game.meta, ("rulebook",)), field="rulebook")])
    if not found or not game.edition:
        return path if found else None
    own = path.with_name(f"{path.stem}.{game.edition}{path.suffix}")
    if not is_file_inside(game.root, own):
        shown = str(own.relative_to(game.root))
        raise InputError("1 problem in the rulebook", [Problem(
            shown, f"not translated: the {game.edition} edition needs its own rulebook beside "
                   f"{path.name} ({missing_message(game.root, own, 'this file')})")])
    return own


def render_markdown(game, path, session: Session) -> str:
    """The Markdown after Jinja (sandboxed, bounded: draw/templates.py), with the game's
    data in scope; its compiled template remembered by a remembering session while `pnp
    watch` rebuilds, its code compiled once for every paper (the session's `templates`)."""
    shown = str(path.relative_to(game.root))
    ctx = game.context()
    deadline = session.limits.deadline("the rulebook's Jinja")
    try:
        text = read_text_inside(game.root, path, shown)
        inputs = Inputs(deadline, strings=game.strings, language=game.language)
        template = session.memo.derived(("rulebook template", text, cache_words(RULEBOOK, inputs)),
                                        lambda: from_source(rulebook_environment(inputs), text, session.templates),
                                        few=True)
        return render(template, template.environment.deadline,
                      **template_data(RULEBOOK, game=ctx, data=ctx["data"], decks=ctx["decks"]))
    except OutsideProject as exc:
        raise InputError("1 problem in the rulebook", [Problem(shown, str(exc))]) from None
    except jinja2.TemplateSyntaxError as exc:
        raise InputError("1 problem in the rulebook", [Problem(shown, f"template syntax error: {exc.message}",
                                                               line=exc.lineno)]) from None
    except SyntaxError as exc:  # what Jinja's parser lets through to Python's (a keyword given twice)
        raise InputError("1 problem in the rulebook", [Problem(shown, f"template syntax error: {exc.msg}")]) \
            from None
    except SecurityError as exc:
        _, line = template_line(exc, lambda f: f == "<template>")
        raise InputError("1 problem in the rulebook", [Problem(
            shown, f"the rulebook reaches for what templates may not use ({plain_message(exc)}): it is data, "
                   "not code, and pnp renders it in a sandbox", line=line)]) from None
    except RecursionError as exc:
        _, line = template_line(exc, lambda f: f == "<template>")
        raise InputError("1 problem in the rulebook", [Problem(
            shown, "the rulebook's Jinja calls itself without end (a macro that calls itself?)", line=line)]) from None
    except (jinja2.TemplateError, TimeLimit, LookupError, TypeError, ValueError, ArithmeticError) as exc:
        _, line = template_line(exc, lambda f: f == "<template>")
        raise InputError("1 problem in the rulebook", [Problem(shown, plain_message(exc), line=line)]) from None
    except MemoryError:
        raise InputError("1 problem in the rulebook", [Problem(
            shown, "the rulebook's Jinja made more than this machine can hold")]) from None
    except Exception as exc:  # anything else its Jinja or the game's data provoke: said, never a traceback
        _, line = template_line(exc, lambda f: f == "<template>")
        raise InputError("1 problem in the rulebook", [Problem(
            shown, f"{type(exc).__name__}: {plain_message(exc)}", line=line)]) from None


def parse_blocks(markdown: str, memo: Memo | None = None, shown: str = "the rulebook",
                 limits: Limits | None = None) -> list[Block]:
    """The Markdown as blocks (remembered in `memo` for the same text while `pnp watch` rebuilds),
    parsed within MAX_MARKDOWN characters and the face time of `limits` (markdown-it takes
    time growing with the square of some texts: 4 MB of `[` ran for minutes).

    :raises InputError: naming the rulebook file (`shown`) when either bound is passed.
    """
    if len(markdown) > MAX_MARKDOWN:
        raise InputError("1 problem in the rulebook", [Problem(
            shown, f"the rulebook comes to {len(markdown):,} characters once its Jinja has run; pnp lays out "
                   f"at most {MAX_MARKDOWN:,}")])
    deadline = (limits or Limits()).deadline("parsing the rulebook's Markdown")
    try:
        with deadline.running():
            if memo is None:
                return list(_parse_blocks(markdown))
            return list(memo.derived(("rulebook blocks", markdown), lambda: _parse_blocks(markdown), few=True))
    except TimeLimit as exc:
        raise InputError("1 problem in the rulebook", [Problem(shown, str(exc))]) from None
    except RecursionError:
        raise InputError("1 problem in the rulebook", [Problem(
            shown, "the rulebook's Markdown is nested too deeply to parse")]) from None


def _parse_blocks(markdown: str) -> tuple[Block, ...]:
    from markdown_it import MarkdownIt  # 70 ms to import: not by a rebuild that remembers the blocks

    md = MarkdownIt("commonmark").enable("table")
    tokens = md.parse(markdown)
    blocks, i = [], 0
    list_stack: list[Block] = []
    while i < len(tokens):
        t = tokens[i]
        line = t.map[0] + 1 if t.map else None
        if t.type == "heading_open":
            blocks.append(Block("heading", _inline(tokens[i + 1]), level=int(t.tag[1]), line=line))
            i += 3
            continue
        if t.type in ("bullet_list_open", "ordered_list_open"):
            block = Block("list", ordered=t.type == "ordered_list_open", level=len(list_stack), line=line)
            if list_stack:
                list_stack[-1].items.append(block)
            else:
                blocks.append(block)
            list_stack.append(block)
        elif t.type in ("bullet_list_close", "ordered_list_close"):
            list_stack.pop()
        elif t.type == "paragraph_open":
            inline = tokens[i + 1]
            figure = _figure(inline)
            if list_stack:
                list_stack[-1].items.append(_inline(inline))
            elif figure:
                blocks.append(Block("figure", text=figure[2], figure=figure[:2], line=line))
            else:
                blocks.append(Block("quote" if _in_quote(tokens, i) else "paragraph", _inline(inline), line=line))
            i += 3
            continue
        elif t.type == "table_open":
            rows: list[list[str]] = []
            j = i + 1
            while tokens[j].type != "table_close":
                if tokens[j].type == "tr_open":
                    rows.append([])
                elif tokens[j].type == "inline":
                    rows[-1].append(_inline(tokens[j]))
                j += 1
            blocks.append(Block("table", items=rows, line=line))
            i = j + 1
            continue
        elif t.type == "hr":
            blocks.append(Block("rule", line=line))
        elif t.type in ("fence", "code_block"):
            blocks.append(Block("paragraph", escape(t.content).replace("\n", "<br/>"), line=line))
        i += 1
    return tuple(blocks)


def _in_quote(tokens, i) -> bool:
    depth = 0
    for t in tokens[:i]:
        depth += {"blockquote_open": 1, "blockquote_close": -1}.get(t.type, 0)
    return depth > 0


def _figure(inline):
    """`![caption](card:id)`, `![caption](cards:a,b)` or `![caption](components:)` alone in a paragraph."""
    kids = [c for c in inline.children or [] if not (c.type == "text" and not c.content.strip())]
    if len(kids) != 1 or kids[0].type != "image":
        return None
    src = kids[0].attrs.get("src", "")
    kind, _, rest = src.partition(":")
    if kind not in ("card", "cards", "components"):
        return None
    ids = tuple(x.strip() for x in rest.split(",") if x.strip())
    caption = escape("".join(c.content for c in kids[0].children or []))
    return kind, ids, caption


def _inline(token) -> str:
    out = []
    for c in token.children or []:
        if c.type == "text":
            out.append(escape(c.content))
        elif c.type in ("strong_open", "strong_close"):
            out.append("<b>" if c.type.endswith("open") else "</b>")
        elif c.type in ("em_open", "em_close"):
            out.append("<i>" if c.type.endswith("open") else "</i>")
        elif c.type == "code_inline":
            out.append(f'<font face="DejaVuSans">{escape(c.content)}</font>')
        elif c.type in ("softbreak",):
            out.append(" ")
        elif c.type == "hardbreak":
            out.append("<br/>")
        elif c.type == "image":
            out.append(escape("".join(k.content for k in c.children or [])))
        elif c.type in ("link_open", "link_close"):
            continue
        else:
            out.append(escape(c.content))
    return "".join(out)


def plain_text(markup: str) -> str:
    """Reportlab paragraph markup back to the words it prints."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup.replace("&nbsp;", " ")))


def book_text(game, blocks, words: dict) -> str:
    """Every word the book prints, to tell whether reportlab's fonts can set it."""
    parts = [game.title, str(game.meta.get("subtitle") or ""), *words.values()]
    for b in blocks:
        parts += [plain_text(b.text), *(plain_text(c) for row in b.items if isinstance(row, list) for c in row),
                  *(plain_text(i) for i in b.items if isinstance(i, str))]
    return "".join(parts)
