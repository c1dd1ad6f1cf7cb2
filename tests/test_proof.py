"""`pnp build --proof`: the low-ink proof. The pass over a face's SVG (backgrounds dropped,
frames outlined, text and icons black, pictures as named boxes, a template's `data-proof`
tags), and a whole build of a tiny game: its proof sheets beside the full ones carry every
word, the same page boxes and the same cut file, with a fraction of the ink.
(The five shipped games are measured with Ghostscript's inkcov by benchmarks/proof_ink.py:
docs/proof.md.)"""
from __future__ import annotations

import io
import re

import pikepdf
import pypdfium2 as pdfium
import pytest
from lxml import etree

from generator.data.load import load_game
from generator.draw.proof import LINE, proof_svg
from generator.draw.render import render_svgs
from generator.errors import RenderError, collect
from generator.session import Session
from tests.conftest import run

NS = {"s": "http://www.w3.org/2000/svg", "p": "urn:pnp:text"}
FACE = """<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="60mm" height="90mm" viewBox="0 0 60 90">
  <defs><linearGradient id="g"><stop offset="0" stop-color="#123"/></linearGradient></defs>
  <rect id="bg" width="60" height="90" fill="#0b3d1e"/>
  <rect id="panel" x="5" y="5" width="50" height="30" rx="2" fill="url(#g)" stroke="#c9a23f" stroke-width="1.5" filter="url(#f)"/>
  <g fill="#f4ead3"><text id="name" x="8" y="14" font-size="5" stroke="#000">Ares</text></g>
  <g fill="#7a1020"><svg id="icon" x="40" y="40" width="6" height="6" viewBox="0 0 10 10" overflow="visible">
    <circle id="dark" cx="5" cy="5" r="5"/><circle id="light" cx="5" cy="5" r="2" fill="#ffeedd"/></svg></g>
  <circle id="pip" cx="10" cy="50" r="1" fill="#c00"/>
  <image id="art" x="5" y="55" width="50" height="25" xlink:href="art/dragon-fire.jpg"/>
  <pnp:text xmlns:pnp="urn:pnp:text" id="body" x="5" y="82" width="50" size="3" fill="#fefefe">Strike first</pnp:text>
</svg>"""


def _tree(svg: str):
    return etree.fromstring(svg.encode())


def _by_id(tree, ident: str):
    found = tree.xpath(f"//*[@id='{ident}']")
    return found[0] if found else None


def test_a_proof_drops_backgrounds_outlines_frames_and_blackens_text_and_icons():
    tree = _tree(proof_svg(FACE, 60, 90))
    assert _by_id(tree, "bg") is None                              # the full-bleed fill
    panel = _by_id(tree, "panel")
    assert (panel.get("fill"), panel.get("stroke"), float(panel.get("stroke-width"))) == ("none", "#000", LINE)
    assert panel.get("filter") is None and panel.get("rx") == "2"   # same geometry, no shadow
    name = _by_id(tree, "name")
    assert (name.get("fill"), name.get("stroke")) == ("#000", "none")   # light text on a dark band: black
    assert _by_id(tree, "body").get("fill") == "#000"                  # Pango's text boxes too
    assert _by_id(tree, "icon").getparent().get("fill") == "#000"      # an icon's colour, from its group
    assert _by_id(tree, "light").get("fill") == "#fff"                 # its light details stay light
    assert _by_id(tree, "pip").get("fill") == "#000"                   # a small shape is an icon
    assert _by_id(tree, "art") is None
    label = tree.xpath("//s:text[text()='dragon-fire']", namespaces=NS)[0]   # the picture: a box with its name
    box = label.getparent().xpath("s:rect", namespaces=NS)[0]
    assert (box.get("x"), box.get("y"), box.get("width"), box.get("height")) == ("5", "55", "50", "25")
    assert box.get("fill") == "none"


def test_a_template_tags_what_the_heuristics_get_wrong():
    face = FACE.replace('id="bg"', 'id="bg" data-proof="keep"').replace('id="pip"', 'id="pip" data-proof="omit"')
    face = face.replace('<svg id="icon"', '<svg id="icon" data-proof="outline"')
    face = face.replace('id="panel"', 'id="panel" data-proof="notes"')
    tree = _tree(proof_svg(face, 60, 90))
    assert _by_id(tree, "bg").get("fill") == "#0b3d1e"      # kept as drawn
    assert _by_id(tree, "pip") is None                       # left out
    assert _by_id(tree, "dark").get("fill") == "none"        # outlined
    notes = tree.xpath("//s:g[s:line]", namespaces=NS)[0]    # the panel: ruled space for notes
    assert len(notes.xpath("s:line", namespaces=NS)) == 4    # 30 mm, a rule every 6 mm
    with pytest.raises(ValueError, match='data-proof="shiny"'):
        proof_svg(FACE.replace('id="pip"', 'data-proof="shiny"'), 60, 90)


DARK = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="#1b2a4a"/>
  <rect x="6" y="6" width="{{ deck.width - 12 }}" height="{{ deck.height - 12 }}" rx="3" fill="#c9a23f"/>
  <rect x="9" y="9" width="{{ deck.width - 18 }}" height="12" fill="#7a1020"/>
  <text x="12" y="17" font-family="Lato" font-size="5" fill="#fff">{{ card.name }}</text>
  {{ textbox(card.text, 10, 30, deck.trim_w - 14, 30, size=3.5, min_size=2.5) }}
</svg>
"""


def _ink(pdf: bytes) -> float:
    """Ink on the pages (C+M+Y+K of each pixel, as a naive separation), added up."""
    import numpy as np

    total = 0.0
    for page in pdfium.PdfDocument(pdf):
        rgb = np.asarray(page.render(scale=0.5).to_pil().convert("RGB"), dtype=float) / 255
        k = 1 - rgb.max(axis=2)
        total += float((k + ((1 - rgb - k[..., None]) / np.maximum(1 - k[..., None], 1e-9)).sum(axis=2)).sum())
    return total


def _words(pdf: bytes) -> set[str]:
    return {w for page in pdfium.PdfDocument(pdf) for w in re.findall(r"\w+", page.get_textpage().get_text_range())}


@pytest.mark.slow   # two builds of a tiny game
def test_a_proof_build_keeps_every_word_and_trim_with_a_fraction_of_the_ink(mini):
    root = mini("- {id: a, name: Hydra, text: 'Strike **first**, then nothing'}\n"
                "- {id: b, name: Medusa, text: Look away.}", front=DARK, back=DARK)
    out = root / "output" / "mini"
    assert run(root, "build", "--paper", "a4").exit_code == 0
    full, cut = (out / "mini-sheets-a4.pdf").read_bytes(), (out / "mini-cut-a4.svg").read_bytes()
    result = run(root, "build", "--paper", "a4", "--proof")
    assert result.exit_code == 0, result.output
    proof = (out / "mini-proof-sheets-a4.pdf").read_bytes()
    assert (out / "mini-cut-a4.svg").read_bytes() == cut
    assert _words(full) <= _words(proof) and {"Hydra", "Medusa", "first"} <= _words(proof)
    with pikepdf.open(io.BytesIO(full)) as a, pikepdf.open(io.BytesIO(proof)) as b:
        boxes = ("/MediaBox", "/TrimBox", "/BleedBox")
        assert [[list(p.obj.get(k, [])) for k in boxes] for p in a.pages] == \
               [[list(p.obj.get(k, [])) for k in boxes] for p in b.pages]
    assert _ink(proof) <= 0.15 * _ink(full)


def test_a_tag_proof_does_not_know_is_named_with_its_card(mini):
    front = DARK.replace('rx="3"', 'rx="3" data-proof="shiny"')
    root = mini("- {id: a, name: Hydra, text: Bite.}", front=front)
    with pytest.raises(RenderError) as refused:
        render_svgs_or_raise(load_game(root, "mini", Session()))
    assert [(p.card, p.file) for p in refused.value.problems] == [("a", "cards/mini/deck.yaml")]
    assert 'front: front.svg.j2: proof: data-proof="shiny"' in refused.value.problems[0].message


def render_svgs_or_raise(game):
    """The game's proof faces as SVG (no drawing), its problems raised as a build raises them."""
    found = render_svgs(game, Session(), proof=True)
    collect("while drawing", found.problems, RenderError)
    return found
