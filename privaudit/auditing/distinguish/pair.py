"""The (ε, δ) distinguishing test of one neighbouring pair.

:func:`distinguish_pair` draws outputs of M(x) and M(y), plans events from the declared law and
chooses more on a search split, and tests them all on a disjoint test split:

1. **Search split.**  ``search_samples`` outputs on x and on y, one batched
   ``mechanism.sample`` call per side, used only to choose the data-driven events and
   their levels and to tune the profile's bets.
2. **Declared-law events** (declared densities only, :mod:`~privaudit.auditing.distinguish.
   declared_plan`): LLR thresholds — the main event, optimal for the claimed δ at this
   sample size under the declared law, and a few hedges — with weights fixed by the
   declared law alone.  They involve no sample at all, so they need no search split and
   get most of the pair's α (:data:`DECLARED_SHARE`).
3. **Data-driven selection** (search split only, :func:`~privaudit.auditing.distinguish.
   event_candidates.select_events`): candidate events in both directions — ``x_vs_y`` (S where
   M(x) is likelier) and ``y_vs_x`` (roles swapped) — from declared-LLR thresholds (when
   no declared-law plan exists), exact values, half-lines and two-sided intervals, and
   learned scores (naive-Bayes, grouped, joint-cell and whitened cell LLRs, logistic
   regression); a plan (:func:`~privaudit.statistics.allocation.plan_events`) then
   decides how many of them to test and the level α_i of each, Σ α_i = α_search
   (weighted Bonferroni; with ``allocation="equal"``, K events per direction at
   α_search/(2K) each).
4. **Event tests** (test split, drawn and counted in chunks so memory stays bounded;
   small-range integer outputs reduced to value counts and small-integer rows to
   distinct rows (:mod:`~privaudit.auditing.distinguish.rows`), declared-law LLR thresholds of
   full-support laws counted from the loss histogram): each event gets exact
   Clopper–Pearson bounds at α_i/2 per side, giving ε_lb at the claimed δ (never
   capped) and a violation margin over the whole claimed profile δ(ε) (free for each
   event: its two CP bounds hold for every ε at once).

   **Poissonised test split.**  The test split has N_x ~ Poisson(``samples``) outputs on
   x and N_y ~ Poisson(``samples``) on y (when ``samples`` ≥ :data:`POISSON_MINIMUM`), so
   each event's two counts are independent Poisson variables and, for a pure-DP claim,
   the exact conditional rate-ratio bound applies (:mod:`privaudit.statistics.
   rate_ratio`): one Clopper–Pearson bound at the event's whole level α_i instead of
   two at α_i/2 whose errors add.  Which bound an event uses ("clopper_pearson" or
   "rate_ratio", ``EventBound.method``) is decided before the test split is drawn, from
   the declared law or the search split, by the larger predicted bound; the CP bounds
   are valid given the drawn sizes, so both are exact.  The caller gives
   each pair its own share ``alpha`` of the audit's error budget; the family-wise error
   of this function is at most ``alpha``, because everything about the events — which,
   how many, at which levels — is fixed by the declared law and the search split before
   the test split is drawn.
5. **Zero counts.**  When the best event has count_y = 0 < count_x and the declared law
   gives every x-output in it log p_y = −inf, the evidence is a declared support
   mismatch: ε = ∞ if the implementation follows its declared law
   (``epsilon_lower_bound_infinite``).  Otherwise a zero count is reported as it is,
   with the finite bound it allows.
6. **Privacy-loss profile** (declared densities only, :mod:`~privaudit.auditing.distinguish.
   privacy_loss`): δ̂(ε) = mean((1 − e^{ε−L})₊) over the test outputs, L the declared
   loss (quantised downwards, :class:`~privaudit.auditing.distinguish.privacy_loss.
   LossHistogram`), with empirical-Bernstein lower bounds (Bonferroni over 2 directions
   × the ε grid), compared with the claimed δ(ε).
7. **Power**: the smallest true ε that one of the tested events (the most sensitive one,
   at its own level) would reveal with probability 0.9; the pair is reported violating
   when any event is, so this lower-bounds the pair's detection probability.

**Error budget.**  With declared densities, α_profile = α/10 (:data:`PROFILE_SHARE`),
the declared-law events 0.8 α (:data:`DECLARED_SHARE`; the main event 0.8 of that) and
the data-driven events the rest, α/10; when the declared law yields no event, the
data-driven events get 0.9 α; without declared densities they get all of α.  For a
claim with δ > 0 whose search split shows rare events (atoms of a continuous law, mass
far above the declared density near f(x) or anywhere, outputs the other input's declared
law cannot produce; :mod:`~privaudit.auditing.distinguish.rare_events`), those events get
α_rare = 0.8 α (:data:`RARE_SHARE`) and every share above applies to the other 0.2 α.
The best rare event of each direction is kept; when the two are disjoint and the test
split is Poissonised they are tested pooled (:mod:`privaudit.statistics.pooled`) at
0.9 α_rare (:data:`POOLED_SHARE`) and the mirror alone at 0.1 α_rare, otherwise the
best one alone at α_rare.  For every δ > 0 claim on a Poissonised split, the declared
plan's main event is likewise tested pooled with its mirror ("other direction"), at
the main event's level (the mirror keeps its own).  Which events, how many and at which
levels is fixed by the declared law and the search split, so the family-wise error
stays at most α.

**Reading y_vs_x bounds.**  An :class:`~privaudit.auditing.results.EventBound` is written from the
point of view of its direction: for ``y_vs_x`` the roles are swapped, so ``count_x``,
``samples_x`` and ``p_x_lower`` refer to M(y) (the side bounded from below) and
``count_y``, ``samples_y`` and ``p_y_upper`` to M(x).

**Code.**  :func:`distinguish_pair` calls one function per stage, in this order:
``_search_split`` (draw and score the search split), ``_split_budget`` (rare events, the
declared plan and the shares of α), ``_select`` and ``_assemble_events`` (the data-driven
events and every event's level), ``_bound_methods`` (Clopper–Pearson or rate ratio, fixed
before the test split), ``_count_test_split`` (drawn and counted in chunks),
``_event_bounds``, ``_best_index``, ``_zero_counts`` and ``_tradeoff`` (the bounds and the
verdict), ``_profile`` and ``_power``.

References
----------
.. [1] Clopper & Pearson, Biometrika 1934.
.. [2] Wasserman & Zhou, JASA 2010; Kairouz, Oh & Viswanath, ICML 2015.
.. [3] Ding, Wang, Wang, Zhang & Kifer, CCS 2018 (StatDP, sample splitting).
.. [4] Bichsel, Steffen, Bogunovic & Vechev, IEEE S&P 2021 (DP-Sniper).
.. [5] Lokna, Paradis, Dimitrov & Vechev, CCS 2023 (Delta-Siege).
.. [6] Waudby-Smith & Ramdas, JRSS-B 2024.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privaudit.auditing.pairs import CandidatePair
from privaudit.auditing.results import EventBound, PowerStatement, ProfilePoint
from privaudit.statistics.allocation import prefers_rate_ratio
from privaudit.statistics.clopper_pearson import cp_lower, cp_upper
from privaudit.statistics.epsilon_bounds import (
    claimed_point,
    default_margin_grid,
    epsilon_lower_bound,
    violation_margin,
)
from privaudit.statistics.pooled import pooled_bound
from privaudit.statistics.power import detectable_epsilon
from privaudit.statistics.rate_ratio import rate_ratio_lower_bound
from privaudit.execution.streaming import Executor, StreamProgress, block_rows, root_seed, stream_chunks
from spec import RandomLike, as_generator, check_alpha
from spec.errors import AuditError, InvalidParameterError, PrivauditError

from .declared_plan import DeclaredPlan, declared_loss_law, plan_declared_events
from .densities import DensityPair, declared_llr, declared_log_densities
from .event_candidates import DIRECTIONS, SelectedEvents, select_events
from .events import Event, LogLikelihoodRatio, ThresholdEvent, event_mask, llr_from
from .privacy_loss import LOSS_STEP, LossHistogram, loss_moments, profile_lower_bounds
from .rare_events import RareCandidate, find_rare_events
from .rare_events import disjoint as rare_disjoint
from .rows import distinct_outputs as _distinct_outputs

__all__ = ["DECLARED_SHARE", "EVENT_SHARE", "PLAN_PRIOR_OUTPUTS", "POISSON_MINIMUM",
           "PROFILE_SHARE", "RARE_SHARE",
           "PairTestResult", "TradeoffPoint", "distinguish_pair", "rate_ratio_applies"]

#: Share of the pair's α spent on the privacy-loss profile when densities are declared.
PROFILE_SHARE = 0.1
#: Share of the pair's α spent on the events planned from the declared law (when it
#: yields any); the data-driven events get the rest, 1 − PROFILE_SHARE − DECLARED_SHARE.
DECLARED_SHARE = 0.8
#: Share of the pair's α spent on event tests (declared and data-driven) when densities
#: are declared (the rest goes to the privacy-loss profile).
EVENT_SHARE = 1.0 - PROFILE_SHARE
#: Share of the pair's α spent on rare events (:mod:`~privaudit.auditing.distinguish.rare_events`)
#: when the claim has δ > 0 and the search split shows some; every other share above
#: then applies to the remaining 1 − RARE_SHARE.  Rare events are found only where the
#: search split holds mass the declared law cannot explain (ties of a continuous law,
#: counts far above its density), so they get most of the budget: at the boundary of
#: the target (N·p = 30 leaked outputs at p = 10·δ, ε = 1) a single-direction rare
#: event must clear e^ε times the Clopper–Pearson upper bound of a zero count plus
#: δN = 3, i.e. 13.9 at α_rare/2 = 0.018 (0.8 of 0.045) and 15.2 at 0.011 (half): 25
#: leaked test outputs instead of 27 (≈ 0.84 instead of 0.70 at a Poisson(30) count);
#: pooled with the other direction's (≈ 60 outputs against ≈ 17) it nearly always does.
RARE_SHARE = 0.8
#: Share of the rare events' α spent on the pooled test of the two directions' rare
#: events when they are disjoint (:mod:`privaudit.statistics.pooled`); the mirror keeps
#: the rest for its own test.
POOLED_SHARE = 0.9
#: Detection probability of the power statement.
POWER_PROBABILITY = 0.9
#: Pseudo-outputs at equal rates that the audit's final tests add to every candidate's
#: judging counts before planning the levels
#: (:func:`~privaudit.statistics.allocation.equal_rate_prior`).  Without them the plan
#: bought events counted a handful of times on the judging split as lottery tickets:
#: on ReportNoisyMax3 three such events (12–260 test counts, ε_lb 0) took half of α
#: from the threshold that carries the bound, 0.2476 → 0.2479 with the prior, and on
#: NumericalSVT nine events split α at 0.00078 each.  The pilot's small tests, which
#: only rank pairs, keep the flat posterior.
PLAN_PRIOR_OUTPUTS = 50.0
#: Smallest mean test size that is Poissonised (below, the sizes are fixed and every
#: event uses the two Clopper–Pearson bounds).
POISSON_MINIMUM = 1_000


@dataclass(frozen=True)
class TradeoffPoint:
    """The best event as a test "reject x when the output is not in S".

    ``alpha0`` = 1 − p̲_x bounds its type-I error and ``alpha1`` = p̄_y its type-II
    error (Wasserman & Zhou 2010): (ε, δ)-DP requires α0 + e^ε α1 ≥ 1 − δ.  The
    intervals are the two-sided CP intervals at the event's level (α_e/2 per end), whose
    conservative ends are ``alpha0`` and ``alpha1``.
    """

    alpha0: float
    alpha0_interval: tuple[float, float]
    alpha1: float
    alpha1_interval: tuple[float, float]
    level: float


@dataclass(frozen=True)
class PairTestResult:
    """Everything :func:`distinguish_pair` found on one pair (see the module docstring).

    Attributes
    ----------
    alpha_per_event : float
        The level α_i of the best event (each tested event carries its own in
        ``EventBound.alpha``; they sum to ``alpha_events``).
    events : tuple of EventBound
        The tested events (x_vs_y first), each with its CP bounds and ε_lb.  For
        ``y_vs_x`` events the roles are swapped: ``count_x``, ``samples_x`` and
        ``p_x_lower`` refer to M(y), the side bounded from below.
    regions : tuple of Event
        The event objects themselves, parallel to ``events`` (reusable on new outputs).
    best_event, best_region
        The event with the largest ε_lb (ties: largest violation margin) and its object.
    epsilon_lower_bound : float
        Its ε_lb at ``claimed_delta``; finite.  ``epsilon_lower_bound_infinite`` and
        ``infinite_evidence`` report a declared support mismatch (ε = ∞ under the declared
        law); ``zero_count_note`` explains a finite bound resting on a zero count.
    violated, violation_margin, violation_epsilon, violating
        Whether some event's bounds exceed the claimed profile δ(ε), by how much, where,
        and the (first such) event.
    tradeoff : TradeoffPoint
        The best event as a point (α0, α1) of the hypothesis-testing trade-off.
    profile, profile_violated
        The declared privacy-loss profile against the claim (empty without densities).
    power : PowerStatement
        The smallest true ε that the most sensitive tested event reveals with
        probability 0.9 (at its own level, holding its P[M(y) ∈ S] fixed).
    timings : mapping
        Seconds spent in each stage (sampling, densities, selection, event_tests, bounds,
        profile, power) and in total.
    """

    mechanism: str
    origin: str
    claimed_epsilon: float
    claimed_delta: float
    alpha: float
    alpha_events: float
    alpha_per_event: float
    alpha_profile: float
    samples: int
    search_samples: int
    densities_declared: bool
    families: tuple[str, ...]
    events: tuple[EventBound, ...]
    regions: tuple[Event, ...] = field(repr=False)
    best_event: EventBound | None
    best_region: Event | None = field(repr=False)
    epsilon_lower_bound: float
    epsilon_lower_bound_infinite: bool
    infinite_evidence: str
    zero_count_note: str
    violated: bool
    violation_margin: float
    violation_epsilon: float
    violating: EventBound | None
    tradeoff: TradeoffPoint | None
    profile: tuple[ProfilePoint, ...]
    profile_violated: bool
    power: PowerStatement | None
    timings: Mapping[str, float] = field(default_factory=dict, repr=False)
    alpha_declared: float = 0.0
    plan: DeclaredPlan | None = field(default=None, repr=False)
    test_sizes: tuple[int, int] = (0, 0)
    poissonized: bool = False

    @property
    def reported_epsilon(self) -> float:
        """ε_lb, or ``inf`` when the evidence is a declared support mismatch."""
        return math.inf if self.epsilon_lower_bound_infinite else self.epsilon_lower_bound

    def details(self) -> dict[str, Any]:
        """The key results as JSON-compatible values (for a report's ``details``)."""
        from privaudit.auditing.results import jsonable_details

        def dump(model: Any) -> Any:
            return None if model is None else model.model_dump(mode="json")

        return jsonable_details(
            epsilon_lower_bound=self.epsilon_lower_bound,
            epsilon_lower_bound_infinite=self.epsilon_lower_bound_infinite,
            infinite_evidence=self.infinite_evidence, zero_count_note=self.zero_count_note,
            claimed_epsilon=self.claimed_epsilon, claimed_delta=self.claimed_delta,
            violated=self.violated, violation_margin=self.violation_margin,
            violation_epsilon=self.violation_epsilon, alpha=self.alpha,
            alpha_events=self.alpha_events, alpha_per_event=self.alpha_per_event,
            alpha_profile=self.alpha_profile, alpha_declared=self.alpha_declared,
            declared_plan=None if self.plan is None else {
                "loss_law": self.plan.law.method,
                "events": [{"description": e.event.description, "direction": e.direction,
                            "role": e.role, "weight": e.weight,
                            "declared_p_lower_side": e.p_lower_side,
                            "declared_p_upper_side": e.p_upper_side,
                            "predicted_epsilon": e.predicted_epsilon}
                           for e in self.plan.events]},
            samples=self.samples, test_sizes=list(self.test_sizes),
            poissonized=self.poissonized,
            search_samples=self.search_samples, densities_declared=self.densities_declared,
            families=list(self.families), best_event=dump(self.best_event),
            events=[dump(b) for b in self.events],
            profile_violated=self.profile_violated,
            profile=[dump(p) for p in self.profile], power=dump(self.power),
            tradeoff=None if self.tradeoff is None else {
                "alpha0": self.tradeoff.alpha0,
                "alpha0_interval": list(self.tradeoff.alpha0_interval),
                "alpha1": self.tradeoff.alpha1,
                "alpha1_interval": list(self.tradeoff.alpha1_interval),
                "level": self.tradeoff.level})

    def summary(self) -> str:
        """One sentence with the key numbers."""
        eps = "inf (declared support mismatch)" if self.epsilon_lower_bound_infinite \
            else f"{self.epsilon_lower_bound:.4g}"
        what = self.best_event.description if self.best_event is not None else "no event"
        verdict = "VIOLATED" if self.violated else "not refuted"
        prof = "; declared-loss profile exceeds the claim" if self.profile_violated else ""
        return (f"{self.mechanism}: epsilon >= {eps} at delta = {self.claimed_delta:g} "
                f"(claim {self.claimed_epsilon:g}, {verdict}, confidence "
                f"{1 - self.alpha:g}) from '{what}'{prof}")


def rate_ratio_applies(guarantee: Any, samples: int, *, poissonize: bool = True) -> bool:
    """Whether a test of ``samples`` outputs per side may bound events by the rate ratio.

    It needs a Poissonised test split (``samples`` ≥ :data:`POISSON_MINIMUM`) and a pure
    claim: the rate-ratio bound bounds p_x/p_y, while an (ε, δ) claim bounds p_x − δ.
    """
    return (bool(poissonize) and samples >= POISSON_MINIMUM
            and getattr(guarantee, "kind", None) == "pure_dp")


def _int(value: Any, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < minimum:
        raise InvalidParameterError(f"{what} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _checked_arguments(samples: Any, search_samples: Any, alpha: Any,
                       events_per_direction: Any, allocation: Any, chunk_rows: Any
                       ) -> tuple[int, int, float, int]:
    """(samples, search_samples, alpha, events_per_direction) of :func:`distinguish_pair`,
    checked (:class:`~spec.errors.InvalidParameterError` naming the bad value)."""
    n = _int(samples, "samples", 1)
    n_s = _int(search_samples, "search_samples", 1)
    a = check_alpha(alpha)
    k = _int(events_per_direction, "events_per_direction", 1)
    if allocation not in ("planned", "equal"):
        raise InvalidParameterError(
            f"allocation must be 'planned' or 'equal', got {allocation!r}")
    if chunk_rows is not None:
        _int(chunk_rows, "chunk_rows", 1)
    return n, n_s, a, k


def _profile_grid(epsilon_grid: Any, claimed_eps: float) -> np.ndarray:
    if epsilon_grid is None:
        top = max(2.0 * claimed_eps, 1.0)
        grid = np.append(np.linspace(0.0, top, 25), claimed_eps)
    else:
        grid = np.asarray(epsilon_grid, dtype=np.float64).ravel()
        if grid.size == 0 or not np.all(np.isfinite(grid) & (grid >= 0)):
            raise InvalidParameterError(
                f"epsilon_grid must hold finite values >= 0, got {epsilon_grid!r}")
    return np.unique(grid)


def _draw(mechanism: Any, data: Any, total: int, gen: np.random.Generator) -> np.ndarray:
    out = np.asarray(mechanism.sample(data, total, gen))
    if out.ndim == 2 and out.shape[1] == 1:
        out = out[:, 0]
    if out.ndim not in (1, 2) or out.shape[0] != total:
        raise AuditError(f"{mechanism!r} returned outputs of shape {out.shape}; expected "
                         f"({total},) or ({total}, d)")
    if out.dtype.kind not in "biuf":
        raise AuditError(f"{mechanism!r} returned non-numeric outputs (dtype {out.dtype})")
    return out


def distinguish_pair(mechanism: Any, pair: CandidatePair, *, samples: int,
                     search_samples: int, rng: RandomLike, alpha: float,
                     events_per_direction: int = 8, epsilon_grid: Any = None,
                     allocation: str = "planned", chunk_rows: int | None = None,
                     declared: bool = True, poissonize: bool = True,
                     prior_outputs: float = 0.0, executor: Executor | None = None,
                     progress: StreamProgress | None = None,
                     rare_events: bool = True) -> PairTestResult:
    """Test the claimed privacy of ``mechanism`` on one neighbouring pair.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism under audit (its spec's guarantee is the claim).
    pair : CandidatePair
        The neighbours (x, y).
    samples : int
        Test-split outputs per side.
    search_samples : int
        Search-split outputs per side (used only to choose events, their levels and the
        profile's bets).
    rng : Generator, int or None
        The only source of randomness.
    alpha : float
        This pair's share of the audit's error budget: the probability that anything
        reported here as a violation is false is at most ``alpha``.
    events_per_direction : int
        K (default 8): candidates kept per direction; at most 2K events are tested.
    epsilon_grid : array, optional
        The ε values of the privacy-loss profile (default: 25 points from 0 to
        max(2ε_c, 1), plus the claimed ε_c).
    allocation : {"planned", "equal"}
        ``"planned"`` (default): the search split decides how many events to test and
        the level of each (weighted Bonferroni, :func:`~privaudit.statistics.allocation.
        plan_events`); ``"equal"``: 2K events at α_events/(2K) each.
    chunk_rows : int, optional
        Test outputs held in memory at once (default: 2²⁰ numbers, 4 blocks), rounded up to
        whole blocks of :func:`~privaudit.execution.streaming.block_rows` outputs, so memory stays
        bounded whatever ``samples`` is.  Each block is drawn from its own
        ``SeedSequence`` child (:mod:`privaudit.execution.streaming`), so the result is the same
        for every chunk size at the same seed.
    executor : Executor, optional
        Maps the counting over chunks (default: serial, in this process).
    progress : callable, optional
        Called as ``progress(done, total)`` after each chunk of the test split.
    rare_events : bool
        Look for rare events (atoms, spikes, unsupported outputs, excess mass;
        :mod:`~privaudit.auditing.distinguish.rare_events`) on the search split when the claim
        has δ > 0 (default); those found get :data:`RARE_SHARE` of ``alpha``.
    declared : bool
        Plan events from the declared law when the densities are declared (default);
        off, only the data-driven events are tested (the declared LLR thresholds then
        compete in the data-driven selection, as a family of candidates).
    poissonize : bool
        Draw Poisson(``samples``) test outputs per side (default, when ``samples`` ≥
        :data:`POISSON_MINIMUM`), which lets pure-DP claims use the rate-ratio bound;
        off, exactly ``samples`` per side and only Clopper–Pearson bounds.
    prior_outputs : float
        Pseudo-outputs at equal rates added to the judging counts before the levels are
        planned (default 0, the flat posterior; the audit's final tests use
        :data:`PLAN_PRIOR_OUTPUTS`).  Only the plan sees them: every event is tested on
        its raw test counts, so the test stays exact whatever the prior.

    Returns
    -------
    PairTestResult

    Raises
    ------
    InvalidParameterError
        If a size, α or the allocation is out of range.
    AuditError
        If the mechanism returns outputs of the wrong shape or type.

    Notes
    -----
    Cost: the draws, the declared LLR once per output (when declared; for additive noise
    of full support directly on the differing coordinates), one feature evaluation per
    *selected* data-driven feature and output (at most two learned scores), one mask per
    tested data-driven event, and one histogram of the loss per side (which also counts
    the declared-law thresholds of full-support laws and gives the whole profile).
    Measured at 10⁶ test outputs per side (+6.25·10⁴ search, analytic Gaussian, 2 shared
    cores, minimum of 7 runs): 59 ms, of which 24 ms drawing.
    """
    n, n_s, a, k = _checked_arguments(samples, search_samples, alpha, events_per_direction,
                                      allocation, chunk_rows)
    gen = as_generator(rng)
    spec = mechanism.spec
    guarantee = spec.guarantee
    eps_c, delta_c = claimed_point(guarantee)
    poisson = bool(poissonize) and n >= POISSON_MINIMUM
    ratio_ok = rate_ratio_applies(guarantee, n, poissonize=poissonize)
    clock = _Stopwatch()
    started = clock.last

    search = _search_split(mechanism, pair, n_s, gen, clock)
    budget = _split_budget(mechanism, pair, search, alpha=a, samples=n, k=k, epsilon=eps_c,
                           delta=delta_c, poisson=poisson, ratio_ok=ratio_ok,
                           rare_events=rare_events, declared=declared, clock=clock)
    selected = _select(search, budget, samples=n, search_samples=n_s, k=k, delta=delta_c,
                       planned=allocation == "planned", ratio_ok=ratio_ok,
                       prior_outputs=prior_outputs, clock=clock)
    tests = _assemble_events(search, budget, selected, epsilon_grid=epsilon_grid,
                             epsilon=eps_c, delta=delta_c, poisson=poisson)
    use_ratio = _bound_methods(search, budget, tests, samples=n, ratio_ok=ratio_ok)
    clock.tick("selection")

    split = _count_test_split(mechanism, pair, search, tests, samples=n, poisson=poisson,
                              gen=gen, chunk_rows=chunk_rows, executor=executor,
                              progress=progress, clock=clock)
    bounds, margins, margin_eps = _event_bounds(tests, split, use_ratio, guarantee,
                                                samples=n, epsilon=eps_c, delta=delta_c,
                                                poisson=poisson)
    best_i = _best_index(bounds, margins, search.densities is not None, split.support_gap)
    best = bounds[best_i] if best_i is not None else None
    best_event = tests.events[best_i] if best_i is not None else None
    level = tests.levels[best_i] if best_i is not None else budget.equal_level
    eps_best = float(best.epsilon_lower_bound) if best is not None else 0.0
    worst_i = int(np.argmax(margins)) if margins.size else None
    violated = bool(margins.size and margins[worst_i] > 0.0)
    infinite, infinite_text, zero_text = _zero_counts(
        best, search.densities is not None and best_i is not None
        and bool(split.support_gap[best_i]), level, eps_best)
    tradeoff = _tradeoff(best, level)
    clock.tick("bounds")

    profile = _profile(guarantee, search, tests, budget.alpha_profile)
    profile_violated = any(p.violated for p in profile)
    clock.tick("profile")
    power = _power(bounds, tests.levels, best_i, samples=n, epsilon=eps_c, delta=delta_c)
    clock.tick("power")

    timings = clock.stages(started)
    return PairTestResult(
        mechanism=spec.name, origin=pair.origin, claimed_epsilon=eps_c, claimed_delta=delta_c,
        alpha=a, alpha_events=budget.alpha_events, alpha_per_event=level,
        alpha_profile=budget.alpha_profile,
        samples=n, search_samples=n_s, densities_declared=search.densities is not None,
        families=selected.families + tuple(f"rare {c.family}" for c in budget.rare),
        events=tuple(bounds), regions=tuple(tests.events),
        best_event=best, best_region=best_event, epsilon_lower_bound=eps_best,
        epsilon_lower_bound_infinite=infinite, infinite_evidence=infinite_text,
        zero_count_note=zero_text, violated=violated,
        violation_margin=float(margins[worst_i]) if worst_i is not None else -math.inf,
        violation_epsilon=float(margin_eps[worst_i]) if worst_i is not None else math.nan,
        violating=bounds[worst_i] if violated else None, tradeoff=tradeoff,
        profile=tuple(profile), profile_violated=profile_violated, power=power,
        timings=timings, alpha_declared=budget.alpha_declared, plan=budget.plan,
        test_sizes=(split.sizes["x"], split.sizes["y"]), poissonized=poisson)


# ----------------------------------------------------------------------------------------
# the stages of distinguish_pair, in order
# ----------------------------------------------------------------------------------------
@dataclass
class _Stopwatch:
    """Seconds spent per stage: :meth:`tick` charges the time since the last tick."""

    timings: dict[str, float] = field(default_factory=dict)
    last: float = field(default_factory=time.perf_counter)

    def tick(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = self.timings.get(name, 0.0) + now - self.last
        self.last = now

    def stages(self, started: float) -> dict[str, float]:
        """Seconds per stage of :func:`distinguish_pair`, and in total since ``started``."""
        stages = ["sampling", "densities", "planning", "selection", "event_tests", "bounds",
                  "profile", "power"]
        timings = {stage: self.timings.get(stage, 0.0) for stage in stages}
        timings["total"] = time.perf_counter() - started
        return timings


@dataclass(frozen=True)
class _Search:
    """The search split and the declared law's view of it.

    ``llr`` is the declared log-likelihood ratio (``None`` without declared densities,
    or when they cannot score the outputs), ``direct`` its direct form for additive
    noise of full support, and ``tune`` the loss on a prefix of the search split (the
    profile's bets).
    """

    sx: np.ndarray
    sy: np.ndarray
    densities: DensityPair | None
    direct: Any
    llr: LogLikelihoodRatio | None
    tune: tuple[np.ndarray, np.ndarray] | None


def _search_split(mechanism: Any, pair: CandidatePair, n_s: int, gen: np.random.Generator,
                  clock: _Stopwatch) -> _Search:
    """Draw the search split (x first, then y) and score it with the declared law."""
    sx = _draw(mechanism, pair.x, n_s, gen)
    sy = _draw(mechanism, pair.y, n_s, gen)
    clock.tick("sampling")

    densities = declared_log_densities(mechanism, pair.x, pair.y)
    # additive noise of full support: a direct LLR on the differing coordinates, and no
    # output is impossible under either input (nothing for the support check to find)
    direct = declared_llr(mechanism, pair.x, pair.y) if densities is not None else None
    tune: tuple[np.ndarray, np.ndarray] | None = None      # tunes the profile's bets
    llr = None
    if densities is not None:
        llr = LogLikelihoodRatio(densities.log_p_x, densities.log_p_y, direct=direct,
                                 round_direct=getattr(direct, "has_atoms", True))
        try:
            tune = (llr(sx[:_TUNE_ROWS]), llr(sy[:_TUNE_ROWS]))
        except (PrivauditError, ValueError, TypeError, IndexError):
            densities = llr = direct = None  # outputs the declared law cannot even score
    clock.tick("densities")
    return _Search(sx=sx, sy=sy, densities=densities, direct=direct, llr=llr, tune=tune)


@dataclass(frozen=True)
class _Budget:
    """The pair's α split between rare events, declared-law events, data-driven events
    and the profile (see the module docstring's "Error budget"), with the rare events
    and the declared plan that decide it."""

    rare: tuple[RareCandidate, ...]
    pool_rare: bool
    rare_levels: tuple[float, ...]
    alpha_rare: float
    plan: DeclaredPlan | None
    alpha_profile: float
    alpha_declared: float
    alpha_search: float
    alpha_events: float
    equal_level: float


def _split_budget(mechanism: Any, pair: CandidatePair, search: _Search, *, alpha: float,
                  samples: int, k: int, epsilon: float, delta: float, poisson: bool,
                  ratio_ok: bool, rare_events: bool, declared: bool,
                  clock: _Stopwatch) -> _Budget:
    """Find the rare events (δ > 0, search split only) and plan the declared-law events
    (no sample involved), and split ``alpha`` between them and the rest."""
    a, n = alpha, samples
    densities, llr = search.densities, search.llr
    # -- rare events of (ε, δ) claims (search split only) ------------------------------------
    rare = find_rare_events(mechanism, pair, search.sx, search.sy, epsilon=epsilon,
                            delta=delta, densities=densities) \
        if rare_events and delta > 0 else ()
    # the best of each direction, pooled when disjoint (and the split Poissonised);
    # otherwise the best alone
    pool_rare = len(rare) == 2 and poisson and rare_disjoint(rare[0].event, rare[1].event)
    if not pool_rare:
        rare = rare[:1]
    rare_levels = (POOLED_SHARE, 1.0 - POOLED_SHARE) if pool_rare else (1.0,)
    alpha_rare = RARE_SHARE * a if rare else 0.0
    a_rest = a - alpha_rare
    clock.tick("selection")

    # -- events planned from the declared law (no sample involved) ---------------------------
    plan = None
    if densities is not None and declared and llr is not None:
        law = declared_loss_law(mechanism, pair.x, pair.y, llr)
        if law is not None:
            plan = plan_declared_events(law, llr, delta=delta, samples=n,
                                        alpha=DECLARED_SHARE * a_rest, rate_ratio=ratio_ok)
    alpha_profile = PROFILE_SHARE * a_rest if densities is not None else 0.0
    alpha_declared = DECLARED_SHARE * a_rest if plan is not None and plan.events else 0.0
    alpha_search = a_rest - alpha_profile - alpha_declared
    alpha_events = alpha_declared + alpha_search + alpha_rare
    equal_level = alpha_search / (2 * k)
    clock.tick("planning")
    return _Budget(rare=tuple(rare), pool_rare=pool_rare, rare_levels=rare_levels,
                   alpha_rare=alpha_rare, plan=plan, alpha_profile=alpha_profile,
                   alpha_declared=alpha_declared, alpha_search=alpha_search,
                   alpha_events=alpha_events, equal_level=equal_level)


def _select(search: _Search, budget: _Budget, *, samples: int, search_samples: int, k: int,
            delta: float, planned: bool, ratio_ok: bool, prior_outputs: float,
            clock: _Stopwatch) -> SelectedEvents:
    """The data-driven events and their levels, chosen on the search split
    (:func:`~privaudit.auditing.distinguish.event_candidates.select_events`)."""
    llr, sx, sy = search.llr, search.sx, search.sy
    llr_s: tuple[np.ndarray, np.ndarray] | None = None
    if search.densities is not None and llr is not None and not budget.alpha_declared > 0:
        # the data-driven LLR thresholds need the loss on the whole search split
        try:
            llr_s = search.tune if search_samples <= _TUNE_ROWS else (llr(sx), llr(sy))
        except (PrivauditError, ValueError, TypeError, IndexError) as err:
            raise AuditError(f"the declared densities failed on search outputs: {err}"
                             ) from err
        clock.tick("densities")
    # with a declared plan its LLR thresholds are already tested: the data-driven
    # search looks at the outputs themselves (a net for implementations that depart
    # from their declared law)
    has_plan = budget.alpha_declared > 0
    return select_events(
        sx, sy, delta=delta, alpha=budget.equal_level, events_per_direction=k, llr=llr,
        llr_search=llr_s, budget=budget.alpha_search if planned else None,
        test_samples=samples if planned else None, llr_thresholds=not has_plan,
        rate_ratio=ratio_ok, prior_outputs=prior_outputs)


@dataclass(frozen=True)
class _Tests:
    """Every event to test on the test split, fixed before it is drawn.

    ``events[i]`` is tested in direction ``dirs[i]`` at level ``levels[i]``;
    ``from_histogram`` maps the index of a planned LLR threshold counted from the loss
    histograms to ("ge", k) for {L ≥ k·h} or ("lt", k) for {L < k·h}; ``pooled`` holds
    (primary, mirror) index pairs tested pooled; ``grid`` and ``histograms`` are the
    profile's ε grid and per-side loss histograms (declared densities only).
    """

    events: list[Event]
    dirs: list[str]
    levels: list[float]
    from_histogram: dict[int, tuple[str, int]]
    pooled: list[tuple[int, int]]
    grid: np.ndarray | None
    histograms: dict[str, LossHistogram]


def _assemble_events(search: _Search, budget: _Budget, selected: SelectedEvents, *,
                     epsilon_grid: Any, epsilon: float, delta: float, poisson: bool
                     ) -> _Tests:
    """The declared plan's events, the data-driven ones and the rare ones, in this order,
    with their levels and the pooled pairs."""
    plan, direct = budget.plan, search.direct
    events: list[Event] = []
    dirs: list[str] = []
    levels: list[float] = []
    grid = _profile_grid(epsilon_grid, epsilon) if search.densities is not None else None
    histograms: dict[str, LossHistogram] = {}
    if grid is not None:
        histograms = {"x": LossHistogram(grid), "y": LossHistogram(grid)}
    # planned LLR thresholds of a full-support law, moved onto the histogram's lattice,
    # are counted from the loss histograms (no pass over the outputs): index → ("ge", k)
    # for {L ≥ k·h} or ("lt", k) for {L < k·h}
    from_histogram: dict[int, tuple[str, int]] = {}
    for planned_event in (plan.events if plan is not None else ()):
        region = planned_event.event
        if direct is not None and isinstance(region, ThresholdEvent):
            k = histograms["x"].lattice(region.threshold)
            if k is not None:
                if region.side == "ge":
                    region = ThresholdEvent(region.feature, k * LOSS_STEP, "ge")
                    from_histogram[len(events)] = ("ge", k)
                elif k < histograms["x"].high:  # {L ≤ t} becomes {L < (k + 1)·h} ⊇ it
                    region = ThresholdEvent(region.feature,
                                            float(np.nextafter((k + 1) * LOSS_STEP, -np.inf)),
                                            "le")
                    from_histogram[len(events)] = ("lt", k + 1)
        events.append(region)
        dirs.append(planned_event.direction)
        levels.append(planned_event.weight * budget.alpha_declared)
    for direction in DIRECTIONS:
        chosen = selected.for_direction(direction)
        lv = selected.levels_for(direction) or (budget.equal_level,) * len(chosen)
        events.extend(chosen)
        dirs.extend([direction] * len(chosen))
        levels.extend(lv)
    first_rare = len(events)
    for candidate, share in zip(budget.rare, budget.rare_levels):
        events.append(candidate.event)
        dirs.append(candidate.direction)
        levels.append(share * budget.alpha_rare)
    # pooled tests (δ > 0, Poissonised split): (primary, mirror) indices into events
    pooled: list[tuple[int, int]] = []
    if budget.pool_rare:
        pooled.append((first_rare, first_rare + 1))
    if poisson and delta > 0 and plan is not None:
        roles = {e.role: i for i, e in enumerate(plan.events)}
        i, j = roles.get("main"), roles.get("other direction")
        if i is not None and j is not None and _mirrored(events[i], events[j]):
            pooled.append((i, j))
    return _Tests(events=events, dirs=dirs, levels=levels, from_histogram=from_histogram,
                  pooled=pooled, grid=grid, histograms=histograms)


def _bound_methods(search: _Search, budget: _Budget, tests: _Tests, *, samples: int,
                   ratio_ok: bool) -> np.ndarray:
    """Which events get the rate-ratio bound (a boolean per event), fixed before the test
    split: by the declared law's probabilities for planned events, the search split's for
    the data-driven ones."""
    events, plan, n = tests.events, budget.plan, samples
    use_ratio = np.zeros(len(events), dtype=bool)
    if ratio_ok and events:
        p_lo_est = np.zeros(len(events))
        p_hi_est = np.zeros(len(events))
        n_planned = len(plan.events) if plan is not None else 0
        search_cache: dict[str, dict[int, np.ndarray]] = {"x": {}, "y": {}}
        search_outputs = {"x": search.sx, "y": search.sy}
        for i, event in enumerate(events):
            if i < n_planned:
                p_lo_est[i] = plan.events[i].p_lower_side          # type: ignore[union-attr]
                p_hi_est[i] = plan.events[i].p_upper_side          # type: ignore[union-attr]
                continue
            lo_side, hi_side = ("x", "y") if tests.dirs[i] == "x_vs_y" else ("y", "x")
            p_lo_est[i] = float(np.mean(event_mask(event, search_outputs[lo_side],
                                                   search_cache[lo_side])))
            p_hi_est[i] = float(np.mean(event_mask(event, search_outputs[hi_side],
                                                   search_cache[hi_side])))
        use_ratio = np.asarray(prefers_rate_ratio(
            p_lo_est, p_hi_est, n, n, alpha=np.asarray(tests.levels, dtype=np.float64)),
            dtype=bool).reshape(len(events))
        del search_cache
    return use_ratio


@dataclass(frozen=True)
class _Split:
    """The test split's sizes and per-event counts, and which events' outputs all have
    declared probability 0 under the other input (``support_gap``)."""

    sizes: dict[str, int]
    counts: dict[str, np.ndarray]
    support_gap: np.ndarray


def _count_test_split(mechanism: Any, pair: CandidatePair, search: _Search, tests: _Tests,
                      *, samples: int, poisson: bool, gen: np.random.Generator,
                      chunk_rows: int | None, executor: Executor | None,
                      progress: StreamProgress | None, clock: _Stopwatch) -> _Split:
    """Draw the test split in chunks and count every event on it (and fill the loss
    histograms of ``tests``)."""
    n, events, histograms = samples, tests.events, tests.histograms
    sizes = {"x": n, "y": n}
    if poisson:
        drawn_sizes = gen.poisson(float(n), size=2)
        sizes = {"x": int(drawn_sizes[0]), "y": int(drawn_sizes[1])}
    sx = search.sx
    width = int(np.prod(np.shape(sx)[1:])) if np.ndim(sx) > 1 else 1
    # the test split is drawn in fixed blocks, each from its own SeedSequence child of
    # one root drawn here, so that the counts do not depend on the chunk size
    # (privaudit.execution.streaming)
    root = root_seed(gen)
    per_block = block_rows(width)
    counts = {"x": np.zeros(len(events), dtype=np.int64),
              "y": np.zeros(len(events), dtype=np.int64)}
    # infinite evidence: every in-event output of the lower-bounded side has declared
    # probability 0 under the other input
    support_gap = np.full(len(events), search.direct is None and search.densities is not None)
    check_gap = bool(support_gap.any())

    def count_chunk(side: str, out: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                         LossHistogram | None]:
        return _count_chunk(search, tests, support_gap, check_gap, side, out, clock)

    for stream, side, data in ((0, "x", pair.x), (1, "y", pair.y)):
        tally = stream_chunks(
            lambda m, g, data=data: _draw(mechanism, data, m, g), sizes[side], root=root,
            stream=stream, consume=lambda out, side=side: count_chunk(side, out),
            rows_per_block=per_block, chunk_rows=chunk_rows, executor=executor,
            progress=progress)
        for chunk_counts, reached, hist in tally:
            counts[side] += chunk_counts
            support_gap &= ~reached
            if hist is not None:
                histograms[side].merge(hist)
    for i, (how, k_lattice) in tests.from_histogram.items():
        for side in "xy":
            hist = histograms[side]
            counts[side][i] = hist.count_at_least(k_lattice) if how == "ge" \
                else hist.count_below(k_lattice)
    return _Split(sizes=sizes, counts=counts, support_gap=support_gap)


def _count_chunk(search: _Search, tests: _Tests, support_gap: np.ndarray, check_gap: bool,
                 side: str, out: np.ndarray, clock: _Stopwatch
                 ) -> tuple[np.ndarray, np.ndarray, LossHistogram | None]:
    """Counts of the events, support hits and loss histogram of one chunk of ``side``."""
    densities, direct, llr = search.densities, search.direct, search.llr
    events, dirs = tests.events, tests.dirs
    clock.tick("sampling")
    # small-range integer outputs (values or rows): one bincount, then everything
    # on the distinct outputs
    out, weights = _distinct_outputs(out)
    loss = other_log = None
    if densities is not None:
        try:
            if direct is not None:
                loss = llr(out)                              # type: ignore[misc]
            else:
                lpx, lpy = densities.log_p_x(out), densities.log_p_y(out)
                loss = llr_from(lpx, lpy)
                other_log = lpy if side == "x" else lpx
                del lpx, lpy
        except (PrivauditError, ValueError, TypeError, IndexError) as err:
            raise AuditError(f"the declared densities failed on test outputs: {err}"
                             ) from err
    clock.tick("densities")
    cache: dict[int, np.ndarray] = {}
    if llr is not None:
        cache[id(llr)] = loss                                # type: ignore[assignment]
    # outputs the other input's declared law can produce (for the support check)
    possible = None
    if other_log is not None and check_gap:
        possible = ~np.isneginf(other_log)
        if possible.all():
            possible = True                                  # type: ignore[assignment]
    chunk_counts = np.zeros(len(events), dtype=np.int64)
    reached = np.zeros(len(events), dtype=bool)
    for i, event in enumerate(events):
        if i in tests.from_histogram:
            continue
        hit = event_mask(event, out, cache)
        c = int(np.count_nonzero(hit)) if weights is None else int(weights[hit].sum())
        chunk_counts[i] = c
        lo_side = "x" if dirs[i] == "x_vs_y" else "y"
        if possible is not None and side == lo_side and support_gap[i] and c:
            reached[i] = True if possible is True else bool(np.any(hit & possible))
    del cache
    clock.tick("event_tests")
    hist = None
    if densities is not None:
        hist = LossHistogram(tests.grid)                     # type: ignore[arg-type]
        hist.add(loss, weights)                              # type: ignore[arg-type]
        clock.tick("profile")
    return chunk_counts, reached, hist


def _mirrored(a: Event, b: Event) -> bool:
    """Whether two planned LLR thresholds are {L ≥ s} and {L ≤ t} with t < s (disjoint)."""
    if not (isinstance(a, ThresholdEvent) and isinstance(b, ThresholdEvent)
            and a.feature is b.feature and {a.side, b.side} == {"ge", "le"}):
        return False
    ge, le = (a, b) if a.side == "ge" else (b, a)
    return le.threshold < ge.threshold


#: Search rows used to tune the profile's bets (a fixed prefix of the search split).
_TUNE_ROWS = 1 << 16


def _cp_lower_each(k: np.ndarray, n: list[int], alpha: np.ndarray) -> np.ndarray:
    return np.asarray([float(cp_lower(int(ki), int(ni), float(ai)))
                       for ki, ni, ai in zip(k, n, alpha)])


def _cp_upper_each(k: np.ndarray, n: list[int], alpha: np.ndarray) -> np.ndarray:
    return np.asarray([float(cp_upper(int(ki), int(ni), float(ai)))
                       for ki, ni, ai in zip(k, n, alpha)])


def _event_bounds(tests: _Tests, split: _Split, use_ratio: np.ndarray, guarantee: Any, *,
                  samples: int, epsilon: float, delta: float, poisson: bool
                  ) -> tuple[list[EventBound], np.ndarray, np.ndarray]:
    """Each event's exact bounds (Clopper–Pearson or rate ratio; pooled pairs pooled),
    ε_lb and violation margin over the claimed profile, and the ε of that margin."""
    n, events, dirs, levels = samples, tests.events, tests.dirs, tests.levels
    counts, sizes = split.counts, split.sizes
    eps_c, delta_c = epsilon, delta
    bounds: list[EventBound] = []
    margins = np.zeros(0)
    margin_eps = np.zeros(0)
    count_lo = [int(counts["x" if d == "x_vs_y" else "y"][i]) for i, d in enumerate(dirs)]
    count_hi = [int(counts["y" if d == "x_vs_y" else "x"][i]) for i, d in enumerate(dirs)]
    size_lo = [sizes["x" if d == "x_vs_y" else "y"] for d in dirs]
    size_hi = [sizes["y" if d == "x_vs_y" else "x"] for d in dirs]
    if not events:
        return bounds, margins, margin_eps
    c_lo = np.asarray(count_lo, dtype=np.int64)
    c_hi = np.asarray(count_hi, dtype=np.int64)
    lv = np.asarray(levels, dtype=np.float64)
    p_lo = np.atleast_1d(_cp_lower_each(c_lo, size_lo, lv / 2.0))
    p_hi = np.atleast_1d(_cp_upper_each(c_hi, size_hi, lv / 2.0))
    eps_lb = np.atleast_1d(np.asarray([
        float(epsilon_lower_bound(int(c_lo[i]), size_lo[i], int(c_hi[i]), size_hi[i],
                                  alpha=float(lv[i]), delta=delta_c))
        for i in range(len(events))]))
    mgrid = default_margin_grid(p_lo, p_hi, eps_c)
    margins, margin_eps = violation_margin(p_lo, p_hi, guarantee, mgrid,
                                           return_epsilon=True)
    margins, margin_eps = np.atleast_1d(margins), np.atleast_1d(margin_eps)
    if use_ratio.any():
        # rate-ratio events (pure claims only): ε_lb = ln r̲, and the margin on the
        # probability scale (r̲ − e^{ε_c})·p̄_y, positive exactly when ln r̲ > ε_c
        ratio = np.asarray([float(rate_ratio_lower_bound(
            int(c_lo[i]), int(c_hi[i]), float(n), float(n), alpha=float(lv[i])))
            for i in range(len(events))])
        with np.errstate(divide="ignore"):
            eps_ratio = np.where(ratio > 1.0, np.log(np.where(ratio > 1.0, ratio, 1.0)),
                                 0.0)
            margin_ratio = (ratio - math.exp(eps_c)) * p_hi
        eps_lb = np.where(use_ratio, eps_ratio, eps_lb)
        margins = np.where(use_ratio, margin_ratio, margins)
        margin_eps = np.where(use_ratio, eps_c, margin_eps)
    for i, event in enumerate(events):
        bounds.append(EventBound(
            description=event.description, direction=dirs[i], count_x=count_lo[i],
            count_y=count_hi[i], samples_x=size_lo[i], samples_y=size_hi[i],
            p_x_lower=float(p_lo[i]), p_y_upper=float(p_hi[i]), alpha=float(lv[i]),
            epsilon_lower_bound=float(eps_lb[i]), delta=delta_c,
            method="rate_ratio" if use_ratio[i] else "clopper_pearson",
            poisson_mean=float(n) if poisson else None))

    for i, j in tests.pooled:
        # the primary's level tests the pooled pair; the mirror keeps its own test
        pb = pooled_bound(count_lo[i], count_hi[i], count_lo[j], count_hi[j],
                          poisson_mean=float(n), alpha=float(levels[i]), delta=delta_c)
        m_i, e_i = violation_margin(np.asarray([pb.p_lower]), np.asarray([pb.p_upper]),
                                    guarantee, mgrid, return_epsilon=True)
        margins[i], margin_eps[i] = float(np.ravel(m_i)[0]), float(np.ravel(e_i)[0])
        total = sizes["x"] + sizes["y"]
        other = "y" if dirs[i] == "x_vs_y" else "x"
        bounds[i] = EventBound(
            description=f"{events[i].description} + M({other}) in {events[j].description}"
                        " (pooled)",
            direction=dirs[i], count_x=pb.count_lower, count_y=pb.count_upper,
            samples_x=total, samples_y=total, p_x_lower=pb.p_lower, p_y_upper=pb.p_upper,
            alpha=float(levels[i]), epsilon_lower_bound=pb.epsilon_lower_bound,
            delta=delta_c, method="pooled_poisson", poisson_mean=float(n))
    return bounds, margins, margin_eps


def _best_index(bounds: list[EventBound], margins: np.ndarray, declared: bool,
                support_gap: np.ndarray) -> int | None:
    """The event with the largest ε_lb (ties: largest margin); a declared support
    mismatch (ε = ∞ under the declared law) outranks any finite bound."""
    if not bounds:
        return None
    key = np.lexsort((margins, [b.epsilon_lower_bound for b in bounds]))
    best_i = int(key[-1])
    gaps = [i for i, b in enumerate(bounds) if declared and support_gap[i]
            and b.count_y == 0 and b.count_x > 0]
    if gaps:
        best_i = max(gaps, key=lambda i: (bounds[i].epsilon_lower_bound, margins[i]))
    return best_i


def _zero_counts(best: EventBound | None, support_gap: bool, level: float, eps_best: float
                 ) -> tuple[bool, str, str]:
    """(infinite, infinite_evidence, zero_count_note) of the best event: a declared
    support mismatch when its count_y = 0 < count_x and ``support_gap`` (every in-event
    output has declared probability 0 under the other input), else a note on the finite
    bound a zero count allows."""
    if best is None or not (best.count_y == 0 and best.count_x > 0):
        return False, "", ""
    lo_side = "x" if best.direction == "x_vs_y" else "y"
    other = "y" if lo_side == "x" else "x"
    if support_gap:
        return True, (
            f"S = '{best.description}' holds {best.count_x} of {best.samples_x} test outputs of "
            f"M({lo_side}) and none of M({other}); every one of them has declared "
            f"probability 0 under {other}, so S' = S ∩ {{o : p_{other}(o) = 0}} has "
            f"P[M({other}) ∈ S'] = 0 under the declared law and P[M({lo_side}) ∈ S'] >= "
            f"{best.p_x_lower:.4g} (Clopper-Pearson, level {level / 2:.3g}): "
            f"epsilon = inf if the implementation follows its declared law."), ""
    return False, "", (
        f"no output of M({other}) fell in '{best.description}' ({best.samples_y} test "
        f"outputs); "
        f"the finite bound {eps_best:.4g} uses the CP upper bound "
        f"{best.p_y_upper:.3g} on P[M({other}) in S] and is limited by the sample "
        f"size, not by the mechanism.")


def _tradeoff(best: EventBound | None, level: float) -> TradeoffPoint | None:
    """The best event as a point (α0, α1) of the hypothesis-testing trade-off."""
    if best is None:
        return None
    return TradeoffPoint(
        alpha0=1.0 - best.p_x_lower,
        alpha0_interval=(1.0 - float(cp_upper(best.count_x, best.samples_x, level / 2.0)),
                         1.0 - best.p_x_lower),
        alpha1=best.p_y_upper,
        alpha1_interval=(float(cp_lower(best.count_y, best.samples_y, level / 2.0)),
                         best.p_y_upper),
        level=level)


def _profile(guarantee: Any, search: _Search, tests: _Tests, alpha_profile: float
             ) -> list[ProfilePoint]:
    """The declared privacy-loss profile's lower bounds against the claim (declared
    densities only; Bonferroni over 2 directions × the ε grid)."""
    profile: list[ProfilePoint] = []
    tune, grid, histograms = search.tune, tests.grid, tests.histograms
    if search.densities is None or tune is None or grid is None:
        return profile
    claimed = np.asarray([guarantee.delta_for_epsilon(float(e)) for e in grid])
    per_point = alpha_profile / (2 * grid.size)
    for direction, bet_rows, side in (("x_vs_y", tune[0], "x"), ("y_vs_x", -tune[1], "y")):
        lower, estimate = profile_lower_bounds(
            loss_moments(bet_rows, grid),
            histograms[side].moments(1 if side == "x" else -1), alpha=per_point)
        for j, e in enumerate(grid):
            profile.append(ProfilePoint(
                epsilon=float(e), delta_claimed=float(claimed[j]),
                delta_lower_bound=float(lower[j]), delta_estimate=float(estimate[j]),
                direction=direction, alpha=per_point))
    return profile


def _power(bounds: list[EventBound], levels: list[float], best_i: int | None, *,
           samples: int, epsilon: float, delta: float) -> PowerStatement | None:
    """The power statement of the most sensitive tested event.

    The pair is reported as violating when ANY tested event's bound exceeds the claim,
    so P(detect) ≥ P(event S alone detects) for every S: the power is that of the most
    sensitive tested event (smallest detectable ε at its own level and P[M(y) ∈ S]).
    """
    if best_i is None:
        return None
    n, eps_c, delta_c = samples, epsilon, delta
    order = [best_i] + [i for i in range(len(bounds))
                        if i != best_i and 0.0 < float(levels[i]) < 1.0]
    chosen = None
    for i in order:
        b = bounds[i]
        p_y_i = (b.count_y + 0.5) / (b.samples_y + 1.0)
        d_i = detectable_epsilon(p_y_i, n, n, alpha=float(levels[i]), delta=delta_c,
                                 claimed_epsilon=eps_c, probability=POWER_PROBABILITY,
                                 tolerance=1e-3)
        if chosen is None or d_i < chosen[0]:
            chosen = (d_i, i, p_y_i)
    assert chosen is not None
    detectable, power_i, p_y = chosen
    head = (f"with {n} test outputs per side and P[M(second input) in S] ~ {p_y:.3g}, "
            f"an event like '{bounds[power_i].description}' ")
    if math.isinf(detectable):
        text = (head + f"cannot reveal any true epsilon above the claim {eps_c:g} "
                f"(delta {delta_c:g}) with probability >= {POWER_PROBABILITY:g}")
    else:
        text = (head + f"reveals a true epsilon of {detectable:.4g} or more (claim "
                f"{eps_c:g}, delta {delta_c:g}) with probability >= {POWER_PROBABILITY:g}")
    return PowerStatement(detectable_epsilon=detectable, probability=POWER_PROBABILITY,
                          samples=n, statement=text, p_y=p_y, alpha=float(levels[power_i]))
