"""A privacy account: what each stage of an estimator spent and what the whole release spent."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from privaudit.mechanisms import basic_composition
from privaudit.spec import PrivacyGuarantee
from privaudit.spec.errors import InvalidParameterError

__all__ = ["PrivacyAccount"]


@dataclass(frozen=True)
class PrivacyAccount:
    """The guarantees of the stages of one release, and their basic composition.

    Attributes
    ----------
    stages : tuple of (str, PrivacyGuarantee)
        What each stage released and under which guarantee, in order (every stage reads
        the same data, so they compose sequentially).
    total : PrivacyGuarantee
        :func:`mechanisms.basic_composition` of the stages' guarantees.

    Examples
    --------
    >>> from privaudit.spec import PureDP
    >>> account = PrivacyAccount.of([("coarse estimate", PureDP(epsilon=0.1)),
    ...                              ("Algorithm 1", PureDP(epsilon=0.9))])
    >>> round(account.total.epsilon, 12)
    1.0
    """

    stages: tuple[tuple[str, PrivacyGuarantee], ...]
    total: PrivacyGuarantee

    @classmethod
    def of(cls, stages: Sequence[tuple[str, PrivacyGuarantee]]) -> PrivacyAccount:
        """The account of ``stages``, composed with :func:`mechanisms.basic_composition`."""
        items = tuple((str(name), guarantee) for name, guarantee in stages)
        if not items:
            raise InvalidParameterError("a privacy account needs at least one stage, got none")
        return cls(stages=items, total=basic_composition(g for _, g in items))

    def spent_by(self, name: str) -> PrivacyGuarantee:
        """The guarantee of the stage called ``name``."""
        for stage, guarantee in self.stages:
            if stage == name:
                return guarantee
        raise InvalidParameterError(
            f"no stage named {name!r}; stages: {[stage for stage, _ in self.stages]}"
        )
