"""Command-line targets: ``package.module:name`` or ``path/to/file.py:name``.

A target names a :class:`~mechanisms.Mechanism`, or a zero-argument factory that returns
one; ``name`` may be dotted.  The target is **executed as Python code** with the rights of
the user who runs privaudit: audit, certify or verify only files you would run yourself.
Every failure is an :class:`~spec.errors.AuditError` (or the factory's own error, if it is
one of ours) whose one-line message names the target.

Details: ``docs/engine_notes.md``, "privaudit.trust.targets".
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from privaudit.mechanisms import Mechanism
from privaudit.spec.errors import AuditError, PrivauditError

__all__ = ["load_target", "split_target", "target_factory", "target_object"]

_FORMS = "'package.module:name' or 'path/to/file.py:name'"


def split_target(text: str) -> tuple[str, str]:
    """Split ``text`` into (module or file, attribute path); :class:`AuditError` if malformed."""
    if not isinstance(text, str) or ":" not in text:
        raise AuditError(f"target must be {_FORMS}, got {text!r}")
    where, _, attr = text.rpartition(":")
    if not where or not attr or not all(part.isidentifier() for part in attr.split(".")):
        raise AuditError(f"target must be {_FORMS}, got {text!r}")
    return where, attr


def _is_file(where: str) -> bool:
    return where.endswith(".py") or "/" in where or os.sep in where


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


def _import_module(name: str, target: str) -> ModuleType:
    if not all(part.isidentifier() for part in name.split(".")):
        raise AuditError(f"target {target!r}: {name!r} is not a module name; use {_FORMS}")
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name is not None and (name == err.name or name.startswith(err.name + ".")):
            raise AuditError(f"target {target!r}: no module named {err.name!r}") from None
        raise AuditError(
            f"target {target!r}: importing {name!r} failed: {_one_line(err)}"
        ) from None
    except Exception as err:  # noqa: BLE001 - user code may raise anything on import
        raise AuditError(
            f"target {target!r}: importing {name!r} failed: {_one_line(err)}"
        ) from None


def _load_file(where: str, target: str) -> ModuleType:
    path = Path(where).expanduser()
    if not path.is_file():
        raise AuditError(f"target {target!r}: no such file {where!r}")
    if path.suffix != ".py":
        raise AuditError(f"target {target!r}: {where!r} is not a .py file")
    path = path.resolve()
    stem = path.stem if path.stem.isidentifier() else "_target"
    existing = sys.modules.get(stem)
    if existing is not None and getattr(existing, "__file__", None) == str(path):
        return existing
    name = (
        stem if existing is None else f"{stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    )
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - .py files always have one
        raise AuditError(f"target {target!r}: cannot load {where!r} as a module")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    sys.modules[name] = module  # so that classes defined in the file find their source
    try:
        spec.loader.exec_module(module)
    except BaseException as err:
        del sys.modules[name]
        if isinstance(err, (KeyboardInterrupt, SystemExit)):
            raise
        raise AuditError(
            f"target {target!r}: executing {where!r} failed: {_one_line(err)}"
        ) from None
    return module


def _resolve(module: ModuleType, attr: str, target: str) -> Any:
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AuditError(
                f"target {target!r}: {module.__name__!r} has no attribute {attr!r}"
            ) from None
    return obj


def target_object(text: str) -> Any:
    """The object a command-line target names, whatever it is (the module or file is
    imported, that is, executed, now).

    Raises
    ------
    AuditError
        If the target is malformed, cannot be loaded or lacks the attribute.
    """
    where, attr = split_target(text)
    module = _load_file(where, text) if _is_file(where) else _import_module(where, text)
    return _resolve(module, attr, text)


def target_factory(text: str) -> Callable[[], Mechanism]:
    """A zero-argument callable that builds the mechanism a command-line target names.

    The module or file is imported (executed) now; the factory is only checked.  For a
    target that names a mechanism object, the callable returns that object.  Calling
    the result raises as :func:`load_target` describes.  Certificates trace this
    callable so that the code that builds the mechanism is covered.

    Raises
    ------
    AuditError
        If the target is malformed or cannot be loaded, or names something that is
        neither a mechanism nor a zero-argument callable.
    """
    obj = target_object(text)
    if isinstance(obj, Mechanism):
        return lambda: obj
    if not callable(obj):
        raise AuditError(
            f"target {text!r} is a {type(obj).__name__}, not a Mechanism or a zero-argument factory"
        )
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        signature = None
    if signature is not None:
        try:
            signature.bind()
        except TypeError:
            needed = [
                p.name
                for p in signature.parameters.values()
                if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            ]
            raise AuditError(
                f"target {text!r} is a callable that needs arguments "
                f"({', '.join(needed)}); name a mechanism or a zero-argument "
                "factory"
            ) from None

    def build() -> Mechanism:
        try:
            made = obj()
        except PrivauditError as err:
            raise type(err)(
                f"target {text!r}: the factory raised {type(err).__name__}: "
                f"{str(err).splitlines()[0] if str(err) else ''}"
            ) from None
        except Exception as err:  # noqa: BLE001 - a user's factory may raise anything
            raise AuditError(f"target {text!r}: the factory raised {_one_line(err)}") from None
        if not isinstance(made, Mechanism):
            raise AuditError(
                f"target {text!r}: the factory returned a {type(made).__name__}, not a Mechanism"
            )
        return made

    return build


def load_target(text: str) -> Mechanism:
    """The mechanism a command-line target names.

    The target's module or file is imported, which *executes it as Python code*: name
    only files you trust.

    Parameters
    ----------
    text : str
        ``package.module:name`` or ``path/to/file.py:name``; ``name`` is a mechanism or a
        zero-argument factory that returns one.

    Returns
    -------
    Mechanism

    Raises
    ------
    AuditError
        If the target is malformed or cannot be loaded, or does not give a mechanism.
    PrivauditError
        The error of our hierarchy a factory raised (e.g. an
        :class:`~spec.errors.InconsistentSpecError` of a bad spec), its message prefixed
        with the target.
    """
    return target_factory(text)()
