"""The errata kit (`pnp changes A..B`): seven planted edits classed, the reprint pack's fronts
and backs registered, the changelog sheet, the pull list, short card ids and QR codes."""
from __future__ import annotations

import json
import subprocess

import pypdfium2 as pdfium
import pytest

from generator.draw import cardid
from tests.conftest import run

FRONT = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="#fafafa"/>
  <text x="{{ deck.width / 2 }}" y="{{ deck.height / 2 }}" text-anchor="middle" font-family="Lato" font-size="5">{{ card.name }}</text>
  {{ textbox(card.text, 6, 60, deck.trim_w - 6, 20, size=3.5, min_size=2.5) }}
  {% if card.art is defined %}<image href="{{ card.art }}" x="6" y="8" width="12" height="12"/>{% endif %}
</svg>
"""
BACK = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="{{ card.tint | default('#335') }}"/>
  <text x="{{ deck.width / 2 }}" y="{{ deck.height / 2 }}" text-anchor="middle" font-family="Lato" font-size="5" fill="#fff">B{{ card.name }}</text>
</svg>
"""
BEFORE = """
- {id: a, name: Alpha, text: "Draw two cards, then rest."}
- {id: b, name: Bravo, text: "Gain one coin.", count: 2}
- {id: c, name: Charlie, text: "Lose one coin.", count: 2}
- {id: d, name: Delta, text: "Discard a card."}
- {id: e, name: Echo, text: "Look at the sky.", art: e.png}
- {id: f, name: Foxtrot, text: "Trade freely.", tint: "#335"}
- {id: h, name: Hotel, text: "Rest."}
"""
AFTER = """
- {id: a, name: Alpha, text: "Draw three cards, then rest."}
- {id: b, name: Bravo, text: "Gain one coin.", count: 3}
- {id: c, name: Charlie, text: "Lose one coin.", count: 1}
- {id: e, name: Echo, text: "Look at the sky.", art: e.png}
- {id: f, name: Foxtrot, text: "Trade freely.", tint: "#533"}
- {id: g, name: Golf, text: "A new card."}
- {id: h, name: Hotel, text: "Rest."}
"""
PLANTED = {"a": ["text"], "b": ["count"], "c": ["count"], "d": ["removed"], "e": ["art"], "f": ["back"],
           "g": ["added"]}


def git(root, *args) -> str:
    return subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=root,
                          check=True, capture_output=True, text=True).stdout.strip()


def tiny(mini, cards=BEFORE, front=FRONT):
    root = mini(cards, front=front, back=BACK)
    deck = root / "cards" / "mini" / "deck.yaml"
    deck.write_text(deck.read_text().replace("fields:\n", "fields:\n  art: {type: string}\n  tint: {type: string}\n"))
    (root / "templates" / "mini" / "e.png").write_bytes(_png("red"))
    return root


def _png(colour) -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (24, 24), colour).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def versions(mini):
    """A project in git: v1 (tagged) and a second commit with the seven planted edits."""
    root = tiny(mini)
    (root / ".gitignore").write_text("output/\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "v1")
    git(root, "tag", "v1")
    deck = root / "cards" / "mini" / "deck.yaml"
    deck.write_text(deck.read_text().split("cards:\n")[0] + "cards:\n" +
                    "".join(f"  {line}\n" for line in AFTER.strip().splitlines()))
    (root / "templates" / "mini" / "e.png").write_bytes(_png("blue"))
    git(root, "commit", "-qam", "v2")
    return root


def test_seven_planted_edits_each_classed_with_a_reprint_pack_registered(versions):
    root = versions
    result = run(root, "changes", "v1..HEAD", "mini", "--paper", "a4", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)[0]
    assert {c["id"]: c["kinds"] for c in data["changes"]} == PLANTED
    by_id = {c["id"]: c for c in data["changes"]}
    assert by_id["a"]["words"] == {"text": [["=", "Draw"], ["-", "two"], ["+", "three"], ["=", "cards, then rest."]]}
    assert (by_id["b"]["reprint"], by_id["b"]["pull"]) == (1, 0)       # count +1: one more copy
    assert (by_id["c"]["reprint"], by_id["c"]["pull"]) == (0, 1)       # count -1: one copy out
    assert {p["id"]: p["copies"] for p in data["pull_list"]} == {"a": 1, "c": 1, "d": 1, "e": 1, "f": 1}
    assert all(len(p["short_id"]) == cardid.LENGTH for p in data["pull_list"])
    assert by_id["a"]["short_id"]["before"] != by_id["a"]["short_id"]["after"]
    assert by_id["b"]["short_id"]["before"] == by_id["b"]["short_id"]["after"]   # a count prints nothing

    folder = root / "output" / "mini"
    # the reprint pack: only the changed faces (b once, c not at all), each back behind its front
    fronts, backs, size = _faces_read(folder / "mini-reprint-a4.pdf")
    assert sorted(fronts) == ["Alpha", "Bravo", "Echo", "Foxtrot", "Golf"]
    assert sorted(backs) == sorted(fronts)
    for name, (page, x, y) in fronts.items():
        back_page, bx, by = backs[name]
        assert back_page == page + 1                            # duplex: the back on the sheet's other side
        assert abs(bx - (size[0] - x)) < 1 and abs(by - y) < 1  # long edge: mirrored left to right, in mm
    # the changelog sheet: every change, old and new words, not the card that did not change
    text = _text(folder / "mini-changes-a4.pdf")
    for word in ("Alpha", "two", "three", "Bravo", "count +1", "Charlie", "count -1", "Delta", "removed",
                 "Echo", "art only", "Foxtrot", "back only", "Golf", "added"):
        assert word in text, word
    assert "Hotel" not in text
    assert json.loads((folder / "mini-changes.json").read_text())["changes"] == data["changes"]


def test_the_same_version_twice_is_empty_and_a_bad_ref_a_clean_error(versions):
    result = run(versions, "changes", "HEAD..HEAD", "mini")
    assert result.exit_code == 0 and "mini: no card changed from HEAD to HEAD" in result.output
    assert not (versions / "output" / "mini").exists()
    for spec in ("no-such-tag..HEAD", "v1..nope"):
        result = run(versions, "changes", spec, "mini")
        assert result.exit_code == 2 and "cannot read git ref" in result.output, result.output
        assert "Traceback" not in result.output


def test_printed_lists_the_physical_cards_out_of_date(versions):
    result = run(versions, "changes", "--printed", "v1-dirty", "mini", "--no-files")
    assert result.exit_code == 0, result.output
    assert "mini: 5 printed cards of v1-dirty out of date" in result.output
    pulls = result.output.split("pull from the box:")[1]
    for name in ("Alpha", "Charlie", "Delta", "Echo", "Foxtrot"):
        assert name in pulls
    assert "Bravo" not in pulls and "Golf" not in pulls
    assert not (versions / "output" / "mini").exists()
    described = git(versions, "describe", "--tags")   # v1-1-g<commit>: what a stamp of HEAD prints
    result = run(versions, "changes", "--printed", described, "mini", "--no-files")
    assert result.exit_code == 0 and f"mini: 0 printed cards of {described} out of date" in result.output


def test_the_stamp_prints_the_short_id_the_helper_gives(mini):
    from generator.data.load import load_game
    from generator.draw.render import render_svgs
    from generator.draw.stamp import stamp_of
    from generator.session import Session

    front = FRONT.replace("</svg>", "<text>id={{ card_id(card) }}</text>{{ qr(card_id(card), 2, 2, 10) }}</svg>")
    root = tiny(mini, front=front)
    game = load_game(root, "mini", Session())
    stamp = stamp_of(game, "v9 · {id}")
    assert stamp.text == "v9"                                    # page footers: no card's id
    found = render_svgs(game, Session(), stamp=stamp)
    shorts = cardid.short_ids(game)
    for rc in found.cards:
        short = shorts[rc.card.id]
        svg = found.svgs[rc.front]
        assert f"id={short}<" in svg and f">v9 · {short}</text>" in svg
        assert f">v9 · {short}</text>" in found.svgs[rc.back]
    assert len(set(shorts.values())) == len(found.cards)
    assert run(root, "build", "--stamp", "{id} {nope}").exit_code == 2


def test_short_ids_follow_content_not_count():
    card = {"id": "a", "name": "Alpha", "text": "Draw two.", "count": 1}
    short = cardid.short_id(card)
    assert len(short) == cardid.LENGTH and set(short) <= set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    assert cardid.short_id({**card, "count": 3}) == short
    assert cardid.short_id({**card, "text": "Draw three."}) != short


def test_the_qr_helper_draws_segnos_modules():
    import re

    import segno

    svg = str(cardid.qr_svg("pnp A1B2C3", 1, 2, 20))
    drawn = set()
    for x, y, w in re.findall(r"M(\d+) (\d+)h(\d+)", svg):
        drawn |= {(int(x) + i, int(y)) for i in range(int(w))}
    expected = {(i, j) for j, row in enumerate(segno.make("pnp A1B2C3", error="m", micro=False).matrix_iter(border=2))
                for i, dark in enumerate(row) if dark}
    assert drawn == expected
    assert 'transform="translate(1.000 2.000)' in svg
    with pytest.raises(Exception, match="1 to 400"):
        cardid.qr_svg("x" * 401, 0, 0, 10)


def _faces_read(path):
    """{name: (page, x, y)} of each front's centred name and each back's (its 'B' + name), in
    mm from the page's bottom left, and the page's size in mm, read from the PDF's text."""
    fronts, backs = {}, {}
    pdf = pdfium.PdfDocument(path.read_bytes())
    size = None
    for number in range(len(pdf)):
        page = pdf[number]
        w, h = page.get_size()
        size = (w / 72 * 25.4, h / 72 * 25.4)
        text = page.get_textpage()
        for word in ("Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel"):
            for back in (False, True):
                searcher = text.search(("B" if back else "") + word, match_case=True, match_whole_word=True)
                while (found := searcher.get_next()) is not None:
                    left, bottom, right, top = text.get_charbox(found[0])
                    l2, b2, r2, t2 = text.get_charbox(found[0] + found[1] - 1)
                    centre = ((left + r2) / 2 / 72 * 25.4, (bottom + t2) / 2 / 72 * 25.4)
                    table = backs if back else fronts
                    assert word not in table, f"{word} printed twice"
                    table[word] = (number, *centre)
    return fronts, backs, size


def _text(path) -> str:
    pdf = pdfium.PdfDocument(path.read_bytes())
    return "\n".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))


@pytest.mark.slow   # a build first
def test_last_build_to_now_reads_the_build_record(mini):
    root = tiny(mini)
    assert run(root, "build", "--paper", "a4").exit_code == 0
    deck = root / "cards" / "mini" / "deck.yaml"
    deck.write_text(deck.read_text().replace("Draw two cards", "Draw four cards").replace(
        '  - {id: d, name: Delta, text: "Discard a card."}\n', ""))
    result = run(root, "changes", "last", "mini", "--no-files", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)[0]
    assert {c["id"]: c["kinds"] for c in data["changes"]} == {"a": ["text"], "d": ["removed"]}
    assert data["changes"][0]["words"]["text"][1:3] == [["-", "two"], ["+", "four"]]
    assert run(root, "changes", "HEAD..last", "mini").exit_code == 2   # the last build is only ever the earlier


@pytest.mark.slow   # renders a shipped game twice
def test_a_shipped_game_between_two_commits(project):
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "v1")
    deck = project / "cards" / "olympians" / "playing-cards.yaml"
    text = deck.read_text()
    text = text.replace("No card outranks the king of the mountain.", "No card outranks the lord of the mountain.")
    text = text.replace("title: Recruit}", "title: Recruit, count: 2}", 1)
    deck.write_text(text.replace("    title: Queen of Olympus\n", "    title: Queen of the Gods\n"))
    result = run(project, "changes", "HEAD", "olympians", "--no-files", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)[0]
    # the dealing tablet prints the deck's counts: it prints differently with none of its own words changed
    assert {c["id"]: c["kinds"] for c in data["changes"]} == {"arrows-1": ["count"], "zeus": ["text"],
                                                              "hera": ["text"], "dealing-tablet": ["art"]}
    by_id = {c["id"]: c for c in data["changes"]}
    assert ["-", "king"] in by_id["zeus"]["words"]["text"] and ["+", "lord"] in by_id["zeus"]["words"]["text"]
    assert by_id["hera"]["words"] == {"title": [["=", "Queen of"], ["-", "Olympus"], ["+", "the Gods"]]}
    assert [p["id"] for p in data["pull_list"]] == ["zeus", "hera", "dealing-tablet"]


def test_the_reprint_packs_stamp_names_version_b(versions):
    from generator.errata import NOW, Version
    from generator.erratapack import _stamp
    from generator.options import BuildOptions

    asked = BuildOptions(stamp="{version} {id}")
    assert _stamp(Version("v1"), versions, asked) == "v1 {id}"          # B a ref: its own describe
    assert _stamp(Version(NOW), versions, asked) == "{version} {id}"    # now: the build's own
    assert _stamp(Version("v1"), versions, BuildOptions(stamp="")) == ""
