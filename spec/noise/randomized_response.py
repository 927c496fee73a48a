"""k-ary randomized response as a conditional law P(y | x) on the categories {0, …, m − 1}.

Not an additive noise law (the output is not ``x + Z``), so it is a plain spec model, not
a :class:`~spec.noise.NoiseLaw`; it still is the one place where its probabilities,
sampler and privacy quantities are defined.

References
----------
.. [1] Warner. "Randomized Response: A Survey Technique for Eliminating Evasive Answer
   Bias." JASA 1965.
.. [2] Kairouz, Oh, Viswanath. "Extremal Mechanisms for Local Differential Privacy."
   NeurIPS 2014 (k-ary randomized response).
.. [3] Wang, Blocki, Li, Jha. "Locally Differentially Private Protocols for Frequency
   Estimation." USENIX Security 2017 (generalized randomized response).
"""

from __future__ import annotations

import math
from typing import Annotated, Literal, Self

import numpy as np
import numpy.typing as npt
from pydantic import AfterValidator

from .._base import SpecModel
from .._random import RandomLike, as_generator
from .._types import PositiveInt, Probability
from ..errors import InvalidInputError, InvalidParameterError
from ..stable_values import round_down
from ._checks import _check_profile_epsilon, _check_size, _exp_times, _finish, _show

__all__ = ["RandomizedResponseLaw"]


def _at_least_two(m: int) -> int:
    if m < 2:
        raise InvalidParameterError(f"categories must be >= 2, got {m!r}")
    return m


def _positive_probability(p: float) -> float:
    if p <= 0.0:
        raise InvalidParameterError(f"keep_probability must lie in (0, 1], got {p!r}")
    return p


class RandomizedResponseLaw(SpecModel):
    """k-ary randomized response: ``P(y | x) = p`` if ``y = x`` else ``(1 − p)/(m − 1)``.

    Parameters
    ----------
    categories : int
        m ≥ 2, the size of the category set {0, …, m − 1}.
    keep_probability : float
        p ∈ (0, 1], the probability of reporting the true category.  p = 1/m gives no
        information; p < 1/m is allowed (it is still ε-DP with ε = |ln(p(m−1)/(1−p))|).

    Notes
    -----
    The mechanism is ε-DP with ``ε = |ln(p(m − 1)/(1 − p))|`` (``inf`` for p = 1) and
    every pair of distinct inputs is a worst case, with exact profile
    ``δ(ε) = max(0, p − e^ε q) + max(0, q − e^ε p)``, ``q = (1 − p)/(m − 1)``.

    References
    ----------
    .. [1] Kairouz, Oh, Viswanath. NeurIPS 2014; Wang et al. USENIX Security 2017.
    """

    kind: Literal["randomized_response"] = "randomized_response"
    categories: Annotated[PositiveInt, AfterValidator(_at_least_two)]
    keep_probability: Annotated[Probability, AfterValidator(_positive_probability)]

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_epsilon(cls, epsilon: float, categories: int) -> Self:
        """The ε-DP law: ``p = e^ε/(e^ε + m − 1)`` (computed as ``1/(1 + (m−1)e^{−ε})``).

        ``epsilon = 0`` gives p = 1/m; ``epsilon = inf`` gives p = 1.  Otherwise p (through
        libm's exp) is rounded down to the stable grid of :mod:`spec.stable_values` — a
        smaller p > 1/m is more private — and never below 1/m.
        """
        eps = _check_profile_epsilon(epsilon)
        probe = cls(categories=categories, keep_probability=1.0)  # validates m
        m = probe.categories
        p = 1.0 / (1.0 + (m - 1) * math.exp(-eps))
        if 0.0 < eps < math.inf:
            p = max(round_down(p), 1.0 / m)
        return cls(categories=m, keep_probability=p)

    # -- probabilities ----------------------------------------------------------------
    @property
    def flip_probability(self) -> float:
        """``q = (1 − p)/(m − 1)``, the probability of each particular wrong category."""
        return (1.0 - self.keep_probability) / (self.categories - 1)

    def _labels(self, x: npt.ArrayLike, what: str) -> npt.NDArray[np.int64]:
        """Validate category labels: integers (or integer-valued floats) in [0, m)."""
        raw = np.asarray(x)
        if raw.dtype.kind in "iu":
            labels = raw.astype(np.int64, copy=False)
        elif raw.dtype.kind == "f" and np.all(np.isfinite(raw)) and np.all(raw == np.floor(raw)):
            labels = raw.astype(np.int64)
        else:
            raise InvalidInputError(f"{what} must be integer category labels, got {_show(x)}")
        bad = (labels < 0) | (labels >= self.categories)
        if bad.any():
            raise InvalidInputError(
                f"{what} must lie in {{0, …, {self.categories - 1}}}, "
                f"got {int(labels[bad].flat[0])!r}"
            )
        return labels

    def pmf_given(self, y: npt.ArrayLike, x: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """``P(y | x)``, broadcast over ``y`` and ``x`` (both validated category labels)."""
        yy, xx = np.broadcast_arrays(self._labels(y, "y"), self._labels(x, "x"))
        return _finish(np.where(yy == xx, self.keep_probability, self.flip_probability))

    def log_pmf_given(self, y: npt.ArrayLike, x: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """``log P(y | x)`` (``−inf`` for y ≠ x when p = 1)."""
        yy, xx = np.broadcast_arrays(self._labels(y, "y"), self._labels(x, "x"))
        q = self.flip_probability
        log_q = math.log(q) if q > 0 else -math.inf
        return _finish(np.where(yy == xx, math.log(self.keep_probability), log_q))

    def sample_given(
        self, x: npt.ArrayLike, rng: RandomLike, size: int | tuple[int, ...] | None = None
    ) -> npt.NDArray[np.int64]:
        """Draw responses for true categories ``x`` in one vectorised call (int64).

        ``x`` is a label or an array of labels; ``size`` (default: the shape of ``x``) is
        the output shape, to which ``x`` is broadcast.  A wrong answer is uniform on the
        other m − 1 categories.
        """
        labels = self._labels(x, "x")
        gen = as_generator(rng)
        if size is None:
            shape: tuple[int, ...] = labels.shape
        else:
            checked = _check_size(size)
            shape = checked if isinstance(checked, tuple) else (checked,)
        try:
            truth = np.broadcast_to(labels, shape)
        except ValueError:
            raise InvalidInputError(
                f"x of shape {labels.shape} cannot be broadcast to size {shape}"
            ) from None
        keep = gen.random(shape) < self.keep_probability
        other = gen.integers(0, self.categories - 1, shape, dtype=np.int64)
        other += other >= truth  # uniform on {0..m−1} \ {x}
        return _finish(np.where(keep, truth, other))

    # -- privacy ----------------------------------------------------------------------
    @property
    def epsilon(self) -> float:
        """``|ln(p(m − 1)/(1 − p))|``, the largest absolute log-likelihood ratio (inf at p = 1)."""
        p = self.keep_probability
        if p == 1.0:
            return math.inf
        return abs(math.log(p) + math.log(self.categories - 1) - math.log1p(-p))

    def privacy_profile(self, epsilon: float) -> float:
        """Exact δ(ε) between two distinct inputs: ``(p − e^ε q)₊ + (q − e^ε p)₊``.

        ``privacy_profile(0)`` is the total-variation distance ``|p − q|``.
        """
        eps = _check_profile_epsilon(epsilon)
        p, q = self.keep_probability, self.flip_probability
        if q == 0.0:
            return p  # the mass where the other output law vanishes
        if math.isinf(eps):
            return 0.0
        return max(0.0, p - float(_exp_times(eps, q))) + max(0.0, q - float(_exp_times(eps, p)))

    def total_variation(self) -> float:
        """``|p − q|``."""
        return abs(self.keep_probability - self.flip_probability)
