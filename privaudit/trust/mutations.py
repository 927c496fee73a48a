"""The mutation check: does a certificate notice an edit to any function that runs?

:func:`mutation_check` measures a certificate's coverage independently of how it found its
code: it records every function of our packages that runs under :func:`sys.settrace` (with
another seed, :data:`CHECK_SEED`), inserts one statement into each in memory
(:func:`privaudit.trust.source_units.substituted_sources`, no file is touched), and counts
the mutation as caught when the hash changes and the stale reason names the function.

Details: ``docs/engine_notes.md``, "privaudit.trust.mutations"; ``docs/trust.md``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import numpy as np

from privaudit.first_party import OWN_PACKAGES
from privaudit.mechanisms import Mechanism
from privaudit.trust.implementation import (
    Implementation,
    code_changes,
    current_implementation,
    implementation_of,
)
from privaudit.trust.source_units import (
    enclosing_function,
    module_file,
    read_source,
    substituted_sources,
)
from privaudit.trust.tracing import MACHINERY

__all__ = [
    "CHECK_SEED",
    "MUTANT_STATEMENT",
    "MutationResult",
    "executed_functions",
    "insert_statement",
    "mutation_check",
]

#: Seed of the independent run's inputs (differs from the certificate's trace seed).
CHECK_SEED = 7_919
#: The statement inserted into a function's body.
MUTANT_STATEMENT = "__privaudit_mutant__ = None"

_PACKAGES = OWN_PACKAGES
_HOOKS = ("statistic", "local_sensitivity_bound", "smooth_sensitivity")
#: Not the mechanism's code: this module, and the tracing and loading machinery that a
#: certificate deliberately leaves out (:data:`privaudit.trust.tracing.MACHINERY`).
_OWN = MACHINERY | {"privaudit.trust.mutations"}


@dataclass(frozen=True)
class MutationResult:
    """The outcome of :func:`mutation_check` for one mechanism.

    Attributes
    ----------
    name : str
        The mechanism or registry entry checked.
    executed : int
        Functions of our packages that ran in the independent run.
    tried : int
        Mutations made (one per function checked that has a body to insert into).
    caught : int
        Mutations that changed the hash and whose stale reason named the function.
    missed : tuple of str
        ``module:qualname`` of every mutation not caught.
    """

    name: str
    executed: int
    tried: int
    caught: int
    missed: tuple[str, ...] = field(default=())

    @property
    def all_caught(self) -> bool:
        """True when every mutation tried was caught."""
        return self.caught == self.tried


def executed_functions(
    factory: Callable[[], Mechanism], *, seed: int = CHECK_SEED, inputs: int = 3, outputs: int = 8
) -> tuple[Mechanism, set[tuple[str, str]]]:
    """Build and run a mechanism under :func:`sys.settrace`; the functions of our packages
    that executed, as ``(module, qualname)``, and the mechanism built."""
    seen: set[tuple[str, str]] = set()

    def tracer(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            module = frame.f_globals.get("__name__")
            if (
                isinstance(module, str)
                and module.partition(".")[0] in _PACKAGES
                and module not in _OWN
            ):
                seen.add((module, frame.f_code.co_qualname))
        return None  # no line events: calls are all we need

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        mech = factory()
        rng = np.random.default_rng(seed)
        domain = mech.spec.input_domain
        data = [domain.sample(rng) for _ in range(inputs)]
        for x in data:
            for hook in _HOOKS:
                if mech.provides(hook):
                    getattr(mech, hook)(x)
            mech.sample(x, outputs, rng)
    finally:
        sys.settrace(previous)
    return mech, seen


def _function_nodes(tree: ast.AST) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                found.setdefault(name, child)
                visit(child, f"{name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def insert_statement(text: str, qualname: str, statement: str = MUTANT_STATEMENT) -> str | None:
    """``text`` with ``statement`` inserted as the first statement of function ``qualname``
    (after its docstring); None when the function is not found or has no separate body line."""
    tree = ast.parse(text)
    node = _function_nodes(tree).get(qualname)
    if node is None:
        return None
    body = node.body
    first = (
        body[1]
        if (
            len(body) > 1
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        )
        else body[0]
    )
    if first.lineno == node.lineno:  # ``def f(): return x`` on one line
        return None
    lines = text.splitlines(keepends=True)
    indent = " " * first.col_offset
    lines.insert(first.lineno - 1, f"{indent}{statement}\n")
    return "".join(lines)


def mutation_check(
    factory: Callable[[], Mechanism],
    *,
    name: str | None = None,
    recorded: Implementation | None = None,
    select: Callable[[Sequence[tuple[str, str]]], Sequence[tuple[str, str]]] | None = None,
) -> MutationResult:
    """Mutate every function that runs and check that the certificate's hash notices.

    Parameters
    ----------
    factory : callable
        Builds the mechanism (a registry entry's ``create``).
    name : str, optional
        Label of the result.
    recorded : Implementation, optional
        What the certificate covers; default :func:`~privaudit.trust.certificates.implementation_of`
        the factory's mechanism, as ``privaudit certify`` computes it.
    select : callable, optional
        Picks the executed functions to mutate (e.g. a seeded sample); default all.

    Returns
    -------
    MutationResult
    """
    if recorded is None:
        recorded = implementation_of(factory=factory)
    mech, executed = executed_functions(factory)
    candidates = sorted(executed)
    if select is not None:
        candidates = list(select(candidates))
    tried, caught, missed = 0, 0, []
    done: set[tuple[str, str]] = set()
    for module, qualname in candidates:
        file = module_file(module)
        if file is None:
            continue
        source = read_source(file)
        target = enclosing_function(qualname, source.functions)
        if target is None or (module, target) in done:
            continue  # module or class body; or a lambda of a function already mutated
        done.add((module, target))
        with open(file, encoding="utf-8") as handle:
            mutated = insert_statement(handle.read(), target)
        if mutated is None:
            continue
        tried += 1
        with substituted_sources({file: mutated}):
            now = current_implementation(recorded, mech)
        changes = code_changes(recorded, now)
        if now.hash != recorded.hash and module in changes and target in changes:
            caught += 1
        else:
            missed.append(f"{module}:{target}")
    return MutationResult(
        name=name or mech.name,
        executed=len(executed),
        tried=tried,
        caught=caught,
        missed=tuple(missed),
    )
