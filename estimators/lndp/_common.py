"""Shared pieces of the LNDP algorithms: parameters, the local views, the messages.

Model (Raskhodnikova, Smith, Wagaman & Zavyalov, "Local Node Differential Privacy",
arXiv:2602.15802, Definition 2.3): the node set {0, …, n − 1} and n are public; node i
holds only its adjacency list N_G(i); each node's randomizer R_i^ρ is a function of its
own list and the public randomness ρ; the server sees ρ and the n messages.  Privacy is
claimed for the **joint vector of the n messages**, for every fixed ρ.

Every randomizer here is *batched*: one numpy call computes all n nodes' messages from
the degree vector (degrees-only algorithms) or from the sparse adjacency rows
(Algorithms 7 and 9).  The adjacency is a ``scipy.sparse`` CSR array, never dense.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import scipy.sparse as sp

from privaudit.spec import AdditiveNoise, Reference
from privaudit.spec.errors import (
    DeltaRangeError,
    InvalidParameterError,
    UnsupportedCombinationError,
)
from privaudit.spec.validation import check_delta, check_epsilon, check_sample_size

from ..graphs._adjacency import as_adjacency

if TYPE_CHECKING:
    from privaudit.mechanisms import GaussianMechanism

__all__ = [
    "LNDP_PAPER",
    "DEFAULT_CALIBRATION",
    "GaussianCalibration",
    "check_calibration",
    "check_classical",
    "check_nodes",
    "check_positive_int",
    "classical_multiplier",
    "gaussian_message_claims",
    "gaussian_message_sum",
    "local_views",
]

LNDP_PAPER = (
    "Raskhodnikova, Smith, Wagaman & Zavyalov, 'Local Node Differential Privacy', "
    "arXiv:2602.15802 (2026)"
)
LNDP_URL = "https://arxiv.org/abs/2602.15802"


def reference(locator: str) -> Reference:
    """The LNDP paper with a locator (section, algorithm, theorem)."""
    return Reference(citation=LNDP_PAPER, locator=locator, url=LNDP_URL)


def check_nodes(n: Any, minimum: int = 2) -> int:
    """The public number of nodes as an int ≥ ``minimum``.

    Raises :class:`~spec.errors.ParameterTypeError` for a non-integer and
    :class:`~spec.errors.SampleSizeError` for fewer than ``minimum`` nodes
    (:func:`spec.validation.check_sample_size`).
    """
    return check_sample_size(n, minimum, "n")


def check_positive_int(value: Any, what: str) -> int:
    """``value`` as an int ≥ 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise InvalidParameterError(f"{what} must be an integer >= 1, got {value!r}")
    return int(value)


def check_classical(epsilon: Any, delta: Any) -> tuple[float, float]:
    """(ε, δ) for the classical Gaussian calibration the paper uses: ε ∈ (0, 1), δ ∈ (0, 1).

    Raises
    ------
    ParameterTypeError, EpsilonRangeError, DeltaRangeError
        If ε or δ is not a number, ε is outside the accepted range, or δ ∉ (0, 1).
    UnsupportedCombinationError
        If ε ≥ 1: Lemma A.3 of the paper (the classical Gaussian mechanism) needs ε < 1.
    """
    eps = check_epsilon(epsilon)
    d0 = check_delta(delta)
    if d0 == 0.0:
        raise DeltaRangeError(f"delta must lie in (0, 1) for the Gaussian mechanism, got {delta!r}")
    if eps >= 1.0:
        raise UnsupportedCombinationError(
            f"the classical Gaussian calibration of the LNDP algorithms (paper, Lemma A.3) "
            f"needs epsilon < 1, got epsilon={epsilon!r}"
        )
    return eps, d0


#: How the Gaussian messages are calibrated: ``"analytic"`` (Balle & Wang, ICML 2018,
#: Thm. 8: the smallest σ, valid at every ε) or ``"classical"`` (σ = Δ₂√(2 ln(1.25/δ))/ε,
#: Dwork & Roth 2014 Thm. A.1, the paper's Lemma A.3, ε < 1 only).
GaussianCalibration = Literal["analytic", "classical"]
#: The analytic calibration is never looser than the classical one (it is the exact
#: smallest σ for (ε, δ)), so it is the default; "classical" reproduces the paper.
DEFAULT_CALIBRATION: GaussianCalibration = "analytic"


def check_calibration(
    epsilon: Any, delta: Any, calibration: Any
) -> tuple[float, float, GaussianCalibration]:
    """(ε, δ, calibration) validated for the Gaussian messages.

    ``"classical"`` needs ε < 1 (:func:`check_classical`); ``"analytic"`` takes every
    ε > 0 and δ ∈ (0, 1).

    Raises
    ------
    InvalidParameterError
        For a calibration other than ``"analytic"`` or ``"classical"``.
    """
    if calibration == "classical":
        eps, d0 = check_classical(epsilon, delta)
        return eps, d0, "classical"
    if calibration != "analytic":
        raise InvalidParameterError(
            f"calibration must be 'analytic' or 'classical', got {calibration!r}"
        )
    eps = check_epsilon(epsilon)
    d0 = check_delta(delta)
    if d0 == 0.0:
        raise DeltaRangeError(f"delta must lie in (0, 1) for the Gaussian mechanism, got {delta!r}")
    return eps, d0, "analytic"


def classical_multiplier(delta: float) -> float:
    """c_δ = √(2 ln(1.25/δ)) (paper, Lemma A.3)."""
    return math.sqrt(2.0 * math.log(1.25 / delta))


def local_views(graph: Any, n: int | None = None) -> tuple[sp.csr_array, np.ndarray]:
    """(adjacency, degrees): the validated CSR adjacency and every node's degree |N_G(i)|.

    Row i of the CSR array is node i's adjacency list; nothing else is read by a
    randomizer.

    Raises
    ------
    InvalidGraphError
        For anything but a simple undirected graph on {0, …, n − 1} (named offending entry).
    """
    adjacency = as_adjacency(graph, n)
    degrees = np.diff(adjacency.indptr).astype(np.int64)
    return adjacency, degrees


def gaussian_message_claims(mech: GaussianMechanism) -> tuple[float, str]:
    """(joint ℓ2 sensitivity, calibration) as declared by a Gaussian messages' spec.

    Raises
    ------
    UnsupportedCombinationError
        If the spec lacks the additive noise or the global-sensitivity claim (a
        :class:`~mechanisms.GaussianMechanism` always declares both).
    """
    noise, claim = mech.spec.noise, mech.spec.global_sensitivity
    if not isinstance(noise, AdditiveNoise) or claim is None:
        raise UnsupportedCombinationError(
            f"{mech.name!r} declares no additive noise with a global sensitivity claim"
        )
    return claim.value, noise.calibration


def gaussian_message_sum(
    mean_total: np.ndarray, nodes: int, sigma: float, rng: np.random.Generator
) -> np.ndarray:
    """Σ_i y_i over n messages y_i = μ_i + Z_i, Z_i ~ N(0, σ² I_k) i.i.d., given Σ_i μ_i.

    The server's sum of the n nodes' independent Gaussian noise vectors is drawn in one
    vectorised call: Σ_i Z_i ~ N(0, n σ² I_k) exactly (a sum of independent Gaussians),
    so the returned sum has the law of the protocol's, at O(k) cost instead of O(nk)
    (10⁵ nodes × 317 buckets took 3.5 s drawn node by node).  The means enter through
    their exact total ``mean_total`` (shape (k,)), which each caller computes from the
    same batched per-node means its mechanism's statistic hook stacks.
    """
    total = np.array(mean_total, dtype=np.float64, copy=True).reshape(-1)
    total += math.sqrt(int(nodes)) * sigma * rng.standard_normal(total.shape[0])
    return total
