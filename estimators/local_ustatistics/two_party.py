"""Protocols C and D: pairs of users compute a noisy kernel value by (simulated) 2PC.

Bell, Bellet, Gascón & Kulkarni (AISTATS 2020), §5.  The cryptographic layer is simulated,
as in the paper's experiments: f(x_i, x_j) is computed in the clear and noise is added.
What is private is the *central view*: the noisy kernel values the aggregator receives.

* Protocol C (Theorem 5): P independent uniform permutations pair the users
  (⌊n/2⌋ pairs each, P⌊n/2⌋ in total; each user is in at most P pairs); each pair
  releases f̃ = f(x_i, x_j) + Lap(PΔ/ε), and Û = mean of the f̃.  Changing one user's
  value moves at most P released values by at most Δ (ℓ1 sensitivity PΔ), so the view is
  ε-DP (ε-CDP with real 2PC) under substitute-one.
* Its discrete-kernel variant (§5, "the extension to randomized response for
  discrete-valued kernels is straightforward"): each pair releases k-RR of f's value at
  budget ε/P over the kernel's value set, debiased linearly.
* Protocol D (§5's all-pairs baseline, Figure 4): every pair releases
  f + Lap(Δ/ε₀), with the largest ε₀ such that the (n − 1)-fold composition of ε₀-DP is
  (ε, δ)-DP by advanced composition (Dwork, Rothblum & Vadhan, FOCS 2010; the paper does
  not print its ε₀).

Erratum of Theorem 5: Lap(PΔ/ε) has variance 2P²Δ²/ε², and the mean of Pn/2 of them has
variance (2/(Pn))²·(Pn/2)·2P²Δ²/ε² = 4PΔ²/(nε²), not the printed 2P/(nε²)
(``docs/ldp_ustat_study.md``, errata).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from scipy.optimize import brentq

from privaudit.mechanisms import AdditiveNoiseMechanism, Mechanism, advanced_composition
from privaudit.mechanisms.accounting import PrivacyBudget, charge
from privaudit.spec import (
    AdditiveNoise,
    ApproxDP,
    DatasetDomain,
    FiniteOutputLaw,
    FiniteRandomizer,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    RandomLike,
    RealInterval,
    SubstituteOne,
    VectorDomain,
    as_generator,
)
from privaudit.spec.domains import RecordDomain
from privaudit.spec.errors import (
    DeltaRangeError,
    InconsistentSpecError,
    InputShapeError,
    InvalidInputError,
    InvalidParameterError,
)
from privaudit.spec.stable_values import round_down
from privaudit.spec.validation import check_delta, check_epsilon, check_sample_size, real_array

from ._references import reference
from .results import LocalUStatisticEstimate

__all__ = [
    "all_pairs_epsilon0",
    "all_pairs_view_mechanism",
    "debias_discrete",
    "discrete_view_mechanism",
    "permutation_pairs",
    "private_ustatistic_2pc",
    "private_ustatistic_2pc_all_pairs",
    "private_ustatistic_2pc_discrete",
    "subsampled_view_mechanism",
    "theorem5_mse",
]

PairKernel = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""A vectorised symmetric kernel: f(x[i], x[j]) for arrays of left and right records."""

DRV_2010 = "Dwork, Rothblum & Vadhan, 'Boosting and differential privacy', FOCS 2010"


def _check_p(p: Any) -> int:
    """P, the number of pairings, as an int ≥ 1 (:func:`spec.validation.check_sample_size`)."""
    return check_sample_size(p, 1, "P")


def _check_n(n: Any, minimum: int = 2) -> int:
    """n as an int ≥ ``minimum`` (:func:`spec.validation.check_sample_size`)."""
    return check_sample_size(n, minimum, "n")


def permutation_pairs(n: int, p: int, rng: RandomLike = None) -> np.ndarray:
    """(P⌊n/2⌋, 2) index pairs from P independent uniform permutations (public, data-free).

    For odd n each permutation leaves its last user out (the paper assumes n even).
    """
    nn, pp = _check_n(n), _check_p(p)
    gen = as_generator(rng)
    half = nn // 2
    perms = np.argsort(gen.random((pp, nn)), axis=1)[:, : 2 * half]
    return perms.reshape(pp * half, 2)


def theorem5_mse(
    n: int,
    p: int,
    epsilon: float,
    zeta1: float,
    zeta2: float,
    sensitivity: float = 1.0,
    printed: bool = False,
) -> float:
    """Theorem 5's MSE of Û against the population U (corrected noise term by default).

    (2/(Pn))·[2(P−1)(1 − 1/(n−1)) ζ1 + (1 + (P−1)/(n−1)) ζ2] + 4PΔ²/(nε²); with
    ``printed=True`` the noise term is the printed 2P/(nε²) (Δ = 1), which is wrong.
    """
    nn, pp = _check_n(n), _check_p(p)
    eps = check_epsilon(epsilon)
    sub = (2.0 / (pp * nn)) * (
        2 * (pp - 1) * (1 - 1 / (nn - 1)) * zeta1 + (1 + (pp - 1) / (nn - 1)) * zeta2
    )
    noise = (2.0 * pp / (nn * eps**2)) if printed else 4.0 * pp * sensitivity**2 / (nn * eps**2)
    return sub + noise


# ----------------------------------------------------------------------------------------
# Protocol C
# ----------------------------------------------------------------------------------------
def _records(data: Any) -> np.ndarray:
    """n ≥ 2 finite real records, scalars (shape (n,)) or vectors (shape (n, d))."""
    arr = real_array(data, "data")
    if arr.ndim not in (1, 2):
        raise InputShapeError(
            f"data must be n >= 2 records of shape (n,) or (n, d), got shape {arr.shape}"
        )
    if arr.shape[0] < 2:
        raise InvalidInputError(f"data must be n >= 2 records, got shape {arr.shape}")
    return arr


def _kernel_output(kernel: PairKernel, x: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """f(x_i, x_j) on the pairs, one real per pair (else the records do not fit the kernel)."""
    values = np.asarray(kernel(x[pairs[:, 0]], x[pairs[:, 1]]), dtype=np.float64)
    if values.shape != (pairs.shape[0],):
        raise InputShapeError(
            f"kernel returned shape {values.shape} for {pairs.shape[0]} "
            f"pairs of records of shape {x.shape}: one value per pair needed"
        )
    return values


def _kernel_values(
    kernel: PairKernel, x: np.ndarray, pairs: np.ndarray, lower: float, upper: float
) -> np.ndarray:
    values = _kernel_output(kernel, x, pairs)
    bad = (values < lower) | (values > upper) | ~np.isfinite(values)
    if bad.any():
        raise InvalidInputError(
            f"kernel value {values[bad][0]!r} outside its declared range [{lower:g}, {upper:g}]"
        )
    return values


@functools.lru_cache(maxsize=64)
def subsampled_view_mechanism(
    n: int,
    p: int,
    epsilon: float,
    kernel: PairKernel,
    record_domain: RecordDomain,
    lower: float,
    upper: float,
    *,
    pairing_seed: int = 0,
    name: str = "local_ustat.2pc.subsampled",
) -> AdditiveNoiseMechanism:
    """Protocol C's central view: all P⌊n/2⌋ noisy kernel values, Laplace(PΔ/ε) each.

    The pairing is public (permutations from ``pairing_seed``); substitute-one of one
    user's value moves at most P values by at most Δ = upper − lower, so the global ℓ1
    sensitivity is PΔ and the view is ε-DP (Theorem 5's privacy part).
    """
    nn, pp = _check_n(n), _check_p(p)
    eps = check_epsilon(epsilon)
    width = float(upper) - float(lower)
    pairs = permutation_pairs(nn, pp, pairing_seed)
    spec = MechanismSpec(
        name=name,
        summary=f"Protocol C (2PC simulated): {pairs.shape[0]} noisy kernel values "
        f"of P = {pp} random pairings",
        references=(reference("Section 5, Theorem 5"),),
        input_domain=DatasetDomain(record=record_domain, size=nn),
        relation=SubstituteOne(),
        statistic="f(x_i, x_j) on the public pairs",
        output_dimension=int(pairs.shape[0]),
        sensitivity=(GlobalSensitivity(value=pp * width, norm="l1"),),
        noise=AdditiveNoise(law=Laplace(scale=pp * width / eps)),
        guarantee=PureDP(epsilon=eps),
        notes="central view of the aggregator (the 2PC layer is simulated: CDP becomes DP); "
        "floating-point Laplace, idealized numerics",
    )
    return AdditiveNoiseMechanism(
        spec, statistic=lambda x: _kernel_values(kernel, np.asarray(x), pairs, lower, upper)
    )


def private_ustatistic_2pc(
    data: Any,
    kernel: PairKernel,
    epsilon: float,
    p: int = 1,
    *,
    lower: float = 0.0,
    upper: float = 1.0,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalUStatisticEstimate:
    """Protocol C: Û = mean over P⌊n/2⌋ random pairs of f + Lap(P(upper − lower)/ε).

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged for
    the central view's spec (the whole release) before any randomness is drawn.

    Returns
    -------
    LocalUStatisticEstimate
        ``variance_bound`` is the noise part: 2P²Δ²/ε² divided by the number of pairs
        (the corrected Theorem 5 term, 4PΔ²/(nε²) for even n).
    """
    x = _records(data)
    pp = _check_p(p)
    eps = check_epsilon(epsilon)
    mech = subsampled_view_mechanism(
        max(2, x.shape[0] - x.shape[0] % 2), pp, eps, kernel, _record_domain(x), lower, upper
    )
    charge(budget, mech.spec, estimator=mech.spec.name)
    gen = as_generator(rng)
    pairs = permutation_pairs(x.shape[0], pp, gen)
    width = float(upper) - float(lower)
    values = _kernel_values(kernel, x, pairs, lower, upper)
    noisy = values + gen.laplace(0.0, pp * width / eps, values.size)
    return LocalUStatisticEstimate(
        estimate=float(noisy.mean()),
        spec=mech.spec,
        protocol="C",
        n=int(x.shape[0]),
        epsilon=eps,
        variance_bound=2.0 * (pp * width / eps) ** 2 / values.size,
        details={"P": pp, "pairs": int(values.size), "laplace_scale": pp * width / eps},
    )


def _record_domain(x: np.ndarray) -> RecordDomain:
    """A public, data-independent record domain for the returned spec (unbounded reals)."""
    return _unbounded_domain(1 if x.ndim == 1 else int(x.shape[1]))


@functools.lru_cache(maxsize=64)
def _unbounded_domain(dimension: int) -> RecordDomain:
    if dimension == 1:
        return RealInterval()
    return VectorDomain(element=RealInterval(), length=dimension)


# ----------------------------------------------------------------------------------------
# Protocol C, discrete kernel (randomized response per pair)
# ----------------------------------------------------------------------------------------
def debias_discrete(reports: np.ndarray, values: npt.ArrayLike, keep: float) -> np.ndarray:
    """Unbiased g(r) for k-RR over the kernel's value set V (k = |V|):

    E[r] = f (p − q) + q S with q = (1 − p)/(k − 1), S = Σ V, so g = (r − qS)/(p − q).
    For V = {0, 1} this is (r − q)/(1 − 2q).
    """
    v = np.asarray(values, dtype=np.float64)
    k = v.size
    q = (1.0 - keep) / (k - 1)
    return (np.asarray(reports, dtype=np.float64) - q * v.sum()) / (keep - q)


def _rr_keep(epsilon: float, k: int) -> float:
    return 1.0 / (1.0 + (k - 1) * math.exp(-epsilon))


def discrete_view_mechanism(
    n: int,
    p: int,
    epsilon: float,
    kernel: PairKernel,
    record_domain: RecordDomain,
    values: Sequence[float],
    *,
    pairing_seed: int = 0,
    name: str = "local_ustat.2pc.discrete",
) -> Mechanism:
    """The discrete variant's central view: k-RR (budget ε/P) of f on every public pair.

    Output symbols are indices into ``values``; the law is a product over pairs, exposed
    through ``output_probabilities`` (exact audit).
    """
    nn, pp = _check_n(n), _check_p(p)
    eps = check_epsilon(epsilon)
    vals = np.asarray(values, dtype=np.float64)
    if vals.ndim != 1 or vals.size < 2 or np.unique(vals).size != vals.size:
        raise InvalidParameterError(f"values must list >= 2 distinct kernel values, got {values!r}")
    pairs = permutation_pairs(nn, pp, pairing_seed)
    keep = _rr_keep(eps / pp, vals.size)
    spec = MechanismSpec(
        name=name,
        summary=f"Protocol C, discrete kernel: {vals.size}-RR at eps/P of f on "
        f"{pairs.shape[0]} public pairs",
        references=(reference("Section 5 (randomized response for discrete kernels)"),),
        input_domain=DatasetDomain(record=record_domain, size=nn),
        relation=SubstituteOne(),
        statistic="index of f(x_i, x_j) in the value set, per public pair",
        output_dimension=int(pairs.shape[0]),
        noise=FiniteRandomizer(
            law=FiniteOutputLaw(
                alphabet=int(vals.size),
                length=int(pairs.shape[0]),
                epsilon=eps,
                description=f"{vals.size}-RR at eps/P per pair; one user is in at most P pairs",
            )
        ),
        guarantee=PureDP(epsilon=eps),
    )
    return _DiscreteView(spec, kernel, pairs, vals, keep)


_cached_discrete_view = functools.lru_cache(maxsize=64)(discrete_view_mechanism)


class _DiscreteView(Mechanism):
    def __init__(
        self,
        spec: MechanismSpec,
        kernel: PairKernel,
        pairs: np.ndarray,
        values: np.ndarray,
        keep: float,
    ) -> None:
        super().__init__(spec)
        self._kernel, self._pairs, self._values, self._keep = kernel, pairs, values, keep

    def cells(self, data: Any) -> np.ndarray:
        x = np.asarray(data)
        f = np.asarray(self._kernel(x[self._pairs[:, 0]], x[self._pairs[:, 1]]), dtype=float)
        idx = (
            np.searchsorted(self._values, f)
            if np.all(np.diff(self._values) > 0)
            else np.array([int(np.flatnonzero(self._values == v)[0]) for v in f])
        )
        if np.any(idx >= self._values.size) or not np.allclose(self._values[idx], f):
            raise InvalidInputError("a kernel value is not in the declared value set")
        return idx.astype(np.int64)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        cells = np.broadcast_to(self.cells(data), (size, self._pairs.shape[0]))
        k = self._values.size
        kept = rng.random(cells.shape) < self._keep
        other = rng.integers(0, k - 1, cells.shape, dtype=np.int64)
        other += other >= cells
        return np.where(kept, cells, other)

    def output_probabilities(self, data: Any) -> np.ndarray:
        k = self._values.size
        cells = self.cells(self.validate_input(data))
        out = np.full((cells.size, k), (1.0 - self._keep) / (k - 1))
        out[np.arange(cells.size), cells] = self._keep
        return out


def private_ustatistic_2pc_discrete(
    data: Any,
    kernel: PairKernel,
    values: Sequence[float],
    epsilon: float,
    p: int = 1,
    *,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalUStatisticEstimate:
    """Protocol C with randomized response: Û = mean of the debiased k-RR(ε/P) reports.

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged for
    the central view's spec (the whole release) before any randomness is drawn.
    """
    x = _records(data)
    pp = _check_p(p)
    eps = check_epsilon(epsilon)
    vals = np.sort(np.asarray(values, dtype=np.float64))
    mech = _cached_discrete_view(
        max(2, x.shape[0] - x.shape[0] % 2),
        pp,
        eps,
        kernel,
        _record_domain(x),
        tuple(vals.tolist()),
    )
    charge(budget, mech.spec, estimator=mech.spec.name)
    gen = as_generator(rng)
    pairs = permutation_pairs(x.shape[0], pp, gen)
    f = _kernel_output(kernel, x, pairs)
    idx = np.searchsorted(vals, f)
    if np.any(idx >= vals.size) or not np.allclose(vals[np.minimum(idx, vals.size - 1)], f):
        raise InvalidInputError(f"kernel values must lie in {vals.tolist()}")
    keep = _rr_keep(eps / pp, vals.size)
    kept = gen.random(idx.shape) < keep
    other = gen.integers(0, vals.size - 1, idx.shape, dtype=np.int64)
    other += other >= idx
    reports = vals[np.where(kept, idx, other)]
    g = debias_discrete(reports, vals, keep)
    return LocalUStatisticEstimate(
        estimate=float(g.mean()),
        spec=mech.spec,
        protocol="C-discrete",
        n=int(x.shape[0]),
        epsilon=eps,
        variance_bound=_discrete_noise_variance(vals, keep) / g.size,
        details={"P": pp, "pairs": int(g.size), "keep_probability": keep},
    )


def _discrete_noise_variance(values: np.ndarray, keep: float) -> float:
    """max over true values f of Var g(r) (the per-pair randomization variance)."""
    k = values.size
    q = (1.0 - keep) / (k - 1)
    worst = 0.0
    for f in range(k):
        probs = np.full(k, q)
        probs[f] = keep
        g = debias_discrete(values, values, keep)
        worst = max(worst, float(probs @ g**2 - (probs @ g) ** 2))
    return worst


# ----------------------------------------------------------------------------------------
# Protocol D
# ----------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=256)
def all_pairs_epsilon0(n: int, epsilon: float, delta: float) -> float:
    """The largest ε₀ whose (n − 1)-fold composition is (ε, δ)-DP.

    Uses :func:`mechanisms.advanced_composition` (min of basic and advanced composition,
    Dwork, Rothblum & Vadhan 2010): solves min((n−1)ε₀, √(2(n−1) ln(1/δ)) ε₀ +
    (n−1) ε₀ (e^{ε₀} − 1)) = ε.  The root (Brent's method, which may stop on either side)
    is rounded down to the stable grid of :mod:`spec.stable_values`: a smaller ε₀ keeps
    the claim, and the Laplace scale width/ε₀ of the spec is the same on every CPU.
    """
    nn = _check_n(n)
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if dl <= 0:
        raise DeltaRangeError(f"delta must be > 0 for advanced composition, got {delta!r}")
    k = nn - 1

    def gap(e0: float) -> float:
        return advanced_composition(PureDP(epsilon=e0), k, dl).epsilon - eps

    return round_down(float(brentq(gap, eps * 1e-12, eps, xtol=eps * 1e-14, rtol=1e-14)))


@functools.lru_cache(maxsize=64)
def all_pairs_view_mechanism(
    n: int,
    epsilon: float,
    delta: float,
    kernel: PairKernel,
    record_domain: RecordDomain,
    lower: float,
    upper: float,
    *,
    name: str = "local_ustat.2pc.all_pairs",
) -> Mechanism:
    """Protocol D's view of one user: the n − 1 values f(x_0, x_j) + Lap(Δ/ε₀), j ≥ 1.

    Substitute-one of x_0 moves all n − 1 values by ≤ Δ, of x_j one value: ℓ1 sensitivity
    (n − 1)Δ.  When basic composition is the binding one ((n − 1)ε₀ = ε) the spec is the
    Laplace vector's own (checked by the spec validator); when advanced composition wins,
    the spec language cannot express the composed (ε, δ) of a Laplace vector, and the view
    is declared as a black box with its (ε, δ) claim and the derivation in ``notes``.
    """
    nn = _check_n(n)
    eps0 = all_pairs_epsilon0(nn, epsilon, delta)
    width = float(upper) - float(lower)
    domain = DatasetDomain(record=record_domain, size=nn)
    others = np.arange(1, nn)

    def statistic(x: Any) -> np.ndarray:
        arr = np.asarray(x)
        pairs = np.stack((np.zeros(nn - 1, dtype=np.int64), others), axis=1)
        return _kernel_values(kernel, arr, pairs, lower, upper)

    common: dict[str, Any] = {
        "name": name,
        "summary": f"Protocol D (2PC simulated, all pairs): user 0's {nn - 1} noisy kernel "
        f"values, eps0 = {eps0:.4g}",
        "references": (reference("Section 5, all-pairs baseline (Figure 4)"),),
        "input_domain": domain,
        "relation": SubstituteOne(),
        "statistic": "f(x_0, x_j), j = 1..n-1",
        "output_dimension": nn - 1,
        "guarantee": ApproxDP(epsilon=epsilon, delta=delta),
    }
    try:
        spec = MechanismSpec(
            **common,
            sensitivity=(GlobalSensitivity(value=(nn - 1) * width, norm="l1"),),
            noise=AdditiveNoise(law=Laplace(scale=width / eps0)),
        )
        return AdditiveNoiseMechanism(spec, statistic=statistic)
    except InconsistentSpecError:
        spec = MechanismSpec(
            **common,
            notes=(
                f"n - 1 = {nn - 1} Laplace(Delta/eps0) releases per user with eps0 = {eps0:.6g}: "
                f"(eps, delta)-DP by advanced composition ({DRV_2010}); declared black-box because "
                "the spec language checks a Laplace vector's composition only in pure form"
            ),
        )
        gen_scale = width / eps0

        class _View(Mechanism):
            def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
                centre = statistic(data)
                return centre[None, :] + rng.laplace(0.0, gen_scale, (size, centre.size))

        return _View(spec)


def private_ustatistic_2pc_all_pairs(
    data: Any,
    kernel: PairKernel,
    epsilon: float,
    delta: float,
    *,
    lower: float = 0.0,
    upper: float = 1.0,
    noise: Literal["exact", "clt"] = "exact",
    u_statistic: float | None = None,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalUStatisticEstimate:
    """Protocol D: mean over all C(n, 2) pairs of f + Lap(Δ/ε₀).

    ``noise="exact"`` draws every Laplace variable (O(n²), small n); ``noise="clt"``
    draws their mean as one Gaussian of the same variance 2(Δ/ε₀)²/C(n, 2) (the study's
    simulation at n ≈ 2.5·10⁵, where 3·10¹⁰ draws are out of reach; exact to O(1/√C(n,2))
    in distribution), with the plaintext U_n given as ``u_statistic`` or computed.

    ``budget`` (a :class:`~mechanisms.accounting.PrivacyBudget`, optional) is charged for
    the central view's spec (the whole release) before any randomness is drawn.
    """
    x = _records(data)
    n = x.shape[0]
    eps = check_epsilon(epsilon)
    eps0 = all_pairs_epsilon0(n, eps, delta)
    width = float(upper) - float(lower)
    if noise not in ("exact", "clt"):
        raise InvalidParameterError(f"noise must be 'exact' or 'clt', got {noise!r}")
    mech = all_pairs_view_mechanism(n, eps, delta, kernel, _record_domain(x), lower, upper)
    charge(budget, mech.spec, estimator=mech.spec.name)
    gen = as_generator(rng)
    m = n * (n - 1) // 2
    scale = width / eps0
    if noise == "exact":
        iu = np.triu_indices(n, 1)
        values = _kernel_values(kernel, x, np.stack(iu, axis=1), lower, upper)
        est = float((values + gen.laplace(0.0, scale, values.size)).mean())
    elif noise == "clt":
        if u_statistic is None:
            iu = np.triu_indices(n, 1)
            u_statistic = float(
                _kernel_values(kernel, x, np.stack(iu, axis=1), lower, upper).mean()
            )
        est = float(u_statistic) + float(gen.normal(0.0, scale * math.sqrt(2.0 / m)))
    else:
        raise InvalidParameterError(f"noise must be 'exact' or 'clt', got {noise!r}")
    return LocalUStatisticEstimate(
        estimate=est,
        spec=mech.spec,
        protocol="D",
        n=int(n),
        epsilon=eps,
        variance_bound=2.0 * scale**2 / m,
        details={"epsilon0": eps0, "delta": delta, "pairs": m, "noise": noise},
    )
