"""The audit configuration: sample sizes, confidence, seed and search budgets.

The configuration is a frozen model that round-trips through JSON, so a certificate can
record exactly how its audit was run and anyone can rerun it from the seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any

from pydantic import BeforeValidator, StrictBool, model_validator

from privaudit.auditing.limits import MAX_SAMPLES
from privaudit.spec import (
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    SpecModel,
    check_confidence,
)
from privaudit.spec.errors import InvalidParameterError, SampleSizeError

__all__ = [
    "CERTIFICATE_MINIMUMS",
    "CERTIFICATE_STRENGTH",
    "CI_STRENGTH",
    "CONFORMANCE_CAP",
    "DETECT_FACTOR",
    "PAIR_TOLERANCE",
    "SEARCH_CAP",
    "AuditConfig",
    "below_certificate_minimums",
]

#: Default cap of the noise-law check's sample (its power at 10⁶ draws already resolves
#: tail masses of 10⁻⁴; beyond, it would dominate the cost of large audits).
CONFORMANCE_CAP = 1_000_000
#: By default an audit must detect a true ε of twice the claim, or it is inconclusive.
DETECT_FACTOR = 2.0

#: Default cap of the search split (outputs per side).  The search split is held in memory
#: whole, so without a cap a streamed audit at 10⁹ test outputs would hold 6·10⁷ search
#: outputs per side; 4·10⁶ (32 MB per side for scalar outputs) changes nothing below
#: 1.6·10⁷ test outputs (6.4·10⁷ with declared densities).
SEARCH_CAP = 4_000_000


#: Default relative tolerance of the robust pair choice (``AuditConfig.pair_tolerance``;
#: ``docs/derivations.md`` §9): the near ties of the halving's last round within 15 % of
#: the ``pairs_tested``-th survivor are tested too.  Measured by ``scripts/power_table.py``
#: (``docs/power_table.md``; ``docs/engine_notes.md``, "privaudit.auditing.config").
PAIR_TOLERANCE = 0.15

Confidence = Annotated[float, BeforeValidator(check_confidence)]


class AuditConfig(SpecModel):
    """How an audit is run.

    Parameters
    ----------
    samples : int
        Outputs drawn per side of each tested pair for the final, corrected test.
    search_samples : int, optional
        Outputs per side, drawn separately, used only to choose the data-driven rejection
        regions (sample splitting); defaults to ``samples // 4`` (at least 1,000), or
        ``samples // 16`` when the spec declares the output densities — the main events
        are then planned from the declared law and need no search split, and the
        data-driven events it serves get a tenth of the pair's α (claims with δ > 0
        keep ``samples // 4``: their rare events are found on the search split) —
        capped at :data:`SEARCH_CAP` = 4·10⁶.
    pilot_samples : int
        Outputs per side used to rank candidate pairs before the final test.
    confidence : float
        Family-wise confidence of every statistical statement (default 0.95): the
        probability that the audit reports a violation of a true claim is at most
        ``1 − confidence``.
    seed : int
        Seed of every random draw; the audit is reproducible from it.
    pair_budget : int
        Candidate neighbouring pairs generated (extremes, generators, random).
    pairs_tested : int
        Pairs that get the full distributional test.
    claim_budget : int
        Statistic evaluations per sensitivity check (local searches included).
    conformance_samples : int, optional
        Outputs drawn for the noise-law check; defaults to ``samples``, capped at
        :data:`CONFORMANCE_CAP` = 10⁶.
    events_per_direction : int
        Rejection regions tested per pair and direction.
    pair_tolerance : float
        Robust pair choice for black-box mechanisms
        (:func:`~privaudit.auditing.choice.halving.successive_halving`): a pair of the
        halving's last round whose score in that round is
        within this fraction of the ``pairs_tested``-th best is tested too (at most
        ``2 · pairs_tested`` pairs in all; the distinguishing test's α is split over the
        pairs actually tested).  Defaults to :data:`PAIR_TOLERANCE` = 0.15, so every audit
        (at certificate strength too) gets the robust choice without asking; 0 tests
        exactly ``pairs_tested`` pairs, ranked by the last round alone.  Must be below 1.
        With ``pairs_tested`` ≥ 2 the robust choice also keeps a slot for the
        generator's prior pair (the most balanced split pair of a query distance,
        :data:`~privaudit.auditing.choice.halving.PRIOR_ORIGIN`) when the halving keeps
        neither it nor its swap.
    detect_epsilon : float, optional
        The true ε the audit must be able to detect (with probability 0.9, on its worst
        pair and event) for "no violation found" to mean anything; defaults to twice the
        claimed ε (:data:`DETECT_FACTOR`).  An audit that finds no violation but could not
        have detected this ε reports the verdict ``"inconclusive"``.
    time_budget : float, optional
        Seconds the whole audit may take.  The audit then times a pilot of releases and
        shrinks this configuration (never grows it) until its stages fit
        (:mod:`privaudit.auditing.time_budget`); the report's ``config`` is the planned
        configuration (without the budget, so that it reruns the same audit from the
        seed) and its ``budget`` says what the budget can and cannot detect.
    sequential : bool
        Run the audit as a sequence of looks at growing sizes, each with a share of α,
        stopping at the first that refutes the claim
        (:mod:`privaudit.auditing.sequential`; ``docs/sequential_audits.md``).  ``samples``
        is the last look's size, which alone concludes "no violation"; ``time_budget``
        stops before a look that would not fit instead of shrinking the configuration.
        Default off.
    sampler_timeout : float, optional
        Seconds one sampler call may take before the audit stops with
        :class:`~privaudit.spec.errors.SamplerTimeoutError`; defaults to ``time_budget``
        when one is given, else no limit (calls on worker threads are never interrupted:
        :mod:`privaudit.auditing.sampler_outputs`).
    """

    samples: PositiveInt = 200_000
    search_samples: PositiveInt | None = None
    pilot_samples: PositiveInt = 4_000
    confidence: Confidence = 0.95
    seed: NonNegativeInt = 0
    pair_budget: PositiveInt = 48
    pairs_tested: PositiveInt = 3
    claim_budget: PositiveInt = 300
    conformance_samples: PositiveInt | None = None
    events_per_direction: PositiveInt = 8
    pair_tolerance: NonNegativeFloat = PAIR_TOLERANCE
    detect_epsilon: PositiveFloat | None = None
    time_budget: PositiveFloat | None = None
    sampler_timeout: PositiveFloat | None = None
    sequential: StrictBool = False

    @model_validator(mode="after")
    def _budgets(self) -> AuditConfig:
        for name in ("samples", "search_samples", "pilot_samples", "conformance_samples"):
            value = getattr(self, name)
            if value is not None and value > MAX_SAMPLES:
                raise SampleSizeError(
                    f"{name} = {value} exceeds the largest supported {MAX_SAMPLES} outputs per side"
                )
        if self.pair_tolerance >= 1.0:
            raise InvalidParameterError(
                f"pair_tolerance = {self.pair_tolerance} must be below 1 (a fraction of the "
                "best pair's score)"
            )
        if self.pairs_tested > self.pair_budget:
            raise InvalidParameterError(
                f"pairs_tested = {self.pairs_tested} exceeds pair_budget = {self.pair_budget}"
            )
        return self

    def merged(self, overrides: Mapping[str, Any] | None = None) -> AuditConfig:
        """This configuration with the fields named in ``overrides`` replaced.

        The one rule by which the command line, the registry and :func:`privaudit.audit`
        apply overrides (``samples=``, ``confidence=``, ...): the result is validated
        again, so an unknown field or a bad value raises the same error as in the
        constructor.  Without overrides, ``self`` itself is returned.

        Examples
        --------
        >>> AuditConfig().merged({"samples": 10_000}).samples
        10000
        """
        if not overrides:
            return self
        return AuditConfig.model_validate({**self.model_dump(), **overrides})

    @property
    def alpha(self) -> float:
        """The family-wise error budget 1 − confidence."""
        return 1.0 - self.confidence

    @property
    def effective_search_samples(self) -> int:
        """Search-split size used without declared densities."""
        return self.search_samples_for(declared=False)

    def search_samples_for(self, declared: bool, approximate: bool = False) -> int:
        """Search-split size used when the output densities are (not) declared.

        ``approximate``: the claim has δ > 0, whose rare events (a leak of probability
        p ≈ 30/N) are found on the search split only; a quarter of the test size puts
        ≈ 7.5 leaked outputs there, a sixteenth only ≈ 1.9 (none with probability 0.15),
        so δ claims keep ``samples // 4`` even with declared densities.
        """
        if self.search_samples is not None:
            return self.search_samples
        share = 16 if declared and not approximate else 4
        return min(SEARCH_CAP, max(1_000, self.samples // share))

    def detect_epsilon_for(self, claimed_epsilon: float) -> float:
        """The true ε the audit must detect: ``detect_epsilon``, or DETECT_FACTOR × claim."""
        if self.detect_epsilon is not None:
            return self.detect_epsilon
        return DETECT_FACTOR * claimed_epsilon

    @property
    def effective_conformance_samples(self) -> int:
        """Noise-law sample size actually used."""
        if self.conformance_samples is not None:
            return self.conformance_samples
        return min(self.samples, CONFORMANCE_CAP)


#: A quick audit for CI (seconds per mechanism).
CI_STRENGTH = AuditConfig(
    samples=50_000, pilot_samples=2_000, pair_budget=24, pairs_tested=2, claim_budget=150
)
#: The stronger audit recorded in shipped certificates: 10⁶ samples per side at confidence
#: 0.999, so that certifying a correct mechanism fails with probability ≤ 10⁻³ and a failed
#: certification is never answered by re-running with another seed.  It keeps the default
#: robust pair choice (``pair_tolerance`` = :data:`PAIR_TOLERANCE`: near ties of the
#: halving are tested too, with the α split over the pairs actually tested).
CERTIFICATE_STRENGTH = AuditConfig(
    samples=1_000_000,
    pilot_samples=10_000,
    pair_budget=96,
    pairs_tested=4,
    claim_budget=1_000,
    confidence=0.999,
)

#: The weakest configuration a certificate may record, field by field.  Certificates are
#: made at :data:`CERTIFICATE_STRENGTH` by default; a registry entry or a caller may choose
#: a cheaper one, but never below these: 10⁵ samples per side (a CI audit has 5·10⁴),
#: 95 % family-wise confidence, at least two fully tested pairs from at least eight
#: candidates, and 40 statistic evaluations per sensitivity check.  ``certify`` refuses
#: a weaker configuration, and a certificate that records one is inconsistent.
CERTIFICATE_MINIMUMS: Mapping[str, float] = MappingProxyType(
    {
        "samples": 100_000,
        "pilot_samples": 1_000,
        "confidence": 0.95,
        "pair_budget": 8,
        "pairs_tested": 2,
        "claim_budget": 40,
    }
)


def below_certificate_minimums(config: AuditConfig) -> tuple[str, ...]:
    """One phrase per field of ``config`` below :data:`CERTIFICATE_MINIMUMS` (empty if none),
    and one for a sequential audit, whose early looks are smaller than any minimum.

    Examples
    --------
    >>> below_certificate_minimums(CERTIFICATE_STRENGTH)
    ()
    >>> below_certificate_minimums(CI_STRENGTH)
    ('samples = 50000 < 100000',)
    """
    weak = tuple(
        f"{field} = {getattr(config, field):g} < {minimum:g}"
        for field, minimum in CERTIFICATE_MINIMUMS.items()
        if getattr(config, field) < minimum
    )
    if config.sequential:  # its looks before the last stop below the minimums
        weak += ("sequential = True (a certificate records one audit of fixed size)",)
    return weak
