"""The analyst's partition selection and thresholded histogram over arbitrary keys.

One key per user (a sequence of hashable keys); only keys present in the data can be
released, each independently with the probability of the chosen rule
(:mod:`privaudit.mechanisms.keyed_histogram`, whose finite-universe mechanisms are the
audited ones).  Results list the released keys (and noisy counts) with the claim.

References: Desfontaines, Voss, Gipson & Mandayam, PoPETS 2022; Korolova, Kenthapadi,
Mishra & Ntoulas, WWW 2009; ``docs/partition_selection.md``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from privaudit.mechanisms import KeyedHistogramMechanism
from privaudit.mechanisms.accounting import PrivacyBudget
from privaudit.mechanisms.accounting.budget import charge
from privaudit.mechanisms.keyed_histogram import keyed_release_rows
from privaudit.spec import MechanismSpec, RandomLike, as_generator
from privaudit.spec.errors import EmptyInputError, InvalidInputError, InvalidParameterError

__all__ = [
    "PartitionSelection",
    "PrivateHistogram",
    "private_histogram",
    "private_partition_selection",
]


@dataclass(frozen=True)
class PartitionSelection:
    """Keys released by a private partition selection.

    Attributes
    ----------
    keys : tuple
        The released keys (in first-seen order of the input).
    method : str
        ``"laplace"``, ``"gaussian"`` or ``"optimal"``.
    spec : MechanismSpec
        The claim ((ε, δ)-DP under add/remove-one, one key per user).
    """

    keys: tuple[Hashable, ...]
    method: str
    spec: MechanismSpec


@dataclass(frozen=True)
class PrivateHistogram:
    """Released keys with their noisy counts.

    Attributes
    ----------
    counts : Mapping
        ``{key: noisy count}`` of the released keys.
    method : str
        ``"laplace"`` or ``"gaussian"``.
    threshold, noise_scale : float
        τ and the noise scale (Laplace b = 1/ε, or Gaussian σ): public.
    spec : MechanismSpec
        The claim.
    """

    counts: Mapping[Hashable, float]
    method: str
    threshold: float
    noise_scale: float
    spec: MechanismSpec

    @property
    def keys(self) -> tuple[Hashable, ...]:
        """The released keys."""
        return tuple(self.counts)


def _user_counts(keys: Iterable[Hashable]) -> tuple[list[Hashable], np.ndarray]:
    if isinstance(keys, (str, bytes)) or not isinstance(keys, Iterable):
        raise InvalidInputError(f"keys must be a sequence of keys (one per user), got {keys!r}")
    try:
        # numpy scalars (keys from an array) become Python values: 3, not np.int64(3)
        counted = Counter(k.item() if isinstance(k, np.generic) else k for k in keys)
    except TypeError as err:
        raise InvalidInputError(f"keys must be hashable: {err}") from None
    if not counted:
        raise EmptyInputError("keys is empty: there are no users")
    for key in counted:
        if isinstance(key, float) and np.isnan(key):
            raise InvalidInputError("keys contain NaN, which is not a usable key")
    return list(counted), np.fromiter(counted.values(), dtype=np.int64, count=len(counted))


def _release(
    keys: Iterable[Hashable],
    epsilon: float,
    delta: float,
    method: Any,
    rng: RandomLike,
    budget: PrivacyBudget | None,
) -> tuple[KeyedHistogramMechanism, list[Hashable], np.ndarray, np.ndarray | None]:
    mech = KeyedHistogramMechanism(1, epsilon, delta, method=method)
    distinct, counts = _user_counts(keys)
    charge(budget, mech.spec, estimator=f"partition_selection.{mech.method}")
    present, values = keyed_release_rows(
        counts,
        1,
        as_generator(rng),
        method=mech.method,
        noise_scale=mech.noise_scale,
        threshold=mech.threshold,
        release_probabilities=mech.release_probabilities,
    )
    return mech, distinct, present[0], None if values is None else values[0]


def private_partition_selection(
    keys: Iterable[Hashable],
    epsilon: float,
    delta: float,
    *,
    method: Literal["laplace", "gaussian", "optimal"] = "optimal",
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> PartitionSelection:
    """The keys of an (ε, δ)-DP partition selection (one key per user).

    Parameters
    ----------
    keys : iterable of hashable
        One key per user (a user's key repeated is two users).
    epsilon, delta : float
        ε > 0 and δ ∈ (0, ½), under add/remove-one user.
    method : {"optimal", "laplace", "gaussian"}
        ``"optimal"``: each key with n users kept with probability π(n) (Desfontaines et
        al., PoPETS 2022, Theorem 1); ``"laplace"`` / ``"gaussian"``: noisy count ≥ τ.
    rng : numpy.random.Generator, int or None
    budget : PrivacyBudget, optional
        Charged for this release before any randomness is drawn.

    Returns
    -------
    PartitionSelection

    Raises
    ------
    InvalidParameterError, EmptyInputError, InvalidInputError
        Out-of-range ε, δ or method; no keys; unhashable or NaN keys.

    Examples
    --------
    >>> sel = private_partition_selection(["a"] * 40 + ["b"], 1.0, 1e-6, rng=0)
    >>> sel.keys
    ('a',)
    """
    mech, distinct, present, _ = _release(keys, epsilon, delta, method, rng, budget)
    kept = tuple(k for k, p in zip(distinct, present, strict=True) if p)
    return PartitionSelection(keys=kept, method=mech.method, spec=mech.spec)


def private_histogram(
    keys: Iterable[Hashable],
    epsilon: float,
    delta: float,
    *,
    method: Literal["laplace", "gaussian"] = "laplace",
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> PrivateHistogram:
    """An (ε, δ)-DP histogram: keys whose noisy count clears τ, with those counts.

    Parameters
    ----------
    keys : iterable of hashable
        One key per user.
    epsilon, delta : float
        ε > 0, δ ∈ (0, ½), under add/remove-one user.
    method : {"laplace", "gaussian"}
        Laplace(1/ε) noise with τ = 1 + ln(1/(2δ))/ε, or the analytic Gaussian σ(ε, δ)
        with τ = 1 + σΦ⁻¹(1 − δ) (``docs/partition_selection.md`` §1–2).
    rng : numpy.random.Generator, int or None
    budget : PrivacyBudget, optional
        Charged for this release before any randomness is drawn.

    Returns
    -------
    PrivateHistogram

    Raises
    ------
    InvalidParameterError
        ``method="optimal"`` (it releases keys only) or out-of-range ε, δ.
    """
    if method not in ("laplace", "gaussian"):
        raise InvalidParameterError(
            f"method must be 'laplace' or 'gaussian' for a histogram, got {method!r}"
        )
    mech, distinct, present, values = _release(keys, epsilon, delta, method, rng, budget)
    assert values is not None
    counts = {k: float(v) for k, p, v in zip(distinct, present, values, strict=True) if p}
    return PrivateHistogram(
        counts=counts,
        method=mech.method,
        threshold=mech.threshold,
        noise_scale=mech.noise_scale,
        spec=mech.spec,
    )
