"""What a replay audit runs on, as one object (:class:`ReplayTarget`): a pipeline, its
recorded input, the domain and relation its neighbours come from and the replay's options.
The command line (``privaudit replay``) and the ``privacy_replay`` fixture load and run it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from privaudit.auditing.config import AuditConfig
from privaudit.auditing.replay.driver import Isolate, replay
from privaudit.auditing.replay.recorder import NoiseRecorder
from privaudit.auditing.replay.result import ReplayReport
from privaudit.spec import RandomLike
from privaudit.spec.errors import InvalidParameterError

__all__ = ["ReplayTarget"]


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidParameterError(f"random_neighbours must be an integer >= 0, got {value!r}")
    return value


@dataclass(frozen=True, eq=False)
class ReplayTarget:
    """A pipeline to replay, with its input and the options of
    :func:`~privaudit.auditing.replay.driver.replay`.

    Attributes
    ----------
    pipeline : callable
        ``pipeline(data, noise)`` (``docs/replay.md``).
    data : the recorded input.
    domain, relation : the input domain and the neighbouring relation (spec objects).
    neighbours : tuple
        Neighbours of ``data`` replayed first.
    random_neighbours : int
        Random neighbours replayed after the relation's extreme moves.
    extreme_neighbours : int, optional
        How many of the relation's extreme moves to replay (all by default).
    isolation_config : AuditConfig, optional
        The isolation audits of untrusted primitives (``docs/replay.md``).
    delta : float, optional
        The δ of the composed claim (:func:`~privaudit.auditing.replay.driver.replay`).
    name : str
        What reports and messages call it (default: the pipeline's qualified name).

    Raises
    ------
    InvalidParameterError
        If ``pipeline`` is not callable, ``random_neighbours`` is not an integer ≥ 0 or
        ``name`` is not a string.
    """

    pipeline: Callable[[Any, NoiseRecorder], Any]
    data: Any
    domain: Any
    relation: Any
    neighbours: tuple[Any, ...] = ()
    random_neighbours: int = 16
    extreme_neighbours: int | None = None
    isolation_config: AuditConfig | None = None
    delta: float | None = None
    name: str = field(default="")

    def __post_init__(self) -> None:
        if not callable(self.pipeline):
            raise InvalidParameterError(
                f"pipeline must be a callable pipeline(data, noise), got {self.pipeline!r}"
            )
        if not isinstance(self.name, str):
            raise InvalidParameterError(f"name must be a string, got {self.name!r}")
        object.__setattr__(self, "neighbours", tuple(self.neighbours))
        object.__setattr__(self, "random_neighbours", _count(self.random_neighbours))
        if not self.name:
            label = getattr(self.pipeline, "__qualname__", None) or repr(self.pipeline)
            object.__setattr__(self, "name", str(label))

    def run(
        self,
        rng: RandomLike = 0,
        *,
        random_neighbours: int | None = None,
        isolate: Isolate | None = None,
    ) -> ReplayReport:
        """Replay the pipeline on the neighbours of ``data``.

        Parameters
        ----------
        rng : Generator, int or None
            Source of the recorded noise and of the random neighbours.
        random_neighbours : int, optional
            Replaces the target's own number of random neighbours.
        isolate : callable, optional
            The isolation audit of untrusted primitives (the command line and the fixture
            pass :func:`~privaudit.auditing.replay_audit.audit_primitive`).

        Returns
        -------
        ReplayReport
        """
        count = self.random_neighbours if random_neighbours is None else _count(random_neighbours)
        return replay(
            self.pipeline,
            self.data,
            domain=self.domain,
            relation=self.relation,
            neighbours=self.neighbours,
            extreme_neighbours=self.extreme_neighbours,
            random_neighbours=count,
            delta=self.delta,
            isolation_config=self.isolation_config,
            isolate=isolate,
            rng=rng,
        )
