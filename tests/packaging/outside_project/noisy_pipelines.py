"""Two pipelines of a user's project for grey-box replay: a clipped noisy sum and a broken
one (it doubles the sum but declares the sensitivity of the plain sum)."""

import numpy as np

from privaudit import ReplayTarget
from privaudit.spec import DatasetDomain, RealInterval, SubstituteOne

N = 8
DOMAIN = DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N)
DATA = np.linspace(0.1, 0.9, N)


def clipped_sum(x, noise):
    """Records clipped to [0, 1]: the sum moves by at most 1, as declared."""
    return noise.laplace(np.clip(x, 0.0, 1.0).sum(), sensitivity=1.0, epsilon=1.0)


def doubled_sum(x, noise):
    """Twice the sum: one record moves it by up to 2, twice the declared sensitivity."""
    return noise.laplace(2.0 * x.sum(), sensitivity=1.0, epsilon=1.0)


clipped_sum_target = ReplayTarget(clipped_sum, DATA, DOMAIN, SubstituteOne())
