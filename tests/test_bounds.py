"""Bounds that hold for the whole build (issue 44): what one template step may make, a
clean message for every error a template or its data can provoke, the time of the whole
command, the rulebook's Markdown, the pixels of a raster export. Each case ends in a clean
exit 2 naming the file (and the card), never a traceback, fast."""
from __future__ import annotations

import time

import pytest

from tests.conftest import MINI_FRONT, run

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
    ("{{ (['x' * 999999] * 100)|pprint|length }}", "|pprint"),
    ("{{ (['x' * 999999] * 100)|tojson|length }}", "|tojson"),
    ("{{ ['x' * 999999] * 100 }}", "writing this list"),
    ("{{ (('x' * 999999)|list)|map('center', 999999)|list|length }}", "|map"),
    ("{{ ('%(a)s' * 99999) % {'a': 'x' * 999999} }}", "the format"),
    ("{{ ('{0}{0}{0}{0}{0}{0}{0}{0}{0}{0}').format('x' * 999999)|length }}", "the format"),
    ("{{ ['x' * 999999] * 100 ~ 'x' }}", "joining with ~"),
]


@pytest.mark.parametrize("bomb, says", GROWING)
def test_what_one_template_step_would_make_is_refused_before_it_is_made(mini, bomb, says):
    root = mini("- {id: a, name: Alpha, text: Words.}", front=MINI_FRONT.replace("</svg>", bomb + "</svg>"))
    started = time.perf_counter()
    out = _clean(run(root, "validate"), started)
    assert says in out and "templates/mini/front.svg.j2:" in out and "card a" in out or "[cards: a]" in out, out
    assert "at most" in out or "a million" in out, out


def test_the_bounds_leave_ordinary_templates_alone():
    from generator.draw.templates import Sandbox, _fmt

    env = Sandbox()
    env.filters["fmt"] = _fmt
    source = ("{{ '%5.1f|%-3s' % (2.5, 'a') }}{{ '{:>4}{}'.format(1, 'b') }}{{ ['a', 'b']|join(',') }}"
              "{{ 'x' ~ 1 ~ [1] }}{{ 'ab' + 'c' }}{{ [1] + [2] }}{{ 2 * 3 + 1 }}{{ 'a\nb'|indent(2) }}"
              "{{ range(5)|slice(2)|list }}{{ 'a b c'|wordwrap(2) }}{{ 'x'|replace('x', 'yy') }}{{ 1.5|fmt('.2f') }}"
              "{{ [[1], [2]]|sum(start=[]) }}{{ {'a': 1}|tojson }}{{ ['a']|map('upper')|list }}")
    assert env.from_string(source).render() == (
        "  2.5|a     1b" "a,b" "x1[1]" "abc" "[1, 2]" "7" "a\n  b" "[[0, 1, 2], [3, 4]]" "a\nb\nc" "yy" "1.50"
        "[1, 2]" '{"a": 1}' "['A']")


SLOW = "<!-- {% for i in range(99999) %}{% for j in range(2) %}{{ i % 7 }}{% endfor %}{% endfor %} -->"
MANY = "\n".join(f"- {{id: c{n}, name: C{n}, text: Words.}}" for n in range(60))


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
