"""pnp watch and the live preview: rebuild on save, keep going after errors, reload the browser."""
from __future__ import annotations

import json
import queue
import threading
import time
import urllib.request
from contextlib import contextmanager

import pytest

from generator.loop.preview import Preview, serve
from generator.loop.watch import affected_games, watch
from generator.options import BuildOptions
from generator.session import Session
from tests.conftest import MINI_FRONT, edit


def test_changed_files_map_to_their_games(tmp_path):
    games = ["meteor", "olympians"]
    hits = affected_games(tmp_path, [tmp_path / "cards/meteor/bosses.yaml", tmp_path / "templates/_shared/m.j2",
                                     tmp_path / "output/meteor/x.pdf", tmp_path / "cards/meteor/.swp"], games)
    assert hits == {"meteor": ["cards/meteor/bosses.yaml", "templates/_shared/m.j2"],
                    "olympians": ["templates/_shared/m.j2"]}


def _watching(root, games=("mini",)):
    """Start watch() in a thread; returns (outcomes queue, stop event, thread)."""
    outcomes, stop = queue.Queue(), threading.Event()
    thread = threading.Thread(target=watch, args=(root, list(games), outcomes.put, BuildOptions(papers=("a4",)),
                                                  Session(remember=True), stop), daemon=True)
    thread.start()
    return outcomes, stop, thread


@pytest.mark.slow
def test_watch_rebuilds_on_save_and_survives_an_error(mini):
    root = mini('- {id: a, name: Alpha, text: "First words."}')
    outcomes, stop, thread = _watching(root)
    try:
        first = outcomes.get(timeout=60)
        assert first.ok and first.changed == ()
        sheets = root / "output" / "mini" / "mini-sheets-a4.pdf"
        good = sheets.read_bytes()
        time.sleep(0.3)  # the watcher is listening
        edit(root / "cards" / "mini" / "deck.yaml", "First words.", "Second words.")
        second = outcomes.get(timeout=30)
        assert second.ok and second.changed == ("cards/mini/deck.yaml",)
        edited = sheets.read_bytes()
        assert edited != good
        edit(root / "cards" / "mini" / "deck.yaml", "name: Alpha,", "name: [Alpha,")
        broken = outcomes.get(timeout=30)
        assert not broken.ok and broken.problems[0].file == "cards/mini/deck.yaml" and broken.problems[0].line
        assert sheets.read_bytes() == edited  # the last good output is kept
        edit(root / "cards" / "mini" / "deck.yaml", "name: [Alpha,", "name: Alpha,")
        assert outcomes.get(timeout=30).ok  # and the watch went on
    finally:
        stop.set()
        thread.join(10)
    assert not thread.is_alive()


@pytest.mark.slow
def test_preview_serves_state_and_face_images(mini):
    from generator.loop.watch import build_one

    root = mini('- {id: a, name: Alpha, text: "Words."}')
    preview = Preview()
    preview.update(build_one(root, "mini", BuildOptions(papers=("a4",)), Session()))
    server = serve(preview, 0)
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        assert server.server_address[0] == "127.0.0.1"
        state = json.load(urllib.request.urlopen(base + "/state.json"))
        (edition,) = state["games"][0]["editions"]   # a game of one language: one edition
        assert edition["lang"] == "en" and edition["direction"] == "ltr"
        component = edition["decks"][0]["components"][0]
        assert component["id"] == "a" and component["back"] and component["fronts"]
        png = urllib.request.urlopen(base + component["fronts"][0]).read()
        assert png.startswith(b"\x89PNG")
        page = urllib.request.urlopen(base + "/").read().decode()
        assert "search" in page and "/state.json" in page
    finally:
        server.shutdown()


def _browser():
    """Debian's chromium through its chromedriver, headless; the Makefile installs both."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


FRONT_A = 'document.querySelector(".component[data-id=a] img.front")'


@contextmanager
def _live(root):
    """The watch on `root`, the preview it feeds and a browser: (driver, address, report_next)."""
    preview = Preview()
    server = serve(preview, 0)
    outcomes, stop, thread = _watching(root)

    def report_next():
        outcome = outcomes.get(timeout=60)
        preview.update(outcome)
        return outcome

    driver = _browser()
    try:
        yield driver, f"http://127.0.0.1:{server.server_address[1]}/", report_next
    finally:
        driver.quit()
        stop.set()
        thread.join(10)
        server.shutdown()


@pytest.mark.slow   # the preview in chromium (make test installs it)
def test_browser_shows_an_edit_without_a_reload(mini):
    """Edit a card's YAML; the open page shows the new face and name, then the error, by itself."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    root = mini('- {id: a, name: Alpha, text: "First words."}\n- {id: b, name: Beta, text: "Other."}')
    with _live(root) as (driver, address, report_next):
        assert report_next().ok
        driver.get(address)
        wait = WebDriverWait(driver, 15)
        # the page redraws itself: every look at it is one script, never an element kept across redraws
        wait.until(lambda d: d.execute_script(f"return !!{FRONT_A}"))
        marker = driver.execute_script("window.notReloaded = 1; return 1")
        old_src = driver.execute_script(f"return {FRONT_A}.src")
        wait.until(lambda d: d.execute_script(
            'const i = document.querySelector(".component[data-id=a] img.front"); return i.complete && i.naturalWidth > 0'))
        time.sleep(0.3)
        edit(root / "cards" / "mini" / "deck.yaml", "name: Alpha,", "name: Aardvark,")
        assert report_next().ok
        wait.until(lambda d: d.execute_script(
            'const n = document.querySelector(".component[data-id=a] .name"); return !!n && n.textContent.includes("Aardvark")'))
        new_src = driver.execute_script(f"return {FRONT_A}.src")
        assert new_src != old_src  # the face itself was redrawn with the new name
        wait.until(lambda d: d.execute_script(
            'const i = document.querySelector(".component[data-id=a] img.front"); return i.complete && i.naturalWidth > 0'))
        assert driver.execute_script("return window.notReloaded") == marker  # live, not reloaded
        _zooms(driver, wait)
        # the search box filters
        driver.find_element(By.ID, "search").send_keys("beta")
        shown = 'const c = document.querySelector(".component[data-id=%s]"); return !!c && c.offsetParent !== null'
        wait.until(lambda d: not d.execute_script(shown % "a"))
        assert driver.execute_script(shown % "b")
        # a broken card shows on the page, naming file, line and card
        edit(root / "cards" / "mini" / "deck.yaml", 'text: "Other."', "text: 12")
        assert not report_next().ok
        errors_text = 'return document.getElementById("errors").textContent'
        wait.until(lambda d: "deck.yaml" in d.execute_script(errors_text))
        errors = driver.execute_script(errors_text)
        assert "cards/mini/deck.yaml:" in errors and "card b" in errors


def _zooms(driver, wait):
    """The zoom (issue 38): the slider and the + and - keys size every face, and the size
    holds through a redraw; a click opens a face large, drawn at twice the resolution, and
    Escape closes it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    height = f"return {FRONT_A}.getBoundingClientRect().height"
    assert abs(driver.execute_script(height) - 180) < 1
    driver.execute_script('const z = document.getElementById("zoom"); z.value = 360; '
                          'z.dispatchEvent(new Event("input"))')
    wait.until(lambda d: abs(d.execute_script(height) - 360) < 1)
    assert driver.execute_script('return document.querySelector(".component[data-id=b] img.front")'
                                 '.getBoundingClientRect().height') > 359   # every face, not one
    driver.find_element(By.TAG_NAME, "body").send_keys("-")
    wait.until(lambda d: abs(d.execute_script(height) - 320) < 1)
    driver.execute_script("draw()")   # a redraw (a rebuild) keeps the zoom
    assert abs(driver.execute_script(height) - 320) < 1
    driver.execute_script(f"{FRONT_A}.click()")
    big = 'const b = document.querySelector("#big img"); return [b.offsetParent !== null, b.complete, b.naturalWidth]'
    wait.until(lambda d: d.execute_script(big)[0] and d.execute_script(big)[1] and d.execute_script(big)[2] > 0)
    small = driver.execute_script(f"return {FRONT_A}.naturalWidth")
    assert abs(driver.execute_script(big)[2] - 2 * small) <= 1   # the face drawn at 300 dpi, not stretched
    assert driver.execute_script('return document.querySelector("#big img").getBoundingClientRect().height') > 320
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    wait.until(lambda d: not d.execute_script(big)[0])
    driver.execute_script('const z = document.getElementById("zoom"); z.value = 180; '
                          'z.dispatchEvent(new Event("input"))')


@pytest.mark.slow   # the preview in chromium (make test installs it)
def test_browser_switches_between_editions_and_a_translation_edit_shows_alone(mini):
    """A game of two languages: the page offers both; Arabic is shown right to left; editing the
    Arabic translation rebuilds that edition alone, and the page shows it without a reload."""
    from selenium.webdriver.support.ui import Select, WebDriverWait

    front = MINI_FRONT.replace('<text x="6" y="12" font-family="Lato" font-size="4">{{ card.name }}</text>',
                               '{{ textbox(card.name, 6, 8, 40, 6, size=4) }}')   # Pango sets Arabic
    root = mini('- {id: a, name: Alpha, text: "First words."}', front=front)
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text() + "languages: [en, ar]\n")
    (root / "cards/mini/i18n").mkdir()
    arabic = root / "cards/mini/i18n/ar.yaml"
    arabic.write_text("game: {title: صغيرة}\ndecks: {things: {name: أشياء}}\n"
                      "cards: {a: {name: ألفا, text: كلمات أولى}}\n", encoding="utf-8")
    with _live(root) as (driver, address, report_next):
        first = report_next()   # early: the first paper is the first edition's, drawn before the others
        assert first.ok and first.early and [r.game.language for r in first.result.editions] == ["en"]
        done = report_next()
        assert done.ok and not done.early and [r.game.language for r in done.result.editions] == ["en", "ar"]
        driver.get(address)
        wait = WebDriverWait(driver, 15)
        name = 'const n = document.querySelector(".component[data-id=a] .name"); return n ? n.textContent : ""'
        wait.until(lambda d: "Alpha" in d.execute_script(name))
        Select(driver.find_element("id", "lang")).select_by_value("ar")
        wait.until(lambda d: "ألفا" in d.execute_script(name))
        assert driver.execute_script('return document.querySelector("section.edition").dir') == "rtl"
        old_src = driver.execute_script(f"return {FRONT_A}.src")
        time.sleep(0.3)
        arabic.write_text(arabic.read_text(encoding="utf-8").replace("ألفا", "أ لفا"), encoding="utf-8")
        again = report_next()
        assert again.ok and [r.game.language for r in again.result.editions] == ["ar"]   # the Arabic one alone
        wait.until(lambda d: "أ لفا" in d.execute_script(name))
        assert driver.execute_script(f"return {FRONT_A}.src") != old_src
        Select(driver.find_element("id", "lang")).select_by_value("en")   # the English edition is still shown
        wait.until(lambda d: "Alpha" in d.execute_script(name))

