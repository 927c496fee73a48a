"""Helpers of ``scripts/ldp_ustat_study.py``: exact checks only (no statistical outcome)."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))

import ldp_ustat_study as study


def test_kendall_quantities_match_brute_force():
    data = study.copula_ratings(300, np.random.default_rng(0))
    q = study.kendall_quantities(data)
    dy = np.sign(data[:, None, 0] - data[None, :, 0])
    dz = np.sign(data[:, None, 1] - data[None, :, 1])
    iu = np.triu_indices(300, 1)
    prod = (dy * dz)[iu]
    assert q["tau_a"] == pytest.approx(prod.mean())
    c, d = (prod > 0).sum(), (prod < 0).sum()
    assert q["tau_cd"] == pytest.approx((c - d) / (c + d))
    ty, tz = (dy[iu] == 0).sum(), (dz[iu] == 0).sum()
    n0 = iu[0].size
    assert q["tau_b"] == pytest.approx((c - d) / np.sqrt((n0 - ty) * (n0 - tz)))


def test_empirical_auc_counts_ties_half():
    scores = np.array([0.1, 0.4, 0.4, 0.9, 0.4])
    labels = np.array([0, 1, 0, 1, 0])
    pos, neg = scores[labels == 1], scores[labels == 0]
    brute = np.mean((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :]))
    assert study.empirical_auc(scores, labels) == pytest.approx(brute)
