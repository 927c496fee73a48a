"""Float-safe Laplace and Gaussian mechanisms: exact discrete noise on a public 2^−k grid.

A textbook float Laplace mechanism ``f(D) + b·(sign)·log(U)`` leaks its input through the
low-order bits of its output (Mironov, CCS 2012): the set of floats it can produce
depends on f(D).  The mechanisms here never compute noise in floating point.  As in
OpenDP's float Laplace and Gaussian mechanisms and Mironov's snapping mechanism, they

1. round f(D) onto the public lattice g·ℤ, g = 2^−k, exactly (round half up:
   ``r(v) = g·(⌊v/g⌋ + [v/g − ⌊v/g⌋ ≥ ½])``, every step exact in float64 because g is a
   power of two);
2. add exact discrete noise in grid units — a discrete Laplace or discrete Gaussian
   integer drawn by the compiled exact CKS20 samplers (:mod:`spec.noise._cks`, integer
   randomness and exact decisions only);
3. release ``g·(r(f(D))/g + Y)``, an exact product.

Every output is a lattice point whose law depends on f(D) only through r(f(D)), so no
float artefact distinguishes neighbours beyond what the declared discrete law allows.
The spec accounts for the rounding: the statistic is ``r∘f``, whose sensitivity is
``g·⌈Δ/g⌉ ≤ Δ + g`` for a scalar f of sensitivity Δ (``docs/float_safe_mechanisms.md``),
and the noise is a :class:`~spec.LatticeLaplace` / :class:`~spec.LatticeGaussian` law
calibrated on that sensitivity; ``numerics="exact"``.

References
----------
.. [1] Mironov, "On significance of the least significant bits for differential
   privacy", ACM CCS 2012, §5 (the snapping mechanism).
.. [2] Canonne, Kamath & Steinke, "The discrete Gaussian for differential privacy",
   NeurIPS 2020, Algorithms 1–3 and Theorem 7.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privaudit.spec import (
    AdditiveNoise,
    ApproxDP,
    GlobalSensitivity,
    LatticeGaussian,
    LatticeLaplace,
    MechanismSpec,
    PureDP,
    RealInterval,
    Reference,
)
from privaudit.spec.errors import (
    InvalidInputError,
    InvalidParameterError,
    UnsupportedCombinationError,
)
from privaudit.spec.noise.lattice import check_granularity

from .additive import CKS_2020, AdditiveNoiseMechanism, Statistic, _merge, _setup
from .calibration import (
    _check_delta,
    _check_epsilon,
    _check_sensitivity,
    discrete_gaussian_sigma,
    discrete_laplace_scale,
)

__all__ = [
    "FloatSafeGaussianMechanism",
    "FloatSafeLaplaceMechanism",
    "default_granularity",
    "lattice_sensitivity",
    "round_to_lattice",
]

MIRONOV_2012 = Reference(
    citation="Mironov, 'On significance of the least significant bits for differential "
    "privacy', ACM CCS 2012",
    locator="Section 5 (the snapping mechanism: rounding onto a public power-of-two grid)",
    url="https://doi.org/10.1145/2382196.2382264",
)

#: Grid units of the largest |r(f(D))/g + Y| released exactly (|k| ≤ 2⁵² is exact in float64).
_MAX_GRID = float(1 << 52)
#: Default grid: the largest power of two ≤ Δ/2¹⁰ (sensitivity inflation ≤ 2⁻¹⁰ Δ).
_DEFAULT_STEPS = 10


def default_granularity(sensitivity: float) -> float:
    """The largest power of two g ≤ Δ/2¹⁰: the rounding inflates Δ by at most Δ/1024."""
    delta_f = _check_sensitivity(sensitivity)
    return 2.0 ** (math.floor(math.log2(delta_f)) - _DEFAULT_STEPS)


def lattice_sensitivity(sensitivity: float, granularity: float) -> int:
    """``⌈Δ/g⌉``: the sensitivity of ``r∘f`` in grid units for a scalar f of sensitivity Δ.

    ``r`` (round half up) is non-decreasing and commutes with shifts by g, so for
    ``|f(D) − f(D′)| ≤ Δ``: ``r(f(D′)) ≤ r(f(D) + ⌈Δ/g⌉g) = r(f(D)) + ⌈Δ/g⌉g``, and
    symmetrically (``docs/float_safe_mechanisms.md``).
    """
    g = check_granularity(granularity)
    delta_f = _check_sensitivity(sensitivity)
    return max(1, math.ceil(delta_f / g))


def round_to_lattice(value: Any, granularity: float) -> np.ndarray:
    """Grid indices ``⌊v/g⌋ + [v/g − ⌊v/g⌋ ≥ ½]`` (int64), computed exactly.

    ``v/g`` is exact for a power of two g (no overflow or subnormals in the checked
    range), and so are ``⌊·⌋`` and the fractional part (Sterbenz).

    Raises
    ------
    InvalidInputError
        If a value is not finite or ``|v/g| > 2⁵²``.
    """
    v = np.asarray(value, dtype=np.float64)
    y = v / granularity
    if not np.all(np.isfinite(y)) or np.any(np.abs(y) > _MAX_GRID):
        raise InvalidInputError(
            f"a float-safe release needs finite values with |value/granularity| <= 2**52, got "
            f"{value!r} at granularity {granularity!r}"
        )
    low = np.floor(y)
    return (low + (y - low >= 0.5)).astype(np.int64)


class _FloatSafeMechanism(AdditiveNoiseMechanism):
    """r(f(D)) + exact lattice noise; float64 outputs on g·ℤ (scalar statistics)."""

    @property
    def _lattice_law(self) -> LatticeLaplace | LatticeGaussian:
        """The noise law, a lattice law by construction of the subclasses."""
        law = self.noise_law
        if not isinstance(law, (LatticeLaplace, LatticeGaussian)):  # pragma: no cover - built so
            raise UnsupportedCombinationError(
                f"a float-safe mechanism needs a lattice noise law, got {type(law).__name__}"
            )
        return law

    @property
    def granularity(self) -> float:
        """The public grid step g = 2^−k."""
        return float(self._lattice_law.granularity)

    def _evaluate(self, data: Any) -> np.ndarray:
        """r(f(D)) as a float64 lattice point (0-d)."""
        value = np.asarray(self._statistic_fn(data))
        if value.shape == (1,):
            value = value.reshape(())
        if value.shape != () or value.dtype.kind not in "iuf":
            raise InvalidInputError(
                f"statistic of {self.name!r} must return one real number, got {value!r}"
            )
        return round_to_lattice(value, self.granularity) * self.granularity

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        g = self.granularity
        index = round_to_lattice(self._statistic_fn(data), g).reshape(())
        unit = self._lattice_law.unit_law
        draws = unit.sample_exact(rng, size) if self._exact else unit.sample(rng, size)
        draws += index
        if draws.size and (draws.max() > _MAX_GRID or draws.min() < -_MAX_GRID):
            raise InvalidInputError(
                f"{self.name!r}: a released grid index exceeds 2**52 (value {index * g!r}, "
                f"granularity {g!r}); use a coarser granularity"
            )
        return draws * g


def _granularity(granularity: float | None, delta_f: float) -> float:
    if granularity is None:
        return default_granularity(delta_f)
    return check_granularity(granularity)


class FloatSafeLaplaceMechanism(_FloatSafeMechanism):
    """ε-DP Laplace-type release of a real statistic with no floating-point leak.

    Releases ``g·(r(f(D))/g + Y)``, ``Y ~ DLap(⌈Δ/g⌉/ε)`` drawn exactly (CKS20), i.e.
    ``r(f(D)) + Z`` with ``Z ~ LatticeLaplace(g⌈Δ/g⌉/ε, g)``.

    Parameters
    ----------
    epsilon : float
        ε > 0 (finite).
    sensitivity : float
        Sensitivity Δ > 0 of the scalar f under ``relation``.
    granularity : float, optional
        The public grid g = 2^−k (a power of two); default the largest power of two
        ≤ Δ/1024.
    statistic, input_domain, relation : optional
        As for :class:`~mechanisms.LaplaceMechanism` (default: the identity on a real
        query answer with neighbours at distance ≤ Δ).
    name, statistic_description, summary, references
        As for :class:`~mechanisms.LaplaceMechanism`.

    Raises
    ------
    InvalidParameterError
        If ε, Δ or g is out of range.

    References
    ----------
    .. [1] Mironov, ACM CCS 2012, §5.
    .. [2] Canonne, Kamath & Steinke, NeurIPS 2020, Algorithm 2.

    Examples
    --------
    >>> mech = FloatSafeLaplaceMechanism(epsilon=1.0, sensitivity=1.0)
    >>> mech.spec.numerics, mech.granularity
    ('exact', 0.0009765625)
    >>> out = mech.sample(0.3, size=4, rng=0)
    >>> bool(np.all(out / mech.granularity == np.round(out / mech.granularity)))
    True
    """

    def __init__(
        self,
        epsilon: float,
        sensitivity: float,
        *,
        granularity: float | None = None,
        statistic: Statistic | None = None,
        input_domain: Any = None,
        relation: Any = None,
        name: str = "float_safe_laplace",
        statistic_description: str | None = None,
        summary: str | None = None,
        references: tuple[Reference, ...] = (),
    ) -> None:
        eps = _check_epsilon(epsilon)
        delta_f = _check_sensitivity(sensitivity)
        g = _granularity(granularity, delta_f)
        m = lattice_sensitivity(delta_f, g)
        fn, domain, rel, what = _setup(
            statistic,
            input_domain,
            relation,
            1,
            RealInterval(),
            "l1",
            delta_f,
            statistic_description,
        )
        scale_units = discrete_laplace_scale(eps, m)
        spec = MechanismSpec(
            name=name,
            summary=summary
            or "statistic rounded to a 2^-k grid plus exact discrete Laplace "
            "noise in grid units (no floating-point leak)",
            references=_merge((MIRONOV_2012, CKS_2020), references),
            input_domain=domain,
            relation=rel,
            statistic=f"{what}, rounded half up to the grid {g!r}·Z",
            sensitivity=(GlobalSensitivity(value=m * g, norm="l1"),),
            noise=AdditiveNoise(
                law=LatticeLaplace(scale=scale_units * g, granularity=g), calibration="exact"
            ),
            guarantee=PureDP(epsilon=eps),
            numerics="exact",
            notes=f"sensitivity of the rounded statistic: g*ceil(Delta/g) = {m * g!r} for "
            f"Delta = {delta_f!r}, g = {g!r} (docs/float_safe_mechanisms.md)",
        )
        super().__init__(spec, fn)


class FloatSafeGaussianMechanism(_FloatSafeMechanism):
    """(ε, δ)-DP Gaussian-type release of a real statistic with no floating-point leak.

    Releases ``r(f(D)) + Z``, ``Z = g·Y``, ``Y ~ N_ℤ(0, σ_u²)`` drawn exactly (CKS20),
    with σ_u the smallest σ whose exact discrete-Gaussian profile at integer sensitivity
    ``⌈Δ/g⌉`` meets δ at ε (:func:`~mechanisms.calibration.discrete_gaussian_sigma`).

    Parameters
    ----------
    epsilon, delta : float
        ε > 0 and δ ∈ (0, 1).
    sensitivity : float
        Sensitivity Δ > 0 of the scalar f.
    granularity : float, optional
        The public grid g = 2^−k; default the largest power of two ≤ Δ/1024.
    statistic, input_domain, relation, name, statistic_description, summary, references
        As for :class:`FloatSafeLaplaceMechanism`.

    Raises
    ------
    InvalidParameterError
        If an argument is out of range.

    References
    ----------
    .. [1] Canonne, Kamath & Steinke, NeurIPS 2020, Algorithm 3 and Theorem 7.
    .. [2] Mironov, ACM CCS 2012, §5.

    Examples
    --------
    >>> mech = FloatSafeGaussianMechanism(1.0, 1e-5, 1.0)
    >>> mech.spec.noise.law.kind
    'lattice_gaussian'
    """

    def __init__(
        self,
        epsilon: float,
        delta: float,
        sensitivity: float,
        *,
        granularity: float | None = None,
        statistic: Statistic | None = None,
        input_domain: Any = None,
        relation: Any = None,
        name: str = "float_safe_gaussian",
        statistic_description: str | None = None,
        summary: str | None = None,
        references: tuple[Reference, ...] = (),
    ) -> None:
        eps, d0 = _check_epsilon(epsilon), _check_delta(delta)
        delta_f = _check_sensitivity(sensitivity)
        g = _granularity(granularity, delta_f)
        m = lattice_sensitivity(delta_f, g)
        fn, domain, rel, what = _setup(
            statistic,
            input_domain,
            relation,
            1,
            RealInterval(),
            "l2",
            delta_f,
            statistic_description,
        )
        sigma_units = discrete_gaussian_sigma(eps, d0, m)
        if sigma_units * g <= 0 or not math.isfinite(sigma_units * g):
            raise InvalidParameterError(f"granularity {g!r} gives no valid sigma")
        spec = MechanismSpec(
            name=name,
            summary=summary
            or "statistic rounded to a 2^-k grid plus exact discrete Gaussian "
            "noise in grid units (no floating-point leak)",
            references=_merge((CKS_2020, MIRONOV_2012), references),
            input_domain=domain,
            relation=rel,
            statistic=f"{what}, rounded half up to the grid {g!r}·Z",
            sensitivity=(GlobalSensitivity(value=m * g, norm="l2"),),
            noise=AdditiveNoise(
                law=LatticeGaussian(sigma=sigma_units * g, granularity=g), calibration="exact"
            ),
            guarantee=ApproxDP(epsilon=eps, delta=d0),
            numerics="exact",
            notes=f"sensitivity of the rounded statistic: g*ceil(Delta/g) = {m * g!r} for "
            f"Delta = {delta_f!r}, g = {g!r} (docs/float_safe_mechanisms.md)",
        )
        super().__init__(spec, fn)
