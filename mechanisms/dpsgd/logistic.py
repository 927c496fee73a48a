"""A small DP-SGD training loop: logistic regression, per-example clipping, Gaussian noise.

Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar & Zhang, "Deep learning with
differential privacy", CCS 2016, Algorithm 1, vectorised over independent runs:

    θ_0 = 0;  for t = 1..T:  g_t = Σ_{i∈S_t} clip_C(∇ℓ(θ_{t−1}; x_i)) + N(0, σ²C² I_d),
                             θ_t = θ_{t−1} − η g_t / b,

with the logistic loss ℓ(θ; (u, l)) = log(1 + e^{θ·u}) − s·θ·u of features ``u`` and
soft label ``s = (l + 1)/2`` (a record is the vector ``(u, l)`` in ``[−1, 1]^{d+1}``),
``clip_C(g) = g·min(1, C/‖g‖₂)`` and batches ``S_t`` from one of the batch samplers of
:mod:`mechanisms.dpsgd.batch_sampling`.  The release is the trajectory
``(θ_1, …, θ_T)``: a post-processing of the noisy gradients (ABLQ with adaptive queries,
Chua et al., ICML 2024, §2), so the claims of :mod:`mechanisms.dpsgd.accounting` apply
unchanged.  :func:`logistic_data` generates a data set from a logistic model.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from privaudit.spec import (
    ApproxDP,
    DatasetDomain,
    MechanismSpec,
    RandomLike,
    RealInterval,
    Reference,
    SubstituteOne,
    VectorDomain,
    as_generator,
)
from privaudit.spec.validation import check_delta, check_positive, check_sample_size

from .._base import Mechanism
from .ablq import CHUA_2024, check_batching, declared_claim

__all__ = ["LogisticDPSGD", "logistic_data"]

_ABADI_2016 = Reference(
    citation="Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar & Zhang, 'Deep learning with "
    "differential privacy', ACM CCS 2016",
    locator="Algorithm 1 (per-example clipping, Gaussian noise)",
)


def logistic_data(
    n: int, dim: int, rng: RandomLike = None, *, weights: Any = None
) -> npt.NDArray[np.float64]:
    """``n`` records ``(u, l)``: features uniform on ``[−1, 1]^dim``, label ``l = ±1`` with
    ``P[l = 1] = 1/(1 + e^{−w·u})`` (``w`` defaults to ``(2, −1, 2, −1, …)``).

    Returns
    -------
    numpy.ndarray, shape ``(n, dim + 1)``
    """
    n = check_sample_size(n, what="n")
    dim = check_sample_size(dim, what="dim")
    gen = as_generator(rng)
    w = (
        np.where(np.arange(dim) % 2 == 0, 2.0, -1.0)
        if weights is None
        else np.asarray(weights, dtype=np.float64).reshape(dim)
    )
    u = gen.uniform(-1.0, 1.0, size=(n, dim))
    label = np.where(gen.random(n) < 1.0 / (1.0 + np.exp(-u @ w)), 1.0, -1.0)
    return np.concatenate([u, label[:, None]], axis=1)


def _batches(
    sampler: str, n: int, batch_size: int, steps: int, size: int, rng: np.random.Generator
) -> Iterator[npt.NDArray[np.bool_]]:
    """Batch membership, step by step: masks of shape ``(size, n)``."""
    per_epoch = n // batch_size
    for t in range(steps):
        if sampler == "poisson":
            yield rng.random((size, n)) < batch_size / n
            continue
        k = t % per_epoch
        if k == 0:
            if sampler == "shuffle":
                position = np.argsort(np.argsort(rng.random((size, n)), axis=1), axis=1)
                batch = position // batch_size
            else:
                batch = rng.integers(0, per_epoch, size=(size, n))
        yield batch == k


class LogisticDPSGD(Mechanism):
    """DP-SGD on logistic regression; releases the ``T`` iterates, shape ``(N, T·d)``.

    Parameters
    ----------
    sampler : {"poisson", "shuffle", "balls_in_bins"}
    n, batch_size, steps, sigma, delta, clip_norm, claim, name
        As in :class:`~mechanisms.dpsgd.ABLQMechanism`.
    dim : int
        Number of features ``d``.
    learning_rate : float
        Step size ``η``.
    """

    def __init__(
        self,
        sampler: str,
        n: int,
        batch_size: int,
        steps: int,
        sigma: float,
        delta: float = 1e-5,
        *,
        dim: int = 2,
        clip_norm: float = 1.0,
        learning_rate: float = 0.5,
        claim: str | None = None,
        name: str | None = None,
    ) -> None:
        self.n, self.batch_size, self.steps = check_batching(sampler, n, batch_size, steps)
        self.sampler = sampler
        self.dim = check_sample_size(dim, what="dim")
        self.sigma = check_positive(sigma, "sigma")
        self.clip_norm = check_positive(clip_norm, "clip_norm")
        self.learning_rate = check_positive(learning_rate, "learning_rate")
        self.delta = check_delta(delta)
        self.claim, epsilon, honest = declared_claim(
            sampler,
            claim,
            sigma=self.sigma,
            n=self.n,
            batch_size=self.batch_size,
            steps=self.steps,
            delta=self.delta,
        )
        super().__init__(
            MechanismSpec(
                name=name or f"dpsgd.logistic.{sampler}",
                summary=f"DP-SGD iterates of a {self.dim}-feature logistic regression "
                f"({self.steps} steps, {sampler} batches of {self.batch_size} of {self.n}, "
                f"clip C = {self.clip_norm:g}, sigma = {self.sigma:g})",
                references=(_ABADI_2016, CHUA_2024),
                input_domain=DatasetDomain(
                    record=VectorDomain(element=RealInterval(lo=-1.0, hi=1.0), length=self.dim + 1),
                    size=self.n,
                ),
                relation=SubstituteOne(),
                statistic="the DP-SGD trajectory theta_1..theta_T (post-processing of ABLQ)",
                output_dimension=self.steps * self.dim,
                guarantee=ApproxDP(epsilon=epsilon, delta=self.delta),
                proof_status="proven" if honest else "unproven",
                notes=f"Claim from the '{self.claim}' accountant (mechanisms/dpsgd/accounting.py); "
                "a record is (features, label) with label in [-1, 1] used as the soft "
                "target (label + 1)/2."
                + (
                    ""
                    if honest
                    else " The batches are NOT Poisson: the common practice "
                    "Chua et al. (ICML 2024) warn against."
                ),
            )
        )

    def clipped_gradients(
        self, theta: npt.NDArray[np.float64], data: Any
    ) -> npt.NDArray[np.float64]:
        """Per-example clipped gradients at each run's ``theta``: shape ``(runs, n, d)``."""
        u, target = self._split(data)
        residual, factor = self._residuals(np.atleast_2d(theta), u, target)
        return (residual * factor)[:, :, None] * u[None, :, :]

    def _split(self, data: Any) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        x = np.asarray(data, dtype=np.float64)
        return x[:, : self.dim], (x[:, self.dim] + 1.0) / 2.0

    def _residuals(
        self,
        theta: npt.NDArray[np.float64],
        u: npt.NDArray[np.float64],
        target: npt.NDArray[np.float64],
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``σ(θ·u_i) − s_i`` and the clipping factor ``min(1, C/‖g_i‖)`` per run and example."""
        residual = 1.0 / (1.0 + np.exp(-(theta @ u.T))) - target[None, :]
        norm = np.abs(residual) * np.linalg.norm(u, axis=1)[None, :]
        factor = np.minimum(1.0, self.clip_norm / np.maximum(norm, 1e-300))
        return residual, factor

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        u, target = self._split(data)
        theta = np.zeros((size, self.dim))
        out = np.empty((size, self.steps, self.dim))
        noise_sd = self.sigma * self.clip_norm
        for t, mask in enumerate(
            _batches(self.sampler, self.n, self.batch_size, self.steps, size, rng)
        ):
            residual, factor = self._residuals(theta, u, target)
            grad_sum = (mask * residual * factor) @ u
            noisy = grad_sum + noise_sd * rng.standard_normal((size, self.dim))
            theta = theta - self.learning_rate * noisy / self.batch_size
            out[:, t] = theta
        return out.reshape(size, self.steps * self.dim)
