"""The f-DP one-run bound (Mahloujifar, Melis & Chaudhuri, ICML 2025).

Replaces the binomial tail of :mod:`~privaudit.auditing.one_run.audit` by a recursion over
the mechanism's whole trade-off curve f, which rejects "the mechanism is f-DP" at confidence
``1 − τ`` (:func:`fdp_rejects`); the bound is the largest parameter rejected, by bisection.
:func:`fdp_one_run_epsilon` gives an assumption-free ε lower bound;
:func:`fdp_one_run_mu` a μ-GDP bound whose ε(δ) assumes a Gaussian trade-off curve and is
labelled so.  Its soundness is checked empirically, not re-proved here.

References: Mahloujifar, Melis & Chaudhuri, arXiv:2410.22235; Dong, Roth & Su, JRSS-B 2022.
Details (the recursion and its provenance): ``docs/engine_notes.md``,
"privaudit.auditing.one_run.fdp".
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
from scipy import special

from privaudit.spec import GaussianDP
from privaudit.spec.errors import InvalidParameterError
from privaudit.spec.validation import check_confidence, check_delta, check_sample_size

__all__ = [
    "FDP_MU_ASSUMPTION",
    "fdp_one_run_epsilon",
    "fdp_one_run_mu",
    "fdp_rejects",
    "gdp_inverse_blow_up",
    "approx_dp_inverse_blow_up",
    "gdp_epsilon",
]

#: The label of the ε read from an f-DP one-run μ bound.
FDP_MU_ASSUMPTION = (
    "mu is an assumption-free f-DP one-run bound; its epsilon assumes the mechanism's "
    "trade-off curve is Gaussian (mu-GDP)"
)

#: Upper ends of the bisections on μ and ε.
_MU_MAX, _EPS_MAX = 30.0, 50.0
#: Bisection steps (resolution 2⁻³⁰ of the range).
_STEPS = 30

Inverse = Callable[[np.ndarray], np.ndarray]


def gdp_inverse_blow_up(mu: npt.ArrayLike) -> Inverse:
    """``g(x) = Φ(Φ⁻¹(x) − μ) = G_μ(1 − x)`` of μ-GDP (broadcast over ``mu``)."""
    mu_ = np.asarray(mu, dtype=np.float64)

    def g(x: np.ndarray) -> np.ndarray:
        return np.asarray(special.ndtr(special.ndtri(np.clip(x, 0.0, 1.0)) - mu_))

    return g


def approx_dp_inverse_blow_up(epsilon: npt.ArrayLike, delta: float) -> Inverse:
    """``g(x) = f_{ε,δ}(1 − x) = max(0, 1 − δ − e^ε(1 − x), e^{−ε}(x − δ))``."""
    e = np.exp(np.asarray(epsilon, dtype=np.float64))

    def g(x: np.ndarray) -> np.ndarray:
        xc = np.clip(x, 0.0, 1.0)
        return np.maximum(0.0, np.maximum(1.0 - delta - e * (1.0 - xc), (xc - delta) / e))

    return g


def fdp_rejects(
    m: int,
    guesses: npt.ArrayLike,
    correct: npt.ArrayLike,
    g: Inverse,
    *,
    confidence: float = 0.95,
    alphabet: int = 2,
) -> np.ndarray:
    """Whether ``correct`` of ``guesses`` refutes "f-DP" (``g = f(1 − ·)``) at ``confidence``.

    Vectorised over broadcast ``guesses`` and ``correct`` (and the parameters inside
    ``g``).  The recursion: ``docs/engine_notes.md``, "privaudit.auditing.one_run.fdp".
    """
    c_ = check_confidence(confidence)
    cap, v = np.broadcast_arrays(
        np.asarray(guesses, dtype=np.int64), np.asarray(correct, dtype=np.int64)
    )
    if (v < 0).any() or (v > cap).any() or (cap > m).any():
        raise InvalidParameterError(
            f"need 0 <= correct <= guesses <= m = {m}, got {guesses!r}, {correct!r}"
        )
    tau = 1.0 - c_
    safe = np.maximum(cap, 1).astype(np.float64)
    share = tau * safe / m
    r = np.array(share * v / safe, dtype=np.float64)
    h = np.array(share * (safe - v) / safe, dtype=np.float64)
    vb, capb = v, safe
    for i in range(int(v.max(initial=0)) - 1, -1, -1):
        active = i < vb
        h_new = np.maximum(h, (alphabet - 1) * g(r))
        r_new = r + (i / np.maximum(capb - i, 1.0)) * (h_new - h)
        h = np.where(active, h_new, h)
        r = np.where(active, r_new, r)
    return (r + h > capb / m) & (np.broadcast_to(cap, r.shape) > 0)


def _largest_rejected(
    m: int,
    guesses: npt.ArrayLike,
    correct: npt.ArrayLike,
    family: Callable[[np.ndarray], Inverse],
    top: float,
    confidence: float,
) -> np.ndarray:
    """Largest parameter of a nested family whose claim is rejected (0 if none)."""
    cap, v = np.broadcast_arrays(
        np.asarray(guesses, dtype=np.int64), np.asarray(correct, dtype=np.int64)
    )
    lo, hi = np.zeros(cap.shape), np.full(cap.shape, top)
    any_rejected = fdp_rejects(m, cap, v, family(np.full(cap.shape, 1e-9)), confidence=confidence)
    for _ in range(_STEPS):
        mid = (lo + hi) / 2.0
        reject = fdp_rejects(m, cap, v, family(mid), confidence=confidence)
        lo, hi = np.where(reject, mid, lo), np.where(reject, hi, mid)
    return np.where(any_rejected, lo, 0.0)


def fdp_one_run_epsilon(
    m: int,
    guesses: npt.ArrayLike,
    correct: npt.ArrayLike,
    *,
    delta: float = 0.0,
    confidence: float = 0.95,
) -> np.ndarray:
    """Largest ε such that (ε, δ)-DP is refuted by ``correct`` of ``guesses`` (0 if none).

    Assumption-free (the f-DP test with the (ε, δ) trade-off curve).
    """
    m = check_sample_size(m, what="m")
    d = check_delta(delta)
    return _largest_rejected(
        m, guesses, correct, lambda eps: approx_dp_inverse_blow_up(eps, d), _EPS_MAX, confidence
    )


def fdp_one_run_mu(
    m: int, guesses: npt.ArrayLike, correct: npt.ArrayLike, *, confidence: float = 0.95
) -> np.ndarray:
    """Largest μ such that μ-GDP is refuted by ``correct`` of ``guesses`` (0 if none)."""
    m = check_sample_size(m, what="m")
    return _largest_rejected(m, guesses, correct, gdp_inverse_blow_up, _MU_MAX, confidence)


def gdp_epsilon(mu: float, delta: float) -> float:
    """ε(δ) of μ-GDP (0 for μ = 0)."""
    return GaussianDP(mu=mu).epsilon_for_delta(delta) if mu > 0 else 0.0
