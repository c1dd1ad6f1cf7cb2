"""The PyYAML bridge (generator/data/yamlbridge.py): the composer methods it overrides are
still the ones it was written against, and the streaming loader reads what the all-C
loader reads. A PyYAML upgrade that changes them fails here, by name."""
from __future__ import annotations

import hashlib
import inspect

import yaml

from generator.data import yamlbridge, yamlsrc

# sha256 (first 16 hex) of PyYAML's source of each method the bridge overrides or calls
# around; the bridge copies compose_sequence_node's logic, so a change there must be read.
WRITTEN_AGAINST = {
    "Composer.compose_sequence_node": "79376971105c7c32",
    "Composer.compose_node": "62dab83d049b0dbb",
    "Composer.__init__": "fe64f339503b1a84",
}


def test_pyyaml_is_a_version_the_bridge_was_checked_against():
    assert yaml.__version__ in yamlbridge.TESTED, (
        f"PyYAML {yaml.__version__} is not one yamlbridge.py was checked against ({yamlbridge.TESTED}): "
        "re-read Composer.compose_sequence_node against _Streaming, then add the version")


def test_the_composer_methods_the_bridge_follows_are_unchanged():
    for name, digest in WRITTEN_AGAINST.items():
        source = inspect.getsource(getattr(yaml.composer.Composer, name.split(".")[1]))
        found = hashlib.sha256(source.encode()).hexdigest()[:16]
        assert found == digest, f"PyYAML's {name} changed: re-read generator/data/yamlbridge.py against it"


def test_the_streaming_loader_composes_with_pythons_composer_and_libyamls_parser():
    loader = yamlbridge.streaming_loader(yamlsrc._Loader)
    mro = loader.__mro__
    assert mro.index(yaml.composer.Composer) < mro.index(yamlsrc._Loader)
    data = yaml.load("cards:\n  - {id: a, n: 1}\n  - {id: b, n: 2}\n", Loader=loader)
    assert data == {"cards": [{"id": "a", "n": 1}, {"id": "b", "n": 2}]}
    assert data["cards"].lines == [2, 3] and data["cards"][1].line == 3
