"""The accuracy claim of a spec, tested on samples: H0: P[error > α] ≤ β at every input.

At each audited input x (the first distinct inputs of the candidate pairs: the domain's
extremes, random data sets and the user's explicit pairs), ``samples`` outputs are drawn
and their errors against the ``statistic`` hook f(x) are counted above the claimed α.
The claim is refuted at x when the one-sided Clopper–Pearson lower bound on
P[error > α], at level α_acc/m (Bonferroni over the m inputs), exceeds β: the exact
binomial test, so a true claim is refuted with probability at most α_acc, the check's
share of the audit's α.  The report gives, at the worst input, the measured (1 − β)
quantile of the error with its exact order-statistic interval (the quantile's dual of
Clopper–Pearson) and, when the claim names a lower bound, the efficiency ratios claimed α
÷ bound and measured quantile ÷ bound.  A refuted claim is a finding; an unrefuted one
is not a proof of accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats

from privaudit.auditing.checks._common import check_count, input_key, skipped
from privaudit.auditing.outcome.results import CheckOutcome, jsonable_details, pair_counterexample
from privaudit.auditing.sampler_outputs import draw_outputs
from privaudit.mechanisms import Mechanism, accuracy_lower_bound
from privaudit.spec import AccuracyClaim, check_alpha
from privaudit.spec.errors import InvalidParameterError
from privaudit.statistics import cp_lower, cp_upper

__all__ = [
    "ACCURACY_INPUTS",
    "accuracy_check_applies",
    "accuracy_errors",
    "check_accuracy",
    "quantile_interval",
]

#: Distinct inputs at which the claim is tested (the first of the candidate pairs).
ACCURACY_INPUTS = 4
_NAME = "accuracy"


def accuracy_check_applies(mechanism: Mechanism) -> bool:
    """The spec claims accuracy against f(x) and the mechanism provides ``statistic``."""
    claim = mechanism.spec.accuracy
    return claim is not None and claim.target == "statistic" and mechanism.provides("statistic")


def accuracy_errors(outputs: Any, centre: Any, error: str) -> np.ndarray:
    """The error of each output against ``centre`` in the claim's norm (one per row)."""
    out = np.asarray(outputs, dtype=np.float64)
    diff = out - np.asarray(centre, dtype=np.float64)
    if diff.ndim == 1:
        return np.abs(diff)
    if error == "l1":
        return np.asarray(np.sum(np.abs(diff), axis=1))
    if error == "l2":
        return np.asarray(np.sqrt(np.sum(diff * diff, axis=1)))
    return np.asarray(np.max(np.abs(diff), axis=1))


def quantile_interval(errors: np.ndarray, level: float, alpha: float) -> tuple[float, float, float]:
    """(estimate, lower, upper) of the ``level`` quantile of the errors' law.

    The estimate is the order statistic e_(⌈level·N⌉); [e_(l), e_(u)] covers the true
    quantile with probability ≥ 1 − ``alpha`` (α/2 each side: P[e_(u) < ξ] ≤
    P[Bin(N, level) ≥ u] and P[e_(l) > ξ] ≤ P[Bin(N, level) ≤ l − 1]); a side no order
    statistic can guarantee is 0 or ∞.
    """
    a = check_alpha(alpha)
    ordered = np.sort(np.asarray(errors, dtype=np.float64))
    n = ordered.size
    if n == 0:
        raise InvalidParameterError("quantile_interval needs at least one error, got none")
    estimate = float(ordered[min(n, max(1, math.ceil(level * n))) - 1])
    law = stats.binom(n, level)
    # l = ppf(α/2): P[Bin ≤ l − 1] < α/2; u − 1 = ppf(1 − α/2): P[Bin ≥ u] ≤ α/2
    lower_index = int(law.ppf(a / 2))
    upper_index = int(law.ppf(1 - a / 2))
    lower = float(ordered[lower_index - 1]) if lower_index >= 1 else 0.0
    upper = float(ordered[upper_index]) if upper_index < n else math.inf
    return estimate, lower, upper


def _distinct(inputs: Sequence[Any], limit: int) -> list[Any]:
    seen, kept = set(), []
    for x in inputs:
        key = input_key(x)
        if key not in seen:
            seen.add(key)
            kept.append(x)
        if len(kept) == limit:
            break
    return kept


def check_accuracy(
    mechanism: Mechanism,
    inputs: Sequence[Any],
    rng: np.random.Generator,
    *,
    samples: int,
    alpha: float,
) -> CheckOutcome:
    """Test the spec's accuracy claim at ``inputs`` (module docstring).

    Parameters
    ----------
    mechanism : Mechanism
        Its spec's ``accuracy`` is tested against its ``statistic`` hook.
    inputs : sequence
        Validated inputs; the first :data:`ACCURACY_INPUTS` distinct ones are used.
    rng : numpy.random.Generator
    samples : int
        Outputs drawn at each input.
    alpha : float
        The check's error rate: a true claim is refuted with probability ≤ ``alpha``.

    Returns
    -------
    CheckOutcome
        ``accuracy``: ``violated`` (the claim is refuted, with the input), ``passed``
        (not refuted) or ``skipped`` (no claim, a population target, no statistic hook).
    """
    claim = mechanism.spec.accuracy
    if claim is None:
        return skipped(_NAME, "the spec makes no accuracy claim")
    if claim.target != "statistic":
        return skipped(
            _NAME,
            "the accuracy claim is about a population parameter, which a fixed input cannot "
            "test; only claims against the statistic f(x) are checked",
        )
    if not mechanism.provides("statistic"):
        return skipped(_NAME, "the mechanism has no statistic hook to measure the error against")
    n = check_count(samples, "samples", 1)
    level = check_alpha(alpha)
    chosen = _distinct(inputs, ACCURACY_INPUTS)
    if not chosen:
        raise InvalidParameterError("check_accuracy needs at least one input, got none")
    per_input = level / len(chosen)
    measured = []
    for x in chosen:
        errors = accuracy_errors(
            draw_outputs(mechanism, x, n, rng), mechanism.statistic(x), claim.error
        )
        measured.append((int(np.count_nonzero(errors > claim.bound)), x, errors))
    # the worst input: the most failures (the first of equals)
    failures, x, errors = max(measured, key=lambda m: m[0])
    return _outcome(mechanism, claim, x, errors, failures, n, len(chosen), per_input, level)


def _outcome(
    mechanism: Mechanism,
    claim: AccuracyClaim,
    x: Any,
    errors: np.ndarray,
    failures: int,
    n: int,
    inputs: int,
    per_input: float,
    level: float,
) -> CheckOutcome:
    """The ``accuracy`` outcome at the worst input (most failures)."""
    beta = claim.failure_probability
    p_low = float(cp_lower(failures, n, per_input))
    p_high = float(cp_upper(failures, n, per_input))
    refuted = p_low > beta
    q, q_low, q_high = quantile_interval(errors, 1.0 - beta, per_input)
    bound = accuracy_lower_bound(mechanism.spec)
    details: dict[str, Any] = {
        "claim": claim.describe(),
        "claimed_alpha": claim.bound,
        "failure_probability": beta,
        "error_norm": claim.error,
        "inputs": inputs,
        "samples_per_input": n,
        "failures": failures,
        "failure_rate": failures / n,
        "failure_rate_interval": [p_low, p_high],
        "alpha_per_input": per_input,
        "quantile_level": 1.0 - beta,
        "measured_quantile": q,
        "measured_quantile_interval": [q_low, q_high],
        "source": f"{claim.source.citation} {claim.source.locator}".strip(),
    }
    efficiency = ""
    if bound is not None and bound.value > 0 and bound.quantity == "error quantile":
        details.update(
            lower_bound=bound.value,
            lower_bound_problem=bound.problem,
            lower_bound_source=f"{bound.source.citation} {bound.source.locator}".strip(),
            efficiency_claimed=claim.bound / bound.value,
            efficiency_measured=q / bound.value,
        )
        efficiency = (
            f"; efficiency vs the lower bound {bound.value:.4g} ({bound.problem}): claimed "
            f"{claim.bound / bound.value:.3g}, measured {q / bound.value:.3g}"
        )
    measured = (
        f"measured q_{1 - beta:g} = {q:.4g} [{q_low:.4g}, {q_high:.4g}] against the "
        f"claimed α = {claim.bound:.4g}"
    )
    if refuted:
        return CheckOutcome(
            name=_NAME,
            status="violated",
            summary=f"accuracy claim refuted: {failures}/{n} errors above α = "
            f"{claim.bound:.4g} at the worst of {inputs} inputs, P[fail] ≥ {p_low:.4g} > "
            f"β = {beta:g} (exact binomial, level {per_input:.3g}); {measured}{efficiency}",
            statistic=q,
            threshold=claim.bound,
            ratio=q / claim.bound,
            error_rate=level,
            counterexample=pair_counterexample(
                x, x, "accuracy", "the input at which the claim fails", failure_rate=failures / n
            ),
            details=jsonable_details(**details),
        )
    return CheckOutcome(
        name=_NAME,
        status="passed",
        summary=f"accuracy claim not refuted at {inputs} inputs ({n} outputs each): worst "
        f"failure rate {failures / n:.4g} (upper bound {p_high:.4g}) against β = {beta:g}; "
        f"{measured}{efficiency}; not a proof of accuracy",
        statistic=q,
        threshold=claim.bound,
        ratio=q / claim.bound,
        error_rate=level,
        details=jsonable_details(**details),
    )
