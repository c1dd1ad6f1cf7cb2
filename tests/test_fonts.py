"""Fonts: a game's own fonts in templates/<game>/fonts/ are found, measured, checked and
embedded; a missing font says where to put one; the DejaVu styles ship in full; rules text
uses lining figures."""
from __future__ import annotations

import io
import sys
from pathlib import Path

import pikepdf
import pytest
from fontTools.ttLib import TTFont

from generator.draw import fonts, glyphink
from tests.conftest import run

FRONT = """<svg xmlns="http://www.w3.org/2000/svg" width="{{ deck.width }}mm" height="{{ deck.height }}mm" viewBox="0 0 {{ deck.width }} {{ deck.height }}">
  <rect width="{{ deck.width }}" height="{{ deck.height }}" fill="#fafafa"/>
  <text x="6" y="12" font-family="FAMILY" font-size="4">{{ card.name }}</text>
  {{ textbox(card.text, 6, 20, deck.trim_w - 6, 30, family="FAMILY", size=3.5, min_size=2.5) }}
</svg>
"""


def renamed_font(source, target, family: str) -> None:
    """A copy of a shipped font under a family name nobody else has (a game's own font)."""
    font = TTFont(source)
    ps = family.replace(" ", "") + "-Regular"
    for record in font["name"].names:
        if record.nameID in (1, 16):
            record.string = family
        elif record.nameID in (4,):
            record.string = f"{family} Regular"
        elif record.nameID in (6,):
            record.string = ps
    font.save(target)


def embedded_fonts(pdf_bytes) -> set[str]:
    names = set()
    with pikepdf.open(io.BytesIO(pdf_bytes)) as pdf:
        for obj in pdf.objects:
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/FontDescriptor":
                if "/FontFile2" in obj or "/FontFile3" in obj or "/FontFile" in obj:
                    names.add(str(obj["/FontName"]).split("+")[-1])
    return names


def game_with_a_font(mini, family: str = "Pnp Game Face One"):
    """(project, its fonts folder): a one-card game whose front is set in its own font."""
    root = mini("- {id: a, name: Alpha, text: Some words in the game's own font.}",
                front=FRONT.replace("FAMILY", family))
    folder = root / "templates" / "mini" / "fonts"
    folder.mkdir()
    renamed_font(fonts.FONT_DIR / "Lato-Regular.ttf", folder / "GameFace.ttf", family)
    (folder / "LICENSE.txt").write_text("SIL Open Font License 1.1\n")
    return root, folder


@pytest.mark.slow
def test_game_font_is_used_measured_and_embedded(mini, tmp_path):
    family = "Pnp Game Face One"
    root, folder = game_with_a_font(mini, family)
    game_set = fonts.for_game(root / "templates" / "mini")
    face = game_set.face(family)
    assert face.path == folder / "GameFace.ttf"
    assert game_set.face("Lato").family == "Lato"  # the shipped fonts are still there
    out = tmp_path / "out"
    result = run(root, "build", "--paper", "a4", "--output", str(out))
    assert result.exit_code == 0, result.output
    pdf = (out / "mini" / "mini-sheets-a4.pdf").read_bytes()
    assert "PnpGameFaceOne-Regular" in embedded_fonts(pdf)
    assert run(root, "validate").exit_code == 0


@pytest.mark.slow   # a fresh pnp process, jailed
def test_a_game_font_is_drawn_in_the_jail_of_an_untrusted_build(mini, tmp_path):
    """fontconfig is opened by its soname: looking it up by name runs ldconfig and gcc, which
    the jail refuses, and a game with its own font could not be built --untrusted."""
    from tests.test_jail import pnp

    root, _ = game_with_a_font(mini)
    done = pnp(root, "build", "--paper", "a4", "--untrusted")
    assert done.returncode == 0, done.stdout + done.stderr
    pdf = (root / "output" / "mini" / "mini-sheets-a4.pdf").read_bytes()
    assert "PnpGameFaceOne-Regular" in embedded_fonts(pdf)


def test_missing_font_says_where_to_put_one(mini):
    root = mini("- {id: a, name: Alpha, text: hello}", front=FRONT.replace("FAMILY", "Pnp Absent Face"))
    result = run(root, "validate")
    assert result.exit_code == 2
    assert "font 'Pnp Absent Face' is not shipped with pnp" in result.output
    assert "templates/<game>/fonts/" in result.output or "templates/mini/fonts/" in result.output


@pytest.mark.slow
def test_a_character_the_game_font_lacks_comes_from_the_fallback_fonts(mini, tmp_path):
    """A text box's font lacking a character draws it from the next font that has it (here
    DejaVu Sans's snowman); plain <text> has no fallback, so there it is an error."""
    family = "Pnp Game Face Two"
    root = mini("- {id: a, name: Alpha, text: \"Fish \u2603\"}", front=FRONT.replace("FAMILY", family))
    folder = root / "templates" / "mini" / "fonts"
    folder.mkdir()
    renamed_font(fonts.FONT_DIR / "Lato-Regular.ttf", folder / "GameFace.otf", family)
    out = tmp_path / "out"
    result = run(root, "build", "--paper", "a4", "--output", str(out))
    assert result.exit_code == 0, result.output
    pdf = (out / "mini" / "mini-sheets-a4.pdf").read_bytes()
    assert {"PnpGameFaceTwo-Regular", "DejaVuSans"} <= embedded_fonts(pdf)
    import pypdfium2 as pdfium
    doc = pdfium.PdfDocument(pdf)
    assert any("Fish \u2603" in doc[p].get_textpage().get_text_range() for p in range(len(doc)))
    plain = mini("- {id: a, name: \"Alpha \u2603\", text: Fish}", front=FRONT.replace("FAMILY", family))
    assert (plain / "templates" / "mini" / "fonts" / "GameFace.otf").is_file()   # the same project, its font kept
    result = run(plain, "validate")
    assert result.exit_code == 2 and "U+2603" in result.output and "PnpGameFaceTwo-Regular" in result.output


def test_a_character_no_font_has_is_an_error_naming_it(mini):
    root = mini("- {id: a, name: Alpha, text: \"Fish \ue000\"}", front=FRONT.replace("FAMILY", "Lato"))
    result = run(root, "validate")
    assert result.exit_code == 2 and "U+E000" in result.output and "is in no font" in result.output
    assert "cards: a]" in result.output


@pytest.mark.parametrize("family, bold, italic", [
    ("DejaVu Sans", False, False), ("DejaVu Sans", True, False), ("DejaVu Sans", False, True),
    ("DejaVu Sans", True, True), ("DejaVu Serif", False, False), ("DejaVu Serif", True, False),
    ("DejaVu Serif", False, True), ("DejaVu Serif", True, True)])
def test_dejavu_styles_ship_in_full(family, bold, italic):
    face = fonts.shipped().face(family, bold, italic)
    assert face.family.startswith(family) and face.bold == bold and face.italic == italic
    assert (fonts.FONT_DIR / "licenses" / "dejavu-core.txt").is_file()


def test_rules_text_uses_lining_figures():
    shipped = fonts.shipped()
    # the rulebook's text and the shared text_box macro set rules in Lato: lining figures
    for family in ("Lato", "DejaVu Sans", "DejaVu Serif", "Open Sans Condensed"):
        assert glyphink.figures(shipped.face(family, bold=family == "Open Sans Condensed")) == "lining", family
    # EB Garamond's default figures are old-style, which CairoSVG cannot switch: headings only
    assert glyphink.figures(shipped.face("EB Garamond")) == "old-style"
    from generator.rulebook.styles import __file__ as styles_file
    assert "Lato" in open(styles_file).read()


def read_shipped_faces() -> dict:
    """What fontTools reads of every shipped font today, as fonts.FACES_FILE keeps it."""
    from fontTools.ttLib import TTFont

    return {path.name: fonts.face_facts(fonts._read_face(TTFont(path, lazy=True), path))
            for path in fonts.font_files(fonts.FONT_DIR)}


@pytest.mark.slow   # reads every shipped font file
def test_the_shipped_faces_table_is_what_the_fonts_say():
    """faces.json (read at start-up instead of the fonts' name tables) is what fontTools reads
    from the shipped fonts: a font added, replaced or renamed fails here until `python -m
    tests.test_fonts --faces` writes it again; a face made from it equals one read from the font."""
    import json

    known = json.loads(fonts.FACES_FILE.read_text())
    assert known == read_shipped_faces(), "run: python -m tests.test_fonts --faces"
    for path in fonts.font_files(fonts.FONT_DIR):
        read, kept = fonts._load_face(path), fonts._load_face(path, known)
        assert kept == read and kept.aliases == read.aliases


def test_a_process_that_loads_the_shipped_fonts_reads_no_name_table():
    import subprocess
    import sys

    script = ("import sys\nfrom generator.draw import fonts\nf = fonts.shipped()\n"
              "assert f.face('Lato', True).postscript_name == 'Lato-Bold'\n"
              "print(sorted(m for m in sys.modules if m.startswith('fontTools')))\n")
    found = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True,
                           cwd=Path(fonts.__file__).parents[2]).stdout.strip()
    assert found == "[]", found


def test_the_shipped_fonts_sha256_in_the_faces_table_is_that_of_their_bytes():
    """The letters' memo (glyphink.Letters) takes a shipped font's sha256 from faces.json
    (no font read at start-up): it is that of the file's bytes."""
    import hashlib
    import json

    known = json.loads(fonts.FACES_FILE.read_text())
    for path in fonts.font_files(fonts.FONT_DIR):
        assert known[path.name]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest(), path.name


def test_the_draw_keys_fonts_digest_is_of_the_fonts_names_and_bytes():
    """A face's draw key orders the faces of its bundle: a digest of the shipped fonts made
    any other way renumbers every bundle's forms (every sheet's bytes change)."""
    import hashlib

    from generator.draw import drawkey

    for stand_ins in (False, True):
        h = hashlib.sha256()
        for path in fonts.font_files(fonts.FONT_DIR):
            if path.name.lower().startswith("liberation") == stand_ins:
                h.update(path.name.encode() + b"\0" + path.read_bytes())
        assert drawkey._fonts_digest.__wrapped__(stand_ins) == h.hexdigest()


def test_a_font_newer_than_the_faces_table_has_its_bytes_hashed(tmp_path, monkeypatch):
    """A shipped font changed in place at the same size: faces.json's sha256 of it is not
    taken (the letters' memo hashes the file), once the file is newer."""
    import json
    import os

    table = tmp_path / "faces.json"
    table.write_text(fonts.FACES_FILE.read_text())
    known = json.loads(table.read_text())
    path = fonts.shipped().face("Lato").path
    monkeypatch.setattr(fonts, "FACES_FILE", table)
    later = path.stat().st_mtime_ns + 10**9
    os.utime(table, ns=(later, later))
    assert fonts._load_face(path, known).sha256 == known[path.name]["sha256"]
    earlier = path.stat().st_mtime_ns - 10**9
    os.utime(table, ns=(earlier, earlier))
    assert fonts._load_face(path, known).sha256 == ""


if __name__ == "__main__" and sys.argv[1:2] == ["--faces"]:
    import json

    fonts.FACES_FILE.write_text(json.dumps(read_shipped_faces(), indent=1, sort_keys=True) + "\n")
    print("wrote", fonts.FACES_FILE)
