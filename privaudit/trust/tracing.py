"""Tracing a seeded release: which code runs when a mechanism is built and used.

A mechanism calls most of its helpers by name, invisibly to a static walk of the object, so
:func:`trace_release` *runs* it under :func:`sys.setprofile` (the factory, the gray-box
hooks on seeded inputs, and :data:`TRACE_OUTPUTS` outputs) and records every Python function
that executes, our own caches emptied first.  It keeps the functions the caller's filter
passes, never the :data:`MACHINERY`.  Mechanisms run in the calling thread, the one traced.

Details: ``docs/engine_notes.md``, "privaudit.trust.tracing".
"""

from __future__ import annotations

import contextlib
import dis
import importlib.util
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType, FrameType
from typing import Any

import numpy as np

from privaudit.first_party import OWN_PACKAGES
from privaudit.mechanisms import Mechanism
from privaudit.spec.errors import CertificateError, PrivauditError
from privaudit.trust.source_units import module_file

__all__ = [
    "MACHINERY",
    "TRACE_OUTPUTS",
    "TRACE_RANDOM_INPUTS",
    "TRACE_SEED",
    "TracedRelease",
    "trace_release",
]

#: Seed of the traced release (inputs and outputs).
TRACE_SEED = 20_240_915
#: Random inputs drawn from the spec's input domain (besides two extreme elements).
TRACE_RANDOM_INPUTS = 2
#: Outputs sampled on each traced input.
TRACE_OUTPUTS = 16

#: The gray-box hooks the auditor evaluates; each one the mechanism provides is traced.
_HOOKS = ("statistic", "local_sensitivity_bound", "smooth_sensitivity")

#: Modules of the tracing machinery itself and of the loaders that call a factory (the
#: registry's entry wrapper, the command-line target loader): they run during the trace,
#: they are not the mechanism's code.
MACHINERY = frozenset(
    {
        "privaudit.trust.tracing",
        "privaudit.trust.source_units",
        "privaudit.trust.certificates",
        "privaudit.trust.implementation",
        "privaudit.first_party",
        "privaudit.trust.provenance",
        "privaudit.trust.registry",
        "privaudit.trust.targets",
    }
)


@dataclass(frozen=True)
class TracedRelease:
    """What :func:`trace_release` saw run.

    Attributes
    ----------
    mechanism : Mechanism
        The mechanism traced (built by the factory when one was given).
    functions : frozenset of (str, str)
        ``(module, qualname)`` of every Python code object that ran and passed the filter.
    files : dict
        Module name → its source file, for every module in ``functions``.
    inputs : int
        Number of domain inputs the release was traced on.
    """

    mechanism: Mechanism
    functions: frozenset[tuple[str, str]]
    files: dict[str, str]
    inputs: int


def _imported_modules(code: CodeType, package: str | None) -> set[str]:
    """The loaded modules that ``code`` imports (``import a.b``, ``from . import c``,
    ``from .d import e``), read from its bytecode: the import statements themselves, not
    whether they ran module code this time."""
    found: set[str] = set()
    instructions = list(dis.get_instructions(code))
    for i, ins in enumerate(instructions):
        if ins.opname != "IMPORT_NAME":
            continue
        previous = instructions[max(i - 2, 0) : i]
        constants = [p.argval for p in previous if p.opname == "LOAD_CONST"]
        level = constants[0] if len(constants) == 2 and isinstance(constants[0], int) else 0
        fromlist = constants[-1] if constants and isinstance(constants[-1], tuple) else ()
        name = str(ins.argval or "")
        try:
            base = importlib.util.resolve_name("." * level + name, package) if level else name
        except (ImportError, ValueError):
            continue
        for candidate in (base, *(f"{base}.{item}" for item in fromlist)):
            if candidate in sys.modules:
                found.add(candidate)
    return found


def _clear_own_caches() -> None:
    for name, module in list(sys.modules.items()):
        if module is None or name.partition(".")[0] not in OWN_PACKAGES:
            continue
        for value in list(vars(module).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and callable(getattr(value, "__wrapped__", None)):
                clear()


def _domain_inputs(mech: Mechanism, rng: np.random.Generator) -> list[Any]:
    domain = mech.spec.input_domain
    inputs: list[Any] = []
    with contextlib.suppress(PrivauditError, NotImplementedError):
        # a domain without extreme elements: random inputs only
        inputs.extend(list(domain.extremes())[:2])
    inputs.extend(domain.sample(rng) for _ in range(TRACE_RANDOM_INPUTS))
    return inputs


def _release(mech: Mechanism, seed: int) -> int:
    """Hooks and outputs on the traced inputs; returns how many inputs were used."""
    rng = np.random.default_rng(seed)
    inputs = _domain_inputs(mech, rng)
    for data in inputs:
        for hook in _HOOKS:
            if mech.provides(hook):
                # an input a hook refuses still ran the code that refused it
                with contextlib.suppress(PrivauditError):
                    getattr(mech, hook)(data)
        mech.sample(data, TRACE_OUTPUTS, rng)
    return len(inputs)


def trace_release(
    mechanism: Mechanism | None = None,
    *,
    factory: Callable[[], Any] | None = None,
    include: Callable[[str], bool],
    seed: int = TRACE_SEED,
) -> TracedRelease:
    """Run a seeded release of a mechanism and record the code that ran.

    Parameters
    ----------
    mechanism : Mechanism, optional
        The mechanism to trace; needed unless ``factory`` is given.
    factory : callable, optional
        Zero-argument callable that builds the mechanism; when given, the build is
        traced too and the mechanism it returns is the one released.
    include : callable
        ``include(module_name)`` says whether code of that module is recorded.
    seed : int
        Seed of the inputs and outputs (default :data:`TRACE_SEED`).

    Returns
    -------
    TracedRelease

    Raises
    ------
    CertificateError
        If neither a mechanism nor a factory is given, the factory does not return a
        mechanism, or the release fails with an error outside our hierarchy.
    """
    if mechanism is None and factory is None:
        raise CertificateError("trace_release needs a mechanism or a factory")
    _clear_own_caches()
    seen: dict[CodeType, dict[str, Any]] = {}

    def profiler(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            if code not in seen:
                seen[code] = frame.f_globals

    previous = sys.getprofile()
    previous_threads = threading.getprofile() if hasattr(threading, "getprofile") else None
    threading.setprofile(profiler)
    sys.setprofile(profiler)
    try:
        mech = factory() if factory is not None else mechanism
        if not isinstance(mech, Mechanism):
            raise CertificateError(f"the factory returned {type(mech).__name__}, not a Mechanism")
        inputs = _release(mech, seed)
    except PrivauditError:
        raise
    except Exception as err:
        raise CertificateError(
            f"the traced release of {getattr(mechanism, 'name', factory)!r} failed: "
            f"{type(err).__name__}: {err}"
        ) from err
    finally:
        sys.setprofile(previous)
        threading.setprofile(previous_threads)
    functions: set[tuple[str, str]] = set()
    files: dict[str, str] = {}

    def record(module: str, qualname: str) -> None:
        if module not in files:
            file = module_file(module)
            if file is None:
                return  # code without a source file (generated, compiled)
            files[module] = file
        functions.add((module, qualname))

    for code, namespace in seen.items():
        module = namespace.get("__name__")
        if not isinstance(module, str) or module in MACHINERY or not include(module):
            continue
        record(module, code.co_qualname)
        # a module imported inside a traced function runs its top level only the first
        # time: record it as that first time would, so that the trace does not depend on
        # what the process imported before (a warm numba kernel, an earlier certificate)
        for imported in _imported_modules(code, namespace.get("__package__")):
            if imported not in MACHINERY and include(imported):
                record(imported, "<module>")
    return TracedRelease(mechanism=mech, functions=frozenset(functions), files=files, inputs=inputs)
