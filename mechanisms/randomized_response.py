"""k-ary randomized response: a local randomizer of one categorical value.

A user holding category x ∈ {0, …, m − 1} reports x with probability
e^ε/(e^ε + m − 1) and each other category with probability 1/(e^ε + m − 1); any two
inputs are neighbours (the local model), and the mechanism is ε-DP.  The output law is
:class:`~spec.RandomizedResponseLaw` taken from the spec, which also checks that its
ε matches the claim.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from privaudit.spec import (
    ApproxDP,
    Categorical,
    LocalRelation,
    MechanismSpec,
    PureDP,
    RandomizedResponse,
    RandomizedResponseLaw,
    Reference,
    RenyiDP,
)
from privaudit.spec.errors import InvalidParameterError, UnsupportedCombinationError

from ._base import Mechanism
from .calibration import _check_epsilon

__all__ = ["RandomizedResponseMechanism"]

WARNER_1965 = Reference(
    citation="Warner, 'Randomized response: a survey technique for eliminating evasive "
    "answer bias', Journal of the American Statistical Association 60(309), 1965"
)
KOV_2016 = Reference(
    citation="Kairouz, Oh & Viswanath, 'Extremal mechanisms for local differential privacy', "
    "Journal of Machine Learning Research 17, 2016",
    locator="k-ary randomized response",
)


class RandomizedResponseMechanism(Mechanism):
    """Binary (m = 2) or k-ary randomized response, ε-DP in the local model.

    Parameters
    ----------
    epsilon : float
        ε > 0 (finite).
    categories : int
        Number of categories m ≥ 2 (default 2: Warner's binary randomized response).
    name : str
        The spec's name.

    Raises
    ------
    InvalidParameterError
        If ε is not finite and > 0, or m is not an integer ≥ 2.

    Notes
    -----
    The input is one category code (validated against ``Categorical(size=m)``);
    :meth:`sample` returns ``size`` independent reports as an ``int64`` array drawn in
    one vectorised call of the law's ``sample_given``.

    References
    ----------
    .. [1] Warner, JASA 1965.
    .. [2] Kairouz, Oh & Viswanath, JMLR 2016.

    Examples
    --------
    >>> rr = RandomizedResponseMechanism(epsilon=1.0, categories=3)
    >>> out = rr.sample(2, size=6, rng=0)
    >>> out.dtype, out.shape, bool(((0 <= out) & (out < 3)).all())
    (dtype('int64'), (6,), True)
    """

    def __init__(
        self, epsilon: float, categories: int = 2, *, name: str = "randomized_response"
    ) -> None:
        eps = _check_epsilon(epsilon)
        if (
            isinstance(categories, bool)
            or not isinstance(categories, numbers.Integral)
            or int(categories) < 2
        ):
            raise InvalidParameterError(f"categories must be an integer >= 2, got {categories!r}")
        m = int(categories)
        law = RandomizedResponseLaw.from_epsilon(eps, m)
        spec = MechanismSpec(
            name=name,
            summary=f"{m}-ary randomized response of one categorical value",
            references=(WARNER_1965, KOV_2016),
            input_domain=Categorical(size=m),
            relation=LocalRelation(),
            statistic="the user's category",
            noise=RandomizedResponse(law=law),
            guarantee=PureDP(epsilon=eps),
        )
        super().__init__(spec)

    @property
    def law(self) -> RandomizedResponseLaw:
        """The output law P(y | x) (``spec.noise.law``)."""
        noise = self.spec.noise
        if not isinstance(noise, RandomizedResponse):  # built so by __init__
            raise UnsupportedCombinationError(
                f"{self.name!r} needs RandomizedResponse noise, got {type(noise).__name__}"
            )
        return noise.law

    @property
    def categories(self) -> int:
        """Number of categories m."""
        return int(self.law.categories)

    @property
    def epsilon(self) -> float:
        """ε of the pure-DP claim."""
        guarantee = self.spec.guarantee
        if not isinstance(guarantee, (PureDP, ApproxDP, RenyiDP)):
            raise UnsupportedCombinationError(
                f"{self.name!r} states its claim in epsilon, got {type(guarantee).__name__}"
            )
        return float(guarantee.epsilon)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        out = self.law.sample_given(int(data), rng, size)
        return np.asarray(out, dtype=np.int64)

    def output_probabilities(self, data: Any) -> np.ndarray:
        """P(· | x) over the m categories, shape (1, m) (gray-box hook of the exact audit)."""
        x = int(self.validate_input(data))
        return np.asarray(self.law.pmf_given(np.arange(self.categories), x), dtype=np.float64)[
            None, :
        ]
