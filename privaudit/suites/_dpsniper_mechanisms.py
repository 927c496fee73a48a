"""DP-Sniper's benchmark mechanisms other than the sparse vector family, vectorised.

Each class keeps the semantics of its namesake in ``eth-sri/dp-sniper``
(``dpsniper/mechanisms/*.py``): the same output, noise law, parameters and defaults;
randomness comes only from the injected Generator.  Laplace variates of the multi-column
samplers (LaplaceParallel, PrefixSum) are drawn as b·S·E, E ~ Exp(1) and S an independent
random sign (:func:`~privaudit.suites._laplace.laplace_noise`; Kotz, Kozubowski &
Podgórski 2001, §2.2): the law of ``Generator.laplace``, not its stream.  The
report-noisy-max and noisy histogram variants are
:class:`~privaudit.suites._families.NoisyMax` and
:class:`~privaudit.suites._families.NoisyHistogram` with DP-Sniper's parameters.
"""

from __future__ import annotations

import math
from itertools import pairwise
from typing import Any, Literal

import numpy as np

from privaudit.spec import (
    AdditiveNoise,
    GlobalSensitivity,
    IntegerRange,
    Laplace,
    LocalRelation,
    MechanismSpec,
    PureDP,
    Reference,
)
from privaudit.spec.errors import InvalidParameterError
from privaudit.suites._families import NoisyHistogram, NoisyMax, _count, _positive
from privaudit.suites._kernels import QueryMechanism, murmur3_32, query_spec
from privaudit.suites._laplace import laplace_noise

__all__ = [
    "BALCER_VADHAN_2018",
    "DPSNIPER_2021",
    "LaplaceParallel",
    "LaplaceQuery",
    "NoisyHist1",
    "NoisyHist2",
    "OneTimeRappor",
    "PrefixSum",
    "RAPPOR_2014",
    "Rappor",
    "ReportNoisyMax1",
    "ReportNoisyMax2",
    "ReportNoisyMax3",
    "ReportNoisyMax4",
    "SHADOWDP_2019",
    "TruncatedGeometric",
]

DPSNIPER_2021 = Reference(
    citation="Bichsel, Steffen, Bogunovic & Vechev, 'DP-Sniper: black-box discovery of "
    "differential privacy violations using classifiers', IEEE S&P 2021",
    locator="Section VI (evaluation); eth-sri/dp-sniper, dpsniper/mechanisms/*.py and "
    "dpsniper/experiments/exp_default.py",
)
BALCER_VADHAN_2018 = Reference(
    citation="Balcer & Vadhan, 'Differential privacy on finite computers', ITCS 2018",
    locator="Algorithm 4.8 (GeoSample) and Theorem 4.7",
    url="https://arxiv.org/abs/1709.05396",
)
RAPPOR_2014 = Reference(
    citation="Erlingsson, Pihur & Korolova, 'RAPPOR: randomized aggregatable "
    "privacy-preserving ordinal response', ACM CCS 2014",
    locator="Section 3, steps 1-3; Section 4 (epsilon_inf = 2h ln((1 - f/2)/(f/2)))",
)
SHADOWDP_2019 = Reference(
    citation="Wang, Ding, Wang, Kifer & Zhang, 'Proving differential privacy with shadow "
    "execution', PLDI 2019",
    locator="PrefixSum and NumSVT",
)
_DMNS = Reference(
    citation="Dwork, McSherry, Nissim & Smith, 'Calibrating noise to sensitivity in private "
    "data analysis', TCC 2006"
)

_EPS = 0.1  # DP-Sniper's default claim for every mechanism


class LaplaceQuery(QueryMechanism):
    """DP-Sniper's ``LaplaceMechanism``: one query answer plus Laplace(1/ε) noise.

    Parameters
    ----------
    epsilon : float
        Claimed ε (default 0.1).
    name : str
        The spec's name.

    Notes
    -----
    Input: one real number; neighbours differ by at most 1.  Output: ``float64`` of
    shape ``(N,)``.

    References
    ----------
    Dwork, McSherry, Nissim & Smith, TCC 2006; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/laplace.py`` (``LaplaceMechanism``).
    """

    def __init__(self, epsilon: float = _EPS, *, name: str = "dpsniper.LaplaceMechanism") -> None:
        self.epsilon = _positive(epsilon, "epsilon")
        self.scale = 1.0 / self.epsilon
        super().__init__(
            query_spec(
                name=name,
                summary="one query answer plus Laplace noise of scale 1/epsilon",
                references=(DPSNIPER_2021, _DMNS),
                length=1,
                norm="l1",
                epsilon=self.epsilon,
                noise=AdditiveNoise(law=Laplace(scale=self.scale), calibration="exact"),
            )
        )

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return float(data) + rng.laplace(0.0, self.scale, size)


class TruncatedGeometric(QueryMechanism):
    """Balcer–Vadhan GeoSample: a count in 0 … n released through an exact integer CDF.

    Parameters
    ----------
    epsilon : float
        The ε passed to GeoSample (default 0.1); the mechanism is exactly
        ln(1 + 2^−k)-DP with k = ⌈ln(2/ε)⌉ (0.11778 at ε = 0.1), not ε-DP.
    n : int
        Number of individuals: inputs are counts in 0 … n (default 5).
    name : str
        The spec's name.

    Notes
    -----
    F_c(z) is Step 2 of Algorithm 4.8 (exact integers); a uniform integer U in
    1 … d with d = (2^{k+1}+1)(2^k+1)^{n−1} is drawn and the smallest z with
    F_c(z) ≥ U is released (``numpy.searchsorted``, vectorised over the samples).
    Output: ``int64`` of shape ``(N,)``.  The spec is a black box (no additive law).

    References
    ----------
    Balcer & Vadhan, "Differential privacy on finite computers", ITCS 2018, Algorithm 4.8
    and Theorem 4.7; ``eth-sri/dp-sniper``, ``dpsniper/mechanisms/geometric.py``
    (``TruncatedGeometricMechanism``).
    """

    def __init__(
        self,
        epsilon: float = _EPS,
        n: int = 5,
        *,
        name: str = "dpsniper.TruncatedGeometricMechanism",
    ) -> None:
        self.epsilon = _positive(epsilon, "epsilon")
        self.n = _count(n, "n")
        self.k = math.ceil(math.log(2.0 / self.epsilon))
        if self.k < 0:
            raise InvalidParameterError(f"epsilon must be <= 2 for GeoSample, got {epsilon!r}")
        self.d = (2 ** (self.k + 1) + 1) * (2**self.k + 1) ** (self.n - 1)
        if self.d >= 2**62:
            raise InvalidParameterError(
                f"GeoSample with epsilon={epsilon!r}, n={n!r} needs integers beyond int64 "
                f"(d = {self.d}); use a larger epsilon or a smaller n"
            )
        self._cdf = np.array([self._compute_f(c) for c in range(self.n + 1)], dtype=np.int64)
        super().__init__(
            query_spec(
                name=name,
                summary="Balcer-Vadhan GeoSample: a truncated geometric count in 0..n",
                references=(DPSNIPER_2021, BALCER_VADHAN_2018),
                length=1,
                norm="l1",
                epsilon=self.epsilon,
                element=IntegerRange(lo=0, hi=self.n),
                statistic="identity: the count c in 0..n (sensitivity 1)",
            )
        )

    @property
    def exact_epsilon(self) -> float:
        """ln(1 + 2^−k), the mechanism's exact ε (Balcer & Vadhan, Theorem 4.7)."""
        return math.log1p(2.0**-self.k)

    def pmf(self, count: int) -> np.ndarray:
        """Exact output probabilities P(z | c) for z = 0 … n."""
        cdf = [0] + [int(v) for v in self._cdf[int(count)]]
        return np.array([b - a for a, b in pairwise(cdf)], dtype=float) / self.d

    def _compute_f(self, c: int) -> list[int]:
        """F_c(z) for z = 0 … n (Step 2 of Algorithm 4.8), as exact integers."""
        k, n, d = self.k, self.n, self.d
        f = [2 ** (k * (c - z)) * (2**k + 1) ** (n - (c - z)) for z in range(c)]
        f += [d - 2 ** (k * (z - c + 1)) * (2**k + 1) ** (n - 1 - (z - c)) for z in range(c, n)]
        return f + [d]

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        u = rng.integers(1, self.d, size=size, endpoint=True, dtype=np.int64)
        return np.searchsorted(self._cdf[int(data)], u, side="left").astype(np.int64)


class NoisyHist1(NoisyHistogram):
    """DP-Sniper's ``NoisyHist1``: 5 counts in 0 … 10 plus Laplace(1/ε) each; ε-DP.

    Output ``float64`` of shape ``(N, 5)``.  Neighbours: one count moves by ≤ 1.

    References
    ----------
    Ding et al., CCS 2018, Algorithm 9; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/noisy_hist.py`` (``NoisyHist1``).
    """

    _bug = False

    def __init__(self, epsilon: float = _EPS, *, length: int = 5, name: str | None = None) -> None:
        label = type(self).__name__
        super().__init__(
            epsilon,
            scale_is_epsilon=self._bug,
            length=length,
            report="all",
            integer_range=(0, 10),
            name=name or f"dpsniper.{label}",
            references=(DPSNIPER_2021,),
        )


class NoisyHist2(NoisyHist1):
    """DP-Sniper's ``NoisyHist2``: as :class:`NoisyHist1` but the noise scale is ε, not 1/ε.

    The spec declares Laplace(1/ε), as the buggy code claims; the true ε is 1/ε = 10.

    References
    ----------
    Ding et al., CCS 2018, Algorithm 10; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/noisy_hist.py`` (``NoisyHist2``).
    """

    _bug = True


class _DPSniperNoisyMax(NoisyMax):
    _noise: Literal["laplace", "exponential"] = "laplace"
    _report: Literal["index", "value"] = "index"

    def __init__(self, epsilon: float = _EPS, *, length: int = 5, name: str | None = None) -> None:
        super().__init__(
            epsilon,
            noise=self._noise,
            report=self._report,
            length=length,
            name=name or f"dpsniper.{type(self).__name__}",
            references=(DPSNIPER_2021,),
        )


class ReportNoisyMax1(_DPSniperNoisyMax):
    """Arg-max of 5 answers plus Laplace(2/ε) noise (correct, ε-DP).

    References
    ----------
    Ding et al., CCS 2018, Algorithm 5; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/report_noisy_max.py`` (``ReportNoisyMax1``).
    """


class ReportNoisyMax2(_DPSniperNoisyMax):
    """Arg-max of 5 answers plus Exponential(2/ε) noise (correct, ε-DP).

    References
    ----------
    Ding et al., CCS 2018, Algorithm 6; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/report_noisy_max.py`` (``ReportNoisyMax2``).
    """

    _noise = "exponential"


class ReportNoisyMax3(_DPSniperNoisyMax):
    """The noisy *maximum value* of 5 answers plus Laplace(2/ε) noise (5ε/2-DP).

    References
    ----------
    Ding et al., CCS 2018, Algorithm 7; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/report_noisy_max.py`` (``ReportNoisyMax3``).
    """

    _report = "value"


class ReportNoisyMax4(_DPSniperNoisyMax):
    """The noisy *maximum value* of 5 answers plus Exponential(2/ε) noise (not DP).

    References
    ----------
    Ding et al., CCS 2018, Algorithm 8; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/report_noisy_max.py`` (``ReportNoisyMax4``).
    """

    _noise = "exponential"
    _report = "value"


class Rappor(QueryMechanism):
    """RAPPOR, steps 1–3: Bloom filter, permanent and instantaneous randomized response.

    Parameters
    ----------
    n_hashes : int
        Number h of hash functions (MurmurHash3 of ``str(value)`` with seeds 0 … h−1,
        modulo the filter size, as ``mmh3.hash`` computes them).
    filter_size : int
        Number of Bloom filter bits (default 20).
    f : float
        Permanent randomized response: each bit is set to 1 w.p. f/2, to 0 w.p. f/2,
        kept w.p. 1 − f.
    p, q : float
        Instantaneous randomized response: a 0 bit reports 1 w.p. p, a 1 bit w.p. q.
    epsilon : float
        The claimed ε (DP-Sniper's default claim, 0.1).
    value_range : tuple of int
        ``(lo, hi)``: the user's value is an integer in lo … hi (DP-Sniper: −10 … 10).
    name : str
        The spec's name.

    Notes
    -----
    A local randomizer: any two values are neighbours (:class:`~spec.LocalRelation`).
    Each sample is a fresh user (a fresh permanent response), as in DP-Sniper.  Output:
    ``int64`` bits of shape ``(N, filter_size)``.  Sampling: for a fresh user the
    permanent and instantaneous responses of a bit compose into one Bernoulli draw with
    the probabilities of :meth:`report_probabilities`, independently over bits and
    samples, so each output bit is drawn from one uniform (the same law as running the
    two randomized responses in turn).  Exact privacy: the release factorises
    over bits, so for values v, w with Bloom filters differing in the bit set Δ,
    ε(v, w) = Σ_{i∈Δ} ln r_i where r_i is the largest ratio of a bit's report
    probabilities (:meth:`pair_epsilon`).

    References
    ----------
    Erlingsson, Pihur & Korolova, "RAPPOR", CCS 2014; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/rappor.py`` (``Rappor``, ``OneTimeRappor``).
    """

    _instantaneous = True

    def __init__(
        self,
        *,
        n_hashes: int = 4,
        filter_size: int = 20,
        f: float = 0.75,
        p: float = 0.45,
        q: float = 0.55,
        epsilon: float = _EPS,
        value_range: tuple[int, int] = (-10, 10),
        name: str | None = None,
    ) -> None:
        self.n_hashes = _count(n_hashes, "n_hashes")
        self.filter_size = _count(filter_size, "filter_size")
        for label, prob in (("f", f), ("p", p), ("q", q)):
            if not 0.0 < float(prob) < 1.0:
                raise InvalidParameterError(f"{label} must lie in (0, 1), got {prob!r}")
        self.f, self.p, self.q = float(f), float(p), float(q)
        self.epsilon = _positive(epsilon, "epsilon")
        lo, hi = value_range
        kind = (
            "steps 1-3 (permanent and instantaneous response)"
            if self._instantaneous
            else "steps 1-2 (permanent response only)"
        )
        spec = MechanismSpec(
            name=name or f"dpsniper.{type(self).__name__}",
            summary=f"RAPPOR {kind} of one integer value, {self.filter_size}-bit Bloom filter "
            f"with {self.n_hashes} hashes",
            references=(DPSNIPER_2021, RAPPOR_2014),
            input_domain=IntegerRange(lo=lo, hi=hi),
            relation=LocalRelation(),
            statistic="the user's value",
            output_dimension=self.filter_size,
            guarantee=PureDP(epsilon=self.epsilon),
        )
        super().__init__(spec)

    def bloom_bits(self, value: int) -> np.ndarray:
        """The Bloom filter of ``value`` (bool, length ``filter_size``)."""
        bits = np.zeros(self.filter_size, dtype=bool)
        for seed in range(self.n_hashes):
            bits[murmur3_32(str(int(value)), seed) % self.filter_size] = True
        return bits

    def report_probabilities(self) -> tuple[float, float]:
        """(P(report 1 | bit 0), P(report 1 | bit 1)) for one bit."""
        keep, half = 1.0 - self.f, self.f / 2.0
        one_if_zero, one_if_one = half, half + keep
        if not self._instantaneous:
            return one_if_zero, one_if_one
        p, q = self.p, self.q
        return (one_if_zero * q + (1 - one_if_zero) * p, one_if_one * q + (1 - one_if_one) * p)

    def pair_epsilon(self, value: int, other: int) -> float:
        """The exact ε between two values: max over outputs of |log P(y|v) − log P(y|w)|."""
        p0, p1 = self.report_probabilities()
        up = max(math.log(p1 / p0), math.log((1 - p1) / (1 - p0)))  # bit 1 vs bit 0
        down = max(math.log(p0 / p1), math.log((1 - p0) / (1 - p1)))  # bit 0 vs bit 1
        a, b = self.bloom_bits(value), self.bloom_bits(other)
        forward = up * np.sum(a & ~b) + down * np.sum(~a & b)
        backward = up * np.sum(b & ~a) + down * np.sum(~b & a)
        return float(max(forward, backward))

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        # Each sample is a fresh user, so its bits are independent Bernoulli draws with
        # the composed report probabilities of report_probabilities(): one uniform per bit.
        one_if_zero, one_if_one = self.report_probabilities()
        probability = np.where(self.bloom_bits(int(data)), one_if_one, one_if_zero)
        out = np.empty((size, self.filter_size), dtype=np.int64)
        np.less(rng.random((size, self.filter_size)), probability, out=out, casting="unsafe")
        return out


class OneTimeRappor(Rappor):
    """RAPPOR steps 1–2 only (permanent randomized response), DP-Sniper's default f = 0.95.

    References
    ----------
    Erlingsson, Pihur & Korolova, "RAPPOR", CCS 2014; ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/rappor.py`` (``OneTimeRappor``).
    """

    _instantaneous = False

    def __init__(
        self,
        *,
        n_hashes: int = 4,
        filter_size: int = 20,
        f: float = 0.95,
        epsilon: float = _EPS,
        value_range: tuple[int, int] = (-10, 10),
        name: str | None = None,
    ) -> None:
        super().__init__(
            n_hashes=n_hashes,
            filter_size=filter_size,
            f=f,
            epsilon=epsilon,
            value_range=value_range,
            name=name,
        )


class LaplaceParallel(QueryMechanism):
    """``n_parallel`` independent Laplace(1/ε_each) releases of one query answer.

    Parameters
    ----------
    n_parallel : int
        Number of releases (DP-Sniper: 20).
    epsilon_each : float
        ε of each release (DP-Sniper: 0.005); the claim is ``n_parallel · epsilon_each``
        (basic composition, exact here: 0.1).
    name : str
        The spec's name.

    Notes
    -----
    Declared as additive Laplace(1/ε_each) noise on the statistic "the answer repeated
    ``n_parallel`` times", whose ℓ1 sensitivity is ``n_parallel``.  Output ``float64`` of
    shape ``(N, n_parallel)``; the Laplace draws are b·S·E (module docstring).

    References
    ----------
    ``eth-sri/dp-sniper``, ``dpsniper/mechanisms/parallel.py`` (``LaplaceParallel``) and
    ``dpsniper/experiments/exp_default.py`` (``LaplaceParallel(eps=0.005, n_parallel=20)``).
    """

    def __init__(
        self,
        n_parallel: int = 20,
        epsilon_each: float = 0.005,
        *,
        name: str = "dpsniper.LaplaceParallel",
    ) -> None:
        self.n_parallel = _count(n_parallel, "n_parallel")
        self.epsilon_each = _positive(epsilon_each, "epsilon_each")
        self.scale = 1.0 / self.epsilon_each
        total = self.n_parallel * self.epsilon_each
        super().__init__(
            query_spec(
                name=name,
                summary=f"{self.n_parallel} independent Laplace releases of one answer",
                references=(DPSNIPER_2021, _DMNS),
                length=1,
                norm="l1",
                epsilon=total,
                noise=AdditiveNoise(law=Laplace(scale=self.scale), calibration="exact"),
                output_dimension=self.n_parallel,
                statistic=f"the query answer repeated {self.n_parallel} times",
                sensitivity=GlobalSensitivity(value=float(self.n_parallel), norm="l1"),
            )
        )

    def statistic(self, data: Any) -> Any:
        return np.full(self.n_parallel, super().statistic(data))

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        noisy = laplace_noise(rng, self.scale, (size, self.n_parallel))
        noisy += float(data)
        return noisy


class PrefixSum(QueryMechanism):
    """Prefix sums of the answers after Laplace(1/ε) noise on each answer.

    Parameters
    ----------
    epsilon : float
        Claimed ε (default 0.1).
    length : int
        Number of queries (DP-Sniper: 10).
    name : str
        The spec's name.

    Notes
    -----
    Output ``float64`` of shape ``(N, length)``: column j is Σ_{i≤j} (q_i + η_i).  A
    bijective linear post-processing of q + η, so its privacy loss is that of the
    Laplace vector: ε·‖q − q′‖₁ — ε under ONE_DIFFER, length·ε under DP-Sniper's
    ALL_DIFFER neighbourhood (the one declared here).  The Laplace draws are b·S·E
    (module docstring).

    References
    ----------
    Wang, Ding, Wang, Kifer & Zhang, "Proving differential privacy with shadow
    execution", PLDI 2019; ``eth-sri/dp-sniper``, ``dpsniper/mechanisms/prefix_sum.py``.
    """

    def __init__(
        self,
        epsilon: float = _EPS,
        *,
        length: int = 10,
        name: str = "dpsniper.PrefixSum",
        notes: str = "",
    ) -> None:
        self.epsilon = _positive(epsilon, "epsilon")
        self.scale = 1.0 / self.epsilon
        n = _count(length, "length")
        super().__init__(
            query_spec(
                name=name,
                summary="prefix sums of the query answers plus Laplace(1/epsilon) noise",
                references=(DPSNIPER_2021, SHADOWDP_2019),
                length=n,
                norm="linf",
                epsilon=self.epsilon,
                output_dimension=n,
                notes=notes,
            )
        )

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        noisy = laplace_noise(rng, self.scale, (size, data.shape[0]))
        noisy += data[np.newaxis, :]
        return np.cumsum(noisy, axis=1, out=noisy)
