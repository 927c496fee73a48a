"""The noise a pipeline draws, recorded on one input and replayed on its neighbours
(:class:`NoiseRecorder`): the instrumentation of grey-box replay (Cebere, Erb,
Desfontaines, Bellet & Fitzsimons, "Privacy in Theory, Bugs in Practice: Grey-Box Auditing
of Differential Privacy Libraries", 2026).  A pipeline takes the recorder where it would
take a generator, adds noise only through its primitives and draws anything else from
:attr:`NoiseRecorder.rng`, which logs every draw.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from privaudit.spec import GaussianDP, PureDP, RandomLike, as_generator
from privaudit.spec.errors import InvalidParameterError, NonNumericInputError

__all__ = [
    "NORMS",
    "CountingGenerator",
    "NoiseRecorder",
    "PrimitiveCall",
    "ReplayDivergence",
    "norm_distance",
]

#: The norms a primitive's sensitivity may be declared in, and their order p.
NORMS: Mapping[str, float] = {"l1": 1.0, "l2": 2.0, "linf": math.inf}

Mode = Literal["record", "replay", "frozen"]
NoiseDraw = Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]


class ReplayDivergence(Exception):
    """Raised inside a replayed run at the first call that differs from the record (caught
    by :func:`~privaudit.auditing.replay.driver.replay`, never seen by the user)."""

    def __init__(
        self, check: Literal["control_flow", "parameters"], message: str, index: int, site: str
    ) -> None:
        super().__init__(message)
        self.check, self.index, self.site = check, index, site


@dataclass(frozen=True, eq=False)
class PrimitiveCall:
    """One call of a DP primitive: what was declared (kind, parameters, sensitivity, norm,
    guarantee, whether it is trusted), its input before noise (``value``), the noise drawn,
    the call site and the noise source (``draw``, kept for an untrusted primitive's audit)."""

    index: int
    kind: str
    parameters: tuple[tuple[str, float], ...]
    sensitivity: float
    norm: str
    guarantee: Any
    value: np.ndarray = field(repr=False)
    noise: np.ndarray = field(repr=False)
    site: str
    trusted: bool = True
    draw: NoiseDraw | None = field(default=None, repr=False)

    @property
    def declaration(self) -> tuple[Any, ...]:
        """What a replay must repeat exactly: kind, parameters, sensitivity, norm, shape."""
        return (self.kind, self.parameters, self.sensitivity, self.norm, self.value.shape)

    @property
    def output(self) -> np.ndarray:
        """The released value, ``value + noise``."""
        return self.value + self.noise


class CountingGenerator:
    """A :class:`numpy.random.Generator` that logs every draw as (method, shape of the
    result); the log of a run on a neighbour must equal the recorded one."""

    def __init__(self, generator: np.random.Generator) -> None:
        self._generator = generator
        self.log: list[tuple[str, tuple[int, ...]]] = []

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._generator, name)
        if not callable(attribute):
            return attribute

        def logged(*args: Any, **kwargs: Any) -> Any:
            result = attribute(*args, **kwargs)
            self.log.append((name, tuple(np.shape(result))))
            return result

        return logged


def _call_site() -> str:
    """``file:line`` of the first frame outside the replay package (the pipeline's call,
    also through an adapter of :mod:`~privaudit.auditing.replay.adapters`)."""
    frame = sys._getframe(1)
    while frame is not None and str(frame.f_globals.get("__name__", "")).startswith(
        "privaudit.auditing.replay."
    ):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:  # pragma: no cover - always called from a pipeline
        return "<unknown>"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _positive(value: Any, name: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be a positive number, got {value!r}") from None
    if not (math.isfinite(x) and x > 0.0):
        raise InvalidParameterError(f"{name} must be a positive finite number, got {value!r}")
    return x


class NoiseRecorder:
    """The noise source of a pipeline under grey-box replay.

    Parameters
    ----------
    rng : Generator, int or None
        Source of the primitives' noise and of :attr:`rng` (spawned apart).

    Notes
    -----
    Record a run with ``NoiseRecorder(seed)``; :func:`~privaudit.auditing.replay.driver.
    replay` replays it on the neighbours with every primitive's noise frozen to the record.
    """

    def __init__(self, rng: RandomLike = None) -> None:
        noise_seed, free_seed = np.random.SeedSequence(
            int(as_generator(rng).integers(2**63))
        ).spawn(2)
        self._noise = np.random.default_rng(noise_seed)
        self._free_seed = free_seed
        self.rng = CountingGenerator(np.random.default_rng(free_seed))
        self.calls: list[PrimitiveCall] = []
        self._mode: Mode = "record"
        self._tape: tuple[PrimitiveCall, ...] = ()

    def replaying(self, mode: Mode) -> NoiseRecorder:
        """A recorder that replays this one's calls: ``"replay"`` returns the new input plus
        the recorded noise, ``"frozen"`` the recorded output itself."""
        other = NoiseRecorder.__new__(NoiseRecorder)
        other._noise = np.random.default_rng(0)  # never drawn from
        other._free_seed = self._free_seed
        other.rng = CountingGenerator(np.random.default_rng(self._free_seed))
        other.calls = []
        other._mode = mode
        other._tape = tuple(self.calls)
        return other

    # -- the primitives ----------------------------------------------------------------
    def laplace(self, value: Any, *, sensitivity: float, epsilon: float) -> Any:
        """``value`` plus Laplace noise of scale Δ₁/ε per coordinate: ε-DP when the ℓ₁
        distance of ``value`` between neighbours is at most Δ₁ (Dwork et al., TCC 2006)."""
        d, eps = _positive(sensitivity, "sensitivity"), _positive(epsilon, "epsilon")
        scale = d / eps
        return self.primitive(
            value,
            kind="laplace",
            sensitivity=d,
            norm="l1",
            guarantee=PureDP(epsilon=eps),
            noise=lambda g, shape: g.laplace(0.0, scale, shape),
            parameters={"epsilon": eps, "scale": scale},
        )

    def gaussian(self, value: Any, *, sensitivity: float, sigma: float) -> Any:
        """``value`` plus N(0, σ²) per coordinate: μ-GDP with μ = Δ₂/σ when the ℓ₂ distance
        of ``value`` between neighbours is at most Δ₂ (Dong, Roth & Su, JRSS-B 2022)."""
        d, s = _positive(sensitivity, "sensitivity"), _positive(sigma, "sigma")
        return self.primitive(
            value,
            kind="gaussian",
            sensitivity=d,
            norm="l2",
            guarantee=GaussianDP(mu=d / s),
            noise=lambda g, shape: g.normal(0.0, s, shape),
            parameters={"sigma": s},
        )

    def primitive(
        self,
        value: Any,
        *,
        kind: str,
        sensitivity: float,
        norm: str,
        guarantee: Any,
        noise: NoiseDraw,
        parameters: Mapping[str, float] | None = None,
        trusted: bool = True,
    ) -> Any:
        """Any additive primitive: ``value + noise(generator, shape)`` with its declared
        sensitivity in ``norm`` ("l1", "l2" or "linf") and the guarantee that this
        sensitivity buys.  Returns a float for a scalar ``value``, else an array.

        ``trusted=False`` marks a primitive whose guarantee is not taken on faith: replay
        audits its noise statistically in isolation (``docs/replay.md``)."""
        if not isinstance(trusted, bool):
            raise InvalidParameterError(f"trusted must be True or False, got {trusted!r}")
        if norm not in NORMS:
            raise InvalidParameterError(f"norm must be one of {sorted(NORMS)}, got {norm!r}")
        d = _positive(sensitivity, "sensitivity")
        try:
            x = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise NonNumericInputError(
                f"primitive {kind!r} received a non-numeric value {value!r}"
            ) from None
        params = tuple(sorted((str(k), float(v)) for k, v in (parameters or {}).items()))
        site = _call_site()
        index = len(self.calls)
        if self._mode == "record":
            drawn = np.asarray(noise(self._noise, x.shape), dtype=np.float64).reshape(x.shape)
        else:
            drawn = self._replayed_noise(index, (kind, params, d, norm, x.shape), site)
        call = PrimitiveCall(
            index,
            kind,
            params,
            d,
            norm,
            guarantee,
            x,
            drawn,
            site,
            trusted,
            None if trusted else noise,
        )
        self.calls.append(call)
        out = self._tape[index].output if self._mode == "frozen" else x + drawn
        return float(out) if out.ndim == 0 else out

    def _replayed_noise(self, index: int, declaration: tuple[Any, ...], site: str) -> np.ndarray:
        if index >= len(self._tape):
            raise ReplayDivergence(
                "control_flow",
                f"primitive call {index} ({declaration[0]}) at {site} was not made on the "
                f"recorded input, which made {len(self._tape)} calls",
                index,
                site,
            )
        recorded = self._tape[index]
        if declaration != recorded.declaration:
            names = ("kind", "parameters", "sensitivity", "norm", "shape")
            differs = [
                f"{name} {old!r} → {new!r}"
                for name, old, new in zip(names, recorded.declaration, declaration, strict=True)
                if old != new
            ]
            check: Literal["control_flow", "parameters"] = (
                "control_flow" if declaration[0] != recorded.kind else "parameters"
            )
            raise ReplayDivergence(
                check,
                f"primitive call {index} at {site} differs from the recorded call at "
                f"{recorded.site}: {'; '.join(differs)}",
                index,
                site,
            )
        return recorded.noise


def norm_distance(a: np.ndarray, b: np.ndarray, norm: str) -> float:
    """‖a − b‖ in ``norm`` (NaN when either side is not finite)."""
    with np.errstate(invalid="ignore", over="ignore"):  # ∞ − ∞: NaN, reported as such
        diff = np.ravel(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))
    if not np.all(np.isfinite(diff)):
        return math.nan
    if diff.size == 0:
        return 0.0
    return float(np.linalg.norm(diff, ord=NORMS[norm]))
