"""Rendering: fitted text stays inside its box, errors name the card, fonts are the shipped ones."""
from __future__ import annotations

import io

import cairosvg
import pikepdf
import pypdfium2 as pdfium
import pytest

from generator.data.load import load_game
from generator.draw.fonts import shipped
from generator.draw.textfit import TextDoesNotFit, TextError, TextSetter, parse, read_icon
from generator.session import Session
from tests.conftest import MINI_FRONT, REPO, run

COIN = read_icon("coin", '<svg viewBox="0 0 10 10"><circle cx="5" cy="5" r="5" fill="#d4a017"/></svg>')


def _svg(body: str, w=70, h=100) -> bytes:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}" '
            f'text-rendering="geometricPrecision">{body}</svg>').encode()


@pytest.mark.parametrize("text, family", [
    ("Deal 3 damage & draw 2 cards.", "Lato"),
    ("When AVAWAY enters play, each opponent discards a card. **Then** gain 2 :coin: and *draw* "
     "until you hold five; Wyvern fjord tactics apply to every LTA tile.", "Lato"),
    ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut "
     "labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco.\n\n"
     "A second paragraph, set in the same face.", "EB Garamond"),
])
def test_fitted_text_is_drawn_inside_its_box(text, family):
    box = (10.0, 40.0, 49.0, 30.0)
    setter = TextSetter(shipped(), {"coin": COIN})
    markup = setter.svg(text, x=box[0], y=box[1], w=box[2], h=box[3], family=family, size=4.0, min_size=1.8)
    pdf = pdfium.PdfDocument(_drawn(_svg(str(markup))))
    page = pdf[0]
    textpage = page.get_textpage()
    mm = 72 / 25.4
    height = page.get_height()
    n = textpage.count_chars()
    assert n > 10
    for i in range(n):
        if textpage.get_text_range(i, 1).isspace():
            continue
        left, bottom, right, top = textpage.get_charbox(i, loose=False)
        assert left / mm >= box[0] - 0.05
        assert right / mm <= box[0] + box[2] + 0.05, textpage.get_text_range(i, 1)
        assert (height - top) / mm >= box[1] - 0.05
        assert (height - bottom) / mm <= box[1] + box[3] + 0.05
    extracted = textpage.get_text_range().replace("\r", "").replace("\n", " ")
    assert " ".join(extracted.split()).startswith(" ".join(text.replace("**", "").split())[:20])


def _drawn(svg: bytes) -> bytes:
    """A face drawn as a build draws it (bundlepdf), alone on page 0."""
    from generator.draw.bundlepdf import draw_bundle
    pdf, keys, problems, _ = draw_bundle([("k", svg.decode(), None)])
    assert not problems and keys == ["k"], problems
    return pdf


def test_measured_width_matches_drawn_width():
    face = shipped().face("Lato", bold=True)
    text = "AVAWAY Tyrant of Wyvern fjord"
    svg = _svg(f'<text x="5" y="20" font-family="Lato" font-weight="bold" font-size="5">{text}</text>', w=150)
    page = pdfium.PdfDocument(cairosvg.svg2pdf(bytestring=svg))[0]
    tp = page.get_textpage()
    left = tp.get_charbox(0, loose=False)[0]
    last = tp.count_chars() - 1
    right_origin = tp.get_charbox(last, loose=True)[2]
    drawn = (right_origin - left) / (72 / 25.4)
    measured = face.width(text, 5)
    assert abs(drawn - measured) / measured < 0.01


def test_text_that_cannot_fit_raises():
    setter = TextSetter(shipped(), {})
    with pytest.raises(TextDoesNotFit, match="minimum size 2"):
        setter.svg("word " * 300, x=0, y=0, w=40, h=20, size=3, min_size=2)
    with pytest.raises(TextError, match="unknown icon ':nope:'"):
        setter.svg("a :nope: b", x=0, y=0, w=40, h=20, size=3)
    with pytest.raises(TextError, match="align must be one of left, center, right"):
        setter.svg("a", x=0, y=0, w=40, h=20, size=3, align="centre")


def test_text_that_fits_only_at_the_minimum_size_is_set_there():
    setter = TextSetter(shipped(), {})
    text = "word " * 30
    # a box exactly as tall as one line at 2.0 mm (leading 1.2): it fits there, on one line
    spec = setter.spec(text, w=200, size=3.0, family="Lato", leading=1.2)
    fitted = setter.engine.fit(spec, 1.2 * 2.0 + 1e-6, 2.0)
    assert fitted.spec.size == 2.0 and fitted.lines == 1


def styles(text):
    return [[(r.text, r.bold, r.italic, r.icon) for r in word] for para in parse(text) for word in para]


def test_markup_is_markdown_like_and_never_restyles_silently():
    assert styles("2 * 3 = 6") == [[("2", False, False, None)], [("*", False, False, None)],
                                   [("3", False, False, None)], [("=", False, False, None)], [("6", False, False, None)]]
    assert styles("**Win** *now*") == [[("Win", True, False, None)], [("now", False, True, None)]]
    assert styles(r"a \*literal\* and 10:30: at :coin:") == [
        [("a", False, False, None)], [("*", False, False, None), ("literal", False, False, None),
                                      ("*", False, False, None)],
        [("and", False, False, None)], [("10:30:", False, False, None)], [("at", False, False, None)],
        [("", False, False, "coin")]]
    with pytest.raises(TextError, match=r"unclosed \*\*"):
        parse("**bold never ends\n\nnext paragraph")


def test_inline_icons_take_the_text_colour():
    setter = TextSetter(shipped(), {"coin": COIN})
    markup = str(setter.svg("pay :coin:", x=0, y=0, w=40, h=10, size=3, color="#ffffff"))
    assert 'viewBox="0 0 10 10" overflow="visible" fill="#ffffff"' in markup


FACES = [
    ("Lato", False, False), ("Lato", True, False), ("Lato", False, True), ("Lato", True, True),
    ("Lato Black", False, False), ("EB Garamond", False, False), ("EB Garamond", False, True),
    ("Open Sans Condensed", True, False), ("DejaVu Sans", False, False), ("sans-serif", False, False),
    ("serif", False, False),
]


def _hamburg(family, bold, italic) -> bytes:
    attrs = f'font-family="{family}"' + (' font-weight="bold"' if bold else "") + (
        ' font-style="italic"' if italic else "")
    return _svg(f'<text x="5" y="20" {attrs}>Hamburg</text>')


@pytest.fixture(scope="module")
def drawn_by_cairo() -> dict:
    """{(family, bold, italic): the PDF CairoSVG draws of "Hamburg" in that face}, all drawn
    in one process of their own (started once for the module): cairo keeps the fonts it has
    drawn with for the life of a process, and the numbering of a later PDF's resources in a
    test process would depend on this test. Each request is resolved by fontconfig alone
    (cairo's fonts are kept by what was asked: family, weight, slant)."""
    import json
    import subprocess
    import sys

    draw = ("import json, sys, cairosvg\n"
            "for svg in json.load(sys.stdin):\n"
            "    pdf = cairosvg.svg2pdf(bytestring=svg.encode())\n"
            "    sys.stdout.buffer.write(b'%d\\n' % len(pdf) + pdf)\n")
    done = subprocess.run([sys.executable, "-c", draw], input=json.dumps([_hamburg(*f).decode() for f in FACES]).encode(),
                          capture_output=True, check=True)   # the environment keeps the hermetic FONTCONFIG_FILE
    out, pdfs = io.BytesIO(done.stdout), {}
    for face in FACES:
        pdfs[face] = out.read(int(out.readline()))
    assert out.read() == b""
    return pdfs


@pytest.mark.slow
@pytest.mark.parametrize("family, bold, italic", FACES)
def test_cairo_draws_with_the_face_we_measure(family, bold, italic, drawn_by_cairo):
    """The hermetic fontconfig resolves each request to exactly the file pnp measures with
    (drawn in a process of its own: `drawn_by_cairo`)."""
    face = shipped().face(family, bold, italic)
    pdf = pikepdf.open(io.BytesIO(drawn_by_cairo[family, bold, italic]))
    names = [str(f.BaseFont).split("+")[-1] for f in pdf.pages[0].Resources.Font.values()]
    assert names == [face.postscript_name]


def _char_boxes(pdf_bytes, number=0):
    page = pdfium.PdfDocument(pdf_bytes)[number]
    tp = page.get_textpage()
    h = page.get_height()
    mm = 72 / 25.4
    for i in range(tp.count_chars()):
        if not tp.get_text_range(i, 1).isspace():
            left, bottom, right, top = tp.get_charbox(i, loose=False)
            yield left / mm, (h - top) / mm, right / mm, (h - bottom) / mm


def test_fitted_text_stays_inside_its_box_on_the_real_drawing_path():
    """Drawn exactly as a build draws (recording surface, no geometricPrecision in the template):
    every glyph of text fitted tight to its box ends inside it."""
    from generator.draw.faces import draw_faces
    setter = TextSetter(shipped(), {})
    text = "AVAWAY Tyrant of Wyvern fjord: To ffi flat, WAVE after WAVE of Lyytikäinen tactics."
    box = (6.0, 20.0, 40.0, 30.0)
    markup = setter.svg(text, x=box[0], y=box[1], w=box[2], h=box[3], family="Lato", size=5.0, min_size=2.0)
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="69mm" height="94mm" viewBox="0 0 69 94">'
           f'{markup}</svg>')
    drawn = draw_faces({"k": svg}, Session())
    doc, number = drawn.page_of["k"]  # page 0 of a bundle is its font primer
    for x0, y0, x1, y1 in _char_boxes(drawn.documents[doc], number):
        assert box[0] - 0.05 <= x0 and x1 <= box[0] + box[2] + 0.05
        assert box[1] - 0.05 <= y0 and y1 <= box[1] + box[3] + 0.05


def test_face_of_the_wrong_size_is_an_error(mini):
    root = mini("- {id: a, name: Alpha, text: ok}", front=MINI_FRONT.replace(
        'width="{{ deck.width }}mm" height="{{ deck.height }}mm"', 'width="63mm" height="88mm"', 1))
    result = run(root, "build")
    assert result.exit_code == 2
    assert "card a: the face is drawn 63.00 x 88.00 mm but must be 69 x 94 mm" in result.output


@pytest.mark.slow
def test_images_come_from_the_templates_folder_only(mini, tmp_path):
    from PIL import Image
    front = MINI_FRONT.replace("</svg>", '<image x="10" y="50" width="20" height="20" href="art/red.png"/></svg>')
    root = mini("- {id: a, name: Alpha, text: ok}", front=front)
    art = root / "templates" / "mini" / "art"
    art.mkdir()
    Image.new("RGB", (8, 8), (255, 0, 0)).save(art / "red.png")
    assert run(root, "build", "--paper", "a4").exit_code == 0
    page = pdfium.PdfDocument(root / "output/mini/mini-sheets-a4.pdf")[0].render(scale=1).to_pil().convert("RGB")
    assert (255, 0, 0) in {c for _, c in page.getcolors(maxcolors=1 << 22)}
    (art / "red.png").unlink()
    result = run(root, "build")
    assert result.exit_code == 2 and "card a: image 'mini/art/red.png' does not exist" in result.output
    (root / "templates" / "mini" / "front.svg.j2").write_text(front.replace("art/red.png", "../../../etc/hostname"))
    result = run(root, "build")
    assert result.exit_code == 2 and "is outside the game's templates folder" in result.output


@pytest.mark.slow
def test_card_text_jinja_is_sandboxed_and_errors_name_the_card(project):
    from tests.conftest import edit
    edit(project / "cards/olympians/reference.yaml", "{% set th = data.tables.trojan_horse %}",
         "{% set th = data.tables.trojan_horse %}{{ ''.__class__.__mro__ }}")
    result = run(project, "build", "olympians", "--lang", "en")   # the translations would not have it
    assert result.exit_code == 2
    assert "cards/olympians/reference.yaml:36: card trojan-horse: front (reference.svg.j2): Jinja in the card's " \
           "text: access to attribute '__class__' of 'str' object is unsafe" in result.output


def test_unshipped_font_and_missing_glyph_fail_naming_the_card(mini):
    front = MINI_FRONT.replace('font-family="Lato"', 'font-family="Comic Sans MS"')
    root = mini("- {id: a, name: Alpha, text: ok}", front=front)
    result = run(root, "build")
    assert result.exit_code == 2
    assert "card a: font 'Comic Sans MS' is not shipped with pnp" in result.output
    root = mini("- {id: star, name: \"Shooting ★ Star\", text: ok}")
    result = run(root, "build")
    assert result.exit_code == 2
    assert "cards/mini/deck.yaml:10: card star: character '★' (U+2605 BLACK STAR) is not in font Lato-Regular" \
        in result.output


def test_overflowing_text_fails_naming_the_card(mini):
    root = mini("- {id: long, name: Long, text: '" + "many words " * 200 + "'}")
    result = run(root, "build")
    assert result.exit_code == 2
    assert "cards/mini/deck.yaml:10: card long: front (front.svg.j2): text does not fit" in result.output


def test_template_errors_name_card_and_template(mini):
    root = mini("- {id: a, name: Alpha, text: ok}", front=MINI_FRONT.replace("{{ card.name }}", "{{ card.cost }}"))
    result = run(root, "build")
    assert result.exit_code == 2
    assert "templates/mini/front.svg.j2:3: card a: front: card data has no attribute 'cost'" in result.output
    root = mini("- {id: a, name: Alpha, text: ok}", front=MINI_FRONT.replace("{{ card.name }}", "{{ card.name }"))
    result = run(root, "build")
    assert result.exit_code == 2
    assert "templates/mini/front.svg.j2:3: card a: template syntax error" in result.output
    assert "Traceback" not in result.output


def test_guides_draw_trim_and_safe_lines(mini):
    root = mini("- {id: a, name: Alpha, text: ok}")
    assert run(root, "build", "--guides", "--paper", "a4").exit_code == 0
    proof = root / "output" / "mini" / "mini-proof-a4.pdf"
    page = pdfium.PdfDocument(proof)[0].render(scale=2).to_pil().convert("RGB")
    colours = {c for _, c in page.getcolors(maxcolors=1 << 22)}
    assert any(r > 200 and g < 40 and 50 < b < 110 for r, g, b in colours)  # the red trim line
    clean = root / "output" / "mini" / "mini-sheets-a4.pdf"
    assert not clean.exists()  # proofs never replace the print files


def test_cairosvgs_own_text_is_drawn_by_cairosvg_stroked_gradient_and_clipping():
    """Plain <text> is CairoSVG's, untouched (no shortcut): gradient and stroked text and a
    text clip path are drawn as CairoSVG draws them."""
    from generator.draw.bundlepdf import draw_bundle as _draw_chunk
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="69mm" height="94mm" viewBox="0 0 69 94">'
           '<defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/>'
           '</linearGradient></defs><text x="5" y="20" font-family="Lato">Plain <tspan>span</tspan> text</text>'
           '<text x="5" y="40" font-family="Lato" font-size="9" fill="url(#g)">Gradient</text>'
           '<text x="5" y="60" font-family="Lato" font-size="9" fill="#fff" stroke="#000" stroke-width="0.3">'
           'Outlined</text></svg>')
    svg = svg.replace("</svg>", '<clipPath id="c"><text x="5" y="80" font-family="Lato" font-size="12">CLIP</text>'
                      '</clipPath><rect x="0" y="65" width="69" height="20" fill="#f00" clip-path="url(#c)"/></svg>')
    pdf = _draw_chunk([("k", svg, None)])[0]
    page = pdfium.PdfDocument(pdf)[0]
    assert "Gradient" in page.get_textpage().get_text_range()
    image = page.render(scale=2).to_pil().convert("RGB")
    red = [c for _, c in image.getcolors(1 << 22) if c[0] > 200 and c[1] < 60 and c[2] < 60]
    assert red  # the text clip path still cuts the red rectangle into letters


def test_faces_that_cannot_be_drawn_are_named_and_the_rest_keep_their_pages(tmp_path):
    from generator.draw.bundlepdf import draw_bundle as _draw_chunk
    good = ('<svg xmlns="http://www.w3.org/2000/svg" width="20mm" height="20mm" viewBox="0 0 20 20">'
            '<rect width="20" height="20" fill="#{c}"/></svg>')
    art = tmp_path / "art"
    art.mkdir()
    (art / "broken.png").write_bytes(b"\x89PNG not really an image")
    broken_image = good.format(c="f00").replace("</svg>", '<image href="art/broken.png" width="5" height="5"/></svg>')
    loop = good.format(c="f00").replace("</svg>", '<g id="g"><use href="#g"/></g></svg>')
    items = [("a", good.format(c="0f0"), None), ("b", broken_image, None), ("c", loop, None),
             ("d", good.format(c="00f"), None)]
    pdf, keys, problems, pictures = _draw_chunk(items, roots=(str(tmp_path),))
    assert [k for k in keys if k] == ["a", "d"] and not pictures
    assert {k for k, _ in problems} == {"b", "c"}
    found = dict(problems)
    assert found["b"].startswith("image 'art/broken.png' cannot be read as a picture")
    assert found["c"].startswith("cannot draw the face")
    doc = pdfium.PdfDocument(pdf)
    page_of_d = keys.index("d")
    pixel = doc[page_of_d].render(scale=1).to_pil().convert("RGB").getpixel((10, 10))
    assert pixel == (0, 0, 255)  # d's page shows d alone, nothing left over from b or c


def test_pango_text_takes_a_gradient_fill_over_its_box():
    from generator.draw.bundlepdf import draw_bundle
    text = TextSetter(shipped(), {}).svg("Gold title", x=2, y=2, w=56, h=16, size=10, color="url(#g)")
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="60mm" height="20mm" viewBox="0 0 60 20">'
           '<defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/>'
           f'</linearGradient></defs>{text}</svg>')
    pdf = draw_bundle([("k", svg, None)])[0]
    page = pdfium.PdfDocument(pdf)[0]
    assert "Gold title" in page.get_textpage().get_text_range()
    colours = [c for _, c in page.render(scale=4).to_pil().convert("RGB").getcolors(1 << 22)]
    assert any(r > b + 100 for r, g, b in colours) and any(b > r + 100 for r, g, b in colours)  # red to blue


def test_images_resolve_from_a_project_folder_with_awkward_characters(tmp_path, mini):
    import shutil

    from PIL import Image
    front = MINI_FRONT.replace("</svg>", '<image x="10" y="50" width="20" height="20" href="art/red%20dot.png"/></svg>')
    root = mini("- {id: a, name: Alpha, text: ok}", front=front)
    odd = tmp_path / "proj #2 (copy)"
    shutil.move(str(root), str(odd))
    (odd / "templates/mini/art").mkdir()
    Image.new("RGB", (8, 8), (255, 0, 0)).save(odd / "templates/mini/art/red dot.png")
    result = run(odd, "build", "--paper", "a4")
    assert result.exit_code == 0, result.output


def test_pooled_drawing_matches_drawing_in_one_process(monkeypatch):
    """Bundles drawn by worker processes give the same PDFs as the same bundles drawn here.
    The workers are forked only once the threads C libraries started have ended (Pango's
    fontconfig thread, here a thread of `_thread`'s that threading does not know of)."""
    import _thread
    import threading
    import time
    from concurrent.futures import ProcessPoolExecutor

    from generator.draw import bundles, drawpool, faces
    from generator.session import Session
    real_load = drawpool._load_fonts_once

    def load_and_a_thread(*args):
        real_load(*args)
        _thread.start_new_thread(time.sleep, (0.05,))   # as Pango's: ends soon, unseen by threading
    monkeypatch.setattr(drawpool, "_load_fonts_once", load_and_a_thread)
    at_fork: list = []
    ours = drawpool.threads()   # pytest-xdist's own (started by _thread) among them
    svgs = {f"k{i}": ('<svg xmlns="http://www.w3.org/2000/svg" width="20mm" height="20mm" viewBox="0 0 20 20">'
                      f'<text x="2" y="10" font-family="Lato" font-size="4">Card {i}</text></svg>') for i in range(7)}
    monkeypatch.setattr(bundles, "FACES_PER_BUNDLE", 2)
    monkeypatch.setattr(bundles, "MIN_FACES_PER_BUNDLE", 1)
    monkeypatch.setattr(drawpool, "DRAW_HERE_UP_TO", 0)  # a pool even for a few bundles
    pools = []

    class CountedPool(ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            at_fork.append(drawpool.threads() - ours - {t.native_id for t in threading.enumerate()})
            super().__init__(*args, **kwargs)

        def submit(self, *args, **kwargs):
            pools.append(self)
            return super().submit(*args, **kwargs)

    monkeypatch.setattr(drawpool, "ProcessPoolExecutor", CountedPool)
    pooled = faces.draw_faces(svgs, session=Session(jobs=2))
    assert len(pools) == len(pooled.documents) >= 3  # every bundle went to a worker
    assert at_fork == [frozenset()]   # no thread of a C library's left running when the workers were forked
    serial = faces.draw_faces(svgs, session=Session(jobs=1))
    assert len(pools) == len(pooled.documents)  # no pool this time
    assert pooled == serial
    assert sorted(pooled.page_of) == sorted(svgs) and all(page >= 1 for _, page in pooled.page_of.values())


def test_each_olympian_is_drawn_with_an_attribute_of_their_own():
    """Not a letter in a wreath (H three times, A four times): each god's card draws the icon
    its data names (Zeus the thunderbolt, Athena the owl...), and no two gods share one."""
    from generator.draw.render import load_icons, render_svgs

    game = load_game(REPO, "olympians", Session())
    icons, problems = load_icons(game)
    assert problems == []
    found = render_svgs(game, Session())
    gods = [rc for rc in found.cards if rc.card.fields.get("suit") == "Olympians"]
    emblems = [rc.card.fields["emblem"] for rc in gods]
    assert len(gods) == 14 and len(set(emblems)) == 14
    for rc in gods:
        first_shape = icons[rc.card.fields["emblem"]].body.split("/>")[0].split('d="')[-1][:40]
        svg = found.svgs[rc.front]
        assert first_shape in svg, rc.card.id
        others = [e for e in emblems if e != rc.card.fields["emblem"]]
        assert not any(icons[e].body.split("/>")[0].split('d="')[-1][:40] in svg for e in others), rc.card.id


@pytest.mark.slow
def test_font_family_in_another_attributes_value_is_not_a_font(mini):
    """A tag whose attributes mention font-family without setting it asks for no font (found by mypy:
    the family was read from a match that is not there)."""
    front = MINI_FRONT.replace('<rect width=', '<rect class="font-family" width=')
    root = mini("- {id: a, name: Alpha, text: ok}", front=front)
    result = run(root, "build")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
