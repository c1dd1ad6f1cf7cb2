"""`pnp watch` puts the first paper's sheets (the PDF being previewed) in place before the
other papers and the rulebooks are laid out; what it ends with is a cold build, byte for
byte, and a failure of the rest puts the previous files back."""
from __future__ import annotations

import pytest

from generator import pipeline
from generator.errors import InputError
from generator.options import BuildOptions
from generator.session import Session
from tests.conftest import edit, named

RULEBOOK = """# Mini

The first thing is **{{ decks['things'].cards[0].name }}**: {{ decks['things'].cards[0].text }}

{% for n in range(40) %}
A paragraph of filler text, number {{ n }}, long enough to run over a line or two of the page so that the
rulebook takes a few pages and its layout has something to do.
{% endfor %}

## Figures

![The second thing](cards:b)
"""
CARDS = """\
- {id: a, name: Alpha, text: "First words."}
- {id: b, name: Beta, text: "Other words."}
- {id: c, name: Gamma, text: "More words."}
"""


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def booked(mini):
    root = mini(CARDS)
    (root / "cards" / "mini" / "rulebook.md").write_text(RULEBOOK)
    named(root / "cards" / "mini", "rulebook")
    return root


def _watch_build(root, session):
    """A build as the watch makes it: (what was on disk when the first paper was in place, the result)."""
    seen = {}

    def early(result):
        seen["files"] = _files(root / "output" / "mini")
        seen["listed"] = [p.name for p in result.files]
    result = pipeline.build(root, ["mini"], BuildOptions(), session=session, early=early)[0]
    return seen, result


def _cold(root, tmp_path, name):
    out = tmp_path / name
    pipeline.build(root, ["mini"], BuildOptions(out_dir=out), session=Session())
    return _files(out / "mini")


@pytest.mark.slow
@pytest.mark.parametrize("card, old, new", [
    ("a", "First words.", "First words, edited."),   # the rulebook quotes it
    ("b", "Other words.", "Other words, edited."),   # the rulebook shows its face, not its text
    ("c", "More words.", "More words, edited."),     # the rulebook shows neither
])
def test_first_paper_first_then_all_equal_to_a_cold_build(booked, tmp_path, card, old, new):
    session = Session(remember=True)
    _watch_build(booked, session)
    before = _files(booked / "output" / "mini")
    assert set(before) >= {"mini-sheets-a4.pdf", "mini-sheets-letter.pdf", "mini-rulebook-a4.pdf",
                           "mini-rulebook-letter.pdf", "manifest.json"}
    edit(booked / "cards" / "mini" / "deck.yaml", old, new)
    seen, result = _watch_build(booked, session)
    after = _files(booked / "output" / "mini")
    cold = _cold(booked, tmp_path, f"cold-{card}")
    assert after == cold   # every file, the manifest too, byte for byte
    # when the first paper was in place: its sheets were the new ones, the rest the previous build's
    early = seen["files"]
    assert early["mini-sheets-a4.pdf"] == after["mini-sheets-a4.pdf"] != before["mini-sheets-a4.pdf"]
    assert early["mini-cut-a4.svg"] == after["mini-cut-a4.svg"]
    for rest in ("mini-sheets-letter.pdf", "mini-rulebook-a4.pdf", "mini-rulebook-letter.pdf"):
        assert early[rest] == before[rest]
    assert after["mini-sheets-letter.pdf"] != before["mini-sheets-letter.pdf"]
    assert seen["listed"][:2] == ["mini-sheets-a4.pdf", "mini-cut-a4.svg"]
    assert [p.name for p in result.files] == list(_cold_order(cold))


def _cold_order(cold):
    """The files of a build in the order a cold build lists them: per paper, sheets, cut file, rulebook."""
    for paper in ("a4", "letter"):
        for kind in ("sheets", "cut", "rulebook"):
            yield f"mini-{kind}-{paper}.{'svg' if kind == 'cut' else 'pdf'}"
    yield "manifest.json"


@pytest.mark.slow
def test_a_failed_rest_puts_the_previous_files_back(booked, monkeypatch):
    """The first paper's sheets were in place when the rulebook failed: the previous set is back."""
    import generator.rulebook

    session = Session(remember=True)
    _watch_build(booked, session)
    before = _files(booked / "output" / "mini")
    edit(booked / "cards" / "mini" / "deck.yaml", "First words.", "First words, edited.")

    def broken(*args, **kwargs):
        raise InputError("the rulebook failed")
    monkeypatch.setattr(generator.rulebook, "layout_rulebook", broken)
    seen = {}
    with pytest.raises(InputError, match="the rulebook failed"):
        pipeline.build(booked, ["mini"], BuildOptions(), session=session,
                       early=lambda r: seen.update(files=_files(booked / "output" / "mini")))
    assert seen["files"]["mini-sheets-a4.pdf"] != before["mini-sheets-a4.pdf"]   # it was in place
    assert _files(booked / "output" / "mini") == before                          # and it is put back
    assert not [p.name for p in (booked / "output").iterdir() if p.name.startswith(".mini.") and p.name != ".mini.lock"]


@pytest.mark.slow
def test_the_watch_reports_the_first_paper_then_the_whole_build(booked):
    from generator.changes import record_path
    from generator.loop.preview import Preview
    from generator.loop.watch import build_one

    reported, preview, recorded = [], Preview(), []

    def report(outcome):
        reported.append(outcome)
        recorded.append(record_path(booked / "output", "mini").exists())
        preview.update(outcome)
    last = build_one(booked, "mini", BuildOptions(), Session(remember=True), report=report)
    preview.update(last)
    (early,) = reported
    assert recorded == [False] and record_path(booked / "output", "mini").exists()   # written with the rest
    assert early.ok and early.early and not last.early
    assert [p.name for p in early.result.files] == ["mini-sheets-a4.pdf", "mini-cut-a4.svg", "manifest.json"]
    assert "mini-rulebook-letter.pdf" in [p.name for p in last.result.files]
    assert preview.version == 2   # the page reloads when the first paper lands, and again when the rest does
