"""The declared law tested at every input of the pairs it ranked, before any pair is
skipped on its word: ``noise_law.ranked_pairs``.

A gray-box pair choice ranks pairs by the declared law and tests the best (one of a tie);
that is right only if the sampler draws the declared law at the skipped pairs' inputs.
The check runs the conformance battery there (and at every input of a finite domain the
exact audit enumerates), at its share of α in the plan; the pairs at a rejected input are
tested too.  Rationale and numbers: ``docs/trust.md``, "Shortcuts and assumptions".
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from privaudit.auditing.checks import check_noise_law
from privaudit.auditing.choice.halving import PairChoice
from privaudit.auditing.config import AuditConfig
from privaudit.auditing.exact.privacy import EXACT_MAX_INPUTS
from privaudit.auditing.outcome.results import CheckOutcome, counterexample_of, jsonable_details
from privaudit.auditing.pairs import CandidatePair, input_key, pair_key, to_jsonable, verified_pair
from privaudit.mechanisms import Mechanism
from privaudit.spec.errors import PrivauditError

__all__ = [
    "RANKED_LAW_MAX_DOMAIN",
    "RANKED_LAW_MIN_DRAWS",
    "RankedPairsLaw",
    "check_ranked_pairs_law",
    "ranked_law_draws",
]

_NAME = "noise_law.ranked_pairs"
#: Fewest draws per input (the goodness-of-fit battery's tail tests need N·q ≥ 20 at
#: q = 10⁻²).
RANKED_LAW_MIN_DRAWS = 2_000
#: Finite domains up to this size have the law tested at every one of their inputs: every
#: pair of such a domain is ranked (or skipped) on the declared law's word, generated or
#: not, and the exact audit's "all pairs" figures rest on the law at each of them (the same
#: size as the exact audit's enumeration).
RANKED_LAW_MAX_DOMAIN = EXACT_MAX_INPUTS
#: Independence designs of the inputs' finite-randomizer tests, least checked first (the
#: report states the weakest).
_DESIGNS = ("random", "screened", "all_pairs")


@dataclass(frozen=True)
class RankedPairsLaw:
    """The check and what it changes: the pairs to test and the α it spent.

    Attributes
    ----------
    choice : PairChoice
        The choice, with the ranked pairs at a rejected input appended (best first).
    alpha : float
        The α the check spent (0 when it did not run).
    outcomes : tuple of CheckOutcome
        ``"noise_law.ranked_pairs"``; none when no pair was ranked by a declared law.
    """

    choice: PairChoice
    alpha: float
    outcomes: tuple[CheckOutcome, ...]


def ranked_law_draws(cfg: AuditConfig, inputs: int) -> int:
    """Draws per input: 2·``samples`` over ``inputs``, at least
    :data:`RANKED_LAW_MIN_DRAWS`, at most ``conformance_samples`` (an audit of 10
    samples draws 10 per input)."""
    share = (2 * cfg.samples) // max(1, inputs)
    return min(cfg.effective_conformance_samples, max(RANKED_LAW_MIN_DRAWS, share))


def _small_finite(mechanism: Mechanism) -> list[Any] | None:
    """Every input of a finite domain of at most :data:`RANKED_LAW_MAX_DOMAIN` elements."""
    domain = mechanism.spec.input_domain
    if not domain.is_finite or domain.cardinality > RANKED_LAW_MAX_DOMAIN:
        return None
    return [domain.validate(v) for v in domain.enumerate()]


def _domain_pairs(
    mechanism: Mechanism, inputs: list[Any], best: CandidatePair, seen: set[str]
) -> list[CandidatePair]:
    """For each of ``inputs`` that no ranked pair holds, a pair holding it: with the best
    ranked pair's input when they are neighbours, else its first neighbour (the pair is
    tested if the law fails there)."""
    spec = mechanism.spec
    found = []
    for u in inputs:
        if input_key(u) in seen:
            continue
        partners = [best.x, best.y]
        partners += list(itertools.islice(spec.relation.neighbours(u, spec.input_domain), 1))
        for v in partners:
            if input_key(v) == input_key(u):
                continue
            try:
                found.append(verified_pair(spec, u, v, "domain_input"))
                break
            except PrivauditError:  # not neighbours: the next partner
                continue
    return found


def _distinct_inputs(pairs: list[CandidatePair]) -> tuple[list[Any], list[list[int]]]:
    """The distinct inputs of ``pairs`` in order, and for each the indices of its pairs."""
    index: dict[str, int] = {}
    inputs: list[Any] = []
    holders: list[list[int]] = []
    for i, pair in enumerate(pairs):
        for value in (pair.x, pair.y):
            key = input_key(value)
            if key not in index:
                index[key] = len(inputs)
                inputs.append(value)
                holders.append([])
            if i not in holders[index[key]]:
                holders[index[key]].append(i)
    return inputs, holders


def check_ranked_pairs_law(
    mechanism: Mechanism,
    choice: PairChoice,
    cfg: AuditConfig,
    rng: np.random.Generator,
    alpha: float,
    say: Callable[[str], None] | None = None,
) -> RankedPairsLaw:
    """Test the declared law at every input of the pairs ranked by it (module docstring).

    Parameters
    ----------
    mechanism : Mechanism
    choice : PairChoice
        The pair choice; nothing is checked unless its ``declared_ranking`` is non-empty.
    cfg : AuditConfig
        ``samples``, ``conformance_samples`` and ``pairs_tested``.
    rng : Generator
        The check's own stream.
    alpha : float
        The check's share of α (the plan's ``noise_law.ranked_pairs``), all spent when it
        runs.
    say : callable, optional
        Told what is being tested.

    Returns
    -------
    RankedPairsLaw
    """
    ranked = list(choice.declared_ranking)
    if not ranked:
        return RankedPairsLaw(choice, 0.0, ())
    ranked_keys = {pair_key(p.x, p.y) for p in ranked}
    pairs = ranked + [p for p in choice.pairs if pair_key(p.x, p.y) not in ranked_keys]
    domain = _small_finite(mechanism)
    if domain is not None:
        seen = {input_key(v) for p in pairs for v in (p.x, p.y)}
        pairs += _domain_pairs(mechanism, domain, pairs[0], seen)
    inputs, holders = _distinct_inputs(pairs)
    level = alpha / len(inputs)
    draws = ranked_law_draws(cfg, len(inputs))
    if say is not None:
        say(f"testing the declared law at the {len(inputs)} inputs of the ranked pairs")
    outcomes = [
        check_noise_law(mechanism, value, rng, samples=draws, alpha=level) for value in inputs
    ]
    rejected = [i for i, o in enumerate(outcomes) if o.violated]
    p_values = [o.statistic for o in outcomes if o.status == "passed" and o.statistic is not None]
    smallest = min(p_values, default=1.0)
    designs = [o.details.get("independence_design") for o in outcomes]
    design = next((d for d in _DESIGNS if d in designs), None)
    whole = " and every input of the finite domain" if domain is not None else ""
    details = jsonable_details(
        pairs_ranked=len(ranked),
        whole_domain=bool(whole),
        pairs_tied=choice.ties,
        inputs_tested=len(inputs),
        draws_per_input=draws,
        level_per_input=level,
        nothing_to_test=sum(o.status == "skipped" for o in outcomes),
        rejected_inputs=[to_jsonable(inputs[i]) for i in rejected],
        independence_design=design,
    )
    scope = (
        f"the declared law at the {len(inputs)} inputs of the {len(ranked)} pairs ranked by "
        f"it{whole} ({draws} draws each, level {level:.3g} each)"
    )
    if not rejected:
        outcome = CheckOutcome(
            name=_NAME,
            status="passed",
            summary=f"{scope}: no input rejects (smallest adjusted p = "
            f"{min(1.0, smallest * len(inputs)):.3g})",
            statistic=min(1.0, smallest * len(inputs)),
            threshold=alpha,
            error_rate=alpha,
            details=details,
        )
        return RankedPairsLaw(choice, alpha, (outcome,))
    at_rejected = sorted({j for i in rejected for j in holders[i]})
    first = pairs[at_rejected[0]]
    keys = {pair_key(p.x, p.y) for p in choice.pairs}
    extra = [pairs[j] for j in at_rejected if pair_key(pairs[j].x, pairs[j].y) not in keys][
        : cfg.pairs_tested
    ]
    worst = outcomes[rejected[0]]
    outcome = CheckOutcome(
        name=_NAME,
        status="violated",
        summary=f"{scope}: rejected at {len(rejected)} input(s), first x = "
        f"{_short(inputs[rejected[0]])} ({worst.summary}); the ranking rests on that law, so "
        f"{len(extra)} pair(s) holding them are tested too",
        statistic=min(1.0, float(worst.statistic or 0.0) * len(inputs)),
        threshold=alpha,
        error_rate=alpha,
        counterexample=counterexample_of(first, rejected_input=inputs[rejected[0]]),
        details={**details, "first_rejection": worst.details},
    )
    near = choice.near_tie + (False,) * len(extra) if choice.near_tie else ()
    grown = replace(choice, pairs=choice.pairs + tuple(extra), near_tie=near)
    return RankedPairsLaw(grown, alpha, (outcome,))


def _short(value: Any) -> str:
    text = repr(to_jsonable(value))
    return text if len(text) <= 60 else text[:59] + "…"
