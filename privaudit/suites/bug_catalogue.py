"""Bugs of record: privacy bugs reported against real DP libraries, each re-created in plain
numpy as a replay pipeline (``pipeline(data, noise)``, ``docs/replay.md``) beside its fixed
version, which serves as the control.

:func:`bugs_of_record` lists them as :class:`BugOfRecord` objects: the library, the report,
the claim, the buggy and fixed pipelines, the input and neighbouring relation to replay
them on, the spec (the library's claim) and input pairs for the statistical audit of both
versions, whether grey-box replay is expected to catch the bug and the buggy version's
true ε.  Grey-box replay after Cebere, Erb, Desfontaines, Bellet & Fitzsimons ("Privacy in
Theory, Bugs in Practice: Grey-Box Auditing of Differential Privacy Libraries", 2026).
The table: ``docs/bug_catalogue.md`` (``scripts/bug_catalogue.py``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from privaudit.mechanisms import FloatSafeLaplaceMechanism, Mechanism, discrete_laplace_scale
from privaudit.mechanisms.dpsgd import ABLQMechanism, shuffle_lower_bound
from privaudit.mechanisms.float_safe import (
    default_granularity,
    lattice_sensitivity,
    round_to_lattice,
)
from privaudit.spec import (
    AdditiveNoise,
    AddRemoveOne,
    ApproxDP,
    Categorical,
    DatasetDomain,
    GlobalSensitivity,
    Laplace,
    LatticeLaplace,
    LocalRelation,
    MechanismSpec,
    PureDP,
    RealInterval,
    Reference,
    SubstituteOne,
    VectorDomain,
)
from privaudit.spec.errors import InvalidParameterError, NotNeighboursError
from privaudit.suites._bug_nan import nan_clipping_case
from privaudit.suites.dpsgd import DPSGD_DELTA, shuffle_as_poisson

__all__ = ["BUG_EPSILON", "BugOfRecord", "bugs_of_record"]

#: The ε every re-created pipeline claims.
BUG_EPSILON = 1.0
#: The replay checks a bug of record may be caught by (``privaudit.auditing.replay``).
_CHECKS = frozenset({"parameters", "sensitivity", "unprotected_release", "control_flow"})

Pipeline = Callable[[Any, Any], Any]


@dataclass(frozen=True, eq=False)
class BugOfRecord:
    """One reported privacy bug, re-created, with its fix as a control.

    Parameters
    ----------
    name, library : the entry's name (``"bug.<what>"``) and the library reported against.
    source : Reference
        The report (issue, pull request or paper) with its address.
    claim : str
        What the library claims, in one sentence.
    buggy, fixed : callable
        ``pipeline(data, noise)``: the bug re-created, and the same code with the fix.
    domain, relation, data : the replay's input domain, relation and recorded input.
    spec : MechanismSpec or None
        The claim audited statistically (both versions run as a ``PipelineMechanism``,
        :mod:`privaudit.auditing.replay.pipeline_mechanism`); ``None`` with ``mechanism``.
    pairs : tuple of (input, input)
        Neighbouring inputs for the statistical audit (checked with the spec's relation).
    replay_catches, replay_check : whether replay is expected to find the bug, and the
        check expected to fire first on the buggy pipeline (``None`` when it does not).
    true_epsilon : float
        The buggy version's true ε (``math.inf`` when no finite ε holds; a proven lower
        bound when ``true_epsilon_exact`` is false), derived in ``notes``.
    neighbours : tuple
        Explicit neighbours of ``data`` replayed first.
    fixed_spec, statistic, fixed_statistic : the fixed version's claim when it differs
        from ``spec``; the two versions' gray-box ``statistic`` hooks (float-image check).
    mechanism : callable or None
        ``mechanism("buggy" | "fixed")``: ready mechanisms for the statistical side,
        instead of the pipelines (DP-SGD's batch sampling, in the ABLQ model).
    float_image : bool
        Whether the statistical side is the floating-point image check (Mironov, CCS 2012).
    """

    name: str
    library: str
    source: Reference
    claim: str
    buggy: Pipeline
    fixed: Pipeline
    domain: Any
    relation: Any
    data: Any
    spec: MechanismSpec | None
    pairs: tuple[tuple[Any, Any], ...]
    replay_catches: bool
    replay_check: str | None
    true_epsilon: float
    notes: str
    neighbours: tuple[Any, ...] = ()
    fixed_spec: MechanismSpec | None = None
    statistic: Callable[[Any], Any] | None = None
    fixed_statistic: Callable[[Any], Any] | None = None
    mechanism: Callable[[str], Mechanism] | None = None
    float_image: bool = False
    true_epsilon_exact: bool = True
    claimed_epsilon: float = field(default=BUG_EPSILON)

    def __post_init__(self) -> None:
        if not self.name.startswith("bug.") or not self.notes.strip():
            raise InvalidParameterError(f"{self.name!r}: needs a 'bug.' name and notes")
        if (self.spec is None) == (self.mechanism is None):
            raise InvalidParameterError(f"{self.name}: give exactly one of spec and mechanism")
        if self.replay_catches != (self.replay_check in _CHECKS):
            raise InvalidParameterError(
                f"{self.name}: replay_check must name the check exactly when replay catches"
            )
        object.__setattr__(self, "data", self.domain.validate(self.data))
        object.__setattr__(self, "neighbours", tuple(map(self.domain.validate, self.neighbours)))
        spec = self.spec if self.spec is not None else self.statistical_mechanism("buggy").spec
        pairs = []
        for x, y in self.pairs:
            x, y = spec.input_domain.validate(x), spec.input_domain.validate(y)
            decision = spec.relation.decide(x, y, spec.input_domain)
            if not decision:
                raise NotNeighboursError(f"{self.name}: a pair is not related: {decision.reason}")
            pairs.append((x, y))
        object.__setattr__(self, "pairs", tuple(pairs))

    def pipeline(self, version: str) -> Pipeline:
        """The ``"buggy"`` or ``"fixed"`` pipeline."""
        return self.buggy if version == "buggy" else self.fixed

    def audit_spec(self, version: str) -> MechanismSpec | None:
        """The claim the statistical audit of ``version`` tests (``None``: see ``mechanism``)."""
        if version == "fixed" and self.fixed_spec is not None:
            return self.fixed_spec
        return self.spec

    def audit_statistic(self, version: str) -> Callable[[Any], Any] | None:
        """The gray-box statistic of ``version``, if any."""
        return self.fixed_statistic if version == "fixed" else self.statistic

    def statistical_mechanism(self, version: str) -> Mechanism:
        """The ready mechanism of ``version`` (only when ``mechanism`` is given)."""
        if self.mechanism is None:
            raise InvalidParameterError(f"{self.name}: audited through its pipelines")
        return self.mechanism(version)


def _black_box(name: str, domain: Any, relation: Any, statistic: str, dimension: int) -> Any:
    """An ε-DP claim with no noise declared: the library's promise, as a black box."""
    return MechanismSpec(
        name=name,
        summary=f"{statistic}, claimed {BUG_EPSILON:g}-DP by its library",
        input_domain=domain,
        relation=relation,
        statistic=statistic,
        output_dimension=dimension,
        guarantee=PureDP(epsilon=BUG_EPSILON),
    )


# -- 1. the category domain read from the data ---------------------------------------------
CLASSES = 4


def category_domain_buggy(x: Any, noise: Any) -> Any:
    """Noisy counts of the classes found in the data (``np.unique``); others exactly 0."""
    classes = np.unique(x)
    counts = (x[:, None] == classes[None, :]).sum(axis=0)
    noisy = noise.laplace(counts, sensitivity=1.0, epsilon=BUG_EPSILON)
    out = np.zeros(CLASSES)
    out[classes] = noisy
    return out


def category_domain_fixed(x: Any, noise: Any) -> Any:
    """Noisy class counts over the public class list ``0 … CLASSES − 1``."""
    counts = np.bincount(x, minlength=CLASSES)
    return noise.laplace(counts, sensitivity=1.0, epsilon=BUG_EPSILON)


def _category_domain() -> BugOfRecord:
    domain = DatasetDomain(record=Categorical(size=CLASSES))
    data = np.array([0, 0, 1, 1, 2])
    return BugOfRecord(
        name="bug.category_domain_from_data",
        library="diffprivlib (IBM); also dpmm",
        source=Reference(
            citation="IBM/differential-privacy-library issue #106, 'Domain inference via the "
            "label set' (models/logistic_regression.py: classes = np.unique(y)); dpmm "
            "issues #18 and #19 (domains read from the data)",
            url="https://github.com/IBM/differential-privacy-library/issues/106",
        ),
        claim="the model (here: its class counts) is epsilon-DP under add/remove-one",
        buggy=category_domain_buggy,
        fixed=category_domain_fixed,
        domain=domain,
        relation=AddRemoveOne(),
        data=data,
        spec=_black_box(
            "bug.category_domain_from_data", domain, AddRemoveOne(), "class counts", CLASSES
        ),
        pairs=((data, np.r_[data, 3]),),
        replay_catches=True,
        replay_check="parameters",
        true_epsilon=math.inf,
        notes="Removing the only record of class 2 removes the class: the noisy counts "
        "change shape (replay: the Laplace call's shape differs). With class 3 absent from "
        "x and present in its neighbour x + {3}, coordinate 3 is exactly 0 with probability "
        "1 under x and with probability 0 under x + {3}: true eps = inf. Fixed: classes "
        "from a public list.",
    )


# -- 2. the private dataset size in the noise scale --------------------------------------
PUBLIC_SIZE = 4


def private_size_buggy(x: Any, noise: Any) -> Any:
    """Mean of records clipped to [0, 1] with Laplace scale 1/(nε), n the private size."""
    n = len(x)
    return noise.laplace(np.clip(x, 0.0, 1.0).mean(), sensitivity=1.0 / n, epsilon=BUG_EPSILON)


def private_size_fixed(x: Any, noise: Any) -> Any:
    """Sum of the clipped records over the public size ``PUBLIC_SIZE``, sensitivity 1/N."""
    total = np.clip(x, 0.0, 1.0).sum() / PUBLIC_SIZE
    return noise.laplace(total, sensitivity=1.0 / PUBLIC_SIZE, epsilon=BUG_EPSILON)


def _private_size() -> BugOfRecord:
    domain = DatasetDomain(record=RealInterval(lo=0.0, hi=1.0))
    return BugOfRecord(
        name="bug.private_size_in_noise_scale",
        library="Opacus",
        source=Reference(
            citation="pytorch/opacus issue #571 (expected_batch_size computed from the private "
            "dataset length)",
            url="https://github.com/pytorch/opacus/issues/571",
        ),
        claim="the mean is epsilon-DP under add/remove-one",
        buggy=private_size_buggy,
        fixed=private_size_fixed,
        domain=domain,
        relation=AddRemoveOne(),
        data=np.array([0.2, 0.4, 0.6, 0.8]),
        spec=_black_box("bug.private_size_in_noise_scale", domain, AddRemoveOne(), "mean", 1),
        pairs=((np.array([0.5]), np.array([0.5, 0.5])),),
        replay_catches=True,
        replay_check="parameters",
        true_epsilon=math.inf,
        notes="The Laplace scale 1/(n eps) follows the private n: neighbours release Laplace "
        "laws of different scales (1 and 1/2 on the pair {0.5} vs {0.5, 0.5}, same mean), "
        "whose log density ratio grows linearly in the tails: true eps = inf. Replay sees "
        "the scale and the declared sensitivity change between neighbours. Fixed: the "
        "public expected size N (as Opacus's fix takes expected_batch_size from the user); "
        "a noisy count through its own primitive also works.",
    )


# -- 3. the unclipped cross term of a covariance -----------------------------------------
BOUND = 1.0


def covariance_buggy(x: Any, noise: Any) -> Any:
    """[Σx₀², Σx₁², Σx₀x₁] declared on clipped records, the cross term on unclipped ones."""
    c = np.clip(x, -BOUND, BOUND)
    value = np.array([(c[:, 0] ** 2).sum(), (c[:, 1] ** 2).sum(), (x[:, 0] * x[:, 1]).sum()])
    return noise.laplace(value, sensitivity=3.0 * BOUND**2, epsilon=BUG_EPSILON)


def covariance_fixed(x: Any, noise: Any) -> Any:
    """The same with every term on the clipped records."""
    c = np.clip(x, -BOUND, BOUND)
    value = np.array([(c[:, 0] ** 2).sum(), (c[:, 1] ** 2).sum(), (c[:, 0] * c[:, 1]).sum()])
    return noise.laplace(value, sensitivity=3.0 * BOUND**2, epsilon=BUG_EPSILON)


def _covariance() -> BugOfRecord:
    domain = DatasetDomain(record=VectorDomain(element=RealInterval(lo=-10.0, hi=10.0), length=2))
    data = np.array([[0.5, -0.2], [0.1, 0.3], [-0.4, 0.8], [0.9, 0.9], [-0.7, -0.1]])
    return BugOfRecord(
        name="bug.unclipped_covariance_cross_term",
        library="smartnoise-sdk (synth)",
        source=Reference(
            citation="opendp/smartnoise-sdk issue #622, 'Covariance clipping bug' "
            "(snsynth/models/dp_covariance.py), fixed by pull request #624",
            url="https://github.com/opendp/smartnoise-sdk/issues/622",
        ),
        claim="the second-moment matrix of records clipped to [-1, 1]^2 is epsilon-DP "
        "(l1 sensitivity 3 under add/remove-one)",
        buggy=covariance_buggy,
        fixed=covariance_fixed,
        domain=domain,
        relation=AddRemoveOne(),
        data=data,
        spec=_black_box(
            "bug.unclipped_covariance_cross_term", domain, AddRemoveOne(), "second moments", 3
        ),
        pairs=((data, np.r_[data, [[10.0, 10.0]]]),),
        replay_catches=True,
        replay_check="sensitivity",
        true_epsilon=34.0 * BUG_EPSILON,
        notes="Adding the record (10, 10) moves the clipped squares by 1 each and the "
        "unclipped cross term by 100: l1 distance 102 against the declared 3, so the "
        "Laplace noise of scale 3/eps gives true eps = 102 eps / 3 = 34 eps. In the library "
        "the whole matrix was computed on the uncensored data; the re-creation keeps one "
        "term. Fixed: clip first.",
    )


# -- 4. a sensitivity computed from one bound --------------------------------------------
LOWER, UPPER = -0.5, 2.0


def _regression(x: Any, noise: Any, sensitivity_xx: float) -> Any:
    clipped = np.clip(x, LOWER, UPPER)
    xx, xy = (clipped[:, 0] ** 2).sum(), (clipped[:, 0] * clipped[:, 1]).sum()
    sensitivity_xy = float(np.max(np.abs([LOWER, UPPER])) ** 2)
    half = BUG_EPSILON / 2
    return (
        noise.laplace(xx, sensitivity=sensitivity_xx, epsilon=half),
        noise.laplace(xy, sensitivity=sensitivity_xy, epsilon=half),
    )


def one_bound_buggy(x: Any, noise: Any) -> Any:
    """Σx² and Σxy of a linear regression's objective, the Σx² sensitivity
    ``np.max(np.abs([lower, lower]))**2`` (the lower bound twice)."""
    return _regression(x, noise, float(np.max(np.abs([LOWER, LOWER])) ** 2))


def one_bound_fixed(x: Any, noise: Any) -> Any:
    """The same with ``np.max(np.abs([lower, upper]))**2``."""
    return _regression(x, noise, float(np.max(np.abs([LOWER, UPPER])) ** 2))


def _one_bound() -> BugOfRecord:
    domain = DatasetDomain(record=VectorDomain(element=RealInterval(lo=LOWER, hi=UPPER), length=2))
    data = np.array([[0.1, 0.2], [0.5, 0.4], [1.0, 1.1], [-0.3, 0.0]])
    return BugOfRecord(
        name="bug.sensitivity_from_one_bound",
        library="diffprivlib (IBM)",
        source=Reference(
            citation="IBM/differential-privacy-library issue #105, 'Linear regression "
            "sensitivity uses the lower bound twice' (models/linear_regression.py)",
            url="https://github.com/IBM/differential-privacy-library/issues/105",
        ),
        claim="the regression objective's coefficients are epsilon-DP under add/remove-one",
        buggy=one_bound_buggy,
        fixed=one_bound_fixed,
        domain=domain,
        relation=AddRemoveOne(),
        data=data,
        spec=_black_box(
            "bug.sensitivity_from_one_bound", domain, AddRemoveOne(), "sum x^2 and sum x y", 2
        ),
        pairs=((data, np.r_[data, [[UPPER, UPPER]]]),),
        replay_catches=True,
        replay_check="sensitivity",
        true_epsilon=8.5 * BUG_EPSILON,
        notes="Records in [-0.5, 2]^2: the declared sensitivity of sum x^2 is "
        "max(|-0.5|, |-0.5|)^2 = 0.25, the true one max(|-0.5|, |2|)^2 = 4 (too small "
        "whenever |upper| > |lower|). Each coefficient gets eps/2; adding (2, 2) moves "
        "sum x^2 by 4 = 16 x 0.25 and sum x y by 4 (its declared bound): true eps = "
        "16 eps/2 + eps/2 = 8.5 eps. The report is #105 (it is sometimes cited as #104).",
    )


# -- 5. unary encoding with the wrong keep probability -----------------------------------
SYMBOLS = 4
_P = 0.5
_Q = 1.0 / (math.exp(BUG_EPSILON) + 1.0)


def _unary(x: Any, noise: Any, keep_one: Callable[[Any, Any], Any]) -> Any:
    onehot = (np.arange(SYMBOLS) == int(x)).astype(np.float64)

    def flips(gen: Any, shape: tuple[int, ...]) -> Any:
        bits = np.where(onehot == 1.0, keep_one(gen, shape), gen.random(shape) < _Q)
        return bits.astype(np.float64) - onehot

    return noise.primitive(
        onehot,
        kind="optimized_unary_encoding",
        sensitivity=2.0,
        norm="l1",
        guarantee=PureDP(epsilon=BUG_EPSILON),
        noise=flips,
        parameters={"epsilon": BUG_EPSILON, "p": _P, "q": _Q},
    )


def unary_encoding_buggy(x: Any, noise: Any) -> Any:
    """Optimized unary encoding whose true bit is set w.p. p + (1 − p)q, not p."""
    return _unary(x, noise, lambda g, s: (g.random(s) < _P) | (g.random(s) < _Q))


def unary_encoding_fixed(x: Any, noise: Any) -> Any:
    """Optimized unary encoding (Wang et al., USENIX Security 2017): p = 1/2, q = 1/(e^ε+1)."""
    return _unary(x, noise, lambda g, s: g.random(s) < _P)


def _unary_encoding() -> BugOfRecord:
    domain = Categorical(size=SYMBOLS)
    true = math.log(math.exp(BUG_EPSILON) + 2.0)
    return BugOfRecord(
        name="bug.unary_encoding_wrong_q",
        library="pure-LDP",
        source=Reference(
            citation="Samuel-Maddock/pure-LDP issue #11 (unary encoding keeps the true bit "
            "with probability p + (1 - p) q), fixed in pure-LDP 1.2.0",
            url="https://github.com/Samuel-Maddock/pure-LDP/issues/11",
        ),
        claim="optimized unary encoding is epsilon-LDP",
        buggy=unary_encoding_buggy,
        fixed=unary_encoding_fixed,
        domain=domain,
        relation=LocalRelation(),
        data=1,
        spec=_black_box(
            "bug.unary_encoding_wrong_q", domain, LocalRelation(), "one-hot encoding", SYMBOLS
        ),
        pairs=((1, 2), (0, 3)),
        replay_catches=False,
        replay_check=None,
        true_epsilon=true,
        notes="The randomizer is the primitive, so replay trusts it. With p* = p + (1-p) q "
        "= (1 + q)/2 and q = 1/(e^eps + 1), the worst output (bit v = 1, bit v' = 0) has "
        "ratio p*(1-q) / (q(1-p*)) = (1 + q)/q = e^eps + 2: true eps = ln(e^eps + 2) = "
        f"{true:.6f} at eps = {BUG_EPSILON:g} (the fixed p = 1/2 gives (1-q)/q = e^eps).",
    )


# -- 6. partition selection without a threshold --------------------------------------------
KEYS = 6


def partition_selection_buggy(x: Any, noise: Any) -> Any:
    """A noisy count per key present in the data, one call per partition; others 0."""
    out = np.zeros(KEYS)
    for key in np.unique(x):
        out[key] = noise.laplace(float((x == key).sum()), sensitivity=1.0, epsilon=BUG_EPSILON)
    return out


def partition_selection_fixed(x: Any, noise: Any) -> Any:
    """Noisy counts of every key of a public key list."""
    return noise.laplace(np.bincount(x, minlength=KEYS), sensitivity=1.0, epsilon=BUG_EPSILON)


def _partition_selection() -> BugOfRecord:
    domain = DatasetDomain(record=Categorical(size=KEYS))
    data = np.array([0, 0, 0, 1, 1, 2])
    return BugOfRecord(
        name="bug.partition_selection_without_threshold",
        library="smartnoise-sdk (SQL); any group-by without partition selection",
        source=Reference(
            citation="Desfontaines, Voss, Gipson & Mandayam, 'Differentially private "
            "partition selection', PoPETs 2022(1):339-352; opendp/smartnoise-sdk issue #309",
            url="https://github.com/opendp/smartnoise-sdk/issues/309",
        ),
        claim="the grouped counts are epsilon-DP under add/remove-one",
        buggy=partition_selection_buggy,
        fixed=partition_selection_fixed,
        domain=domain,
        relation=AddRemoveOne(),
        data=data,
        spec=_black_box(
            "bug.partition_selection_without_threshold", domain, AddRemoveOne(), "counts", KEYS
        ),
        pairs=((data, np.r_[data, 3]),),
        replay_catches=True,
        replay_check="control_flow",
        true_epsilon=math.inf,
        notes="Which partitions are released depends on the data: removing the only record "
        "of key 2 skips a Laplace call (replay: control flow). Key 3 is released (a "
        "continuous count) only when present: an exact 0 with probability 1 under x and "
        "0 under x + {3}, true eps = inf. Fixed: keys from a public list; a thresholded "
        "release of private keys needs a partition-selection primitive (out of scope).",
    )


# -- 7. floating-point Laplace ------------------------------------------------------------
RECORDS = 4
_GRID = default_granularity(1.0)
_UNITS = lattice_sensitivity(1.0, _GRID)
_SCALE = discrete_laplace_scale(BUG_EPSILON, _UNITS) * _GRID
_LATTICE = LatticeLaplace(scale=_SCALE, granularity=_GRID)


def _clipped_sum(x: Any) -> float:
    return float(np.clip(x, 0.0, 1.0).sum())


def _rounded_sum(x: Any) -> float:
    return float(round_to_lattice(_clipped_sum(x), _GRID) * _GRID)


def float_laplace_buggy(x: Any, noise: Any) -> Any:
    """Textbook floating-point Laplace: ``fl(f(x) + Lap(1/ε))``."""
    return noise.laplace(_clipped_sum(x), sensitivity=1.0, epsilon=BUG_EPSILON)


def _lattice_noise(gen: Any, shape: tuple[int, ...]) -> Any:
    return _LATTICE.sample_exact(gen, int(np.prod(shape, dtype=np.int64))).reshape(shape)


def float_laplace_fixed(x: Any, noise: Any) -> Any:
    """The float-safe Laplace (``mechanisms/float_safe.py``): the sum rounded to the grid
    2⁻¹⁰ℤ plus exact discrete Laplace noise on the grid."""
    return noise.primitive(
        _rounded_sum(x),
        kind="lattice_laplace",
        sensitivity=_UNITS * _GRID,
        norm="l1",
        guarantee=PureDP(epsilon=BUG_EPSILON),
        noise=_lattice_noise,
        parameters={"epsilon": BUG_EPSILON, "granularity": _GRID},
    )


def _float_laplace() -> BugOfRecord:
    domain = DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=RECORDS)
    spec = MechanismSpec(
        name="bug.float_laplace",
        summary="sum of records in [0, 1] plus Laplace noise of scale 1/epsilon (float64)",
        input_domain=domain,
        relation=SubstituteOne(),
        statistic="sum of the records",
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=1.0 / BUG_EPSILON), calibration="exact"),
        guarantee=PureDP(epsilon=BUG_EPSILON),
    )
    fixed = FloatSafeLaplaceMechanism(
        BUG_EPSILON,
        1.0,
        granularity=_GRID,
        statistic=_clipped_sum,
        input_domain=domain,
        relation=SubstituteOne(),
        name="bug.float_laplace.fixed",
    )
    zeros = np.zeros(RECORDS)
    return BugOfRecord(
        name="bug.float_laplace",
        library="any textbook floating-point Laplace",
        source=Reference(
            citation="Mironov, 'On significance of the least significant bits for "
            "differential privacy', ACM CCS 2012",
            locator="Section 3 (the attack), Section 5 (snapping)",
            url="https://doi.org/10.1145/2382196.2382264",
        ),
        claim="the sum plus Laplace(1/eps) noise is epsilon-DP under substitute-one",
        buggy=float_laplace_buggy,
        fixed=float_laplace_fixed,
        domain=domain,
        relation=SubstituteOne(),
        data=np.array([0.1, 0.3, 0.6, 0.9]),
        spec=spec,
        fixed_spec=fixed.spec,
        statistic=_clipped_sum,
        fixed_statistic=_rounded_sum,
        pairs=((zeros, np.r_[1.0, zeros[1:]]),),
        replay_catches=False,
        replay_check=None,
        true_epsilon=math.inf,
        float_image=True,
        notes="The noise is the primitive's own: replay trusts it. In float64 the set of "
        "outputs fl(f(x) + Z) depends on f(x): most outputs of M(0) cannot be produced by "
        "M(1) (docs/floating_point_attack.md), true eps = inf for the implementation. A "
        "Laplace claim can only be declared with idealized numerics, so the audit reports "
        "the float-image leak without counting it; the strict float-image check counts it. "
        "Fixed: the float-safe Laplace on the grid 2^-10 Z (docs/float_safe_mechanisms.md).",
    )


# -- 8. shuffled batches accounted as Poisson subsampling ----------------------------------
SIGMA, STEPS, CLIP = 0.8, 50, 1.0
#: T = n of the replayed pipelines (the statistical side audits T = n = STEPS).
REPLAY_STEPS = 10


def _batch_sums(x: Any, noise: Any, batches: Any, sensitivity: float) -> Any:
    """The T clipped batch sums plus N(0, σ²C²) each, in one Gaussian call whose declared
    ℓ2 sensitivity is ``sensitivity`` (the vector of the T sums moves by at most that)."""
    sums = np.array([np.clip(x[b], -CLIP, CLIP).sum() for b in batches])
    return noise.gaussian(sums, sensitivity=sensitivity, sigma=SIGMA * CLIP)


def shuffle_as_poisson_buggy(x: Any, noise: Any) -> Any:
    """One epoch of ABLQ (DP-SGD's noisy batch sums, Chua et al., ICML 2024) with shuffled
    batches of one example: each example is in one batch, so the sums move by 2C in ℓ2;
    the library then reports Poisson subsampling's ε."""
    order = noise.rng.permutation(len(x))  # T = n: one epoch of batches of one
    return _batch_sums(x, noise, [order[t : t + 1] for t in range(len(x))], 2 * CLIP)


def shuffle_as_poisson_fixed(x: Any, noise: Any) -> Any:
    """The same with Poisson batches (each example in each of T = n steps w.p. 1/n), which
    the Poisson accountant covers; an example may sit in every batch: ℓ2 sensitivity 2C√T."""
    masks = noise.rng.random((len(x), len(x))) < 1.0 / len(x)
    return _batch_sums(x, noise, list(masks), 2 * CLIP * math.sqrt(len(x)))


def _dpsgd_mechanism(version: str) -> Mechanism:
    if version == "buggy":
        return shuffle_as_poisson(SIGMA, STEPS)
    return ABLQMechanism(
        "poisson", STEPS, 1, STEPS, SIGMA, DPSGD_DELTA, name="bug.dpsgd.poisson_control"
    )


@functools.cache
def _shuffle_bound() -> float:
    """Chua et al.'s lower bound on the true ε of one shuffled epoch (computed once)."""
    return float(shuffle_lower_bound(SIGMA, STEPS, DPSGD_DELTA).epsilon)


def _shuffle_as_poisson() -> BugOfRecord:
    claimed_eps = float(cast(ApproxDP, shuffle_as_poisson(SIGMA, STEPS).spec.guarantee).epsilon)
    low = np.full(STEPS, -2 * CLIP)
    high = low.copy()
    high[0] = 2 * CLIP
    return BugOfRecord(
        name="bug.shuffle_accounted_as_poisson",
        library="DP-SGD implementations (Opacus and others)",
        source=Reference(
            citation="Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang, 'How private are "
            "DP-SGD implementations?', ICML 2024 (arXiv 2403.17673); pytorch/opacus issue #80",
            url="https://arxiv.org/abs/2403.17673",
        ),
        claim=f"one epoch (sigma = {SIGMA:g}, T = {STEPS}) is ({claimed_eps:.3f}, 1e-5)-DP by "
        "the Poisson subsampling accountant",
        buggy=shuffle_as_poisson_buggy,
        fixed=shuffle_as_poisson_fixed,
        domain=DatasetDomain(record=RealInterval(lo=-2 * CLIP, hi=2 * CLIP), size=REPLAY_STEPS),
        relation=SubstituteOne(),
        data=np.linspace(-2 * CLIP, 2 * CLIP, REPLAY_STEPS),
        spec=None,
        mechanism=_dpsgd_mechanism,
        pairs=((high, low),),
        replay_catches=False,
        replay_check=None,
        true_epsilon=_shuffle_bound(),
        true_epsilon_exact=False,
        claimed_epsilon=claimed_eps,
        notes=f"Replayed at T = n = {REPLAY_STEPS} (composing the claim is slow at large T), "
        f"audited at T = n = {STEPS}. The batch sums stay within their declared l2 "
        "sensitivity and the batch draws do not depend on the data, so replay passes both "
        "versions; its composed claim is "
        "the Gaussian bound without amplification (2/sigma-GDP for the shuffled epoch, "
        "2 sqrt(T)/sigma-GDP for Poisson batches, as replay knows no subsampling), which it "
        "cannot compare with the accountant's report. The bug is the accounting: shuffled "
        f"batches reported with the Poisson PLD eps {claimed_eps:.3f}; the paper's test "
        f"gives true eps >= {_shuffle_bound():.3f} (a lower bound). The statistical side "
        "audits the ABLQ mechanisms of privaudit.suites.dpsgd; fixed: Poisson batches with "
        "that accountant.",
    )


# -- the catalogue -----------------------------------------------------------------------
def _pending_cases() -> tuple[BugOfRecord, ...]:
    """Entries kept in modules of their own: NaN bypassing clipping (:mod:`._bug_nan`)."""
    return (nan_clipping_case(BugOfRecord, _black_box),)


def bugs_of_record() -> tuple[BugOfRecord, ...]:
    """Every bug of record, each with its fixed version as a control.

    Returns
    -------
    tuple of BugOfRecord
        In the order of ``docs/bug_catalogue.md``.
    """
    return (
        _category_domain(),
        _private_size(),
        _covariance(),
        _one_bound(),
        _unary_encoding(),
        _partition_selection(),
        _float_laplace(),
        _shuffle_as_poisson(),
    ) + _pending_cases()
