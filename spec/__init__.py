"""spec: the claims a mechanism makes, as frozen, validated, hashable pydantic models.

Layout (one idea per module):

* :mod:`spec.guarantees` — pure, approximate, Rényi, zero-concentrated and Gaussian DP,
  with their privacy profiles δ(ε) and conversions;
* :mod:`spec.domains` — input domains (bounded reals, integers, categories, vectors,
  datasets, graphs) that validate concrete inputs, and the graph-input converters
  :func:`adjacency_matrix` and :func:`relabel_graph`;
* :mod:`spec.relations` — neighbouring relations that decide and generate neighbours;
* :mod:`spec.sensitivity` — global, local-bound and β-smooth sensitivity claims;
* :mod:`spec.noise` — noise laws with their exact densities, CDFs and batched samplers;
* :mod:`spec.mechanism_spec` — the :class:`MechanismSpec` that ties them together and
  refuses contradictory claims;
* :mod:`spec.errors` — the project's one exception hierarchy;
* :mod:`spec.stable_values` — the one home of the rule that puts a numerically computed
  value (an accountant's ε, a calibrated σ) on a 6-digit grid, rounded outward, before a
  spec holds it, so that specs hash the same on every CPU;
* :mod:`spec.validation` — the one home of input validation (the ``check_*`` functions,
  also exported here, and the data-array checks).

The base model :class:`SpecModel`, the annotated field types (``Epsilon``, ``Delta``,
``PositiveInt``, ``ExtendedEpsilon``, ...), the validators and the injected-randomness
helpers (:data:`RandomLike`, :func:`as_generator`, :class:`WeightedChoice`) are exported
here: code outside ``spec`` imports them from ``spec`` (or ``spec.validation``), never
from a private module ``spec._*`` (a unit test checks it).

Every model is frozen, refuses unknown fields, round-trips through JSON
(``Model.from_json(m.to_json()) == m``) and has a stable ``content_hash``.
"""

from __future__ import annotations

from ._base import HASH_SCHEMA, SpecModel
from ._random import RandomLike, WeightedChoice, as_generator
from ._types import (
    EPSILON_MAX,
    EPSILON_MIN,
    Delta,
    Epsilon,
    ExtendedEpsilon,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    Probability,
    RenyiOrder,
    check_alpha,
    check_confidence,
    check_delta,
    check_epsilon,
    check_positive,
    check_probability,
    check_sample_size,
)
from .accuracy import AccuracyClaim, AccuracyTarget, ErrorNorm
from .domains import (
    Categorical,
    DatasetDomain,
    GraphDomain,
    InputDomain,
    IntegerRange,
    RealInterval,
    VectorDomain,
    adjacency_matrix,
    relabel_graph,
)
from .errors import (
    AuditError,
    BudgetExceededError,
    CertificateError,
    InconsistentSpecError,
    InvalidGraphError,
    InvalidInputError,
    InvalidParameterError,
    KernelRangeError,
    NonMonotoneRelationError,
    NotNeighboursError,
    PrivauditError,
    PrivauditWarning,
    RegistryError,
    SpecError,
    UnsupportedCombinationError,
    UtilityConditionWarning,
)
from .guarantees import (
    ApproxDP,
    GaussianDP,
    PrivacyGuarantee,
    PureDP,
    RenyiDP,
    ZeroConcentratedDP,
    pure_to_zcdp,
    zcdp_to_renyi,
)
from .keyed_release import KeyedRelease
from .mechanism_spec import (
    AdditiveNoise,
    FiniteRandomizer,
    MechanismSpec,
    NoiseApplication,
    NoisyArgmax,
    RandomizedResponse,
    Reference,
    SmoothSensitivityNoise,
)
from .noise import (
    AdditiveNoiseLaw,
    DiscreteGaussian,
    DiscreteLaplace,
    Exponential,
    FiniteOutputLaw,
    Gaussian,
    Gumbel,
    InverseQuartic,
    Laplace,
    LatticeGaussian,
    LatticeLaplace,
    NoiseLaw,
    RandomizedResponseLaw,
)
from .relations import (
    AddRemoveOne,
    EdgeNeighbouring,
    LocalNodeRelation,
    LocalRelation,
    MessageLayout,
    NeighbourDecision,
    NeighbouringRelation,
    NodeNeighbouring,
    PublicRandomness,
    QueryDistance,
    SubstituteOne,
    public_randomness_digest,
)
from .sensitivity import (
    GlobalSensitivity,
    LocalSensitivityBound,
    SensitivityClaim,
    SmoothSensitivityBound,
)

__all__ = [
    "AccuracyClaim",
    "AccuracyTarget",
    "AddRemoveOne",
    "AdditiveNoise",
    "AdditiveNoiseLaw",
    "ApproxDP",
    "AuditError",
    "BudgetExceededError",
    "Categorical",
    "CertificateError",
    "DatasetDomain",
    "Delta",
    "DiscreteGaussian",
    "DiscreteLaplace",
    "EPSILON_MAX",
    "EPSILON_MIN",
    "EdgeNeighbouring",
    "Epsilon",
    "ErrorNorm",
    "Exponential",
    "ExtendedEpsilon",
    "FiniteOutputLaw",
    "FiniteRandomizer",
    "Gaussian",
    "GaussianDP",
    "GlobalSensitivity",
    "GraphDomain",
    "Gumbel",
    "HASH_SCHEMA",
    "InconsistentSpecError",
    "InputDomain",
    "IntegerRange",
    "InvalidGraphError",
    "InvalidInputError",
    "InvalidParameterError",
    "InverseQuartic",
    "KernelRangeError",
    "KeyedRelease",
    "Laplace",
    "LatticeGaussian",
    "LatticeLaplace",
    "LocalNodeRelation",
    "LocalRelation",
    "LocalSensitivityBound",
    "MechanismSpec",
    "MessageLayout",
    "NeighbourDecision",
    "NeighbouringRelation",
    "NodeNeighbouring",
    "NoiseApplication",
    "NoiseLaw",
    "NoisyArgmax",
    "NonMonotoneRelationError",
    "NonNegativeFloat",
    "NonNegativeInt",
    "NotNeighboursError",
    "PositiveFloat",
    "PositiveInt",
    "PrivacyGuarantee",
    "PrivauditError",
    "PrivauditWarning",
    "Probability",
    "PublicRandomness",
    "PureDP",
    "QueryDistance",
    "RandomLike",
    "RandomizedResponse",
    "RandomizedResponseLaw",
    "RealInterval",
    "Reference",
    "RegistryError",
    "RenyiDP",
    "RenyiOrder",
    "SensitivityClaim",
    "SmoothSensitivityBound",
    "SmoothSensitivityNoise",
    "SpecError",
    "SpecModel",
    "SubstituteOne",
    "UnsupportedCombinationError",
    "UtilityConditionWarning",
    "VectorDomain",
    "WeightedChoice",
    "ZeroConcentratedDP",
    "adjacency_matrix",
    "as_generator",
    "check_alpha",
    "check_confidence",
    "check_delta",
    "check_epsilon",
    "check_positive",
    "check_probability",
    "check_sample_size",
    "public_randomness_digest",
    "pure_to_zcdp",
    "relabel_graph",
    "zcdp_to_renyi",
]
