"""The shortcuts an audit took, and on what each rests: the report's ``assumptions``.

The rule (``docs/trust.md``, "Shortcuts and assumptions"): every shortcut that saves the
auditor work is **proven** from a fact of the declaration, **checked** on the sampler's own
outputs with its share of α, or **not taken**.  Where a shortcut is only partly checked (a
screen of coordinate pairs, a sample of nodes, a δ profile over some pairs), it is listed
here as ``unchecked`` with what was and was not examined, and the word "exact" is not used
for a figure that rests on it.  This module is the one place that reads the checks'
details into that list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from privaudit.auditing.outcome.results import CheckOutcome
from privaudit.spec import SpecModel

__all__ = ["Assumption", "audit_assumptions"]


class Assumption(SpecModel):
    """One shortcut of an audit.

    Attributes
    ----------
    shortcut : str
        What the audit did not examine in full (e.g. "coordinates are independent").
    status : {"proven", "checked", "unchecked"}
        Proven from the declaration, checked on the sampler's outputs, or relied on as
        declared (or examined in part only).
    basis : str
        How it was proven or checked, or what was left out.
    check : str
        The check whose work it saved.
    """

    shortcut: str
    status: Literal["proven", "checked", "unchecked"]
    basis: str
    check: str = ""


def _independence(check: CheckOutcome) -> Assumption | None:
    design = check.details.get("independence_design")
    if design is None:
        return None
    tested = check.details.get("independence_pairs_tested")
    total = check.details.get("independence_pairs_total")
    if design == "all_pairs":
        return Assumption(
            shortcut="coordinates declared independent are independent",
            status="checked",
            basis=f"every one of the {total} coordinate pairs tested against the product of "
            "its declared rows, on the sampler's outputs",
            check=check.name,
        )
    return Assumption(
        shortcut="coordinates declared independent are independent",
        status="unchecked",
        basis=f"{tested} of {total} coordinate pairs tested "
        + (
            "(the most dependent after a screen of every pair on half the samples)"
            if design == "screened"
            else "(at random: the release is too wide to screen)"
        ),
        check=check.name,
    )


def _locality(check: CheckOutcome) -> Assumption | None:
    coverage = check.details.get("node_coverage")
    if not isinstance(coverage, str):
        return None
    every = coverage.startswith("every")
    return Assumption(
        shortcut="every node's message reads its own adjacency list only",
        status="checked" if every else "unchecked",
        basis=f"examined on {coverage}",
        check=check.name,
    )


def _ranked_pairs(check: CheckOutcome) -> Assumption | None:
    inputs = check.details.get("inputs_tested")
    if inputs is None:
        return None
    tied = ", or tied with them," if check.details.get("pairs_tied") else ""
    return Assumption(
        shortcut=f"pairs ranked below the tested ones by the declared law{tied} are no worse "
        "on the sampler",
        status="checked",
        basis=f"the declared law tested at every one of the {inputs} inputs of the "
        f"{check.details.get('pairs_ranked')} ranked pairs"
        + (" and of the finite domain" if check.details.get("whole_domain") else "")
        + " "
        f"({check.details.get('draws_per_input')} draws each); the pairs at an input where "
        "it fails are tested",
        check=check.name,
    )


def _exact_profile(exact: Any) -> list[Assumption]:
    if exact is None:
        return []
    found = []
    if exact.coverage != "all_pairs":
        found.append(
            Assumption(
                shortcut="the exact ε covers every input",
                status="unchecked",
                basis=f"exact over the {exact.pairs_examined} searched pairs of "
                f"{exact.inputs_examined} inputs: a lower bound on the mechanism's ε",
                check="exact.privacy",
            )
        )
    if getattr(exact, "profile_coverage", "all_pairs") == "largest_epsilon_pairs":
        found.append(
            Assumption(
                shortcut="the exact δ(ε) profile covers every pair",
                status="unchecked",
                basis=f"computed over the {exact.profile_pairs} ordered pairs of largest ε "
                "only: a lower bound on δ(ε)",
                check="exact.privacy",
            )
        )
    return found


_READERS = {
    "noise_law": _independence,
    "lndp.locality": _locality,
    "noise_law.ranked_pairs": _ranked_pairs,
}


def audit_assumptions(checks: Sequence[CheckOutcome], exact: Any = None) -> tuple[Assumption, ...]:
    """The assumptions of an audit, read from its checks and its exact result."""
    found: list[Assumption] = []
    for check in checks:
        reader = _READERS.get(check.name)
        item = reader(check) if reader is not None else None
        if item is not None and item not in found:
            found.append(item)
    found += _exact_profile(exact)
    return tuple(found)
