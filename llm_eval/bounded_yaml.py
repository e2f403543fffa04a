"""YAML read within stated bounds: a hostile settings file is refused before anything large is
built.

A YAML alias can name a node many times over, so a file of a few hundred bytes can stand for
billions of values (an "alias bomb"): PyYAML builds it cheaply by sharing objects, but whatever
walks it afterwards (validation, JSON, hashing) does not. ``BoundedLoader`` composes the
document counting every node as it would be expanded (an alias counts the whole subtree it
names) and refuses, while composing, a document that

- expands to more than ``max_nodes`` nodes (``MAX_NODES``),
- nests deeper than ``max_depth`` collections (``MAX_DEPTH``; deeper would exhaust Python's
  recursion), or
- holds a scalar of more than ``max_scalar`` characters (``MAX_SCALAR``),

and ``read_bounded`` refuses a file of more than ``max_bytes`` bytes (``MAX_BYTES``) before
reading it. Each refusal is a ``BoundsError`` (a ``yaml.YAMLError``) naming the setting's path
(``budgets.history.3``) and its line, so the caller reports it as it reports bad YAML.
A recursive alias (a collection that contains itself) is refused too: no setting is infinite.

The bounds make the time to refuse any input bounded: at most ``max_bytes`` are read and at
most ``max_nodes`` nodes composed. Events come from libyaml when PyYAML has it (about 4x faster
than the pure-Python parser); composing, and the counting, are Python's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

__all__ = ["BoundedLoader", "BoundsError", "read_bounded", "load_bounded", "MAX_NODES",
           "MAX_DEPTH", "MAX_SCALAR", "MAX_BYTES", "setting_path"]

MAX_NODES = 100_000      # nodes after alias expansion: 100,000 seeds is already 300,000 jobs
MAX_DEPTH = 32           # nested collections: a spec's deepest setting is 3 levels down
MAX_SCALAR = 65_536      # characters in one value (a path, a name, a header)
MAX_BYTES = 1_048_576    # a settings file, not a data file: a typical spec is under 2 KB

try:   # libyaml's event parser, with PyYAML's (Python) composer over it for the counting
    from yaml._yaml import CParser as _Parser

    _C_EVENTS = True
except ImportError:   # pragma: no cover - PyYAML built without libyaml
    from yaml.parser import Parser as _Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    _C_EVENTS = False


class BoundsError(yaml.MarkedYAMLError):
    """A document over one of ``BoundedLoader``'s bounds; ``path`` is the setting's path
    (a tuple of keys and indices, empty for the document), ``problem_mark`` its place."""

    def __init__(self, path: tuple, problem: str, mark: Any = None) -> None:
        super().__init__(problem=problem, problem_mark=mark)
        self.path = path

    @property
    def setting(self) -> str:
        return setting_path(self.path)


def setting_path(path: tuple) -> str:
    """``("budgets", "history", 3)`` as ``budgets.history.3`` (``(document)`` when empty)."""
    return ".".join(str(part) for part in path) or "(document)"


def _as_key(node: Any) -> Any:
    return node.value if isinstance(node, ScalarNode) else "?"


class BoundedLoader(_Parser, SafeConstructor, Resolver):
    """A safe loader (PyYAML's ``SafeLoader`` rules: plain data, no Python objects) that
    refuses a document over its bounds while composing it (module docstring). ``on_node``
    (``self.on_node(path, node)``, called for each node composed, aliases included) lets a
    subclass check more as the document is read."""

    max_nodes = MAX_NODES
    max_depth = MAX_DEPTH
    max_scalar = MAX_SCALAR

    def __init__(self, stream: str) -> None:
        if _C_EVENTS:
            _Parser.__init__(self, stream)
        else:   # pragma: no cover
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            _Parser.__init__(self)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        self.path: list[Any] = []          # the setting being composed
        self.expanded = 0                  # nodes composed so far, aliases expanded
        self._sizes: dict[int, int] = {}   # id(node): its expanded size, once complete

    # the Python composer over either parser's events (CParser has a composer of its own,
    # which cannot count)
    check_node = Composer.check_node
    get_node = Composer.get_node
    get_single_node = Composer.get_single_node
    compose_document = Composer.compose_document
    compose_scalar_node = Composer.compose_scalar_node
    compose_sequence_node = Composer.compose_sequence_node
    compose_mapping_node = Composer.compose_mapping_node

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        if parent is not None:
            if isinstance(parent, SequenceNode):
                self.path.append(index)
            elif index is None:               # a mapping's key: its own path is the mapping's
                self.path.append("(key)")
            else:
                self.path.append(_as_key(index))
        try:
            if len(self.path) > self.max_depth:
                raise BoundsError(tuple(self.path[:self.max_depth]),
                                  f"nested more than {self.max_depth} levels deep",
                                  self.peek_event().start_mark)
            is_alias = self.check_event(yaml.AliasEvent)
            mark = self.peek_event().start_mark
            node = Composer.compose_node(self, parent, index)
            size = self._sizes.get(id(node))
            if size is None:
                if is_alias:   # the alias of a collection still being composed: itself
                    raise BoundsError(tuple(self.path), "a recursive alias (a collection "
                                      "that contains itself)", mark)
                size = self._size_of(node)
                self._sizes[id(node)] = size
            else:
                self.expanded += size if is_alias else 0
            if not is_alias:
                self.expanded += 1   # its children were counted as they were composed
            if self.expanded > self.max_nodes:
                how = "an alias here takes it" if is_alias else "it grows"
                raise BoundsError(tuple(self.path), f"the document is too large: {how} past "
                                  f"{self.max_nodes:,} values (every alias expanded), the "
                                  f"limit for a settings file", mark)
            self.on_node(tuple(self.path), node)
            return node
        finally:
            if parent is not None:
                self.path.pop()

    def _size_of(self, node: Node) -> int:
        if isinstance(node, ScalarNode):
            if len(node.value) > self.max_scalar:
                raise BoundsError(tuple(self.path), f"a value of {len(node.value):,} "
                                  f"characters, more than the limit of {self.max_scalar:,}",
                                  node.start_mark)
            return 1
        sizes = self._sizes
        if isinstance(node, SequenceNode):
            return 1 + sum(sizes[id(child)] for child in node.value)
        assert isinstance(node, MappingNode)
        return 1 + sum(sizes[id(k)] + sizes[id(v)] for k, v in node.value)

    def on_node(self, path: tuple, node: Node) -> None:
        """Called for each node as it is composed (``path``: its setting's path)."""


def load_bounded(text: str, loader: type[BoundedLoader] = BoundedLoader
                 ) -> tuple[Any, Node | None]:
    """The data of the YAML document ``text`` and its composed tree (for the lines of
    settings), within ``loader``'s bounds (``BoundsError``, or another ``yaml.YAMLError``)."""
    instance = loader(text)
    try:
        node = instance.get_single_node()
        try:
            data = instance.construct_document(node) if node is not None else None
        except yaml.MarkedYAMLError as exc:   # e.g. a Python tag: say which setting holds it
            exc.path = _path_at(node, exc.problem_mark)
            raise
    finally:
        instance.dispose()
    return data, node


def _path_at(tree: Node, mark: Any) -> tuple | None:
    """The setting path of the node of ``tree`` that starts at ``mark``, or None."""
    if mark is None:
        return None
    seen: set[int] = set()
    stack: list[tuple[Node, tuple]] = [(tree, ())]
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        start = node.start_mark
        if (start.line, start.column) == (mark.line, mark.column):
            return path
        if isinstance(node, SequenceNode):
            stack.extend((child, (*path, i)) for i, child in enumerate(node.value))
        elif isinstance(node, MappingNode):
            stack.extend((value, (*path, _as_key(key))) for key, value in node.value)
    return None


def read_bounded(path: str | Path, max_bytes: int = MAX_BYTES) -> str:
    """The UTF-8 text of the settings file at ``path``, refused unread (``BoundsError``) when
    it is larger than ``max_bytes`` (``OSError``, ``UnicodeDecodeError`` as ``read_text``)."""
    path = Path(path)
    size = path.stat().st_size
    if size > max_bytes:
        raise BoundsError((), f"{size:,} bytes, more than the limit of {max_bytes:,} for a "
                          f"settings file")
    with path.open("rb") as handle:   # it may have grown since: read no more than the limit
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise BoundsError((), f"more than the limit of {max_bytes:,} bytes for a settings "
                          f"file")
    return data.decode("utf-8")
