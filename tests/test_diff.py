"""Reprint only what changed (build --changed-since) and the visual diff for review (pnp diff)."""
from __future__ import annotations

import io
import json
import subprocess

import pikepdf
import pytest

from tests.conftest import edit, run

CARDS = """
- {id: a, name: Alpha, text: "First words."}
- {id: b, name: Beta, text: "Second words."}
- {id: c, name: Gamma, text: "Third words."}
"""


def git(root, *args):
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=root,
                   check=True, capture_output=True)


def committed(mini):
    root = mini(CARDS)
    (root / ".gitignore").write_text("output/\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "cards")
    return root


def placed_ids(pdf_path):
    manifest = json.loads((pdf_path.parent / "manifest.json").read_text())
    entry = next(e for e in manifest["files"] if e["path"] == pdf_path.name)
    return entry, sorted({p["id"] for p in entry["placements"]})


@pytest.mark.slow
def test_changed_since_a_git_ref_prints_only_changed_components_with_backs(mini):
    root = committed(mini)
    edit(root / "cards" / "mini" / "deck.yaml", "Second words.", "Second, better words.")
    result = run(root, "build", "--paper", "a4", "--changed-since", "HEAD")
    assert result.exit_code == 0, result.output
    assert "mini: 1 component changed since HEAD: b" in result.output
    changed = root / "output" / "mini" / "mini-changed-a4.pdf"
    entry, ids = placed_ids(changed)
    assert entry["kind"] == "changed" and ids == ["b"]
    assert sorted({p["side"] for p in entry["placements"]}) == ["back", "front"]
    assert len(pikepdf.open(io.BytesIO(changed.read_bytes())).pages) == 2  # fronts, then backs


@pytest.mark.slow
def test_changed_since_the_last_build(mini):
    root = mini(CARDS)
    assert run(root, "build", "--changed-since", "last").exit_code == 2  # nothing recorded yet
    assert run(root, "build").exit_code == 0
    result = run(root, "build", "--changed-since", "last")
    assert result.exit_code == 0 and "0 components changed since the last build" in result.output
    assert not list((root / "output" / "mini").glob("*-changed-*"))
    edit(root / "cards" / "mini" / "deck.yaml", "Third words.", "Third words, edited.")
    edit(root / "cards" / "mini" / "deck.yaml", "name: Alpha", "name: Alfa")
    result = run(root, "build", "--paper", "a4", "--changed-since", "last")
    assert result.exit_code == 0 and "2 components changed since the last build: a, c" in result.output
    assert placed_ids(root / "output" / "mini" / "mini-changed-a4.pdf")[1] == ["a", "c"]


def test_a_bad_ref_is_a_clean_error(mini):
    root = committed(mini)
    result = run(root, "build", "--changed-since", "no-such-branch")
    assert result.exit_code == 2 and "cannot read git ref 'no-such-branch'" in result.output
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_diff_lists_changes_writes_pictures_and_gates_ci(mini):
    from PIL import Image

    root = committed(mini)
    clean = run(root, "diff", "HEAD")
    assert clean.exit_code == 0 and "mini: no component changed since HEAD" in clean.output
    assert run(root, "diff", "HEAD", "--fail-on-change").exit_code == 0
    edit(root / "cards" / "mini" / "deck.yaml", "First words.", "Brand new words.")
    with open(root / "cards" / "mini" / "deck.yaml", "a") as fh:
        fh.write('  - {id: d, name: Delta, text: "New card."}\n')
    result = run(root, "diff", "HEAD")
    assert result.exit_code == 0, result.output
    assert "mini: 1 changed since HEAD: a" in result.output and "mini: 1 added since HEAD: d" in result.output
    report = root / "output" / "diff"
    page = (report / "index.html").read_text()
    assert page.count("data:image/png;base64,") == 2 and "<h3 id='mini-a'>a (changed)" in page
    assert "<h3 id='mini-d'>d (added)" in page and "mini-b" not in page
    assert sorted(p.name for p in report.rglob("*.png")) == ["a.png", "d.png"]
    picture = Image.open(report / "mini" / "a.png")
    left = picture.crop((0, 0, picture.width // 2, picture.height)).tobytes()
    right = picture.crop((picture.width // 2, 0, picture.width, picture.height)).tobytes()
    assert left != right
    assert run(root, "diff", "HEAD", "--fail-on-change").exit_code == 1


def test_a_git_refs_tree_is_unpacked_without_any_link(tmp_path):
    """Unpacked before the jail: links are refused even where tarfile's data filter lets them
    through (a link inside the tree), since that filter had holes through links."""
    import io
    import tarfile

    from generator import changes

    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        body = b"- {id: a}\n"
        card = tarfile.TarInfo("cards/g/deck.yaml")
        card.size = len(body)
        tar.addfile(card, io.BytesIO(body))
        link = tarfile.TarInfo("cards/g/other.yaml")
        link.type, link.linkname = tarfile.SYMTYPE, "deck.yaml"
        tar.addfile(link)
    data.seek(0)
    with tarfile.open(fileobj=data) as tar:
        assert tarfile.data_filter(tar.getmember("cards/g/other.yaml"), str(tmp_path)) is not None   # data lets it in
        with pytest.raises(tarfile.FilterError, match="is a link"):
            tar.extractall(tmp_path, filter=changes._no_links)
