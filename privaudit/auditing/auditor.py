"""The auditor: from a mechanism and its spec to an
:class:`~privaudit.auditing.outcome.report.AuditReport`.

An audit runs three layers of checks (``docs/derivations.md`` §8): claim checks
(deterministic, gray-box), noise-law conformance and exact privacy of finite randomizers,
local node privacy where the spec asks for it, then the distinguishing test on the worst
pairs found (:mod:`~privaudit.auditing.choice.halving`).  The statistical components share
α = 1 − confidence by Bonferroni, the shares set once in the audit's plan
(:mod:`~privaudit.auditing.plan`), so an audit of a mechanism that meets its claims reports a
violation with probability at most α.  Every component draws from its own stream spawned
from ``SeedSequence(config.seed)``.

Details: ``docs/engine_notes.md``, "privaudit.auditing.auditor".
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from privaudit.auditing.audit_outcome import (
    assemble_report,
    distinguishability_check,
    profile_check,
)
from privaudit.auditing.audit_steps import accuracy_checks as _accuracy_checks
from privaudit.auditing.audit_steps import exposed_search_spec as _exposed_search_spec
from privaudit.auditing.audit_steps import noise_law_checks as _noise_law_checks
from privaudit.auditing.audit_steps import sensitivity_checks as _sensitivity_checks
from privaudit.auditing.checks import (
    check_noise_law,
    check_spec_consistency,
)
from privaudit.auditing.checks.group_privacy import (
    check_group_exact,
    group_exact_refutation,
    group_setup,
)
from privaudit.auditing.choice.final_tests import run_pair_tests
from privaudit.auditing.choice.halving import PairChoice, choose_pairs
from privaudit.auditing.choice.ranked_law import check_ranked_pairs_law
from privaudit.auditing.config import AuditConfig
from privaudit.auditing.distinguish.columns import load_column_kernel
from privaudit.auditing.exact.privacy import (
    conformance_refutation,
    exact_check,
    exact_privacy,
    refutation_check,
    sampling_refutation,
    set_aside_law_figures,
    set_aside_refuted,
    worst_inputs,
)
from privaudit.auditing.outcome.audit_plan import STREAMS, AuditPlan
from privaudit.auditing.outcome.report import AccountingTightness, AuditReport
from privaudit.auditing.outcome.results import CheckOutcome
from privaudit.auditing.pairs import CandidatePair, verified_pair
from privaudit.auditing.plan import plan_audit
from privaudit.auditing.sampler_outputs import sampler_timeout_scope
from privaudit.auditing.search import candidate_pairs
from privaudit.auditing.sequential import look_schedule, sequential_audit
from privaudit.auditing.time_budget import plan_to_budget
from privaudit.execution.blas_threads import single_threaded_blas
from privaudit.execution.distributed import DaskExecutor, executor_scope
from privaudit.execution.forked import forked_workers
from privaudit.execution.streaming import Executor
from privaudit.mechanisms import Mechanism
from privaudit.spec.errors import AuditError, InvalidParameterError, NotNeighboursError

__all__ = ["audit"]

Progress = Callable[[str], None]


def _streams(seed: int) -> dict[str, np.random.Generator]:
    children = np.random.SeedSequence(seed).spawn(len(STREAMS))
    return {
        name: np.random.default_rng(child) for name, child in zip(STREAMS, children, strict=True)
    }


def audit(
    mechanism: Mechanism,
    *,
    config: AuditConfig | None = None,
    pairs: Sequence[tuple[Any, Any]] = (),
    progress: Progress | None = None,
    executor: Executor | str | None = None,
    group: int | None = None,
    claim: Any = None,
    clock: Callable[[], float] | None = None,
    **overrides: Any,
) -> AuditReport:
    """Audit ``mechanism`` against its spec (or a stated group claim, with ``group=k``).

    Parameters
    ----------
    mechanism : Mechanism or sequence of Mechanism
        Anything implementing the mechanism protocol (``spec`` and batched ``sample``).  A
        sequence is k releases on the same input: it is audited as a
        :class:`~mechanisms.accounting.ComposedMechanism` claiming the PLD accountant's
        bound, and the report's ``accounting`` shows that bound beside the measured ε.
    config : AuditConfig, optional
        How to run the audit; keyword ``overrides`` (``samples=``, ``confidence=``,
        ``seed=`` …) replace single fields.
    pairs : sequence of (x, y)
        Explicit neighbouring pairs to test first (checked with the relation's
        ``decide``; an unrelated pair raises :class:`~spec.errors.NotNeighboursError`).
    progress : callable, optional
        Called with a short message at each stage (the CLI prints them on stderr on a
        TTY), and every few seconds while a test split is drawn and counted.
    executor : Executor, "serial", "threads" or "dask", optional
        Maps the test splits' counting over chunks of blocks (:mod:`privaudit.execution.streaming`;
        default serial).  ``"threads"`` runs them on one thread per core of this process
        (:mod:`privaudit.execution.threads`; the mechanism's ``sample`` must then be safe
        to call from several threads).  ``"dask"`` runs them on a ``dask.distributed`` local cluster
        started and closed by this call; a :class:`~privaudit.execution.distributed.DaskExecutor`
        object runs them on its cluster (``docs/distributed.md``).  Results do not
        depend on it.
    group : int, optional
        Audit a claim at distance ``k`` = ``group`` instead (group privacy): the inputs
        tested are the relation's pairs at distance k (``relation.group_pairs``, e.g.
        :meth:`spec.LocalNodeRelation.group_pairs`) and the pairs in ``pairs`` (at
        distance ≤ k).  The claim is ``claim`` when given (e.g. a grouposition bound),
        otherwise the group-privacy bound (kε, δ Σ_{j<k} e^{jε}) of the spec's pure or
        (ε, δ) claim (:func:`privaudit.auditing.checks.group_privacy.group_guarantee`).  The
        sensitivity and local-node checks, which concern distance 1, do not run; the
        exact δ at the group pairs (``group.exact``) does when the law is declared.
    claim : PrivacyGuarantee, optional
        The guarantee claimed at distance ``group`` (only with ``group``).
    clock : callable, optional
        The time source of a ``time_budget`` audit's timing pilot (default
        ``time.perf_counter``); inject one to plan for a simulated cost per release.
        A sequential audit reads its time budget on it too.

    sequential : bool, optional (keyword override)
        Run looks at growing sizes up to ``samples``, with α spent over them, and stop at
        the first that refutes the claim (:mod:`privaudit.auditing.sequential`); "no
        violation" is concluded by the last look.  The report's ``sequential`` records
        the looks and why the audit stopped.

    time_budget : float, optional (keyword override)
        Seconds the audit may take: a pilot of releases is timed and the configuration
        shrunk to fit (:mod:`privaudit.auditing.time_budget`); the report's ``budget``
        states what the budget can and cannot detect, before and after planning.

    Returns
    -------
    AuditReport
        Its verdict is ``"violation"`` if any check refuted a claim; otherwise
        ``"no_violation"`` when the audit could have detected a true ε of
        ``config.detect_epsilon`` (default twice the claim) and ``"inconclusive"`` when
        it could not (:mod:`privaudit.auditing.outcome.verdicts`).  A report of no violation is not
        a
        proof of privacy.
    """
    timeout = _sampler_timeout(config, overrides)
    with (
        single_threaded_blas(),
        executor_scope(executor) as run,
        sampler_timeout_scope(timeout),
    ):
        # small matrices: BLAS threads only contend (_threads)
        if isinstance(run, DaskExecutor):
            run.check_shippable(mechanism, f"mechanism {getattr(mechanism, 'name', mechanism)!r}")
        cfg = (config if config is not None else AuditConfig()).merged(overrides)
        if cfg.sequential:
            return _sequential(mechanism, cfg, pairs, progress, run, group, claim, clock)
        return _audit(
            mechanism,
            config=config,
            pairs=pairs,
            progress=progress,
            executor=run,
            group=group,
            claim=claim,
            clock=clock,
            **overrides,
        )


def _sequential(
    mechanism: Any,
    cfg: AuditConfig,
    pairs: Sequence[tuple[Any, Any]],
    progress: Progress | None,
    executor: Executor | None,
    group: int | None,
    claim: Any,
    clock: Callable[[], float] | None,
) -> AuditReport:
    """The looks of a sequential audit (:func:`~privaudit.auditing.sequential.sequential_audit`),
    each a whole audit by :func:`_audit`."""
    say = progress or (lambda _msg: None)
    looks = len(look_schedule(cfg.samples, cfg.alpha, cfg.seed))

    def run_look(look_cfg: AuditConfig, index: int) -> AuditReport:
        def tell(msg: str) -> None:
            say(f"look {index + 1}/{looks}: {msg}")

        return _audit(
            mechanism,
            config=look_cfg,
            pairs=pairs,
            progress=tell if progress is not None else None,
            executor=executor,
            group=group,
            claim=claim,
        )

    return sequential_audit(cfg, run_look, say=say, clock=clock or time.perf_counter)


def _sampler_timeout(config: AuditConfig | None, overrides: dict[str, Any]) -> float | None:
    """Seconds one sampler call may take: ``sampler_timeout``, else the time budget."""
    cfg = (config if config is not None else AuditConfig()).merged(overrides)
    return cfg.sampler_timeout if cfg.sampler_timeout is not None else cfg.time_budget


def _choice(
    mechanism: Mechanism,
    plan: AuditPlan,
    cfg: AuditConfig,
    candidates: list[CandidatePair],
    explicit: list[CandidatePair],
    rng: dict[str, np.random.Generator],
    executor: Executor | None,
    checks: list[CheckOutcome],
    say: Progress,
) -> tuple[PairChoice, float]:
    """:func:`choose_pairs` on the ``pilot`` stream (its pilot tests on the executor's
    forked workers, ``pair_workers`` of the ``processes`` executor), then the declared law
    at the inputs of the pairs it ranked (``noise_law.ranked_pairs``, appended to
    ``checks``).  Returns the pairs to test and the α of their tests."""
    say("ranking pairs")
    workers = forked_workers(executor)
    if workers > 1:  # loaded once here rather than in every forked child
        load_column_kernel()
    choice = choose_pairs(
        mechanism,
        cfg,
        candidates,
        explicit,
        rng["pilot"],
        alpha=plan.alpha_ranking,
        delta=plan.claim.delta,
        workers=workers,
    )
    law = check_ranked_pairs_law(
        mechanism, choice, cfg, rng["ranked_law"], plan.share("noise_law.ranked_pairs"), say
    )
    checks.extend(law.outcomes)
    return law.choice, plan.share("distinguishability") if law.outcomes else plan.alpha_ranking


def _audit(
    mechanism: Mechanism,
    *,
    config: AuditConfig | None,
    pairs: Sequence[tuple[Any, Any]],
    progress: Progress | None,
    executor: Executor | None = None,
    group: int | None = None,
    claim: Any = None,
    clock: Callable[[], float] | None = None,
    **overrides: Any,
) -> AuditReport:
    """:func:`audit` (its docstring), under :func:`single_threaded_blas`."""
    if isinstance(mechanism, (list, tuple)):
        from privaudit.mechanisms.accounting import ComposedMechanism

        mechanism = ComposedMechanism(mechanism)
    if not isinstance(mechanism, Mechanism):
        raise AuditError(f"audit needs a Mechanism, got {type(mechanism).__name__}")
    if claim is not None and group is None:
        raise InvalidParameterError("claim= states a group claim: give group=k with it")
    group_pairs: list[CandidatePair] = []
    inner = mechanism
    if group is not None:
        mechanism, group_pairs = group_setup(mechanism, group, claim)
    cfg = (config if config is not None else AuditConfig()).merged(overrides)
    say = progress or (lambda _msg: None)
    started = time.perf_counter()
    budget = None
    if cfg.time_budget is not None:
        say(f"timing a pilot of releases to plan the audit to {cfg.time_budget:g} s")
        planned, budget = plan_to_budget(
            mechanism, cfg, cfg.time_budget, clock=clock or time.perf_counter, explicit=len(pairs)
        )
        cfg = planned.merged({"time_budget": None})
        say(budget.statement)
    rng = _streams(cfg.seed)
    checks: list[CheckOutcome] = []

    # 1. the spec and the mechanism's parameters -------------------------------------------
    say("checking the spec against the mechanism's parameters")
    checks.append(check_spec_consistency(mechanism))
    run = _Run(cfg, rng, checks, say, progress, executor, started, budget)

    # 2. candidate pairs (local-node specs: the nodes the public randomness exposes first) ---
    if group is not None:
        return _finish_group(inner, mechanism, group, group_pairs, pairs, run)
    return _audit_claim(mechanism, pairs, run)


@dataclass(frozen=True)
class _Run:
    """What every stage of one audit shares: its configuration, streams, checks so far,
    progress, executor, start time and time-budget plan."""

    cfg: AuditConfig
    rng: dict[str, np.random.Generator]
    checks: list[CheckOutcome]
    say: Progress
    progress: Progress | None
    executor: Executor | None
    started: float
    budget: Any = None


def _audit_claim(mechanism: Mechanism, pairs: Sequence[tuple[Any, Any]], run: _Run) -> AuditReport:
    """The audit of the spec's own claim (distance 1), after the spec-consistency check:
    candidate pairs, the plan, then its stages in order (the module docstring)."""
    cfg, rng, checks, say, progress, executor = (
        run.cfg,
        run.rng,
        run.checks,
        run.say,
        run.progress,
        run.executor,
    )
    started, budget = run.started, run.budget
    spec = mechanism.spec
    search_spec, relation = _exposed_search_spec(mechanism, rng["exposure"], checks, say)
    say(f"generating up to {cfg.pair_budget} neighbouring pairs")
    explicit = [verified_pair(spec, x, y, "explicit") for x, y in pairs]
    candidates = candidate_pairs(
        search_spec,
        rng["search"],
        budget=cfg.pair_budget,
        explicit_pairs=[(p.x, p.y) for p in explicit],
    )

    plan = plan_audit(mechanism, cfg, candidates[0] if candidates else None)

    # 3. sensitivity claims ----------------------------------------------------------------
    _sensitivity_checks(mechanism, cfg, candidates, rng["claims"], checks, say)

    # 3b. exact privacy of a finite output law (no sampling) ------------------------------
    exact = None
    conformance_inputs = [candidates[0].x]
    if plan.exact:
        say("computing the exact privacy of the declared finite output law")
        exact = exact_privacy(mechanism, candidates=candidates)
        checks.append(exact_check(exact))
        conformance_inputs = list(worst_inputs(mechanism, exact))

    # 4. the declared noise law: conformance, spikes at f, floating-point image, LNDP ------
    _noise_law_checks(
        mechanism,
        plan,
        cfg,
        candidates,
        conformance_inputs,
        rng,
        checks,
        say,
        progress,
        executor,
        relation,
    )

    # 4b. the accuracy claim, when the spec makes one --------------------------------------
    _accuracy_checks(mechanism, plan, cfg, candidates, rng["accuracy"], checks, say)

    # 5. choose the pairs for the distributional test (never from the final samples) ---------
    eps_claimed, delta_claimed = plan.claim.epsilon, plan.claim.delta
    choice, alpha_dist = _choice(
        mechanism, plan, cfg, candidates, explicit, rng, executor, checks, say
    )
    chosen = list(choice.pairs)

    # 6. the distributional test on the chosen pairs -----------------------------------------
    results, best_pair, best, violated, per_pair, search_samples = run_pair_tests(
        mechanism,
        choice,
        cfg,
        alpha_dist,
        delta_claimed,
        rng["final"],
        executor,
        say,
        lambda i: (
            f"testing pair {i}/{len(chosen)} ({chosen[i - 1].origin}) with "
            f"{cfg.samples} samples per side"
        ),
        progress=progress,
    )
    eps_lb, outcome = distinguishability_check(
        best,
        best_pair,
        violated,
        plan.claim,
        alpha_dist,
        f"on the worst of {len(chosen)} pairs (claimed ε = {eps_claimed:.4g})",
        pairs_tested=len(chosen),
        alpha_per_pair=per_pair,
        near_ties=choice.near_ties,
        prior_pair=choice.prior_pair,
        pair_objective=choice.objective,
        equivalent_pairs_tied=choice.ties,
        halving_rounds=choice.halving_rounds,
        search_samples=search_samples,
        declared_events=len(best.plan.events) if best.plan is not None else 0,
    )
    checks.append(outcome)
    exact = _exact_agreement(mechanism, exact, results, delta_claimed, alpha_dist, checks)
    checks.extend(profile_check(best))
    report = assemble_report(
        mechanism,
        cfg,
        checks,
        results,
        best,
        best_pair,
        eps_lb=eps_lb,
        eps_claimed=eps_claimed,
        delta_claimed=delta_claimed,
        started=started,
        accounting=AccountingTightness.of(mechanism, eps_lb),
        audit_mode="exact" if exact is not None else "statistical",
        exact=exact,
        budget=budget,
        plan=plan,
    )
    say("done")
    return report


def _exact_agreement(
    mechanism: Mechanism,
    exact: Any,
    results: Sequence[Any],
    delta_claimed: float,
    alpha_dist: float,
    checks: list[CheckOutcome],
) -> Any:
    """The exact result, marked refuted when the audit's own samples contradict it.

    A sampling ε lower bound above what the declared law allows at a tested pair refutes
    the ``output_probabilities`` hook
    (:func:`~privaudit.auditing.exact.privacy.sampling_refutation`):
    ``exact.privacy`` is then replaced by a skipped outcome stating so, and the violated
    ``exact.sampling_agreement`` check is appended (``checks`` is updated in place).  A
    noise-law check that rejected the sampler against the hook refutes it too
    (:func:`~privaudit.auditing.exact.privacy.conformance_refutation`).  A hook the audit
    cannot use is named in a skipped ``exact.privacy`` outcome.
    """
    spec = mechanism.spec
    set_aside_law_figures(checks)
    if exact is not None:
        for pair, result in results:
            bound = (
                math.inf
                if result.epsilon_lower_bound_infinite
                else float(result.epsilon_lower_bound)
            )
            refuted = sampling_refutation(mechanism, exact, pair.x, pair.y, bound, delta_claimed)
            if refuted is not None:
                set_aside_refuted(checks, refuted.statement)
                checks.append(refutation_check(refuted, alpha_dist))
                return refuted
        law_checks = ("noise_law", "noise_law.ranked_pairs")
        for conformance in [c for c in checks if c.name in law_checks and c.violated][:1]:
            refuted = conformance_refutation(exact, conformance)
            if refuted is not None:
                set_aside_refuted(checks, refuted.statement)
                return refuted
    elif spec.noise is not None and mechanism.provides("output_probabilities"):
        law = getattr(spec.noise, "law", None)
        checks.append(
            CheckOutcome(
                name="exact.privacy",
                status="skipped",
                summary=(
                    "the output_probabilities hook is not used: "
                    + (
                        "the declared FiniteOutputLaw says its coordinates are not "
                        "independent, so the hook's rows are marginals and no exact product "
                        "law exists"
                        if getattr(law, "independent", True) is False
                        else f"the spec declares {type(spec.noise).__name__}, not a finite output "
                        "law (noise=FiniteRandomizer(...))"
                    )
                    + "; the audit is statistical"
                ),
            )
        )
    return exact


def _finish_group(
    inner: Mechanism,
    mechanism: Mechanism,
    k: int,
    group_pairs: list[CandidatePair],
    pairs: Sequence[tuple[Any, Any]],
    run: _Run,
) -> AuditReport:
    """A group audit (``audit(..., group=k)``): the group claim on the pairs at distance k.

    The plan of a group audit (:func:`~privaudit.auditing.plan.plan_audit` with ``group=k``):
    conformance of the noise law (when declared), the declared law at the ranked inputs
    (gray-box rankings) and the distinguishing test over the chosen pairs, each at its
    share of α.
    """
    cfg, rng, checks, say, executor, started = (
        run.cfg,
        run.rng,
        run.checks,
        run.say,
        run.executor,
        run.started,
    )
    spec = mechanism.spec
    domain = spec.input_domain
    explicit = []
    for x, y in pairs:
        xv, yv = domain.validate(x), domain.validate(y)
        decision = spec.relation.decide(xv, yv, domain, validated=True)
        if decision.distance is None or not 0 < decision.distance <= k:
            raise NotNeighboursError(
                f"explicit pair at distance {decision.distance}, not in 1..{k}: {decision.reason}"
            )
        explicit.append(CandidatePair(x=xv, y=yv, origin="explicit", decision=decision))
    candidates = explicit + list(group_pairs)
    say(f"group audit at distance {k}: {len(candidates)} pairs")
    checks.append(check_group_exact(inner, spec.guarantee, candidates))
    plan = plan_audit(mechanism, cfg, candidates[0] if candidates else None, group=k)
    if plan.conformance:
        checks.append(
            check_noise_law(
                mechanism,
                candidates[0].x,
                rng["conformance"],
                samples=cfg.effective_conformance_samples,
                alpha=plan.share("noise_law"),
            )
        )
    eps_claimed, delta_claimed = plan.claim.epsilon, plan.claim.delta
    choice, alpha_dist = _choice(
        mechanism, plan, cfg, candidates, explicit, rng, executor, checks, say
    )
    chosen = list(choice.pairs)
    results, best_pair, best, violated, per_pair, _ = run_pair_tests(
        mechanism,
        choice,
        cfg,
        alpha_dist,
        delta_claimed,
        rng["final"],
        executor,
        say,
        lambda i: f"testing group pair {i}/{len(chosen)} ({chosen[i - 1].origin})",
    )
    eps_lb = math.inf if best.epsilon_lower_bound_infinite else float(best.epsilon_lower_bound)
    refuted = group_exact_refutation(
        inner,
        spec.guarantee,
        [
            (pair, math.inf if r.epsilon_lower_bound_infinite else float(r.epsilon_lower_bound))
            for pair, r in results
        ],
        alpha_dist,
    )
    if refuted is not None:
        set_aside_refuted(checks, refuted.summary, name="group.exact")
        checks.append(refuted)
    checks.append(
        distinguishability_check(
            best,
            best_pair,
            violated,
            plan.claim,
            alpha_dist,
            f"on the worst of {len(chosen)} pairs at distance {k} "
            f"(group claim ε = {eps_claimed:.4g})",
            pairs_tested=len(chosen),
            alpha_per_pair=per_pair,
            near_ties=choice.near_ties,
            group=k,
        )[1]
    )
    say("done")
    return assemble_report(
        mechanism,
        cfg,
        checks,
        results,
        best,
        best_pair,
        eps_lb=eps_lb,
        eps_claimed=eps_claimed,
        delta_claimed=delta_claimed,
        started=started,
        plan=plan,
    )
