"""Rulebooks: generated from the game data, complete, navigable, vector."""
from __future__ import annotations

import functools
import re

import pikepdf
import pypdfium2 as pdfium
import pytest
import yaml

from generator.data.load import list_games, load_game
from generator.rulebook.source import parse_blocks, render_markdown, rulebook_file
from generator.session import Session
from tests.conftest import REPO, all_pdfs, edit, run


def text_of(path) -> str:
    doc = pdfium.PdfDocument(path)
    return "\n".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))


def words(s: str) -> str:
    s = re.sub(r"<[^>]+>", "", s).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    s = re.sub(r"\ufffe\s*", "", s)   # PDFium's mark of a word hyphenated at the end of a line
    return " ".join(s.replace("\u00ad", "").split())


def outline_titles(path) -> list[str]:
    """Every bookmark title of a PDF, depth first."""
    titles = []

    def walk(items):
        for item in items:
            titles.append(item.title)
            walk(item.children)
    with pikepdf.open(path) as pdf, pdf.open_outline() as outline:
        walk(outline.root)
    return titles


@functools.cache
def blocks_of(game_id, lang: str = ""):
    """The blocks of a game's rulebook (`lang`: an edition's, in another language), made
    once a process: the repository's own, which no test changes (the tests only read them)."""
    from generator.data.editions import edition, read_translation

    game = load_game(REPO, game_id, Session())
    if lang:
        game = edition(game, lang, read_translation(game, lang))
    return tuple(parse_blocks(render_markdown(game, rulebook_file(game), Session())))


def edition_of(game: str, name: str) -> str:
    """The language of an edition's file (olympians-de-rulebook-a4.pdf: de), or ''."""
    stem = name.split("-rulebook-")[0].split("-sheets-")[0]
    return stem[len(game) + 1:] if stem != game else ""


@pytest.mark.parametrize("game, name", [p for p in all_pdfs() if "-rulebook-" in p[1]])
def test_no_section_of_the_markdown_is_lost(all_builds, game, name):
    """Every block of the rulebook's Markdown is in the PDF's text (an edition's, its own).
    Japanese lines break between characters (no spaces to compare). PDFium reads
    right-to-left words in the order their glyphs stand, and splits them where a lam-alef
    ligature or a mark stands (and merges a piece with the next word now and then): each
    Arabic word is looked for by its other letters, in up to three pieces read in a row, and
    all but a few in a hundred must be found."""
    from generator.data.editions import direction_of

    lang = edition_of(game, name)
    text = words(text_of(all_builds[game] / name))
    spaced = lang not in ("ja", "zh", "ko")
    rtl = direction_of(lang) == "rtl"

    def stripped(word):   # Arabic letters but lam, the alefs and the tatweel
        return re.sub(r"[^\u0621-\u064a]|[\u0622\u0623\u0625\u0627\u0640\u0644]", "", word)

    def letters(word):
        return "".join(sorted(stripped(word)))
    pieces_read = [stripped(w) for w in text.split()]
    found_words = {"".join(sorted("".join(pieces_read[i:i + n]))) for n in (1, 2, 3) for i in range(len(pieces_read))}
    checked = missed = total = 0
    for block in blocks_of(game, lang):
        pieces = [block.text] if block.kind in ("heading", "paragraph", "quote") else []
        pieces += [c for row in block.items if isinstance(row, list) for c in row]
        pieces += [i for i in block.items if isinstance(i, str)]
        for piece in pieces:
            plain = words(piece)
            if not plain:
                continue
            if rtl:   # each Arabic word, by its letters
                arabic = [letters(w) for w in plain.split() if len(letters(w)) > 1]
                missed += sum(1 for w in arabic if w not in found_words)
                total += len(arabic)
            elif spaced:
                assert plain[:60] in text, plain[:60]
            else:
                assert plain[:40].replace(" ", "") in text.replace(" ", ""), plain[:40]
            checked += 1
    assert checked > 100
    assert missed <= total / 50, f"{missed} of {total} words not found"


@pytest.mark.parametrize("game", list_games(REPO))
def test_outline_and_contents_match_the_headings(all_builds, game):
    path = all_builds[game] / f"{game}-rulebook-a4.pdf"
    headings = [words(b.text) for b in blocks_of(game) if b.kind == "heading"]
    titles = outline_titles(path)
    assert [re.sub(r"^[\d.]+ ", "", t) for t in titles] == headings
    assert titles[0] == f"1 {headings[0]}"
    doc = pdfium.PdfDocument(path)
    contents = words(" ".join(doc[i].get_textpage().get_text_range() for i in range(1, 3)))
    assert "Contents" in contents
    contents = contents[contents.index("Contents"):]
    position = 0
    for t in titles:  # every heading, numbered, in order, on the contents page
        position = contents.index(t, position)


@pytest.mark.usefixtures("warm_project")   # a build, not a drawing, is tested: faces drawn already
def test_rulebook_prints_numbers_from_the_yaml(project):
    edit(project / "cards/olympians/tables.yaml", "min: 91,  max: 119", "min: 95,  max: 119")
    edit(project / "cards/olympians/tables.yaml", "min: 61,  max: 90,", "min: 61,  max: 94,")
    result = run(project, "build", "olympians", "--paper", "a4", "--lang", "en")
    assert result.exit_code == 0, result.output
    text = text_of(project / "output/olympians/olympians-rulebook-a4.pdf")
    assert "95–119" in text and "61–94" in text
    assert "91–119" not in text and "61–90" not in text


def test_rulebook_figures_are_the_real_vector_cards(olympians_build):
    import json
    manifest = json.loads((olympians_build / "manifest.json").read_text())
    book = next(f for f in manifest["files"] if f["path"] == "olympians-rulebook-a4.pdf")
    assert book["kind"] == "rulebook" and book["paper"] == "a4"
    ids = {p["id"] for p in book["placements"]}
    assert {"helmets-5", "dealing-tablet", "victory-tablet"} <= ids
    pdf = pikepdf.open(olympians_build / "olympians-rulebook-a4.pdf")
    assert pdf.check_pdf_syntax() == []
    for p in book["placements"]:
        page = pdf.pages[p["page"] - 1]
        assert any(str(k).startswith("/Face") for k in page.Resources.XObject.keys())
    text = text_of(olympians_build / "olympians-rulebook-a4.pdf")
    assert "VICTORY POINT TABLET" in text  # the card's own text, still text inside the rulebook


@pytest.mark.usefixtures("warm_project")   # a build, not a drawing, is tested: faces drawn already
def test_jinja_error_names_file_and_line(project):
    path = project / "cards/olympians/rulebook.md"
    lines = path.read_text().splitlines()
    n = next(i for i, line in enumerate(lines) if line.startswith("# Setup"))
    lines.insert(n + 1, "Deal {{ data.tables.no_such_table }} cards.")
    path.write_text("\n".join(lines) + "\n")
    result = run(project, "build", "olympians", "--lang", "en", "--paper", "a4")
    assert result.exit_code == 2
    assert f"cards/olympians/rulebook.md:{n + 2}:" in result.output
    assert "no_such_table" in result.output and "Traceback" not in result.output
    lines[n + 1] = "Deal {{ data.tables.target_vp }"
    path.write_text("\n".join(lines) + "\n")
    result = run(project, "build", "olympians", "--lang", "en", "--paper", "a4")
    assert result.exit_code == 2
    assert f"cards/olympians/rulebook.md:{n + 2}: template syntax error" in result.output


@pytest.mark.usefixtures("warm_project")   # a build, not a drawing, is tested: faces drawn already
def test_figure_of_unknown_card_is_an_error(project):
    edit(project / "cards/olympians/rulebook.md", "](card:helmets-5)", "](card:helmets-9)")
    result = run(project, "build", "olympians", "--lang", "en", "--paper", "a4")
    assert result.exit_code == 2
    assert re.search(r"cards/olympians/rulebook.md:\d+: figure names unknown card 'helmets-9'", result.output)


@pytest.mark.usefixtures("warm_project")   # a build, not a drawing, is tested: faces drawn already
def test_character_missing_from_the_font_is_an_error(project):
    edit(project / "cards/olympians/rulebook.md", "# Strategy Tips", "# Strategy Tips ☃")
    result = run(project, "build", "olympians", "--lang", "en", "--paper", "a4")
    assert result.exit_code == 2
    assert re.search(r"cards/olympians/rulebook.md:\d+: character '☃' \(U\+2603 SNOWMAN\) is not in font "
                     r"EBGaramond12-Regular", result.output)


@pytest.mark.parametrize("game, name", [p for p in all_pdfs() if "-rulebook-" in p[1]])
def test_no_heading_is_left_at_the_foot_of_a_page(all_builds, game, name):
    """A heading travels with what follows it, and keeping it so never empties a page."""
    titles = outline_titles(all_builds[game] / name)
    doc = pdfium.PdfDocument(all_builds[game] / name)
    for i in range(2, len(doc) - 1):
        page = doc[i]
        tp = page.get_textpage()
        text = tp.get_text_range()
        if ". . . . ." in text:
            continue  # a contents page
        lines = [words(t) for t in text.splitlines() if words(t)]
        body = [t for t in lines if not re.fullmatch(r"— \d+ —", t)]
        assert body[-1] not in titles, f"page {i + 1} ends with the heading {body[-1]!r}"
        lowest = min(bottom for bottom in _char_bottoms(tp, text) if bottom > 60)  # ignore the page number in the footer
        assert lowest < page.get_height() * 0.45, f"page {i + 1} is less than half full"


def _char_bottoms(tp, text: str):
    """The bottom of each character of a page that is not white space; `text`: the page's
    whole text, read once (one character of it per character of the page), not a character
    at a time (when the two do not line up: one at a time)."""
    count = tp.count_chars()
    whole = text if len(text) == count else None
    for k in range(count):
        char = whole[k] if whole is not None else tp.get_text_range(k, 1)
        if not char.isspace():
            yield tp.get_charbox(k)[1]


@pytest.mark.usefixtures("warm_project")   # a build, not a drawing, is tested: faces drawn already
def test_a_card_edit_that_leaves_the_text_alone_reuses_the_layout_and_shows_the_new_face(project, monkeypatch):
    """While `pnp watch` rebuilds (the memo is on); a one-shot build keeps nothing."""
    import generator.rulebook as rulebook
    from generator.draw.render import render_game
    from generator.session import Session

    calls = []
    real = rulebook.build_pdf
    monkeypatch.setattr(rulebook, "build_pdf", lambda *a: calls.append(1) or real(*a))
    from generator.draw.facecache import FaceCache

    cache = FaceCache(project / "output" / ".cache" / "faces")   # faces drawn once, as a build would
    watching = Session(remember=True)   # the watch's one session: it renders, then lays out
    first = rulebook.layout_rulebook(load_game(project, "meteor", Session()),
                                     render_game(load_game(project, "meteor", Session()), watching, cache=cache), "a4", watching)
    # a card on the cover: its face changes, the rulebook's text does not
    edit(project / "cards" / "meteor" / "zones.yaml", "and get building.", "and get building, of your choice.")
    game = load_game(project, "meteor", Session())
    rendered = render_game(game, watching, cache=cache)   # the edited card's faces rendered again, no other
    warm = rulebook.layout_rulebook(game, rendered, "a4", watching)
    assert len(calls) == 1, "the Platypus layout is reused"
    shown = " ".join(" ".join(page.get_textpage().get_text_range() for page in pdfium.PdfDocument(warm.pdf)).split())
    assert warm.pdf != first.pdf and "get building, of your choice" in shown
    cold = rulebook.layout_rulebook(game, rendered, "a4", Session())  # a fresh session
    assert len(calls) == 2 and cold.pdf == warm.pdf and cold.placements == warm.placements


def _line_texts(para) -> list[str]:
    """The text of each line a wrapped reportlab Paragraph sets."""
    lines = para.blPara.lines
    if para.blPara.kind == 0:
        return [" ".join(words) for _, words in lines]
    return ["".join(f.text for f in line.words) for line in lines]


@pytest.mark.slow
@pytest.mark.parametrize("game", list_games(REPO))
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_table_cells_never_break_a_word(game, paper):
    """Every cell of every table of the rulebook, wrapped in its column as the book sets it,
    breaks lines only between words ("Diamon / d" is a column too narrow for its word)."""
    from generator.rulebook.book import MARGIN
    from generator.rulebook.source import plain_text
    from generator.rulebook.styles import styles
    from generator.rulebook.tables import CELL_PAD
    from generator.rulebook.tables import table as _table
    from generator.units import paper_size

    width = paper_size(paper)[0] * 72 / 25.4 - 2 * MARGIN
    tables = [b for b in blocks_of(game) if b.kind == "table"]
    assert tables
    for block in tables:
        table = _table(block.items, styles(), width)
        assert sum(table._colWidths) <= width + 0.01
        for row in table._cellvalues:
            for col, para in enumerate(row):
                para.wrap(table._colWidths[col] - 2 * CELL_PAD, 10_000)
                whole = set(plain_text(para.text).split())
                for line in _line_texts(para):
                    broken = [w for w in line.split() if w not in whole]
                    assert not broken, f"line {block.line}: {plain_text(para.text)!r} breaks into {broken}"


def test_a_table_too_wide_for_its_words_sets_smaller_type():
    from generator.rulebook.styles import styles
    from generator.rulebook.tables import MIN_CELL_SIZE
    from generator.rulebook.tables import table as _table

    st = styles()
    rows = [["Extraordinarily", "Incomprehensibilities", "Counterrevolutionaries"]] * 2
    roomy, tight = _table(rows, st, 480), _table(rows, st, 240)
    assert roomy._cellvalues[1][0].style.fontSize == st["cell"].fontSize
    assert MIN_CELL_SIZE <= tight._cellvalues[1][0].style.fontSize < st["cell"].fontSize


@pytest.mark.parametrize("game, name", [p for p in all_pdfs() if "-rulebook-" in p[1]])
def test_numbers_carry_at_most_one_decimal(all_builds, game, name):
    """Captions give sizes as a person reads them (a die face is 25.9 mm, not 25.8885)."""
    text = text_of(all_builds[game] / name)
    assert not re.findall(r"\d+[.,]\d{2,}", text)
    captions = re.findall(r"\(([^()]*\bmm)\)", text)
    if edition_of(game, name) == "ar":   # read the other way round in a right-to-left book: ) mm 88 × 63 )
        captions = [f"{m} mm" for m in re.findall(r"\bmm ([\d.]+ × [\d.]+)", text)]
    assert captions and all(re.fullmatch(r"[^\d]*(\d+(\.\d)?[^\d.]+)+", c) for c in captions), captions


def test_a_die_is_pictured_by_each_of_its_faces(all_builds):
    """Not one flat face: the rulebook shows every different face of a die, each cut to its
    polygon, and a component never larger than life."""
    import json
    manifest = json.loads((all_builds["king-of-the-pitch"] / "manifest.json").read_text())
    book = next(f for f in manifest["files"] if f["path"] == "king-of-the-pitch-rulebook-a4.pdf")
    by_id = {}
    for p in book["placements"]:
        by_id.setdefault(p["id"], []).append(p)
    dice = yaml.safe_load((REPO / "cards/king-of-the-pitch/dice.yaml").read_text())
    first = dice["cards"][0]
    assert len(by_id[first["id"]]) == len(set(first["faces"])) == 6
    assert all(p["w_mm"] <= 16.01 for p in by_id[first["id"]])
    chips = [p for p in book["placements"] if p["id"].startswith("chip-")]
    assert chips and all(p["w_mm"] <= 22.01 for p in chips)  # round chips: 22 mm, pictured at most so


@pytest.mark.usefixtures("warm_project")   # a build, not a drawing, is tested: faces drawn already
def test_components_figure_leaves_out_only_decks_that_exist(project):
    """`components:-board` leaves a deck out of the component list (it has a figure of its
    own); naming no deck, or a deck without the minus, is an error naming the line."""
    edit(project / "cards/olympians/rulebook.md", "](components:)", "](components:-refernce)")
    result = run(project, "build", "olympians", "--lang", "en", "--paper", "a4")
    assert result.exit_code == 2
    assert re.search(r"cards/olympians/rulebook.md:\d+: 'components:' takes decks to leave out, as -refernce; "
                     r"'-refernce' is no deck", result.output), result.output


def test_a_rename_that_changes_the_words_kept_whole_lays_the_rulebook_out_again(mini, monkeypatch):
    """A card's name is kept whole, never hyphenated, in the rulebook too: a rename changes
    which words are, so `pnp watch` must not reuse the last layout (it could show a word
    broken that the new name protects). The book equals a fresh session's layout."""
    import generator.rulebook as rulebook
    from generator.draw.render import render_game
    from generator.session import Session
    from tests.conftest import named

    root = mini('- {id: a, name: Alpha, text: "Words."}\n- {id: b, name: Beta, text: "More."}')
    (root / "cards" / "mini" / "rulebook.md").write_text(
        "# Rules\n\n" + "Every player understandably extraordinarily deliberates. " * 30 + "\n")
    named(root / "cards" / "mini", "rulebook")
    calls = []
    real = rulebook.build_pdf
    monkeypatch.setattr(rulebook, "build_pdf", lambda *a: calls.append(1) or real(*a))
    watching = Session(remember=True)

    def lay_out(session):
        game = load_game(root, "mini", Session())
        return rulebook.layout_rulebook(game, render_game(game, Session()), "a4", session)
    lay_out(watching)
    edit(root / "cards" / "mini" / "deck.yaml", "name: Beta", "name: Extraordinarily")
    again = lay_out(watching)
    assert len(calls) == 2, "the words kept whole changed: laid out again"
    assert again.pdf == lay_out(Session()).pdf
