"""Helpers shared by the tests of the distinguishing engine."""

from __future__ import annotations

import privaudit.auditing.distinguish as dist
from privaudit.auditing.pairs import verified_pair

ALPHA = 0.05


def run_pair_test(
    mech,
    pair,
    *,
    samples,
    search_samples,
    rng,
    alpha=ALPHA,
    poissonize=True,
    executor=None,
    progress=None,
    **options,
):
    """:func:`distinguish_pair` on fresh draws from ``rng``, ``options`` its config."""
    draws = dist.draw_pair_test(
        mech, pair, samples=samples, search_samples=search_samples, rng=rng, poissonize=poissonize
    )
    return dist.distinguish_pair(
        mech,
        pair,
        draws,
        alpha=alpha,
        config=dist.PairTestConfig(**options),
        executor=executor,
        progress=progress,
    )


def audit(mech, x, y, *, samples=20_000, search=5_000, seed=0, alpha=ALPHA, **kw):
    pair = verified_pair(mech.spec, x, y, "explicit")
    return run_pair_test(
        mech, pair, samples=samples, search_samples=search, rng=seed, alpha=alpha, **kw
    )
