"""A hostile project: what a stranger's pull request could put in templates, rulebooks,
pictures and fonts. Each case must end in a clean error (exit 1 or 2, no traceback),
within a time bound, with no side effect: nothing made outside output/, nothing deleted.
"""
from __future__ import annotations

import os
import time
import zlib
from pathlib import Path

import pytest

from tests.conftest import MINI_FRONT, named, run

MARK = "PWNED"          # what a payload would write, if it ran
SECONDS = 30            # the most a refused case may take (they take well under a second)

# Server-side template injection payloads, as found in the wild for Jinja: each tries to
# reach Python (a module, a file, a process) from a template's names and attributes.
PAYLOADS = [
    "{{ cycler.__init__.__globals__.os.popen('touch %s').read() }}",
    "{{ joiner.__init__.__globals__.os.popen('touch %s').read() }}",
    "{{ lipsum.__globals__['os'].popen('touch %s').read() }}",
    "{{ namespace.__init__.__globals__.os.popen('touch %s').read() }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}{# %s #}",
    "{{ ().__class__.__bases__[0].__subclasses__()[0] }}{# %s #}",
    "{{ self.__init__.__globals__.__builtins__.open('%s', 'w') }}",
    "{{ self._TemplateReference__context.cycler.__init__.__globals__.os.popen('touch %s') }}",
    "{{ request.application.__globals__.__builtins__.__import__('os').popen('touch %s') }}",
    "{{ config.__class__.__init__.__globals__['os'].popen('touch %s') }}",
    "{{ card|attr('__class__')|attr('__init__')|attr('__globals__') }}{# %s #}",
    "{{ range.__self__.open('%s', 'w') }}",
    "{% set x = namespace() %}{{ x.__class__.__init__.__globals__.os.popen('touch %s') }}",
    "{{ game.decks.__class__.__base__.__subclasses__() }}{# %s #}",
    "{% set d = {} %}{{ d.update(a=1) }}{{ d.__setitem__('%s', 1) }}",
    "{{ ('{0.__class__.__init__.__globals__}'.format)(card) }}{# %s #}",
    "{{ '{0.__class__.__mro__}'.format(card) }}{# %s #}",
]


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if "output" not in p.relative_to(root).parts}


def _hostile(result, root: Path, before: set[str], started: float, *codes: int) -> str:
    output = result.output
    assert result.exit_code in (codes or (1, 2)), output
    assert "Traceback" not in output and not isinstance(result.exception, (AssertionError, TypeError,
                                                                         AttributeError, KeyError))
    assert time.perf_counter() - started < SECONDS
    assert _tree(root) == before, "files were made or deleted outside output/"
    assert not (root / MARK).exists() and not Path(MARK).exists()
    return output


@pytest.mark.parametrize("payload", PAYLOADS)
def test_template_injection_in_a_card_template_is_refused(mini, payload):
    front = MINI_FRONT.replace("</svg>", f"<!-- {payload.replace('%s', MARK)} --></svg>")
    root = mini("- {id: a, name: Alpha, text: Words.}", front=front)
    before = _tree(root)
    started = time.perf_counter()
    out = _hostile(run(root, "validate"), root, before, started, 2)
    assert "templates/mini/front.svg.j2:" in out, out


@pytest.mark.parametrize("payload", PAYLOADS[:10])
def test_template_injection_in_a_rulebook_is_refused(mini, payload):
    root = mini("- {id: a, name: Alpha, text: Words.}")
    (root / "cards" / "mini" / "rulebook.md").write_text(f"# Rules\n\nPlay well.\n\n{payload.replace('%s', MARK)}\n")
    named(root / "cards" / "mini", "rulebook")
    before = _tree(root)
    started = time.perf_counter()
    out = _hostile(run(root, "validate"), root, before, started, 2)
    assert "cards/mini/rulebook.md:5" in out, out


@pytest.mark.parametrize("payload", PAYLOADS[:6])
def test_template_injection_in_a_macro_file_and_in_card_text_is_refused(mini, payload):
    root = mini("- {id: a, name: Alpha, text: 'Words " + payload.replace("'", "").replace("%s", MARK) + "'}",
                front=MINI_FRONT.replace("{{ card.name }}", "{{ fill(card.text) }}"))
    shared = root / "templates" / "_shared"
    shared.mkdir(parents=True)
    (shared / "evil.j2").write_text("{% macro run() %}" + payload.replace('%s', MARK) + "{% endmacro %}")
    (root / "templates" / "mini" / "back.svg.j2").write_text(
        '{% import "evil.j2" as evil %}' + (root / "templates" / "mini" / "back.svg.j2").read_text()
        .replace("BACK", "{{ evil.run() }}"))
    before = _tree(root)
    started = time.perf_counter()
    _hostile(run(root, "validate"), root, before, started, 2)


@pytest.mark.slow
@pytest.mark.parametrize("bomb, says", [
    ("{% for i in range(10**9) %}x{% endfor %}", "templates count to at most 100,000"),
    ("{{ 'x' * 10**9 }}", "1,000,000"),
    ("{{ ['x'] * 10**9 }}", "1,000,000"),
    ("{{ 9 ** (9 ** 9) }}", "1024"),
    ("{{ 'x'|center(10**9) }}", "1,000,000"),
    ("{{ 'x'|indent(10**9) }}", "1,000,000"),
    ("{{ 'x'.ljust(10**9) }}", "1,000,000"),
    ("{{ '%0999999999d' % 1 }}", "a million"),
    ("{{ '{:>999999999}'.format(1) }}", "a million"),
    ("{{ '%s'|format('x') }}{{ '%999999999s'|format('x') }}", "a million"),
    ("{% for i in range(99999) %}{{ 'x' * 999 }}{% endfor %}", "8 MB"),
    ("{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}", "longer than 2 s"),
    ("{% set l = ['x'] * 999999 %}{% for a in l %}{% for b in l %}{% endfor %}{% endfor %}", "longer than 2 s"),
    ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "calls itself"),
])
def test_templates_that_would_run_or_grow_for_ever_are_stopped(mini, bomb, says):
    root = mini("- {id: a, name: Alpha, text: Words.}", front=MINI_FRONT.replace("</svg>", bomb + "</svg>"))
    before = _tree(root)
    started = time.perf_counter()
    out = _hostile(run(root, "validate", "--time-limit", "2"), root, before, started, 2)
    assert says in out and "templates/mini/front.svg.j2:" in out and "[cards: a]" in out, out


@pytest.mark.slow
def test_a_rulebook_that_loops_for_ever_is_stopped(mini):
    root = mini("- {id: a, name: Alpha, text: Words.}")
    (root / "cards" / "mini" / "rulebook.md").write_text(
        "# Rules\n\n{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}\n")
    named(root / "cards" / "mini", "rulebook")
    before = _tree(root)
    started = time.perf_counter()
    out = _hostile(run(root, "validate", "--time-limit", "2"), root, before, started, 2)
    assert "rulebook.md" in out and "longer than 2 s" in out, out


def _image_front(href: str) -> str:
    return MINI_FRONT.replace("</svg>", f'<image x="5" y="50" width="20" height="20" href="{href}"/></svg>')


@pytest.mark.slow
@pytest.mark.parametrize("href", ["file:///dev/zero", "/dev/zero", "../../../../../../dev/zero",
                                  "file:///etc/passwd", "http://example.com/a.png"])
def test_pictures_outside_the_project_are_refused_before_they_are_read(mini, href):
    root = mini("- {id: a, name: Alpha, text: Words.}", front=_image_front(href))
    before = _tree(root)
    started = time.perf_counter()
    out = _hostile(run(root, "build", "--paper", "a4"), root, before, started, 2)
    assert "card a" in out and "image" in out, out


def _special(kind: str, path: Path) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_picture_that_is_not_a_file_is_refused_without_hanging(mini, kind):
    root = mini("- {id: a, name: Alpha, text: Words.}", front=_image_front("art/pic.png"))
    (root / "templates" / "mini" / "art").mkdir()
    _special(kind, root / "templates" / "mini" / "art" / "pic.png")
    before = _tree(root)
    started = time.perf_counter()
    out = _hostile(run(root, "build", "--paper", "a4"), root, before, started, 2)
    assert "card a" in out and "pic.png" in out, out


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_an_icon_or_template_that_is_not_a_file_is_refused_without_hanging(mini, kind):
    root = mini("- {id: a, name: Alpha, text: Words.}",
                front=MINI_FRONT.replace("</svg>", '{% include "part.svg" %}</svg>'))
    (root / "templates" / "mini" / "icons").mkdir()
    _special(kind, root / "templates" / "mini" / "icons" / "coin.svg")
    _special(kind, root / "templates" / "mini" / "part.svg")
    before = _tree(root)
    started = time.perf_counter()
    out = _hostile(run(root, "validate"), root, before, started, 2)
    assert "coin.svg" in out and "part.svg" in out, out


def _png(width: int, height: int) -> bytes:
    """A valid PNG of width x height black pixels, small on disk (one IDAT of zeros)."""
    import struct

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = zlib.compressobj(9)
    row = b"\0" * (width + 1)
    body = b"".join(raw.compress(row) for _ in range(height)) + raw.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", body) + chunk(b"IEND", b""))


@pytest.mark.slow
def test_a_picture_of_too_many_pixels_is_refused_quickly(mini):
    root = mini("- {id: a, name: Alpha, text: Words.}", front=_image_front("art/huge.png"))
    (root / "templates" / "mini" / "art").mkdir()
    (root / "templates" / "mini" / "art" / "huge.png").write_bytes(_png(12_000, 12_000))
    before = _tree(root)
    started = time.perf_counter()
    out = _hostile(run(root, "build", "--paper", "a4"), root, before, started, 2)
    assert "card a" in out and "huge.png" in out and "megapixels" in out, out
    assert time.perf_counter() - started < 10


def test_a_font_linked_from_outside_the_project_is_refused(mini, tmp_path):
    from generator.draw.fonts import FONT_DIR

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "Secret.ttf").write_bytes((FONT_DIR / "DejaVuSerif.ttf").read_bytes())
    root = mini("- {id: a, name: Alpha, text: Words.}")
    fonts = root / "templates" / "mini" / "fonts"
    fonts.mkdir()
    (fonts / "Secret.ttf").symlink_to(outside / "Secret.ttf")
    before = _tree(root)
    started = time.perf_counter()
    out = _hostile(run(root, "build", "--paper", "a4"), root, before, started, 2)
    assert "Secret.ttf" in out and "outside the project" in out, out


@pytest.mark.parametrize("content", [b"", b"not a font at all", b"\x00\x01\x00\x00" + b"\xff" * 300])
def test_a_broken_font_file_is_a_clean_error(mini, content):
    root = mini("- {id: a, name: Alpha, text: Words.}")
    fonts = root / "templates" / "mini" / "fonts"
    fonts.mkdir()
    (fonts / "Broken.ttf").write_bytes(content)
    before = _tree(root)
    started = time.perf_counter()
    out = _hostile(run(root, "validate"), root, before, started, 2)
    assert "Broken.ttf" in out, out
