"""Goodness-of-fit sub-tests of the noise-law check, vectorised over large samples.

:func:`ks_test`, :func:`anderson_darling_test`, :func:`tail_tests` (exact binomial tests of
tail counts, which catch the cut or flattened tails that KS misses), :func:`chi_square_test`,
:func:`exact_multinomial_test` and :func:`integer_bins`.  Every function returns
:class:`SubTest` objects holding a p-value; the caller applies the Bonferroni correction.

References: Kolmogorov 1933, Smirnov 1948; Anderson & Darling, JASA 1954; Marsaglia &
Marsaglia, J. Stat. Softw. 2004; Wang et al., ACM CCS 2024 (the Curator Attack); Pearson
1900, Cochran, Biometrics 1954.  Details: ``docs/engine_notes.md``,
"privaudit.auditing.checks._gof".
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special, stats

__all__ = [
    "BINNED_ABOVE",
    "MIN_EXPECTED",
    "TAIL_MIN_EXPECTED",
    "TAIL_PROBABILITIES",
    "BinnedSample",
    "IntegerCounter",
    "SortedCounter",
    "SubTest",
    "ad_pvalue",
    "adinf",
    "anderson_darling_test",
    "binomial_two_sided",
    "chi_square_test",
    "exact_multinomial_test",
    "integer_bins",
    "ks_test",
    "merge_bins",
    "tail_tests",
]

#: Tail probabilities q tested (each where samples · q ≥ TAIL_MIN_EXPECTED).
TAIL_PROBABILITIES = (1e-2, 1e-3, 1e-4)
#: Smallest expected count samples · q for a tail level to be tested.
TAIL_MIN_EXPECTED = 20.0
#: Smallest expected count per χ² bin after merging (Cochran 1954).
MIN_EXPECTED = 5.0
#: Largest number of outcomes enumerated by the exact multinomial test.
EXACT_MULTINOMIAL_LIMIT = 100_000


@dataclass(frozen=True)
class SubTest:
    """One sub-test: its name, statistic, p-value and what it compared."""

    name: str
    statistic: float
    p_value: float
    info: dict[str, Any] = field(default_factory=dict)


# ----------------------------------------------------------------------------------------
# Kolmogorov–Smirnov and Anderson–Darling
# ----------------------------------------------------------------------------------------
def ks_test(u_sorted: np.ndarray) -> SubTest:
    """Two-sided KS test that ``u_sorted`` = F(z_(1)) ≤ … ≤ F(z_(n)) is uniform on [0, 1].

    D = max(max_i(i/n − u_(i)), max_i(u_(i) − (i − 1)/n)), with the exact p-value
    ``scipy.stats.kstwo.sf(D, n)`` (Simard & L'Ecuyer 2011).  For a continuous law F this
    is exactly ``scipy.stats.kstest(z, F, method="exact")`` — the statistic is invariant
    under the monotone map F — but F is evaluated once, on the already sorted sample
    shared with the Anderson–Darling test, instead of sorting again.
    """
    n = int(u_sorted.size)
    i = np.arange(1.0, n + 1.0)
    d_plus = float(np.max(i / n - u_sorted))
    d_minus = float(np.max(u_sorted - (i - 1.0) / n))
    d = max(d_plus, d_minus)
    return SubTest(
        "ks", d, float(stats.kstwo.sf(d, n)), {"n": n, "d_plus": d_plus, "d_minus": d_minus}
    )


def adinf(z: float) -> float:
    """Asymptotic CDF P(A² ≤ z) of the Anderson–Darling statistic (Marsaglia & Marsaglia 2004).

    The short "practical" ``ADinf``: |error| < 2e-6 for z < 2 and < 8e-7 for z > 4.
    """
    if z <= 0.0:
        return 0.0
    if z < 2.0:
        poly = (
            2.00012
            + (0.247105 - (0.0649821 - (0.0347962 - (0.011672 - 0.00168691 * z) * z) * z) * z) * z
        )
        return math.exp(-1.2337141 / z) / math.sqrt(z) * poly
    g = 1.0776 - (2.30695 - (0.43424 - (0.082433 - (0.008056 - 0.0003146 * z) * z) * z) * z) * z
    return math.exp(-math.exp(g))


def _adinf_upper(z: float) -> float:
    """1 − ADinf(z), without cancellation in the upper tail."""
    if z < 2.0:
        return 1.0 - adinf(z)
    g = 1.0776 - (2.30695 - (0.43424 - (0.082433 - (0.008056 - 0.0003146 * z) * z) * z) * z) * z
    return -math.expm1(-math.exp(g))


def _errfix(n: int, x: float) -> float:
    """Marsaglia & Marsaglia's finite-n correction of x = ADinf(z)."""
    if x > 0.8:
        return (
            -130.2137
            + (745.2337 - (1705.091 - (1950.646 - (1116.360 - 255.7844 * x) * x) * x) * x) * x
        ) / n
    c = 0.01265 + 0.1757 / n
    if x < c:
        t = x / c
        t = math.sqrt(t) * (1.0 - t) * (49.0 * t - 102.0)
        return t * (0.0037 / (n * n) + 0.00078 / n + 0.00006) / n
    t = (x - c) / (0.8 - c)
    t = -0.00022633 + (6.54034 - (14.6538 - (14.458 - (8.259 - 1.91864 * t) * t) * t) * t) * t
    return t * (0.04213 / n + 0.01365 / (n * n))


#: Below this asymptotic upper tail, errfix's fitted polynomial is dominated by its own
#: residual (−6e-4/n at p = 0), so the relative correction at this point is kept instead.
_ERRFIX_TAIL = 1e-3


def ad_pvalue(a2: float, n: int) -> float:
    """P(A² ≥ a2) for a sample of size n: 1 − (ADinf + errfix) (Marsaglia & Marsaglia 2004).

    Where the asymptotic tail 1 − ADinf(a2) is below 1e-3 it is multiplied by the
    relative finite-n correction at 1e-3, 1 + 1.0652/n (errfix's polynomial would
    otherwise leave a floor of 6e-4/n); the result is continuous and decreasing in a2.
    """
    if math.isnan(a2) or math.isinf(a2):
        return 0.0
    tail = _adinf_upper(a2)
    if tail < _ERRFIX_TAIL:
        factor = 1.0 - _errfix(n, 1.0 - _ERRFIX_TAIL) / _ERRFIX_TAIL
        return float(min(1.0, tail * factor))
    p = tail - _errfix(n, adinf(a2))
    return float(min(1.0, max(0.0, p)))


def anderson_darling_test(log_cdf_sorted: np.ndarray, log_sf_sorted: np.ndarray) -> SubTest:
    """Anderson–Darling test from log F(z_(i)) and log(1 − F(z_(i))) of the sorted sample.

    A² = −n − (1/n) Σᵢ (2i − 1) [log F(z_(i)) + log(1 − F(z_(n+1−i)))]; the survival
    function is used for log(1 − F) so the upper tail keeps full precision.  A sample
    point of probability zero under the law gives A² = inf (p-value 0).
    """
    n = int(log_cdf_sorted.size)
    weights = np.arange(1.0, 2.0 * n, 2.0)
    with np.errstate(invalid="ignore"):
        total = float(np.dot(weights, log_cdf_sorted) + np.dot(weights, log_sf_sorted[::-1]))
    a2 = math.inf if math.isnan(total) or total == -math.inf else -n - total / n
    return SubTest("anderson_darling", a2, ad_pvalue(a2, n), {"n": n})


# ----------------------------------------------------------------------------------------
# large samples: KS and Anderson–Darling through a binned probability-integral transform
# ----------------------------------------------------------------------------------------
#: Samples larger than this are tested through :class:`BinnedSample` (no full sort).
BINNED_ABOVE = 1 << 17
#: Uniform bins of the central region of :class:`BinnedSample`.
CENTRAL_BINS = 1 << 15
#: Tail probability (each side) beyond which :class:`BinnedSample` keeps draws exactly.
EXACT_TAIL = 0.01


def _segment_integral(
    c: np.ndarray, a: np.ndarray, a_c: np.ndarray, b: np.ndarray, b_c: np.ndarray
) -> np.ndarray:
    """∫_a^b (c − u)² / (u(1 − u)) du, vectorised, given a_c = 1 − a and b_c = 1 − b.

    Closed form −(b − a) + c² ln(b/a) + (1 − c)² ln((1 − a)/(1 − b)) (partial fractions:
    (c − u)²/(u(1 − u)) = −1 + c²/u + (1 − c)²/(1 − u)), with the logarithms written as
    log1p of the relative widths; 0 where b ≤ a, and the c² (resp. (1 − c)²) term is 0
    where c = 0 (resp. c = 1), whatever a (resp. b).
    """
    width = np.where(a < 0.5, b - a, a_c - b_c)
    ok = width > 0
    w = np.where(ok, width, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        left = np.where(c > 0, c * c * np.log1p(w / a), 0.0)
        right = np.where(c < 1, (1 - c) * (1 - c) * np.log1p(w / b_c), 0.0)
    value = -w + left + right
    return np.where(ok, np.maximum(np.nan_to_num(value, nan=0.0, posinf=np.inf), 0.0), 0.0)


class BinnedSample:
    """A large sample through its probability-integral transform, without a full sort.

    The draws below z_l = ppf(τ) and above z_r = ppf(1 − τ) (τ = :data:`EXACT_TAIL`,
    about 2τ·n draws) are kept exactly and sorted; the rest are counted in
    :data:`CENTRAL_BINS` equal bins of [z_l, z_r] (one ``bincount``).  The empirical CDF
    F_n is then known exactly in the tails and, inside a central bin [e_j, e_{j+1}),
    up to the order of its draws: F_n(u) ∈ [L_j, R_j] with L_j, R_j the fractions of
    draws below the two edges (in the uniform scale u = F(z)).

    **Conservative statistics.**  :meth:`ks` returns the largest |F_n − u| over the exact
    draws and the bin edges, a lower bound on the Kolmogorov–Smirnov D; :meth:`ad`
    returns n Σ_j ∫_bin dist(u, [L_j, R_j])² / (u(1 − u)) du (exact on the tail
    segments), a lower bound on the Anderson–Darling A² = n ∫ (F_n − u)²/(u(1 − u)) du,
    since the integrand is at least dist(u, [L_j, R_j])² pointwise.  Both p-values are
    decreasing in the statistic, so the p-values of the lower bounds are at least the
    exact ones: each test rejects a true law with probability at most its level.  The
    bins cost little power: the bin width in u is about 6·10⁻⁵ at the centre for the
    Gaussian (D's critical value at 10⁶ draws is about 1.4·10⁻³), and A² loses what the
    order of the draws inside a bin would add (measured on 10⁶ draws of Laplace and
    Gaussian noise: D_lb within 1 % of D, A²_lb within 0.15 of A², whose critical values
    are above 2).

    Cost: about eight passes over the draws and a sort of the 2τ·n tail draws, instead of
    a sort of all n and two CDF evaluations per draw.

    Parameters
    ----------
    z : array
        The finite draws.
    law : NoiseLaw
        The continuous declared law (``cdf``, ``sf`` and ``ppf``).
    """

    def __init__(self, z: np.ndarray, law: Any) -> None:
        n = int(z.size)
        self.n = n
        self.z = z
        z_l, z_r = (float(v) for v in np.asarray(law.ppf(np.array([EXACT_TAIL, 1 - EXACT_TAIL]))))
        self.z_l, self.z_r = z_l, z_r
        bins = CENTRAL_BINS
        scale = bins / (z_r - z_l)
        t = np.subtract(z, z_l)
        t *= scale  # bin j holds t ∈ [j, j + 1)
        self.low_tail = np.sort(z[t < 0])
        self.high_tail = np.sort(z[t >= bins])
        np.clip(t, -1.0, float(bins), out=t)
        t += 1.0  # ≥ 0 now: truncation is the floor
        self.counts = np.bincount(t.astype(np.intp), minlength=bins + 2)[1 : bins + 1]
        del t
        edges = z_l + np.arange(bins + 1) / scale
        self.edge_u = np.asarray(law.cdf(edges), dtype=np.float64)
        self.edge_s = np.asarray(law.sf(edges), dtype=np.float64)
        self.low_u = np.asarray(law.cdf(self.low_tail), dtype=np.float64).reshape(-1)
        self.high_s = np.asarray(law.sf(self.high_tail), dtype=np.float64).reshape(-1)

    # counts for the tail tests --------------------------------------------------------------
    def count_le(self, t: float) -> int:
        """#{Z ≤ t} (binary search in the exact tails, a comparison in between)."""
        if t < self.z_l:
            return int(np.searchsorted(self.low_tail, t, side="right"))
        if t >= self.z_r:
            return (
                self.n - self.high_tail.size + int(np.searchsorted(self.high_tail, t, side="right"))
            )
        return int(np.count_nonzero(self.z <= t))

    def count_gt(self, t: float) -> int:
        """#{Z > t}."""
        return self.n - self.count_le(t)

    # statistics --------------------------------------------------------------------------
    def support_failure(self) -> bool:
        """Whether some draw has probability 0 under the law (u = 0 or 1 − u = 0)."""
        return bool(np.any(self.low_u <= 0.0) or np.any(self.high_s <= 0.0))

    def ks(self) -> SubTest:
        """Kolmogorov–Smirnov with the lower bound D_lb ≤ D (see the class docstring)."""
        n = self.n
        m, r = self.low_u.size, self.high_s.size
        d = 0.0
        if m:
            i = np.arange(1.0, m + 1.0)
            d = max(d, float(np.max(i / n - self.low_u)), float(np.max(self.low_u - (i - 1) / n)))
        below = m + np.concatenate([[0], np.cumsum(self.counts)])  # draws below edge j
        d = max(d, float(np.max(np.abs(below / n - self.edge_u))))
        if r:
            i = np.arange(1.0, r + 1.0)
            rank = n - r + i  # F_n at the draw
            # F_n − u = (1 − u) − (1 − F_n) = s − (r − i)/n, and u − F_n(−) = (r − i + 1)/n − s
            d = max(
                d,
                float(np.max(self.high_s - (r - i) / n)),
                float(np.max((n - rank + 1) / n - self.high_s)),
            )
        return SubTest(
            "ks",
            d,
            float(stats.kstwo.sf(d, n)),
            {
                "n": n,
                "method": "binned PIT (lower bound on D)",
                "central_bins": int(self.counts.size),
                "exact_tail_draws": m + r,
            },
        )

    def ad(self) -> SubTest:
        """Anderson–Darling with the lower bound A²_lb ≤ A² (see the class docstring)."""
        n = self.n
        m, r = self.low_u.size, self.high_s.size
        # lower tail: segments [0, u_1], [u_1, u_2], …, [u_m, e_0] with F_n = k/n exactly
        lo_a = np.concatenate([[0.0], self.low_u])
        lo_b = np.concatenate([self.low_u, self.edge_u[:1]])
        lo_f = np.arange(m + 1.0) / n
        tail_lo = _segment_integral(
            lo_f, lo_a, 1.0 - lo_a, lo_b, np.concatenate([1.0 - self.low_u, self.edge_s[:1]])
        )
        # central bins: F_n ∈ [L_j, R_j] on [e_j, e_{j+1}]
        below = m + np.concatenate([[0], np.cumsum(self.counts)])
        big_l, big_r = below[:-1] / n, below[1:] / n
        comp_l, comp_r = (n - below[:-1]) / n, (n - below[1:]) / n
        a, a_c = self.edge_u[:-1], self.edge_s[:-1]
        b, b_c = self.edge_u[1:], self.edge_s[1:]
        # the part of the bin below L (F_n ≥ L > u there) and above R (F_n ≤ R < u)
        b1 = np.minimum(b, big_l)
        b1_c = np.where(b <= big_l, b_c, comp_l)
        part1 = _segment_integral(big_l, a, a_c, b1, b1_c)
        a2 = np.maximum(a, big_r)
        a2_c = np.where(a >= big_r, a_c, comp_r)
        part2 = _segment_integral(big_r, a2, a2_c, b, b_c)
        # upper tail: segments [e_B, v_1], …, [v_r, 1] with F_n = (n − r + k)/n exactly
        hi_s_a = np.concatenate([self.edge_s[-1:], self.high_s])
        hi_s_b = np.concatenate([self.high_s, [0.0]])
        hi_f = (n - r + np.arange(r + 1.0)) / n
        tail_hi = _segment_integral(hi_f, 1.0 - hi_s_a, hi_s_a, 1.0 - hi_s_b, hi_s_b)
        total = float(n * (tail_lo.sum() + part1.sum() + part2.sum() + tail_hi.sum()))
        a2_stat = math.inf if not math.isfinite(total) else total
        return SubTest(
            "anderson_darling",
            a2_stat,
            ad_pvalue(a2_stat, n),
            {"n": n, "method": "binned PIT (lower bound on A^2)"},
        )


# ----------------------------------------------------------------------------------------
# tails
# ----------------------------------------------------------------------------------------
def binomial_two_sided(count: int, n: int, p: float) -> float:
    """Exact two-sided binomial p-value by doubling the smaller tail (the "central" test):
    min(1, 2·min(P[X ≤ k], P[X ≥ k])) for X ~ Bin(n, p).  It is at least each one-sided
    exact p-value, hence valid at its level; two CDF evaluations instead of the search
    for equally likely outcomes behind ``scipy.stats.binomtest``."""
    low = float(stats.binom.cdf(count, n, p))
    high = float(stats.binom.sf(count - 1, n, p))
    return min(1.0, 2.0 * min(low, high))


def _binomial(name: str, count: int, n: int, p: float, threshold: str, q: float) -> SubTest:
    return SubTest(
        name,
        float(count),
        binomial_two_sided(int(count), int(n), float(p)),
        {
            "observed": int(count),
            "expected": float(n * p),
            "probability": float(p),
            "event": threshold,
            "q": q,
        },
    )


class SortedCounter:
    """Counts of a sorted sample at or below / above thresholds (binary searches)."""

    def __init__(self, z_sorted: np.ndarray) -> None:
        self.z = z_sorted
        self.n = int(z_sorted.size)

    def count_le(self, t: float) -> int:
        """#{Z ≤ t}."""
        return int(np.searchsorted(self.z, t, side="right"))

    def count_gt(self, t: float) -> int:
        """#{Z > t}."""
        return self.n - self.count_le(t)


class IntegerCounter:
    """Counts of an integer-valued sample at or below thresholds, from one ``bincount``
    (no sort); ``None`` from :meth:`of` when the range is too wide."""

    def __init__(self, low: int, cumulative: np.ndarray, n: int) -> None:
        self.low = low
        self.cumulative = cumulative  # cumulative[k] = #{Z ≤ low + k}
        self.n = n

    @classmethod
    def of(cls, z: np.ndarray, max_range: int = 1 << 22) -> IntegerCounter | None:
        """From integer-valued ``z`` (already checked to lie on the lattice)."""
        if z.size == 0:
            return None
        lo, hi = float(z.min()), float(z.max())
        if hi - lo >= max_range:
            return None
        k = (z - lo).astype(np.intp)
        return cls(int(lo), np.cumsum(np.bincount(k, minlength=int(hi - lo) + 1)), int(z.size))

    def count_le(self, t: float) -> int:
        """#{Z ≤ t}."""
        k = math.floor(t) - self.low
        if k < 0:
            return 0
        return int(self.cumulative[min(k, self.cumulative.size - 1)])

    def count_gt(self, t: float) -> int:
        """#{Z > t}."""
        return self.n - self.count_le(t)


def tail_tests(z_sorted: np.ndarray | Any, law: Any, *, discrete: bool) -> list[SubTest]:
    """Exact binomial tests of the counts in both tails, and in each tail, at several levels.

    ``z_sorted`` is the sorted sample, or any counter with ``n``, ``count_le(t)`` and
    ``count_gt(t)`` (:class:`SortedCounter`, :class:`IntegerCounter`,
    :class:`BinnedSample`).

    For each q in :data:`TAIL_PROBABILITIES` with n·q ≥ :data:`TAIL_MIN_EXPECTED`, the
    upper event is Z > t⁺ with t⁺ = ppf(1 − q/2) and the lower event Z ≤ t⁻ with
    t⁻ = ppf(q/2) (continuous) or ppf(q/2) − 1 (integer laws, so that both events are
    the strict tails); their exact probabilities (``sf(t⁺)``, ``cdf(t⁻)``) are tested
    together and separately.  For a symmetric law the joint event is |Z| > t⁺.
    Duplicate events (coarse integer laws) and events of probability 0 or 1 are skipped.
    """
    counter = SortedCounter(z_sorted) if isinstance(z_sorted, np.ndarray) else z_sorted
    n = int(counter.n)
    out: list[SubTest] = []
    seen: set[tuple[float, float]] = set()
    for q in TAIL_PROBABILITIES:
        if n * q < TAIL_MIN_EXPECTED:
            continue
        t_up = float(law.ppf(1.0 - q / 2.0))
        t_lo = float(law.ppf(q / 2.0)) - (1.0 if discrete else 0.0)
        if (t_lo, t_up) in seen:
            continue
        seen.add((t_lo, t_up))
        p_up, p_lo = float(law.sf(t_up)), float(law.cdf(t_lo))
        c_up = counter.count_gt(t_up)
        c_lo = counter.count_le(t_lo)
        events = [
            ("both", c_lo + c_up, p_lo + p_up, f"Z <= {t_lo:.6g} or Z > {t_up:.6g}"),
            ("lower", c_lo, p_lo, f"Z <= {t_lo:.6g}"),
            ("upper", c_up, p_up, f"Z > {t_up:.6g}"),
        ]
        for side, count, p, event in events:
            if 0.0 < p < 1.0:
                out.append(_binomial(f"tail_{side}_q={q:g}", count, n, p, event, q))
    return out


# ----------------------------------------------------------------------------------------
# χ² and exact multinomial
# ----------------------------------------------------------------------------------------
def merge_bins(
    expected: np.ndarray, order: np.ndarray | None = None, minimum: float = MIN_EXPECTED
) -> np.ndarray:
    """Group labels merging bins, in ``order``, until each group expects ≥ ``minimum``.

    Groups are formed greedily along ``order`` (default: the natural order); a last
    group below the minimum joins the previous one.  The grouping depends on the
    expected counts only, never on the data, so the χ² test stays valid.
    """
    k = expected.size
    idx = np.arange(k) if order is None else np.asarray(order)
    labels = np.empty(k, dtype=np.int64)
    group, acc, members = 0, 0.0, 0
    for i in idx.tolist():
        labels[i] = group
        acc += float(expected[i])
        members += 1
        if acc >= minimum:
            group, acc, members = group + 1, 0.0, 0
    if members and group > 0:  # an incomplete last group joins the previous one
        labels[labels == group] = group - 1
    return labels


def chi_square_test(
    counts: np.ndarray,
    probs: np.ndarray,
    *,
    name: str = "chi_square",
    order: np.ndarray | None = None,
) -> SubTest:
    """Pearson χ² test of ``counts`` against probabilities ``probs`` (merged bins).

    ``probs`` is renormalised to sum 1 (it may carry round-off).  An observation in a bin
    of probability 0 gives p = 0; the other bins of probability 0 are dropped, the rest
    merged with :func:`merge_bins` (along ``order``) to expected counts ≥ 5, and
    X² = Σ (O − E)²/E over the G groups is referred to χ² with G − 1 degrees of freedom.
    """
    counts = np.asarray(counts, dtype=np.float64)
    probs = np.clip(np.asarray(probs, dtype=np.float64), 0.0, None)
    n = float(counts.sum())
    info: dict[str, Any] = {"bins": int(probs.size), "n": int(n)}
    impossible = (probs <= 0) & (counts > 0)
    if impossible.any():  # an outcome of probability zero was observed
        return SubTest(
            name, math.inf, 0.0, {**info, "impossible_outcomes": int(counts[impossible].sum())}
        )
    possible = probs > 0
    counts, probs = counts[possible], probs[possible]
    order_kept = None
    if order is not None:
        remap = np.cumsum(possible) - 1
        order_kept = remap[np.asarray(order)[possible[np.asarray(order)]]]
    expected = n * probs / probs.sum()
    labels = merge_bins(expected, order_kept)
    groups = int(labels.max()) + 1 if labels.size else 0
    obs_g = np.bincount(labels, weights=counts, minlength=groups)
    exp_g = np.bincount(labels, weights=expected, minlength=groups)
    info["groups"] = groups
    if groups < 2:
        return SubTest(name, 0.0, 1.0, {**info, "note": "fewer than two groups; nothing to test"})
    x2 = float(np.sum((obs_g - exp_g) ** 2 / exp_g))
    df = groups - 1
    return SubTest(name, x2, float(stats.chi2.sf(x2, df)), {**info, "df": df})


def exact_multinomial_test(
    counts: np.ndarray, probs: np.ndarray, *, name: str = "exact_multinomial"
) -> SubTest | None:
    """Exact multinomial test (sum of the probabilities of outcomes no likelier than observed).

    Returns ``None`` when the number of outcomes C(n + m − 1, m − 1) exceeds
    :data:`EXACT_MULTINOMIAL_LIMIT`.  Ties within a relative 1e-7 count as "no likelier".
    """
    counts = np.asarray(counts, dtype=np.int64)
    probs = np.asarray(probs, dtype=np.float64)
    probs = probs / probs.sum()
    n, m = int(counts.sum()), int(counts.size)
    if math.comb(n + m - 1, m - 1) > EXACT_MULTINOMIAL_LIMIT:
        return None
    bars = np.array(list(itertools.combinations(range(n + m - 1), m - 1)), dtype=np.int64).reshape(
        -1, m - 1
    )
    edges = np.hstack(
        [np.full((bars.shape[0], 1), -1), bars, np.full((bars.shape[0], 1), n + m - 1)]
    )
    outcomes = np.diff(edges, axis=1) - 1
    with np.errstate(divide="ignore"):
        log_p = np.log(probs)

    def log_pmf(k: np.ndarray) -> np.ndarray:
        terms = np.where(k > 0, k * log_p, 0.0)
        return special.gammaln(n + 1) - special.gammaln(k + 1).sum(axis=-1) + terms.sum(axis=-1)

    observed = float(log_pmf(counts[None, :])[0])
    all_log = log_pmf(outcomes)
    p = float(np.exp(all_log[all_log <= observed + 1e-7 * max(1.0, abs(observed))]).sum())
    return SubTest(name, observed, min(1.0, p), {"n": n, "outcomes": int(outcomes.shape[0])})


# ----------------------------------------------------------------------------------------
# bins of integer laws
# ----------------------------------------------------------------------------------------
def integer_bins(law: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Bin edges b and bin probabilities of an integer law for a sample of size n.

    The edges are the distinct quantiles ppf(j/K), j = 1 … K − 1, with
    K = min(1000, ⌈2 n^{2/5}⌉) (Mann & Wald's rule of thumb): bins are
    (−∞, b₀], (b₀, b₁], …, (b_last, ∞).  On a coarse lattice the quantiles coincide and
    every integer of the bulk gets its own bin.  Bin probabilities use cdf differences
    below the median and sf differences above it (tail precision).
    """
    k = int(min(1000, max(2, math.ceil(2.0 * n**0.4))))
    edges = np.unique(np.asarray(law.ppf(np.arange(1, k) / k), dtype=np.float64))
    edges = edges[np.isfinite(edges)]
    cdf = np.asarray(law.cdf(edges), dtype=np.float64)
    sf = np.asarray(law.sf(edges), dtype=np.float64)
    inner_cdf = np.diff(cdf)
    inner_sf = -np.diff(sf)
    inner = np.where(cdf[1:] <= 0.5, inner_cdf, inner_sf)
    probs = np.concatenate([cdf[:1], inner, sf[-1:]])
    return edges, np.clip(probs, 0.0, None)
