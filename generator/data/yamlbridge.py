"""The one bridge to PyYAML's internals: a loader that composes a large file card by card.

In: a PyYAML loader class (yamlsrc.py's, on libyaml's C parser). Out: `streaming_loader`,
the same loader whose lists construct each mapping or list inside them as soon as it is
read. PyYAML composes a whole file into nodes, several times the size of the data, before
constructing any of it; a deck of 10,000 cards read this way peaks at +29 MB instead of
+88 MB. It does so by overriding `Composer.compose_sequence_node` and `compose_node` —
PyYAML's own Python composer, as of PyYAML 6.0 — and `construct_object`;
tests/test_yamlbridge.py checks that those are still the methods this module was written
against, and that both loaders read tricky files to the same data, lines and errors.
"""
from __future__ import annotations

from functools import lru_cache

import yaml

from ..guard import MAX_DEPTH

TESTED = ("6.0.3",)   # the PyYAML versions this bridge was checked against (pyproject pins the range)


class _Built(yaml.nodes.Node):
    """A collection constructed as soon as it was read (see `_Streaming`)."""

    id = "built"

    def __init__(self, node, data):
        super().__init__(node.tag, None, node.start_mark, node.end_mark)
        self.data = data


class _Streaming(yaml.composer.Composer):
    """The same loader for large files (a deck of thousands of cards): PyYAML composes a whole
    file into nodes, several times the size of the data, before constructing any of it.
    Here each mapping or list inside a list (a card) is constructed the moment it has been
    read and its nodes let go, so reading needs little more memory than the data. Events
    still come from libyaml; the composing is PyYAML's own Python composer, slower, which is
    why small files keep the all-C path. Anchored collections stay nodes (aliases and `<<`
    merges keep pointing at them, and their constructed value is kept and shared)."""

    def __init__(self, stream):
        super(yaml.composer.Composer, self).__init__(stream)  # the loader's own (libyaml's parser)
        yaml.composer.Composer.__init__(self)

    _composing = 0  # collections being composed around the current node

    def compose_node(self, parent, index):
        if self.check_event(yaml.SequenceStartEvent, yaml.MappingStartEvent):
            if self._composing >= MAX_DEPTH:  # as the loader's construct_object says it, before Python's stack ends
                raise yaml.composer.ComposerError(
                    None, None, f"lists and mappings are nested more than {MAX_DEPTH} levels deep (the most pnp "
                    "accepts)", self.peek_event().start_mark)
            self._composing += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self._composing -= 1
        return super().compose_node(parent, index)

    def compose_sequence_node(self, anchor):
        start = self.get_event()
        tag = start.tag
        if tag is None or tag == "!":
            tag = self.resolve(yaml.SequenceNode, None, start.implicit)
        node = yaml.SequenceNode(tag, [], start.start_mark, None, flow_style=start.flow_style)
        if anchor is not None:
            self.anchors[anchor] = node
        index = 0
        while not self.check_event(yaml.SequenceEndEvent):
            child = self.compose_node(node, index)
            anchored = set(self.anchors.values())
            if isinstance(child, (yaml.MappingNode, yaml.SequenceNode)) and child not in anchored:
                child = _Built(child, self.construct_object(child, deep=True))
                self.constructed_objects = {n: v for n, v in self.constructed_objects.items() if n in anchored}
            node.value.append(child)
            index += 1
        node.end_mark = self.get_event().end_mark
        return node

    def construct_object(self, node, deep=False):
        if isinstance(node, _Built):
            return node.data
        return super().construct_object(node, deep)


@lru_cache(maxsize=4)
def streaming_loader(loader: type) -> type:
    """`loader` composing lists card by card (see `_Streaming`)."""
    return type(f"Streaming{loader.__name__}", (_Streaming, loader), {})
