"""mechanisms: randomised algorithms that carry their claims as a :class:`~spec.MechanismSpec`.

Layout (one idea per module):

* :mod:`mechanisms._base` — the :class:`Mechanism` protocol (batched ``sample``,
  ``release``, gray-box hooks);
* :mod:`mechanisms.custom` — :func:`declare_mechanism`, a mechanism from a spec and a
  sampling function;
* :mod:`mechanisms.scalar_sampler` — :func:`from_scalar_sampler`, a mechanism from a
  release of one output per call (another library's mechanism), with its library version;
* :mod:`mechanisms.composition` — composition rules over guarantees;
* :mod:`mechanisms.calibration` — noise scales for a target guarantee (Laplace, classical
  and analytic Gaussian, discrete laws), always on the safe side;
* :mod:`mechanisms.additive` — f(D) + Z: Laplace, Gaussian, discrete Laplace, discrete
  Gaussian;
* :mod:`mechanisms.float_safe` — float-safe Laplace and Gaussian: f(D) rounded to a
  public 2^−k grid plus exact discrete noise in grid units (``numerics="exact"``);
* :mod:`mechanisms.randomized_response` — binary and k-ary randomized response;
* :mod:`mechanisms.selection` — the exponential mechanism (Gumbel-max) and report noisy
  max (Laplace, or exponential noise = permute-and-flip);
* :mod:`mechanisms.smooth_sensitivity` — f(D) + (S(D)/a)·Z with a β-smooth bound S, and
  the smooth-sensitivity median.

Every built-in mechanism draws its noise from the law named in its own spec, so the spec
and the sampler cannot drift apart.

Examples
--------
>>> from privaudit.mechanisms import LaplaceMechanism
>>> mech = LaplaceMechanism(epsilon=1.0, sensitivity=1.0)
>>> mech.sample(0.0, size=1000, rng=0).shape
(1000,)
"""

from __future__ import annotations

from ._base import Mechanism, check_sample_size
from .additive import (
    AdditiveNoiseMechanism,
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
)
from .calibration import (
    analytic_gaussian_sigma,
    classical_gaussian_sigma,
    discrete_gaussian_sigma,
    discrete_laplace_scale,
    laplace_scale,
    zcdp_discrete_gaussian_sigma,
)
from .composition import (
    advanced_composition,
    basic_composition,
    parallel_composition,
    split_budget,
)
from .custom import FunctionMechanism, declare_mechanism
from .float_safe import FloatSafeGaussianMechanism, FloatSafeLaplaceMechanism
from .inverse_sensitivity import (
    inverse_sensitivity_median_mechanism,
    inverse_sensitivity_quantile_mechanism,
    inverse_sensitivity_trimmed_mean_mechanism,
)
from .keyed_histogram import KeyedHistogramMechanism
from .lower_bounds import (
    LOWER_BOUNDS,
    LowerBound,
    accuracy_lower_bound,
    central_mean_bound,
    central_mean_rate,
    central_variance_bound,
    local_mean_bound,
    two_point_absolute_error_bound,
    two_point_quantile_bound,
)
from .partition_selection import (
    laplace_threshold_delta,
    optimal_release_probabilities,
    optimal_release_probability,
)
from .randomized_response import RandomizedResponseMechanism
from .scalar_sampler import (
    SamplerCost,
    ScalarSamplerMechanism,
    from_scalar_sampler,
    installed_versions,
)
from .selection import ExponentialMechanism, NoisyArgmaxMechanism, ReportNoisyMax
from .smooth_median import median_smooth_sensitivity, smooth_median_mechanism
from .smooth_sensitivity import (
    QUARTIC_CONSTANT,
    SmoothSensitivityMechanism,
    smooth_inverse_quartic_mechanism,
    smooth_laplace_mechanism,
)

__all__ = [
    "AdditiveNoiseMechanism",
    "DiscreteGaussianMechanism",
    "DiscreteLaplaceMechanism",
    "ExponentialMechanism",
    "FloatSafeGaussianMechanism",
    "FloatSafeLaplaceMechanism",
    "FunctionMechanism",
    "GaussianMechanism",
    "KeyedHistogramMechanism",
    "LOWER_BOUNDS",
    "LaplaceMechanism",
    "LowerBound",
    "Mechanism",
    "NoisyArgmaxMechanism",
    "QUARTIC_CONSTANT",
    "RandomizedResponseMechanism",
    "ReportNoisyMax",
    "SamplerCost",
    "ScalarSamplerMechanism",
    "SmoothSensitivityMechanism",
    "accuracy_lower_bound",
    "advanced_composition",
    "analytic_gaussian_sigma",
    "basic_composition",
    "central_mean_bound",
    "central_mean_rate",
    "central_variance_bound",
    "check_sample_size",
    "classical_gaussian_sigma",
    "declare_mechanism",
    "discrete_gaussian_sigma",
    "discrete_laplace_scale",
    "from_scalar_sampler",
    "installed_versions",
    "inverse_sensitivity_median_mechanism",
    "inverse_sensitivity_quantile_mechanism",
    "inverse_sensitivity_trimmed_mean_mechanism",
    "laplace_scale",
    "laplace_threshold_delta",
    "local_mean_bound",
    "median_smooth_sensitivity",
    "optimal_release_probabilities",
    "optimal_release_probability",
    "parallel_composition",
    "smooth_inverse_quartic_mechanism",
    "smooth_laplace_mechanism",
    "smooth_median_mechanism",
    "split_budget",
    "two_point_absolute_error_bound",
    "two_point_quantile_bound",
    "zcdp_discrete_gaussian_sigma",
]
