"""Exact white-box accounting of the joint messages at a fixed pair of graphs.

For fixed ρ the n messages are independent, so the joint privacy loss is the sum of the
per-node losses (Raskhodnikova, Smith, Wagaman & Zavyalov, "Local Node Differential
Privacy", arXiv:2602.15802, Claim 6.4(c)); for the three message families used here the
composed privacy-loss distribution has a closed form:

* **Gaussian** (Algorithms 1–7): the stacked means μ_G, μ_G′ ∈ R^{nk} with i.i.d. N(0, σ²)
  noise; the joint loss is that of one Gaussian with shift Δ = ‖μ_G − μ_G′‖₂, so
  δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) (Balle & Wang, ICML 2018, Theorem 8);
* **Laplace** (Algorithm 8): the loss is bounded by ‖μ_G − μ_G′‖₁/b and attains values
  arbitrarily close to it, so the pure claim ε holds at the pair iff ‖μ_G − μ_G′‖₁/b ≤ ε;
* **randomized response** (Algorithm 9): with m_c changed bits, each kept with probability
  e^{ε0}/(1 + e^{ε0}), the loss is L = ε0(m_c − 2F), F ~ Bin(m_c, 1/(1 + e^{ε0})), and
  δ(ε) = E[(1 − e^{ε − L})_+], summed exactly over the binomial.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import binom

from privaudit.mechanisms import AdditiveNoiseMechanism
from privaudit.spec import Gaussian, Laplace, check_epsilon
from privaudit.spec.errors import InvalidParameterError, UnsupportedCombinationError

__all__ = ["JointAccounting", "joint_accounting", "regular_graph_tv_bound", "rr_joint_delta"]


@dataclass(frozen=True)
class JointAccounting:
    """The exact privacy of the joint messages at one pair of graphs.

    Attributes
    ----------
    shift : float
        ‖μ_G − μ_G′‖ (ℓ2 for Gaussian messages, ℓ1 for Laplace).
    epsilon, delta : float
        The claimed (ε, δ).
    delta_at_claim : float
        The exact δ(ε_claim) of the joint messages at this pair.
    holds : bool
        ``delta_at_claim <= delta`` (up to 1e-12 relative round-off).
    family : str
        ``"gaussian"``, ``"laplace"`` or ``"randomized_response"``.
    """

    shift: float
    epsilon: float
    delta: float
    delta_at_claim: float
    holds: bool
    family: str


def _stacked(mechanism: AdditiveNoiseMechanism, graph: Any) -> np.ndarray:
    return np.atleast_1d(np.asarray(mechanism.statistic(graph), dtype=np.float64))


def joint_accounting(mechanism: AdditiveNoiseMechanism, graph: Any, other: Any) -> JointAccounting:
    """Exact δ(ε_claim) of a Gaussian or Laplace LNDP mechanism's joint messages at (G, G′).

    Parameters
    ----------
    mechanism : AdditiveNoiseMechanism
        A ``*_mechanism`` of :mod:`estimators.lndp` (statistic = stacked message means).
    graph, other : graph inputs
        The pair, typically from :meth:`spec.LocalNodeRelation.adversarial_pairs`.

    Raises
    ------
    UnsupportedCombinationError
        If the mechanism's noise is neither Gaussian nor Laplace.
    """
    law = mechanism.noise_law
    diff = _stacked(mechanism, graph) - _stacked(mechanism, other)
    claimed = mechanism.epsilon
    if claimed is None:
        raise UnsupportedCombinationError(
            f"{mechanism.name!r} states no epsilon (a zCDP claim); joint accounting reads the "
            "(epsilon, delta) claim"
        )
    eps = float(claimed)
    delta = float(mechanism.delta or 0.0)
    if isinstance(law, Gaussian):
        shift = float(np.linalg.norm(diff))
        value = law.privacy_profile(eps, shift) if shift > 0 else 0.0
        family = "gaussian"
    elif isinstance(law, Laplace):
        shift = float(np.abs(diff).sum())
        value = (
            0.0
            if shift / law.scale <= eps * (1 + 1e-12)
            else 1.0 - math.exp((eps - shift / law.scale) / 2.0)
        )
        family = "laplace"
    else:
        raise UnsupportedCombinationError(
            f"joint accounting covers Gaussian and Laplace messages, got {type(law).__name__}"
        )
    return JointAccounting(
        shift=shift,
        epsilon=eps,
        delta=delta,
        delta_at_claim=float(value),
        holds=bool(value <= delta * (1 + 1e-12) + 1e-300),
        family=family,
    )


def rr_joint_delta(epsilon: float, epsilon0: float, changed_bits: int) -> float:
    """Exact δ(ε) of m_c randomized-response bits at flip level ε0 that all change.

    Examples
    --------
    >>> rr_joint_delta(1.0, 1.0, 1)      # one bit at ε0 = ε: pure
    0.0
    >>> rr_joint_delta(0.5, 1.0, 1) > 0
    True
    """
    eps = check_epsilon(epsilon)
    eps0 = check_epsilon(epsilon0, "epsilon0")
    if (
        isinstance(changed_bits, bool)
        or not isinstance(changed_bits, (int, np.integer))
        or changed_bits < 0
    ):
        raise InvalidParameterError(f"changed_bits must be an integer >= 0, got {changed_bits!r}")
    m = int(changed_bits)
    if m == 0:
        return 0.0
    flips = np.arange(m + 1)
    loss = eps0 * (m - 2.0 * flips)
    weights = binom.pmf(flips, m, 1.0 / (1.0 + math.exp(eps0)))
    return float(np.sum(weights * np.clip(-np.expm1(eps - loss), 0.0, None)))


def regular_graph_tv_bound(n: int, degree: int, epsilon: float, delta: float) -> float:
    """A global certificate: TV between (G, A(∅)) and (G, A(G)), G ~ uniform D-regular.

    For **every** (ε, δ)-LNDP algorithm A (Raskhodnikova, Smith, Wagaman & Zavyalov,
    arXiv:2602.15802, Lemma 5.4 with Lemma 5.3 and group privacy),
    𝔅 ≤ n/(n − D)·[ln cosh(Dε/2) + ln(1/(1 − δ_D))] with δ_D = δ Σ_{j<D} e^{jε}, and
    TV ≤ √(1 − e^{−2𝔅}).  A distinguisher whose advantage exceeds it refutes the claim.

    Examples
    --------
    >>> round(regular_graph_tv_bound(10_000, 2, 0.1, 1e-8), 3)
    0.1
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise InvalidParameterError(f"n must be an integer >= 2, got {n!r}")
    if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)) or not 1 <= degree < n:
        raise InvalidParameterError(f"degree D must be an integer in [1, n), got {degree!r}")
    eps = check_epsilon(epsilon)
    if not 0.0 <= float(delta) < 1.0:
        raise InvalidParameterError(f"delta must lie in [0, 1), got {delta!r}")
    group_delta = float(delta) * float(np.sum(np.exp(eps * np.arange(degree))))
    if group_delta >= 1.0:
        return 1.0
    half_log = math.log(math.cosh(degree * eps / 2.0)) - math.log1p(-group_delta)
    bhattacharyya = n / (n - degree) * half_log
    return math.sqrt(-math.expm1(-2.0 * bhattacharyya))
