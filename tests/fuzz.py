"""A seeded mutation fuzzer over the shipped games' YAML, card text, templates and rulebooks.

Run by tests/test_fuzz.py in a subprocess (with a memory limit): `python tests/fuzz.py
SEED CASES [BUILDS]`. Each case copies nothing: it mutates one file of a private copy of
the project (cards/ and templates/), runs `pnp validate` in this process the way the
console command does, and puts the file back. The validate runs share one remembering
session (one per set of limits), as `pnp watch` keeps one across the edits it checks: each
case loads and checks the file it mutated afresh and takes what it did not change from the
memo (the first case, and the first after a case that hung, starts from an empty one). Every few cases the card text setter gets a
mutated card text; every TEMPLATE_EVERY cases a template or a rulebook of the smallest
game gets hostile Jinja (template injection, loops, bombs, broken syntax, files outside
the project) and the game is validated with its cards drawn; BUILDS cases run a whole
`pnp build`. A case fails when the
command exits with anything but 0, 1 or 2, prints a traceback, or takes longer than
CASE_SECONDS. Prints one JSON line: cases run, failures (with seed and case number, to
replay one) and the peak memory.
"""
from __future__ import annotations

import contextlib
import io
import json
import random
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from generator.session import Session

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CASE_SECONDS = 20     # a validate run (a whole build may take BUILD_SECONDS)
BUILD_SECONDS = 120
TEMPLATE_EVERY = 28   # one case in so many mutates a template or a rulebook
TEMPLATE_GAME = "metikoro"   # the game whose templates are fuzzed: the fewest faces to draw
GAMES = tuple(sorted(p.parent.name for p in (REPO / "cards").glob("*/game.yaml")))  # every shipped game
NASTY = [
    "1.0", "1e20", "1.0e20", "-1", "0", "10001", "1000000000", "99999999999999999999999", ".inf", "-.inf",
    ".nan", "null", "~", "true", "maybe", "''", "'   '", '"\\x01"', '"\\u0000"', '"\\ud800"', "!!int abc",
    "!!bool maybe", "!!float x", "!!binary AAAA", "!!set {a}", "!!omap [a: 1]", "!!timestamp x",
    "!!python/object/apply:os.system [echo]", "!!str", "[" * 300 + "]" * 300, "{a: {b: {c: [1, [2, [3]]]}}}",
    "&x [*x]", "*nowhere", "<<: 1", "{<<: [1, 2]}", "x" * 100_000, '"{{ 7 * 7 }}"',
    '"{% include \'/etc/hostname\' %}"', '"{{ game.__class__.__mro__ }}"', '"{{ data.nope }}"', '"**bold"',
    '"*"', '":nosuchicon:"', '"\\u202e\\u200b\\ufeff"', '"🂡 ☃ 𝔸"', '"<text>&amp;</svg>"', "2.5in", "-3mm",
    "99999mm", "0mm", "1e400mm", "{width: 1, height: 1}", "{width: 3000mm, height: 1mm}", "[]", "{}",
    "'a\\nb'", "|\n  block", "? complex", "- - -", ": :", "@", "`", "%YAML 1.1", "---", "...",
    "'" + "a" * 300 + ".svg.j2'", "../../../etc/passwd", "/etc/passwd", "'%s%n%x'", "'\\\\'",
]
CHARS = list("\n\t :-[]{},&*!|>'\"#%@`?\\~<>") + ["\x00", "\x01", "\x7f", "\u2028", "\ufffe", "é", "🂡"]
TEXTS = ["**", "*", ":", "::", ":favor:", ":no-such:", "\\*", "\\:", "\n\n", " " * 50, "W" * 400,
         "a " * 2000, "\u00ad", "\u0301", "x\x01y", "{{ 1/0 }}", "{% for %}", "<", "&", "]]>", "🂡", "\u202e"]


JINJA = [
    "{{ cycler.__init__.__globals__.os.popen('id').read() }}", "{{ joiner.__init__.__globals__ }}",
    "{{ lipsum.__globals__ }}", "{{ ''.__class__.__mro__[1].__subclasses__() }}", "{{ self.__init__ }}",
    "{{ request.application }}", "{{ config.items() }}", "{{ namespace.__init__.__globals__ }}",
    "{{ card|attr('__class__') }}", "{{ '{0.__class__}'.format(card) }}", "{% set d = {} %}{{ d.update(a=1) }}",
    "{% for i in range(10**9) %}x{% endfor %}", "{% for i in range(99999) %}{% for j in range(99999) %}"
    "{% endfor %}{% endfor %}", "{{ 'x' * 10**9 }}", "{{ 'x'|center(10**9) }}", "{{ 9 ** (9 ** 9) }}",
    "{{ '%0999999999d' % 1 }}", "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "{% include 'nope.j2' %}",
    "{% include '/etc/passwd' %}", "{% include '../../cards/olympians/game.yaml' %}", "{% extends 'x' %}",
    "{% for %}", "{{", "}}", "{%", "{# unclosed", "{{ card.nope }}", "{{ 1/0 }}", "{{ textbox() }}",
    "{{ icon('nope', 1, 2, 3) }}", "{{ fill('{{ 7 * 7 }}') }}", "{{ fill('{{ game.__class__ }}') }}",
    '<image href="/dev/zero" width="5" height="5"/>', '<image href="file:///etc/passwd" width="5" height="5"/>',
    '<image href="../../../../../../dev/zero" width="5" height="5"/>', "<text>&bogus;</text>", "<", "</svg>",
    '<use href="#u" id="u"/>', "\x00", "é🂡\u202e",
]


def mutate_template(text: str, rng: random.Random) -> str:
    """One to three hostile edits of a template or a rulebook: Jinja or SVG put in, a part
    cut out or repeated."""
    for _ in range(rng.randint(1, 3)):
        pos = rng.randrange(len(text) + 1)
        kind = rng.randrange(4)
        if kind <= 1:
            text = text[:pos] + rng.choice(JINJA) + text[pos:]
        elif kind == 2:
            text = text[:pos] + text[pos + rng.randint(1, 40):]
        else:
            end = min(len(text), pos + rng.randint(1, 200))
            text = text[:end] + text[pos:end] * rng.randint(2, 5) + text[end:]
    return text


class Hang(BaseException):  # not an Exception: no `except Exception` in pnp may swallow it
    pass


def _alarm(signum, frame):
    raise Hang()


def mutate(text: str, rng: random.Random) -> str:
    """One to three random edits of a YAML (or JSON) text."""
    for _ in range(rng.randint(1, 3)):
        lines = text.split("\n")
        kind = rng.randrange(8)
        i = rng.randrange(len(lines)) if lines else 0
        if kind == 0:  # a value replaced by a nasty one
            values = [n for n, line in enumerate(lines) if re.search(r":\s+\S", line)]
            if values:
                n = rng.choice(values)
                lines[n] = re.sub(r"(:\s+)[^,}\]\n]+", lambda m: m.group(1) + rng.choice(NASTY), lines[n], count=1)
        elif kind == 1 and lines:
            del lines[i]
        elif kind == 2 and lines:
            lines.insert(i, lines[i])
        elif kind == 3 and len(lines) > 1:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 4:  # stray characters
            pos = rng.randrange(len(text) + 1)
            text = text[:pos] + "".join(rng.choice(CHARS) for _ in range(rng.randint(1, 4))) + text[pos:]
            continue
        elif kind == 5:  # cut short
            text = text[:rng.randrange(len(text) + 1)]
            continue
        elif kind == 6:  # a word swapped for another word of the file
            words = re.findall(r"[A-Za-z_][\w.-]*", text)
            if words:
                a, b = rng.choice(words), rng.choice(words)
                text = text.replace(a, b, 1)
            continue
        else:  # a quoted card text made hostile
            quoted = [n for n, line in enumerate(lines) if '"' in line]
            if quoted:
                n = rng.choice(quoted)
                lines[n] = re.sub(r'"[^"]*"', lambda m: json.dumps(rng.choice(TEXTS) + m.group(0)[1:-1]),
                                  lines[n], count=1)
        text = "\n".join(lines)
    return text


def run_cli(args: list[str]) -> tuple[int, str]:
    """`pnp ARGS` in this process, as the console command runs it: (exit code, output)."""
    from generator.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(args)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        except (Hang, MemoryError):
            raise
        except BaseException as exc:
            import traceback

            return -1, out.getvalue() + err.getvalue() + "".join(traceback.format_exception(exc))
    return code, out.getvalue() + err.getvalue()


def fuzz_text(setter, rng: random.Random) -> str | None:
    """Card text through the text setter: a result or a TextError, nothing else."""
    from generator.draw.textfit import TextError

    text = "".join(rng.choice(TEXTS + ["word ", "Favor ", ":favor: ", "**b** ", "*i* "])
                   for _ in range(rng.randint(1, 30)))
    try:
        setter.svg(text, x=1, y=1, w=rng.choice([0.5, 10, 50]), h=rng.choice([0.5, 5, 30]),
                   family=rng.choice(["Lato", "EB Garamond", "sans-serif", "Nope"]), size=rng.choice([0.1, 3, 40]),
                   min_size=rng.choice([None, 0.05, 2]), max_lines=rng.choice([None, 1, 3]))
    except (TextError, LookupError):  # LookupError: a font pnp does not ship (a clean render error)
        pass
    except Exception as exc:
        return f"text setter: {type(exc).__name__}: {exc} for {text[:120]!r}"
    return None


def main(seed: int, cases: int, builds: int = 0) -> dict:
    from generator.data.load import load_game
    from generator.draw import fonts
    from generator.draw.fonts import shipped
    from generator.draw.render import load_icons
    from generator.draw.textfit import TextSetter

    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="pnp-fuzz-"))
    for name in ("cards", "templates"):
        shutil.copytree(REPO / name, work / name)
    fonts.activate(work / "output" / ".cache")
    icons, _ = load_icons(load_game(work, "olympians", Session()))
    setter = TextSetter(shipped(), icons)
    targets = sorted(p for g in GAMES for p in (work / "cards" / g).iterdir() if p.suffix in (".yaml", ".json"))
    templates = sorted([*(work / "templates" / TEMPLATE_GAME).glob("*.j2"), work / "cards" / TEMPLATE_GAME / "rulebook.md"])
    signal.signal(signal.SIGALRM, _alarm)
    import generator.cli.commands as commands

    fresh = commands.session_for
    remembered: dict = {}

    def remembering(limits, remember: bool = False):
        if limits not in remembered:
            remembered[limits] = fresh(limits, remember=True)
        return remembered[limits]
    failures, slowest = [], 0.0
    build_at = set(rng.sample(range(cases), min(builds, cases)))
    for case in range(cases):
        if case % 5 == 4:
            signal.alarm(CASE_SECONDS)
            try:
                found = fuzz_text(setter, rng)
            except Hang:
                found = f"text setter: no answer within {CASE_SECONDS} s"
            finally:
                signal.alarm(0)
            if found:
                failures.append({"seed": seed, "case": case, "problem": found})
            continue
        hostile = case % TEMPLATE_EVERY == TEMPLATE_EVERY // 2 and case not in build_at
        if hostile:  # a template or the rulebook, validated with every card drawn
            path = rng.choice(templates)
            original = path.read_text(encoding="utf-8")
            path.write_text(mutate_template(original, rng), encoding="utf-8")
            args = ["--root", str(work), "validate", TEMPLATE_GAME, "--time-limit", "2"]
        else:
            path = rng.choice(targets if case not in build_at else [t for t in targets if "olympians" in t.parts])
            original = path.read_text(encoding="utf-8")
            path.write_text(mutate(original, rng), encoding="utf-8")
            game = path.parent.name
            args = (["--root", str(work), "build", game, "--paper", "a4"] if case in build_at
                    else ["--root", str(work), "validate", game, "--no-render"])  # load + rules; builds draw
        started = time.perf_counter()
        limit = BUILD_SECONDS if case in build_at else CASE_SECONDS
        commands.session_for = fresh if case in build_at else remembering   # a build: a session of its own
        signal.alarm(limit)
        try:
            code, output = run_cli(args)
        except Hang:
            code, output = -2, f"no answer within {limit} s"
        except MemoryError:
            code, output = -3, "MemoryError"
        finally:
            signal.alarm(0)
            path.write_text(original, encoding="utf-8")
            commands.session_for = fresh
        if code in (-2, -3):   # stopped anywhere, perhaps halfway through filling the memo: start afresh
            remembered.clear()
        slowest = max(slowest, time.perf_counter() - started)
        escaped = (work / "PWNED").exists() or "uid=" in output  # a template that ran a command
        if code not in (0, 1, 2) or "Traceback" in output or escaped:
            failures.append({"seed": seed, "case": case, "file": str(path.relative_to(work)), "args": args[2:],
                             "exit": code, "output": output[-3000:]})
    shutil.rmtree(work, ignore_errors=True)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"cases": cases, "failures": failures, "slowest_s": round(slowest, 2), "peak_mb": round(peak_mb)}


if __name__ == "__main__":
    seed, cases = int(sys.argv[1]), int(sys.argv[2])
    builds = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    print(json.dumps(main(seed, cases, builds)))
