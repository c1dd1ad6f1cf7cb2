"""One-shot rebuilds as incremental as the watch (generator/diskmemo.py): `pnp build` after
an edit reuses what the last build kept in output/.cache/memo/, writes the same bytes as a
cold build for every kind of edit, and never uses an entry that is damaged, foreign or of
another code version."""
from __future__ import annotations

import io
import pickle
import re
import shutil
import sys
import zipfile

import pytest
from PIL import Image

from generator import diskmemo, distributions
from generator.diskstore import Store
from generator.draw import fonts, render
from generator.layout import pdfstream
from tests.conftest import edit, run
from tests.test_cache import files_of
from tests.test_fonts import renamed_font

FAMILY = "Pnp Tiny Face"
FRONT = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="#ddeeff"/>
  <image href="art.png" x="5" y="5" width="20" height="15"/>
  <g fill="#336">{{ icon("star", 40, 5, 10) }}</g>
  {{ textbox(card.name, 5, 25, 50, 8, family="FAMILY", size=5, min_size=3, max_lines=1) }}
  {{ textbox(card.text, 5, 35, 50, 30, family="Lato", size=3.5, min_size=2) }}
</svg>
""".replace("FAMILY", FAMILY)
BACK = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="#223344"/>
</svg>
"""
STAR = '<svg viewBox="0 0 10 10"><path d="M5 0 L6 4 L10 4 L7 6 L8 10 L5 7 L2 10 L3 6 L0 4 L4 4 Z"/></svg>\n'
RULES = """rules:
  - id: three-cards
    severity: error
    message: "there are {found} cards; the game needs {expected}"
    select: decks.things.printed
    expect: length(it)
    equals: 3
"""
RULEBOOK = """# Playing

Deal the {{ decks.things.cards | length }} cards: {{ decks.things.cards[0].name }} goes first.

## Winning

Whoever holds the most cards wins.
"""


def new_font(path) -> None:
    """Another font under the game font's name, renamed into place (this process may still
    map the old file: it is replaced, not written into)."""
    renamed_font(fonts.FONT_DIR / "EBGaramond12-Regular.ttf", path.with_suffix(".new"), FAMILY)
    path.with_suffix(".new").replace(path)


def picture(path, colour) -> None:
    Image.new("RGB", (80, 60), colour).save(path)


@pytest.fixture
def tiny(tmp_path):
    """A small game with something of every kind an edit can touch: card text, templates,
    an icon, a picture, a font of its own, a translation, rules and a rulebook."""
    return make_tiny(tmp_path / "proj")


@pytest.fixture(scope="module")
def tiny_built(tmp_path_factory):
    """`tiny` after a one-shot `pnp build` (a fresh process), made once for the module: a
    test copies it, output/.cache included, and edits its copy."""
    root = make_tiny(tmp_path_factory.mktemp("tiny") / "proj")
    pnp_build(root)
    return root


def make_tiny(root):
    # French, not German, for the second edition: Pyphen parses its German patterns for
    # 1.2 s in every fresh process (its French ones in 0.04 s), and these tests start many
    cards, templates = root / "cards" / "tiny", root / "templates" / "tiny"
    for folder in (cards / "i18n", templates / "icons", templates / "fonts"):
        folder.mkdir(parents=True)
    (cards / "game.yaml").write_text("title: Tiny\nlanguages: [en, fr]\ndecks: [deck.yaml]\nrules: rules.yaml\n"
                                     "rulebook: rulebook.md\n")
    (cards / "deck.yaml").write_text(
        "deck: things\nname: Things\nfront: front.svg.j2\nback: back.svg.j2\nfields:\n  text: {type: string}\n"
        "cards:\n" + "".join(f'  - {{id: c{i}, name: "Thing {i}", text: "Words of thing {i}."}}\n' for i in range(3)))
    (cards / "i18n" / "fr.yaml").write_text("game: {title: Minuscule}\ndecks:\n  things: {name: Choses}\ncards:\n" +
                                            "".join(f'  c{i}: {{name: "Chose {i}", text: "Mots {i}."}}\n'
                                                    for i in range(3)))
    (cards / "rules.yaml").write_text(RULES)
    (cards / "rulebook.md").write_text(RULEBOOK)
    (cards / "rulebook.fr.md").write_text("# Jouer\n\nLes {{ decks.things.cards | length }} cartes.\n")
    (templates / "front.svg.j2").write_text(FRONT)
    (templates / "back.svg.j2").write_text(BACK)
    (templates / "icons" / "star.svg").write_text(STAR)
    picture(templates / "art.png", (200, 40, 40))
    renamed_font(fonts.FONT_DIR / "Lato-Regular.ttf", templates / "fonts" / "Tiny.ttf", FAMILY)
    (templates / "fonts" / "LICENSE.txt").write_text("SIL Open Font License 1.1\n")
    accepted = run(root, "i18n", "accept", "tiny", "--lang", "fr")
    assert accepted.exit_code == 0, accepted.output
    return root


EDITS = {
    "card text": lambda r: edit(r / "cards/tiny/deck.yaml", "Words of thing 1.", "Other words of thing 1."),
    "template": lambda r: edit(r / "templates/tiny/front.svg.j2", "#ddeeff", "#ffeedd"),
    "icon": lambda r: edit(r / "templates/tiny/icons/star.svg", "L6 4", "L6 3"),
    "picture": lambda r: picture(r / "templates/tiny/art.png", (40, 200, 40)),
    "font": lambda r: new_font(r / "templates/tiny/fonts/Tiny.ttf"),
    "translation": lambda r: edit(r / "cards/tiny/i18n/fr.yaml", "Chose 2", "Objet 2"),
    "rules": lambda r: edit(r / "cards/tiny/rules.yaml", "the game needs", "Tiny needs"),
    "rulebook": lambda r: edit(r / "cards/tiny/rulebook.md", "Whoever holds", "Whoever keeps"),
}


def build(root, *args):
    done = run(root, "build", "--paper", "a4", *args)
    assert done.exit_code == 0, done.output
    return done


@pytest.fixture
def renders(monkeypatch):
    """How many faces' templates the builds render (Jinja and text fitting)."""
    count = [0]
    real = render._render_face

    def counted(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)
    monkeypatch.setattr(render, "_render_face", counted)
    return count


def pnp_build(root, *args, then: tuple[str, ...] = ()) -> None:
    """`pnp build` in a fresh process, as a designer or CI runs it one-shot; `then`: once it
    has ended well, the same build with these arguments added, in the same process."""
    from tests.test_jail import pnp

    prelude = ("import sys\nfrom generator.cli import main\ntry:\n    main(sys.argv[1:])\n"
               f"except SystemExit as done:\n    if done.code:\n        raise\nsys.argv += {list(then)!r}\n"
               if then else "")
    done = pnp(root, "build", "--paper", "a4", *args, prelude=prelude)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow   # eight edits: a one-shot rebuild each, in a fresh process, beside a cold build
@pytest.mark.parametrize("kind", EDITS)
def test_a_rebuild_after_an_edit_is_a_cold_build_byte_for_byte(tiny_built, tmp_path, kind):
    tiny = tmp_path / "proj"
    shutil.copytree(tiny_built, tiny, symlinks=True)
    EDITS[kind](tiny)
    if kind == "font":   # fontconfig keeps every game's fonts it read for the life of a process (fonts.py
        #                  refuses a second copy of a family): the cold build of another font, in a process that
        #                  has read no other: the rebuild's own, once it is done (a fresh session, no cache at all)
        pnp_build(tiny, then=("--output", str(tmp_path / "cold")))
    else:
        pnp_build(tiny)
        build(tiny, "--output", str(tmp_path / "cold"))   # in this process: cold, with no cache at all
    assert files_of(tiny / "output" / "tiny") == files_of(tmp_path / "cold" / "tiny")


def test_a_rebuild_after_a_card_edit_renders_and_writes_only_that_card(tiny, renders, monkeypatch):
    from generator.draw import hyphenate

    replayed, words = [], []
    real, positions = pdfstream.PDFStream.replay, hyphenate._positions
    monkeypatch.setattr(pdfstream.PDFStream, "replay", lambda self, seg: (replayed.append(1), real(self, seg)))
    monkeypatch.setattr(hyphenate, "_positions", lambda word, *a: (words.append(word), positions(word, *a))[1])
    build(tiny)
    cold = renders[0]
    assert cold == 12 and not replayed   # 3 cards, front and back, 2 editions
    renders[0] = 0
    words.clear()
    EDITS["card text"](tiny)
    build(tiny)
    assert renders[0] == 2, "only the edited card's faces are rendered again (of its English edition)"
    assert replayed, "the unchanged bundles' forms and pages are copied from the last build"
    assert sorted(words) == ["Other", "words"], "the hyphenation dictionary is asked only about words no build met"
    renders[0] = 0
    build(tiny)
    assert renders[0] == 0
    # a card name's words are protected from hyphenation on every face, but a face's key takes
    # only those its text boxes hold: a renamed card renders again its own faces, not the deck
    edit(tiny / "cards/tiny/deck.yaml", 'name: "Thing 2"', 'name: "Thing Two"')
    EDITS["rulebook"](tiny)
    words.clear()
    build(tiny)
    assert renders[0] == 2, "only the renamed card's front and back are rendered again"
    assert words == ["keeps"], "the rulebook laid out again asks the dictionary only about its new word"
    build(tiny, "--output", str(tiny / "cold"))
    assert files_of(tiny / "output" / "tiny") == files_of(tiny / "cold" / "tiny")


def test_a_rulebook_laid_out_again_breaks_only_its_changed_paragraphs_into_lines(tiny, monkeypatch):
    """The line ends of the rulebook's paragraphs are kept in the memo (breaking.LineEnds):
    laid out again after an edit, a book breaks into lines only the paragraphs whose text
    changed, and writes a cold layout's bytes."""
    from generator.rulebook import breaking

    broken = []
    real = breaking._ends
    monkeypatch.setattr(breaking, "_ends", lambda frags, *a: (broken.append("".join(
        breaking._text(f) for f in frags)), real(frags, *a))[1])
    build(tiny)
    assert any("Whoever holds" in text for text in broken)
    broken.clear()
    EDITS["rulebook"](tiny)
    build(tiny)
    assert broken and all("Whoever keeps" in text for text in broken), broken
    broken.clear()
    edit(tiny / "cards/tiny/deck.yaml", 'name: "Thing 0"', 'name: "Thing Zero"')   # the first paragraph prints it
    build(tiny)
    assert broken and all("Thing Zero" in text for text in broken), broken
    # a card named with a word of another paragraph protects it there from hyphenation
    broken.clear()
    edit(tiny / "cards/tiny/deck.yaml", 'name: "Thing 2"', 'name: "Whoever"')
    build(tiny)
    assert any("Whoever keeps" in text for text in broken) and all("Thing Zero" not in text for text in broken)
    # a build that lays out no rulebook (its text unchanged) keeps its line ends on: one whose
    # figures changed (a card's text), one that finds the whole book as it was (the rules)
    for between, (was, now) in (("card text", ("keeps", "takes")), ("rules", ("takes", "gets"))):
        EDITS[between](tiny)
        build(tiny)
        broken.clear()
        edit(tiny / "cards/tiny/rulebook.md", f"Whoever {was}", f"Whoever {now}")
        build(tiny)
        assert broken and all(f"Whoever {now}" in text for text in broken), (between, broken)
    build(tiny, "--output", str(tiny / "cold"))
    assert files_of(tiny / "output" / "tiny") == files_of(tiny / "cold" / "tiny")


def test_a_damaged_or_foreign_memo_entry_is_never_used(tiny, tmp_path, renders):
    build(tiny)
    memo = tiny / "output" / ".cache" / "memo"
    entries = sorted(p for p in memo.glob("*/*") if len(p.name) == 64)
    assert entries
    cold = files_of(tiny / "output" / "tiny")
    # one entry's bytes under another entry's name: its tag names the other key
    first, second = entries[0], entries[1]
    second.write_bytes(first.read_bytes())
    for entry in entries[2:]:
        entry.write_bytes(entry.read_bytes()[:-7])   # truncated
    renders[0] = 0
    build(tiny)
    assert renders[0] == 12, "nothing of a damaged memo is used"
    assert files_of(tiny / "output" / "tiny") == cold
    # a well-formed entry (this machine's key) asking the unpickler for more than data
    store = Store(memo, "memo", diskmemo.LIMIT_BYTES, tiny)
    shelves = diskmemo.Shelves(store, "x")
    shelves.load()
    name = diskmemo.entry_name("segments", ("k",))
    store.write(name, pickle.dumps(shutil.rmtree))
    assert diskmemo.DiskKept(shelves, "segments").get(("k",)) is None
    with pytest.raises(pickle.UnpicklingError):
        diskmemo.loads(pickle.dumps(io.BytesIO))


def test_an_entry_of_another_code_version_is_never_used(tiny, renders, monkeypatch):
    monkeypatch.setattr(diskmemo, "code_digest", lambda: "an older pnp")
    build(tiny)
    renders[0] = 0
    build(tiny)
    assert renders[0] == 0
    monkeypatch.setattr(diskmemo, "code_digest", lambda: "this pnp")
    build(tiny)
    assert renders[0] == 12


def test_the_code_version_changes_with_a_library_upgraded_wherever_it_lies(tmp_path, monkeypatch):
    folder = tmp_path / "target"   # pip --target, PYTHONPATH: not a folder named site-packages
    folder.mkdir()
    monkeypatch.setattr(diskmemo, "code_digest", diskmemo.code_digest.__wrapped__)
    before = diskmemo.code_digest()
    (folder / "lxml-9.9.9.dist-info").mkdir()   # not named by pnp: it shapes a proof's SVG all the same
    monkeypatch.setattr(sys, "path", [str(folder), *sys.path])
    upgraded = diskmemo.code_digest()
    assert upgraded != before
    (folder / "lxml-9.9.9.dist-info").rename(folder / "lxml-9.9.10.dist-info")
    distributions._listed.cache_clear()
    assert diskmemo.code_digest() not in (before, upgraded)
    (folder / "lxml-9.9.10.dist-info").rmdir()
    (folder / "ruff-99.0.dist-info").mkdir()   # a tool that develops pnp: the memo is kept
    distributions._listed.cache_clear()
    assert diskmemo.code_digest() == before


def test_the_tools_that_develop_pnp_are_those_pyproject_installs_for_its_tests():
    import tomllib

    from tests.conftest import REPO

    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    names = {distributions._normal(re.split(r"[<>=!~\[ ;]", spec, maxsplit=1)[0]) for spec in extra}
    assert names <= diskmemo.NOT_SHAPING, names - diskmemo.NOT_SHAPING


def test_a_library_version_is_that_of_the_first_folder_on_the_path_as_importlib_metadata_says(tmp_path,
                                                                                               monkeypatch):
    from importlib import metadata

    for name in ("pangocffi", "pangocairocffi", "pyphen", "segno", "Jinja2", "PyYAML", "markdown-it-py"):
        assert distributions.version(name) == metadata.version(name), name
    first, second = tmp_path / "a" / "site-packages", tmp_path / "b" / "site-packages"
    for folder, number in ((first, "0.18.1"), (second, "0.14.0")):
        (folder / f"pyphen-{number}.dist-info").mkdir(parents=True)
        (folder / f"pyphen-{number}.dist-info" / "METADATA").write_text(f"Name: pyphen\nVersion: {number}\n")
    monkeypatch.setattr(sys, "path", [str(second), str(first)])
    assert distributions.version("pyphen") == metadata.version("pyphen") == "0.14.0"
    monkeypatch.setattr(sys, "path", [str(first), str(second)])
    assert distributions.version("pyphen") == metadata.version("pyphen") == "0.18.1"
    # what the folders' names cannot settle is importlib.metadata's to say: two versions in
    # one folder, an egg, a zip on the path, a hyphen in a folder's name
    (first / "pyphen-0.9.0.dist-info").mkdir()
    (first / "pyphen-0.9.0.dist-info" / "METADATA").write_text("Name: pyphen\nVersion: 0.9.0\n")
    distributions._listed.cache_clear()
    assert distributions.version("pyphen") == metadata.version("pyphen")
    egg = tmp_path / "pyphen-2.0-py3.11.egg"
    (egg / "EGG-INFO").mkdir(parents=True)
    (egg / "EGG-INFO" / "PKG-INFO").write_text("Name: pyphen\nVersion: 2.0\n")
    monkeypatch.setattr(sys, "path", [str(egg), str(second)])
    assert distributions.version("pyphen") == metadata.version("pyphen") == "2.0"
    archive = tmp_path / "p.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("pyphen-3.0.dist-info/METADATA", "Name: pyphen\nVersion: 3.0\n")
    monkeypatch.setattr(sys, "path", [str(archive), str(second)])
    assert distributions.version("pyphen") == metadata.version("pyphen") == "3.0"
    odd = tmp_path / "odd"
    (odd / "foo-bar-1.0.dist-info").mkdir(parents=True)
    (odd / "foo-bar-1.0.dist-info" / "METADATA").write_text("Name: foo-bar\nVersion: 1.0\n")
    monkeypatch.setattr(sys, "path", [str(odd)])
    with pytest.raises(metadata.PackageNotFoundError):
        metadata.version("foo-bar")
    with pytest.raises(metadata.PackageNotFoundError):
        distributions.version("foo-bar")


def test_a_value_this_build_made_outlives_the_last_builds_once_its_chunk_is_written(tmp_path, monkeypatch):
    """A build's pack is written in chunks as it goes; an entry this build made, then read
    or carried on after its chunk was written, is not put back as the last build had it."""
    monkeypatch.setattr(diskmemo, "CHUNK_ENTRIES", 4)
    store = Store(tmp_path / "memo", "memo", diskmemo.LIMIT_BYTES, tmp_path)

    def build(*steps):
        shelves = diskmemo.Shelves(store, "pack")
        shelves.load()
        found = [step(shelves) for step in steps]
        shelves.save()
        return found

    build(lambda s: s.put("memo", ("points",), {"old": 1}))
    fillers = [lambda s, n=n: s.put("memo", ("filler", n), n) for n in range(9)]   # chunks written
    build(lambda s: s.put("memo", ("points",), {"old": 1, "new": 2}), *fillers,
          lambda s: s.get("memo", ("points",)), lambda s: s.carry("memo", ("points",)))
    assert build(lambda s: s.get("memo", ("points",))) == [{"old": 1, "new": 2}]


def test_keys_that_name_objects_by_address_are_never_kept():
    assert diskmemo.entry_name("memo", ("x", object())) is None
    assert diskmemo.entry_name("memo", ("x", 1)) == diskmemo.entry_name("memo", ("x", 1))


@pytest.mark.slow   # pnp in fresh processes, in its jail
def test_an_untrusted_rebuild_keeps_and_uses_its_memo(tiny, tmp_path):
    """The jail lets a build write output/.cache (as the face cache does): an untrusted
    rebuild after an edit finds the memo the last one left, and writes a cold build's bytes."""
    from tests.test_jail import needs_walls, pnp

    if needs_walls.args[0]:
        pytest.skip(needs_walls.kwargs["reason"])
    # without the game's own font: in the jail, fontconfig's look-up of a game font fails
    # today (ctypes.util.find_library makes a temporary file outside the project), memo or not
    shutil.rmtree(tiny / "templates" / "tiny" / "fonts")
    edit(tiny / "templates" / "tiny" / "front.svg.j2", FAMILY, "Lato")
    first = pnp(tiny, "build", "--paper", "a4", "--untrusted")
    assert first.returncode == 0, first.stderr
    assert list((tiny / "output" / ".cache" / "memo").glob("*/*"))
    EDITS["card text"](tiny)
    again = pnp(tiny, "build", "--paper", "a4", "--untrusted")
    assert again.returncode == 0, again.stderr
    # the cold build in this process: an untrusted build writes a trusted one's bytes
    # (tests/test_jail.py, test_an_untrusted_build_of_a_shipped_game_is_the_same_bytes)
    build(tiny, "--output", str(tmp_path / "cold"))
    assert files_of(tiny / "output" / "tiny") == files_of(tmp_path / "cold" / "tiny")


def test_the_memo_is_bounded_and_keeps_the_last_builds_entries(tiny, renders, monkeypatch):
    """Past its bound the store keeps only what the last build read or wrote: the entries an
    edit made stale go, and the next build still finds all it needs."""
    import generator.session

    monkeypatch.setattr(generator.session, "MEMO_BYTES", 1)
    memo = tiny / "output" / ".cache" / "memo"
    build(tiny)
    before = {p.name for p in memo.glob("*/*")}
    EDITS["card text"](tiny)
    build(tiny)
    after = {p.name for p in memo.glob("*/*")}
    assert before - after, "what only the first build used is pruned"
    renders[0] = 0
    build(tiny)   # finds all it needs (the finished rulebook: not the pieces it was made of, pruned now)
    kept = {p.name for p in memo.glob("*/*")}
    build(tiny)
    assert renders[0] == 0 and {p.name for p in memo.glob("*/*")} == kept



def test_a_word_a_rename_protects_renders_again_the_faces_that_print_it(mini, renders):
    """While watching: renaming a card so that its name holds a word another card's text
    hyphenates renders that face again, as a fresh render does: never the hyphenated SVG
    (here the word, protected now, no longer fits its box, and the face fails)."""
    from generator.data.load import load_game
    from generator.draw.render import render_svgs
    from generator.session import Session
    from tests.conftest import MINI_FRONT

    narrow = MINI_FRONT.replace("deck.trim_w - 6, 30, size=3.5, min_size=2.5", "20, 40, size=3.5, min_size=3.5")
    root = mini('- {id: a, name: Alpha, text: "We see understandable things."}\n'
                '- {id: b, name: Beta, text: "More."}', front=narrow)
    watching = Session(remember=True)

    def fronts(session):
        found = render_svgs(load_game(root, "mini", Session()), session=session)
        return {rc.card.id: rc.front and found.svgs[rc.front] for rc in found.cards}, \
            [(p.card, p.message) for p in found.problems]

    first, problems = fronts(watching)
    assert 'hyphens="9"' in first["a"] and not problems, "un-derstandable"
    renders[0] = 0
    edit(root / "cards" / "mini" / "deck.yaml", "name: Beta", "name: Beta Gamma")
    assert fronts(watching)[0]["a"] == first["a"] and renders[0] == 2, "a rename: only its own faces again"
    renders[0] = 0
    edit(root / "cards" / "mini" / "deck.yaml", "name: Beta Gamma", "name: Beta understandable")
    again = fronts(watching)
    assert renders[0] == 3, "the renamed card's faces and the face that prints the word its name protects now"
    assert again[0]["a"] is None and again == fronts(Session())


def test_the_words_a_face_key_takes_are_all_that_hyphenation_looks_up():
    """`looked_up(word)` names every word `points(word)` asks the protected set about (a
    face's key takes the protected ones among them: rendermemo.protected_key)."""
    from generator.draw.hyphenate import Hyphenation, looked_up, rules_for

    class Asked(frozenset):
        asked: set = set()

        def __contains__(self, word):
            Asked.asked.add(word)
            return super().__contains__(word)

    words = ["understandable,", "(non-dealer)", "self\u2010evident.", "Wonderful", "--", "“quoted”", "x-", "pre‑set"]
    for word in words:
        Asked.asked = set()
        Hyphenation("en", rules_for("en"), Asked({"dealer"})).points(word, True)
        assert Asked.asked <= set(looked_up(word)), word
        assert Asked.asked == set(looked_up(word)) or word == "(non-dealer)", word   # a protected word: not split


def test_what_a_shipped_font_lacks_is_known_without_reading_it(monkeypatch):
    """fonts.FACES_FILE keeps the code points of each shipped font (the title, deck names and
    rulebook text are checked against them every build): no font file is read to tell."""
    import random

    from generator.draw import fonts as fontsmod

    names = ("Lato-Regular.ttf", "Lato-Italic.ttf", "EBGaramond12-Regular.ttf", "DejaVuSans-Bold.ttf")
    faces = [f for f in fontsmod.shipped().faces if f.path.name in names]
    sample = "".join(chr(random.Random(7).randrange(0x3000)) for _ in range(2000))
    expected = {}
    for face in faces:
        covered = "".join(map(chr, face.advances))[:400]
        expected[face.path.name] = (sample + covered, sorted({c for c in sample + covered
                                                             if ord(c) not in face.advances and not c.isspace()}))
    monkeypatch.setattr(fontsmod.Face, "_read_advances", lambda self: pytest.fail(f"{self.path.name} read"))
    for face in (f for f in fontsmod.FontSet().faces if f.path.name in names):   # fresh, as a new process has them
        text, lacks = expected[face.path.name]
        assert face.missing(text) == lacks, face.path.name
