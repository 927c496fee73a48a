"""Mironov's floating-point attack on privaudit's idealized Laplace mechanism, and the
float-safe mechanisms under the same check (numbers of ``docs/floating_point_attack.md``).

For each mechanism and ε, the check of ``privaudit/auditing/checks/float_image.py`` draws
``--samples`` outputs of M(x) and M(y) for the neighbouring query answers (x, y) and counts
the outputs of each that the modelled float sampler cannot produce under the other input
(``strict=True``: a leak counts whatever the declared numerics).

Usage: PYTHONPATH=. python3 scripts/floating_point_attack.py [--samples 20000] [--seed 0]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from privaudit.auditing import verified_pair
from privaudit.auditing.checks import check_float_image
from privaudit.mechanisms import (
    FloatSafeGaussianMechanism,
    FloatSafeLaplaceMechanism,
    LaplaceMechanism,
    Mechanism,
)

PAIRS = [(0.0, 1.0), (0.3, 1.3), (1000.0, 1001.0)]


def _row(label: str, mech: Mechanism, x: float, y: float, samples: int, seed: int) -> str:
    pair = verified_pair(mech.spec, x, y, "explicit")
    t0 = time.perf_counter()
    out = check_float_image(mech, [pair], seed, samples=samples, strict=True)
    secs = time.perf_counter() - t0
    directions: Any = out.details["directions"]  # JSON: one dict per direction
    fwd, back = directions
    first = fwd["first_witness"] if fwd["first_witness"] is not None else back["first_witness"]
    shown = "—" if first is None else repr(first)
    return (
        f"| {label} | ({x:g}, {y:g}) | {fwd['witnesses']}/{samples} | "
        f"{back['witnesses']}/{samples} | {shown} | {out.status} | {secs:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(
        "| mechanism | (x, y) | M(x) outputs impossible under y | M(y) outputs impossible "
        "under x | first witness | verdict (strict) | s |"
    )
    print("|---|---|---|---|---|---|---|")
    for eps in (0.01, 0.1, 1.0, 10.0):
        for x, y in PAIRS:
            print(
                _row(
                    f"LaplaceMechanism ε = {eps:g} (idealized)",
                    LaplaceMechanism(eps, 1.0),
                    x,
                    y,
                    args.samples,
                    args.seed,
                ),
                flush=True,
            )
    for x, y in PAIRS:
        print(
            _row(
                "FloatSafeLaplaceMechanism ε = 1, g = 2⁻¹⁰",
                FloatSafeLaplaceMechanism(1.0, 1.0),
                x,
                y,
                args.samples,
                args.seed,
            ),
            flush=True,
        )
        print(
            _row(
                "FloatSafeGaussianMechanism (1, 1e-5), g = 2⁻¹⁰",
                FloatSafeGaussianMechanism(1.0, 1e-5, 1.0),
                x,
                y,
                args.samples,
                args.seed,
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
