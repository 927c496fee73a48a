"""A replay pipeline as a mechanism (:class:`PipelineMechanism`), so that the statistical
auditor can audit the very code that grey-box replay checks, against the claim its library
made (a :class:`~privaudit.spec.MechanismSpec`).  Each release runs the pipeline once, with
fresh noise from a :class:`~privaudit.auditing.replay.recorder.NoiseRecorder` seeded by the
audit; not for speed-critical mechanisms (one Python call per output).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from privaudit.auditing.replay.recorder import NoiseRecorder
from privaudit.mechanisms import Mechanism
from privaudit.spec import MechanismSpec
from privaudit.spec.errors import AuditError, InvalidParameterError

__all__ = ["PipelineMechanism", "flatten_release"]

Pipeline = Callable[[Any, NoiseRecorder], Any]


def flatten_release(release: Any) -> np.ndarray:
    """One release as a float64 vector: a scalar, an array (raveled) or a tuple or list of
    them (concatenated in order).

    Raises
    ------
    AuditError
        If the release holds anything else (a mapping, a string, an object).
    """
    parts = release if isinstance(release, (tuple, list)) else (release,)
    try:
        pieces = [np.ravel(np.asarray(part, dtype=np.float64)) for part in parts]
    except (TypeError, ValueError):
        raise AuditError(
            f"a pipeline release must be numbers, arrays or a tuple of them, got {release!r}"
        ) from None
    return np.concatenate(pieces) if pieces else np.zeros(0)


class PipelineMechanism(Mechanism):
    """``pipeline(data, noise)`` run once per output, as a :class:`~privaudit.mechanisms.
    Mechanism` with the spec its library claims.

    Parameters
    ----------
    pipeline : callable
        ``pipeline(data, noise)`` as for :func:`~privaudit.auditing.replay.driver.replay`.
    spec : MechanismSpec
        The claim audited; its ``input_domain`` validates every input and its
        ``output_dimension`` is the length of each flattened release.
    statistic : callable, optional
        The exact value the pipeline privatises, exposed as the gray-box ``statistic`` hook
        (the floating-point image check needs it); none by default (a black box).
    expose_pipeline : bool
        Whether to expose the gray-box ``pipeline`` hook, so that :func:`~privaudit.audit`
        also replays the pipeline; default False: the audit is statistical only.

    Notes
    -----
    One call of :meth:`sample` runs the pipeline ``size`` times with one
    :class:`NoiseRecorder` seeded from the audit's generator: in record mode every run
    draws fresh noise from the recorder's streams, so the outputs are independent, a
    seeded sample is reproducible and no global random state is touched (a recorder per
    output would cost more than most pipelines).  Each release is flattened by
    :func:`flatten_release`; the outputs stack to ``(size,)`` when ``output_dimension`` is
    1, else ``(size, d)``.
    """

    def __init__(
        self,
        pipeline: Pipeline,
        spec: MechanismSpec,
        *,
        statistic: Callable[[Any], Any] | None = None,
        expose_pipeline: bool = False,
    ) -> None:
        if not callable(pipeline):
            raise InvalidParameterError(f"pipeline must be callable, got {pipeline!r}")
        if statistic is not None and not callable(statistic):
            raise InvalidParameterError(f"statistic must be callable or None, got {statistic!r}")
        super().__init__(spec)
        self.function = pipeline
        self._statistic = statistic
        self._expose = bool(expose_pipeline)

    def provides(self, hook: str) -> bool:
        """Whether ``hook`` is provided: ``statistic`` when one was given, ``pipeline`` when
        exposed, no other."""
        super().provides(hook)  # validates the name
        if hook == "pipeline":
            return self._expose
        return hook == "statistic" and self._statistic is not None

    def pipeline(self, data: Any, noise: Any) -> Any:
        """One release of the wrapped pipeline with the noise source ``noise``."""
        return self.function(data, noise)

    def statistic(self, data: Any) -> Any:
        """The exact value privatised (only when a ``statistic`` was given)."""
        if self._statistic is None:
            return super().statistic(data)
        return self._statistic(self.validate_input(data))

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        d = self.spec.output_dimension
        noise = NoiseRecorder(rng)
        out = np.empty((size, d), dtype=np.float64)
        for k in range(size):
            row = flatten_release(self.function(data, noise))
            if row.shape != (d,):
                raise AuditError(
                    f"{self.name!r}: a release has {row.size} numbers, the spec's "
                    f"output_dimension is {d}"
                )
            out[k] = row
            noise.calls.clear()  # a record is kept for replay only: drop it
            noise.rng.log.clear()
        return out[:, 0] if d == 1 else out
