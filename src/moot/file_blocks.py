"""How the kernel's judges file (`moot.panel_file`) learns which blocks the protocols declare, without
knowing any protocol.

A judges file is one YAML mapping that may hold the blocks of every protocol. The kernel reads only the
protocol-neutral keys (the judges, the run options); every other top-level key is a protocol's, kept raw
until the model that protocol declares (its spec's `settings`) validates it. The registry (`moot.protocols`)
declares, when it is imported, a way to list those models; the kernel asks for them when it loads a file,
so that a file is still checked whole, before any call, and a key no protocol declares is still an error.
A file whose keys the protocols already imported declare all is checked against theirs alone: the others'
blocks are absent from it, so importing them (a few hundred milliseconds) would check nothing more.

This module imports nothing, so declaring costs `moot --help` nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import BaseModel

# (imported_only) -> block models: every protocol's, or only those of the protocols imported so far
BlockSource = Callable[[bool], Sequence["type[BaseModel]"]]

_sources: list[BlockSource] = []


def declare(source: BlockSource) -> None:
    """Add a source of block models (the registry's: every protocol's `settings`); called once per source."""
    if source not in _sources:
        _sources.append(source)


def declared(*, imported_only: bool = False) -> list[type[BaseModel]]:
    """Every block model declared so far (or those of the protocols imported so far), each once, in the order
    the sources list them; empty when no registry was imported (the kernel alone then keeps every protocol's
    block raw and unchecked)."""
    models: list[type[BaseModel]] = []
    for source in _sources:
        models += [m for m in source(imported_only) if m not in models]
    return models
