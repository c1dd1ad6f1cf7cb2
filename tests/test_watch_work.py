"""Work a rebuild no longer repeats: a die's net worked out once a process, a manifest's
placements written without json's indenting encoder (the same text)."""
from __future__ import annotations

import json

import pytest

from generator.exports import manifest
from generator.layout.dicenet import net


def test_a_dies_net_is_worked_out_once():
    assert net("d6", 16.0, 1.0) is net("d6", 16.0, 1.0)
    assert net("d6", 16.0, 1.0) is not net("d6", 17.0, 1.0)


@pytest.mark.parametrize("item", [
    {"card": "a", "x": 1.5, "outline": [[0.0, 1.25], [2, 3]], "face": {"die": "d6", "face": 2}, "back": None,
     "flip": True, "no": False, "empty": [], "none": {}, "text": "é \"quoted\"\n"},
    {"deep": [{"a": [[]]}, [1, [2, [3.0e-7]]]]},
])
def test_placements_are_written_as_json_writes_them(item, monkeypatch):
    expected = json.dumps(item, indent=1, ensure_ascii=False)
    monkeypatch.setattr(manifest.json, "dumps", lambda *a, **k: pytest.fail("json.dumps called for a placement"))
    assert manifest._item_json(item) == expected


@pytest.mark.parametrize("item", [{1: "a key that is not text"}, {"nan": float("nan")}, {"t": (1, 2)}])
def test_what_it_does_not_write_goes_to_json(item):
    assert manifest._item_json(item) == json.dumps(item, indent=1, ensure_ascii=False)

