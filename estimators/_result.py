"""The result object every private estimator returns, and how results hide what is not private.

A result object may carry non-private quantities next to the private release (the exact
U-statistic, the smooth sensitivity S(X), the exact graph density …) for evaluation and
debugging.  They stay available as attributes, documented as **not private**, but they are
never part of ``repr`` or ``str``: logging or printing a result must not leak them.  Mark
such a field with :func:`non_private_field`; a field inherited from a base class whose value
is not private in a subclass (``noise_std`` = S(X)/β in Algorithm 1) is named in the
subclass's ``NON_PRIVATE_INHERITED``.  :func:`non_private_fields` lists them all and
:func:`private_repr` is the ``repr`` that leaves them out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, dataclass_transform

from privaudit.spec import MechanismSpec, PrivacyGuarantee

__all__ = [
    "PrivateEstimate",
    "non_private_field",
    "non_private_fields",
    "private_repr",
    "result_dataclass",
]

_NON_PRIVATE = {"non_private": True}
_T = TypeVar("_T")


def non_private_field(**kwargs: Any) -> Any:
    """A dataclass field that holds a non-private value: kept, but hidden from ``repr``."""
    return dataclasses.field(repr=False, metadata=_NON_PRIVATE, **kwargs)


@dataclass_transform(field_specifiers=(dataclasses.field, non_private_field))
def result_dataclass(**kwargs: Any) -> Callable[[type[_T]], type[_T]]:
    """``dataclasses.dataclass(**kwargs)`` for classes with :func:`non_private_field` fields.

    The same decorator at run time; it also tells type checkers (PEP 681) that
    :func:`non_private_field` declares a field without a default.
    """
    decorate: Callable[[type[_T]], type[_T]] = dataclass(**kwargs)
    return decorate


def non_private_fields(obj: Any) -> frozenset[str]:
    """Names of the non-private fields of a result object (or class)."""
    marked = {f.name for f in dataclasses.fields(obj) if f.metadata.get("non_private")}
    inherited = getattr(obj, "NON_PRIVATE_INHERITED", ())
    return frozenset(marked | set(inherited))


def private_repr(self: Any) -> str:
    """``Class(field=value, …)`` over the fields shown in ``repr`` that are private."""
    hidden = non_private_fields(self)
    shown = ", ".join(
        f"{f.name}={getattr(self, f.name)!r}"
        for f in dataclasses.fields(self)
        if f.repr and f.name not in hidden
    )
    return f"{type(self).__name__}({shown})"


@dataclass(frozen=True, slots=True, repr=False)
class PrivateEstimate:
    """A private release together with the claims it was made under.

    ``repr`` and ``str`` show only private (or public) fields (:func:`private_repr`).

    Attributes
    ----------
    estimate : float
        The released value.
    spec : MechanismSpec
        The spec of the mechanism that released it (claims, relation, noise law).
    noise_std : float
        Standard deviation of the added noise (the private part of the error).  Public
        when the noise is calibrated to a global sensitivity; **not private** when it is
        scaled to a data-dependent (smooth) sensitivity, and then hidden from ``repr``.
    """

    #: Inherited fields that are not private in this class (hidden from ``repr``).
    NON_PRIVATE_INHERITED: ClassVar[tuple[str, ...]] = ()

    estimate: float
    spec: MechanismSpec
    noise_std: float

    __repr__ = private_repr

    @property
    def guarantee(self) -> PrivacyGuarantee:
        """The privacy guarantee the release was made under."""
        return self.spec.guarantee

    def __float__(self) -> float:
        return float(self.estimate)
