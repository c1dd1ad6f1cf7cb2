"""Bounds that hold for the whole build (issue 44): what one template step may make, a
clean message for every error a template or its data can provoke, the time of the whole
command, the rulebook's Markdown, the pixels of a raster export. Each case ends in a clean
exit 2 naming the file (and the card), never a traceback, fast."""
from __future__ import annotations

import time

import pytest

from tests.conftest import MINI_FRONT, named, run

SECONDS = 30   # the most a refused case may take (they take well under a second)


def _clean(result, started: float, code: int = 2) -> str:
    out = result.output
    assert result.exit_code == code, out
    assert "Traceback" not in out and (result.exception is None or isinstance(result.exception, SystemExit)), \
        repr(result.exception)
    assert time.perf_counter() - started < SECONDS
    return out


# Each made 1-3 GB, or ran past any limit, before its bound (issue 44).
GROWING = [
    ("{{ '%*d' % (10**8, 1) }}", "the format"),
    ("{{ '%.*f' % (10**8, 1) }}", "the format"),
    ("{{ '{:{}}'.format(1, 10**8) }}", "a million or more"),
    ("{{ '{a:{w}}'.format_map({'w': 10**8, 'a': 1}) }}", "a million or more"),
    ("{{ '%*d'|format(10**8, 1) }}", "1,000,000"),
    ("{{ '%*d'|format(999999, 1) ~ '%*d'|format(999999, 1) }}", "1,000,000"),
    ("{{ 1|fmt('>' ~ 10**8) }}", "a million or more"),
    ("{% set s = 'x' * 999999 %}{{ ([s] * 3000)|join|length }}", "joining 3,000 items"),
    ("{% set s = 'x' * 999999 %}{{ ''.join([s] * 3000)|length }}", "joining 3,000 items"),
    ("{{ ('a\n' * 300000)|indent('x' * 999999)|length }}", "|indent"),
    ("{{ ('a\n' * 400000)|indent(999)|length }}", "|indent"),
    ("{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"
     "{{ ns.s|length }}", "joining with ~"),
    ("{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}"
     "{{ ns.s|length }}", "adding these"),
    ("{% set ns = namespace(n=2) %}{% for i in range(40) %}{% set ns.n = ns.n * ns.n %}{% endfor %}"
     "{{ ns.n|string|length }}", "bits"),
    ("{{ range(99999)|slice(10**8)|list|length }}", "|slice"),
    ("{{ range(99999)|slice(999999)|list|length }}", "|slice"),
    ("{{ [1]|batch(10**8, 'x')|list|length }}", "|batch"),
    ("{{ ('a ' * 400000)|wordwrap(1, wrapstring='x' * 999)|length }}", "|wordwrap"),
    ("{{ ('x' * 999999)|replace('', 'yy')|length }}", "|replace"),
    ("{{ ('x' * 999999).replace('x', 'y' * 999999)|length }}", "replace()"),
    ("{{ ('\t' * 9999).expandtabs(9999)|length }}", "expandtabs()"),
    ("{{ ('x' * 999999).translate({120: 'y' * 999999})|length }}", "translate()"),
    ("{{ ('x' * 999999).join('y' * 999999)|length }}", "joining 999,999 items"),
    ("{{ ' '.join(range(99999)|map('string'))|length }}{{ (['x' * 999999] * 100)|join(', ')|length }}",
     "joining 100 items"),
    ("{% set l = [['x'] * 999999] * 100 %}{{ l|sum(start=[])|length }}", "|sum of lists"),
    ("{{ (['x' * 999999] * 100)|string|length }}", "|string"),
    ("{{ (['x' * 999999] * 100)|tojson|length }}", "|tojson"),
    ("{{ ['x' * 999999] * 100 }}", "writing this list"),
    ("{{ (('x' * 999999)|list)|map('center', 999999)|list|length }}", "|map"),
    ("{{ ('%(a)s' * 99999) % {'a': 'x' * 999999} }}", "the format"),
    ("{{ ('{0}{0}{0}{0}{0}{0}{0}{0}{0}{0}').format('x' * 999999)|length }}", "the format"),
    ("{{ ['x' * 999999] * 100 ~ 'x' }}", "joining with ~"),
]


@pytest.mark.slow
@pytest.mark.parametrize("bomb, says", GROWING)
def test_what_one_template_step_would_make_is_refused_before_it_is_made(mini, bomb, says):
    root = mini("- {id: a, name: Alpha, text: Words.}", front=MINI_FRONT.replace("</svg>", bomb + "</svg>"))
    started = time.perf_counter()
    out = _clean(run(root, "validate"), started)
    assert says in out and "templates/mini/front.svg.j2:" in out and "card a" in out or "[cards: a]" in out, out
    assert "at most" in out or "a million" in out, out


def test_the_bounds_leave_ordinary_templates_alone():
    from generator.draw.helpers import RULEBOOK, Inputs, environment
    from generator.guard import Deadline

    env = environment(RULEBOOK, Inputs(Deadline(None)))
    source = ("{{ '%5.1f|%-3s' % (2.5, 'a') }}{{ '{:>4}{}'.format(1, 'b') }}{{ ['a', 'b']|join(',') }}"
              "{{ 'x' ~ 1 ~ [1] }}{{ 'ab' + 'c' }}{{ [1] + [2] }}{{ 2 * 3 + 1 }}{{ 'a\nb'|indent(2) }}"
              "{{ range(5)|slice(2)|list }}{{ 'a b c'|wordwrap(2) }}{{ 'x'|replace('x', 'yy') }}{{ 1.5|fmt('.2f') }}"
              "{{ [[1], [2]]|sum(start=[]) }}{{ {'a': 1}|tojson }}{{ ['a']|map('upper')|list }}")
    assert env.from_string(source).render() == (
        "  2.5|a     1b" "a,b" "x1[1]" "abc" "[1, 2]" "7" "a\n  b" "[[0, 1, 2], [3, 4]]" "a\nb\nc" "yy" "1.50"
        "[1, 2]" '{"a": 1}' "['A']")


SLOW = "<!-- {% for i in range(99999) %}{% for j in range(2) %}{{ i % 7 }}{% endfor %}{% endfor %} -->"
MANY = "\n".join(f"- {{id: c{n}, name: C{n}, text: Words.}}" for n in range(60))


@pytest.mark.slow
@pytest.mark.parametrize("command", ["validate", "build"])
def test_a_template_that_spends_its_time_on_every_face_stops_at_the_total_time(mini, command):
    """Each face stays well within --time-limit; together they would take some 20 s."""
    root = mini(MANY, front=MINI_FRONT.replace("</svg>", SLOW + "</svg>"))
    started = time.perf_counter()
    out = _clean(run(root, command, "--total-time-limit", "3", "--time-limit", "5"), started)
    assert time.perf_counter() - started < 10, out
    assert "took longer than 3 s" in out and "--total-time-limit" in out, out
    assert "at the stage" in out and "card c" in out, out


def _busy(seconds: float) -> None:
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        pass


def test_a_face_deadline_inside_the_total_one_ends_with_whichever_ends_first():
    from generator.guard import Deadline, Limits, OutOfTime, TimeLimit

    total = Limits(total_seconds=0.6).budget("the build", lambda: "at the stage 'jinja', card a")
    with pytest.raises(OutOfTime, match=r"the build took longer than 0.6 s .*--total-time-limit.*card a"):
        with total.running():
            with pytest.raises(TimeLimit, match="the face took longer than 0.2 s"):
                with Deadline(0.2, "the face").running():
                    _busy(5)
            with Deadline(10, "the next face").running():  # 10 s of its own, 0.4 s left of the build's
                _busy(5)
    again = Limits(total_seconds=0.3).budget("the build")
    with again.running():
        try:
            _busy(5)
        except OutOfTime:  # kept by a stage that should have let it go
            pass
        with pytest.raises(OutOfTime):  # once spent, every later face stops at once
            with Deadline(10, "a face").running():
                pass


def test_a_drawing_worker_stops_itself_past_the_total_time():
    from generator.draw.drawpool import _draw_in_worker
    from generator.guard import OutOfTime

    with pytest.raises(OutOfTime, match="total time"):
        _draw_in_worker([], None, ends=time.monotonic() - 5)


@pytest.mark.parametrize("target", ["png"])
def test_a_raster_export_too_large_to_hold_is_refused_before_a_pixel_is_made(mini, target):
    root = mini("- {id: big, name: Big, text: Words.}", deck_extra="size: {width: 2000mm, height: 2000mm}\n")
    started = time.perf_counter()
    out = _clean(run(root, "export", target), started)
    assert "cards/mini/deck.yaml" in out and "card big" in out and "deck things" in out, out
    assert "megapixels" in out and "dpi or less would fit" in out, out


def test_a_preview_page_too_large_to_draw_is_refused():
    import io

    from reportlab.pdfgen import canvas

    from generator.errors import InputError
    from generator.exports.raster import page_png

    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=(2000 * 72 / 25.4, 2000 * 72 / 25.4))
    pdf.showPage()
    pdf.save()
    with pytest.raises(InputError, match="megapixels"):
        page_png(out.getvalue(), 0, 300 / 72)


def _pnp(root, *args: str):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.run([sys.executable, "-m", "generator", "--root", str(root), *args], capture_output=True,
                          text=True, timeout=120, env=env)


@pytest.mark.slow   # a fresh pnp process
def test_a_real_pnp_stops_a_whole_build_at_its_total_time_and_says_where(mini):
    """The command line as a designer runs it: drawing workers forked, the timer in the main process."""
    root = mini(MANY, front=MINI_FRONT.replace("</svg>", SLOW + "</svg>"))
    started = time.perf_counter()
    done = _pnp(root, "build", "--paper", "a4", "--total-time-limit", "3", "--time-limit", "5")
    assert done.returncode == 2, done.stderr
    assert time.perf_counter() - started < 15
    assert "Traceback" not in done.stderr and "took longer than 3 s" in done.stderr, done.stderr
    assert "at the stage" in done.stderr, done.stderr


@pytest.mark.slow   # a fresh pnp process
def test_a_real_pnp_refuses_a_join_of_gigabytes_cleanly(mini):
    bomb = "{% set s = 'x' * 999999 %}{{ ([s] * 3000)|join|length }}"
    root = mini("- {id: a, name: Alpha, text: Words.}", front=MINI_FRONT.replace("</svg>", bomb + "</svg>"))
    done = _pnp(root, "validate")
    assert done.returncode == 2 and "Traceback" not in done.stderr + done.stdout, done.stderr
    assert "templates/mini/front.svg.j2:" in done.stdout and "joining 3,000 items" in done.stdout, done.stdout


@pytest.mark.parametrize("error, says", [
    (MemoryError(), "pnp ran out of its memory budget of 2 GiB (--memory-limit)"),
    (RecursionError("maximum recursion depth exceeded"), "nested too deeply"),
    (OverflowError("cannot convert float infinity to integer"), "a number too large"),
])
def test_an_error_no_stage_said_ends_in_one_clean_line_naming_the_stage(mini, monkeypatch, capsys, error, says):
    from generator.cli import main
    from generator.draw import render

    def fails(*args, **kwargs):
        raise error
    monkeypatch.setattr(render, "render_svgs", fails)
    monkeypatch.delenv("CI", raising=False)   # the program in this process: never the one-way jail
    root = mini("- {id: a, name: Alpha, text: Words.}")
    with pytest.raises(SystemExit) as stopped:
        main(["--root", str(root), "validate"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "Traceback" not in err, err
    assert says in err and "stage 'jinja'" in err.replace("its 'jinja' stage", "stage 'jinja'"), err
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.slow
@pytest.mark.parametrize("text, args, says", [
    ("[" * 4_000_000, (), "pnp lays out at most 1,000,000"),
    ("![" * 490_000, ("--time-limit", "1"), "parsing the rulebook's Markdown took longer than 1 s"),
])
def test_the_rulebooks_markdown_is_parsed_within_a_size_and_a_time(mini, text, args, says):
    root = mini("- {id: a, name: Alpha, text: Words.}")
    (root / "cards" / "mini" / "rulebook.md").write_text("# Rules\n\n" + text + "\n")
    named(root / "cards" / "mini", "rulebook")
    started = time.perf_counter()
    out = _clean(run(root, "validate", *args), started)
    assert "cards/mini/rulebook.md" in out and says in out, out


INFINITE = [
    "{{ ('inf'|float)|int }}", "{{ ('-inf'|float)|round|int }}", "{{ 10 ** ('inf'|float) }}",
    "{{ ('1e999'|float)|int }}", "{{ 'x' * ('inf'|float) }}", "{{ range(0, 10, 'inf'|float)|list }}",
]


@pytest.mark.parametrize("payload", INFINITE)
def test_infinite_numbers_in_a_template_are_a_clean_problem(mini, payload):
    root = mini("- {id: a, name: Alpha, text: Words.}", front=MINI_FRONT.replace("</svg>", payload + "</svg>"))
    out = _clean(run(root, "validate"), time.perf_counter())
    assert "templates/mini/front.svg.j2:5" in out and "card" in out and "NameError" not in out, out


@pytest.mark.parametrize("payload", INFINITE[:3])
def test_infinite_numbers_in_card_text_and_in_a_rulebook_are_a_clean_problem(mini, payload):
    root = mini("- {id: a, name: Alpha, text: \"" + payload + "\"}",
                front=MINI_FRONT.replace("{{ card.name }}", "{{ fill(card.text) }}"))
    out = _clean(run(root, "validate"), time.perf_counter())
    assert "card" in out and "a" in out and "NameError" not in out, out
    root2 = mini("- {id: a, name: Alpha, text: Words.}")
    (root2 / "cards" / "mini" / "rulebook.md").write_text(f"# Rules\n\n{payload}\n")
    named(root2 / "cards" / "mini", "rulebook")
    out = _clean(run(root2, "validate"), time.perf_counter())
    assert "cards/mini/rulebook.md:3" in out and "NameError" not in out, out


def test_infinite_numbers_that_are_only_written_just_work():
    from generator.draw.templates import Sandbox

    assert Sandbox().from_string("{{ 'inf'|float }} {{ '-inf'|float }} {{ 'nan'|float }} {{ '1e999'|float }}"
                                 " {{ ('inf'|float) > 1 }}").render() == "inf -inf nan inf True"


@pytest.mark.parametrize("size", ["'inf'|float", "'nan'|float", "-1", "10**400"])
def test_text_box_and_icon_sizes_that_are_not_numbers_to_print_are_a_clean_problem(mini, size):
    root = mini("- {id: a, name: Alpha, text: Words.}",
                front=MINI_FRONT.replace("size=3.5", f"size={size}"))
    out = _clean(run(root, "validate"), time.perf_counter())
    assert "card" in out and "front" in out, out


def test_a_keyword_given_twice_is_a_template_syntax_error_not_a_traceback(mini):
    root = mini("- {id: a, name: Alpha, text: Words.}",
                front=MINI_FRONT.replace("min_size=2.5", "min_size=2.5, min_size=3"))
    out = _clean(run(root, "validate"), time.perf_counter())
    assert "templates/mini/front.svg.j2:4" in out and "keyword argument repeated: min_size" in out, out
    root = mini("- {id: a, name: Alpha, text: Words.}")
    (root / "cards" / "mini" / "rulebook.md").write_text("# Rules\n\n{{ range(1, stop=2, stop=3) }}\n")
    named(root / "cards" / "mini", "rulebook")
    out = _clean(run(root, "validate"), time.perf_counter())
    assert "cards/mini/rulebook.md:3" in out and "keyword argument repeated: stop" in out, out
