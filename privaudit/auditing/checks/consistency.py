"""Spec consistency: the spec re-validates from its JSON and agrees with the mechanism.

:func:`check_spec_consistency` (``"spec.consistency"``) checks that the spec round-trips
through JSON and that every parameter the mechanism exposes as an attribute (``epsilon``,
``noise_law``, ``output_dimension``, …) equals the spec's value, up to round-off.  A
mismatch is ``"violated"``, naming both values; the check is deterministic (``error_rate``
0).

Details (the attribute table): ``docs/engine_notes.md``,
"privaudit.auditing.checks.consistency".
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

from privaudit.auditing.outcome.results import CheckOutcome, jsonable_details
from privaudit.mechanisms import Mechanism
from privaudit.spec import (
    GaussianDP,
    MechanismSpec,
    NoisyArgmax,
    PureDP,
    RandomizedResponse,
    SmoothSensitivityNoise,
    VectorDomain,
    public_randomness_digest,
)
from privaudit.spec.errors import PrivauditError

__all__ = ["ATTRIBUTE_TOLERANCE", "check_spec_consistency"]

#: Relative tolerance for numeric attributes (round-off of a float(…) conversion only).
ATTRIBUTE_TOLERANCE = 1e-12

_NAME = "spec.consistency"
_ABSENT = object()


def _guarantee_value(field: str) -> Callable[[MechanismSpec], Any]:
    def read(spec: MechanismSpec) -> Any:
        g = spec.guarantee
        if field == "delta" and isinstance(g, PureDP):
            return 0.0
        if field == "epsilon" and isinstance(g, GaussianDP):
            return _ABSENT  # GDP has no single ε; a mechanism's ε is then its own choice
        return getattr(g, field, _ABSENT)

    return read


def _noise_value(
    field: str, kinds: tuple[type, ...] | None = None
) -> Callable[[MechanismSpec], Any]:
    def read(spec: MechanismSpec) -> Any:
        noise = spec.noise
        if noise is None or (kinds is not None and not isinstance(noise, kinds)):
            return _ABSENT
        return getattr(noise, field, _ABSENT)

    return read


def _beta(spec: MechanismSpec) -> Any:
    claim = spec.smooth_sensitivity_claim
    return _ABSENT if claim is None else claim.beta


def _candidates(spec: MechanismSpec) -> Any:
    if isinstance(spec.noise, NoisyArgmax) and isinstance(spec.input_domain, VectorDomain):
        return spec.input_domain.length
    return _ABSENT


def _categories(spec: MechanismSpec) -> Any:
    if isinstance(spec.noise, RandomizedResponse):
        return spec.noise.law.categories
    return _ABSENT


#: attribute name → how to read the corresponding value from the spec.
_SPEC_VALUES: dict[str, Callable[[MechanismSpec], Any]] = {
    "noise_law": _noise_value("law"),
    "law": _noise_value("law"),
    "epsilon": _guarantee_value("epsilon"),
    "delta": _guarantee_value("delta"),
    "rho": _guarantee_value("rho"),
    "mu": _guarantee_value("mu"),
    "alpha": _noise_value("alpha", (SmoothSensitivityNoise,)),
    "beta": _beta,
    "output_dimension": lambda spec: spec.output_dimension,
    "monotone": _noise_value("monotone", (NoisyArgmax,)),
    "candidates": _candidates,
    "categories": _categories,
}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a) == bool(b) and isinstance(a, bool) == isinstance(b, bool)
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        fa, fb = float(a), float(b)
        if math.isnan(fa) or math.isnan(fb):
            return False
        return fa == fb or math.isclose(fa, fb, rel_tol=ATTRIBUTE_TOLERANCE, abs_tol=0.0)
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an incomparable value is a mismatch
        return False


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def _digest_problem(mechanism: Mechanism) -> dict[str, str] | None:
    """The declared digest of the public randomness against the mechanism's realised ρ."""
    public = getattr(mechanism.spec.relation, "public_randomness", None)
    declared = getattr(public, "digest", None)
    rho = getattr(mechanism, "rho", None)
    if declared is None or rho is None:
        return None
    try:
        actual = public_randomness_digest(rho)
    except PrivauditError as err:
        actual = f"<no digest: {err}>"
    if actual == declared:
        return None
    return {
        "attribute": "rho (public randomness digest)",
        "mechanism": actual,
        "spec": declared,
        "why": f"the spec pins public randomness {declared} but the mechanism's rho has the "
        f"digest {actual}",
    }


def check_spec_consistency(mechanism: Mechanism) -> CheckOutcome:
    """Check that the spec round-trips through JSON and matches the mechanism's attributes.

    Parameters
    ----------
    mechanism : Mechanism
        Any mechanism; attributes it does not expose are not compared.

    Returns
    -------
    CheckOutcome
        ``"violated"`` when the spec does not re-validate from its JSON (with its own
        class, :class:`~spec.MechanismSpec` or a subclass of it), is not equal to
        its round trip, or an attribute differs from the spec (``details["mismatches"]``
        lists attribute, mechanism value and spec value); ``statistic`` is the number of
        mismatches; ``error_rate`` 0.
    """
    spec = mechanism.spec
    problems: list[dict[str, str]] = []
    try:
        # read back with the spec's own class: a MechanismSpec subclass that narrows a
        # field (e.g. to a relation defined outside spec) round-trips through that class
        again = type(spec).from_json(spec.to_json())
        if again != spec:
            problems.append(
                {
                    "attribute": "spec (JSON round trip)",
                    "mechanism": spec.content_hash,
                    "spec": again.content_hash,
                    "why": "the spec read back from its JSON differs from the spec",
                }
            )
    except PrivauditError as err:
        problems.append(
            {
                "attribute": "spec (JSON round trip)",
                "mechanism": "",
                "spec": "",
                "why": f"the spec does not re-validate from its JSON: {err}",
            }
        )
    compared: list[str] = []
    not_in_spec: list[str] = []
    not_claims: frozenset[str] = getattr(type(mechanism), "non_claim_attributes", frozenset())
    for attribute, read in _SPEC_VALUES.items():
        if attribute in not_claims:
            continue
        try:
            value = getattr(mechanism, attribute, _ABSENT)
        except Exception as err:  # noqa: BLE001 - a property that raises is reported
            problems.append(
                {
                    "attribute": attribute,
                    "mechanism": f"<raised {err!r}>",
                    "spec": "",
                    "why": "reading the attribute raised",
                }
            )
            continue
        # an unset attribute (a wrapper's ``None``) is not a claim
        if (
            value is _ABSENT
            or value is None
            or callable(value)
            and not hasattr(value, "model_dump")
        ):
            continue
        expected = read(spec)
        if expected is _ABSENT:
            if value is not None:
                not_in_spec.append(attribute)
            continue
        compared.append(attribute)
        if not _same(value, expected):
            problems.append(
                {
                    "attribute": attribute,
                    "mechanism": _show(value),
                    "spec": _show(expected),
                    "why": f"mechanism.{attribute} = {_show(value)} but the spec says "
                    f"{_show(expected)}",
                }
            )
    digest = _digest_problem(mechanism)
    if digest is not None:
        problems.append(digest)
    violated = bool(problems)
    if violated:
        summary = "; ".join(p["why"] for p in problems)
    else:
        summary = (
            f"the spec re-validates from its JSON and the mechanism's "
            f"{', '.join(compared) if compared else 'exposed parameters'} match it"
        )
    return CheckOutcome(
        name=_NAME,
        status="violated" if violated else "passed",
        summary=summary,
        statistic=float(len(problems)),
        threshold=0.0,
        error_rate=0.0,
        details=jsonable_details(
            compared=compared,
            mismatches=problems,
            not_in_spec=not_in_spec,
            spec_hash=spec.content_hash,
            tolerance=ATTRIBUTE_TOLERANCE,
        ),
    )
