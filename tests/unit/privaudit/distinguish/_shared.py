"""Helpers shared by the tests of the distinguishing engine."""

from __future__ import annotations

import privaudit.auditing.distinguish as dist
from privaudit.auditing.pairs import verified_pair

ALPHA = 0.05


def audit(mech, x, y, *, samples=20_000, search=5_000, seed=0, alpha=ALPHA, **kw):
    pair = verified_pair(mech.spec, x, y, "explicit")
    return dist.distinguish_pair(mech, pair, samples=samples, search_samples=search, rng=seed,
                          alpha=alpha, **kw)

