"""Work a build does once, not once an edition or a paper (issue 37: the five games cold at
0.8x): counted, never timed."""
from __future__ import annotations

from collections import Counter

import jinja2.parser
import pytest

from generator.session import Session


def _parses(monkeypatch) -> Counter:
    """Jinja's parses of each template (by name; None: a template from a string)."""
    seen: Counter = Counter()
    real = jinja2.parser.Parser.parse

    def parse(self):
        seen[self.name] += 1
        return real(self)
    monkeypatch.setattr(jinja2.parser.Parser, "parse", parse)
    return seen


def test_a_face_template_is_parsed_once_for_its_key_and_its_compile_in_every_edition(mini, monkeypatch):
    from generator.data.load import load_game
    from generator.draw.render import render_svgs
    from tests.conftest import MINI_FRONT

    front = '{% import "_look.j2" as look %}' + MINI_FRONT.replace("{{ card.name }}", "{{ look.name(card) }}")
    root = mini('- {id: a, name: Alpha, text: "Words."}\n- {id: b, name: Beta, text: "More."}', front=front)
    (root / "templates" / "mini" / "_look.j2").write_text("{% macro name(card) %}{{ card.name }}{% endmacro %}")
    parses = _parses(monkeypatch)
    session = Session(remember=True)   # builds each face's key: whether its templates read game.decks
    first = render_svgs(load_game(root, "mini", Session()), session=session)
    assert "Alpha" in first.svgs[first.cards[0].front]
    # another edition of the same templates (another language: every face's key changes)
    game_yaml = root / "cards" / "mini" / "game.yaml"
    game_yaml.write_text(game_yaml.read_text() + "language: de\n")
    render_svgs(load_game(root, "mini", Session()), session=session)
    assert parses == {"front.svg.j2": 1, "back.svg.j2": 1, "_look.j2": 1}


def test_a_rulebook_is_compiled_once_for_every_paper(mini, monkeypatch):
    from generator.data.load import load_game
    from generator.rulebook.source import render_markdown, rulebook_file

    root = mini('- {id: a, name: Alpha, text: "Words."}')
    (root / "cards" / "mini" / "game.yaml").write_text("title: Mini\ndecks: [deck.yaml]\nrulebook: rulebook.md\n")
    (root / "cards" / "mini" / "rulebook.md").write_text("# Play\n\n{{ decks | length }} deck{% if true %}.{% endif %}\n")
    game = load_game(root, "mini", Session())
    parses = _parses(monkeypatch)
    session = Session()
    texts = [render_markdown(game, rulebook_file(game), session) for _paper in ("a4", "letter")]
    assert texts == ["# Play\n\n1 deck.\n"] * 2
    assert parses == {None: 1}


RULES = "# Setup\n\nShuffle the deck. " + "Deal cards to every player in turn. " * 60 + \
        "\n\n## Turns\n\nPlay one card, then draw. " + "Each card scores its cost. " * 80 + "\n\n# End\n\nMost points wins.\n"


@pytest.mark.slow   # the fast tier lays out rulebooks elsewhere (test_pageplan.py, test_rulebook.py)
def test_a_cold_rulebook_lays_its_body_out_once_and_draws_it_once(mini, monkeypatch):
    """Its first pass measures (the contents need each heading's page), the second draws
    from the first's page plan: the same bytes as two whole passes."""
    from reportlab.platypus import Paragraph

    from generator.data.load import load_game
    from generator.rulebook import book
    from generator.rulebook.source import parse_blocks, render_markdown, rulebook_file
    from generator.rulebook.words import words

    root = mini('- {id: a, name: Alpha, text: "Words."}')
    (root / "cards" / "mini" / "game.yaml").write_text("title: Mini\ndecks: [deck.yaml]\nrulebook: rulebook.md\n")
    (root / "cards" / "mini" / "rulebook.md").write_text(RULES)
    game = load_game(root, "mini", Session())
    blocks = parse_blocks(render_markdown(game, rulebook_file(game), Session()))
    draws: list = []
    wraps: list = []
    real_draw, real_wrap = Paragraph.drawOn, Paragraph.wrap
    monkeypatch.setattr(Paragraph, "drawOn", lambda self, *a, **k: (draws.append(self.text[:20]), real_draw(self, *a, **k))[1])
    monkeypatch.setattr(Paragraph, "wrap", lambda self, *a: (wraps.append(self.text[:20]), real_wrap(self, *a))[1])

    def layout():
        draws.clear()
        wraps.clear()
        pdf, _, headings, _ = book.build_pdf(game, blocks, {}, "a4", [], words(game), Session())
        return pdf, headings, draws.count("Most points wins."), wraps.count("Most points wins.")

    pdf, headings, drawn, wrapped = layout()
    assert [h[1] for h in headings] == ["Setup", "Turns", "End"] and headings[2][2] > 2
    assert (drawn, wrapped) == (1, 1)
    monkeypatch.setattr(book.Rulebook, "sketch", lambda self, story, body: None)   # two whole passes
    assert layout() == (pdf, headings, 2, 2)


FRAME = ('<svg xmlns="http://www.w3.org/2000/svg" width="30mm" height="20mm" viewBox="0 0 30 20">'
         '<defs><clipPath id="c"><rect width="28" height="18"/></clipPath></defs>'
         '<g clip-path="url(#c)" transform="translate(1 1)">'
         + '<rect x="1" y="1" width="4mm" height="3mm" fill="#c9a23f" stroke="rgb(10,20,30)"/>' * 5
         + '<path d="M0 9 H10 M9 9 V1 H3 V6.5" stroke="#1f5a37" stroke-dasharray="1,0.5"/></g>'
         '<text x="2" y="12" font-family="Lato" font-size="5" fill="navy">{}</text></svg>')


def test_cairosvgs_readers_read_each_attribute_string_once_and_its_cursor_is_never_deep_copied(monkeypatch):
    """A string the faces of a bundle repeat (a size in mm, a path, a colour, a url()) is read
    by CairoSVG's own reader once; the text cursor CairoSVG saves before every node is
    copied without copy.deepcopy; the same bytes as CairoSVG's own readers draw."""
    import copy

    import cairosvg.helpers

    from generator.draw import bundlepdf, svgbridge

    faces = [(f"k{n}", FRAME.format(word), None) for n, word in enumerate(["Alpha", "Beta", "Alpha"])]
    read: Counter = Counter()
    own = cairosvg.helpers.normalize

    def normalize(string):
        read[string] += 1
        return own(string)
    deep = Counter()
    real_deepcopy = copy.deepcopy
    monkeypatch.setattr(copy, "deepcopy", lambda *a: (deep.update([type(a[0]).__name__]), real_deepcopy(*a))[1])
    monkeypatch.setitem(svgbridge._READERS, "normalize", normalize)
    for each in svgbridge._REMEMBERING.values():
        getattr(each, "cache_clear", lambda: None)()
    svgbridge._url.cache_clear()
    pdf, keys, problems, _ = bundlepdf.draw_bundle(faces)
    assert keys == ["k0", "k1", "k2"] and not problems
    assert read and max(read.values()) == 1, read.most_common(3)
    assert "3mm" in read and "translate(1 1)" in read
    assert deep["tuple"] == 0
    # CairoSVG's own readers, and its own deep copy of the cursor: the same bytes
    monkeypatch.setattr(svgbridge, "_READER_MODULES", ())
    monkeypatch.setattr(svgbridge, "_CursorCopy", copy)
    assert bundlepdf.draw_bundle(faces)[0] == pdf
    assert deep["tuple"] > 3 * 8   # one a node


def test_a_rulebooks_jinja_markdown_and_checks_are_done_once_for_every_paper(mini, monkeypatch):
    """The Jinja, the Markdown, the figures' faces and the glyph checks do not depend on the
    paper: a layout of both papers does them for the first only (each paper still gets its
    own book)."""
    import generator.rulebook as rulebook
    from generator.data.load import load_game
    from generator.draw.render import render_game
    from generator.options import BuildOptions
    from generator.pipeline import Layout, layout_game
    from generator.printing import print_mode_of

    root = mini('- {id: a, name: Alpha, text: "Words."}')
    (root / "cards" / "mini" / "game.yaml").write_text("title: Mini\ndecks: [deck.yaml]\nrulebook: rulebook.md\n")
    (root / "cards" / "mini" / "rulebook.md").write_text("# Play\n\n![Alpha](card:a)\n\nPlay {{ decks | length }}.\n")
    session = Session()
    game = load_game(root, "mini", session)
    rendered = render_game(game, session)
    done: Counter = Counter()
    for name in ("render_markdown", "parse_blocks", "_missing_glyphs", "_expand_components"):
        real = getattr(rulebook, name)
        monkeypatch.setattr(rulebook, name, lambda *a, _real=real, _name=name, **k: (done.update([_name]), _real(*a, **k))[1])
    artifacts = layout_game(game, rendered, Layout(("a4", "letter"), print_mode_of(game, BuildOptions()), session))
    books = [a for a in artifacts if a.kind == "rulebook"]
    assert [b.paper for b in books] == ["a4", "letter"] and books[0].data != books[1].data
    assert all(b.placements for b in books)
    assert done == {"render_markdown": 1, "parse_blocks": 1, "_missing_glyphs": 1, "_expand_components": 1}


def test_a_rulebook_paragraph_is_measured_and_hyphenated_once_for_both_papers(monkeypatch):
    """Its words, their widths and where each may break do not depend on the paper (only the
    lines chosen over them do): the paragraph set on A4 and on Letter measures them once."""
    from reportlab.lib.styles import ParagraphStyle

    from generator.draw.hyphenate import Hyphenation, rules_for
    from generator.rulebook import breaking

    looked_up: Counter = Counter()
    real = Hyphenation.points
    monkeypatch.setattr(Hyphenation, "points", lambda self, word, *a: (looked_up.update([word]), real(self, word, *a))[1])
    text = "Each <b>opponent</b> then draws until every player holds seven remarkable cards, whatever happened. " * 4
    style = ParagraphStyle("b", fontName="Helvetica", fontSize=9.6, leading=13.4)
    hyphenation = Hyphenation("en", rules_for("en"), frozenset({"Olympians"}))
    lines = []
    for width in (210 - 40, 215.9 - 40):   # the text's width on A4 and on Letter, mm
        paragraph = breaking.WholeParagraph(text, style, hyphenation=hyphenation)
        paragraph.wrap(width * 72 / 25.4, 1000)
        lines.append(paragraph.planned[1])
    assert lines[0] != lines[1]
    assert looked_up["remarkable"] == 4 and max(looked_up.values()) == 4   # once a paragraph, not once a paper
