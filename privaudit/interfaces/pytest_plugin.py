"""The privaudit pytest plugin: audit a mechanism's privacy claims from a test.

Registered through the ``pytest11`` entry point.  The fixture ``privacy_audit`` runs
:func:`privaudit.audit` at :data:`privaudit.CI_STRENGTH` with a seed derived from the test's
node id: ``privacy_audit(noisy_mean).assert_no_violation()``.  A violation found by
statistical checks only is confirmed by an independent second audit
(:mod:`privaudit.auditing.confirmation`); the ``--privaudit-*`` options and ini keys set
samples, seed, confidence, time budget, session α and executor.  The fixture ``privacy_replay``
replays a pipeline (``docs/replay.md``); tests that use either get the marker ``privacy``.
Nothing heavy is imported when pytest starts.

A passing ``assert_no_violation`` means no violation was found, not that the mechanism is
private.  Details (every option): ``docs/engine_notes.md``,
"privaudit.interfaces.pytest_plugin".
"""

from __future__ import annotations

import argparse
import hashlib
import math
import shlex
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import pytest

from privaudit.interfaces.argument_types import confidence as _confidence
from privaudit.interfaces.argument_types import nonnegative_int as _seed
from privaudit.interfaces.argument_types import positive_float as _positive_float
from privaudit.interfaces.argument_types import positive_int as _positive_int

if TYPE_CHECKING:  # pragma: no cover
    from privaudit.auditing.config import AuditConfig
    from privaudit.auditing.confirmation import ConfirmationPolicy, TwoStageAudit
    from privaudit.auditing.outcome.report import AuditReport
    from privaudit.interfaces.pytest_replay import PrivacyReplay

__all__ = [
    "AuditOutcome",
    "PrivacyAudit",
    "SeedSource",
    "privacy_audit",
    "privacy_replay",
    "privaudit_executor",
    "pytest_addoption",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "seed_for_nodeid",
]

#: Where the seed of an audit came from.
SeedSource = Literal["node id", "--privaudit-seed", "test"]

_MARKER = (
    "privacy: the test runs a privacy audit with the privacy_audit or privacy_replay "
    "fixture (added automatically to every test that uses either)"
)
_SEED_BITS = 32
_MAX_SHOWN = 160


# -- options ---------------------------------------------------------------------------------
def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ``--privaudit-*`` options and the ``privaudit_samples`` ini option."""
    from privaudit.execution.options import EXECUTOR_NAMES  # the plugin's import stays small

    group = parser.getgroup("privaudit", "privacy audits (privaudit)")
    group.addoption(
        "--privaudit-samples",
        type=_positive_int,
        default=None,
        metavar="N",
        help="outputs per side of each tested pair in privacy_audit "
        "(default: ini privaudit_samples, else CI_STRENGTH)",
    )
    group.addoption(
        "--privaudit-seed",
        type=_seed,
        default=None,
        metavar="S",
        help="seed every privacy_audit and privacy_replay with S instead of the seed derived "
        "from the test's node id (reproduces a reported failure)",
    )
    group.addoption(
        "--privaudit-confidence",
        type=_confidence,
        default=None,
        metavar="C",
        help="family-wise confidence of each privacy_audit, in [0.5, 1)",
    )
    group.addoption(
        "--privaudit-time-budget",
        type=_positive_float,
        default=None,
        metavar="SECONDS",
        dest="privaudit_time_budget",
        help="seconds each privacy_audit may take (default: ini "
        "privaudit_time_budget, else no budget): the audit is planned "
        "to fit and says what the budget can and cannot detect",
    )
    group.addoption(
        "--privaudit-sequential",
        action="store_true",
        default=None,
        dest="privaudit_sequential",
        help="run each privacy_audit sequentially (default: ini privaudit_sequential, "
        "else off): looks at growing sizes with the error budget spent over them, "
        "stopping at the first that refutes the claim (docs/sequential_audits.md)",
    )
    group.addoption(
        "--privaudit-executor",
        choices=EXECUTOR_NAMES,
        default="serial",
        help="where the audits' test splits are drawn and counted: in the test "
        "process (default), on one thread per core of it, the pair tests in forked "
        "processes (Linux), or on dask.distributed workers (the extra "
        "privaudit[distributed]); same results",
    )
    group.addoption(
        "--privaudit-scheduler",
        default=None,
        metavar="ADDRESS",
        help="with --privaudit-executor dask: address of a running Dask "
        "scheduler (default: a local cluster for the session)",
    )
    group.addoption(
        "--privaudit-workers",
        type=_positive_int,
        default=None,
        metavar="N",
        help="with --privaudit-executor threads or processes: threads or processes "
        "(default: one per core); "
        "with --privaudit-executor dask and no scheduler: worker processes of the "
        "local cluster",
    )
    group.addoption(
        "--privaudit-session-alpha",
        type=_open_unit,
        default=None,
        metavar="A",
        help="probability that a session of correct mechanisms fails at all "
        "(default: ini privaudit_session_alpha, else 0.01); sets the level "
        "A/m of the confirmation stage",
    )
    group.addoption(
        "--privaudit-suite-size",
        type=_positive_int,
        default=None,
        metavar="M",
        help="audits the session bound covers (default: ini "
        "privaudit_suite_size, else 50; at least the collected audits)",
    )
    group.addoption(
        "--privaudit-confirm-factor",
        type=_positive_int,
        default=None,
        metavar="K",
        help="the confirmation stage draws K times the screen's samples (default 4)",
    )
    group.addoption(
        "--privaudit-no-confirm",
        action="store_true",
        default=False,
        help="no confirmation stage: a violation of the CI-strength audit fails "
        "the test at once (per-test false-alarm control only)",
    )
    parser.addini(
        "privaudit_samples",
        default=None,
        help="default outputs per side of each tested pair in privacy_audit",
    )
    parser.addini(
        "privaudit_time_budget",
        default=None,
        help="default seconds each privacy_audit may take (no budget)",
    )
    parser.addini(
        "privaudit_sequential",
        type="bool",
        default=False,
        help="run each privacy_audit sequentially (false)",
    )
    parser.addini(
        "privaudit_session_alpha",
        default=None,
        help="probability that a session of correct mechanisms fails (0.01)",
    )
    parser.addini(
        "privaudit_suite_size",
        default=None,
        help="audits the session's false-alarm bound covers (50)",
    )


def _open_unit(text: str) -> float:
    """A number in (0, 1) (the session's false-alarm probability)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}")
    return value


def _ini_value(config: pytest.Config, name: str, parse: Any) -> Any:
    raw = config.getini(name)
    if raw is None or str(raw).strip() == "":
        return None
    try:
        return parse(str(raw).strip())
    except argparse.ArgumentTypeError as exc:
        raise pytest.UsageError(f"ini option {name}: {exc}") from None


def _ini_samples(config: pytest.Config) -> int | None:
    return _ini_value(config, "privaudit_samples", _positive_int)


def _time_budget(config: pytest.Config) -> float | None:
    """``--privaudit-time-budget``, else the ini option, else None."""
    value = config.getoption("privaudit_time_budget")
    if value is None:
        value = _ini_value(config, "privaudit_time_budget", _positive_float)
    return value


def _sequential(config: pytest.Config) -> bool:
    """``--privaudit-sequential``, else the ini option ``privaudit_sequential``."""
    if config.getoption("privaudit_sequential"):
        return True
    return bool(config.getini("privaudit_sequential"))


def _confirmation_settings(config: pytest.Config) -> dict[str, Any]:
    """Session α, suite size, sample factor and switch (command line, ini, defaults)."""
    alpha = config.getoption("privaudit_session_alpha")
    if alpha is None:
        alpha = _ini_value(config, "privaudit_session_alpha", _open_unit)
    size = config.getoption("privaudit_suite_size")
    if size is None:
        size = _ini_value(config, "privaudit_suite_size", _positive_int)
    collected = int(getattr(config, "_privaudit_collected_audits", 0))
    factor = config.getoption("privaudit_confirm_factor")
    return {
        "session_alpha": 0.01 if alpha is None else alpha,
        "suite_size": max(50 if size is None else size, collected),
        "sample_factor": 4 if factor is None else factor,
        "enabled": not config.getoption("privaudit_no_confirm"),
    }


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``privacy`` marker and validate the ini and executor options."""
    from privaudit.execution.options import executor_flags_problem

    config.addinivalue_line("markers", _MARKER)
    _ini_samples(config)
    _time_budget(config)
    _confirmation_settings(config)
    problem = executor_flags_problem(
        config.getoption("privaudit_executor"),
        config.getoption("privaudit_scheduler"),
        config.getoption("privaudit_workers"),
        prefix="privaudit-",
    )
    if problem is not None:
        raise pytest.UsageError(problem)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that uses ``privacy_audit`` or ``privacy_replay`` with ``privacy``;
    count those that audit.

    The count bounds the session's number of audits from below (the suite size of the
    confirmation stage is at least this count; a replay is deterministic, not counted).
    """
    audits = 0
    for item in items:
        names = getattr(item, "fixturenames", ())
        if "privacy_audit" in names or "privacy_replay" in names:
            item.add_marker(pytest.mark.privacy)
        if "privacy_audit" in names:
            audits += 1
    # pytest's Config declares no attribute for a plugin's state; read back with getattr
    config._privaudit_collected_audits = audits  # type: ignore[attr-defined]  # see above


# -- seeds -----------------------------------------------------------------------------------
def seed_for_nodeid(nodeid: str) -> int:
    """The audit seed of a test: the first 32 bits of the SHA-256 of its node id.

    Parameters
    ----------
    nodeid : str
        The pytest node id, e.g. ``"tests/test_dp.py::test_mean[eps=1]"``.

    Returns
    -------
    int
        A seed in ``[0, 2**32)``, the same on every run, machine and Python version.
    """
    digest = hashlib.sha256(nodeid.encode("utf-8")).digest()
    return int.from_bytes(digest[: _SEED_BITS // 8], "big")


# -- the outcome -----------------------------------------------------------------------------
def _short(value: Any, limit: int = _MAX_SHOWN) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _eps(value: float) -> str:
    return "inf" if math.isinf(value) else f"{value:.4g}"


@dataclass(frozen=True)
class AuditOutcome:
    """The result of one ``privacy_audit(...)`` call.

    Attributes
    ----------
    report : AuditReport
        The report whose verdict stands: the confirmation's when a statistical violation
        of the screen was re-tested, else the screen's (:mod:`privaudit.auditing.confirmation`).
    seed : int
        The seed the audit (its screen) ran with.
    seed_source : {"node id", "--privaudit-seed", "test"}
        Where the seed came from: derived from the node id, the command line, or a
        ``seed=`` keyword in the test itself.
    nodeid : str
        The node id of the test that ran the audit.
    stages : TwoStageAudit or None
        Both stages (screen and confirmation); ``None`` for an outcome built by hand.
    """

    report: AuditReport
    seed: int
    seed_source: SeedSource = "node id"
    nodeid: str = ""
    stages: TwoStageAudit | None = None

    @property
    def screening(self) -> AuditReport:
        """The CI-strength audit (stage 1)."""
        return self.stages.screening if self.stages is not None else self.report

    @property
    def confirmation(self) -> AuditReport | None:
        """The independent re-test of a screened violation (stage 2), if it ran."""
        return self.stages.confirmation if self.stages is not None else None

    @property
    def verdict(self) -> str:
        """``"violation"``, ``"no_violation"`` or ``"inconclusive"``."""
        return self.report.verdict

    @property
    def inconclusive(self) -> bool:
        """True when no violation was found but the audit could not have detected one."""
        return self.report.inconclusive

    @property
    def violated(self) -> bool:
        """True when the audit found a violation."""
        return self.report.violated

    def reproduce_hint(self) -> str:
        """One line that says how to rerun this audit with the same draws."""
        if self.seed_source == "test":
            return f"seed {self.seed} (fixed by the test's seed= keyword)"
        where = f" {shlex.quote(self.nodeid)}" if self.nodeid else ""
        origin = (
            "derived from the test's node id"
            if self.seed_source == "node id"
            else "set by --privaudit-seed"
        )
        return (
            f"seed {self.seed} ({origin}); reproduce with "
            f"pytest{where} --privaudit-seed {self.seed}"
        )

    def _header(self) -> list[str]:
        r = self.report
        pct = f"{100 * r.confidence:g}%"
        verdict = r.verdict_text
        relation = ">" if r.epsilon_lower_bound > r.epsilon_claimed else "<="
        return [
            (
                f"privacy audit of {r.mechanism!r}: {verdict} "
                f"(family-wise confidence {pct}, {r.samples} samples per side)"
            ),
            (
                f"  ε lower bound {_eps(r.epsilon_lower_bound)} {relation} claimed ε = "
                f"{r.epsilon_claimed:.6g} at δ = {r.delta_claimed:g}"
            ),
        ] + ([f"  budget: {r.budget.statement}"] if r.budget is not None else [])

    def _stage_lines(self) -> list[str]:
        return self.stages.stage_lines() if self.stages is not None else []

    def failure_message(self) -> str:
        """The message of :meth:`assert_no_violation`: verdict, bound, counterexamples, seed."""
        r = self.report
        lines = self._header() + self._stage_lines()
        if r.infinite_evidence:
            lines.append(f"  support: {r.infinite_evidence}")
        lines.append("  violated checks:")
        for c in r.violations:
            lines.append(f"    {c.name}: {c.summary}")
            ce = c.counterexample
            if ce is None:
                continue
            reason = f"; {ce.relation_reason}" if ce.relation_reason else ""
            lines.append(f"      counterexample (found by {ce.origin}{reason}):")
            lines.append(f"        x = {_short(ce.x)}")
            lines.append(f"        y = {_short(ce.y)}")
            if ce.values:
                values = ", ".join(f"{k} = {_short(v, 60)}" for k, v in ce.values.items())
                lines.extend(
                    textwrap.wrap(
                        values, width=100, initial_indent=" " * 8, subsequent_indent=" " * 10
                    )
                )
        if r.worst_event is not None:
            ev = r.worst_event
            lines.append(
                f"  worst event: {ev.description} [{ev.direction}]: "
                f"{ev.count_x}/{ev.samples_x} vs {ev.count_y}/{ev.samples_y}, "
                f"Clopper–Pearson P[M(x) ∈ S] ≥ {ev.p_x_lower:.4g}, "
                f"P[M(y) ∈ S] ≤ {ev.p_y_upper:.4g}"
            )
        lines.append(f"  {self.reproduce_hint()}")
        return "\n".join(lines)

    def inconclusive_message(self) -> str:
        """The message of :meth:`assert_no_violation` for an inconclusive audit."""
        from privaudit.auditing.outcome.verdicts import inconclusive_text

        r = self.report
        lines = self._header() + self._stage_lines()
        lines.append(f"  {inconclusive_text(r.power)}")
        if r.samples_to_conclude is not None:
            lines.append(
                f"  rerun with samples={r.samples_to_conclude} (per side), e.g. "
                f"privacy_audit(..., samples={r.samples_to_conclude}) or "
                f"--privaudit-samples {r.samples_to_conclude}"
            )
        if r.power is not None:
            lines.append(f"  power: {r.power.statement}")
        lines.append(f"  {self.reproduce_hint()}")
        return "\n".join(lines)

    def success_message(self) -> str:
        """The message of :meth:`assert_violation` when no violation was found."""
        r = self.report
        lines = self._header()
        lines[0] = lines[0].replace(
            r.verdict_text, f"expected a violation, found none ({r.verdict_text})"
        )
        lines += self._stage_lines()
        if r.power is not None:
            lines.append(f"  power: {r.power.statement}")
        for c in r.checks:
            lines.append(f"    [{c.status}] {c.name}: {c.summary}")
        lines.append(f"  {self.reproduce_hint()}")
        return "\n".join(lines)

    def assert_no_violation(self) -> AuditOutcome:
        """Fail the test when the audit refuted any claim, or was inconclusive.

        An inconclusive audit found no violation but could not have detected a true ε of
        its target (twice the claim unless ``detect_epsilon=`` says otherwise); passing it
        would make the test pass vacuously.

        Returns
        -------
        AuditOutcome
            ``self``, for chaining.

        Raises
        ------
        AssertionError
            With the verdict, the ε lower bound against the claim, every violated check
            and its counterexample (x, y and the values), and the seed to reproduce; for
            an inconclusive audit, the samples per side that would make it conclusive.
        """
        __tracebackhide__ = True
        if self.report.violated:
            raise AssertionError(self.failure_message())
        if self.report.inconclusive:
            raise AssertionError(self.inconclusive_message())
        return self

    def assert_violation(self) -> AuditOutcome:
        """Fail the test unless the audit found a violation (for known-broken mechanisms).

        Returns
        -------
        AuditOutcome
            ``self``, for chaining.

        Raises
        ------
        AssertionError
            When the audit found no violation, with its checks and power statement.
        """
        __tracebackhide__ = True
        if not self.report.violated:
            raise AssertionError(self.success_message())
        return self


# -- the fixture -----------------------------------------------------------------------------
@dataclass(frozen=True)
class PrivacyAudit:
    """The callable that the ``privacy_audit`` fixture returns.

    Attributes
    ----------
    nodeid : str
        The node id of the requesting test.
    seed : int
        The seed every audit of this test uses unless a call passes ``seed=``.
    seed_source : {"node id", "--privaudit-seed"}
    samples : int or None
        Samples per side from the command line or ini file (``None``: ``CI_STRENGTH``).
    confidence : float or None
        Confidence from the command line (``None``: ``CI_STRENGTH``).
    time_budget : float or None
        Seconds per audit from the command line or ini file (``None``: no budget).
    sequential : bool
        Whether audits run sequentially (``--privaudit-sequential`` or the ini option;
        a call's ``sequential=`` beats it).
    executor : Executor or None
        Where the audits run (``--privaudit-executor``; ``None``: in the test process).
    policy : ConfirmationPolicy or None
        How a screened violation is confirmed (``None``: the defaults of
        :class:`~privaudit.auditing.confirmation.ConfirmationPolicy`, 1 % for 50 audits).
    """

    nodeid: str
    seed: int
    seed_source: SeedSource = "node id"
    samples: int | None = None
    confidence: float | None = None
    time_budget: float | None = None
    sequential: bool = False
    executor: Any = field(default=None, repr=False, compare=False)
    policy: ConfirmationPolicy | None = None
    outcomes: list[AuditOutcome] = field(default_factory=list, repr=False, compare=False)

    def __call__(
        self,
        mechanism: Any,
        *,
        pairs: Sequence[tuple[Any, Any]] = (),
        config: AuditConfig | None = None,
        **config_overrides: Any,
    ) -> AuditOutcome:
        """Audit ``mechanism`` and return an :class:`AuditOutcome`.

        Parameters
        ----------
        mechanism : Mechanism
            The mechanism to audit.
        pairs : sequence of (x, y)
            Explicit neighbouring pairs to test first.
        config : AuditConfig, optional
            The base configuration (default :data:`privaudit.CI_STRENGTH`); its ``seed``
            is replaced by the test's seed, and its ``samples`` / ``confidence`` by the
            command-line options when given.
        **config_overrides
            Single :class:`~privaudit.AuditConfig` fields (``samples=``, ``seed=``,
            ``confidence=``, ``time_budget=`` …); they beat the command-line options.

        Returns
        -------
        AuditOutcome
            A violation found by statistical checks only stands when an independent
            confirmation finds one too (:func:`privaudit.auditing.confirmation.screened_audit`).
        """
        from privaudit import CI_STRENGTH
        from privaudit.auditing.confirmation import screened_audit

        options: dict[str, Any] = {"seed": self.seed}
        if self.samples is not None:
            options["samples"] = self.samples
        if self.confidence is not None:
            options["confidence"] = self.confidence
        if self.time_budget is not None:
            options["time_budget"] = self.time_budget
        if self.sequential:
            options["sequential"] = True
        source: SeedSource = "test" if "seed" in config_overrides else self.seed_source
        options.update(config_overrides)
        stages = screened_audit(
            mechanism,
            config=config if config is not None else CI_STRENGTH,
            pairs=pairs,
            policy=self.policy,
            executor=self.executor,
            **options,
        )
        outcome = AuditOutcome(
            report=stages.final,
            seed=stages.screening.seed,
            seed_source=source,
            nodeid=self.nodeid,
            stages=stages,
        )
        self.outcomes.append(outcome)
        return outcome


@pytest.fixture(scope="session")
def privaudit_executor(pytestconfig: pytest.Config) -> Iterator[Any]:
    """The executor of every ``privacy_audit`` of the session (``--privaudit-executor``).

    Started on first use (a Dask cluster only when a test audits) and closed when the
    session ends.
    """
    from privaudit.execution.distributed import executor_scope

    with executor_scope(
        pytestconfig.getoption("privaudit_executor"),
        scheduler=pytestconfig.getoption("privaudit_scheduler"),
        n_workers=pytestconfig.getoption("privaudit_workers"),
    ) as run:
        yield run


@pytest.fixture
def privacy_audit(request: pytest.FixtureRequest, privaudit_executor: Any) -> PrivacyAudit:
    """Audit a mechanism at CI strength with a seed derived from the test's node id.

    Use as ``privacy_audit(mechanism, pairs=(), **config_overrides)``; it returns an
    :class:`AuditOutcome` with ``.report``, ``.assert_no_violation()`` and
    ``.assert_violation()``.
    """
    config = request.config
    nodeid = request.node.nodeid
    option_seed = config.getoption("privaudit_seed")
    samples = config.getoption("privaudit_samples")
    if samples is None:
        samples = _ini_samples(config)
    from privaudit.auditing.confirmation import ConfirmationPolicy

    runner = PrivacyAudit(
        nodeid=nodeid,
        seed=option_seed if option_seed is not None else seed_for_nodeid(nodeid),
        seed_source="--privaudit-seed" if option_seed is not None else "node id",
        samples=samples,
        confidence=config.getoption("privaudit_confidence"),
        time_budget=_time_budget(config),
        sequential=_sequential(config),
        executor=privaudit_executor,
        policy=ConfirmationPolicy(**_confirmation_settings(config)),
    )
    request.node.user_properties.append(("privaudit_seed", runner.seed))
    return runner


@pytest.fixture
def privacy_replay(request: pytest.FixtureRequest) -> PrivacyReplay:
    """Replay a pipeline (``docs/replay.md``) with a seed derived from the test's node id.

    Use as ``privacy_replay(pipeline, data, domain=..., relation=...)`` or
    ``privacy_replay(target)`` with a ``ReplayTarget``; it returns the ``ReplayReport``
    and fails the test on any finding, with the first finding's message and call site
    (:class:`~privaudit.interfaces.pytest_replay.PrivacyReplay`).
    """
    from privaudit.interfaces.pytest_replay import PrivacyReplay

    option_seed = request.config.getoption("privaudit_seed")
    runner = PrivacyReplay(
        nodeid=request.node.nodeid,
        seed=option_seed if option_seed is not None else seed_for_nodeid(request.node.nodeid),
        seed_source="--privaudit-seed" if option_seed is not None else "node id",
    )
    request.node.user_properties.append(("privaudit_seed", runner.seed))
    return runner
