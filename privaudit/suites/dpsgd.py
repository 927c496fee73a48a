"""DP-SGD batch sampling: the common practice "shuffling accounted as Poisson", and controls.

Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang, "How Private are DP-SGD
Implementations?", ICML 2024: DP-SGD implementations draw batches by shuffling but report
the ε of Poisson subsampling.  In the ABLQ abstraction (:mod:`mechanisms.dpsgd`), at the
settings of :data:`DPSGD_GAP_SETTINGS` (one epoch of ``T`` batches of one example,
noise multiplier σ, δ = 1e-5, substitute-one):

* :func:`dpsgd_broken_cases` — ``broken.dpsgd.shuffle_as_poisson.*``: shuffled batches,
  declared with the Poisson accountant's ε.  Its ``true_epsilon`` is the paper's
  max-batch-answer lower bound (:func:`~mechanisms.dpsgd.shuffle_lower_bound`): the true
  ε is at least that, which already exceeds the claim, so ``is_private`` is false;
* :func:`dpsgd_control_cases` — ``control.dpsgd.poisson.*`` (Poisson batches, Poisson
  accountant) and ``control.dpsgd.shuffle.*`` (shuffled batches, the honest
  no-amplification bound), whose ``true_epsilon`` is the accountant's (a proven upper
  bound, not shown tight: ``true_epsilon_exact=False``).

The pairs given with each case are the paper's pair (all records at the lower extreme,
one at the upper); the black-box acceptance test (``tests/quality/test_dpsgd_audits.py``)
audits without them, with pairs from the relation's own moves only.
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
