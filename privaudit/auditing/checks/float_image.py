"""Floating-point image check: outputs that the sampler can produce under x but not under y.

For an additive mechanism ``o = fl(f(x) + Z)``, decides exactly, output by output, whether
the modelled float sampler could have produced o under the neighbour y (Mironov's attack).
Models: numpy's Laplace sampler, the lattice laws of the float-safe mechanisms, and a
user-supplied :meth:`mechanisms.Mechanism.float_image` hook.  A law no model covers gets a
``skipped`` outcome that says why (:func:`float_image_unavailable`); a leak counts against
the claim only for ``numerics="exact"`` (or ``strict=True``).

References: Mironov, ACM CCS 2012, §3 and §5.  Details: ``docs/engine_notes.md``,
"privaudit.auditing.checks.float_image".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from privaudit.auditing.checks._common import check_count, missing_hooks, skipped
from privaudit.auditing.outcome.results import (
    CheckOutcome,
    CheckStatus,
    Counterexample,
    jsonable_details,
)
from privaudit.auditing.pairs import CandidatePair, to_jsonable
from privaudit.auditing.sampler_outputs import draw_outputs
from privaudit.mechanisms import Mechanism
from privaudit.spec import (
    AdditiveNoise,
    ApproxDP,
    Laplace,
    LatticeGaussian,
    LatticeLaplace,
    PureDP,
    RandomLike,
    as_generator,
)
from privaudit.statistics.clopper_pearson import cp_lower

__all__ = [
    "WINDOW",
    "check_float_image",
    "float_image_applies",
    "float_image_unavailable",
    "laplace_image_contains",
]

_NAME = "floating_point.image"
#: Largest number of uniform grid values k enumerated per output and centre.
WINDOW = 256
_TWO52 = float(1 << 52)
_TWO53 = float(1 << 53)
#: Exactly re-verified witnesses (with math.log) per direction.
_VERIFY = 200


# ----------------------------------------------------------------------------------------
# the Laplace model: numpy's random_laplace, then fl(Z + c)
# ----------------------------------------------------------------------------------------
def _laplace_noise(k: np.ndarray, b: float, log: Any) -> np.ndarray:
    """numpy's ``random_laplace(0, b)`` for U = k·2⁻⁵³ (k ≥ 1), operation by operation."""
    u = k * (1.0 / _TWO53)
    low = u < 0.5
    arg = np.where(low, u + u, (2.0 - u) - u)
    z = b * log(arg)
    return np.where(low, 0.0 + z, 0.0 - z)


def _k_windows(o: np.ndarray, c: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """Inclusive k ranges [lo, hi] that contain every k with fl(Z(k) + c) = o.

    fl(s) = o needs |s − o| ≤ ulp(o); so Z ∈ [o − c − w, o − c + w] with w = 2ulp(o) +
    2ulp(o − c) (covering the rounding of o − c).  Z < 0 ⇔ k < 2⁵², Z ≥ 0 ⇔ k ≥ 2⁵²;
    k = 2⁵²·e^{Z/b} on the negative side and 2⁵³ − 2⁵²·e^{−Z/b} on the positive side;
    the k bounds are widened by a relative ``2e-15(1 + |Z|/b)`` (five times the rounding
    of log, exp and the products) and by ±2 (the rounding of ``2 − U`` moves the
    argument of the log by at most 2⁻⁵³, i.e. half a k step).
    """
    d = o - c
    w = 2.0 * (np.spacing(np.abs(o)) + np.spacing(np.abs(d)))
    z_lo, z_hi = d - w, d + w
    # relative k error of the forward log (≤ 3u|Z|/b) and of this inversion (≤ 2u + u|Z|/b),
    # u = 2⁻⁵³, with a five-fold margin
    r = 2e-15 * (1.0 + (np.abs(d) + w) / b)
    with np.errstate(over="ignore", under="ignore"):
        neg_lo = np.floor(np.exp(z_lo / b) * _TWO52 * (1 - r)) - 2
        neg_hi = np.ceil(np.exp(np.minimum(z_hi, 0.0) / b) * _TWO52 * (1 + r)) + 2
        pos_lo = _TWO53 - np.ceil(np.exp(-np.maximum(z_lo, 0.0) / b) * _TWO52 * (1 + r)) - 2
        pos_hi = _TWO53 - np.floor(np.exp(-z_hi / b) * _TWO52 * (1 - r)) + 2
    lo = np.where(z_hi < 0, neg_lo, np.where(z_lo >= 0, pos_lo, neg_lo))
    hi = np.where(z_hi < 0, neg_hi, np.where(z_lo >= 0, pos_hi, pos_hi))
    return np.clip(lo, 1.0, _TWO53 - 1), np.clip(hi, 1.0, _TWO53 - 1)


def _contains_exact(o: float, c: float, b: float, lo: float, hi: float) -> bool:
    """Scalar re-evaluation of one window with :func:`math.log` (libm, as numpy's C code)."""
    for k in range(int(lo), int(hi) + 1):
        u = k / _TWO53
        z = b * math.log(u + u) if u < 0.5 else -(b * math.log((2.0 - u) - u))
        if z + c == o:
            return True
    return False


def laplace_image_contains(
    outputs: Any, centre: float, scale: float, *, verify: int = _VERIFY
) -> tuple[np.ndarray, np.ndarray]:
    """Which outputs ``fl(Z + centre)``, ``Z ~ Generator.laplace(0, scale)``, can produce.

    Returns
    -------
    possible : ndarray of bool
        False only where no k of the enumerated window gives the output (and, for the
        first ``verify`` such outputs, the :func:`math.log` re-evaluation agrees; the
        others keep the numpy verdict).  Windows wider than :data:`WINDOW` count as
        possible.
    verified : ndarray of bool
        True where an impossibility was confirmed with :func:`math.log`.
    """
    o = np.asarray(outputs, dtype=np.float64).ravel()
    c, b = float(centre), float(scale)
    lo, hi = _k_windows(o, c, b)
    possible = np.ones(o.size, dtype=bool)
    verified = np.zeros(o.size, dtype=bool)
    small = np.flatnonzero((hi - lo < WINDOW) & np.isfinite(o))
    if small.size:
        width = int(np.max(hi[small] - lo[small])) + 1
        ks = lo[small, None] + np.arange(width, dtype=np.float64)[None, :]
        inside = ks <= hi[small, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            made = _laplace_noise(ks, b, np.log) + c
        hit = np.any(inside & (made == o[small, None]), axis=1)
        possible[small] = hit
    for i in np.flatnonzero(~possible)[:verify]:
        if _contains_exact(float(o[i]), c, b, lo[i], hi[i]):
            possible[i] = True
        else:
            verified[i] = True
    return possible, verified


def _lattice_contains(outputs: Any, granularity: float) -> np.ndarray:
    """Outputs on the lattice g·ℤ within ±2⁵²·g (the float-safe mechanisms' image)."""
    y = np.asarray(outputs, dtype=np.float64).ravel() / granularity
    return np.isfinite(y) & (y == np.round(y)) & (np.abs(y) <= _TWO52)


# ----------------------------------------------------------------------------------------
# the check
# ----------------------------------------------------------------------------------------
def _user_model(mechanism: Mechanism) -> bool:
    return bool(mechanism.provides("float_image"))


def float_image_applies(mechanism: Mechanism) -> bool:
    """True for scalar additive noise with a model: Laplace, a lattice law, or the
    mechanism's own :meth:`~mechanisms.Mechanism.float_image` hook."""
    spec = mechanism.spec
    return (
        isinstance(spec.noise, AdditiveNoise)
        and spec.output_dimension == 1
        and (
            isinstance(spec.noise.law, (Laplace, LatticeLaplace, LatticeGaussian))
            or _user_model(mechanism)
        )
    )


def float_image_unavailable(mechanism: Mechanism) -> str | None:
    """Why the check cannot run on a scalar additive mechanism with a continuous law.

    ``None`` when it can run, and for mechanisms it does not concern (vector outputs,
    integer-valued laws, non-additive noise), whose floats are not read this way.
    """
    spec = mechanism.spec
    if not isinstance(spec.noise, AdditiveNoise) or spec.output_dimension != 1:
        return None
    law = spec.noise.law
    if getattr(law, "is_discrete", False) and not isinstance(
        law, (LatticeLaplace, LatticeGaussian)
    ):
        return None
    if not float_image_applies(mechanism):
        return (
            f"cannot run: no floating-point model of this sampler's outputs (the check "
            f"models numpy's Generator.laplace and the lattice laws, the spec's law is "
            f"{type(law).__name__}, and the mechanism provides no float_image hook; "
            f"supply one, e.g. from_scalar_sampler(..., float_image=...))"
        )
    if not mechanism.provides("statistic"):
        return (
            "cannot run: the float image is centred at f(x), and the mechanism does not "
            "provide the statistic hook"
        )
    return None


def _image(
    law: Any, outputs: np.ndarray, centre: float, mechanism: Mechanism | None = None
) -> tuple[np.ndarray, np.ndarray]:
    if mechanism is not None and _user_model(mechanism):
        possible = np.asarray(mechanism.float_image(outputs, centre), dtype=bool).ravel()
        return possible, ~possible
    if isinstance(law, Laplace):
        return laplace_image_contains(outputs, centre, law.scale)
    possible = _lattice_contains(outputs, law.granularity)
    return possible, ~possible


def _pairs_that_move(
    mechanism: Mechanism, pairs: Sequence[CandidatePair], max_pairs: int
) -> tuple[list[CandidatePair], dict[int, tuple[float, float]]]:
    """The first ``max_pairs`` pairs with f(x) ≠ f(y), and their (f(x), f(y)) by ``id``."""
    centre = {}
    used: list[CandidatePair] = []
    for pair in pairs:
        fx = float(np.asarray(mechanism.statistic(pair.x), dtype=np.float64).reshape(()))
        fy = float(np.asarray(mechanism.statistic(pair.y), dtype=np.float64).reshape(()))
        if fx != fy:
            used.append(pair)
            centre[id(pair)] = (fx, fy)
        if len(used) >= max_pairs:
            break
    return used, centre


def _outside_own_image(
    mechanism: Mechanism, law: Any, out: np.ndarray, c_src: float, n: int
) -> CheckOutcome | None:
    """``skipped`` when an output of M(x) is not in the modelled float image of x itself
    (the mechanism does not draw its floats the modelled way), else ``None``."""
    own, _ = _image(law, out, c_src, mechanism)
    if not own.all():
        bad = float(out[np.flatnonzero(~own)[0]])
        what = (
            "its float_image hook" if _user_model(mechanism) else f"the {type(law).__name__} model"
        )
        return skipped(
            _NAME,
            f"cannot run: output {bad!r} of M(x) is not in the "
            f"modelled float image of x itself: the mechanism does "
            f"not draw its floats as {what} assumes (supply a model "
            f"of its sampler with a float_image hook)",
            samples=n,
        )
    return None


def _model_name(mechanism: Mechanism, law: Any) -> str:
    """The float model the check used, as the report names it."""
    return (
        "user-supplied float_image"
        if _user_model(mechanism)
        else "numpy Generator.laplace"
        if isinstance(law, Laplace)
        else "exact lattice"
    )


def _summary(
    leak: bool,
    enforce: bool,
    model: str,
    worst_fraction: float,
    witness_value: float | None,
    directions: int,
    n: int,
) -> str:
    """The outcome's summary: the leak and one witness, or the directions searched."""
    if leak:
        what = (
            f"floating-point leak: {worst_fraction:.3%} of the outputs of M(x) are floats "
            f"that M(y) cannot produce ({model} model), e.g. {witness_value!r}; "
            f"ε = ∞ for the float implementation"
        )
    else:
        what = (
            f"no output of M(x) outside the float image of M(y) in {directions} "
            f"direction(s) × {n} draws ({model} model)"
        )
    if leak and not enforce:
        what += "; not counted: the claim is declared with idealized (real-arithmetic) numerics"
    return what


def _witness_counterexample(
    witness_pair: tuple[Any, Any, CandidatePair], witness_value: float | None
) -> Counterexample:
    """The counterexample of a leak: an output of M(x) that M(y) cannot produce."""
    src, dst, pair = witness_pair
    return Counterexample(
        x=to_jsonable(src),
        y=to_jsonable(dst),
        origin=pair.origin,
        relation_reason=pair.decision.reason,
        values={"output": witness_value, "possible_under_x": True, "possible_under_y": False},
    )


def check_float_image(
    mechanism: Mechanism,
    pairs: Sequence[CandidatePair],
    rng: RandomLike,
    *,
    samples: int = 4_000,
    max_pairs: int = 2,
    alpha: float = 0.0,
    strict: bool = False,
) -> CheckOutcome:
    """Look for outputs of M(x) that the modelled float sampler cannot produce under y.

    Parameters
    ----------
    mechanism : Mechanism
        Scalar :class:`~spec.AdditiveNoise` with a Laplace or lattice law, or with its own
        ``float_image`` hook, and the ``statistic`` hook; anything else is skipped with
        the reason.
    pairs : sequence of CandidatePair
        Neighbouring pairs; the first ``max_pairs`` with f(x) ≠ f(y) are used, both
        directions.
    rng : Generator, int or None
        Source of the draws (one ``mechanism.sample`` call per input).
    samples : int
        Outputs drawn per input.
    alpha : float
        Error rate spent only for an (ε, δ) claim with δ > 0 (Clopper–Pearson lower
        bound on the witness probability, Bonferroni over the directions); a pure-DP
        verdict is deterministic and spends none.
    strict : bool
        Count a leak against an ``"idealized"`` claim too.

    Returns
    -------
    CheckOutcome
        ``details``: per direction the number of witnesses (outputs impossible under the
        neighbour), how many were re-verified with :func:`math.log`, the first witness;
        ``leak_found``.  ``statistic`` is the largest witness fraction.
    """
    n = check_count(samples, "samples", 1)
    if not float_image_applies(mechanism):
        return skipped(
            _NAME,
            float_image_unavailable(mechanism)
            or (
                "no floating-point model for this mechanism's noise (the check covers scalar "
                "additive Laplace and lattice laws, and mechanisms with a float_image hook)"
            ),
        )
    if missing_hooks(mechanism, ["statistic"]):
        return skipped(_NAME, "the float image needs the statistic hook")
    spec = mechanism.spec
    law = cast(AdditiveNoise, spec.noise).law  # float_image_applies (above) checked it
    gen = as_generator(rng)
    used, centre = _pairs_that_move(mechanism, pairs, max_pairs)
    if not used:
        return skipped(_NAME, "no candidate pair with f(x) != f(y)")
    delta = spec.guarantee.delta if isinstance(spec.guarantee, ApproxDP) else 0.0
    pure = isinstance(spec.guarantee, PureDP) or delta == 0.0
    directions = []
    worst_fraction, witness_pair, witness_value = 0.0, None, None
    level = alpha / (2 * len(used)) if alpha > 0 else 0.0
    cp_violated = False
    for pair in used:
        fx, fy = centre[id(pair)]
        for src, dst, c_src, c_dst in ((pair.x, pair.y, fx, fy), (pair.y, pair.x, fy, fx)):
            out = np.asarray(draw_outputs(mechanism, src, n, gen), dtype=np.float64).ravel()
            not_own = _outside_own_image(mechanism, law, out, c_src, n)
            if not_own is not None:
                return not_own
            possible, verified = _image(law, out, c_dst, mechanism)
            # an output (a row of a vector output) is a witness when any of its values is
            # impossible under M(y): the event whose probability bounds δ
            impossible_rows = ~possible.reshape(n, -1).all(axis=1)
            w = int(np.count_nonzero(impossible_rows))
            frac = w / n
            first = float(out[np.flatnonzero(verified)[0]]) if verified.any() else None
            entry = {
                "from": to_jsonable(src),
                "to": to_jsonable(dst),
                "witnesses": w,
                "verified_witnesses": int(verified.sum()),
                "samples": n,
                "first_witness": first,
            }
            if delta > 0 and alpha > 0:
                lower = float(cp_lower(w, n, level))
                entry["witness_probability_lower_bound"] = lower
                cp_violated |= lower > delta
            directions.append(entry)
            if verified.any() and frac >= worst_fraction:
                worst_fraction, witness_pair, witness_value = frac, (src, dst, pair), first
    leak = witness_value is not None
    counts = pure and leak or (not pure and cp_violated)
    enforce = spec.numerics == "exact" or strict
    violated = bool(counts and enforce)
    model = _model_name(mechanism, law)
    what = _summary(leak, enforce, model, worst_fraction, witness_value, len(directions), n)
    counterexample = None
    if violated and witness_pair is not None:
        counterexample = _witness_counterexample(witness_pair, witness_value)
    status: CheckStatus = "violated" if violated else ("skipped" if leak else "passed")
    return CheckOutcome(
        name=_NAME,
        status=status,
        summary=what,
        statistic=worst_fraction,
        threshold=0.0 if pure else delta,
        error_rate=0.0 if pure else level * 2 * len(used),
        counterexample=counterexample,
        details=jsonable_details(
            model=model,
            leak_found=leak,
            strict=strict,
            numerics=spec.numerics,
            directions=directions,
        ),
    )
