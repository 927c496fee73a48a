"""Source units: the files and functions a certificate hashes, read from disk.

A module is hashed as its source file (line endings normalised); a function as the source
text of one ``def``, keyed ``module:qualname``, so a stale certificate can name what
changed.  Every read goes through :func:`read_source` (one parsed copy per content digest);
:func:`substituted_sources` makes it see other text for some files without touching them
(:mod:`privaudit.trust.mutations`).

Details: ``docs/engine_notes.md``, "privaudit.trust.source_units".
"""

from __future__ import annotations

import ast
import gc
import hashlib
import importlib.util
import sys
import textwrap
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from privaudit.spec.errors import CertificateError

__all__ = [
    "SourceFile",
    "enclosing_function",
    "module_file",
    "read_source",
    "substituted_sources",
]


def _digest(data: bytes) -> str:
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


@dataclass(frozen=True)
class SourceFile:
    """One source file: its digest and the digest of every function it defines.

    Attributes
    ----------
    path : str
        The file read.
    digest : str
        ``sha256:<hex>`` of the file's bytes with ``\\r\\n`` normalised to ``\\n``.
    functions : dict
        Qualified name → ``sha256:<hex>`` of the function's dedented source text
        (decorators included).  Two definitions with the same qualified name (a function
        defined in both branches of an ``if``) are hashed together.
    """

    path: str
    digest: str
    functions: dict[str, str]


#: The nodes a ``def`` or ``class`` can sit in: statements (bodies of modules, classes,
#: functions, ``if``/``for``/``while``/``with``/``try``), ``except`` handlers and ``case``
#: blocks.  Expressions never hold one, so the walk skips them (most of a tree's nodes).
_STATEMENT_NODES = (ast.stmt, ast.excepthandler, ast.match_case)


def _function_digests(text: str, path: str) -> dict[str, str]:
    # the tree is ~10⁴ acyclic objects per file: the cyclic collector has nothing to free
    # in it, and running it during the parse took ~60 % of the time of hashing a registry
    # (``privaudit list``), so it is paused for the parse and the walk
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _parsed_function_digests(text, path)
    finally:
        if collecting:
            gc.enable()


def _parsed_function_digests(text: str, path: str) -> dict[str, str]:
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError:
        return {}  # the file digest still changes; no function can be named
    lines = text.splitlines(keepends=True)
    segments: dict[str, list[str]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = f"{prefix}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                end = child.end_lineno or child.lineno
                segments.setdefault(qualname, []).append(
                    textwrap.dedent("".join(lines[first - 1 : end]))
                )
                visit(child, f"{qualname}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, _STATEMENT_NODES):
                visit(child, prefix)

    visit(tree, "")
    return {name: _digest("\n".join(parts).encode()) for name, parts in segments.items()}


_lock = threading.Lock()
_parsed: dict[tuple[str, str], SourceFile] = {}
_substitutes: dict[str, bytes] = {}


@contextmanager
def substituted_sources(texts: Mapping[str | Path, str]) -> Iterator[None]:
    """Within the block, :func:`read_source` of each path in ``texts`` reads that text.

    The files are not touched.  Meant for checking what an edit would do to a hash; the
    substitution is process-wide, so do not hash other things concurrently.
    """
    added = {str(Path(path)): text.encode("utf-8") for path, text in texts.items()}
    with _lock:
        saved = dict(_substitutes)
        _substitutes.update(added)
    try:
        yield
    finally:
        with _lock:
            _substitutes.clear()
            _substitutes.update(saved)


def read_source(path: str | Path) -> SourceFile:
    """The :class:`SourceFile` of ``path`` as it is on disk now.

    Raises
    ------
    CertificateError
        If the file cannot be read (the message names it).
    """
    name = str(path)
    with _lock:
        substitute = _substitutes.get(name)
    try:
        raw = substitute if substitute is not None else Path(name).read_bytes()
    except OSError as err:
        raise CertificateError(f"cannot read the source file {name!r}: {err}") from None
    data = raw.replace(b"\r\n", b"\n")
    digest = _digest(data)
    with _lock:
        found = _parsed.get((name, digest))
    if found is None:
        text = data.decode("utf-8", errors="replace")
        found = SourceFile(path=name, digest=digest, functions=_function_digests(text, name))
        with _lock:
            if len(_parsed) > 4096:  # many edited versions of many files: start afresh
                _parsed.clear()
            _parsed[(name, digest)] = found
    return found


def module_file(name: str) -> str | None:
    """The source file of module ``name``: from ``sys.modules``, else found on ``sys.path``.

    Returns None when the module has no Python source file (built-in, compiled, gone).
    """
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None) if module is not None else None
    if file is None:
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError, AttributeError):
            found = None
        file = found.origin if found is not None and found.has_location else None
    if file is None or not str(file).endswith(".py") or not Path(file).is_file():
        return None
    return str(file)


def enclosing_function(qualname: str, functions: dict[str, str]) -> str | None:
    """The name in ``functions`` that a traced code object's ``qualname`` belongs to.

    Lambdas, comprehensions and generator expressions belong to the function around
    them; code outside any function (a module or class body) belongs to none.
    """
    parts = qualname.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in functions:
            return candidate
        parts.pop()
        if parts and parts[-1] == "<locals>":
            parts.pop()
    return None
