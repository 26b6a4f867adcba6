"""YAML read safely: the safe tags only, bounded nesting and bounded alias expansion.

An alias stands for its whole anchored node, so a few hundred bytes of anchors nine deep stand for
a billion nodes (the "billion laughs"): constructing them shares objects, but anything that walks
them (a check, a JSON dump) expands them. Here every node's expanded size is counted as it is
composed and a document standing for more than
:data:`~openodke.safeio.limits.MAX_YAML_NODES` nodes is refused, as is an alias inside its own
anchor (a structure that contains itself) and nesting past
:data:`~openodke.safeio.limits.MAX_NESTING`. Events come from LibYAML when it is installed.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, cast

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, SequenceNode
from yaml.resolver import Resolver

from openodke.errors import InputError
from openodke.safeio.files import decode, read_bytes
from openodke.safeio.jsonio import check_strings
from openodke.safeio.limits import MAX_NESTING, MAX_YAML_NODES, max_yaml_bytes

__all__ = ["YamlLimit", "load_yaml", "read_yaml"]

try:  # LibYAML's parser when present: the same events, several times faster
    from yaml.cyaml import CParser as _Parser  # type: ignore[attr-defined]

    _C = True
except ImportError:  # pragma: no cover - PyYAML built without LibYAML
    from yaml.parser import Parser as _Parser  # type: ignore[assignment]
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    _C = False


class YamlLimit(yaml.YAMLError):
    """A YAML document past a limit: too deep, too many nodes once expanded, or recursive."""

    def __init__(self, problem: str, line: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line


class _BoundedComposer(Composer):
    """PyYAML's composer, counting depth and each node's expanded size as it goes."""

    if TYPE_CHECKING:  # the parser the loader mixes in provides these

        def peek_event(self) -> Any: ...

        def check_event(self, *choices: Any) -> bool: ...

    def __init__(self) -> None:
        super().__init__()
        self._sizes: dict[int, int] = {}
        self._open: list[int] = []  # the nodes being composed, outermost first
        self.max_nodes = MAX_YAML_NODES

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        line = self.peek_event().start_mark.line + 1
        if parent is not None:
            self._open.append(id(parent))
        try:
            if self.check_event(AliasEvent):
                anchor = self.peek_event().anchor
                target = self.anchors.get(anchor)
                if target is not None and id(target) in self._open:
                    raise YamlLimit(f"the alias *{anchor} is inside its own anchor", line)
            elif len(self._open) >= MAX_NESTING:
                raise YamlLimit(f"nested deeper than {MAX_NESTING} levels", line)
            node = cast(Node, super().compose_node(parent, index))
        finally:
            if parent is not None:
                self._open.pop()
        if id(node) in self._sizes or not isinstance(node, SequenceNode | MappingNode):
            return node  # an alias (counted where its anchor was) or a scalar
        size = 1
        if isinstance(node, SequenceNode):
            size += sum(self._sizes.get(id(item), 1) for item in node.value)
        elif isinstance(node, MappingNode):
            size += sum(
                self._sizes.get(id(key), 1) + self._sizes.get(id(value), 1)
                for key, value in node.value
            )
        if size > self.max_nodes:
            raise YamlLimit(
                f"expands to more than {self.max_nodes:,} values once its aliases are followed "
                "(an alias bomb?): refused",
                line,
            )
        if size > 1:
            self._sizes[id(node)] = size
        return node


if _C:

    class _Loader(_BoundedComposer, _Parser, SafeConstructor, Resolver):  # type: ignore[misc]
        def __init__(self, stream: str) -> None:
            _Parser.__init__(self, stream)
            _BoundedComposer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

else:  # pragma: no cover

    class _Loader(  # type: ignore[no-redef]
        Reader, Scanner, _Parser, _BoundedComposer, SafeConstructor, Resolver
    ):
        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            _Parser.__init__(self)  # type: ignore[call-arg]
            _BoundedComposer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)


def load_yaml(text: str, *, path: str, node: bool = False, max_nodes: int = MAX_YAML_NODES) -> Any:
    """One YAML document's data (with ``node=True``: ``(data, root node)`` for line numbers).

    InputError ``path:line: invalid YAML: ...`` for a syntax error, and for a document past a
    limit (``max_nodes``: the values it may expand to).
    """
    loader = _Loader(text)
    loader.max_nodes = max_nodes
    try:
        root = loader.get_single_node()
        data = None if root is None else loader.construct_document(root)
    except YamlLimit as error:
        raise InputError(error.problem, path=path, line=error.line) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        line = mark.line + 1 if mark is not None else None
        raise InputError(f"invalid YAML: {problem}", path=path, line=line) from None
    except (ValueError, TypeError, OverflowError) as error:  # a scalar its constructor refuses
        raise InputError(f"invalid YAML: {error}", path=path) from None
    except RecursionError:
        raise InputError("nested too deeply", path=path) from None
    finally:
        loader.dispose()
    check_strings(data, path=path)
    return (data, root) if node else data


def read_yaml(
    path: str | os.PathLike[str], *, what: str = "a YAML file", node: bool = False
) -> Any:
    """A YAML file's data, read within :func:`~openodke.safeio.limits.max_yaml_bytes`."""
    name = os.fspath(path)
    data = read_bytes(name, what=what, limit=max_yaml_bytes(), variable="ODKE_MAX_YAML_MB")
    text = decode(data, path=name)
    return load_yaml(text, path=name, node=node)
