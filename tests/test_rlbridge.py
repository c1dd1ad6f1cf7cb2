"""The bridge to reportlab's shaping (generator/rulebook/rlbridge.py): what it relies on is
still there, and shaped rulebook text keeps its kerning and stays searchable text (no
ligature reportlab would write as a private-use character)."""
from __future__ import annotations

import inspect
import io

import pypdfium2 as pdfium
import reportlab
import reportlab.platypus.paragraph as platypus_paragraph
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics, ttfonts
from reportlab.platypus import Paragraph, SimpleDocTemplate

from generator.rulebook import rlbridge
from generator.rulebook.styles import fonts

WORDS = "Round chips, check the fjord, office flow AVAWAY"


def _caption(words: str, shaped: bool = True) -> bytes:
    """A PDF of the words as an italic caption (shaping=1 or not)."""
    style = ParagraphStyle("caption", fontName=fonts()["italic"], fontSize=12, shaping=int(shaped))
    buf = io.BytesIO()
    SimpleDocTemplate(buf, invariant=1).build([Paragraph(words, style)])
    return buf.getvalue()


def _text_and_width(shaped: bool) -> tuple[str, float]:
    """The words as an italic caption: their text read back, and how wide the line is drawn."""
    page = pdfium.PdfDocument(_caption(WORDS, shaped))[0]
    text = page.get_textpage()
    n = text.count_chars()
    left, right = text.get_charbox(0)[0], text.get_charbox(n - 1)[2]
    return text.get_text_range(), right - left


def test_reportlab_still_shapes_through_the_name_the_bridge_replaces():
    assert reportlab.Version.startswith("5.1"), "rlbridge.py was checked with reportlab 5.1; check it again"
    assert platypus_paragraph.shapeFragWord is ttfonts.shapeFragWord   # imported by name, not yet replaced
    features = inspect.signature(ttfonts.shapeFragWord).parameters["features"].default
    assert features.get("dlig"), "reportlab no longer asks for discretionary ligatures: the bridge may go"
    assert "shapeFragWord(_)" in inspect.getsource(platypus_paragraph)   # the call site that uses the name



def test_the_private_attributes_the_bridge_writes_are_still_there():
    """rlbridge writes two private attributes of a shaped TTFont (name-mangled `__hbUnis`,
    `__hbPrivate`): when reportlab renames them, the bridge would silently forget nothing."""
    _caption("fjord")   # an f+j ligature: the font numbers a private-use character
    font = pdfmetrics.getFont(fonts()["italic"])
    assert isinstance(font, ttfonts.TTFont)
    assert isinstance(getattr(font, "_TTFont__hbUnis", None), dict) and font._TTFont__hbUnis
    assert isinstance(getattr(font, "_TTFont__hbPrivate", None), int)
    with rlbridge.shaping():
        assert font._TTFont__hbUnis == {} and font._TTFont__hbPrivate == 0xE000
    for name in ("__hbUnis", "__hbPrivate"):   # and the code that gives them out still names them
        assert f"self.{name}" in inspect.getsource(ttfonts.TTFont), name

def test_shaped_text_keeps_its_words_and_its_kerning():
    plain_text, plain_width = _text_and_width(False)
    assert "chips" in plain_text and "fjord" in plain_text
    raw_text, _ = _text_and_width(True)
    assert "chips" not in raw_text and any(0xE000 <= ord(c) <= 0xF8FF for c in raw_text)   # what the bridge is for
    with rlbridge.shaping():
        text, width = _text_and_width(True)
    assert platypus_paragraph.shapeFragWord is ttfonts.shapeFragWord   # put back
    assert "chips" in text and "check" in text and "fjord" in text and "office flow" in text
    assert not any(0xE000 <= ord(c) <= 0xF8FF for c in text)
    assert width < plain_width - 1   # kerned (AV, VA, WA...): narrower than the same words unshaped


def test_each_document_numbers_its_private_characters_afresh():
    """reportlab numbers glyphs with no character for the life of the process: without the
    bridge, a document printed differently after another one (outside `shaping()` these
    captions get reportlab's own ligatures, each a private-use character)."""
    with rlbridge.shaping():
        pass
    fjord_first = _caption("fjord")   # its f+j is the first private character: U+E000
    _caption("check")                 # c+h and c+k: U+E001 and U+E002
    with rlbridge.shaping():
        pass
    assert _caption("fjord") == fjord_first
    with rlbridge.shaping():
        pass
    _caption("check")                 # now c+h is U+E000 and c+k U+E001: f+j becomes U+E002
    assert _caption("fjord") != fjord_first
    with rlbridge.shaping():
        pass


def test_real_rulebooks_read_back_as_their_words(all_builds):
    texts = {}
    for game, folder in all_builds.items():
        doc = pdfium.PdfDocument(folder / f"{game}-rulebook-a4.pdf")
        texts[game] = " ".join(doc[n].get_textpage().get_text_range() for n in range(len(doc)))
        assert not any(0xE000 <= ord(c) <= 0xF8FF for c in texts[game]), game
    assert "Round chips" in texts["king-of-the-pitch"] and "Crown chips" in texts["king-of-the-pitch"]
    assert "Quest for Glory" in texts["olympians"] and "heroes" in texts["olympians"]   # EB Garamond's calt


def test_a_paragraphs_fragments_and_lines_as_breaking_reads_them():
    """What rulebook/breaking.py reads of reportlab's paragraphs, through the bridge: an
    upgrade that renames a fragment's fields, `clone` or `blPara.lines` fails here."""
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph

    para = Paragraph("one <b>two</b><br/>three four five six seven", ParagraphStyle("p", fontName="Helvetica",
                                                                                    fontSize=10))
    texts = [rlbridge.fragment_text(f) for f in para.frags]
    assert "".join(texts).startswith("one two") and any(rlbridge.is_line_break(f) for f in para.frags)
    assert rlbridge.fragment_font(para.frags[0]) == ("Helvetica", 10)
    copy = rlbridge.fragment_with(para.frags[0], "new")
    assert rlbridge.fragment_text(copy) == "new" and rlbridge.fragment_font(copy) == ("Helvetica", 10)
    assert rlbridge.is_line_break(rlbridge.fragment_with(para.frags[0], "", line_break=True))
    para.wrap(60, 1000)
    assert rlbridge.wrapped_lines(para) >= 3
