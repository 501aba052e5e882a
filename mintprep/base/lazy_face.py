"""A package's public face: the names other packages import from it, each loaded from the submodule that defines it
on first use (PEP 562 `__getattr__`), so importing a face costs nothing until a name is used (reading
collection.yaml must not import numpy, web3 or torch because its package's face names them).

    # mintprep/ipfs/__init__.py
    from mintprep.base import face

    __all__, __getattr__ = face(__name__, {"CID": "cid", "BlockStore": "store", ...})

Other packages import from the face, never from a submodule (`tests/test_layout.py` checks both that and that
each name is defined where its face says)."""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any, Callable


def face(package: str, homes: dict[str, str]) -> tuple[list[str], Callable[[str], Any]]:
    """`__all__` (the public names, sorted) and the `__getattr__` that loads each from `package.<homes[name]>`."""
    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{homes[name]}"), name)
        setattr(sys.modules[package], name, value)  # once loaded, a plain attribute
        return value

    return sorted(homes), __getattr__
