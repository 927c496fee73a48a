"""Additive noise mechanisms: release f(D) + Z with Z drawn from the spec's own law.

:class:`AdditiveNoiseMechanism` (:mod:`mechanisms.generic_additive`, re-exported here) is
generic: it is built from a :class:`~spec.MechanismSpec` whose ``noise`` is
:class:`~spec.AdditiveNoise` and a statistic f, and it samples the noise from
``spec.noise.law`` — the very law whose privacy profile the spec's cross-field validation
checked — so the claims and the code cannot drift apart.  The subclasses build the spec
for the user from (ε, δ, Δ):

=============================  ====================  ==================  ====================
class                          noise                 guarantee           sensitivity
=============================  ====================  ==================  ====================
LaplaceMechanism               Laplace(Δ₁/ε)         ε-DP                ℓ1
GaussianMechanism              Gaussian(σ)           (ε, δ)-DP           ℓ2
DiscreteLaplaceMechanism       DiscreteLaplace(Δ/ε)  ε-DP                ℓ1, integer
DiscreteGaussianMechanism      DiscreteGaussian(σ)   (ε, δ)-DP or ρ-zCDP ℓ2, integer
=============================  ====================  ==================  ====================

By default each mechanism privatises a query answer itself (the identity statistic on a
number or a vector, with neighbours at distance Δ in the mechanism's norm); pass
``statistic``, ``input_domain`` and ``relation`` together to privatise a statistic of a
dataset instead.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from privaudit.spec import (
    AccuracyClaim,
    AdditiveNoise,
    ApproxDP,
    DiscreteGaussian,
    DiscreteLaplace,
    Gaussian,
    GlobalSensitivity,
    IntegerRange,
    Laplace,
    MechanismSpec,
    PureDP,
    QueryDistance,
    RealInterval,
    Reference,
    VectorDomain,
    ZeroConcentratedDP,
)
from privaudit.spec.errors import (
    InvalidParameterError,
    UnsupportedCombinationError,
)

from .calibration import (
    _check_delta,
    _check_epsilon,
    _check_integer_sensitivity,
    _check_sensitivity,
    analytic_gaussian_sigma,
    classical_gaussian_sigma,
    discrete_gaussian_sigma,
    discrete_laplace_scale,
    laplace_scale,
    zcdp_discrete_gaussian_sigma,
)
from .generic_additive import AdditiveNoiseMechanism, Statistic
from .generic_additive import _sample_exact as _sample_exact

__all__ = [
    "AdditiveNoiseMechanism",
    "DiscreteGaussianMechanism",
    "DiscreteLaplaceMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
]

DMNS_2006 = Reference(
    citation="Dwork, McSherry, Nissim & Smith, 'Calibrating noise to sensitivity in private "
    "data analysis', TCC 2006",
    locator="Proposition 1 (the Laplace mechanism)",
)
BALLE_WANG_2018 = Reference(
    citation="Balle & Wang, 'Improving the Gaussian mechanism for differential privacy: "
    "analytical calibration and optimal denoising', ICML 2018",
    locator="Theorem 8 and Algorithm 1",
    url="https://arxiv.org/abs/1805.06530",
)
DWORK_ROTH_2014 = Reference(
    citation="Dwork & Roth, 'The algorithmic foundations of differential privacy', "
    "Foundations and Trends in Theoretical Computer Science, 2014",
    locator="Theorem A.1 (classical Gaussian calibration, epsilon < 1)",
)
CKS_2020 = Reference(
    citation="Canonne, Kamath & Steinke, 'The discrete Gaussian for differential privacy', "
    "NeurIPS 2020",
    locator="Theorem 7 (exact privacy profile), zCDP bounds; Algorithms 1-3 (exact samplers)",
    url="https://arxiv.org/abs/2004.00010",
)
GRS_2009 = Reference(
    citation="Ghosh, Roughgarden & Sundararajan, 'Universally utility-maximizing privacy "
    "mechanisms', STOC 2009",
    locator="the geometric (discrete Laplace) mechanism",
)


# ----------------------------------------------------------------------------------------
# shared construction helpers
# ----------------------------------------------------------------------------------------
def _check_dimension(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < 1:
        raise InvalidParameterError(f"output_dimension must be an integer >= 1, got {value!r}")
    return int(value)


def _merge(defaults: tuple[Reference, ...], extra: Any) -> tuple[Reference, ...]:
    """The default references followed by the caller's (each once)."""
    items = tuple(extra)
    for ref in items:
        if not isinstance(ref, Reference):
            raise InvalidParameterError(f"references must be spec.Reference objects, got {ref!r}")
    return tuple(dict.fromkeys(defaults + items))


def _identity(data: Any) -> Any:
    """The identity statistic: the query answer(s) themselves."""
    return data


def _setup(
    statistic: Statistic | None,
    input_domain: Any,
    relation: Any,
    dimension: int,
    element: Any,
    norm: Literal["l0", "l1", "l2", "linf"],
    radius: float,
    statistic_description: str | None,
) -> tuple[Statistic, Any, Any, str]:
    """(f, domain, relation, description): the identity on query answers by default."""
    given = [statistic is not None, input_domain is not None, relation is not None]
    if not any(given):
        domain = element if dimension == 1 else VectorDomain(element=element, length=dimension)
        what = "the query answer" if dimension == 1 else f"the vector of {dimension} query answers"
        return (
            _identity,
            domain,
            QueryDistance(norm=norm, radius=radius),
            (statistic_description or f"identity: {what}"),
        )
    if not all(given):
        missing = [
            n
            for n, g in zip(("statistic", "input_domain", "relation"), given, strict=True)
            if not g
        ]
        raise InvalidParameterError(
            "statistic, input_domain and relation go together (the default is the identity "
            f"on query answers); missing {missing}"
        )
    if not callable(statistic):
        raise InvalidParameterError(f"statistic must be callable, got {statistic!r}")
    name = getattr(statistic, "__name__", type(statistic).__name__)
    description = statistic_description or name
    return statistic, input_domain, relation, description


# ----------------------------------------------------------------------------------------
# Laplace
# ----------------------------------------------------------------------------------------
class LaplaceMechanism(AdditiveNoiseMechanism):
    """The Laplace mechanism: f(D) + Lap(Δ₁/ε) per coordinate, ε-DP.

    Parameters
    ----------
    epsilon : float
        ε > 0 (finite).
    sensitivity : float
        ℓ1 sensitivity Δ₁ > 0 of f under ``relation``.
    statistic : callable, optional
        f on validated inputs of ``input_domain``; give it with ``input_domain`` and
        ``relation``.  Default: the identity on a query answer (d = 1:
        ``RealInterval()``; else ``VectorDomain(RealInterval(), d)``) with neighbours at
        ℓ1 distance ≤ Δ₁ (``QueryDistance("l1", Δ₁)``).
    input_domain, relation : optional
        The domain and neighbouring relation of the statistic's input.
    output_dimension : int
        Length d of f (default 1).
    name : str
        The spec's name.
    statistic_description : str, optional
        What f is, for the spec (default: the function's name).
    summary : str, optional
        The spec's one-line summary (a default is provided).
    references : tuple of Reference
        Further references, appended to the mechanism's own.
    accuracy : AccuracyClaim, optional
        The spec's accuracy claim (:mod:`spec.accuracy`), if the caller proves one.

    Raises
    ------
    InvalidParameterError
        If ε or Δ is not finite and > 0, or the arguments do not fit together.

    References
    ----------
    .. [1] Dwork, McSherry, Nissim & Smith, "Calibrating noise to sensitivity in private
       data analysis", TCC 2006.

    Examples
    --------
    >>> mech = LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
    >>> mech.noise_law.scale
    1.0
    >>> mech.sample(3.0, size=5, rng=0).shape
    (5,)
    >>> LaplaceMechanism(0.5, 2.0, output_dimension=3).sample([1.0, 2.0, 3.0], 4, rng=1).shape
    (4, 3)
    """

    def __init__(
        self,
        epsilon: float,
        sensitivity: float,
        *,
        statistic: Statistic | None = None,
        input_domain: Any = None,
        relation: Any = None,
        output_dimension: int = 1,
        name: str = "laplace",
        statistic_description: str | None = None,
        summary: str | None = None,
        references: tuple[Reference, ...] = (),
        accuracy: AccuracyClaim | None = None,
    ) -> None:
        eps = _check_epsilon(epsilon)
        delta_f = _check_sensitivity(sensitivity)
        d = _check_dimension(output_dimension)
        fn, domain, rel, what = _setup(
            statistic,
            input_domain,
            relation,
            d,
            RealInterval(),
            "l1",
            delta_f,
            statistic_description,
        )
        spec = MechanismSpec(
            name=name,
            summary=summary or "statistic plus Laplace noise of scale sensitivity/epsilon",
            references=_merge((DMNS_2006,), references),
            input_domain=domain,
            relation=rel,
            statistic=what,
            output_dimension=d,
            sensitivity=(GlobalSensitivity(value=delta_f, norm="l1"),),
            noise=AdditiveNoise(
                law=Laplace(scale=laplace_scale(eps, delta_f)), calibration="exact"
            ),
            guarantee=PureDP(epsilon=eps),
            accuracy=accuracy,
        )
        super().__init__(spec, fn)

    @property
    def noise_law(self) -> Laplace:
        """The Laplace law of each noise coordinate (``spec.noise.law``)."""
        law = super().noise_law
        if not isinstance(law, Laplace):  # __init__ builds the spec with a Laplace law
            raise UnsupportedCombinationError(
                f"LaplaceMechanism needs Laplace noise, got {type(law).__name__}"
            )
        return law


# ----------------------------------------------------------------------------------------
# Gaussian
# ----------------------------------------------------------------------------------------
class GaussianMechanism(AdditiveNoiseMechanism):
    """The Gaussian mechanism: f(D) + N(0, σ²) per coordinate, (ε, δ)-DP.

    Parameters
    ----------
    epsilon : float
        ε > 0 (finite); ε < 1 for the classical calibration.
    delta : float
        δ ∈ (0, 1).
    sensitivity : float
        ℓ2 sensitivity Δ₂ > 0 of f under ``relation``.
    calibration : {"analytic", "classical"}
        ``"analytic"`` (default): the smallest σ of the exact profile (Balle & Wang 2018);
        ``"classical"``: σ = Δ₂√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm. A.1, ε < 1).
    name, summary, references, statistic_description
        As for :class:`LaplaceMechanism`.
    statistic, input_domain, relation, output_dimension
        As for :class:`LaplaceMechanism`; the default relation is
        ``QueryDistance("l2", Δ₂)``.

    Raises
    ------
    InvalidParameterError
        If an argument is outside its range.
    UnsupportedCombinationError
        For the classical calibration with ε ≥ 1.

    References
    ----------
    .. [1] Balle & Wang, ICML 2018, Theorem 8 and Algorithm 1.
    .. [2] Dwork & Roth 2014, Theorem A.1.

    Examples
    --------
    >>> mech = GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    >>> round(mech.noise_law.sigma, 3)
    3.731
    >>> mech.release(0.0, rng=0) != 0.0
    True
    """

    def __init__(
        self,
        epsilon: float,
        delta: float,
        sensitivity: float,
        *,
        calibration: Literal["analytic", "classical"] = "analytic",
        statistic: Statistic | None = None,
        input_domain: Any = None,
        relation: Any = None,
        output_dimension: int = 1,
        name: str = "gaussian",
        statistic_description: str | None = None,
        summary: str | None = None,
        references: tuple[Reference, ...] = (),
    ) -> None:
        eps = _check_epsilon(epsilon)
        d0 = _check_delta(delta)
        delta_f = _check_sensitivity(sensitivity)
        dim = _check_dimension(output_dimension)
        if calibration == "analytic":
            sigma, refs = analytic_gaussian_sigma(eps, d0, delta_f), (BALLE_WANG_2018,)
        elif calibration == "classical":
            sigma, refs = classical_gaussian_sigma(eps, d0, delta_f), (DWORK_ROTH_2014,)
        else:
            raise InvalidParameterError(
                f"calibration must be 'analytic' or 'classical', got {calibration!r}"
            )
        fn, domain, rel, what = _setup(
            statistic,
            input_domain,
            relation,
            dim,
            RealInterval(),
            "l2",
            delta_f,
            statistic_description,
        )
        spec = MechanismSpec(
            name=name,
            summary=summary or f"statistic plus Gaussian noise ({calibration} calibration)",
            references=_merge(refs, references),
            input_domain=domain,
            relation=rel,
            statistic=what,
            output_dimension=dim,
            sensitivity=(GlobalSensitivity(value=delta_f, norm="l2"),),
            noise=AdditiveNoise(law=Gaussian(sigma=sigma), calibration=calibration),
            guarantee=ApproxDP(epsilon=eps, delta=d0),
        )
        super().__init__(spec, fn)

    @property
    def noise_law(self) -> Gaussian:
        """The Gaussian law of each noise coordinate (``spec.noise.law``)."""
        law = super().noise_law
        if not isinstance(law, Gaussian):  # __init__ builds the spec with a Gaussian law
            raise UnsupportedCombinationError(
                f"GaussianMechanism needs Gaussian noise, got {type(law).__name__}"
            )
        return law


# ----------------------------------------------------------------------------------------
# discrete laws
# ----------------------------------------------------------------------------------------
def _check_numerics(numerics: Any) -> Literal["idealized", "exact"]:
    if numerics not in ("idealized", "exact"):
        raise InvalidParameterError(f"numerics must be 'idealized' or 'exact', got {numerics!r}")
    return "exact" if numerics == "exact" else "idealized"


class DiscreteLaplaceMechanism(AdditiveNoiseMechanism):
    """The discrete Laplace (geometric) mechanism: f(D) + DLap(Δ₁/ε) on the integers, ε-DP.

    Parameters
    ----------
    epsilon : float
        ε > 0 (finite).
    sensitivity : int
        Integer ℓ1 sensitivity Δ₁ ≥ 1 of the integer-valued f.
    numerics : {"idealized", "exact"}
        ``"idealized"`` (default): the law's vectorised float-based sampler;
        ``"exact"``: its exact integer sampler (CKS 2020), with no floating-point leak.
    name, summary, references, statistic_description
        As for :class:`LaplaceMechanism`.
    statistic, input_domain, relation, output_dimension
        As for :class:`LaplaceMechanism`; the default input is an integer query answer
        (``IntegerRange()``) with ``QueryDistance("l1", Δ₁)``.

    Raises
    ------
    InvalidParameterError
        If ε is not finite and > 0, or Δ is not a positive integer.

    References
    ----------
    .. [1] Ghosh, Roughgarden & Sundararajan, STOC 2009.
    .. [2] Canonne, Kamath & Steinke, NeurIPS 2020 (exact sampler).

    Examples
    --------
    >>> mech = DiscreteLaplaceMechanism(epsilon=1.0, sensitivity=1)
    >>> out = mech.sample(10, size=3, rng=0)
    >>> out.dtype, out.shape
    (dtype('int64'), (3,))
    """

    def __init__(
        self,
        epsilon: float,
        sensitivity: int,
        *,
        numerics: Literal["idealized", "exact"] = "idealized",
        statistic: Statistic | None = None,
        input_domain: Any = None,
        relation: Any = None,
        output_dimension: int = 1,
        name: str = "discrete_laplace",
        statistic_description: str | None = None,
        summary: str | None = None,
        references: tuple[Reference, ...] = (),
    ) -> None:
        eps = _check_epsilon(epsilon)
        delta_f = _check_integer_sensitivity(sensitivity)
        dim = _check_dimension(output_dimension)
        mode = _check_numerics(numerics)
        fn, domain, rel, what = _setup(
            statistic,
            input_domain,
            relation,
            dim,
            IntegerRange(),
            "l1",
            float(delta_f),
            statistic_description,
        )
        spec = MechanismSpec(
            name=name,
            summary=summary or "integer statistic plus discrete Laplace noise",
            references=_merge((GRS_2009, CKS_2020), references),
            input_domain=domain,
            relation=rel,
            statistic=what,
            output_dimension=dim,
            sensitivity=(GlobalSensitivity(value=delta_f, norm="l1"),),
            noise=AdditiveNoise(
                law=DiscreteLaplace(scale=discrete_laplace_scale(eps, delta_f)), calibration="exact"
            ),
            guarantee=PureDP(epsilon=eps),
            numerics=mode,
        )
        super().__init__(spec, fn)


class DiscreteGaussianMechanism(AdditiveNoiseMechanism):
    """The discrete Gaussian mechanism: f(D) + N_ℤ(0, σ²) on the integers.

    Give either (ε, δ) for an (ε, δ)-DP claim calibrated on the exact discrete profile
    (scalars) or on the ρ-zCDP conversion (vectors), or ``rho`` for a ρ-zCDP claim.

    Parameters
    ----------
    epsilon, delta : float, optional
        ε > 0 and δ ∈ (0, 1); both or neither.
    sensitivity : int
        Integer ℓ2 sensitivity Δ₂ ≥ 1 of the integer-valued f (required).
    rho : float, optional
        ρ > 0 for a zCDP claim, instead of (ε, δ).
    numerics : {"idealized", "exact"}
        ``"exact"`` uses the law's exact integer sampler (CKS 2020, Algorithm 3).
    name, summary, references, statistic_description
        As for :class:`LaplaceMechanism`.
    statistic, input_domain, relation, output_dimension
        As for :class:`LaplaceMechanism`; the default input is an integer query answer
        with ``QueryDistance("l2", Δ₂)``.

    Raises
    ------
    InvalidParameterError
        If an argument is outside its range, or both or neither of (ε, δ) and ρ are given.

    References
    ----------
    .. [1] Canonne, Kamath & Steinke, "The discrete Gaussian for differential privacy",
       NeurIPS 2020.

    Examples
    --------
    >>> mech = DiscreteGaussianMechanism(1.0, 1e-5, 1)
    >>> mech.sample(0, size=2, rng=0).dtype
    dtype('int64')
    >>> DiscreteGaussianMechanism(sensitivity=1, rho=0.5).noise_law.sigma
    1.0
    """

    def __init__(
        self,
        epsilon: float | None = None,
        delta: float | None = None,
        sensitivity: int | None = None,
        *,
        rho: float | None = None,
        numerics: Literal["idealized", "exact"] = "idealized",
        statistic: Statistic | None = None,
        input_domain: Any = None,
        relation: Any = None,
        output_dimension: int = 1,
        name: str = "discrete_gaussian",
        statistic_description: str | None = None,
        summary: str | None = None,
        references: tuple[Reference, ...] = (),
    ) -> None:
        if sensitivity is None:
            raise InvalidParameterError("sensitivity is required, got None")
        delta_f = _check_integer_sensitivity(sensitivity)
        dim = _check_dimension(output_dimension)
        mode = _check_numerics(numerics)
        guarantee: ApproxDP | ZeroConcentratedDP
        if rho is not None:
            if epsilon is not None or delta is not None:
                raise InvalidParameterError(
                    f"give either (epsilon, delta) or rho, got epsilon={epsilon!r}, "
                    f"delta={delta!r} and rho={rho!r}"
                )
            r = _check_epsilon(rho, "rho")
            sigma = zcdp_discrete_gaussian_sigma(r, delta_f)
            guarantee = ZeroConcentratedDP(rho=r)
        else:
            if epsilon is None or delta is None:
                raise InvalidParameterError(
                    f"give both epsilon and delta (or rho), got epsilon={epsilon!r}, "
                    f"delta={delta!r}"
                )
            eps, d0 = _check_epsilon(epsilon), _check_delta(delta)
            sigma = discrete_gaussian_sigma(eps, d0, delta_f, dimension=dim)
            guarantee = ApproxDP(epsilon=eps, delta=d0)
        fn, domain, rel, what = _setup(
            statistic,
            input_domain,
            relation,
            dim,
            IntegerRange(),
            "l2",
            float(delta_f),
            statistic_description,
        )
        spec = MechanismSpec(
            name=name,
            summary=summary or "integer statistic plus discrete Gaussian noise",
            references=_merge((CKS_2020,), references),
            input_domain=domain,
            relation=rel,
            statistic=what,
            output_dimension=dim,
            sensitivity=(GlobalSensitivity(value=delta_f, norm="l2"),),
            noise=AdditiveNoise(law=DiscreteGaussian(sigma=sigma), calibration="exact"),
            guarantee=guarantee,
            numerics=mode,
        )
        super().__init__(spec, fn)

    @property
    def rho(self) -> float | None:
        """ρ of a zCDP claim; ``None`` for an (ε, δ) claim."""
        return getattr(self.spec.guarantee, "rho", None)
