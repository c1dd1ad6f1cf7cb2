"""The face cache: warm builds redraw only what changed and write the same bytes as a cold build."""
from __future__ import annotations

import hashlib
import shutil

import pytest

from generator.draw.bundles import bundle_count
from generator.draw.drawkey import face_key
from generator.draw.facecache import FaceCache
from generator.session import Session
from tests.conftest import edit, game_copy, made_once, run


def files_of(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in folder.rglob("*") if p.is_file() and ".cache" not in p.parts}


# the edits of the two tests that compare a warm Olympians (English, A4) with a cold build of it
RULEBOOK_EDIT = ("cards/olympians/rulebook.md", "Every round follows the same five steps",
                 "Every round follows the same five short steps")
CARD_EDIT = ("cards/olympians/playing-cards.yaml", "title: Ruler of the Sky", "title: Lord of the Sky")
EN_A4 = ("--paper", "a4", "--lang", "en")


def edited(project, what) -> None:
    path, old, new = what
    edit(project / path, old, new)


@pytest.fixture(scope="session")
def edited_olympians_cold(tmp_path_factory):
    """The output folder of a cold build (a fresh session, no cache at all) of Olympians in
    English on A4 with both edits made: the two tests below end on the same data, so the
    run builds it cold once for both (a lock shares it between the test workers)."""
    def make(folder):
        project = game_copy(folder / "project", "olympians")
        edited(project, RULEBOOK_EDIT)
        edited(project, CARD_EDIT)
        cold = run(project, "build", "olympians", *EN_A4, "--output", str(folder / "cold"))
        assert cold.exit_code == 0, cold.output
    return made_once(tmp_path_factory, "olympians-edited-cold", make) / "cold" / "olympians"


def test_warm_build_after_an_edit_equals_a_cold_build(warm_project, edited_olympians_cold):
    """The project's first build stored its faces (the run's shared build, `warm_project`);
    after an edit, a build draws only what changed and writes what a cold build writes."""
    project, out = warm_project, warm_project / "output"
    edited(project, RULEBOOK_EDIT)   # the data the first build is of (the next test's, to share the cold build)
    assert run(project, "build", "olympians", *EN_A4).exit_code == 0
    entries = sorted((out / ".cache" / "faces").glob("*/*.pdf"))
    assert entries, "a build stores its drawn faces"
    before = (out / "olympians" / "olympians-sheets-a4.pdf").read_bytes()
    edited(project, CARD_EDIT)
    warm = run(project, "build", "olympians", *EN_A4)
    assert warm.exit_code == 0, warm.output
    assert (out / "olympians" / "olympians-sheets-a4.pdf").read_bytes() != before
    new = set((out / ".cache" / "faces").glob("*/*.pdf")) - set(entries)
    assert 1 <= len(new) <= 2, "one edited face redraws at most two bundles"
    # the cold build of the edited data, in a fresh output folder with no cache at all
    assert files_of(out / "olympians") == files_of(edited_olympians_cold)


@pytest.mark.slow
def test_warm_build_redraws_only_the_changed_bundles(mini):
    from generator.data.load import load_game
    from generator.draw.render import render_game

    cards = "\n".join(f'- {{id: c{i}, name: "Card {i}", text: "Words of card {i}."}}' for i in range(60))
    root = mini(cards)
    cache = FaceCache(root / "output" / ".cache" / "faces")
    cold = render_game(load_game(root, "mini", Session()), Session(), cache=cache)
    n = len(cold.faces_pdfs)
    assert n == bundle_count(len(cold.page_of)) > 2 and cold.drawn == n
    again = render_game(load_game(root, "mini", Session()), Session(), cache=cache)
    assert again.drawn == 0 and list(again.faces_pdfs) == list(cold.faces_pdfs)
    edit(root / "cards" / "mini" / "deck.yaml", "Words of card 7.", "Other words of card 7.")
    warm = render_game(load_game(root, "mini", Session()), Session(), cache=cache)
    assert 1 <= warm.drawn <= 2
    fresh = render_game(load_game(root, "mini", Session()), Session())  # no cache: everything drawn
    assert fresh.drawn == n and list(fresh.faces_pdfs) == list(warm.faces_pdfs) and fresh.page_of == warm.page_of


def test_a_damaged_or_half_written_entry_is_never_used(tmp_path):
    cache = FaceCache(tmp_path)
    cache.put("ab" + "0" * 62, b"%PDF-1.5 whole entry")
    assert cache.get("ab" + "0" * 62) == b"%PDF-1.5 whole entry"
    path = tmp_path / "ab" / ("ab" + "0" * 62 + ".pdf")
    path.write_bytes(path.read_bytes()[:-5])  # a torn write
    assert cache.get("ab" + "0" * 62) is None and not path.exists()
    (tmp_path / "ab" / ".x.pdf.123.tmp").write_bytes(b"half")  # a build killed mid-write
    assert cache.get("x") is None


@pytest.mark.slow
def test_killed_build_leaves_no_usable_partial_entry(mini):
    root = mini('- {id: a, name: A, text: "Text."}')
    assert run(root, "build").exit_code == 0
    entries = list((root / "output" / ".cache" / "faces").glob("*/*.pdf"))
    assert entries
    for p in entries:  # truncate every entry, as a crash without rename could never do, but a disk might
        p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2])
    before = (root / "output" / "mini" / "mini-sheets-a4.pdf").read_bytes()
    shutil.rmtree(root / "output" / "mini")
    assert run(root, "build").exit_code == 0
    assert (root / "output" / "mini" / "mini-sheets-a4.pdf").read_bytes() == before


def test_cache_is_bounded_least_recently_used_first(tmp_path):
    import os
    faces = tmp_path / "faces"   # a folder the cache makes (and marks with its CACHEDIR.TAG)
    cache = FaceCache(faces, limit_bytes=2500)
    for i in range(5):
        key = f"{i:02d}" + "f" * 62
        cache.put(key, bytes(1000))
        os.utime(faces / key[:2] / f"{key}.pdf", (1000 + i, 1000 + i))
    assert cache.get("00" + "f" * 62) is not None  # used now: the newest
    removed = cache.prune()
    left = sorted(p.name[:2] for p in faces.glob("*/*.pdf"))
    assert removed == 3 and left == ["00", "04"] and cache.size() <= 2500


def test_prune_never_removes_the_bundles_the_last_build_still_reads(tmp_path):
    import os
    faces = tmp_path / "faces"   # a folder the cache makes (and marks with its CACHEDIR.TAG)
    cache = FaceCache(faces, limit_bytes=2500)
    keys = [f"{i:02d}" + "e" * 62 for i in range(5)]
    for i, key in enumerate(keys):
        cache.put(key, bytes(1000))
        os.utime(faces / key[:2] / f"{key}.pdf", (1000 + i, 1000 + i))
    cache.prune(keep=keys[:3])  # the three oldest are the last build's
    left = sorted(p.name[:2] for p in faces.glob("*/*.pdf"))
    assert left == ["00", "01", "02"]


@pytest.mark.slow
def test_bundles_in_the_cache_are_read_back_not_held(mini, tmp_path):
    from generator.data.load import load_game
    from generator.draw.render import render_game
    from generator.errors import OutputError

    root = mini("\n".join(f'- {{id: c{i}, name: "Card {i}", text: "Words {i}."}}' for i in range(40)))
    cache = FaceCache(root / "output" / ".cache" / "faces")
    warm = render_game(load_game(root, "mini", Session()), Session(), cache=cache)
    held = render_game(load_game(root, "mini", Session()), Session())  # no cache: the bytes are all the build has
    assert all(isinstance(e, str) for e in warm.faces_pdfs.entries)
    assert all(isinstance(e, bytes) for e in held.faces_pdfs.entries)
    assert list(warm.faces_pdfs) == list(held.faces_pdfs) and warm.faces_pdfs == held.faces_pdfs
    shutil.rmtree(cache.folder)
    with pytest.raises(OutputError, match="vanished from"):
        warm.faces_pdfs[0]


def test_face_key_covers_images_and_size(tmp_path):
    (tmp_path / "art.png").write_bytes(b"one")
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><image href="art.png"/></svg>'
    roots = (str(tmp_path),)
    k1 = face_key(svg, (10, 10), roots)
    assert face_key(svg, (10, 10), roots) == k1 and face_key(svg, (10, 11), roots) != k1
    (tmp_path / "art.png").write_bytes(b"two!")
    assert face_key(svg, (10, 10), roots) != k1


@pytest.mark.slow
def test_bundles_share_identical_fonts_so_sheets_store_each_font_once(mini):
    import io

    import pikepdf
    cards = "\n".join(f'- {{id: c{i}, name: "Card {i}", text: "Words {i}."}}' for i in range(80))
    root = mini(cards)
    assert run(root, "build", "--paper", "a4").exit_code == 0
    pdf = pikepdf.open(io.BytesIO((root / "output" / "mini" / "mini-sheets-a4.pdf").read_bytes()))
    names = [str(o.FontName) for o in pdf.objects
             if isinstance(o, pikepdf.Dictionary) and o.get("/Type") == "/FontDescriptor"]
    # faces: Lato regular (cairo's WinAnsi subset and its CID subset, which holds what Pango draws
    # beyond WinAnsi, such as ligatures) and bold; labels: Lato. Each once, whatever the bundles
    assert len(names) == len(set(names)) <= 4, names


@pytest.mark.slow
def test_clean_removes_the_cache_and_with_all_the_outputs(mini):
    root = mini('- {id: a, name: A, text: "Text."}')
    assert run(root, "build").exit_code == 0
    result = run(root, "clean", "mini")
    assert result.exit_code == 0 and "removed" in result.output
    assert not (root / "output" / ".cache").exists() and (root / "output" / "mini").is_dir()
    result = run(root, "clean", "--all")
    assert result.exit_code == 0 and not (root / "output" / "mini").exists()
    assert "nothing to remove" in run(root, "clean").output


@pytest.fixture
def remembering():
    from generator.session import Session

    return Session(remember=True)   # as `pnp watch` makes


def test_a_one_shot_build_remembers_no_svg(mini):
    from generator.data.load import load_game
    from generator.draw.render import render_svgs
    from generator.rendermemo import Forgets, Memo
    from generator.session import Session

    session = Session()
    assert type(session.memo) is Memo and type(session.segments) is Forgets   # null objects: nothing kept
    render_svgs(load_game(mini('- {id: a, name: Alpha, text: "Words."}'), "mini", Session()), session=session)
    assert not len(session.segments) and not len(session.rulebooks)


def test_remembered_renders_follow_templates_card_text_and_the_decks_a_template_reads(mini, remembering):
    from generator.data.load import load_game
    from generator.draw.render import render_svgs
    from tests.conftest import MINI_FRONT

    front = MINI_FRONT.replace("{{ card.name }}", "{{ card.name }} of {{ game.decks.things.cards | length }}")
    root = mini('- {id: a, name: Alpha, text: "Words."}\n- {id: b, name: Beta, text: "More."}', front=front)

    def faces():
        found = render_svgs(load_game(root, "mini", Session()), session=remembering)
        return {rc.card.id: (found.svgs[rc.front], found.svgs[rc.back]) for rc in found.cards}

    first = faces()
    assert "Alpha of 2" in first["a"][0] and len(remembering.memo.svgs) == 4
    assert faces() == first  # remembered: the same SVGs
    with open(root / "cards" / "mini" / "deck.yaml", "a") as fh:
        fh.write('  - {id: c, name: Gamma, text: "Third."}\n')
    second = faces()
    assert "Alpha of 3" in second["a"][0]  # the front reads game.decks: re-rendered for a new card
    edit(root / "templates" / "mini" / "back.svg.j2", "BACK {{ card.id }}", "REVERSE {{ card.id }}")
    third = faces()
    assert "REVERSE a" in third["a"][1] and "Alpha of 3" in third["a"][0]
    edit(root / "cards" / "mini" / "deck.yaml", 'text: "Words."', 'text: "Changed words."')
    assert "Changed" in faces()["a"][0]


def test_remembered_card_checks_report_the_same_problems(mini, remembering):
    """While watching, a card that passed its schema is not checked again until it changes:
    a card broken later is still reported exactly as a one-shot build reports it."""
    from generator.data.load import load_game
    from generator.errors import InputError

    cards = "\n".join(f'- {{id: c{i}, name: "Card {i}", text: "Words {i}.", cost: {i}}}' for i in range(12))
    root = mini(cards)
    load_game(root, "mini", remembering)
    assert any(k[0] == "passes" for k in remembering.memo._derived)  # the cards that passed are remembered
    deck = root / "cards" / "mini" / "deck.yaml"
    edit(deck, "cost: 3}", 'cost: -1, colour: red}')
    edit(deck, 'text: "Words 10."', "text: 7")

    def problems(session):
        with pytest.raises(InputError) as err:
            load_game(root, "mini", session)
        return [(p.file, p.line, p.card, p.field, p.message) for p in err.value.problems]

    warm = problems(remembering)
    assert warm == problems(Session()) and len(warm) == 3
    assert [p[2] for p in warm] == ["c3", "c3", "c10"]  # in card order (c10 after c3), as one check of the whole deck


def test_watch_rebuilds_in_process_write_what_a_cold_build_writes(warm_project, remembering, edited_olympians_cold):
    """Rebuilds in one process (sheet segments replayed, rulebook and draw facts remembered)
    give the same files as a cold build of the edited cards in a fresh output folder."""
    from generator.options import BuildOptions
    from generator.pipeline import build

    project = warm_project
    build(project, ["olympians"], BuildOptions(papers=("a4",), languages=("en",)), session=remembering)
    edited(project, RULEBOOK_EDIT)
    build(project, ["olympians"], BuildOptions(papers=("a4",), languages=("en",)), session=remembering)
    assert len(remembering.segments) and len(remembering.rulebooks)  # the second build had these to reuse
    edited(project, CARD_EDIT)
    warm = build(project, ["olympians"], BuildOptions(papers=("a4",), languages=("en",)), session=remembering)[0]
    assert warm.rendered.drawn == 1, "one edited card redraws one bundle"
    # a fresh session, nothing drawn yet, in an output folder of its own: the cold build of the same data
    assert files_of(project / "output" / "olympians") == files_of(edited_olympians_cold)


def test_the_card_check_reads_refs_as_the_whole_deck_check_did():
    from generator.data.schema import check, check_items
    from generator.rendermemo import Memo

    card = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"$ref": "#/properties/a"}}}
    raw = {"cards": [{"a": 1, "b": "x"}]}
    whole = check(raw, {"type": "object", "properties": {"cards": {"type": "array", "items": card}}}, "f")
    assert [p.message for p in check_items(raw, "cards", card, "f", None, Memo())] == [p.message for p in whole]
    assert "cannot be applied" in whole[0].message


def test_what_watching_remembers_is_bounded(remembering):
    """Large values (finished rulebooks) are kept a few at a time; facts about faces up to
    a fixed number per remembered face, so that a rebuild never evicts what it asks for next."""
    from generator import rendermemo

    memo = remembering.memo
    for i in range(3 * rendermemo.FEW):
        memo.derived(("rulebook", i), lambda i=i: b"x" * 1000, few=True)
    assert len(memo._few) == rendermemo.FEW
    assert memo.recall(("rulebook", 3 * rendermemo.FEW - 1), few=True) is not None
    memo = rendermemo.RenderMemo(10)
    for i in range(200):
        memo.keep(("fact", i), i)
    assert len(memo._derived) == 10 * rendermemo.DERIVED_PER_FACE
    assert memo.recall(("fact", 199)) == 199 and memo.recall(("fact", 0)) is None
    for i in range(20):
        remembering.furniture.put(("sheet", i), (b"furniture",))
    assert len(remembering.furniture) == 8 and remembering.furniture.get(("sheet", 19))


@pytest.mark.slow
def test_a_word_that_brings_a_ligature_redraws_only_its_bundle(project):
    """EB Garamond Italic joins e+s: "Skies" on Zeus's card brings a ligature no card had
    before. The primer page holds the clusters of every pair of lowercase letters in each font, so
    the edit redraws Zeus's bundle only (it used to change the primer, and every bundle)."""
    from generator.data.load import load_game
    from generator.draw.render import render_game

    cache = FaceCache(project / "output" / ".cache" / "faces")
    cold = render_game(load_game(project, "olympians", Session()), Session(), cache=cache)
    edit(project / "cards" / "olympians" / "playing-cards.yaml", "title: Ruler of the Sky", "title: Ruler of the Skies")
    warm = render_game(load_game(project, "olympians", Session()), Session(), cache=cache)
    assert 1 <= warm.drawn <= 2 < len(cold.faces_pdfs)


def test_the_face_cache_and_the_picture_store_are_one_store_with_one_format(tmp_path):
    """Both disk stores are a `diskstore.Store` in a subfolder of their own: the same entry
    format (fields, lengths, a tag keyed with this machine's key), written and read by
    the same code; each refuses (and removes) a damaged entry."""
    from generator import diskstore
    from generator.draw.pictures import Prepared
    from generator.draw.picturestore import PictureStore

    faces, pictures = FaceCache(tmp_path / "faces"), PictureStore(tmp_path / "pictures")
    assert isinstance(faces, diskstore.Store) and isinstance(pictures, diskstore.Store)
    for method in ("fields", "write", "drop", "prune", "size"):   # the format and the folder: never their own
        assert getattr(type(faces), method) is getattr(type(pictures), method) or method == "prune"
    assert "prune" not in vars(PictureStore) and all(m not in vars(FaceCache) for m in ("fields", "write", "drop"))
    key = "ab" + "0" * 62
    faces.put(key, b"%PDF-1.5 faces", b"notes")
    pixels = b"prepared pixels"
    pictures.put(key, Prepared("png", pixels, (2, 2), "resampled", b"", hashlib.sha256(pixels).hexdigest(), ()))
    face_entry, picture_entry = tmp_path / "faces" / "ab" / f"{key}.pdf", tmp_path / "pictures" / "ab" / key
    assert diskstore.unpack(f"faces/{key}", face_entry.read_bytes()) == (b"%PDF-1.5 faces", b"notes")
    assert diskstore.unpack(f"pictures/{key}", picture_entry.read_bytes())[2] == pixels
    assert diskstore.unpack(f"faces/{key}", picture_entry.read_bytes()) is None   # the kind is part of the tag
    assert faces.entry(key) == (b"%PDF-1.5 faces", b"notes") and pictures.get(key, b"").data == pixels
    for entry in (face_entry, picture_entry):
        damaged = bytearray(entry.read_bytes())
        damaged[3] ^= 1
        entry.write_bytes(bytes(damaged))
    assert faces.entry(key) is None and not face_entry.exists()
    assert pictures.get(key, b"") is None and not picture_entry.exists()
