"""Another library's DP primitive called through a :class:`~privaudit.auditing.replay.
recorder.NoiseRecorder`, without patching that library: :func:`opendp_measurement`
(OpenDP's additive-noise measurements) and :func:`diffprivlib_mechanism` (diffprivlib's
additive mechanisms).  On the recorded input the library draws the noise and the adapter
records ``output − value``; on a neighbour the recorder adds the recorded noise and the
library is not called.  Whatever is not value plus noise independent of the value is
refused (``docs/replay.md``, "Primitives of other libraries").
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from privaudit.auditing.replay.recorder import NoiseRecorder, ReplayDivergence
from privaudit.spec import ApproxDP, PureDP, ZeroConcentratedDP
from privaudit.spec.errors import (
    InputShapeError,
    InvalidInputError,
    InvalidParameterError,
    NonNumericInputError,
    OutOfDomainError,
    UnsupportedCombinationError,
)

__all__ = [
    "DIFFPRIVLIB_MECHANISMS",
    "OPENDP_CONSTRUCTORS",
    "diffprivlib_mechanism",
    "opendp_measurement",
]

#: OpenDP constructors whose measurement releases ``value + noise``, the noise independent
#: of ``value`` (OpenDP 0.16, ``opendp.measurements``).
OPENDP_CONSTRUCTORS = frozenset(
    {"make_laplace", "make_gaussian", "make_geometric", "make_noise", "make_canonical_noise"}
)
#: OpenDP combinators that change only how the privacy loss is stated (the function is the
#: wrapped measurement's): followed to the constructor inside.
_OPENDP_MEASURE_CASTS = frozenset(
    {
        "make_approximate",
        "make_fix_delta",
        "make_fixed_approxDP_to_approxDP",
        "make_pureDP_to_zCDP",
        "make_zCDP_to_approxDP",
    }
)
#: OpenDP input metric → the recorder's norm of the sensitivity (on a scalar every norm is
#: the absolute difference).
_OPENDP_NORMS: Mapping[str, str] = {
    "AbsoluteDistance": "l1",
    "L1Distance": "l1",
    "L2Distance": "l2",
}
_INTEGERS = frozenset(
    {"i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize"}
)


def _user_site() -> str:
    """``file:line`` of the first frame outside this module (the pipeline's call)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:  # pragma: no cover - always called from a pipeline
        return "<unknown>"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _through(
    noise: NoiseRecorder,
    x: np.ndarray,
    draw: Callable[[], np.ndarray],
    site: str,
    **declared: Any,
) -> Any:
    """``noise.primitive`` with ``draw()`` as the recorded noise, the call and any
    divergence attributed to the pipeline's line ``site`` rather than to this module."""
    try:
        out = noise.primitive(x, noise=lambda _generator, _shape: draw(), **declared)
    except ReplayDivergence as gap:
        message = str(gap).replace(gap.site, site)
        raise ReplayDivergence(gap.check, message, gap.index, site) from None
    noise.calls[-1] = dataclasses.replace(noise.calls[-1], site=site)
    return out


def _numbers(value: Any, what: str, *, integer: bool) -> np.ndarray:
    """``value`` as float64, whole numbers only when ``integer``."""
    try:
        x = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise NonNumericInputError(f"{what} received a non-numeric value {value!r}") from None
    if integer and not np.all(np.isnan(x) | (np.round(x) == x)):
        raise OutOfDomainError(f"{what} takes whole numbers, got {value!r}")
    return x


def _released(out: Any, integer: bool) -> Any:
    """The recorder's release, as integers for an integer primitive."""
    if not integer:
        return out
    if np.ndim(out) == 0:
        return int(round(float(out))) if math.isfinite(float(out)) else out
    return np.rint(out).astype(np.int64) if np.all(np.isfinite(out)) else out


# -- OpenDP ------------------------------------------------------------------------------
def _opendp_core(measurement: Any) -> tuple[str, dict[str, float]]:
    """The additive constructor under ``measurement``'s measure casts, and the numeric
    arguments of the whole chain (those of a cast prefixed by its name)."""
    cls = type(measurement)
    if (cls.__module__, cls.__name__) != ("opendp.mod", "Measurement"):
        raise UnsupportedCombinationError(
            f"opendp_measurement takes an opendp Measurement, got {cls.__module__}.{cls.__name__}"
        )
    parameters: dict[str, float] = {}
    current = measurement
    while True:
        built = getattr(current, "__opendp_dict__", None)
        name = built.get("__function__") if isinstance(built, dict) else None
        kwargs = built.get("__kwargs__", {}) if isinstance(built, dict) else {}
        if name in _OPENDP_MEASURE_CASTS:
            parameters.update(_numeric(kwargs, prefix=f"{name}."))
            current = kwargs.get("measurement")
            continue
        if name in OPENDP_CONSTRUCTORS:
            parameters.update(_numeric(kwargs, prefix=""))
            return str(name), parameters
        raise UnsupportedCombinationError(
            f"the OpenDP measurement built by {name or 'an unknown constructor'!r} is not an "
            f"additive-noise measurement: supported are {sorted(OPENDP_CONSTRUCTORS)}, alone "
            f"or under {sorted(_OPENDP_MEASURE_CASTS)}; run a chained transformation in the "
            "pipeline and pass its output to the measurement alone"
        )


def _numeric(kwargs: Mapping[str, Any], prefix: str) -> dict[str, float]:
    """The real-valued arguments of a constructor (tuples flattened as ``name[i]``)."""
    found: dict[str, float] = {}
    for key, arg in kwargs.items():
        items = list(enumerate(arg)) if isinstance(arg, (tuple, list)) else [(None, arg)]
        for i, item in items:
            if isinstance(item, (int, float)) and not isinstance(item, bool):
                found[prefix + key + ("" if i is None else f"[{i}]")] = float(item)
    return found


def _opendp_guarantee(measure: Any, distance: Any) -> tuple[Any, dict[str, float]]:
    """The privaudit guarantee of OpenDP's ``measurement.map(d_in)`` in ``measure``."""
    name = str(measure.type)
    try:
        if name == "MaxDivergence":
            return PureDP(epsilon=float(distance)), {"epsilon": float(distance)}
        if name == "ZeroConcentratedDivergence":
            return ZeroConcentratedDP(rho=float(distance)), {"rho": float(distance)}
        if name == "Approximate<MaxDivergence>":
            eps, delta = (float(v) for v in distance)
            guarantee = PureDP(epsilon=eps) if delta == 0 else ApproxDP(epsilon=eps, delta=delta)
            return guarantee, {"epsilon": eps, "delta": delta}
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"OpenDP's privacy map returned {distance!r} in {name}, not a privacy loss"
        ) from None
    hint = (
        ": fix δ first, dp.c.make_fix_delta(measurement, delta)"
        if name == "SmoothedMaxDivergence"
        else ""
    )
    raise UnsupportedCombinationError(
        f"the OpenDP output measure {name} has no privaudit guarantee here (supported: "
        f"MaxDivergence, ZeroConcentratedDivergence, Approximate<MaxDivergence>){hint}"
    )


def opendp_measurement(noise: NoiseRecorder, measurement: Any, value: Any, *, d_in: Any) -> Any:
    """Release ``value`` through an OpenDP additive-noise measurement, recorded by ``noise``.

    Parameters
    ----------
    noise : NoiseRecorder
        The pipeline's recorder.
    measurement : opendp.mod.Measurement
        Built by one of :data:`OPENDP_CONSTRUCTORS` (``dp.m.make_laplace``,
        ``make_gaussian``, ``make_geometric``, ``make_noise``, ``make_canonical_noise``) on
        an atom or vector domain, alone or under a measure cast (``dp.c.make_fix_delta``,
        ``make_zCDP_to_approxDP``, ...).  Building it needs
        ``dp.enable_features("contrib")``, which the caller enables: this module never
        changes OpenDP's features.
    value : float, int or 1-D array
        The input of the measurement (a scalar for an atom domain, a vector for a vector one).
    d_in : the sensitivity of ``value``, in the measurement's input metric
        (``absolute_distance`` and ``l1_distance``: ℓ₁, ``l2_distance``: ℓ₂); replay checks
        it on every neighbour.

    Returns
    -------
    float, int or ndarray
        ``value`` plus the noise OpenDP drew on the recorded input (integers for an
        integer domain).

    Notes
    -----
    The guarantee is ``measurement.map(d_in)`` in the measurement's output measure:
    ``max_divergence`` → :class:`PureDP`, ``Approximate<MaxDivergence>`` →
    :class:`ApproxDP`, ``zero_concentrated_divergence`` → :class:`ZeroConcentratedDP`
    (kept as ρ-zCDP, not turned into μ = √(2ρ) GDP, which is exact only for continuous
    noise: OpenDP adds discrete Gaussian noise on a lattice of spacing 2^k, ρ-zCDP as
    stated but not exactly μ-GDP; Canonne, Kamath & Steinke, "The discrete Gaussian for
    differential privacy", NeurIPS 2020).  The recorded parameters are the map's output
    and the constructors' numeric arguments (``scale``, ``k``, ``bounds``, a canonical
    noise's ``d_in`` and ``d_out``): a scale computed from the data is a ``parameters``
    finding.  The noise is ``output − value`` in float64: exact for integers, within an
    ulp of OpenDP's release for floats.
    """
    kind, constructor = _opendp_core(measurement)
    metric = measurement.input_metric.type
    metric_name = str(getattr(metric, "origin", metric))
    if metric_name not in _OPENDP_NORMS:
        raise UnsupportedCombinationError(
            f"the OpenDP input metric {metric_name} has no recorder norm (supported: "
            f"{sorted(_OPENDP_NORMS)})"
        )
    carrier = str(measurement.input_carrier_type)
    vector = carrier.startswith("Vec<")
    element = carrier[4:-1] if vector else carrier
    if element not in _INTEGERS | {"f32", "f64"}:
        raise UnsupportedCombinationError(
            f"the OpenDP measurement takes {carrier}, not numbers or a vector of numbers"
        )
    integer = element in _INTEGERS
    what = f"opendp.{kind}"
    x = _numbers(value, what, integer=integer)
    size = getattr(measurement.input_domain, "size", None) if vector else None
    if x.ndim != (1 if vector else 0) or (size is not None and x.shape != (size,)):
        want = f"a vector of {size or 'any'} numbers" if vector else "a scalar"
        raise InputShapeError(f"{what} on {carrier} takes {want}, got shape {x.shape}")
    try:
        positive = math.isfinite(float(d_in)) and float(d_in) > 0
    except (TypeError, ValueError):
        positive = False
    if not positive:
        raise InvalidParameterError(f"{what}: d_in must be a positive number, got {d_in!r}")
    try:
        distance = measurement.map(d_in)
    except Exception as err:  # OpenDP's own refusal, e.g. a d_in of the wrong type
        raise InvalidParameterError(
            f"{what}: measurement.map(d_in={d_in!r}) failed: {err}"
        ) from None
    guarantee, stated = _opendp_guarantee(measurement.output_measure, distance)

    def draw() -> np.ndarray:
        cast = int if integer else float
        native = [cast(v) for v in x] if vector else cast(x.item())
        try:
            released = measurement(native)
        except Exception as err:
            raise InvalidInputError(f"{what} refused {value!r}: {err}") from None
        return np.asarray(released, dtype=np.float64) - x

    return _released(
        _through(
            noise,
            x,
            draw,
            _user_site(),
            kind=what,
            sensitivity=d_in,
            norm=_OPENDP_NORMS[metric_name],
            guarantee=guarantee,
            parameters={**constructor, **stated},
        ),
        integer,
    )


# -- diffprivlib -------------------------------------------------------------------------
def _laplace_scale(m: Any) -> float:
    return float(m.sensitivity / (m.epsilon - math.log(1.0 - m.delta)))


#: diffprivlib mechanisms whose ``randomise(v)`` is ``v`` plus noise independent of ``v``:
#: class name → (integer-valued, the parameters its noise is drawn with).
DIFFPRIVLIB_MECHANISMS: Mapping[str, tuple[bool, Callable[[Any], dict[str, float]]]] = {
    "Laplace": (False, lambda m: {"scale": _laplace_scale(m)}),
    "LaplaceBoundedNoise": (False, lambda m: {"scale": float(m.sensitivity / m.epsilon)}),
    "Staircase": (False, lambda m: {"gamma": float(m.gamma)}),
    "Gaussian": (False, lambda m: {"scale": float(m._scale)}),
    "GaussianAnalytic": (False, lambda m: {"scale": float(m._scale)}),
    "GaussianDiscrete": (True, lambda m: {"scale": float(m._scale)}),
    "Geometric": (True, lambda m: {"scale": float(-1.0 / m._scale)}),
}
_BOUNDED = "clamps, folds or resamples its output into [lower, upper], so output − value"
_DIFFPRIVLIB_REFUSED: Mapping[str, str] = {
    "LaplaceTruncated": _BOUNDED + " depends on the value",
    "LaplaceFolded": _BOUNDED + " depends on the value",
    "LaplaceBoundedDomain": _BOUNDED + " depends on the value",
    "GeometricTruncated": _BOUNDED + " depends on the value",
    "GeometricFolded": _BOUNDED + " depends on the value",
    "Snapping": "rounds and clamps its output, so output − value depends on the value",
    "Uniform": "its guarantee has ε = 0, which privaudit's guarantees do not take",
}


def _diffprivlib_kind(mechanism: Any) -> tuple[str, bool, Callable[[Any], dict[str, float]]]:
    """The mechanism's class name and its entry of :data:`DIFFPRIVLIB_MECHANISMS`."""
    cls = type(mechanism)
    name = cls.__name__
    if not cls.__module__.startswith("diffprivlib.mechanisms"):
        why = (
            "it is not one of diffprivlib's own mechanisms (a subclass may randomise "
            "otherwise than by adding noise)"
        )
    elif name in _DIFFPRIVLIB_REFUSED:
        why = _DIFFPRIVLIB_REFUSED[name]
    elif name not in DIFFPRIVLIB_MECHANISMS:
        why = "it does not add noise to a number (a selection, binary or vector mechanism)"
    else:
        integer, drawn_with = DIFFPRIVLIB_MECHANISMS[name]
        return name, integer, drawn_with
    raise UnsupportedCombinationError(
        f"diffprivlib_mechanism cannot replay {cls.__module__}.{name}: {why}; supported are "
        f"{sorted(DIFFPRIVLIB_MECHANISMS)}"
    )


def diffprivlib_mechanism(noise: NoiseRecorder, mechanism: Any, value: Any) -> Any:
    """Release ``value`` through a diffprivlib additive mechanism, recorded by ``noise``.

    Parameters
    ----------
    noise : NoiseRecorder
        The pipeline's recorder.
    mechanism : diffprivlib.mechanisms.DPMechanism
        An instance of one of :data:`DIFFPRIVLIB_MECHANISMS` (exactly that class).
    value : number or array
        Randomised coordinate by coordinate (``randomise`` takes scalars); whole numbers
        for ``Geometric`` and ``GaussianDiscrete``.

    Returns
    -------
    float, int or ndarray
        ``value`` plus the noise diffprivlib drew on the recorded input.

    Notes
    -----
    Each coordinate is one primitive call, as in diffprivlib, where one ``randomise`` is
    one release: its sensitivity is ``mechanism.sensitivity`` (the absolute change of that
    coordinate) and its guarantee ``PureDP(ε)`` when ``mechanism.delta`` is 0, else
    ``ApproxDP(ε, δ)``, diffprivlib's own claim (Holohan et al., "Diffprivlib: the IBM
    differential privacy library", 2019).  A vector is therefore accounted as the
    composition of its coordinates.  The recorded parameters are ε, δ and the scale the
    noise is drawn with (``Staircase``: γ), so that a mechanism calibrated on the data is
    a ``parameters`` finding.  Truncated, folded and bounded-domain mechanisms, and those
    that do not add noise to a number, are refused (``UnsupportedCombinationError``).
    """
    name, integer, drawn_with = _diffprivlib_kind(mechanism)
    what = f"diffprivlib.{name}"
    x = _numbers(value, what, integer=integer)
    try:
        eps, delta = float(mechanism.epsilon), float(mechanism.delta)
        parameters = {"epsilon": eps, "delta": delta, **drawn_with(mechanism)}
        sensitivity = float(mechanism.sensitivity)
    except (AttributeError, TypeError, ValueError, ZeroDivisionError) as err:
        raise InvalidParameterError(f"{what}: cannot read its parameters: {err}") from None
    guarantee = PureDP(epsilon=eps) if delta == 0 else ApproxDP(epsilon=eps, delta=delta)
    site = _user_site()
    out = np.empty(x.shape, dtype=np.float64)
    for index in np.ndindex(x.shape):
        v = float(x[index])

        def draw(v: float = v) -> np.ndarray:
            try:
                released = mechanism.randomise(int(v) if integer else v)
            except (TypeError, ValueError) as err:
                raise InvalidInputError(f"{what} refused {v!r}: {err}") from None
            return np.asarray(float(released) - v)

        out[index] = _through(
            noise,
            np.asarray(v),
            draw,
            site,
            kind=what,
            sensitivity=sensitivity,
            norm="l1",
            guarantee=guarantee,
            parameters=parameters,
        )
    return _released(float(out) if out.ndim == 0 else out, integer)
