"""Rare-leak quality cases: (ε, δ)-DP claims broken by a rare event, and correct controls.

:func:`delta_broken_cases` holds means of n records in [0, 1] plus Laplace(1/(nε)) noise,
declared (1, 10⁻⁵)-DP with the honest Laplace law, whose code leaks with a probability far
above the claimed δ (true ε = ∞): a debugging branch that releases the raw mean
(:class:`RareRawMean`), a "too large" draw replaced by no noise
(:class:`NoiselessFallbackMean`), the noise clipped around the *true* mean
(:class:`LeakyClampMean`).  :func:`delta_control_cases` runs the same code paths with
leaks *within* the claimed δ.  All names are re-exported by :mod:`privaudit.suites.broken`,
where users import them.

Details (each case): ``docs/engine_notes.md``, "privaudit.suites._rare_leaks".
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privaudit.mechanisms import Mechanism
from privaudit.spec import (
    AdditiveNoise,
    ApproxDP,
    DatasetDomain,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    RealInterval,
    SubstituteOne,
)
from privaudit.suites._base import BenchmarkCase

__all__ = [
    "LeakyClampMean",
    "NoiselessFallbackMean",
    "RareRawMean",
    "delta_broken_cases",
    "delta_control_cases",
]

_SOURCE = "privaudit quality suite (privaudit/suites/broken.py)"


class _DeltaLeakMean(Mechanism):
    """Base of the rare-leak means: mean of n records in [0, 1] plus Laplace(1/(nε)),
    declared (ε, δ)-DP with the honest Laplace law, and a ``statistic`` hook that a
    subclass instance may hide (``hook=False``: the auditor then sees a black box whose
    spec still declares the continuous law)."""

    def __init__(
        self, name: str, summary: str, *, epsilon: float, delta: float, n: int, hook: bool
    ) -> None:
        self.epsilon, self.delta, self.n, self.hook = (
            float(epsilon),
            float(delta),
            int(n),
            bool(hook),
        )
        self.scale = 1.0 / (self.n * self.epsilon)
        spec = MechanismSpec(
            name=name,
            summary=summary,
            input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=self.n),
            relation=SubstituteOne(),
            statistic="mean of the records",
            sensitivity=(GlobalSensitivity(value=1.0 / self.n),),
            noise=AdditiveNoise(law=Laplace(scale=self.scale), calibration="exact"),
            guarantee=ApproxDP(epsilon=self.epsilon, delta=self.delta),
        )
        super().__init__(spec)

    def provides(self, hook: str) -> bool:
        return super().provides(hook) and (hook != "statistic" or self.hook)

    def statistic(self, data: Any) -> float:
        return float(np.mean(self.validate_input(data)))


class RareRawMean(_DeltaLeakMean):
    """Mean plus Laplace noise that, with probability p, releases the raw mean (or a spike).

    Parameters
    ----------
    epsilon, delta : float
        The claimed (ε, δ).
    n : int
        The public number of records (sensitivity 1/n).
    p : float
        Probability of the raw branch.
    spike : float
        0 (default): the raw branch releases the exact mean (an atom); > 0: the mean plus
        Laplace noise of this scale (a spike of width ``spike``, not an atom).
    hook : bool
        Whether the ``statistic`` gray-box hook is provided.

    Notes
    -----
    A debugging branch left in production ("return the true value for a sample of the
    calls").  The event {o = f(x)} (or a tiny neighbourhood of it for a spike) has
    probability ≥ p under x and ≈ 0 under a neighbour y with f(y) ≠ f(x), so the true δ
    at the claimed ε is at least p·(1 − e^ε·P[Lap ∈ neighbourhood]) ≈ p; the claim is
    broken whenever p > δ.  Output ``float64`` of shape ``(N,)``.

    References
    ----------
    Lokna, Paradis, Dimitrov & Vechev, "Group and attack: auditing differential privacy",
    ACM CCS 2023 (δ-violations from rare events); ``privaudit/suites/broken.py``.
    """

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 1e-5,
        n: int = 100,
        p: float = 1e-3,
        *,
        spike: float = 0.0,
        hook: bool = True,
    ) -> None:
        self.p, self.spike = float(p), float(spike)
        kind = "spike" if self.spike > 0 else "atom"
        super().__init__(
            f"broken.rare_raw_mean_{kind}" + ("" if hook else "_blackbox"),
            "mean of n records in [0, 1] plus Laplace noise of scale 1/(n epsilon)",
            epsilon=epsilon,
            delta=delta,
            n=n,
            hook=hook,
        )

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        mean = float(np.mean(data))
        out = mean + rng.laplace(0.0, self.scale, size)
        raw = rng.random(size) < self.p
        k = int(np.count_nonzero(raw))
        out[raw] = mean + (rng.laplace(0.0, self.spike, k) if self.spike > 0 else 0.0)
        return out


class NoiselessFallbackMean(_DeltaLeakMean):
    """Mean plus Laplace noise, falling back to the noiseless mean when the draw is "too
    large" (|Z| > c·b, "an outlier that would confuse users").

    Parameters
    ----------
    epsilon, delta : float
        The claimed (ε, δ).
    n : int
        The public number of records.
    cutoff : float
        c, in units of the scale b: the fallback fires with probability e^{−c}
        (default c = ln 2000: once in 2000 calls).
    hook : bool
        Whether the ``statistic`` hook is provided.

    Notes
    -----
    The fallback path releases f(x) exactly with probability e^{−c}: an atom of that
    mass, true δ ≥ e^{−c} = 5·10⁻⁴ at the default.  Output ``float64`` of shape ``(N,)``.

    References
    ----------
    Mironov, "On significance of the least significant bits for differential privacy",
    ACM CCS 2012 (implementation details that break the proof);
    ``privaudit/suites/broken.py``.
    """

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 1e-5,
        n: int = 100,
        cutoff: float = math.log(2000.0),
        *,
        hook: bool = True,
    ) -> None:
        self.cutoff = float(cutoff)
        super().__init__(
            "broken.noiseless_fallback_mean" + ("" if hook else "_blackbox"),
            "mean of n records in [0, 1] plus Laplace noise of scale 1/(n epsilon)",
            epsilon=epsilon,
            delta=delta,
            n=n,
            hook=hook,
        )

    @property
    def fallback_probability(self) -> float:
        """P[|Z| > c·b] = e^{−c}."""
        return math.exp(-self.cutoff)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        mean = float(np.mean(data))
        z = rng.laplace(0.0, self.scale, size)
        return np.where(np.abs(z) > self.cutoff * self.scale, mean, mean + z)


class LeakyClampMean(_DeltaLeakMean):
    """Mean plus Laplace noise clipped to ±c·b around the true mean.

    Parameters
    ----------
    epsilon, delta : float
        The claimed (ε, δ).
    n : int
        The public number of records.
    cutoff : float
        c, in units of b (default ln 1000: the clamp fires once in a thousand calls).
    hook : bool
        Whether the ``statistic`` hook is provided.

    Notes
    -----
    "Clip the noise so that no answer is absurd": the clamp is centred on the *true*
    mean, so each of f(x) − c·b and f(x) + c·b is an atom of mass e^{−c}/2 that a
    neighbour's output never hits (its atoms sit at f(y) ± c·b): true δ ≥ e^{−c}/2 =
    5·10⁻⁴ per atom at the default.  Output ``float64`` of shape ``(N,)``.

    References
    ----------
    Mironov, ACM CCS 2012; ``privaudit/suites/broken.py``.
    """

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 1e-5,
        n: int = 100,
        cutoff: float = math.log(1000.0),
        *,
        hook: bool = True,
    ) -> None:
        self.cutoff = float(cutoff)
        super().__init__(
            "broken.leaky_clamp_mean" + ("" if hook else "_blackbox"),
            "mean of n records in [0, 1] plus Laplace noise of scale 1/(n epsilon)",
            epsilon=epsilon,
            delta=delta,
            n=n,
            hook=hook,
        )

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        mean = float(np.mean(data))
        c = self.cutoff * self.scale
        return mean + np.clip(rng.laplace(0.0, self.scale, size), -c, c)


def delta_broken_cases() -> tuple[BenchmarkCase, ...]:
    """Rare-leak mechanisms a user could write under a (1, 10⁻⁵) claim, each with true ε ∞.

    Returns
    -------
    tuple of BenchmarkCase
        ``broken.rare_raw_mean_atom`` (raw mean with probability 10⁻³), its spike variant
        (mean + Laplace(10⁻⁷) noise) and black-box variant (no ``statistic`` hook),
        ``broken.noiseless_fallback_mean`` (noiseless fallback once in 2000 calls) and
        ``broken.leaky_clamp_mean`` (noise clamped to ±b ln 1000 around the true mean)
        with its black-box variant.  Each puts a mass ≥ 5·10⁻⁴ on outputs a neighbour
        never produces, so δ(ε) ≥ 5·10⁻⁴ > 10⁻⁵ at every ε: the smallest ε at the
        claimed δ is ∞.

    References
    ----------
    Lokna, Paradis, Dimitrov & Vechev, ACM CCS 2023; Mironov, ACM CCS 2012;
    ``privaudit/suites/broken.py``.
    """
    n = 100
    x, y = np.zeros(n), np.concatenate([[1.0], np.zeros(n - 1)])
    pairs = ((x, y), (y, x))
    mechanisms = (
        RareRawMean(),
        RareRawMean(spike=1e-7),
        RareRawMean(hook=False),
        NoiselessFallbackMean(),
        LeakyClampMean(),
        LeakyClampMean(hook=False),
    )
    notes = {
        "broken.rare_raw_mean_atom": "With probability 1e-3 the exact mean: an atom at f(x).",
        "broken.rare_raw_mean_spike": "With probability 1e-3 the mean plus Laplace(1e-7) "
        "noise: a spike of width 1e-7 at f(x).",
        "broken.rare_raw_mean_atom_blackbox": "The atom, without the statistic hook.",
        "broken.noiseless_fallback_mean": "Noise |Z| > b ln 2000 replaced by no noise: "
        "an atom of mass 5e-4 at f(x).",
        "broken.leaky_clamp_mean": "Noise clipped to +-b ln 1000 around f(x): atoms of "
        "mass 5e-4 at f(x) +- b ln 1000.",
        "broken.leaky_clamp_mean_blackbox": "The clamp, without the statistic hook.",
    }
    return tuple(
        BenchmarkCase(
            name=m.name,
            mechanism=m,
            true_epsilon=math.inf,
            claimed_epsilon=1.0,
            claimed_delta=1e-5,
            input_pairs=pairs,
            source=_SOURCE,
            notes=notes[m.name] + " Claimed (1, 1e-5); delta(eps) >= 5e-4 at every eps.",
        )
        for m in mechanisms
    )


def delta_control_cases() -> tuple[BenchmarkCase, ...]:
    """The same code paths with leaks *within* the claimed δ = 10⁻⁵ (correct mechanisms).

    Returns
    -------
    tuple of BenchmarkCase
        ``broken.rare_raw_mean_atom`` with p = 5·10⁻⁶ (δ ≤ p), the noiseless fallback
        and the clamp firing with probability 10⁻⁶ (δ ≤ 2·10⁻⁶: the atom plus the
        Laplace mass of the Δ-wide strip that one neighbour clamps and the other does
        not); each is (1, 10⁻⁵)-DP, true ε at the claimed δ = 1 (the Laplace part).
    """
    n = 100
    x, y = np.zeros(n), np.concatenate([[1.0], np.zeros(n - 1)])
    pairs = ((x, y), (y, x))
    cut = math.log(1e6)
    mechanisms = (
        RareRawMean(p=5e-6),
        NoiselessFallbackMean(cutoff=cut),
        LeakyClampMean(cutoff=cut),
    )
    return tuple(
        BenchmarkCase(
            name=m.name,
            mechanism=m,
            true_epsilon=1.0,
            claimed_epsilon=1.0,
            claimed_delta=1e-5,
            input_pairs=pairs,
            source=_SOURCE,
            notes="Leak probability <= 5e-6 < delta = 1e-5: the claim holds.",
        )
        for m in mechanisms
    )
