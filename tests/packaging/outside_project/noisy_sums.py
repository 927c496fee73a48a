"""Two mechanisms of a user's project: a correct noisy sum and a broken one."""

from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (
    AdditiveNoise,
    DatasetDomain,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    RealInterval,
    SubstituteOne,
)

N = 8


def _sum_mechanism(name: str, hi: float):
    """The sum of N records in [0, hi] plus Laplace(1) noise, claimed 1-DP with sensitivity 1
    (true only for hi <= 1)."""
    spec = MechanismSpec(
        name=name,
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=hi), size=N),
        relation=SubstituteOne(),
        statistic="sum",
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=1.0)),
        guarantee=PureDP(epsilon=1.0),
    )
    return declare_mechanism(
        spec,
        sampler=lambda x, size, rng: x.sum() + rng.laplace(0, 1.0, size),
        statistic=lambda x: float(x.sum()),
    )


def correct_sum():
    """Records in [0, 1]: the sum moves by at most 1, as claimed."""
    return _sum_mechanism("correct_sum", 1.0)


def broken_sum():
    """Records in [0, 2]: one record moves the sum by 2, twice the claimed sensitivity."""
    return _sum_mechanism("broken_sum", 2.0)
