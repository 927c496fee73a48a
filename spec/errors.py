"""The one exception hierarchy of privaudit.

Every error raised on purpose by ``spec``, ``mechanisms``, ``estimators`` and
``privaudit`` derives from :class:`PrivauditError`, so callers may catch the whole
family with one ``except`` clause, and the CLI turns any of them into a one-line
message and exit code 2.  Each error names the offending value.

::

    PrivauditError
    ├── SpecError                          (also a ValueError)
    │   ├── InvalidParameterError          a parameter outside its range: ε ≤ 0, δ ∉ [0, 1), α ≤ 1 …
    │   │   ├── ParameterTypeError         a parameter that is not a real number: a string (even
    │   │   │                              "1.0"), a complex number, a boolean, None
    │   │   ├── EpsilonRangeError          ε not finite, ≤ 0, or outside the accepted range
    │   │   │                              [EPSILON_MIN, EPSILON_MAX] = [1e-50, 300]
    │   │   │                              (spec.validation)
    │   │   ├── DeltaRangeError            δ outside [0, 1)
    │   │   ├── SampleSizeError            a sample size n that is not an integer ≥ its minimum
    │   │   ├── UnstableValueError         a numerically computed claim that cannot be put on
    │   │   │                              the stable grid (NaN; spec.stable_values)
    │   │   └── ExactSamplingRangeError    a parameter outside the range of an exact integer sampler
    │   └── InconsistentSpecError          the parts of a spec contradict each other
    │       └── NonMonotoneRelationError   a monotone claim (noisy argmax) under a relation
    │                                      that lets scores move in both directions
    ├── UnsupportedCombinationError        (also a TypeError) parts that cannot go together:
    │   │                                  a Gaussian with a pure-DP claim, an ℓ2 law under
    │   │                                  an ℓ1 claim …
    │   └── RelationConversionError        a guarantee cannot be restated under another
    │                                      neighbouring relation (substitute-one →
    │                                      add/remove-one without a declared add/remove-one
    │                                      claim; docs/accounting.md)
    ├── InvalidInputError                  (also a ValueError) data that does not fit its domain
    │   ├── NonNumericInputError           strings (numeric strings too), bytes, booleans, None or
    │   │                                  other objects where real numbers are expected
    │   ├── ComplexInputError              complex numbers where real numbers are expected
    │   ├── NonFiniteInputError            NaN or ±inf
    │   ├── EmptyInputError                no records at all
    │   ├── InputShapeError                wrong number of dimensions or record shape, ragged input
    │   ├── OutOfDomainError               a record outside its declared range or label set
    │   ├── InvalidGraphError              directed, self-loops, wrong node set, degree bound broken
    │   ├── NotNeighboursError             a pair that the declared relation does not relate
    │   ├── KernelRangeError               a kernel value outside its declared range
    │   └── SamplerOutputError             a mechanism's sampler returned outputs that are not
    │       │                              what its spec declares (an input error of the
    │       │                              audit, never a privacy violation)
    │       ├── OutputShapeError           wrong shape for the declared output_dimension, or
    │       │                              the wrong number of outputs (also InputShapeError)
    │       ├── NonFiniteOutputError       NaN, or ±inf where the declared output is finite
    │       │                              (also NonFiniteInputError)
    │       ├── NonNumericOutputError      not numbers: dtype object, strings, complex, None,
    │       │                              a dict … (also NonNumericInputError)
    │       └── SamplerTimeoutError        a sampler call that did not return within the
    │                                      audit's sampler_timeout (or its time budget)
    ├── AuditError                         the auditor could not run as asked (bad budget,
    │   │                                  no statistic …)
    │   └── ExecutorError                  a distributed executor could not run (extra
    │       │                              missing, no scheduler …)
    │       └── NotShippableError          the mechanism cannot be pickled and sent to the workers
    ├── BudgetExceededError                a release would exceed an analyst's privacy budget
    └── CertificateError                   a certificate is missing, stale, or does not match
        └── RegistryError                  a registry lookup failed or was refused
            ├── StaleCertificateError      refused: the certificate is missing or stale
            └── InconsistentCertificateError
                                           refused: the certificate contradicts itself

Warnings that are not errors derive from :class:`PrivauditWarning`::

    PrivauditWarning                       (also a UserWarning)
    ├── UncertifiedMechanismWarning        a registry mechanism used without a current certificate
    └── UtilityConditionWarning            a data-independent condition of a utility theorem fails
                                           (the privacy claim is unaffected)
"""

from __future__ import annotations

__all__ = [
    "AuditError",
    "BudgetExceededError",
    "CertificateError",
    "ComplexInputError",
    "DeltaRangeError",
    "EmptyInputError",
    "EpsilonRangeError",
    "ExactSamplingRangeError",
    "ExecutorError",
    "InconsistentCertificateError",
    "InconsistentSpecError",
    "InputShapeError",
    "InvalidGraphError",
    "InvalidInputError",
    "InvalidParameterError",
    "KernelRangeError",
    "NonFiniteInputError",
    "NonFiniteOutputError",
    "NonMonotoneRelationError",
    "NonNumericInputError",
    "NonNumericOutputError",
    "NotNeighboursError",
    "NotShippableError",
    "OutOfDomainError",
    "OutputShapeError",
    "ParameterTypeError",
    "PrivauditError",
    "PrivauditWarning",
    "RegistryError",
    "RelationConversionError",
    "SampleSizeError",
    "SamplerOutputError",
    "SamplerTimeoutError",
    "SpecError",
    "StaleCertificateError",
    "UncertifiedMechanismWarning",
    "UnstableValueError",
    "UnsupportedCombinationError",
    "UtilityConditionWarning",
]


class PrivauditError(Exception):
    """Base class of every error that privaudit raises on purpose."""


class SpecError(PrivauditError, ValueError):
    """A specification (a claim, a law, a relation, a mechanism spec) is invalid."""


class InvalidParameterError(SpecError):
    """A single parameter lies outside its admissible range (ε ≤ 0, δ ∉ [0, 1), …)."""


class ExactSamplingRangeError(InvalidParameterError):
    """A law's parameter (or a draw) lies outside the range its exact integer sampler
    supports (e.g. a discrete Laplace scale t/s with t > 2⁵⁶, see ``spec.noise._cks``)."""


class ParameterTypeError(InvalidParameterError):
    """A parameter that must be a real number is not one (string, complex, bool, None …)."""


class EpsilonRangeError(InvalidParameterError):
    """ε is not finite, not > 0, or outside [EPSILON_MIN, EPSILON_MAX] (``spec.validation``)."""


class DeltaRangeError(InvalidParameterError):
    """δ lies outside [0, 1)."""


class SampleSizeError(InvalidParameterError):
    """A sample size (a number of records, outputs or simulations) is not a large enough integer."""


class UnstableValueError(InvalidParameterError):
    """A numerically computed value (an accountant's ε, a calibrated σ …) cannot be put on
    the stable grid of ``spec.stable_values`` before it enters a spec: it is NaN."""


class InconsistentSpecError(SpecError):
    """The parts of a spec contradict each other (e.g. Laplace scale b < Δ/ε)."""


class NonMonotoneRelationError(InconsistentSpecError):
    """A claim that needs monotone neighbours (every score moves the same way, e.g. a
    ``monotone=True`` noisy argmax) made under a relation that allows two-sided changes."""


class UnsupportedCombinationError(PrivauditError, TypeError):
    """Two parts that cannot be combined (e.g. Gaussian noise with a pure-DP claim)."""


class RelationConversionError(UnsupportedCombinationError):
    """A guarantee stated under one neighbouring relation cannot be restated under another.

    Raised by ``mechanisms.accounting.relations.decide_conversion`` (budgets, compositions,
    subsampling): a substitute-one guarantee says nothing when the dataset's size changes,
    so it is never converted to add/remove-one unless the mechanism also declares an
    add/remove-one claim.  The message names both relations and the release.
    """


class InvalidInputError(PrivauditError, ValueError):
    """Concrete input data does not fit the declared domain (NaN, shape, range, empty …)."""


class NonNumericInputError(InvalidInputError):
    """Data that should be real numbers holds strings (numeric strings included), bytes,
    booleans, None or other objects."""


class ComplexInputError(InvalidInputError):
    """Data that should be real numbers holds complex numbers."""


class NonFiniteInputError(InvalidInputError):
    """Data holds NaN or ±inf."""


class EmptyInputError(InvalidInputError):
    """Data holds no record."""


class InputShapeError(InvalidInputError):
    """Data has the wrong number of dimensions or record shape, or is ragged."""


class OutOfDomainError(InvalidInputError):
    """A record lies outside its declared range (interval bounds, label set)."""


class InvalidGraphError(InvalidInputError):
    """A graph input is not simple, undirected, loop-free on the public node set."""


class NotNeighboursError(InvalidInputError):
    """A pair of inputs that the declared neighbouring relation does not relate."""


class KernelRangeError(InvalidInputError):
    """A kernel returned a value outside the range it declared."""


class SamplerOutputError(InvalidInputError):
    """A mechanism's sampler returned outputs that do not fit what its spec declares.

    Raised by the auditor (:mod:`privaudit.auditing.sampler_outputs`) on every batch of
    outputs it draws, before any check looks at them: a wrong shape or number of outputs,
    NaN, ±inf where the declared output is finite, or values that are not numbers.  The
    mechanism under audit is then broken as code, not shown to leak: the audit stops with
    this error (the CLI exits 2) instead of reporting a violation.  The message names the
    sampler and the problem, e.g. ``sampler 'noisy_mean': 2 of 50000 outputs are NaN``.
    """


class OutputShapeError(SamplerOutputError, InputShapeError):
    """A sampler returned outputs of the wrong shape for the spec's ``output_dimension``, or
    not as many outputs as asked for."""


class NonFiniteOutputError(SamplerOutputError, NonFiniteInputError):
    """A sampler returned NaN, or ±inf where its declared output is finite."""


class NonNumericOutputError(SamplerOutputError, NonNumericInputError):
    """A sampler returned values that are not real numbers (an object or string array,
    complex numbers, None, a dict …)."""


class SamplerTimeoutError(SamplerOutputError):
    """A sampler call did not return within the audit's ``sampler_timeout`` (by default its
    ``time_budget``): the audit stops instead of hanging."""


class AuditError(PrivauditError):
    """The auditor cannot run as configured (bad budget, missing statistic, …)."""


class ExecutorError(AuditError):
    """A distributed executor cannot run: its extra is missing, its scheduler is unreachable,
    or its workers failed (``privaudit.execution.distributed``)."""


class NotShippableError(ExecutorError):
    """The work of an audit (the mechanism, its inputs and the counting) cannot be pickled
    and sent to distributed workers, or the workers cannot unpickle it."""


class CertificateError(PrivauditError):
    """A certificate is missing, stale, or does not match what it claims to certify."""


class RegistryError(CertificateError):
    """A registry lookup failed, or was refused because the entry is not certified."""


class StaleCertificateError(RegistryError):
    """A registry entry was refused: its certificate is missing, or stale for its code or spec."""


class InconsistentCertificateError(RegistryError):
    """A certificate contradicts itself (its verdict and checks, its ε bound and claim, its
    embedded report and its fields, or a configuration below the certificate minimums)."""


class PrivauditWarning(UserWarning):
    """Base class of privaudit's warnings (weak audits, unproven claims, opt-outs)."""


class UncertifiedMechanismWarning(PrivauditWarning):
    """A registry mechanism was handed out although its certificate is missing or stale.

    Emitted by ``privaudit.trust.registry.get(name, allow_uncertified=True)`` on every call: the
    opt-out is for research use only, and the mechanism's claims have not been audited in
    its current form.
    """


class UtilityConditionWarning(PrivauditWarning):
    """A public, data-independent condition of an accuracy theorem does not hold.

    Emitted, for example, when the conditions of Theorem A.1 of Chaudhuri et al. (2024)
    fail for the chosen family and τ, or when Wrapper 1 (Section 3.1, Lemma A.6) has to
    use fewer chunks than 8 ln(1/α).  The privacy claim does not depend on these
    conditions; only the stated accuracy does.
    """


class BudgetExceededError(PrivauditError):
    """A release was refused because it would exceed a :class:`~privaudit.PrivacyBudget`.

    Raised before any randomness is drawn; the message names the budget, what has been
    spent, what the refused release would cost and what is left.
    """
