"""Opacus's DP-SGD (batch selection and noise) audited on a one-weight model.

Skipped unless torch and opacus are installed (``pip install 'privaudit[opacus]'``).  The
slow-tier table is in ``docs/dpsgd_audit.md`` (``scripts/dpsgd_audit.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

pytest.importorskip("opacus")

from privaudit.mechanisms.dpsgd.opacus_adapter import OpacusDPSGD


def test_opacus_batch_selection_and_noise_follow_the_poisson_ablq_law():
    """Opacus's releases (weight increments: Poisson batch sums of clipped records plus
    its Gaussian noise) against our Poisson ABLQ sampler, whose law the PLD accountant's
    claim is about: a two-sample Kolmogorov–Smirnov test at level 10⁻³ per side of the
    paper's pair (all records at −2C; one at +2C), and the per-step mean and variance.
    The budgeted black-box audits are the slow-tier table of docs/dpsgd_audit.md."""
    mech = OpacusDPSGD(10, 1, 5, 1.0)
    x = np.full(10, -2.0)
    y = x.copy()
    y[0] = 2.0
    for data, seed, total in ((x, 1, -1.0), (y, 2, -0.8)):
        ours = mech.sample(data, 150, np.random.default_rng(seed))
        assert ours.shape == (150, 5)
        reference = mech.reference.sample(data, 20_000, np.random.default_rng(seed)).ravel()
        assert stats.ks_2samp(ours.ravel(), reference).pvalue > 1e-3
        # E = q·Σ clip(x) (q = 0.1), Var = q(1 − q)·Σ clip(x)² + σ² = 0.9 + 1
        assert abs(ours.mean() - total) < 4 * np.sqrt(1.9 / ours.size)
        assert abs(ours.var() - 1.9) < 0.5
    assert mech.spec.guarantee == mech.reference.spec.guarantee
    assert (
        mech.sample(x, 3, np.random.default_rng(7)).tolist()
        == mech.sample(x, 3, np.random.default_rng(7)).tolist()
    )  # seeded from the rng
