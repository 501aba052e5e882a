"""YAML for files a stranger may have written: one document, no duplicate keys, bounded size after aliases.

PyYAML's safe loader shares aliased nodes, so a ~600-byte "billion laughs" file stays small while it
is parsed, and explodes only when something walks it (validation, an error message). The expanded size
is counted on the composed node graph, before any Python object is built, and refused past a bound.
Integers are plain decimals only: YAML 1.1 reads `1_0` as 10, `012` as 10 and `1:20` as 80.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from mintprep.base import YamlRefused

MAX_NODES = 100_000  # a collection with 10,000 pieces and overrides stays far below this
MAX_DEPTH = 64
MAX_INT_DIGITS = 40  # more than any uint256 in decimal needs (78 would), less than Python's 4300-digit limit
PLAIN_INT = re.compile(r"[-+]?[0-9]+")
INT_TAG = "tag:yaml.org,2002:int"


def _where(node: Node) -> str:
    mark = node.start_mark
    return f"line {mark.line + 1}, column {mark.column + 1}"


class _BoundedLoader(yaml.SafeLoader):
    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise YamlRefused(f"line {mark.line + 1}: nested deeper than {MAX_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, Node] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            if value_node.tag == INT_TAG:
                _plain_int(value_node, f"{key}: ")
            try:
                earlier = seen.get(key)
            except TypeError:
                raise YamlRefused(f"{_where(key_node)}: a mapping key must be a plain value, not a list or mapping") \
                    from None
            if earlier is not None:
                raise YamlRefused(f"{_where(key_node)}: duplicate key {key!r} (first at {_where(earlier)}); "
                                  "keep one: YAML would silently use the last")
            seen[key] = key_node
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node: ScalarNode) -> int:
        return _plain_int(node, "")


def _plain_int(node: ScalarNode, key: str) -> int:
    text = str(node.value)
    if len(text.lstrip("+-")) > MAX_INT_DIGITS:
        raise YamlRefused(f"{key}{_where(node)}: a {len(text)}-digit integer is beyond any setting's range")
    if not PLAIN_INT.fullmatch(text):
        raise YamlRefused(f"{key}{_where(node)}: {text!r} is not a plain decimal integer; write digits only, or "
                          "quote it if it is text")
    return int(text)


_BoundedLoader.add_constructor(INT_TAG, _BoundedLoader.construct_yaml_int)


def expanded_size(root: Node) -> int:
    """Nodes the document would have with every alias copied out; each distinct node is measured once."""
    sizes: dict[int, int] = {}

    def size(node: Node) -> int:
        known = sizes.get(id(node))
        if known is not None:
            return known
        sizes[id(node)] = 1  # a recursive alias (`&a [*a]`) counts once instead of looping
        if isinstance(node, SequenceNode):
            total = 1 + sum(size(child) for child in node.value)
        elif isinstance(node, MappingNode):
            total = 1 + sum(size(key) + size(value) for key, value in node.value)
        else:
            total = 1
        sizes[id(node)] = min(total, MAX_NODES + 1)
        return sizes[id(node)]

    return size(root)


def load_document(text: str) -> Any:
    """The one YAML document in `text` as Python values; YamlRefused or yaml.YAMLError when refused."""
    loader = _BoundedLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        try:
            too_big = expanded_size(root) > MAX_NODES
        except RecursionError:  # aliases of aliases can nest a graph deeper than its text
            raise YamlRefused(f"aliases nest this file deeper than {MAX_DEPTH} levels") from None
        if too_big:
            raise YamlRefused(f"aliases expand this file past {MAX_NODES} values (a \"billion laughs\" file?); "
                              "write the values out instead of repeating an alias")
        return loader.construct_document(root)
    finally:
        loader.dispose()
