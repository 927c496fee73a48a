"""Smooth-sensitivity mechanisms: f(D) + (S(D)/a)·Z with S a β-smooth bound on LS_f.

Nissim, Raskhodnikova & Smith (2007) add noise scaled to a *β-smooth upper bound* S on
the local sensitivity — S(D) ≥ LS_f(D) for every D and S(D) ≤ e^β S(D′) for every pair of
neighbours — instead of the global sensitivity.  The privacy of f(D) + (S(D)/a)·Z depends
on the law of Z and on (a, β):

====================  ==============================  =================================
law of Z (scale 1)    constants                       guarantee
====================  ==============================  =================================
Laplace(1)            a = ε/2, β = ε/(2 ln(2/δ))      (ε, δ)-DP (NRS 2007, Lemma 2.6)
density ∝ 1/(1 + z⁴)  ε = 3β + 3^{3/4} a; by default  ε-DP (the tight constant of
                      a = β = ε/(3 + 3^{3/4})         ``derivations.md`` §1)
====================  ==============================  =================================

(Chaudhuri et al. 2024, Lemma 2, state 10ε for the inverse-quartic release with
a = β = ε; the tight value is (3 + 3^{3/4})ε ≈ 5.28ε.)

:class:`SmoothSensitivityMechanism` builds its :class:`~spec.MechanismSpec` with a
:class:`~spec.SmoothSensitivityBound` (β) and :class:`~spec.SmoothSensitivityNoise`
(law, a); the spec's cross-field validation refuses any (a, β, guarantee) that the law
does not deliver, so nothing here re-checks the constants.  The statistic and S are the
gray-box hooks the auditor checks (S ≥ LS and β-smoothness on neighbours).

:func:`~privaudit.mechanisms.smooth_median.smooth_median_mechanism` is the classical
instance: the median of n bounded records with its exact β-smooth sensitivity (NRS 2007,
§3.1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from privaudit.spec import (
    ApproxDP,
    InverseQuartic,
    Laplace,
    MechanismSpec,
    PureDP,
    Reference,
    RenyiDP,
    SmoothSensitivityBound,
    SmoothSensitivityNoise,
)
from privaudit.spec.errors import (
    InvalidInputError,
    InvalidParameterError,
    ParameterTypeError,
    UnsupportedCombinationError,
)
from privaudit.spec.noise import AdditiveNoiseLaw, NoiseLaw
from privaudit.spec.stable_values import round_down, round_up

from ._base import Mechanism
from .calibration import _check_delta, _check_epsilon

__all__ = [
    "QUARTIC_CONSTANT",
    "SmoothSensitivityMechanism",
    "quartic_share",
    "smooth_inverse_quartic_mechanism",
    "smooth_laplace_mechanism",
]

#: 3 + 3^{3/4}: the 1/(1+z⁴) smooth-sensitivity release with a = β is (QUARTIC_CONSTANT·a)-DP.
QUARTIC_CONSTANT = 3.0 + 3.0**0.75
_QUARTIC_LIPSCHITZ = 3.0**0.75

NRS_2007 = Reference(
    citation="Nissim, Raskhodnikova & Smith, 'Smooth sensitivity and sampling in private data "
    "analysis', STOC 2007",
    locator="Definitions 2.1 and 2.4, Lemmas 2.5-2.6",
    url="https://doi.org/10.1145/1250790.1250803",
)
NRS_2007_MEDIAN = Reference(
    citation="Nissim, Raskhodnikova & Smith, 'Smooth sensitivity and sampling in private data "
    "analysis', STOC 2007",
    locator="Section 3.1 (smooth sensitivity of the median)",
    url="https://doi.org/10.1145/1250790.1250803",
)
CHAUDHURI_2024 = Reference(
    citation="Chaudhuri, Loh, Pandey & Sarkar, 'On differentially private U statistics', "
    "NeurIPS 2024 (arXiv 2407.04945)",
    locator="Lemma 2 (1/(1+z^4) noise; tight constant 3 beta + 3^(3/4) a derived in "
    "privaudit docs/derivations.md section 1)",
)

Statistic = Callable[[Any], Any]


class SmoothSensitivityMechanism(Mechanism):
    """f(D) + (S(D)/a)·Z with Z from a standardised law and S a β-smooth bound on LS_f.

    Parameters
    ----------
    statistic : callable
        f: validated input → a real number.
    smooth_sensitivity : callable
        S: validated input → a finite number ≥ 0, claimed to be a β-smooth upper bound on
        the local sensitivity of f under ``relation``.
    beta : float
        The smoothness parameter β > 0 of the claim.
    alpha : float
        The divisor a > 0 of the noise scale S(D)/a.
    law : Laplace or InverseQuartic
        The standardised law of Z (scale 1).
    input_domain, relation
        The domain of the inputs and the neighbouring relation of the claim.
    guarantee : PrivacyGuarantee
        The privacy claim; the spec refuses it if (law, a, β) do not deliver it.
    name, summary : str
        The spec's name and one-line summary.
    statistic_description, smooth_description : str, optional
        What f and S are (defaults: the functions' names).
    references : tuple of Reference
        Extra references (NRS 2007 is always included).
    norm : {"l1", "l2", "linf"}
        The norm of the smooth-sensitivity claim (all coincide for scalar f).

    Raises
    ------
    InvalidParameterError
        If a function is not callable or a constant is out of range.
    InconsistentSpecError, UnsupportedCombinationError
        From the spec, when (law, a, β) do not deliver ``guarantee``.

    References
    ----------
    .. [1] Nissim, Raskhodnikova & Smith, STOC 2007, Def. 2.4 and Lemmas 2.5-2.6.

    Examples
    --------
    >>> mech = smooth_median_mechanism(n=5, lower=0.0, upper=1.0, epsilon=1.0, delta=1e-6)
    >>> x = [0.1, 0.4, 0.5, 0.6, 0.9]
    >>> float(mech.statistic(x))
    0.5
    >>> mech.sample(x, size=3, rng=0).shape
    (3,)
    """

    def __init__(
        self,
        statistic: Statistic,
        smooth_sensitivity: Callable[[Any], float],
        *,
        beta: float,
        alpha: float,
        law: AdditiveNoiseLaw,
        input_domain: Any,
        relation: Any,
        guarantee: Any,
        name: str = "smooth_sensitivity",
        summary: str = "",
        statistic_description: str | None = None,
        smooth_description: str | None = None,
        references: tuple[Reference, ...] = (),
        norm: Literal["l1", "l2", "linf"] = "l1",
    ) -> None:
        for what, fn in (("statistic", statistic), ("smooth_sensitivity", smooth_sensitivity)):
            if not callable(fn):
                raise InvalidParameterError(f"{what} must be callable, got {fn!r}")
        spec = MechanismSpec(
            name=name,
            summary=summary or "statistic plus noise scaled to a beta-smooth sensitivity bound",
            references=(NRS_2007, *references),
            input_domain=input_domain,
            relation=relation,
            statistic=statistic_description or _name_of(statistic),
            sensitivity=(
                SmoothSensitivityBound(
                    beta=beta,
                    norm=norm,
                    description=smooth_description or _name_of(smooth_sensitivity),
                ),
            ),
            noise=SmoothSensitivityNoise(law=law, alpha=alpha),
            guarantee=guarantee,
        )
        super().__init__(spec)
        self._statistic_fn = statistic
        self._smooth_fn = smooth_sensitivity

    @classmethod
    def from_spec(
        cls, spec: MechanismSpec, statistic: Statistic, smooth_sensitivity: Callable[[Any], float]
    ) -> SmoothSensitivityMechanism:
        """Bind f and S to a ready-made spec with smooth-sensitivity noise.

        Raises
        ------
        UnsupportedCombinationError
            If the spec's noise is not :class:`~spec.SmoothSensitivityNoise`.
        """
        if not isinstance(spec.noise, SmoothSensitivityNoise):
            raise UnsupportedCombinationError(
                f"a smooth-sensitivity mechanism needs SmoothSensitivityNoise, got "
                f"{type(spec.noise).__name__}"
            )
        for what, fn in (("statistic", statistic), ("smooth_sensitivity", smooth_sensitivity)):
            if not callable(fn):
                raise InvalidParameterError(f"{what} must be callable, got {fn!r}")
        mech = cls.__new__(cls)
        Mechanism.__init__(mech, spec)
        mech._statistic_fn = statistic
        mech._smooth_fn = smooth_sensitivity
        return mech

    # -- claims --------------------------------------------------------------------------
    @property
    def noise_law(self) -> NoiseLaw:
        """The standardised law of Z (``spec.noise.law``)."""
        return self._noise.law

    @property
    def _noise(self) -> SmoothSensitivityNoise:
        noise = self.spec.noise
        if not isinstance(noise, SmoothSensitivityNoise):  # refused by __init__ already
            raise UnsupportedCombinationError(
                f"SmoothSensitivityMechanism needs a spec with SmoothSensitivityNoise, got "
                f"noise {type(noise).__name__}"
            )
        return noise

    @property
    def alpha(self) -> float:
        """The divisor a of the noise scale S(D)/a."""
        return float(self._noise.alpha)

    @property
    def beta(self) -> float:
        """The smoothness parameter β of the claim."""
        claim = self.spec.smooth_sensitivity_claim
        if claim is None:  # refused by MechanismSpec for SmoothSensitivityNoise
            raise UnsupportedCombinationError(f"{self.name!r} declares no smooth sensitivity")
        return float(claim.beta)

    @property
    def epsilon(self) -> float:
        """ε of the claim."""
        guarantee = self.spec.guarantee
        if not isinstance(guarantee, (PureDP, ApproxDP, RenyiDP)):
            raise UnsupportedCombinationError(
                f"{self.name!r} states its claim in epsilon, got {type(guarantee).__name__}"
            )
        return float(guarantee.epsilon)

    @property
    def delta(self) -> float:
        """δ of the claim (0 for pure DP)."""
        return float(getattr(self.spec.guarantee, "delta", 0.0))

    # -- gray-box hooks ----------------------------------------------------------------------
    def _value(self, data: Any) -> float:
        value = np.asarray(self._statistic_fn(data))
        if value.size != 1 or value.dtype.kind not in "iuf" or not np.isfinite(value).all():
            raise InvalidInputError(
                f"statistic of {self.name!r} must return one finite real number, got {value!r}"
            )
        return float(value.reshape(()))

    def _bound(self, data: Any) -> float:
        value = np.asarray(self._smooth_fn(data))
        if (
            value.size != 1
            or value.dtype.kind not in "iuf"
            or not np.isfinite(value).all()
            or float(value.reshape(())) < 0.0
        ):
            raise InvalidInputError(
                f"smooth sensitivity of {self.name!r} must be one finite number >= 0, got {value!r}"
            )
        return float(value.reshape(()))

    def statistic(self, data: Any) -> float:
        """The exact value f(D) (gray-box hook)."""
        return self._value(self.validate_input(data))

    def smooth_sensitivity(self, data: Any) -> float:
        """The claimed β-smooth upper bound S(D) on LS_f(D) (gray-box hook)."""
        return self._bound(self.validate_input(data))

    def noise_scale(self, data: Any) -> float:
        """S(D)/a, the scale of the noise added on ``data``."""
        return self.smooth_sensitivity(data) / self.alpha

    # -- sampling --------------------------------------------------------------------------
    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        value = self._value(data)
        scale = self._bound(data) / self.alpha
        out = np.asarray(self.noise_law.sample(rng, size), dtype=np.float64)
        out *= scale
        out += value
        return out


def _name_of(fn: Any) -> str:
    return str(getattr(fn, "__name__", type(fn).__name__))


# ----------------------------------------------------------------------------------------
# constructors
# ----------------------------------------------------------------------------------------
def smooth_laplace_mechanism(
    statistic: Statistic,
    smooth_sensitivity: Callable[[Any], float],
    epsilon: float,
    delta: float,
    *,
    input_domain: Any,
    relation: Any,
    alpha: float | None = None,
    beta: float | None = None,
    name: str = "smooth_laplace",
    **kwargs: Any,
) -> SmoothSensitivityMechanism:
    """f(D) + (2S(D)/ε)·Lap(1) with S β-smooth, β = ε/(2 ln(2/δ)): (ε, δ)-DP.

    Parameters
    ----------
    statistic, smooth_sensitivity : callable
        f and its claimed β-smooth upper bound S on the local sensitivity.
    epsilon : float
        ε > 0 (finite).
    delta : float
        δ ∈ (0, 1).
    input_domain, relation
        The domain and neighbouring relation of the claim.
    alpha, beta : float, optional
        Overrides of a = ε/2 and β = ε/(2 ln(2/δ)); the spec refuses a > ε/2 or
        β > ε/(2 ln(2/δ)).
    name : str
        The spec's name.
    **kwargs
        Passed to :class:`SmoothSensitivityMechanism` (``summary``,
        ``statistic_description``, ``smooth_description``, ``references``, ``norm``).

    Returns
    -------
    SmoothSensitivityMechanism

    References
    ----------
    .. [1] Nissim, Raskhodnikova & Smith, STOC 2007, Lemma 2.6.

    Examples
    --------
    >>> from privaudit.spec import DatasetDomain, RealInterval, SubstituteOne
    >>> mech = smooth_laplace_mechanism(
    ...     lambda x: float(x.max()), lambda x: 1.0, epsilon=1.0, delta=1e-6,
    ...     input_domain=DatasetDomain(record=RealInterval(lo=0, hi=1), size=3),
    ...     relation=SubstituteOne())
    >>> mech.alpha, round(mech.beta, 6)
    (0.5, 0.034462)
    """
    eps = _check_epsilon(epsilon)
    d = _check_delta(delta)
    a_default, b_default = _laplace_constants(eps, d)
    a = a_default if alpha is None else alpha
    b = b_default if beta is None else beta
    return SmoothSensitivityMechanism(
        statistic,
        smooth_sensitivity,
        beta=b,
        alpha=a,
        law=Laplace(scale=1.0),
        input_domain=input_domain,
        relation=relation,
        guarantee=ApproxDP(epsilon=eps, delta=d),
        name=name,
        **kwargs,
    )


def _laplace_constants(eps: float, d: float) -> tuple[float, float]:
    """(a, β) = (ε/2, ε/(2 ln(2/δ))) of NRS 2007, Lemma 2.6; β (libm's log) rounded down
    to the stable grid (a smaller β keeps the claim)."""
    return eps / 2.0, round_down(eps / (2.0 * math.log(2.0 / d)))


def smooth_inverse_quartic_mechanism(
    statistic: Statistic,
    smooth_sensitivity: Callable[[Any], float],
    epsilon: float | None = None,
    *,
    input_domain: Any,
    relation: Any,
    alpha: float | None = None,
    beta: float | None = None,
    name: str = "smooth_inverse_quartic",
    **kwargs: Any,
) -> SmoothSensitivityMechanism:
    """f(D) + (S(D)/a)·Z with Z of density ∝ 1/(1+z⁴) and S β-smooth: ε-DP, ε = 3β + 3^{3/4}a.

    By default a = β = ε/(3 + 3^{3/4}), so the claim is exactly the tight constant of
    ``docs/derivations.md`` §1 (the paper's Lemma 2 states 10ε for a = β = ε).

    Parameters
    ----------
    statistic, smooth_sensitivity : callable
        f and its claimed β-smooth upper bound S.
    epsilon : float, optional
        The claimed ε > 0.  May be omitted when both ``alpha`` and ``beta`` are given;
        it is then 3β + 3^{3/4}a.
    input_domain, relation
        The domain and neighbouring relation of the claim.
    alpha, beta : float, optional
        Overrides.  With one of them given the other is chosen so that
        3β + 3^{3/4}a = ε; with both given the spec checks 3β + 3^{3/4}a ≤ ε.
    name : str
        The spec's name.
    **kwargs
        Passed to :class:`SmoothSensitivityMechanism`.

    Returns
    -------
    SmoothSensitivityMechanism

    Raises
    ------
    ParameterTypeError
        If ε is missing (``None``) and α, β are not both given.
    InvalidParameterError
        If ε is out of range, or an override leaves nothing for the other constant (e.g.
        3β ≥ ε).
    InconsistentSpecError
        If explicit constants exceed the claim.

    References
    ----------
    .. [1] Chaudhuri, Loh, Pandey & Sarkar, NeurIPS 2024, Lemma 2.
    .. [2] Nissim, Raskhodnikova & Smith, STOC 2007, Section 2 (admissible noise distributions).

    Examples
    --------
    >>> from privaudit.spec import DatasetDomain, RealInterval, SubstituteOne
    >>> mech = smooth_inverse_quartic_mechanism(
    ...     lambda x: float(x.max()), lambda x: 1.0, epsilon=1.0,
    ...     input_domain=DatasetDomain(record=RealInterval(lo=0, hi=1), size=3),
    ...     relation=SubstituteOne())
    >>> round(mech.alpha * QUARTIC_CONSTANT, 5)  # alpha = quartic_share(1.0), on the grid
    1.0
    """
    if epsilon is None:
        if alpha is None or beta is None:
            raise ParameterTypeError(
                "give epsilon, or both alpha and beta (the claim is then "
                f"3 beta + 3^(3/4) alpha), got alpha={alpha!r}, beta={beta!r}"
            )
        a, b = _check_epsilon(alpha, "alpha"), _check_epsilon(beta, "beta")
        eps = round_up(3.0 * b + _QUARTIC_LIPSCHITZ * a)  # 3^(3/4) is libm's pow
    else:
        eps = _check_epsilon(epsilon)
        if alpha is None and beta is None:
            a = b = quartic_share(eps)
        elif alpha is None:
            b = _check_epsilon(beta, "beta")
            a = round_down(
                _remaining(eps - 3.0 * b, _QUARTIC_LIPSCHITZ, "alpha", f"3*beta = {3 * b!r}", eps)
            )
        elif beta is None:
            a = _check_epsilon(alpha, "alpha")
            b = round_down(
                _remaining(
                    eps - _QUARTIC_LIPSCHITZ * a,
                    3.0,
                    "beta",
                    f"3^(3/4)*alpha = {_QUARTIC_LIPSCHITZ * a!r}",
                    eps,
                )
            )
        else:
            a, b = alpha, beta
    references = (CHAUDHURI_2024, *kwargs.pop("references", ()))
    return SmoothSensitivityMechanism(
        statistic,
        smooth_sensitivity,
        beta=b,
        alpha=a,
        law=InverseQuartic(scale=1.0),
        input_domain=input_domain,
        relation=relation,
        guarantee=PureDP(epsilon=eps),
        name=name,
        references=references,
        **kwargs,
    )


def quartic_share(epsilon: float) -> float:
    """β = a = ε/(3 + 3^{3/4}), rounded down to the stable grid of :mod:`spec.stable_values`.

    The 1/(1+z⁴) release with these a and β is ε-DP (``docs/derivations.md`` §1); the
    constant goes through libm's pow, whose last bit may differ between platforms, and a
    smaller β and a keep the claim.

    Examples
    --------
    >>> quartic_share(1.0)
    0.189411
    """
    return round_down(_check_epsilon(epsilon) / QUARTIC_CONSTANT)


def _remaining(budget: float, weight: float, what: str, used: str, eps: float) -> float:
    if not budget > 0.0:
        raise InvalidParameterError(
            f"{used} uses up all of epsilon = {eps!r}; nothing is left for {what}"
        )
    return budget / weight
