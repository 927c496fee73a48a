"""Private selection: the index of the (noisily) best of m candidates.

All three mechanisms here release argmax_i (q_i + Z_i) for a score vector q with
i.i.d. noise Z_i from the spec's :class:`~spec.NoisyArgmax` law; they differ in the law:

======================  ======================  =======================================
class                   law (scale, Δ = score   equivalent to
                        sensitivity in ℓ∞)
======================  ======================  =======================================
ExponentialMechanism    Gumbel(2Δ/ε)            the exponential mechanism, P(i) ∝
                                                exp(ε q_i/(2Δ)) (Gumbel-max trick)
ReportNoisyMax          Laplace(2Δ/ε)           classic report-noisy-max
ReportNoisyMax          Exponential(2Δ/ε)       permute-and-flip (Ding et al. 2021)
======================  ======================  =======================================

With ``monotone=True`` (all scores move in the same direction between neighbours, as
counting queries under add/remove do) the scale is Δ/ε.  Each is ε-DP.  Monotonicity
is a property of the neighbouring relation, so a monotone mechanism declares the
one-directional relation ``QueryDistance(norm="linf", radius=Δ, monotone=True)``: the
spec refuses ``NoisyArgmax(monotone=True)`` under a two-sided relation
(:class:`~spec.errors.NonMonotoneRelationError`), since there the halved noise gives
only 2ε-DP, and the audit tests pairs that move every score the same way.

The input is the score vector itself (``VectorDomain(RealInterval(), m)``), with
neighbours at ℓ∞ distance ≤ Δ; the gray-box ``statistic`` is that validated score
vector.  Sampling draws an (N, m) noise array and takes the arg-max along the rows, in
blocks of at most :data:`_BLOCK_ELEMENTS` entries to bound memory.
"""

from __future__ import annotations

import numbers
from typing import Any, Literal

import numpy as np

from privaudit.spec import (
    ApproxDP,
    Exponential,
    GlobalSensitivity,
    Gumbel,
    Laplace,
    MechanismSpec,
    NoisyArgmax,
    PureDP,
    QueryDistance,
    RealInterval,
    Reference,
    RenyiDP,
    VectorDomain,
)
from privaudit.spec.errors import InvalidParameterError, UnsupportedCombinationError
from privaudit.spec.noise import NoiseLaw

from ._base import Mechanism
from .calibration import _check_epsilon, _check_sensitivity

__all__ = [
    "ExponentialMechanism",
    "NoisyArgmaxMechanism",
    "ReportNoisyMax",
]

#: Largest number of noise entries drawn at once (32 MiB of float64).
_BLOCK_ELEMENTS = 1 << 22

MCSHERRY_TALWAR_2007 = Reference(
    citation="McSherry & Talwar, 'Mechanism design via differential privacy', FOCS 2007",
    locator="the exponential mechanism",
)
DURFEE_ROGERS_2019 = Reference(
    citation="Durfee & Rogers, 'Practical differentially private top-k selection with "
    "pay-what-you-get composition', NeurIPS 2019",
    locator="Gumbel-max equivalence with the exponential mechanism",
)
DWORK_ROTH_RNM = Reference(
    citation="Dwork & Roth, 'The algorithmic foundations of differential privacy', "
    "Foundations and Trends in Theoretical Computer Science, 2014",
    locator="Section 3.3, Claim 3.9 (report noisy max)",
)
MCKENNA_SHELDON_2020 = Reference(
    citation="McKenna & Sheldon, 'Permute-and-flip: a new mechanism for differentially "
    "private selection', NeurIPS 2020"
)
DING_2021 = Reference(
    citation="Ding, Kifer, Steinke, Wang, Xiao & Zhang, 'The permute-and-flip mechanism is "
    "identical to report-noisy-max with exponential noise', 2021"
)


class NoisyArgmaxMechanism(Mechanism):
    """argmax_i (q_i + Z_i) with Z_i i.i.d. from the spec's :class:`~spec.NoisyArgmax` law.

    Parameters
    ----------
    spec : MechanismSpec
        A spec whose ``noise`` is :class:`~spec.NoisyArgmax` and whose input domain is a
        :class:`~spec.VectorDomain` of scores.

    Raises
    ------
    UnsupportedCombinationError
        If the spec's noise is not a noisy argmax or its input is not a score vector.

    Notes
    -----
    Outputs are ``int64`` indices of shape ``(size,)``.  Ties have probability zero for
    the continuous laws used here.

    References
    ----------
    .. [1] Dwork & Roth 2014, §3.3 (report noisy max); Durfee & Rogers, NeurIPS 2019
       (Gumbel noise); Ding, Kifer, Steinke, Wang, Xiao & Zhang 2021 (exponential noise).

    Examples
    --------
    >>> from privaudit.spec import (MechanismSpec, PureDP, VectorDomain, RealInterval,
    ...     QueryDistance, GlobalSensitivity, NoisyArgmax, Gumbel)
    >>> spec = MechanismSpec(
    ...     name="select", input_domain=VectorDomain(element=RealInterval(), length=3),
    ...     relation=QueryDistance(norm="linf", radius=1.0),
    ...     sensitivity=(GlobalSensitivity(value=1.0, norm="linf"),),
    ...     noise=NoisyArgmax(law=Gumbel(scale=2.0)), guarantee=PureDP(epsilon=1.0))
    >>> NoisyArgmaxMechanism(spec).sample([0.0, 40.0, 1.0], size=3, rng=0).tolist()
    [1, 1, 1]
    """

    def __init__(self, spec: MechanismSpec) -> None:
        super().__init__(spec)
        if not isinstance(spec.noise, NoisyArgmax):
            raise UnsupportedCombinationError(
                f"NoisyArgmaxMechanism needs a spec with NoisyArgmax noise, got "
                f"{type(spec.noise).__name__}"
            )
        if not isinstance(spec.input_domain, VectorDomain):
            raise UnsupportedCombinationError(
                f"NoisyArgmaxMechanism needs a score vector input, got {spec.input_domain.label()}"
            )

    @property
    def _noise(self) -> NoisyArgmax:
        noise = self.spec.noise
        if not isinstance(noise, NoisyArgmax):  # refused by __init__ already
            raise UnsupportedCombinationError(
                f"NoisyArgmaxMechanism needs a spec with NoisyArgmax noise, got "
                f"{type(noise).__name__}"
            )
        return noise

    @property
    def noise_law(self) -> NoiseLaw:
        """The law of each Z_i (``spec.noise.law``)."""
        return self._noise.law

    @property
    def candidates(self) -> int:
        """Number of candidates m."""
        domain = self.spec.input_domain
        if not isinstance(domain, VectorDomain):  # refused by __init__ already
            raise UnsupportedCombinationError(
                f"NoisyArgmaxMechanism needs a score vector input, got {domain.label()}"
            )
        return int(domain.length)

    @property
    def epsilon(self) -> float:
        """ε of the pure-DP claim."""
        guarantee = self.spec.guarantee
        if not isinstance(guarantee, (PureDP, ApproxDP, RenyiDP)):
            raise UnsupportedCombinationError(
                f"{self.name!r} states its claim in epsilon, got {type(guarantee).__name__}"
            )
        return float(guarantee.epsilon)

    @property
    def monotone(self) -> bool:
        """Whether the scores are declared monotone."""
        return bool(self._noise.monotone)

    def statistic(self, data: Any) -> np.ndarray:
        """The validated score vector q (gray-box hook)."""
        return np.asarray(self.validate_input(data), dtype=np.float64)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        scores = np.asarray(data, dtype=np.float64)
        m = scores.shape[0]
        law = self.noise_law
        out = np.empty(size, dtype=np.int64)
        rows = max(1, _BLOCK_ELEMENTS // m)
        for start in range(0, size, rows):  # blocks of rows, never single samples
            stop = min(size, start + rows)
            # the argmax laws (Gumbel, Exponential, Laplace) are continuous: float64 draws
            noisy = np.asarray(law.sample(rng, (stop - start, m)), dtype=np.float64)
            noisy += scores
            out[start:stop] = np.argmax(noisy, axis=1)
        return out


def _check_candidates(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise InvalidParameterError(f"candidates must be an integer >= 1, got {value!r}")
    return int(value)


def _argmax_spec(
    name: str,
    summary: str,
    law: Laplace | Exponential | Gumbel,
    epsilon: float,
    delta_f: float,
    m: int,
    monotone: bool,
    references: tuple[Reference, ...],
) -> MechanismSpec:
    return MechanismSpec(
        name=name,
        summary=summary,
        references=references,
        input_domain=VectorDomain(element=RealInterval(), length=m),
        relation=QueryDistance(norm="linf", radius=delta_f, monotone=monotone),
        statistic=f"the score vector of {m} candidates",
        sensitivity=(GlobalSensitivity(value=delta_f, norm="linf"),),
        noise=NoisyArgmax(law=law, monotone=monotone),
        guarantee=PureDP(epsilon=epsilon),
    )


def _scale(eps: float, delta_f: float, monotone: bool) -> float:
    """2Δ/ε, or Δ/ε for monotone scores (the spec re-checks it)."""
    return (1.0 if monotone else 2.0) * delta_f / eps


class ExponentialMechanism(NoisyArgmaxMechanism):
    """The exponential mechanism over m candidates, as Gumbel-max: ε-DP.

    Releases i with probability ∝ exp(ε q_i / (2Δ)) (∝ exp(ε q_i / Δ) when monotone), by
    argmax_i (q_i + G_i) with G_i ~ Gumbel(2Δ/ε) (or Gumbel(Δ/ε)).

    Parameters
    ----------
    epsilon : float
        ε > 0 (finite).
    score_sensitivity : float
        Δ > 0: every score changes by at most Δ between neighbours (ℓ∞).
    candidates : int
        Number of candidates m ≥ 1 (the length of the score vector).
    monotone : bool
        True when all scores move in the same direction between neighbours.
    name : str
        The spec's name.

    Raises
    ------
    InvalidParameterError
        If an argument is outside its range.

    References
    ----------
    .. [1] McSherry & Talwar, "Mechanism design via differential privacy", FOCS 2007.
    .. [2] Durfee & Rogers, NeurIPS 2019 (Gumbel-max).

    Examples
    --------
    >>> em = ExponentialMechanism(epsilon=1.0, score_sensitivity=1.0, candidates=3)
    >>> em.noise_law.scale
    2.0
    >>> em.sample([0.0, 5.0, 1.0], size=4, rng=0).dtype
    dtype('int64')
    """

    def __init__(
        self,
        epsilon: float,
        score_sensitivity: float,
        candidates: int,
        *,
        monotone: bool = False,
        name: str = "exponential_mechanism",
    ) -> None:
        eps = _check_epsilon(epsilon)
        delta_f = _check_sensitivity(score_sensitivity, "score_sensitivity")
        m = _check_candidates(candidates)
        mono = _check_flag(monotone)
        law = Gumbel(scale=_scale(eps, delta_f, mono))
        super().__init__(
            _argmax_spec(
                name,
                "index of the best score by the exponential mechanism (Gumbel-max)",
                law,
                eps,
                delta_f,
                m,
                mono,
                (MCSHERRY_TALWAR_2007, DURFEE_ROGERS_2019),
            )
        )

    def probabilities(self, scores: Any) -> np.ndarray:
        """Exact output probabilities softmax(q/scale) on the score vector ``scores``.

        Examples
        --------
        >>> ExponentialMechanism(2.0, 1.0, 2).probabilities([0.0, 0.0]).tolist()
        [0.5, 0.5]
        """
        law = self.noise_law
        if not isinstance(law, Gumbel):  # pragma: no cover - built with Gumbel noise
            raise UnsupportedCombinationError(
                f"the exponential mechanism uses Gumbel noise, got {type(law).__name__}"
            )
        q = self.statistic(scores) / law.scale
        w = np.exp(q - q.max())
        return w / w.sum()


class ReportNoisyMax(NoisyArgmaxMechanism):
    """Report noisy max with Laplace or one-sided exponential noise: ε-DP.

    Parameters
    ----------
    epsilon : float
        ε > 0 (finite).
    score_sensitivity : float
        Δ > 0 (ℓ∞ change of the scores between neighbours).
    candidates : int
        Number of candidates m ≥ 1.
    noise : {"laplace", "exponential"}
        ``"laplace"``: Lap(2Δ/ε) (classic); ``"exponential"``: Exp(2Δ/ε), which is
        permute-and-flip (Ding et al. 2021).  Scale Δ/ε when ``monotone``.
    monotone : bool
        True when all scores move in the same direction between neighbours.
    name : str
        The spec's name.

    Raises
    ------
    InvalidParameterError
        If an argument is outside its range.

    References
    ----------
    .. [1] Dwork & Roth 2014, §3.3 (report noisy max).
    .. [2] McKenna & Sheldon, NeurIPS 2020; Ding, Kifer, Steinke, Wang, Xiao & Zhang 2021.

    Examples
    --------
    >>> rnm = ReportNoisyMax(1.0, 1.0, 4, noise="exponential", monotone=True)
    >>> type(rnm.noise_law).__name__, rnm.noise_law.scale
    ('Exponential', 1.0)
    """

    def __init__(
        self,
        epsilon: float,
        score_sensitivity: float,
        candidates: int,
        *,
        noise: Literal["laplace", "exponential"] = "laplace",
        monotone: bool = False,
        name: str = "report_noisy_max",
    ) -> None:
        eps = _check_epsilon(epsilon)
        delta_f = _check_sensitivity(score_sensitivity, "score_sensitivity")
        m = _check_candidates(candidates)
        mono = _check_flag(monotone)
        scale = _scale(eps, delta_f, mono)
        law: Laplace | Exponential | Gumbel
        refs: tuple[Reference, ...]
        if noise == "laplace":
            law, refs = Laplace(scale=scale), (DWORK_ROTH_RNM,)
            summary = "index of the best score by report noisy max with Laplace noise"
        elif noise == "exponential":
            law, refs = Exponential(scale=scale), (MCKENNA_SHELDON_2020, DING_2021)
            summary = (
                "index of the best score by report noisy max with exponential noise "
                "(permute-and-flip)"
            )
        else:
            raise InvalidParameterError(f"noise must be 'laplace' or 'exponential', got {noise!r}")
        super().__init__(_argmax_spec(name, summary, law, eps, delta_f, m, mono, refs))


def _check_flag(value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"monotone must be True or False, got {value!r}")
    return bool(value)
