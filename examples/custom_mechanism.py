"""Declare your own mechanism: a spec of its claims plus a batched sampling function.

Run it with ``python examples/custom_mechanism.py``.  It

1. declares ``noisy_histogram``: a histogram of categorical records with Laplace noise,
   stating its claims (domain, relation, ℓ1 sensitivity 2 under substitute-one, ε-DP);
2. releases it once and draws a batch of outputs, as an audit would;
3. shows that a spec whose constants contradict each other is refused at construction —
   here a Laplace scale half of what ε-DP needs;
4. declares ``underscaled_histogram``, a deliberately broken variant whose *code* uses
   half the noise its spec declares.  The spec alone cannot see that; the auditor can:

       privaudit audit examples/custom_mechanism.py:build_noisy_histogram        # exit 0
       privaudit audit examples/custom_mechanism.py:build_underscaled_histogram  # exit 1
"""

from __future__ import annotations

import numpy as np

from privaudit.mechanisms import FunctionMechanism, declare_mechanism
from privaudit.spec import (
    AdditiveNoise,
    Categorical,
    DatasetDomain,
    GlobalSensitivity,
    InconsistentSpecError,
    Laplace,
    MechanismSpec,
    PureDP,
    Reference,
    SubstituteOne,
)

N_RECORDS = 200
CATEGORIES = 5
EPSILON = 1.0
#: Substituting one record moves one count down and another up: ℓ1 sensitivity 2.
SENSITIVITY = 2.0


def histogram_spec(scale: float, name: str = "noisy_histogram") -> MechanismSpec:
    """The claims of a Laplace histogram over ``CATEGORIES`` categories."""
    return MechanismSpec(
        name=name,
        summary="counts of each category plus i.i.d. Laplace noise",
        input_domain=DatasetDomain(record=Categorical(size=CATEGORIES), size=N_RECORDS),
        relation=SubstituteOne(),
        statistic="histogram: number of records in each category",
        output_dimension=CATEGORIES,
        sensitivity=(GlobalSensitivity(value=SENSITIVITY, norm="l1"),),
        noise=AdditiveNoise(law=Laplace(scale=scale)),
        guarantee=PureDP(epsilon=EPSILON),
        references=(
            Reference(
                citation="Dwork, McSherry, Nissim & Smith, TCC 2006",
                locator="Example 3 (histogram queries)",
            ),
        ),
    )


def histogram(records: np.ndarray) -> np.ndarray:
    """The exact statistic: counts per category."""
    return np.bincount(records, minlength=CATEGORIES).astype(float)


def build_noisy_histogram() -> FunctionMechanism:
    """A correct mechanism: the noise it draws is the noise its spec declares."""
    scale = SENSITIVITY / EPSILON
    return declare_mechanism(
        histogram_spec(scale),
        sampler=lambda x, size, rng: histogram(x) + rng.laplace(0.0, scale, (size, CATEGORIES)),
        statistic=histogram,
    )


def build_underscaled_histogram() -> FunctionMechanism:
    """A broken mechanism: the spec says scale 2/ε, the code draws scale 1/ε."""
    declared = SENSITIVITY / EPSILON
    return declare_mechanism(
        histogram_spec(declared, name="underscaled_histogram"),
        sampler=lambda x, size, rng: (
            histogram(x) + rng.laplace(0.0, declared / 2, (size, CATEGORIES))
        ),
        statistic=histogram,
    )


def main() -> None:
    rng = np.random.default_rng(2024)
    records = rng.integers(0, CATEGORIES, size=N_RECORDS)

    mech = build_noisy_histogram()
    print(mech.spec.describe())
    print("\ntrue counts      :", histogram(records))
    print("one release      :", np.round(mech.release(records, rng=rng), 2))
    batch = mech.sample(records, size=10_000, rng=rng)
    print(
        "batch of outputs :",
        batch.shape,
        "mean residual",
        np.round((batch - histogram(records)).mean(0), 3),
    )

    try:
        histogram_spec(scale=SENSITIVITY / EPSILON / 2)
    except InconsistentSpecError as err:
        print("\nrefused at construction:", err)

    broken = build_underscaled_histogram()
    residual = broken.sample(records, size=10_000, rng=rng) - histogram(records)
    assert isinstance(broken.spec.noise, AdditiveNoise)
    assert isinstance(broken.spec.noise.law, Laplace)
    print(
        f"\n{broken.name}: declared noise std {broken.spec.noise.law.std:.3f}, "
        f"drawn noise std {residual.std():.3f}; 'privaudit audit' rejects it"
    )


if __name__ == "__main__":
    main()
