"""What each batch sampler of DP-SGD provably delivers, under substitute-one.

Setting (``docs/dpsgd_audit.md`` §1): a public number ``n`` of examples, records related by
:class:`~spec.SubstituteOne` (one example replaced by any other), every per-example
contribution clipped to L2 norm ``C``, Gaussian noise of standard deviation ``σC`` added to
every batch sum, ``T`` steps.  Chua et al. (ICML 2024, §2) state their results under
"zero-out" adjacency (one example replaced by a special example contributing 0); every
zero-out pair is a substitution pair here (the record 0 is in the domain), so the claims
below are the stronger, substitution ones.

* :func:`poisson_epsilon` — Poisson subsampling at rate ``q = b/n``: the privacy-loss
  distribution of the subsampled Gaussian under replacement,
  ``q·N(−C, σ²C²) + (1−q)·N(0, σ²C²)`` vs ``q·N(C, σ²C²) + (1−q)·N(0, σ²C²)``
  (dp_accounting's ``REPLACE_ONE``; Zhu, Dong & Wang, AISTATS 2022, §5; that the
  antipodal pair ``−C`` vs ``+C`` dominates every substitution of contributions of norm
  at most ``C`` — also of vectors, for :class:`~mechanisms.dpsgd.LogisticDPSGD` — is the
  premise of that accountant, relied on here, not re-proven), composed over
  ``T`` steps by FFT (Koskela, Jälkö & Honkela, AISTATS 2020), with dp_accounting's
  pessimistic discretisation and :data:`~mechanisms.accounting.accountants.PLD_FLOAT_MARGIN`.
* :func:`partition_mu` — shuffling and balls-in-bins, bounded with *no* amplification:
  in every epoch each example is in exactly one batch.  Couple the two runs on the same
  batch assignment; then the two outputs differ in one step only, by at most ``2C``
  (``C`` vs ``−C``), even when the later queries adapt to earlier answers, so each epoch
  is ``(2/σ)``-GDP conditionally on the assignment, hence also as a mixture (joint
  convexity of the hockey-stick divergence), and ``E`` epochs compose to
  ``μ = 2√E/σ`` (Dong, Roth & Su, JRSS-B 2022, Cor. 3.3).  Exact for a fixed partition,
  an upper bound for the random ones.

Both ε are claims that enter a spec: they are rounded up to the stable grid of
:mod:`spec.stable_values` (the FFT's last bits differ between CPUs: 0.5653074598440593
on one, 0.5653074598452299 on another; both claim 0.565308).
"""

from __future__ import annotations

import math
from functools import lru_cache

from privaudit.spec import GaussianDP
from privaudit.spec.stable_values import round_up
from privaudit.spec.validation import (
    check_delta,
    check_positive,
    check_probability,
    check_sample_size,
)

from ..accounting.accountants import PLD_FLOAT_MARGIN

__all__ = ["partition_epsilon", "partition_mu", "poisson_epsilon"]


def poisson_epsilon(
    sigma: float,
    sampling_rate: float,
    steps: int,
    delta: float,
    *,
    value_discretization_interval: float = 1e-3,
) -> float:
    """ε(δ) of ``steps`` Poisson-subsampled Gaussian steps under substitute-one.

    Parameters
    ----------
    sigma : float
        Noise multiplier σ (noise standard deviation over the clipping norm).
    sampling_rate : float
        Inclusion probability ``q`` of each example at each step.
    steps : int
        Number of steps ``T``.
    delta : float
        Target δ.
    value_discretization_interval : float
        Grid of dp_accounting's privacy-loss distribution (pessimistic rounding, so every
        grid gives an upper bound; 1e-3 is within 1e-4 of 1e-4's answer at the settings
        of ``docs/dpsgd_audit.md`` and 10× faster).

    Returns
    -------
    float
        An upper bound on ε(δ), inflated by ``PLD_FLOAT_MARGIN`` (relative and absolute)
        and rounded up to the stable grid.  Answers are cached (the registry builds its
        mechanisms often).
    """
    return _poisson_epsilon(
        check_positive(sigma, "sigma"),
        check_probability(sampling_rate, "sampling_rate"),
        check_sample_size(steps, what="steps"),
        check_delta(delta),
        check_positive(value_discretization_interval, "value_discretization_interval"),
    )


@lru_cache(maxsize=256)
def _poisson_epsilon(s: float, q: float, t: int, d: float, h: float) -> float:
    from dp_accounting import NeighboringRelation
    from dp_accounting.pld import privacy_loss_distribution as pld_mod

    pld = pld_mod.from_gaussian_mechanism(
        s,
        sensitivity=1.0,
        sampling_prob=q,
        value_discretization_interval=h,
        neighboring_relation=NeighboringRelation.REPLACE_ONE,
    )
    if t > 1:
        pld = pld.self_compose(t)
    eps = float(pld.get_epsilon_for_delta(d))
    if not math.isfinite(eps):
        return eps
    return round_up(eps * (1.0 + PLD_FLOAT_MARGIN) + PLD_FLOAT_MARGIN)


def partition_mu(sigma: float, epochs: int) -> float:
    """GDP μ = 2√E/σ of ``E`` epochs in which every example is in exactly one batch."""
    s = check_positive(sigma, "sigma")
    e = check_sample_size(epochs, what="epochs")
    return 2.0 * math.sqrt(e) / s


def partition_epsilon(sigma: float, epochs: int, delta: float) -> float:
    """ε(δ) of :func:`partition_mu` (exact GDP profile, Dong, Roth & Su 2022, Cor. 2.13),
    found by a root find and rounded up to the stable grid."""
    return round_up(
        GaussianDP(mu=partition_mu(sigma, epochs)).epsilon_for_delta(check_delta(delta))
    )
