"""The output densities a mechanism *declares* on two inputs, as vectorised callables.

:func:`declared_log_densities` returns log p_x(o) and log p_y(o) when the spec's noise and
the mechanism's gray-box hooks determine the output law exactly (``None`` otherwise).  They
describe the *declared* law, not what the implementation does: the auditor uses them to
choose events (valid whatever the implementation does) and to compute the declared privacy
loss.  An impossible output has log density −inf; a zero smooth sensitivity is a Dirac.

References: Wasserman & Zhou, JASA 2010; Nissim, Raskhodnikova & Smith, STOC 2007; McSherry
& Talwar, FOCS 2007; Durfee & Rogers, NeurIPS 2019.  Details (the table of laws):
``docs/engine_notes.md``, "privaudit.auditing.distinguish.densities".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from scipy import special

from privaudit.spec import (
    AdditiveNoise,
    FiniteRandomizer,
    Gaussian,
    Gumbel,
    InverseQuartic,
    Laplace,
    NoisyArgmax,
    RandomizedResponse,
    SmoothSensitivityNoise,
)
from privaudit.spec.errors import InvalidInputError, PrivauditError

__all__ = ["DensityPair", "LogDensity", "declared_llr", "declared_log_densities", "declared_tables"]

#: A vectorised log density: outputs of shape (N,) or (N, d) → float64 array of shape (N,).
LogDensity = Callable[[np.ndarray], np.ndarray]


class DensityPair(NamedTuple):
    """The declared log densities of M(x) and M(y) (unpacks as a pair)."""

    log_p_x: LogDensity
    log_p_y: LogDensity


def declared_log_densities(mechanism: Any, x: Any, y: Any) -> DensityPair | None:
    """log p_x and log p_y of the declared output law, or ``None`` if not determined.

    Parameters
    ----------
    mechanism : Mechanism
        Any :class:`mechanisms.Mechanism`; its spec's ``noise`` and the gray-box hooks it
        :meth:`provides` decide whether the law is determined.
    x, y : object
        The two inputs.

    Returns
    -------
    DensityPair or None
        Two vectorised callables (outputs of shape (N,) or (N, d) → shape (N,)), or
        ``None`` when the spec declares no noise, a needed hook is missing or fails, or
        the law has no closed form here.

    Examples
    --------
    >>> from privaudit.mechanisms import LaplaceMechanism
    >>> lp_x, lp_y = declared_log_densities(LaplaceMechanism(1.0, 1.0), 0.0, 1.0)
    >>> (lp_x(np.array([0.0])) - lp_y(np.array([0.0]))).tolist()
    [1.0]
    """
    noise = getattr(mechanism.spec, "noise", None)
    if noise is None:
        return None
    try:
        if isinstance(noise, AdditiveNoise):
            return _additive(mechanism, noise, x, y)
        if isinstance(noise, SmoothSensitivityNoise):
            return _smooth(mechanism, noise, x, y)
        if isinstance(noise, RandomizedResponse):
            return _randomized_response(noise, x, y)
        if isinstance(noise, FiniteRandomizer):
            return _finite(mechanism, noise, x, y)
        if isinstance(noise, NoisyArgmax):
            return _argmax(mechanism, noise, x, y)
    except (PrivauditError, NotImplementedError, ValueError, TypeError):
        return None
    return None


def _provides(mechanism: Any, *hooks: str) -> bool:
    try:
        return all(mechanism.provides(h) for h in hooks)
    except PrivauditError:
        return False


def _safe_law(log_density: Callable[[np.ndarray], Any]) -> Callable[[np.ndarray], np.ndarray]:
    """Wrap a law's log density so NaN arguments give −inf instead of an error."""

    def call(z: np.ndarray) -> np.ndarray:
        try:
            return np.asarray(log_density(z), dtype=np.float64)
        except InvalidInputError:
            bad = np.isnan(z)
            out = np.asarray(log_density(np.where(bad, 0.0, z)), dtype=np.float64)
            return np.where(bad, -np.inf, out)

    return call


def _additive(mechanism: Any, noise: AdditiveNoise, x: Any, y: Any) -> DensityPair | None:
    if not _provides(mechanism, "statistic"):
        return None
    dim = int(mechanism.spec.output_dimension)
    law = _safe_law(noise.law.log_density)

    def make(centre: Any) -> LogDensity:
        f = np.asarray(centre)
        if f.dtype.kind not in "iuf":
            raise InvalidInputError(f"statistic returned non-numeric {f!r}")
        f = f.reshape(()) if dim == 1 else f.reshape(dim)

        def log_p(outputs: np.ndarray) -> np.ndarray:
            o = np.asarray(outputs)
            if dim == 1:
                o = o.reshape(o.shape[0])
                return law(o - f)
            o = o.reshape(o.shape[0], dim)
            return np.sum(law(o - f), axis=1)

        return log_p

    return DensityPair(make(mechanism.statistic(x)), make(mechanism.statistic(y)))


def _smooth(mechanism: Any, noise: SmoothSensitivityNoise, x: Any, y: Any) -> DensityPair | None:
    if not _provides(mechanism, "statistic", "smooth_sensitivity"):
        return None
    law = _safe_law(noise.law.log_density)
    a = float(noise.alpha)

    def make(data: Any) -> LogDensity:
        f = float(np.asarray(mechanism.statistic(data)).reshape(()))
        s = float(mechanism.smooth_sensitivity(data)) / a
        if not (math.isfinite(f) and math.isfinite(s) and s >= 0.0):
            raise InvalidInputError(f"statistic {f!r} or scale {s!r} is not usable")

        def log_p(outputs: np.ndarray) -> np.ndarray:
            o = np.asarray(outputs, dtype=np.float64)
            o = o.reshape(o.shape[0])
            if s == 0.0:  # a point mass at f: a Dirac "density"
                return np.where(o == f, np.inf, -np.inf)
            return law((o - f) / s) - math.log(s)

        return log_p

    return DensityPair(make(x), make(y))


def _table_lookup(table: np.ndarray) -> LogDensity:
    """log p over category indices 0 … m − 1 from a table; anything else is −inf."""
    m = table.size

    def log_p(outputs: np.ndarray) -> np.ndarray:
        o = np.asarray(outputs)
        o = o.reshape(o.shape[0])
        if o.dtype.kind in "iub":
            idx = o.astype(np.int64)
            valid = (idx >= 0) & (idx < m)
        else:
            of = o.astype(np.float64)
            valid = np.isfinite(of) & (of == np.floor(of)) & (of >= 0) & (of < m)
            idx = np.where(valid, of, 0).astype(np.int64)
        return np.where(valid, table[np.where(valid, idx, 0)], -np.inf)

    return log_p


def _rr_tables(noise: RandomizedResponse, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    law = noise.law
    cats = np.arange(law.categories)
    return (
        np.asarray(law.log_pmf_given(cats, int(x)), dtype=np.float64),
        np.asarray(law.log_pmf_given(cats, int(y)), dtype=np.float64),
    )


def _randomized_response(noise: RandomizedResponse, x: Any, y: Any) -> DensityPair:
    table_x, table_y = _rr_tables(noise, x, y)
    return DensityPair(_table_lookup(table_x), _table_lookup(table_y))


def _finite_log_table(mechanism: Any, noise: FiniteRandomizer, data: Any) -> np.ndarray:
    law = noise.law
    p = np.asarray(mechanism.output_probabilities(data), dtype=np.float64)
    p = p.reshape(int(law.length), int(law.alphabet))
    with np.errstate(divide="ignore"):
        return np.log(p)


def _finite_tables(
    mechanism: Any, noise: FiniteRandomizer, x: Any, y: Any
) -> tuple[np.ndarray, np.ndarray] | None:
    if not _provides(mechanism, "output_probabilities"):
        return None
    return _finite_log_table(mechanism, noise, x)[0], _finite_log_table(mechanism, noise, y)[0]


def _product_lookup(table: np.ndarray) -> LogDensity:
    """Σ_c log P_c(o_c) over outputs of shape (N, L); a symbol outside 0..A−1 gives −inf."""
    length, alphabet = table.shape

    def log_p(outputs: np.ndarray) -> np.ndarray:
        o = np.asarray(outputs).reshape(-1, length)
        of = o.astype(np.float64)
        valid = np.isfinite(of) & (of == np.floor(of)) & (of >= 0) & (of < alphabet)
        idx = np.where(valid, of, 0).astype(np.int64)
        values = table[np.arange(length)[None, :], idx]
        return np.where(valid.all(axis=1), values.sum(axis=1), -np.inf)

    return log_p


def _finite(mechanism: Any, noise: FiniteRandomizer, x: Any, y: Any) -> DensityPair | None:
    if not _provides(mechanism, "output_probabilities"):
        return None
    if noise.law.length == 1:
        tables = _finite_tables(mechanism, noise, x, y)
        assert tables is not None
        return DensityPair(_table_lookup(tables[0]), _table_lookup(tables[1]))
    return DensityPair(
        _product_lookup(_finite_log_table(mechanism, noise, x)),
        _product_lookup(_finite_log_table(mechanism, noise, y)),
    )


def _argmax_tables(
    mechanism: Any, noise: NoisyArgmax, x: Any, y: Any
) -> tuple[np.ndarray, np.ndarray] | None:
    if not isinstance(noise.law, Gumbel) or not _provides(mechanism, "statistic"):
        return None
    beta = float(noise.law.scale)

    def table(data: Any) -> np.ndarray:
        q = np.asarray(mechanism.statistic(data), dtype=np.float64).ravel() / beta
        if not np.all(np.isfinite(q)):
            raise InvalidInputError(f"scores must be finite, got {q!r}")
        return q - special.logsumexp(q)

    return table(x), table(y)


def _argmax(mechanism: Any, noise: NoisyArgmax, x: Any, y: Any) -> DensityPair | None:
    tables = _argmax_tables(mechanism, noise, x, y)
    if tables is None:
        return None
    return DensityPair(_table_lookup(tables[0]), _table_lookup(tables[1]))


def declared_tables(mechanism: Any, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The declared log probabilities of every output 0 … m − 1 on x and on y, for laws
    with finitely many outputs (randomized response; noisy argmax with Gumbel noise).

    Returns ``None`` for every other declared law (and when a needed hook fails).
    """
    noise = getattr(mechanism.spec, "noise", None)
    try:
        if isinstance(noise, RandomizedResponse):
            return _rr_tables(noise, x, y)
        if isinstance(noise, FiniteRandomizer) and noise.law.length == 1:
            return _finite_tables(mechanism, noise, x, y)
        if isinstance(noise, NoisyArgmax):
            return _argmax_tables(mechanism, noise, x, y)
    except (PrivauditError, NotImplementedError, ValueError, TypeError):
        return None
    return None


#: Continuous laws whose density is positive everywhere (no declared zero-probability
#: outputs, so the support check of an event test has nothing to find).
_FULL_SUPPORT = (Laplace, Gaussian, Gumbel, InverseQuartic)


def declared_llr(mechanism: Any, x: Any, y: Any) -> LogDensity | None:
    """A fast log p_x − log p_y for additive noise of full support, or ``None``.

    For ``AdditiveNoise`` with a law of everywhere-positive density (Laplace, Gaussian,
    Gumbel, inverse quartic), the coordinates where f(x) = f(y) cancel exactly, so

        log p_x(o) − log p_y(o)
            = Σ_{j : f_j(x) ≠ f_j(y)} log law(o_j − f_j(x)) − log law(o_j − f_j(y)),

    computed on the differing coordinates only (one of five for a noisy histogram), and
    no output has declared probability 0 under either input.  Returns ``None`` for
    every other declared law (use :func:`declared_log_densities`).
    """
    noise = getattr(mechanism.spec, "noise", None)
    if not isinstance(noise, AdditiveNoise) or not isinstance(noise.law, _FULL_SUPPORT):
        return None
    if not _provides(mechanism, "statistic"):
        return None
    try:
        dim = int(mechanism.spec.output_dimension)
        fx = np.asarray(mechanism.statistic(x), dtype=np.float64).reshape(dim)
        fy = np.asarray(mechanism.statistic(y), dtype=np.float64).reshape(dim)
    except (PrivauditError, NotImplementedError, ValueError, TypeError):
        return None
    if not (np.all(np.isfinite(fx)) and np.all(np.isfinite(fy))):
        return None
    law = _pair_term(noise.law)
    differ = np.flatnonzero(fx != fy)

    def llr(outputs: np.ndarray) -> np.ndarray:
        o = np.asarray(outputs)
        if dim == 1:
            o = np.asarray(o.reshape(o.shape[0]), dtype=np.float64)
            return law(o, fx[0], fy[0]) if differ.size else np.zeros(o.shape[0])
        o = o.reshape(o.shape[0], dim)
        total = np.zeros(o.shape[0], dtype=np.float64)
        for j in differ:
            total += law(np.asarray(o[:, j], dtype=np.float64), fx[j], fy[j])
        return total

    # the loss of additive Laplace noise has atoms (±Δ/b on whole half-lines), which the
    # rounding of LogLikelihoodRatio must merge; the other full-support laws have none
    # a flag on the function object, read back with getattr (pair.py, choice/halving.py)
    llr.has_atoms = isinstance(noise.law, Laplace)  # type: ignore[attr-defined]  # see above
    return llr


def _pair_term(law: Any) -> Callable[[np.ndarray, float, float], np.ndarray]:
    """(o, a, b) ↦ log law(o − a) − log law(o − b), in closed form for Laplace and
    Gaussian (the constants cancel), through the law's log density otherwise."""
    if isinstance(law, Laplace):
        inv = 1.0 / float(law.scale)

        def laplace(o: np.ndarray, a: float, b: float) -> np.ndarray:
            # |o − b| − |o − a| = sign(b − a)·clip(a + b − 2o, −|b − a|, |b − a|)
            d = b - a
            out = np.multiply(o, -2.0)
            out += a + b
            np.clip(out, -abs(d), abs(d), out=out)
            out *= math.copysign(inv, d)
            return out

        return laplace
    if isinstance(law, Gaussian):
        c = 1.0 / (2.0 * float(law.sigma) ** 2)

        def gaussian(o: np.ndarray, a: float, b: float) -> np.ndarray:
            # ((o − b)² − (o − a)²) / 2σ² = (a − b)(2o − a − b) / 2σ²
            out = np.multiply(o, 2.0)
            out -= a + b
            out *= (a - b) * c
            return out

        return gaussian
    density = _safe_law(law.log_density)
    return lambda o, a, b: density(o - a) - density(o - b)
