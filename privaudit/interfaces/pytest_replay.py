"""The callable of the ``privacy_replay`` fixture (:class:`PrivacyReplay`): grey-box replay
of a pipeline from a test (``docs/replay.md``), failing the test on any finding with the
first finding's message, call site and pair.  The fixture lives in
:mod:`privaudit.interfaces.pytest_plugin` and imports this module on first use; nothing
heavy is imported here until a replay runs.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import pytest

if TYPE_CHECKING:  # pragma: no cover
    from privaudit.auditing.replay.result import ReplayReport
    from privaudit.auditing.replay.target import ReplayTarget

__all__ = ["PrivacyReplay", "replay_failure_message"]

_MAX_SHOWN = 160


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 1] + "…"


def replay_failure_message(name: str, report: ReplayReport, hint: str = "") -> str:
    """The message of a failed ``privacy_replay``: the statement, the first finding's call
    site, check, values and pair, the number of findings and ``hint`` (how to reproduce)."""
    first = report.first
    lines = [f"privacy replay of {name!r}: {report.statement}"]
    if first is not None:
        lines.append(f"  call site: {first.site or '(no single primitive call)'}")
        values = ""
        if first.declared is not None or first.measured is not None:
            declared, measured = (
                "?" if v is None else f"{v:.6g}" for v in (first.declared, first.measured)
            )
            values = f" (declared {declared}, measured {measured})"
        lines.append(f"  check: {first.check}{values}")
        lines.append(f"  x = {_short(first.x)}")
        lines.append(f"  y = {_short(first.y)} (neighbour made by: {first.move})")
        lines.append(f"  {len(report.findings)} finding(s) on {report.neighbours} neighbours")
    if hint:
        lines.append(f"  {hint}")
    return "\n".join(lines)


@dataclass(frozen=True)
class PrivacyReplay:
    """The callable that the ``privacy_replay`` fixture returns.

    Attributes
    ----------
    nodeid : str
        The node id of the requesting test.
    seed : int
        The seed of every replay of this test unless a call passes ``seed=``.
    seed_source : {"node id", "--privaudit-seed"}
    reports : list of ReplayReport
        The reports of this test's replays, in order.
    """

    nodeid: str
    seed: int
    seed_source: Literal["node id", "--privaudit-seed"] = "node id"
    reports: list[ReplayReport] = field(default_factory=list, repr=False, compare=False)

    def __call__(
        self,
        pipeline: Any,
        data: Any = None,
        *,
        domain: Any = None,
        relation: Any = None,
        neighbours: Iterable[Any] = (),
        random_neighbours: int | None = None,
        delta: float | None = None,
        seed: int | None = None,
        name: str = "",
    ) -> ReplayReport:
        """Replay ``pipeline`` on the neighbours of ``data``; fail the test on any finding.

        Parameters
        ----------
        pipeline : callable or ReplayTarget
            ``pipeline(data, noise)`` (then ``data``, ``domain`` and ``relation`` are
            needed), or a :class:`~privaudit.auditing.replay.target.ReplayTarget` (then
            they must not be given).
        data, domain, relation, neighbours, delta, name
            As :class:`~privaudit.auditing.replay.target.ReplayTarget` has them.
        random_neighbours : int, optional
            Random neighbours replayed (default: the target's, 16).
        seed : int, optional
            Replaces the test's seed.

        Returns
        -------
        ReplayReport
            When no check failed.

        Raises
        ------
        InvalidParameterError
            If the arguments name no pipeline to replay, or a target and its parts both.
        """
        __tracebackhide__ = True
        from privaudit.auditing.replay_audit import audit_primitive  # the auditor, on use

        target = self._target(pipeline, data, domain, relation, neighbours, delta, name)
        rng = self.seed if seed is None else seed
        report = target.run(rng, random_neighbours=random_neighbours, isolate=audit_primitive)
        self.reports.append(report)
        if report.violated:
            pytest.fail(replay_failure_message(target.name, report, self._hint(seed)))
        return report

    @staticmethod
    def _target(
        pipeline: Any,
        data: Any,
        domain: Any,
        relation: Any,
        neighbours: Iterable[Any],
        delta: float | None,
        name: str,
    ) -> ReplayTarget:
        from privaudit.auditing.replay.target import ReplayTarget
        from privaudit.spec.errors import InvalidParameterError

        parts, moves = (data, domain, relation, delta), tuple(neighbours)
        if isinstance(pipeline, ReplayTarget):
            if any(p is not None for p in parts) or moves or name:
                raise InvalidParameterError(
                    "privacy_replay takes a ReplayTarget alone, or a pipeline with its data, "
                    "domain= and relation=, not both"
                )
            return pipeline
        if data is None or domain is None or relation is None:
            raise InvalidParameterError(
                "privacy_replay needs a pipeline with its data, domain= and relation=, "
                "or a ReplayTarget"
            )
        return ReplayTarget(pipeline, data, domain, relation, moves, delta=delta, name=name)

    def _hint(self, seed: int | None) -> str:
        if seed is not None:
            return f"seed {seed} (fixed by the test's seed= keyword)"
        where = f" {shlex.quote(self.nodeid)}" if self.nodeid else ""
        origin = (
            "derived from the test's node id"
            if self.seed_source == "node id"
            else "set by --privaudit-seed"
        )
        command = f"pytest{where} --privaudit-seed {self.seed}"
        return f"seed {self.seed} ({origin}); reproduce with {command}"
