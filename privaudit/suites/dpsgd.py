"""DP-SGD batch sampling: the common practice "shuffling accounted as Poisson", and controls.

DP-SGD implementations draw batches by shuffling but report the ε of Poisson subsampling
(Chua et al., ICML 2024).  In the ABLQ abstraction (:mod:`mechanisms.dpsgd`), at the
settings of :data:`DPSGD_GAP_SETTINGS`, :func:`dpsgd_broken_cases` declares shuffled
batches with the Poisson accountant's ε, below the paper's lower bound on the true ε
(:func:`~mechanisms.dpsgd.shuffle_lower_bound`); :func:`dpsgd_control_cases` pairs Poisson
batches with the Poisson accountant and shuffled batches with the honest no-amplification
bound (their true ε: the accountant's upper bound, not shown tight).

Details (the settings, the pairs): ``docs/engine_notes.md``, "privaudit.suites.dpsgd".
"""

from __future__ import annotations

import numpy as np

from privaudit.mechanisms.dpsgd import ABLQMechanism, shuffle_lower_bound
from privaudit.spec import ApproxDP
from privaudit.spec.errors import InconsistentSpecError
from privaudit.suites._base import BenchmarkCase

__all__ = [
    "DPSGD_DELTA",
    "DPSGD_GAP_SETTINGS",
    "dpsgd_broken_cases",
    "dpsgd_control_cases",
    "shuffle_as_poisson",
]

#: The (σ, T) settings at which the shuffling gap is audited: one epoch of T batches of 1.
DPSGD_GAP_SETTINGS: tuple[tuple[float, int], ...] = ((0.8, 50), (1.0, 50))
#: The δ of every claim here.
DPSGD_DELTA = 1e-5
_SOURCE = (
    "Chua et al., 'How Private are DP-SGD Implementations?', ICML 2024, Section 4; "
    "mechanisms/dpsgd/"
)


def _paper_pair(mechanism: ABLQMechanism) -> tuple[np.ndarray, np.ndarray]:
    low = np.full(mechanism.n, -mechanism.record_bound)
    high = low.copy()
    high[0] = mechanism.record_bound
    return high, low


def shuffle_as_poisson(sigma: float, steps: int, delta: float = DPSGD_DELTA) -> ABLQMechanism:
    """One epoch of ``steps`` shuffled batches of one example, claiming Poisson's ε."""
    return ABLQMechanism(
        "shuffle",
        steps,
        1,
        steps,
        sigma,
        delta,
        claim="poisson_pld",
        name=f"broken.dpsgd.shuffle_as_poisson.s{sigma:g}_t{steps}",
    )


def _claimed_epsilon(mechanism: ABLQMechanism) -> float:
    """ε of the mechanism's (ε, δ)-DP claim (an ABLQ spec always declares one)."""
    guarantee = mechanism.spec.guarantee
    if not isinstance(guarantee, ApproxDP):
        raise InconsistentSpecError(
            f"{mechanism.name!r} should claim (epsilon, delta)-DP, got {guarantee!r}"
        )
    return guarantee.epsilon


def dpsgd_broken_cases() -> tuple[BenchmarkCase, ...]:
    """Shuffling accounted as Poisson at each of :data:`DPSGD_GAP_SETTINGS`."""
    cases = []
    for sigma, steps in DPSGD_GAP_SETTINGS:
        mech = shuffle_as_poisson(sigma, steps)
        bound = shuffle_lower_bound(sigma, steps, DPSGD_DELTA)
        cases.append(
            BenchmarkCase(
                name=mech.name,
                mechanism=mech,
                true_epsilon=bound.epsilon,
                claimed_epsilon=_claimed_epsilon(mech),
                claimed_delta=DPSGD_DELTA,
                input_pairs=(_paper_pair(mech),),
                source=_SOURCE,
                true_epsilon_exact=False,
                notes=f"Shuffled batches declared with the PLD epsilon of Poisson subsampling at "
                f"q = 1/{steps}. true_epsilon is a LOWER bound on the true epsilon (the "
                f"paper's max-batch-answer test, threshold {bound.threshold:.3f}): it already "
                "exceeds the claim.",
            )
        )
    return tuple(cases)


def dpsgd_control_cases() -> tuple[BenchmarkCase, ...]:
    """Poisson batches with the Poisson accountant, shuffled ones with the honest bound."""
    cases = []
    for sigma, steps in DPSGD_GAP_SETTINGS:
        for sampler in ("poisson", "shuffle"):
            mech = ABLQMechanism(
                sampler,
                steps,
                1,
                steps,
                sigma,
                DPSGD_DELTA,
                name=f"control.dpsgd.{sampler}.s{sigma:g}_t{steps}",
            )
            eps = _claimed_epsilon(mech)
            cases.append(
                BenchmarkCase(
                    name=mech.name,
                    mechanism=mech,
                    true_epsilon=eps,
                    claimed_epsilon=eps,
                    claimed_delta=DPSGD_DELTA,
                    input_pairs=(_paper_pair(mech),),
                    source=_SOURCE,
                    true_epsilon_exact=False,
                    notes="true_epsilon is the accountant's proven upper bound "
                    "(mechanisms/dpsgd/accounting.py).",
                )
            )
    return tuple(cases)
