"""Audit a mechanism you did not write: batch a scalar release into the sampling protocol.

Most differential-privacy libraries release one value per call (``meas(x)`` in OpenDP,
``mech.randomise(x)`` in diffprivlib, …) and many draw from their own random source.
The auditor needs ``sample(x, size, rng)``: ``size`` outputs in one call from an
injected generator.  :func:`from_scalar_sampler` wraps such a release:

>>> import numpy as np
>>> from privaudit.spec import (AdditiveNoise, GlobalSensitivity, Laplace, MechanismSpec, PureDP,
...                   QueryDistance, RealInterval)
>>> spec = MechanismSpec(
...     name="library_laplace", input_domain=RealInterval(lo=-10.0, hi=10.0),
...     relation=QueryDistance(norm="l1", radius=1.0), statistic="the value itself",
...     sensitivity=(GlobalSensitivity(value=1.0),),
...     noise=AdditiveNoise(law=Laplace(scale=1.0)), guarantee=PureDP(epsilon=1.0))
>>> mech = from_scalar_sampler(spec, lambda x, rng: x + rng.laplace(0.0, 1.0),
...                            statistic=float)
>>> mech.sample(0.5, size=3, rng=0).shape
(3,)

What the wrapper records and costs:

* **Provenance.**  ``library="opendp"`` records the wrapped distribution's name and
  installed version (:func:`importlib.metadata.version`) in
  :attr:`ScalarSamplerMechanism.wrapped_distributions`; a certificate records them with
  the other third-party code it ran (``third_party``, never hashed): another installed
  version is reported ("certified with opendp A, running B") and ``verify`` compares by
  its tolerance rule; it never makes the certificate stale (issue 25,
  :mod:`privaudit.trust.provenance`).
* **Randomness.**  ``release(x, rng)`` receives the audit's generator.  A library that
  draws from its own source ignores it; the audit is then not reproducible from its
  seed.  ``certify`` detects this
  (:func:`privaudit.trust.reproducibility.check_generator_determinism`: same seed twice,
  different outputs), records ``reproducible = False`` and ``verify`` compares the re-run
  by its verdict instead of bit for bit.
* **Cost.**  One Python call per output: the wrapper's own overhead is about a
  microsecond per sample, and the library's call is the rest (4–80 µs per draw for the
  libraries measured in issue 28; OpenDP's float Laplace took 440 µs on a loaded
  machine).  An audit at :data:`privaudit.CI_STRENGTH` draws a few 10⁵ outputs, one at
  :data:`privaudit.CERTIFICATE_STRENGTH` about 10⁷: at 50 µs per call that is seconds
  and minutes of sampling alone, against milliseconds for a vectorised sampler.
  :meth:`ScalarSamplerMechanism.cost_per_sample` measures it for your library.
* **Floats.**  ``float_image=`` supplies a model of the library's floating-point
  outputs (:meth:`mechanisms.Mechanism.float_image`) so that the floating-point check
  can look for Mironov's attack on it; without one the check says why it cannot run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import numpy as np

from privaudit.spec import MechanismSpec, RandomLike, as_generator
from privaudit.spec.errors import InvalidParameterError

from ._base import Mechanism, check_sample_size

__all__ = ["SamplerCost", "ScalarSamplerMechanism", "from_scalar_sampler", "installed_versions"]

ScalarRelease = Callable[[Any, np.random.Generator], Any]


def installed_versions(libraries: str | Sequence[str] | None) -> dict[str, str]:
    """``{distribution: version}`` of installed distributions (importlib.metadata).

    Raises
    ------
    InvalidParameterError
        If a named distribution is not installed.

    Examples
    --------
    >>> sorted(installed_versions("numpy"))
    ['numpy']
    """
    if libraries is None:
        return {}
    names = (libraries,) if isinstance(libraries, str) else tuple(libraries)
    found: dict[str, str] = {}
    for name in names:
        if not isinstance(name, str) or not name:
            raise InvalidParameterError(f"library must be a distribution name, got {name!r}")
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            raise InvalidParameterError(
                f"library {name!r} is not an installed distribution (importlib.metadata "
                f"finds no version of it)"
            ) from None
    return found


@dataclass(frozen=True)
class SamplerCost:
    """Measured cost of one output of a scalar sampler.

    Attributes
    ----------
    seconds_per_sample : float
        Wall time per output (one ``release`` call plus the wrapper's overhead).
    calls : int
        Number of calls timed.
    """

    seconds_per_sample: float
    calls: int

    def seconds_for(self, samples: int) -> float:
        """Estimated sampling time of ``samples`` outputs."""
        return self.seconds_per_sample * samples

    def __str__(self) -> str:
        return (
            f"{self.seconds_per_sample * 1e6:.3g} µs per sample ({self.calls} calls "
            f"timed; 10⁶ samples ≈ {self.seconds_for(1_000_000):.3g} s)"
        )


class ScalarSamplerMechanism(Mechanism):
    """A mechanism whose release returns one output per call (see :func:`from_scalar_sampler`).

    ``sample(x, size, rng)`` calls ``release(x, rng)`` ``size`` times and stacks the
    results (shape ``(size,)`` for scalars, ``(size, d)`` for vectors).
    """

    def __init__(
        self,
        spec: MechanismSpec,
        release: ScalarRelease,
        *,
        statistic: Callable[[Any], Any] | None = None,
        float_image: Callable[[Any, float], Any] | None = None,
        library: str | Sequence[str] | None = None,
    ) -> None:
        super().__init__(spec)
        for name, fn in (
            ("release", release),
            ("statistic", statistic),
            ("float_image", float_image),
        ):
            if fn is not None and not callable(fn):
                raise InvalidParameterError(f"{name} must be callable, got {fn!r}")
        if release is None:
            raise InvalidParameterError("release must be callable, got None")
        self._release = release
        self._statistic = statistic
        self._float_image = float_image
        self._distributions = installed_versions(library)

    @property
    def wrapped_distributions(self) -> Mapping[str, str]:
        """``{distribution: version}`` of the wrapped libraries (recorded in certificates)."""
        return dict(self._distributions)

    def provides(self, hook: str) -> bool:
        super().provides(hook)  # validates the name
        return {"statistic": self._statistic, "float_image": self._float_image}.get(
            hook
        ) is not None

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        release = self._release
        first = np.asarray(release(data, rng))
        if first.ndim == 0:
            out = np.empty(size, dtype=np.float64 if first.dtype.kind == "f" else first.dtype)
            out[0] = first
            for i in range(1, size):  # one call per output: the library releases scalars
                out[i] = release(data, rng)
            return out
        rows = np.empty((size, *first.shape), dtype=first.dtype)
        rows[0] = first
        for i in range(1, size):
            rows[i] = np.asarray(release(data, rng))
        return rows

    def statistic(self, data: Any) -> Any:
        if self._statistic is None:
            return super().statistic(data)
        return self._statistic(self.validate_input(data))

    def float_image(self, outputs: Any, centre: float) -> np.ndarray:
        if self._float_image is None:
            return super().float_image(outputs, centre)
        possible = np.asarray(self._float_image(outputs, centre), dtype=bool)
        if possible.shape != np.shape(outputs):
            raise InvalidParameterError(
                f"float_image must return one boolean per output, shape {np.shape(outputs)}, "
                f"got shape {possible.shape}"
            )
        return possible

    def cost_per_sample(self, data: Any, *, calls: int = 1_000, rng: RandomLike = 0) -> SamplerCost:
        """Time ``calls`` releases on ``data`` through :meth:`sample`.

        A measurement, not a guarantee: it depends on the machine and its load.
        """
        n = check_sample_size(calls)
        gen = as_generator(rng)
        start = time.perf_counter()
        self.sample(data, n, gen)
        return SamplerCost(seconds_per_sample=(time.perf_counter() - start) / n, calls=n)


def from_scalar_sampler(
    spec: MechanismSpec,
    release: ScalarRelease,
    *,
    statistic: Callable[[Any], Any] | None = None,
    float_image: Callable[[Any, float], Any] | None = None,
    library: str | Sequence[str] | None = None,
) -> ScalarSamplerMechanism:
    """Wrap a release of one output per call as a batched, auditable mechanism.

    Parameters
    ----------
    spec : MechanismSpec
        Every claim the wrapped mechanism makes (the auditor tests these claims).
    release : callable (x, rng) -> output
        One release on the validated input ``x``.  ``rng`` is the audit's
        :class:`numpy.random.Generator`; draw from it when the library can take it, so
        that the audit is reproducible from its seed.  A release that draws from its own
        source may ignore it: ``certify`` detects that and certifies with a tolerance rule.
    statistic : callable, optional
        The exact value f(x) that the release privatises (gray-box hook of the
        sensitivity and floating-point checks).
    float_image : callable (outputs, centre) -> bool array, optional
        The library's float image: True where it can output each float when f(x) =
        ``centre`` (:meth:`mechanisms.Mechanism.float_image`).
    library : str or sequence of str, optional
        Distribution names of the wrapped libraries (e.g. ``"opendp"``); their installed
        versions are recorded.

    Returns
    -------
    ScalarSamplerMechanism

    Raises
    ------
    InvalidParameterError
        If a function is not callable or a library is not installed.
    """
    return ScalarSamplerMechanism(
        spec, release, statistic=statistic, float_image=float_image, library=library
    )
