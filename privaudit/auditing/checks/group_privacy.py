"""Group privacy of local node privacy: audits at node distance k > 1.

Tests the claim an (ε, δ) claim implies at node distance k, (kε, δ Σ_{j<k} e^{jε}), on the
pairs of :meth:`spec.LocalNodeRelation.group_pairs`: exactly from the declared law, and
black-box with the auditor's pair test.  Prefer ``privaudit.audit(mech, group=k,
claim=...)`` (it uses :func:`group_setup` and :func:`check_group_exact`);
:func:`audit_group_privacy` is kept for existing callers.

References: Dwork & Roth 2014, Theorem 2.2; Raskhodnikova, Smith, Wagaman & Zavyalov,
arXiv:2602.15802, Lemma A.7.  Details: ``docs/engine_notes.md``,
"privaudit.auditing.checks.group_privacy".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from privaudit.auditing.checks._common import REL_TOL, pair_counterexample
from privaudit.auditing.checks._local_node_spec import (
    _graph_domain,
    _laplace_scale,
    _local_relation,
)
from privaudit.auditing.checks.local_node import _delta_at, _law_of, local_node_checks_apply
from privaudit.auditing.distinguish import distinguish_pair, draw_pair_test
from privaudit.auditing.outcome.results import CheckOutcome
from privaudit.auditing.pairs import CandidatePair
from privaudit.mechanisms import Mechanism
from privaudit.spec import (
    ApproxDP,
    GaussianDP,
    MechanismSpec,
    NeighbourDecision,
    PureDP,
    RandomLike,
    RenyiDP,
    ZeroConcentratedDP,
    as_generator,
)
from privaudit.spec.errors import InvalidParameterError, PrivauditError, UnsupportedCombinationError

__all__ = [
    "GroupPrivacyResult",
    "audit_group_privacy",
    "check_group_exact",
    "group_exact_refutation",
    "group_guarantee",
    "group_setup",
]


def group_guarantee(spec: MechanismSpec, k: int) -> PureDP | ApproxDP:
    """(kε, δ Σ_{j<k} e^{jε}) from the spec's (ε, δ) claim (group privacy)."""
    g = spec.guarantee
    if not isinstance(g, (PureDP, ApproxDP)):
        raise UnsupportedCombinationError(
            f"group privacy is stated here for pure and (epsilon, delta) claims, got "
            f"{type(g).__name__}"
        )
    eps, delta = float(g.epsilon), float(getattr(g, "delta", 0.0))
    if delta == 0.0:
        return PureDP(epsilon=k * eps)
    group_delta = delta * float(np.sum(np.exp(eps * np.arange(k))))
    return ApproxDP(epsilon=k * eps, delta=min(group_delta, 1.0 - 1e-12))


def _group_spec(inner: MechanismSpec, k: int, claim: Any) -> MechanismSpec:
    """The inner spec claiming ``claim`` (default: the group bound) at distance ``k``.

    The spec is rebuilt and re-validated; when the distance-1 consistency rules refuse it
    (a claim at distance k need not satisfy them), the inner spec is copied with the new
    claim, unvalidated, as the group audit did before.
    """
    guarantee = group_guarantee(inner, k) if claim is None else claim
    if not isinstance(guarantee, (PureDP, ApproxDP, RenyiDP, ZeroConcentratedDP, GaussianDP)):
        raise InvalidParameterError(
            f"claim must be a privacy guarantee (PureDP, ApproxDP, ...), got {claim!r}"
        )
    update = {"guarantee": guarantee, "name": f"{inner.name}@group={k}"}
    try:
        return MechanismSpec.model_validate({**dict(inner), **update})
    except PrivauditError:
        # the declared law and sensitivity are facts about the mechanism, kept for
        # planning events; only the distance-1 consistency rule (e.g. classical Gaussian
        # calibration below ε = 1) does not apply to a claim at distance k
        return inner.model_copy(update=update)


class _GroupClaim(Mechanism):
    """The same mechanism, whose spec claims the group guarantee at distance k."""

    def __init__(self, inner: Mechanism, k: int, claim: Any = None) -> None:
        super().__init__(_group_spec(inner.spec, k, claim))
        self._inner = inner
        self._k = k

    @property
    def report_spec(self) -> MechanismSpec:
        """The spec a report carries: the group spec when it is a valid spec; when the
        distance-1 rules refuse the group claim (a claim below what the declared law
        delivers at distance 1, e.g. ε = 0.5 for a group of a Laplace release of ε = 1),
        the inner spec under the group's name (the claim is the report's
        ``epsilon_claimed`` and ``delta_claimed``)."""
        try:
            return MechanismSpec.model_validate(self.spec.model_dump())
        except PrivauditError:
            return self._inner.spec.model_copy(update={"name": self.spec.name})

    def provides(self, hook: str) -> bool:
        return self._inner.provides(hook)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self._inner.sample(data, size, rng)

    def statistic(self, data: Any) -> Any:
        return self._inner.statistic(data)

    def output_probabilities(self, data: Any) -> np.ndarray:
        return self._inner.output_probabilities(data)


def group_setup(
    mechanism: Mechanism, k: int, claim: Any = None
) -> tuple[Mechanism, list[CandidatePair]]:
    """(the mechanism claiming the group guarantee, the relation's pairs at distance k).

    Raises
    ------
    UnsupportedCombinationError
        If the spec's relation defines no group pairs (``group_pairs(domain, k)``), or
        yields none at distance ``k`` within the domain.
    InvalidParameterError
        If ``k`` is not an integer ≥ 1 or ``claim`` is not a privacy guarantee.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or int(k) < 1:
        raise InvalidParameterError(f"group must be an integer >= 1, got {k!r}")
    spec = mechanism.spec
    generate = getattr(spec.relation, "group_pairs", None)
    if not callable(generate):
        raise UnsupportedCombinationError(
            f"the {spec.relation.kind!r} relation of {mechanism.name!r} defines no group pairs "
            "(inputs at distance k); group audits need a relation with group_pairs(domain, k)"
        )
    pairs = [
        CandidatePair(
            x=spec.input_domain.validate(x),
            y=spec.input_domain.validate(y),
            origin=f"group_{origin}",
            decision=NeighbourDecision(True, f"distance {int(k)}", float(k)),
        )
        for x, y, origin in generate(spec.input_domain, int(k))
    ]
    if not pairs:
        raise UnsupportedCombinationError(
            f"the {spec.relation.kind!r} relation has no pair at distance {k} on "
            f"{spec.input_domain.label()}"
        )
    pairs += _heavy_pairs(mechanism, int(k), pairs[0])
    return _GroupClaim(mechanism, int(k), claim), pairs


#: Records whose single-record influence is measured to find a heavy group (larger
#: datasets: the first ones, then evenly spaced).
HEAVY_SCAN = 4096


def _heavy_pairs(mechanism: Mechanism, k: int, first: CandidatePair) -> list[CandidatePair]:
    """Group pairs on the k records the statistic weighs most (origin ``group_heavy_*``).

    The relation's own group pairs move the first k records; a statistic that weighs
    records unequally (light ones first) is moved most by others.  With the ``statistic``
    hook, each record's influence ‖f(x with record i high) − f(x)‖ is measured on the
    all-low dataset of ``first``, and the k largest give the pair.  Empty without the hook
    or when the relation takes no ``positions``.
    """
    spec = mechanism.spec
    if not mechanism.provides("statistic") or k < 1:
        return []
    try:
        generate: Any = getattr(spec.relation, "group_pairs", None)
        if generate is None:
            return []
        x, y = np.asarray(first.x), np.asarray(first.y)
        if x.ndim == 0 or x.shape != y.shape or x.shape[0] <= k:
            return []
        n = x.shape[0]
        scan = np.unique(np.linspace(0, n - 1, min(n, HEAVY_SCAN)).astype(np.int64))
        base = np.atleast_1d(np.asarray(mechanism.statistic(x), dtype=np.float64))
        influence = np.zeros(scan.size)
        for j, i in enumerate(scan):
            moved = x.copy()
            moved[i] = y[0]
            shift = np.atleast_1d(np.asarray(mechanism.statistic(moved), dtype=np.float64))
            influence[j] = float(np.abs(shift - base).sum())
        heavy = np.sort(scan[np.argsort(-influence, kind="stable")[:k]])
        if np.array_equal(heavy, np.arange(k)):
            return []  # the relation's own pairs already move these records
        found = generate(spec.input_domain, k, positions=[int(i) for i in heavy])
    except (TypeError, PrivauditError):  # no positions= for this relation, or a hook error
        return []
    return [
        CandidatePair(
            x=spec.input_domain.validate(a),
            y=spec.input_domain.validate(b),
            origin=f"group_heavy_{origin}",
            decision=NeighbourDecision(True, f"distance {k}", float(k)),
        )
        for a, b, origin in found
    ]


def check_group_exact(inner: Mechanism, claim: Any, pairs: list[CandidatePair]) -> CheckOutcome:
    """``group.exact``: the exact δ(ε_group) of the joint messages at each group pair.

    White-box (from the declared law and the ``statistic`` or ``output_probabilities``
    hook; :func:`~privaudit.auditing.checks.local_node._delta_at`): Gaussian and finite laws against
    δ_group, Laplace under a pure claim by the ℓ1 loss bound against ε_group.  Skipped, with
    the reason, when no exact accounting applies (the distinguishing test on the same
    pairs is the black-box version).
    """
    name = "group.exact"
    law = _law_of(inner) if local_node_checks_apply(inner) else None
    from privaudit.statistics import claimed_point

    eps_k, delta_k = (float(v) for v in claimed_point(claim))
    if law is None:
        return CheckOutcome(
            name=name,
            status="skipped",
            summary="no exact accounting of the joint messages (needs a "
            "local-node spec with the statistic or "
            "output_probabilities hook); the distinguishing test on "
            "the group pairs is the black-box version",
        )
    family, params = law
    worst: tuple[float, CandidatePair | None, float] = (-1.0, None, 0.0)
    for pair in pairs:
        p, q = params(pair.x), params(pair.y)
        if family == "laplace" and delta_k == 0.0:
            value, limit = float(np.abs(p - q).sum()) / _laplace_scale(inner), eps_k
        elif family in ("gaussian", "finite"):
            value, limit = _delta_at(family, inner, p, q, eps_k)[1], delta_k
        else:
            continue
        ratio = value / limit if limit > 0 else (math.inf if value > 1e-15 else 0.0)
        if ratio > worst[0]:
            worst = (ratio, pair, value)
    ratio, worst_pair, value = worst
    if worst_pair is None:
        return CheckOutcome(
            name=name,
            status="skipped",
            summary=f"no exact accounting for {family} messages under this "
            "claim; the distinguishing test is the black-box version",
        )
    limit = eps_k if family == "laplace" and delta_k == 0.0 else delta_k
    bad = value > limit * (1 + REL_TOL) + (0.0 if limit == eps_k and delta_k == 0 else 1e-15)
    what = "l1 loss bound" if family == "laplace" and delta_k == 0.0 else f"exact delta({eps_k:g})"
    return CheckOutcome(
        name=name,
        status="violated" if bad else "passed",
        summary=f"worst group pair ({worst_pair.origin}): {what} = {value:.4g} "
        f"{'>' if bad else '<='} {limit:g}",
        statistic=value,
        threshold=limit,
        counterexample=pair_counterexample(
            worst_pair.x,
            worst_pair.y,
            worst_pair.origin,
            worst_pair.decision.reason,
            value=value,
        )
        if bad
        else None,
        details={"pairs": len(pairs), "family": family},
    )


def group_exact_refutation(
    inner: Mechanism, claim: Any, tested: Sequence[tuple[CandidatePair, float]], alpha: float
) -> CheckOutcome | None:
    """``group.sampling_agreement``: the audit's own samples against the exact group figures.

    A sampling lower bound ε̲ at δ_group on a tested pair certifies δ(ε̲) > δ_group there;
    if the declared law (the hook ``group.exact`` reads) gives δ(ε̲) ≤ δ_group at that pair
    (for a pure Laplace claim: an ℓ1 loss bound below ε̲), the hook does not describe the
    sampler and the exact figures do not hold, as at distance 1
    (:func:`~privaudit.auditing.exact.privacy.sampling_refutation`).  ``None`` when they
    agree or no exact accounting applies.
    """
    law = _law_of(inner) if local_node_checks_apply(inner) else None
    if law is None:
        return None
    family, params = law
    from privaudit.statistics import claimed_point

    _, delta_k = (float(v) for v in claimed_point(claim))
    for pair, bound in tested:
        if not bound > 0:
            continue
        p, q = params(pair.x), params(pair.y)
        eps = min(float(bound), 700.0)
        if family == "laplace" and delta_k == 0.0:
            allowed = float(np.abs(p - q).sum()) / _laplace_scale(inner)
            agrees = eps <= allowed * (1 + REL_TOL) + 1e-12
            shown = f"their l1 loss bound is {allowed:.4g}"
        elif family in ("gaussian", "finite"):
            exact = _delta_at(family, inner, p, q, eps)[1]
            agrees = exact > delta_k * (1 + 1e-9) + 1e-12
            shown = f"they give delta({eps:.4g}) = {exact:.3g} <= {delta_k:g}"
        else:
            continue
        if agrees:
            continue
        return CheckOutcome(
            name="group.sampling_agreement",
            status="violated",
            summary=(
                f"REFUTED by sampling: the audit's samples certify epsilon >= {bound:.4g} on "
                f"the group pair {pair.origin!r}, where the declared law and hook allow less "
                f"({shown}): the hook does not describe the sampler, so group.exact does not "
                "hold"
            ),
            statistic=float(bound),
            threshold=0.0,
            error_rate=alpha,
            counterexample=pair_counterexample(
                pair.x, pair.y, pair.origin, pair.decision.reason, epsilon_lower_bound=bound
            ),
        )
    return None


@dataclass(frozen=True)
class GroupPrivacyResult:
    """One pair at node distance k, against the group claim.

    Attributes
    ----------
    k : int
        The node distance of the pair.
    origin : str
        Which generator of :meth:`spec.LocalNodeRelation.group_pairs` made it.
    epsilon_group, delta_group : float
        The implied group claim (kε, δ Σ_{j<k} e^{jε}).
    exact_value : float
        White-box: δ(kε) of the joint messages (Gaussian, finite laws) or the ℓ1 loss
        bound (Laplace, compared with kε); NaN when the law has no exact accounting here.
    exact_violated : bool
        Whether ``exact_value`` exceeds the group claim.
    epsilon_lower_bound : float
        Black-box: the auditor's ε lower bound at δ_group on this pair.
    violated : bool
        The black-box test refutes the group claim (at the pair's share of α).
    """

    k: int
    origin: str
    epsilon_group: float
    delta_group: float
    exact_value: float
    exact_violated: bool
    epsilon_lower_bound: float
    violated: bool


def audit_group_privacy(
    mechanism: Mechanism,
    k: int,
    *,
    samples: int = 50_000,
    rng: RandomLike = None,
    alpha: float = 0.05,
) -> list[GroupPrivacyResult]:
    """Exact and black-box audit of the group claim at node distance ``k``.

    Parameters
    ----------
    mechanism : Mechanism
        A mechanism whose spec claims privacy under ``LocalNodeRelation``.
    k : int
        The node distance (≥ 1).
    samples : int
        Test outputs per side of each pair (the search split is a quarter of it).
    rng : Generator, int or None
        The only source of randomness (seed it for reproducible results).
    alpha : float
        Family-wise error over the pairs: each black-box test runs at α / (number of pairs).

    Raises
    ------
    UnsupportedCombinationError
        If the spec is not a local node claim, or its guarantee is not pure or (ε, δ).
    InvalidParameterError
        If ``k`` is not an integer in [1, n − 1] or ``alpha`` is not in (0, 1).
    """
    if not local_node_checks_apply(mechanism):
        raise UnsupportedCombinationError(
            f"{mechanism.name!r} does not claim privacy under LocalNodeRelation on graphs"
        )
    if not 0.0 < float(alpha) < 1.0:
        raise InvalidParameterError(f"alpha must lie in (0, 1), got {alpha!r}")
    spec = mechanism.spec
    pairs = _local_relation(mechanism).group_pairs(_graph_domain(mechanism), k)
    claim = _GroupClaim(mechanism, int(k))
    group_guarantee = claim.spec.guarantee
    if not isinstance(group_guarantee, (PureDP, ApproxDP, RenyiDP)):
        raise UnsupportedCombinationError(
            "the exact group check needs an epsilon claim (pure, (epsilon, delta) or Renyi), "
            f"got {type(group_guarantee).__name__}"
        )
    eps_k = float(group_guarantee.epsilon)
    delta_k = float(getattr(group_guarantee, "delta", 0.0))
    law = _law_of(mechanism)
    gen = as_generator(rng)
    out = []
    for x, y, origin in pairs:
        exact, bad = math.nan, False
        if law is not None:
            family, params = law
            p, q = params(x), params(y)
            if family == "laplace" and delta_k == 0.0:
                exact = float(np.abs(p - q).sum()) / _laplace_scale(mechanism)
                bad = exact > eps_k * (1 + REL_TOL)
            elif family in ("gaussian", "finite"):
                exact = _delta_at(family, mechanism, p, q, eps_k)[1]
                bad = exact > delta_k * (1 + REL_TOL) + 1e-15
        pair = CandidatePair(
            x=spec.input_domain.validate(x),
            y=spec.input_domain.validate(y),
            origin=origin,
            decision=NeighbourDecision(True, f"node distance {k}", float(k)),
        )
        draws = draw_pair_test(
            claim, pair, samples=samples, search_samples=max(1_000, samples // 4), rng=gen
        )
        result = distinguish_pair(claim, pair, draws, alpha=alpha / len(pairs))
        out.append(
            GroupPrivacyResult(
                k=int(k),
                origin=origin,
                epsilon_group=eps_k,
                delta_group=delta_k,
                exact_value=float(exact),
                exact_violated=bool(bad),
                epsilon_lower_bound=(
                    math.inf
                    if result.epsilon_lower_bound_infinite
                    else float(result.epsilon_lower_bound)
                ),
                violated=bool(result.violated),
            )
        )
    return out
