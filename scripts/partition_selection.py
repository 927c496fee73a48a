"""Partition selection: release probability against user count, and keys released on Zipf data.

Plots π(n), the probability that a key with n users is released, for the thresholded
Laplace, thresholded Gaussian and optimal rules (Desfontaines, Voss, Gipson & Mandayam,
PoPETS 2022) at a few (ε, δ), and tabulates the expected number of keys released on a Zipf
dataset (Σ_k π(n_k), exact).  Everything is computed from the exact release probabilities
of :class:`privaudit.mechanisms.KeyedHistogramMechanism`; no sampling.

Writes ``docs/partition_selection.png`` and prints the table of ``docs/partition_selection.md``.
Usage::

    python3 scripts/partition_selection.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from privaudit.mechanisms import KeyedHistogramMechanism

__all__ = ["expected_keys_released", "main", "zipf_counts"]

SETTINGS = ((1.0, 1e-5), (0.5, 1e-6), (2.0, 1e-8))
METHODS = ("optimal", "laplace", "gaussian")
FIGURE = Path(__file__).resolve().parents[1] / "docs" / "partition_selection.png"


def zipf_counts(users: int, keys: int, exponent: float = 1.1) -> np.ndarray:
    """User counts of ``keys`` keys whose shares follow a Zipf law (deterministic, rounded)."""
    weights = 1.0 / np.arange(1, keys + 1) ** exponent
    return np.floor(users * weights / weights.sum()).astype(np.int64)


def expected_keys_released(counts: np.ndarray, epsilon: float, delta: float, method: str) -> float:
    """Σ_k π(n_k): the expected number of keys released."""
    mech = KeyedHistogramMechanism(1, epsilon, delta, method=method)  # type: ignore[arg-type]
    return float(mech.release_probability(counts).sum())


def main() -> None:
    """Draw the figure and print the Zipf table."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(SETTINGS), figsize=(13, 3.8), sharey=True)
    n = np.arange(0, 61)
    for ax, (eps, delta) in zip(axes, SETTINGS, strict=True):
        for method, style in zip(METHODS, ("-", "--", ":"), strict=True):
            mech = KeyedHistogramMechanism(1, eps, delta, method=method)  # type: ignore[arg-type]
            ax.plot(n, mech.release_probability(n), style, label=method)
        ax.set_title(f"ε = {eps:g}, δ = {delta:g}")
        ax.set_xlabel("users n of the key")
    axes[0].set_ylabel("P[key released]")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(FIGURE, dpi=110)
    counts = zipf_counts(100_000, 20_000)
    counts = counts[counts > 0]
    print(f"Zipf(1.1): 100000 users over {counts.size} keys with at least one user")
    print("| ε | δ | " + " | ".join(METHODS) + " |")
    print("|---|---|" + "---|" * len(METHODS))
    for eps, delta in SETTINGS:
        row = [f"{expected_keys_released(counts, eps, delta, m):.1f}" for m in METHODS]
        print(f"| {eps:g} | {delta:g} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
