"""Shared fixtures and hypothesis profiles.

Test tiers: ``tests/unit`` (fast unit and property tests), ``tests/statistical``
(seeded goodness-of-fit checks; the long ones are marked ``slow``), ``tests/quality`` (the
auditor must catch broken mechanisms and pass correct ones).  ``python -m pytest`` runs
everything not marked ``slow``; ``python -m pytest -m slow`` runs the long statistical runs.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def rng() -> np.random.Generator:
    """A fixed-seed generator, so every test is reproducible."""
    return np.random.default_rng(20261121)
