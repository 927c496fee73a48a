"""Thresholded histograms and partition selection as auditable keyed releases.

Records are keys of ``Categorical(K)`` (one user, one key) under add/remove-one.  Each key
with n ≥ 1 users is released with probability π(n) (absent keys never), independently; the
release is encoded by :class:`~privaudit.spec.KeyedRelease` (presence bits, then values).
Methods: ``"laplace"`` (count + Lap(1/ε) kept when ≥ τ), ``"gaussian"`` (count + N(0, σ²)
kept when ≥ τ) and ``"optimal"`` (keys only, π of Desfontaines et al., PoPETS 2022).
Claims and derivations: :mod:`~privaudit.mechanisms.partition_selection`,
``docs/partition_selection.md``.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from scipy import special

from privaudit.spec import (
    AddRemoveOne,
    ApproxDP,
    Categorical,
    DatasetDomain,
    KeyedRelease,
    MechanismSpec,
    Reference,
)
from privaudit.spec.errors import InvalidParameterError

from ._base import Mechanism
from .calibration import _check_delta, _check_epsilon, analytic_gaussian_sigma
from .partition_selection import (
    gaussian_threshold_for_delta,
    laplace_threshold_for_delta,
    optimal_release_probabilities,
    thresholded_gaussian_profile,
    thresholded_laplace_profile,
)

__all__ = ["KeyedHistogramMechanism", "keyed_release_rows"]

Method = Literal["laplace", "gaussian", "optimal"]

#: Relative margin taken off δ in the optimal recursion (floating-point round-off).
_DELTA_MARGIN = 1e-5

_REFERENCES = {
    "laplace": (
        Reference(
            citation="Korolova, Kenthapadi, Mishra & Ntoulas, Releasing search queries and "
            "clicks privately, WWW 2009",
            locator="§4, thresholded Laplace counts",
        ),
        Reference(
            citation="Wilson, Zhang, Lam, Desfontaines, Simmons-Marengo & Gipson, "
            "Differentially private SQL with bounded user contribution, PoPETS 2020",
            locator="§3, Laplace thresholding",
        ),
    ),
    "gaussian": (
        Reference(
            citation="Balle & Wang, Improving the Gaussian mechanism for differential privacy, "
            "ICML 2018",
            locator="Theorem 8 (exact Gaussian profile)",
        ),
        Reference(
            citation="Wilson, Zhang, Lam, Desfontaines, Simmons-Marengo & Gipson, PoPETS 2020",
            locator="§3, thresholding",
        ),
    ),
    "optimal": (
        Reference(
            citation="Desfontaines, Voss, Gipson & Mandayam, Differentially private "
            "partition selection, PoPETS 2022",
            locator="§3, Theorem 1 (optimal release probability)",
        ),
    ),
}


def keyed_release_rows(
    counts: npt.ArrayLike,
    size: int,
    rng: np.random.Generator,
    *,
    method: Method,
    noise_scale: float,
    threshold: float,
    release_probabilities: npt.NDArray[Any] | None = None,
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64] | None]:
    """``size`` independent releases of keys with user ``counts`` (length K).

    Returns presence flags (size, K) and noisy counts (size, K) (``None`` for
    ``"optimal"``).  A key with count 0 is never present.  ``release_probabilities``
    (π(0..n_max), required for ``"optimal"``) is indexed by the count, clipped at n_max
    (π is constant 1 from some n on; :func:`optimal_release_probabilities`).
    """
    c = np.asarray(counts, dtype=np.int64)
    observed = c > 0
    if method == "optimal":
        if release_probabilities is None:
            raise InvalidParameterError("the optimal method needs its release probabilities")
        pi = release_probabilities[np.minimum(c, release_probabilities.size - 1)]
        return observed & (rng.random((size, c.size)) < pi), None
    if method == "laplace":
        noisy = c + rng.laplace(0.0, noise_scale, (size, c.size))
    else:
        noisy = c + rng.normal(0.0, noise_scale, (size, c.size))
    return observed & (noisy >= threshold), noisy


class KeyedHistogramMechanism(Mechanism):
    """A thresholded histogram or a partition selection over K keys, (ε, δ)-DP.

    Parameters
    ----------
    universe_size : int
        K: records are keys ``0 … K − 1`` (each record is one user).
    epsilon, delta : float
        The claim, under add/remove-one: ε > 0, δ ∈ (0, ½).
    method : {"laplace", "gaussian", "optimal"}
        ``"laplace"``: count + Lap(1/ε), released when ≥ τ = 1 + ln(1/(2δ))/ε (δ(ε) =
        ½e^{−ε(τ−1)}); ``"gaussian"``: σ the analytic Gaussian σ(ε, δ) at sensitivity 1,
        τ = 1 + σΦ⁻¹(1 − δ) (δ(ε) = max(Φ((1 − τ)/σ), δ_G(ε)) = δ); ``"optimal"``: keys
        only, each released with the optimal π(n).

    Notes
    -----
    Outputs are the :class:`~privaudit.spec.KeyedRelease` encoding (``self.keyed_release``),
    float64 of shape (N, 2K) (counts) or (N, K) (keys only).  The spec declares no noise
    (the output law is not additive); ``privacy_profile`` gives the exact δ(ε).
    """

    def __init__(
        self, universe_size: int, epsilon: float, delta: float, *, method: Method = "laplace"
    ) -> None:
        if isinstance(universe_size, bool) or not isinstance(universe_size, (int, np.integer)):
            raise InvalidParameterError(f"universe_size must be an integer, got {universe_size!r}")
        if universe_size < 1:
            raise InvalidParameterError(f"universe_size must be >= 1, got {universe_size!r}")
        if method not in ("laplace", "gaussian", "optimal"):
            raise InvalidParameterError(
                f"method must be 'laplace', 'gaussian' or 'optimal', got {method!r}"
            )
        self.epsilon, self.delta = _check_epsilon(epsilon), _check_delta(delta)
        if not 0.0 < self.delta < 0.5:
            raise InvalidParameterError(f"delta must be in (0, 0.5), got {delta!r}")
        self.method: Method = method
        self.noise_scale, self.threshold = 0.0, 0.0
        self.release_probabilities: npt.NDArray[Any] | None = None
        if method == "laplace":
            self.noise_scale = 1.0 / self.epsilon
            self.threshold = laplace_threshold_for_delta(self.epsilon, self.delta)
        elif method == "gaussian":
            self.noise_scale = analytic_gaussian_sigma(self.epsilon, self.delta, 1.0)
            self.threshold = gaussian_threshold_for_delta(self.noise_scale, self.delta)
        else:
            # δ less a relative 1e-5: the recursion holds its constraints with equality,
            # so round-off must not push the realised δ(ε) above the claim
            inner = self.delta * (1.0 - _DELTA_MARGIN)
            pi = optimal_release_probabilities(1, self.epsilon, inner)
            n = 1
            while pi[-1] < 1.0:
                n *= 2
                pi = optimal_release_probabilities(n, self.epsilon, inner)
            self.release_probabilities = pi
        self.keyed_release = KeyedRelease(
            universe_size=int(universe_size), with_values=method != "optimal"
        )
        super().__init__(self._build_spec(int(universe_size)))

    def _build_spec(self, k: int) -> MechanismSpec:
        rule = {
            "laplace": f"count + Laplace({self.noise_scale:.6g}) released when >= "
            f"{self.threshold:.6g}",
            "gaussian": f"count + N(0, {self.noise_scale:.6g}^2) released when >= "
            f"{self.threshold:.6g}",
            "optimal": "each key with n users released with the optimal probability pi(n)",
        }[self.method]
        return MechanismSpec(
            name=f"partition_selection.{self.method}",
            summary=f"keys of one user each; {rule}; absent keys never released",
            references=_REFERENCES[self.method],
            input_domain=DatasetDomain(record=Categorical(size=k)),
            relation=AddRemoveOne(),
            statistic=self.keyed_release.describe(),
            output_dimension=self.keyed_release.output_dimension,
            guarantee=ApproxDP(epsilon=self.epsilon, delta=self.delta),
        )

    def privacy_profile(self, epsilon: float) -> float:
        """The exact δ(ε) (``docs/partition_selection.md`` §1–2)."""
        if self.method == "laplace":
            return thresholded_laplace_profile(self.epsilon, self.threshold, epsilon)
        if self.method == "gaussian":
            return thresholded_gaussian_profile(self.noise_scale, self.threshold, epsilon)
        assert self.release_probabilities is not None
        pi = self.release_probabilities
        e = np.exp(_check_epsilon(epsilon))
        up = pi[1:] - e * pi[:-1]
        down = (1.0 - pi[:-1]) - e * (1.0 - pi[1:])
        return float(max(0.0, up.max(), down.max()))

    def release_probability(self, n: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """π(n): the probability that a key with n users is released (exact)."""
        counts = np.asarray(n, dtype=np.int64)
        if self.method == "optimal":
            assert self.release_probabilities is not None
            pi = self.release_probabilities
            return np.asarray(pi[np.minimum(counts, pi.size - 1)], dtype=np.float64)
        z = (counts - self.threshold) / self.noise_scale
        if self.method == "gaussian":
            p = special.ndtr(z)
        else:
            p = np.where(z >= 0, 1.0 - 0.5 * np.exp(-np.abs(z)), 0.5 * np.exp(-np.abs(z)))
        return np.asarray(np.where(counts > 0, p, 0.0), dtype=np.float64)

    def counts(self, data: Any) -> npt.NDArray[np.int64]:
        """Users per key (length K) of a validated dataset."""
        x = self.validate_input(data)
        return np.bincount(
            np.asarray(x, dtype=np.int64), minlength=self.keyed_release.universe_size
        )

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        present, values = keyed_release_rows(
            self.counts(data),
            size,
            rng,
            method=self.method,
            noise_scale=self.noise_scale,
            threshold=self.threshold,
            release_probabilities=self.release_probabilities,
        )
        return self.keyed_release.encode(present, values)
