"""The three (four) data scenarios of the U-statistics study (the paper reports none).

Each :class:`Scenario` fixes, as functions of the public sample size n only: the data
law, the kernel (with its declared range, so C is public), the target θ, the public
concentration parameter ξ of Algorithm 1, the public A.2 parameters (R, τ), and the
asymptotic rates that Table 1 and docs/derivations.md §6 predict.

* ``variance`` (non-degenerate).  X ~ N(0, 1) clipped to the public interval
  [−R, R] = [−3, 3]; h(x, y) = (x − y)²/2 so C = (2R)²/2 = 2R² = 18.  The target is the
  variance of the *clipped* law, θ_R = 2Φ(R) − 1 − 2Rφ(R) + 2R²(1 − Φ(R)) ≈ 0.99501
  (the clipping bias 1 − θ_R ≈ 0.005 is outside the study).  ζ₁ > 0.
* ``collision`` (degenerate).  X uniform on [m] with m = 10 fixed (so the kernel law, and
  hence every constant, is fixed while n grows and the n-rates of Table 1 apply as
  stated); h(x, y) = 1(x = y), C = 1, θ = 1/m, ζ₁ = 0 < ζ₂.
* ``rgg_quarter`` / ``rgg_third`` (sparse, degenerate).  Latent points uniform on S² ⊂ ℝ³
  (normalised Gaussians, ``estimators.models.random_geometric.sample_sphere_points``),
  h(x, y) = 1(‖x − y‖₂ ≤ r_n) with r_n = n^{−1/4} resp. n^{−1/3}; C = 1, θ = p = r_n²/4
  exactly (docs/derivations.md §6), ζ₁ = 0.

How ξ is chosen.  Privacy holds for any data-independent ξ (Theorem 2); ξ only decides
whether every index is "good" (then Ã_n = A_n and the noise scale is S/ε at L = 1).  The
study uses ξ = sup_x |h₁(x) − θ| + (Bernstein radius of ĥ(i) around h₁(X_i), union over
the n indices, failure 0.005) + (radius of |U_n − θ|, failure 0.005), computed from the
*known data law* of the scenario: a public number, fixed before the data are drawn, so the
privacy conditions hold; a practitioner without the law would use the distribution-free
Lemma 4 / Corollary 2 form with σ_i ≤ C/2 (larger ξ, same rates).  The total failure
probability 0.01 is the γ of the paper's proofs (Theorem 2).

Baselines A.2.  Every kernel here is bounded, so h(X_S) ~ subG(C²/4) (Hoeffding's lemma)
gives the public τ, and |θ| ≤ R := max(|lower|, |upper|) of the kernel's declared range.

References
----------
K. Chaudhuri, P.-L. Loh, S. Pandey, P. Sarkar, "On Differentially Private U Statistics",
NeurIPS 2024: Lemma A.3 (concentration of U_n), Lemma 4 (Bernstein for ĥ(i)), Table 1,
Section 5.2; ``docs/derivations.md`` §4 and §6.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import norm

from privaudit.estimators.models import rgg_edge_probability, sample_sphere_points
from privaudit.estimators.ustatistics import (
    Kernel,
    collision_kernel,
    rgg_edge_kernel,
    variance_kernel,
)

__all__ = [
    "CLIP_RADIUS",
    "COLLISION_LABELS",
    "SCENARIOS",
    "Scenario",
    "Theory",
    "bernstein_radius",
    "clipped_normal_moments",
    "u_statistic_radius",
]

#: Public clipping interval [−R, R] of scenario (a).
CLIP_RADIUS = 3.0
#: Alphabet size m of scenario (b).
COLLISION_LABELS = 10
#: Failure probabilities of the two parts of ξ (total γ = 0.01, Wrapper 1's inner γ).
PROJECTION_FAILURE = 0.005
STATISTIC_FAILURE = 0.005


def bernstein_radius(variance: float, bound: float, count: int, log_term: float) -> float:
    """t with 2·exp(−N t²/(2σ² + 2bt/3)) = 2·exp(−log_term), i.e. Bernstein's radius.

    For the mean of N i.i.d. terms with variance σ² and |Y − EY| ≤ b,
    P(|Ȳ − EY| ≥ t) ≤ 2 exp(−N t²/(2σ² + 2bt/3)); solving N t² = L(2σ² + 2bt/3) for t gives
    t = bL/(3N) + √((bL/(3N))² + 2σ²L/N).
    """
    a = bound * log_term / (3.0 * count)
    return a + math.sqrt(a * a + 2.0 * variance * log_term / count)


def u_statistic_radius(
    n: int,
    kernel_variance: float,
    bound: float,
    exact_variance: float | None = None,
    failure: float = STATISTIC_FAILURE,
) -> float:
    """A radius t with P(|U_n − θ| ≥ t) ≤ failure for a degree-2 kernel.

    The smaller of Lemma A.3(ii) (Hoeffding's permutation argument: Bernstein with
    m = ⌊n/2⌋ terms of variance ζ_k and range ``bound``) and, if the exact Var(U_n) is
    known, Chebyshev's √(Var(U_n)/failure).  Both hold, so their minimum does.
    """
    radius = bernstein_radius(kernel_variance, bound, n // 2, math.log(2.0 / failure))
    if exact_variance is not None:
        radius = min(radius, math.sqrt(exact_variance / failure))
    return radius


def clipped_normal_moments(radius: float) -> tuple[float, float]:
    """(E Y², E Y⁴) of Y = clip(X, −R, R) with X ~ N(0, 1); E Y = E Y³ = 0 by symmetry.

    ∫_{−R}^{R} x²φ = (2Φ(R) − 1) − 2Rφ(R) and ∫_{−R}^{R} x⁴φ = 3(2Φ(R) − 1) − 2(R³ + 3R)φ(R)
    (integration by parts), plus the clipped mass 2(1 − Φ(R)) at ±R.
    """
    phi, tail = norm.pdf(radius), norm.sf(radius)
    inner = 2.0 * norm.cdf(radius) - 1.0
    second = inner - 2.0 * radius * phi + 2.0 * radius**2 * tail
    fourth = 3.0 * inner - 2.0 * (radius**3 + 3.0 * radius) * phi + 2.0 * radius**4 * tail
    return float(second), float(fourth)


@dataclass(frozen=True)
class Theory:
    """Leading-order rates of the *private* error |θ̃ − A_n| and of √Var of the statistic.

    ``private`` maps a method name to (exponent of n, exponent of ε) of its leading private
    term; ``nonprivate`` maps it to the exponent of n of its non-private error (the
    standard deviation of the statistic it privatises: U_n, or the naive block mean).
    ``source`` says where each rate comes from.
    """

    private: dict[str, tuple[float, float]]
    nonprivate: dict[str, float]
    source: dict[str, str]


@dataclass(frozen=True)
class Scenario:
    """One data-generating setting of the study (see the module docstring).

    Attributes
    ----------
    name, title : str
        Short key (file names) and a human title.
    kernel_for : callable n -> Kernel
        The kernel at sample size n (the RGG radius depends on n).
    sample : callable (n, rng) -> data
        Draws the n records.
    theta : callable n -> float
        The population target E h at sample size n.
    xi : callable n -> float
        Algorithm 1's public ξ at sample size n.
    theory : Theory
        Predicted rates.
    u_statistic_sd : callable n -> float
        The exact standard deviation of U_n (eq. 3 with the law's ζ₁, ζ₂).
    parameters : dict
        Scenario constants, for the report.
    """

    name: str
    title: str
    kernel_for: Callable[[int], Kernel]
    sample: Callable[[int, np.random.Generator], np.ndarray]
    theta: Callable[[int], float]
    xi: Callable[[int], float]
    theory: Theory
    u_statistic_sd: Callable[[int], float]
    parameters: dict = field(default_factory=dict)

    def subgaussian_proxy(self, n: int) -> float:
        """τ = C²/4: a kernel with additive range C is subG(C²/4) (Hoeffding's lemma)."""
        return self.kernel_for(n).additive_range ** 2 / 4.0

    def mean_bound(self, n: int) -> float:
        """A public R with |θ| ≤ R: the largest |value| in the kernel's declared range."""
        kernel = self.kernel_for(n)
        return max(abs(kernel.lower), abs(kernel.upper))


# ------------------------------------------------------------------ (a) variance
_THETA_VAR, _FOURTH_VAR = clipped_normal_moments(CLIP_RADIUS)
_VARIANCE_KERNEL = variance_kernel(-CLIP_RADIUS, CLIP_RADIUS)


def _variance_sample(n: int, rng: np.random.Generator) -> np.ndarray:
    return np.clip(rng.standard_normal(n), -CLIP_RADIUS, CLIP_RADIUS)


def _variance_xi(n: int) -> float:
    """h₁(x) − θ = (x² − θ)/2 on [−R, R]; Var(h(x, X)) = (4x²θ + μ₄ − θ²)/4 ≤ its value at R."""
    c = _VARIANCE_KERNEL.additive_range
    theta, mu4 = _THETA_VAR, _FOURTH_VAR
    projection_spread = max((CLIP_RADIUS**2 - theta) / 2.0, theta / 2.0)
    conditional_variance = (4.0 * CLIP_RADIUS**2 * theta + mu4 - theta**2) / 4.0
    deviation = bernstein_radius(
        conditional_variance, c, n - 1, math.log(2.0 * n / PROJECTION_FAILURE)
    )
    zeta_k = (mu4 + theta**2) / 2.0
    return projection_spread + deviation + u_statistic_radius(n, zeta_k, c)


_NONDEGENERATE = Theory(
    private={
        "naive": (-1.0, -1.0),
        "all_tuples": (-1.0, -1.0),
        "alg1_rigorous": (-1.0, -1.0),
        "alg1_paper": (-1.0, -1.0),
    },
    nonprivate={
        "u_n": -0.5,
        "naive": -0.5,
        "all_tuples": -0.5,
        "alg1_rigorous": -0.5,
        "alg1_paper": -0.5,
    },
    source={
        "naive": "Table 1 / Prop. A.1: k√τ/(nε)",
        "all_tuples": "Table 1 / Prop. 1: k^{3/2}√τ/(nε)",
        "alg1_rigorous": "Table 1 / Thm 2, Cor. 1: kξ/(nε) + C(k/(nε))² + C(k/(nε))³",
        "alg1_paper": "Table 1 / Thm 2, Cor. 1: kξ/(nε) + C(k/(nε))² + C(k/(nε))³",
        "u_n": "Lemma A.1(i): √Var(U_n) ≍ √(k²ζ₁/n)",
    },
)


def _variance_sd(n: int) -> float:
    """Eq. (3) for k = 2: Var U_n = [4(n−2)ζ₁ + 2ζ₂]/(n(n−1)).

    With ζ₁ = (μ₄ − θ²)/4 and ζ₂ = (μ₄ + θ²)/2.
    """
    zeta1 = (_FOURTH_VAR - _THETA_VAR**2) / 4.0
    zeta2 = (_FOURTH_VAR + _THETA_VAR**2) / 2.0
    return math.sqrt((4.0 * (n - 2) * zeta1 + 2.0 * zeta2) / (n * (n - 1)))


def _degenerate_sd(p: float, n: int) -> float:
    """Eq. (3) for k = 2 with ζ₁ = 0 and ζ₂ = p(1 − p): Var U_n = 2p(1 − p)/(n(n − 1))."""
    return math.sqrt(2.0 * p * (1.0 - p) / (n * (n - 1)))


VARIANCE = Scenario(
    name="variance",
    title="(a) variance kernel, N(0,1) clipped to [−3, 3] (non-degenerate)",
    kernel_for=lambda n: _VARIANCE_KERNEL,
    sample=_variance_sample,
    theta=lambda n: _THETA_VAR,
    xi=_variance_xi,
    theory=_NONDEGENERATE,
    u_statistic_sd=_variance_sd,
    parameters={
        "R (clip)": CLIP_RADIUS,
        "C": _VARIANCE_KERNEL.additive_range,
        "θ_R": _THETA_VAR,
        "E Y⁴": _FOURTH_VAR,
    },
)

# ----------------------------------------------------------------- (b) collision
_COLLISION_KERNEL = collision_kernel()


def _collision_sample(n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, COLLISION_LABELS, size=n)


def _collision_xi(n: int) -> float:
    """ζ₁ = 0: h₁ ≡ θ; ĥ(i) = (count − 1)/(n − 1) is a Bin(n − 1, 1/m) mean given X_i."""
    theta = 1.0 / COLLISION_LABELS
    variance = theta * (1.0 - theta)
    deviation = bernstein_radius(variance, 1.0, n - 1, math.log(2.0 * n / PROJECTION_FAILURE))
    exact = 2.0 * variance / (n * (n - 1))  # Var(U_n) at uniformity, s₃ = s₂²
    return deviation + u_statistic_radius(n, variance, 1.0, exact_variance=exact)


_DEGENERATE = Theory(
    private={
        "naive": (-1.0, -1.0),
        "all_tuples": (-1.0, -1.0),
        "alg1_rigorous": (-1.5, -1.0),
        "alg1_paper": (-1.5, -1.0),
    },
    nonprivate={
        "u_n": -1.0,
        "naive": -0.5,
        "all_tuples": -1.0,
        "alg1_rigorous": -1.0,
        "alg1_paper": -1.0,
    },
    source={
        "naive": "Table 1 (bounded degenerate): kC/(nε)",
        "all_tuples": "Table 1 (bounded degenerate): kC/(nε)",
        "alg1_rigorous": "Table 1 / Cor. 2: k^{3/2}C/(n^{3/2}ε) + C(k/(nε))²",
        "alg1_paper": "Table 1 / Cor. 2: k^{3/2}C/(n^{3/2}ε) + C(k/(nε))²",
        "u_n": "Lemma A.1(ii): √Var(U_n) ≍ kζ₂^{1/2}/n",
    },
)

COLLISION = Scenario(
    name="collision",
    title=f"(b) collision kernel, uniform law on [m], m = {COLLISION_LABELS} (degenerate)",
    kernel_for=lambda n: _COLLISION_KERNEL,
    sample=_collision_sample,
    theta=lambda n: 1.0 / COLLISION_LABELS,
    xi=_collision_xi,
    theory=_DEGENERATE,
    u_statistic_sd=lambda n: _degenerate_sd(1.0 / COLLISION_LABELS, n),
    parameters={"m": COLLISION_LABELS, "C": 1.0, "θ": 1.0 / COLLISION_LABELS},
)


# ---------------------------------------------------------------------- (c) RGG
def _rgg_scenario(power: float, label: str) -> Scenario:
    def radius(n: int) -> float:
        return float(n) ** (-power)

    def edge_probability(n: int) -> float:
        # r²/4: a chord-r cap of S² has area πr² (docs/derivations.md §6)
        return rgg_edge_probability(radius(n))

    def xi(n: int) -> float:
        p = edge_probability(n)
        deviation = bernstein_radius(
            p * (1 - p), 1.0, n - 1, math.log(2.0 * n / PROJECTION_FAILURE)
        )
        exact = 2.0 * p * (1 - p) / (n * (n - 1))  # Var(U_n), ζ₁ = 0 (docs/derivations.md §6)
        return deviation + u_statistic_radius(n, p * (1 - p), 1.0, exact_variance=exact)

    # private Alg. 1: r_n/(n^{3/2}ε) (leading when r_n ≫ n^{−1/2}) + 1/(n²ε²); U_n: r_n/n.
    theory = Theory(
        private={
            "naive": (-1.0, -1.0),
            "all_tuples": (-1.0, -1.0),
            "alg1_rigorous": (-1.5 - power, -1.0),
            "alg1_paper": (-1.5 - power, -1.0),
        },
        nonprivate={
            "u_n": -1.0 - power,
            "naive": -0.5 - power,
            "all_tuples": -1.0 - power,
            "alg1_rigorous": -1.0 - power,
            "alg1_paper": -1.0 - power,
        },
        source={
            "naive": "Remark 2 / docs/derivations.md §6: 1/(nε)",
            "all_tuples": "Remark 2 / docs/derivations.md §6: 1/(nε)",
            "alg1_rigorous": "docs/derivations.md §6: r_n/(n^{3/2}ε) + 1/(n²ε²)",
            "alg1_paper": "docs/derivations.md §6: r_n/(n^{3/2}ε) + 1/(n²ε²)",
            "u_n": "docs/derivations.md §6: √Var(U_n) = √(2p(1−p)/(n(n−1))) ≍ r_n/n",
        },
    )
    return Scenario(
        name=f"rgg_{label}",
        title=f"(c) RGG edge density on S², r_n = n^(−{power:.4g})",
        kernel_for=lambda n: rgg_edge_kernel(radius(n)),
        sample=sample_sphere_points,
        theta=edge_probability,
        xi=xi,
        theory=theory,
        u_statistic_sd=lambda n: _degenerate_sd(edge_probability(n), n),
        parameters={"r_n": f"n^(-{power:.4g})", "C": 1.0, "θ": "r_n²/4"},
    )


RGG_QUARTER = _rgg_scenario(0.25, "quarter")
RGG_THIRD = _rgg_scenario(1.0 / 3.0, "third")

#: All scenarios by name, in report order.
SCENARIOS: dict[str, Scenario] = {s.name: s for s in (VARIANCE, COLLISION, RGG_QUARTER, RGG_THIRD)}
