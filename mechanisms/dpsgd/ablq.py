"""DP-SGD as adaptive batch linear queries (ABLQ), vectorised over runs.

Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang, "How Private are DP-SGD
Implementations?", ICML 2024, §2 (Algorithm 1, ABLQ_B): for ``t = 1..T`` the mechanism
draws batch ``S_t`` with a batch sampler ``B`` and releases
``g_t = Σ_{i∈S_t} clip_C(ψ_t(x_i)) + N(0, σ²C²)``.  DP-SGD is a post-processing of ABLQ
(its privacy analysis is ABLQ's).  Here the records are the one-dimensional per-example
query values ``ψ(x_i) = x_i`` (the queries do not adapt, the case in which the paper's
lower bounds are proven) and the release is the vector ``(g_1, …, g_T)``.

:class:`ABLQMechanism` declares the claim its accountant proves
(:mod:`mechanisms.dpsgd.accounting`): ``"poisson_pld"`` (the Poisson-subsampled Gaussian
composed by PLD) or ``"partition"`` (no amplification: every example in exactly one batch
per epoch).  Declaring ``"poisson_pld"`` for the ``"shuffle"`` sampler is the common
practice the paper warns against; that combination is kept in the broken suite
(:mod:`privaudit.suites.dpsgd`), marked unproven.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from privaudit.spec import (
    ApproxDP,
    DatasetDomain,
    MechanismSpec,
    RealInterval,
    Reference,
    SubstituteOne,
    VectorDomain,
)
from privaudit.spec.errors import InvalidParameterError
from privaudit.spec.validation import check_delta, check_positive, check_sample_size

from .._base import Mechanism
from .accounting import partition_epsilon, poisson_epsilon
from .batch_sampling import BATCH_SAMPLERS, batch_sums

__all__ = [
    "CHUA_2024",
    "CHUA_2024_SCALABLE",
    "ABLQMechanism",
    "DPSGDClaim",
    "check_batching",
    "claimed_epsilon",
    "declared_claim",
]

DPSGDClaim = Literal["poisson_pld", "partition"]

CHUA_2024 = Reference(
    citation="Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang, 'How Private are DP-SGD "
    "Implementations?', ICML 2024",
    locator="Section 2 (ABLQ, batch samplers), Section 4 (shuffling lower bound)",
    url="https://arxiv.org/abs/2403.17673",
)
CHUA_2024_SCALABLE = Reference(
    citation="Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang, 'Scalable DP-SGD: "
    "Shuffling vs. Poisson Subsampling', NeurIPS 2024",
    locator="Section 3 (balls-in-bins batch sampling)",
    url="https://arxiv.org/abs/2411.04205",
)
_ZHU_2022 = Reference(
    citation="Zhu, Dong & Wang, 'Optimal accounting of differential privacy via "
    "characteristic function', AISTATS 2022",
    locator="Section 5 (dominating pairs of the Poisson-subsampled Gaussian under replacement)",
)
_DONG_2022 = Reference(
    citation="Dong, Roth & Su, 'Gaussian differential privacy', JRSS-B 2022",
    locator="Corollary 3.3 (composition of Gaussian DP)",
)


def check_batching(sampler: str, n: int, batch_size: int, steps: int) -> tuple[int, int, int]:
    """Validated ``(n, batch_size, steps)``; the number of epochs is ``steps·b/n``.

    Raises
    ------
    InvalidParameterError
        Unknown sampler, ``n`` not a multiple of ``batch_size``, or (shuffle and
        balls-in-bins) ``steps`` not a whole number of epochs.
    """
    if sampler not in BATCH_SAMPLERS:
        raise InvalidParameterError(
            f"batch sampler must be one of {', '.join(BATCH_SAMPLERS)}, got {sampler!r}"
        )
    n = check_sample_size(n, minimum=2, what="n")
    b = check_sample_size(batch_size, what="batch_size")
    t = check_sample_size(steps, what="steps")
    if b > n or n % b:
        raise InvalidParameterError(
            f"n must be a multiple of batch_size (n/batch_size steps per epoch), got n={n}, "
            f"batch_size={b}"
        )
    if sampler != "poisson" and t % (n // b):
        raise InvalidParameterError(
            f"{sampler} runs whole epochs of n/batch_size = {n // b} steps, got steps={t}"
        )
    return n, b, t


def claimed_epsilon(
    claim: str, *, sigma: float, n: int, batch_size: int, steps: int, delta: float
) -> float:
    """The ε at ``delta`` that ``claim`` proves for these batching parameters."""
    if claim == "poisson_pld":
        return poisson_epsilon(sigma, batch_size / n, steps, delta)
    if claim == "partition":
        return partition_epsilon(sigma, max(1, steps * batch_size // n), delta)
    raise InvalidParameterError(f"claim must be 'poisson_pld' or 'partition', got {claim!r}")


def declared_claim(
    sampler: str,
    claim: str | None,
    *,
    sigma: float,
    n: int,
    batch_size: int,
    steps: int,
    delta: float,
) -> tuple[str, float, bool]:
    """``(claim, ε, honest)``: the accountant a DP-SGD run declares (by default the one
    its batch sampler proves: the Poisson PLD, or no amplification across the partition
    of shuffled and balls-in-bins batches), the ε it proves at ``delta``, and whether the
    accountant fits the sampler (False for the common practice of accounting shuffled
    batches as Poisson; Chua et al., ICML 2024)."""
    chosen = claim or ("poisson_pld" if sampler == "poisson" else "partition")
    epsilon = claimed_epsilon(
        chosen, sigma=sigma, n=n, batch_size=batch_size, steps=steps, delta=delta
    )
    return chosen, epsilon, (chosen == "poisson_pld") == (sampler == "poisson")


class ABLQMechanism(Mechanism):
    """ABLQ with a batch sampler: ``T`` noisy batch sums of clipped one-dimensional records.

    Parameters
    ----------
    sampler : {"poisson", "shuffle", "balls_in_bins"}
        How batches are drawn (:mod:`mechanisms.dpsgd.batch_sampling`).
    n : int
        Public number of examples.
    batch_size : int
        (Expected) batch size ``b``; ``n`` must be a multiple of it.
    steps : int
        Number of steps ``T`` (whole epochs of ``n/b`` steps for shuffle and balls-in-bins).
    sigma : float
        Noise multiplier: the noise standard deviation is ``σ·C``.
    delta : float
        The δ of the declared (ε, δ) claim.
    clip_norm : float
        Clipping norm ``C``.
    record_bound : float, optional
        Records lie in ``[−record_bound, record_bound]`` (default ``2C``, so that clipping
        is exercised).
    claim : {"poisson_pld", "partition"}, optional
        Which accountant the declared ε comes from; default ``"poisson_pld"`` for the
        Poisson sampler and ``"partition"`` for the others.
    name : str, optional
        The spec's name (default ``"dpsgd.ablq.<sampler>"``).
    dim : int
        Dimension of a record (default 1: scalar records); vector records lie in
        ``[−record_bound, record_bound]^dim`` and are clipped to L2 norm ``C`` (the
        white-box canaries of :mod:`privaudit.auditing.one_run.canaries` use one coordinate each).

    Notes
    -----
    Output ``float64`` of shape ``(N, T)``, or ``(N, T·dim)`` (step-major) for vector
    records.  Under substitute-one the release of a step moves by at most ``2C`` in L2
    (``clip(x) = C`` vs ``−C``).
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
        clip_norm: float = 1.0,
        record_bound: float | None = None,
        claim: str | None = None,
        name: str | None = None,
        dim: int = 1,
    ) -> None:
        self.n, self.batch_size, self.steps = check_batching(sampler, n, batch_size, steps)
        self.sampler = sampler
        self.sigma = check_positive(sigma, "sigma")
        self.dim = check_sample_size(dim, what="dim")
        self.clip_norm = check_positive(clip_norm, "clip_norm")
        bound = 2.0 * self.clip_norm if record_bound is None else record_bound
        self.record_bound = check_positive(bound, "record_bound")
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
        epochs = self.steps * self.batch_size / self.n
        accountant = (
            f"no amplification: {epochs:g} epoch(s), each (2/sigma)-GDP"
            if self.claim == "partition"
            else "PLD of the Poisson-subsampled Gaussian under replacement, q = "
            f"{self.batch_size}/{self.n}, {self.steps} steps"
        )
        super().__init__(
            MechanismSpec(
                name=name or f"dpsgd.ablq.{sampler}",
                summary=f"{self.steps} noisy batch sums (ABLQ, {sampler} batches of "
                f"{self.batch_size} of {self.n}, clip C = {self.clip_norm:g}, noise "
                f"sigma*C with sigma = {self.sigma:g})",
                references=(CHUA_2024, CHUA_2024_SCALABLE, _ZHU_2022, _DONG_2022),
                input_domain=DatasetDomain(record=self._record_domain(), size=self.n),
                relation=SubstituteOne(),
                statistic="per-step sums of the clipped records over the sampled batches",
                output_dimension=self.steps * self.dim,
                guarantee=ApproxDP(epsilon=epsilon, delta=self.delta),
                proof_status="proven" if honest else "unproven",
                notes=f"Claim from the accountant: {accountant} (mechanisms/dpsgd/accounting.py)."
                + (
                    ""
                    if honest
                    else " The batches are NOT drawn by Poisson subsampling: the "
                    "common practice of Chua et al. (ICML 2024), which their Section 4 shows "
                    "can under-report epsilon."
                ),
            )
        )

    def _record_domain(self) -> Any:
        scalar = RealInterval(lo=-self.record_bound, hi=self.record_bound)
        return scalar if self.dim == 1 else VectorDomain(element=scalar, length=self.dim)

    def clipped(self, data: Any) -> np.ndarray:
        """The records clipped to L2 norm ``C`` (the per-example contributions)."""
        x = np.asarray(data, dtype=np.float64)
        if self.dim == 1:
            return np.clip(x, -self.clip_norm, self.clip_norm)
        norm = np.linalg.norm(x, axis=1, keepdims=True)
        return x * np.minimum(1.0, self.clip_norm / np.maximum(norm, 1e-300))

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        sums = batch_sums(self.sampler, self.clipped(data), self.batch_size, self.steps, size, rng)
        noise = (self.sigma * self.clip_norm) * rng.standard_normal(sums.shape)
        return (sums + noise).reshape(size, self.steps * self.dim)
