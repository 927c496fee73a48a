"""DP-SGD: batch sampling, its accountants, ABLQ and a logistic-regression training loop.

* :mod:`~mechanisms.dpsgd.batch_sampling` — Poisson, shuffling and balls-in-bins batches,
  vectorised over runs;
* :mod:`~mechanisms.dpsgd.accounting` — what each sampler provably delivers under
  substitute-one (PLD of the Poisson-subsampled Gaussian; no amplification for a
  partition into batches);
* :mod:`~mechanisms.dpsgd.ablq` — :class:`ABLQMechanism`, the adaptive batch linear
  queries of Chua et al. (ICML 2024) on one-dimensional records;
* :mod:`~mechanisms.dpsgd.logistic` — :class:`LogisticDPSGD`, DP-SGD on logistic
  regression (Abadi et al., CCS 2016) releasing its iterates;
* :mod:`~mechanisms.dpsgd.lower_bounds` — the paper's lower bound for shuffling.

Derivations and the audit table: ``docs/dpsgd_audit.md``.
"""

from __future__ import annotations

from .ablq import CHUA_2024, ABLQMechanism, check_batching, claimed_epsilon
from .accounting import partition_epsilon, partition_mu, poisson_epsilon
from .batch_sampling import BATCH_SAMPLERS, batch_masks, batch_sums
from .logistic import LogisticDPSGD, logistic_data
from .lower_bounds import ShuffleLowerBound, shuffle_lower_bound
from .opacus_adapter import OpacusDPSGD, opacus_available

__all__ = [
    "BATCH_SAMPLERS",
    "CHUA_2024",
    "ABLQMechanism",
    "LogisticDPSGD",
    "OpacusDPSGD",
    "ShuffleLowerBound",
    "batch_masks",
    "batch_sums",
    "check_batching",
    "claimed_epsilon",
    "logistic_data",
    "opacus_available",
    "partition_epsilon",
    "partition_mu",
    "poisson_epsilon",
    "shuffle_lower_bound",
]
