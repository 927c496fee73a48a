"""Lazy public names of a package (PEP 562), one rule for every façade of privaudit: a name
is imported from its module on first access, so importing a package costs nothing until a
name is used.  Standard library only; imports no room."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_attribute", "lazy_dir"]

#: A table entry: the module (absolute, or relative to the package), or (module, attribute);
#: an attribute of ``None`` serves the module itself.
Entry = str | tuple[str, str | None]


def lazy_attribute(
    namespace: MutableMapping[str, Any], table: Mapping[str, Entry], name: str
) -> Any:
    """The package's attribute ``name`` from ``table``, imported now and kept in ``namespace``
    (the package's ``globals()``).

    Raises
    ------
    AttributeError
        If ``name`` is not in ``table``.
    """
    entry = table.get(name)
    if entry is None:
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
    module_name, attribute = (entry, name) if isinstance(entry, str) else entry
    module = importlib.import_module(module_name, namespace["__name__"])
    value = module if attribute is None else getattr(module, attribute)
    namespace[name] = value
    return value


def lazy_dir(namespace: Mapping[str, Any], table: Mapping[str, Entry]) -> list[str]:
    """The package's names: those already loaded and those ``table`` serves."""
    return sorted(set(namespace) | set(table))
