"""Untrusted YAML loaded within bounds: libyaml's parser and PyYAML's safe constructors (never a tag that
builds an object), with nesting, size and merge-key copies limited, so that a hostile reply costs its judge
a clarification rather than the process its stack or its memory. `extract` finds the blocks to load.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, SequenceNode
from yaml.resolver import Resolver

try:
    from yaml._yaml import CParser as _EventSource

    _C_COMPOSER = True
except ImportError:  # a PyYAML built without libyaml
    _C_COMPOSER = False
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _EventSource(Reader, Scanner, Parser):  # type: ignore[no-redef]
        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)


MAX_DEPTH = 32  # judges' templates nest four or five levels
MAX_NODES = 10_000  # counted with repetition: YAML aliases share one object under many parents
TOO_LARGE = "it is too large once its YAML aliases and merge keys are expanded"
TOO_DEEP = f"it is nested more than {MAX_DEPTH} levels deep"


class ReplyError(ValueError):
    """A reply that cannot be used. The message is phrased for the judge, to ask for a corrected reply.

    `usable`, when given, is what the reply is worth as it stands: the judge is still asked once to correct
    it (a finding without a verbatim quote), but a reply that stays as it was is taken as `usable`, not
    dropped."""

    def __init__(self, message: str, *, usable: object = None) -> None:
        super().__init__(message)
        self.usable = usable


class _MergeBudget(SafeConstructor):
    """PyYAML's safe constructors, with the copies merge keys make counted against a budget: merge keys
    are the one place aliases copy data (`<<: [*a, *a, ...]`)."""

    def __init__(self) -> None:
        SafeConstructor.__init__(self)
        self.merged = 0
        self.flattening: set[int] = set()
        self.flattened: set[int] = set()

    def flatten_mapping(self, node: MappingNode) -> None:
        if id(node) in self.flattened:
            return  # merged again: its entries are already its own, only their count is new
        if id(node) in self.flattening:
            raise ReplyError("a YAML merge key (<<) in it merges a mapping into itself")
        self.flattening.add(id(node))
        for key, value in node.value:
            if key.tag != "tag:yaml.org,2002:merge":
                continue
            for source in value.value if isinstance(value, SequenceNode) else [value]:
                if isinstance(source, MappingNode):
                    self.flatten_mapping(source)
                    self.merged += len(source.value)
                    if self.merged > MAX_NODES:
                        raise ReplyError(TOO_LARGE)
        super().flatten_mapping(node)
        self.flattened.add(id(node))


class _ReplyLoader(Composer, _EventSource, _MergeBudget, Resolver):
    """libyaml's parser with PyYAML's safe constructors, as `CSafeLoader`, but composed in Python.

    libyaml's own composer recurses in C with no limit: 100,000 nested `[` (a 100 kB reply) overflow the
    C stack and kill the process. Composed in Python, nesting stops at the limit instead.
    """

    def __init__(self, stream: str) -> None:
        _EventSource.__init__(self, stream)
        Composer.__init__(self)
        _MergeBudget.__init__(self)
        Resolver.__init__(self)
        self.depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        """Stop at the nesting limit, not at Python's recursion limit a thousand frames further down."""
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH + 1:  # + the scalar at the bottom
                raise ReplyError(TOO_DEEP)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


# Every level of YAML nesting is opened by one of these characters (a mapping's `:` or `?`, a sequence's
# `-`, a flow collection's bracket), so their count bounds how deep a text can nest.
_OPENERS = "[{-?:"
# libyaml composes 300 levels on a 128 kB thread stack (the smallest threads get, on musl) and fails at
# 1,000: a text that cannot nest deeper than this is composed in C.
_C_COMPOSE_MAX = 128


def _openers(block: str) -> int:
    """How many characters of `block` may open a level of nesting (counted up to past `_C_COMPOSE_MAX`)."""
    total = 0
    for c in _OPENERS:
        total += block.count(c)
        if total > _C_COMPOSE_MAX:
            break
    return total


class _ShallowReplyLoader(_EventSource, _MergeBudget, Resolver):
    """`_ReplyLoader` composed by libyaml, as `CSafeLoader` is (a third faster), for text that `_shallow`
    says cannot nest deeply enough to overflow a C stack. The nesting limit is then checked on the nodes,
    so that a reply nested past it fails as it does when composed in Python."""

    def __init__(self, stream: str, *, may_nest_too_deep: bool = True) -> None:
        _EventSource.__init__(self, stream)
        _MergeBudget.__init__(self)
        Resolver.__init__(self)
        self.may_nest_too_deep = may_nest_too_deep

    def get_single_data(self) -> Any:
        node = self.get_single_node()
        if node is None:
            return None
        if self.may_nest_too_deep and _nested_too_deep(node):
            raise ReplyError(TOO_DEEP)
        return self.construct_document(node)


def _nested_too_deep(root: Node) -> bool:
    """Whether composing `root` in Python would have passed the nesting limit: nodes are visited in document
    order, each descended into at its first place only (later ones are aliases), as the composer meets them."""
    seen: set[int] = set()
    stack: list[tuple[Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH + 1:
            return True
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, SequenceNode):
            children = list(node.value)
        elif isinstance(node, MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            continue
        stack.extend((child, depth + 1) for child in reversed(children))
    return False


def compose_and_construct(block: str) -> Any:
    """`block` loaded by `_ShallowReplyLoader` when it cannot nest deeply, else by `_ReplyLoader`.

    Composed in Python, a reply fails at its first node past the nesting limit, before any later syntax
    error; composed in C, the whole text is read first. So a text that could nest past the limit and
    does not load in C is loaded again in Python, to fail the same way.
    """
    openers = _openers(block) if _C_COMPOSER else _C_COMPOSE_MAX + 1
    if openers <= _C_COMPOSE_MAX:
        try:
            return loaded(_ShallowReplyLoader(block, may_nest_too_deep=openers > MAX_DEPTH))
        except yaml.YAMLError:
            if openers <= MAX_DEPTH:  # it cannot nest past the limit: the error is the same either way
                raise
    return loaded(_ReplyLoader(block))


# libyaml 0.2.6 (bundled from PyYAML 6.0.4 on) stops at 1,000 levels of nesting in its scanner. Its scanner
# reads ahead up to 1,024 characters in a flow collection (for a key that may follow), so `{` * 5000 fails
# there, before the composer has seen the 33 levels that make it too deep for us.
_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"


def _past_libyaml_nesting_limit(error: yaml.YAMLError) -> bool:
    """Whether `error` is libyaml's own nesting limit (1,000 levels, far past `MAX_DEPTH`): the text is then
    nested too deep for us too. Its wording is libyaml's, not the text's: a reply cannot forge it."""
    return isinstance(error, yaml.MarkedYAMLError) and error.problem == _LIBYAML_TOO_DEEP


def loaded(loader: _ReplyLoader | _ShallowReplyLoader) -> Any:
    try:
        return loader.get_single_data()
    except yaml.YAMLError as e:
        if _past_libyaml_nesting_limit(e):
            raise ReplyError(TOO_DEEP) from None
        raise
    finally:
        loader.dispose()
