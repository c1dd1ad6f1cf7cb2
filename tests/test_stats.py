"""`pnp stats`: numbers equal to hand tallies, the formats, declared charts, the stats sheet
(vector charts, written through the export stage, looked at) and the preview's stats page."""
from __future__ import annotations

import csv
import ctypes
import io
import json
import re
import time

import pypdfium2 as pdfium
import pytest
import yaml

from generator.data.load import load_game
from generator.layout.statsheet import stats_pdf
from generator.rules.stats import game_stats
from generator.session import Session
from tests.conftest import REPO, edit, named, run


def _yaml(game, file):
    return yaml.safe_load((REPO / "cards" / game / file).read_text(encoding="utf-8"))


def test_olympians_stats_equal_hand_tallies():
    cards = _yaml("olympians", "playing-cards.yaml")["cards"]
    stats = game_stats(load_game(REPO, "olympians", Session()))
    deck = stats["decks"][0]
    favor = deck["fields"]["favor"]
    assert favor["sum"] == sum(c.get("favor", 0) * c.get("count", 1) for c in cards) == 120
    assert (favor["min"], favor["max"], favor["count"]) == (0, 11, 32) and favor["mean"] == 3.75
    assert favor["histogram"]["0"] == sum(1 for c in cards if not c.get("favor")) == 12
    assert deck["fields"]["suit"]["tally"] == {"Olympians": 14, "Arrows": 6, "Helmets": 6, "Shields": 6}
    # declared in rules.yaml: these fields, Favor by suit, the curve of Favor
    assert list(deck["fields"]) == ["suit", "rank", "favor", "hoplite"]
    (cross,) = deck["cross"]
    olympians = cross["counts"][cross["rows"].index("Olympians")]
    assert dict(zip(cross["columns"], olympians)) == {"0": 3, "2": 4, "3": 4, "4": 1, "10": 1, "11": 1}
    assert cross["columns"][:3] == ["0", "2", "3"]   # numbers by value
    reference = stats["decks"][1]
    assert reference["icons"] == {"favor": (REPO / "cards/olympians/reference.yaml").read_text().count(":favor:")}


def test_meteor_list_fields_and_curve_equal_hand_tallies():
    stats = game_stats(load_game(REPO, "meteor", Session()))
    decks = {d["id"]: d for d in stats["decks"]}
    assert decks["energy"]["fields"]["energy"]["tally"] == {"chemical": 15, "fuel": 12, "atomic": 7, "electrical": 5}
    rockets = _yaml("meteor", "rockets.yaml")["cards"]
    items: dict = {}
    lengths: dict = {}
    for card in rockets:
        for energy in card["cost"]:
            items[energy] = items.get(energy, 0) + card.get("count", 1)
        lengths[str(len(card["cost"]))] = lengths.get(str(len(card["cost"])), 0) + card.get("count", 1)
    assert decks["rocket"]["fields"]["cost"]["tally"] == items
    assert {k: v for k, v in decks["rocket"]["curve"]["histogram"].items() if v} == lengths
    assert decks["rocket"]["curve"]["field"] == "cost"


MINI = """
- {id: a, name: Alpha, text: "Pay :coin: twice :coin:", cost: 1, count: 2}
- {id: b, name: Beta, text: "Gain :star:", cost: 3}
"""


def test_formats_and_declared_charts(mini):
    root = mini(MINI)
    out = run(root, "stats", "mini", "--format", "json")
    assert out.exit_code == 0, out.output
    (game,) = json.loads(out.output)
    deck = game["decks"][0]
    assert deck["fields"]["cost"] == {"kind": "number", "count": 3, "sum": 5, "mean": 1.6667, "min": 1, "max": 3,
                                      "histogram": {"1": 2, "2": 0, "3": 1}}
    assert deck["icons"] == {"coin": 4, "star": 1} and deck["curve"]["field"] == "cost"
    rows = list(csv.DictReader(io.StringIO(run(root, "stats", "--format", "csv").output)))
    assert {"game": "mini", "deck": "things", "field": "cost", "measure": "sum", "key": "", "value": "5"} in rows
    assert "cost: n=3 sum=5 mean=1.6667 min=1 max=3; 1:2 2:0 3:1" in run(root, "stats").output
    # a declaration naming a field no card has is an input error naming the file (exit 2)
    (root / "cards/mini/rules.yaml").write_text("stats:\n  things: {fields: [text, costs]}\nrules: []\n")
    named(root / "cards" / "mini", "rules")
    bad = run(root, "stats", "mini")
    assert bad.exit_code == 2 and "cards/mini/rules.yaml" in bad.output and "no field 'costs'" in bad.output
    (root / "cards/mini/rules.yaml").write_text("stats:\n  things: {fields: [cost]}\nrules: []\n")
    assert list(json.loads(run(root, "stats", "--format", "json").output)[0]["decks"][0]["fields"]) == ["cost"]


def test_the_stats_sheet_is_vector_charts_written_through_the_export_stage(mini):
    root = mini(MINI)
    result = run(root, "stats", "mini", "--pdf", "--paper", "a5")
    assert result.exit_code == 0, result.output
    path = root / "output/mini/mini-stats-a5.pdf"
    manifest = json.loads((root / "output/mini/manifest.json").read_text())
    assert [(f["path"], f["kind"], f["paper"]) for f in manifest["files"]] == [("mini-stats-a5.pdf", "stats", "a5")]
    pdf = pdfium.PdfDocument(path.read_bytes())
    page = pdf[0]
    text = page.get_textpage().get_text_range()
    assert "Mini: deck statistics" in text and "curve of cost" in text and "icons in text" in text
    kinds = [obj.type for obj in page.get_objects(max_depth=5)]
    assert pdfium.raw.FPDF_PAGEOBJ_IMAGE not in kinds and kinds.count(pdfium.raw.FPDF_PAGEOBJ_PATH) > 10
    # the curve's bars (its own colour) are vector rectangles: 2 copies of cost 1, 1 of cost 3
    tall, short = sorted(_heights(page, (0xb0, 0x64, 0x2a)), reverse=True)
    assert tall / short == pytest.approx(2, rel=1e-3) and short > 20
    again, _ = stats_pdf(game_stats(load_game(root, "mini", Session())), "a5")
    assert again == path.read_bytes()   # the same statistics, the same bytes


def _heights(page, rgb) -> list[float]:
    """The heights (pt) of the filled paths of colour `rgb` on a PDF page."""
    heights = []
    for obj in page.get_objects(max_depth=5):
        if obj.type == pdfium.raw.FPDF_PAGEOBJ_PATH:
            r, g, b, a = (ctypes.c_uint() for _ in range(4))
            pdfium.raw.FPDFPageObj_GetFillColor(obj.raw, r, g, b, a)
            if (r.value, g.value, b.value) == rgb:
                _, bottom, _, top = obj.get_bounds()
                heights.append(top - bottom)
    return heights


@pytest.mark.slow   # the preview in chromium (make test installs it)
def test_the_preview_stats_page_follows_a_save(mini):
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.test_watch import _live

    root = mini(MINI.replace(":coin:", "coin").replace(":star:", "star"))   # the mini game draws no icons
    with _live(root) as (driver, address, report_next):
        assert report_next().ok
        driver.get(address + "stats")
        wait = WebDriverWait(driver, 15)
        title = ('return [...document.querySelectorAll("[data-game=mini] .chart")].map(c => c.dataset.chart || "")'
                 '.find(t => t.startsWith("cost:")) || ""')
        wait.until(lambda d: "sum 5," in d.execute_script(title))
        marker = driver.execute_script("window.notReloaded = 1; return 1")
        time.sleep(0.3)
        edit(root / "cards/mini/deck.yaml", "cost: 3}", "cost: 7}")
        assert report_next().ok
        wait.until(lambda d: "sum 9," in d.execute_script(title))
        assert "1..7" in driver.execute_script(title)
        assert driver.execute_script("return window.notReloaded") == marker
        curve = driver.execute_script(
            'return [...document.querySelectorAll(".curve .bar")].map(b => b.dataset.key + "=" + b.querySelector(".n").textContent)')
        assert curve[0] == "1=2" and curve[-1] == "7=1"
        assert re.search("stats", driver.execute_script("return document.title"))


def _docs_blocks() -> dict[str, str]:
    """docs/stats.md's worked example: {file name: the YAML block after its `cards/quest/<file>`}."""
    text = (REPO / "docs/stats.md").read_text(encoding="utf-8")
    example = text.split("## A worked example to copy")[1]
    return {m.group(1): m.group(2) for m in re.finditer(r"`cards/quest/([\w.]+)`[^`]*?```yaml\n(.*?)```", example, re.S)}


def test_the_worked_example_in_the_docs_passes_and_a_lowered_count_fails_at_the_rule(mini):
    blocks = _docs_blocks()
    assert set(blocks) == {"game.yaml", "heroes.yaml", "rules.yaml"}
    root = mini("- {id: a, name: A, text: t}")
    quest = root / "cards/quest"
    quest.mkdir()
    for name, block in blocks.items():
        (quest / name).write_text(block, encoding="utf-8")
    (root / "templates/mini").rename(root / "templates/quest")
    ok = run(root, "validate", "quest", "--no-render")
    assert ok.exit_code == 0, ok.output
    shown = (REPO / "docs/stats.md").read_text(encoding="utf-8")
    assert run(root, "stats", "quest").output.strip() in shown
    edit(quest / "heroes.yaml", "count: 8,", "count: 2,")
    failed = run(root, "validate", "quest", "--no-render", "--format", "github")
    assert failed.exit_code == 1
    first = failed.output.splitlines()[0]
    assert first in shown and first.startswith("::error file=cards/quest/rules.yaml,line=23,title=quest/no-rookie-is-rare::")
