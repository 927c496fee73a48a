"""Claim checks of the auditor: sensitivity claims, noise-law conformance, spec consistency.

* :mod:`privaudit.auditing.checks.sensitivity` — deterministic gray-box checks of the global,
  local-bound and smooth sensitivity claims on adversarial inputs and pairs;
* :mod:`privaudit.auditing.checks.conformance` — the noise drawn follows the declared law,
  tails included (KS, Anderson–Darling, binomial tail tests, χ²);
* :mod:`privaudit.auditing.checks.float_image` — outputs the modelled float sampler can produce
  under x but not under its neighbour (Mironov's floating-point attack);
* :mod:`privaudit.auditing.checks.spike` — no more outputs near the statistic f(x) than the
  declared additive law allows (rare branches releasing f(x) with little or no noise);
* :mod:`privaudit.auditing.checks.accuracy` — the spec's accuracy claim (error ≤ α with
  probability ≥ 1 − β) on samples, with an exact binomial test;
* :mod:`privaudit.auditing.checks.consistency` — the spec re-validates from JSON and agrees with
  the mechanism's own parameters;
* :mod:`privaudit.auditing.checks.local_node` — local node privacy: n public and per-node messages,
  locality of each randomizer, per-node and exact joint accounting, and the global
  certificate of Lemma 5.4 (Raskhodnikova, Smith, Wagaman & Zavyalov).

Every check returns a :class:`~privaudit.auditing.outcome.results.CheckOutcome` (the smooth check a
pair of
them): ``"violated"`` with a counterexample, ``"passed"``, or ``"skipped"`` with the reason.
"""

from __future__ import annotations

from privaudit.auditing.checks._common import is_required_skip
from privaudit.auditing.checks.accuracy import accuracy_check_applies, check_accuracy
from privaudit.auditing.checks.conformance import check_noise_law
from privaudit.auditing.checks.consistency import check_spec_consistency
from privaudit.auditing.checks.float_image import (
    check_float_image,
    float_image_applies,
    float_image_unavailable,
)
from privaudit.auditing.checks.local_node import (
    check_local_node,
    exposed_nodes,
    local_node_checks_apply,
    locality_needs_samples,
)
from privaudit.auditing.checks.sensitivity import (
    check_global_sensitivity,
    check_local_sensitivity_bound,
    check_smooth_sensitivity,
)
from privaudit.auditing.checks.spike import check_spike, spike_applies

__all__ = [
    "accuracy_check_applies",
    "check_accuracy",
    "check_float_image",
    "check_global_sensitivity",
    "check_local_node",
    "check_local_sensitivity_bound",
    "check_noise_law",
    "check_smooth_sensitivity",
    "check_spec_consistency",
    "check_spike",
    "exposed_nodes",
    "float_image_applies",
    "float_image_unavailable",
    "is_required_skip",
    "local_node_checks_apply",
    "locality_needs_samples",
    "spike_applies",
]
