"""Audit another library's mechanism: OpenDP's Laplace, through the scalar-sampler adapter.

OpenDP releases one value per call (``meas(x)``) and draws from its own random source, so
an audit of it cannot be reproduced from a seed.  :func:`mechanisms.from_scalar_sampler`
batches the release into the ``sample(x, size, rng)`` protocol, records the installed
OpenDP version (a certificate goes stale when it changes), and takes a model of OpenDP's
float outputs so that the floating-point check can run on them.

What this script shows, in order:

1. the spec of the claim (ε from OpenDP's own privacy map);
2. the generator-determinism check: same seed, different outputs — so ``certify`` would
   record ``reproducible = False`` and ``verify`` compare a re-run by its verdict;
3. the cost per sample of a library that releases one value per call;
4. the audit, with its floating-point check run on the user-supplied float image.

Run it (OpenDP is in privaudit's ``test`` extra)::

    python examples/third_party_opendp.py            # 20 000 samples per side, ≈ 1–3 min
    python examples/third_party_opendp.py 200000     # CI strength and more: slower

From the command line, the same mechanism is a target::

    privaudit audit examples/third_party_opendp.py:build_opendp_laplace --samples 20000

OpenDP's float Laplace with ``k = −10`` rounds the input to the grid 2⁻¹⁰ℤ and adds
discrete Laplace noise on that grid (Canonne, Kamath & Steinke, "The discrete Gaussian
for differential privacy", NeurIPS 2020, and the OpenDP documentation of
``make_laplace``), so every output lies on 2⁻¹⁰ℤ whatever the input: that is the float
image given to the check below.  Rounding the input can move it by up to 2⁻¹⁰, which is
why OpenDP's privacy map gives ε = 1 + 2⁻¹⁰ for sensitivity 1 at scale 1; the spec
claims exactly that.
"""

from __future__ import annotations

import sys

import numpy as np

from privaudit.mechanisms import from_scalar_sampler
from privaudit.spec import (
    AdditiveNoise,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    QueryDistance,
    RealInterval,
)

#: Noise scale and grid exponent of the OpenDP measurement.
SCALE, K = 1.0, -10
GRID = 2.0**K


def _measurement():
    try:
        import opendp.prelude as dp
    except ImportError as err:  # pragma: no cover - opendp is in the test extra
        raise SystemExit(
            "this example needs OpenDP: pip install 'privaudit[test]' "
            f"(or pip install opendp): {err}"
        ) from None
    dp.enable_features("contrib")
    return dp.m.make_laplace(
        dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=SCALE, k=K
    )


def opendp_float_image(outputs, centre):
    """OpenDP's outputs at k = −10: the lattice 2⁻¹⁰ℤ, whatever the input (exact test)."""
    steps = np.asarray(outputs, dtype=np.float64) / GRID
    return np.isfinite(steps) & (steps == np.round(steps))


def build_opendp_laplace():
    """OpenDP's Laplace on a query answer in [−100, 100] with sensitivity 1, as a mechanism."""
    meas = _measurement()
    epsilon = float(meas.map(1.0))  # OpenDP's own privacy map: 1 + 2⁻¹⁰
    spec = MechanismSpec(
        name="opendp_laplace",
        summary="opendp.measurements.make_laplace(scale=1, k=-10) on one query answer",
        input_domain=RealInterval(lo=-100.0, hi=100.0),
        relation=QueryDistance(norm="l1", radius=1.0),
        statistic="the query answer itself",
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=SCALE)),
        guarantee=PureDP(epsilon=epsilon),
        notes="OpenDP samples discrete Laplace noise on the grid 2^-10 Z; the continuous "
        "Laplace law is its limit (CDF within 2^-11 of it)",
    )
    # OpenDP draws from its own random source: the generator is not used.
    return from_scalar_sampler(
        spec,
        lambda x, rng: meas(float(x)),
        statistic=float,
        float_image=opendp_float_image,
        library="opendp",
    )


def main(samples: int = 20_000, *, seed: int = 28, confidence: float = 0.95) -> object:
    """Run the determinism check, the cost measurement and an audit; return the report.

    OpenDP's draws cannot be seeded, so the audit differs from run to run: a correct
    mechanism is flagged with probability at most ``1 − confidence``.
    """
    from privaudit import CI_STRENGTH, audit
    from privaudit.trust.reproducibility import check_generator_determinism

    mech = build_opendp_laplace()
    print(
        f"{mech.name}: claims {mech.spec.guarantee!r}; wraps "
        + ", ".join(f"{k} {v}" for k, v in mech.wrapped_distributions.items())
    )
    determinism = check_generator_determinism(mech, 0.0, seed=seed)
    print(f"reproducible from the seed: {determinism.reproducible} ({determinism.reason})")
    cost = mech.cost_per_sample(0.0, calls=500)
    print(f"cost: {cost}")
    config = CI_STRENGTH.merged(
        {
            "samples": samples,
            "pilot_samples": min(2_000, samples),
            "seed": seed,
            "confidence": confidence,
        }
    )
    report = audit(mech, config=config, pairs=[(0.0, 1.0)])
    print(report.summary())
    return report


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
