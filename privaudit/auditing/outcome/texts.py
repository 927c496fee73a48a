"""One-line texts of numbers and claims: how privaudit writes an ε and a claim.

The one home of these texts: the audit report, the certificate, the command line and the
verification of certificates all write an ε with :func:`format_epsilon` and a claim with
:func:`claim_text` (or its halves :func:`guarantee_text` and :func:`relation_text`), so that
the same claim reads the same everywhere.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel

from privaudit.spec import MechanismSpec

__all__ = ["claim_text", "format_epsilon", "guarantee_text", "relation_text"]


def format_epsilon(value: float, digits: int = 4) -> str:
    """``value`` with ``digits`` significant digits, or ``"inf"``.

    Examples
    --------
    >>> format_epsilon(1.23456), format_epsilon(1.23456, 6), format_epsilon(math.inf)
    ('1.235', '1.23456', 'inf')
    """
    return "inf" if math.isinf(value) else f"{value:.{digits}g}"


#: Longest text of one field inside a nested model (a relation's message layout, its
#: public randomness); longer prose is left to the spec itself.
_NESTED_FIELD_CHARS = 24


def _value_text(value: Any) -> str:
    if isinstance(value, float):
        # 6 significant digits (every computed claim is on that grid, spec.stable_values);
        # the full repr when they do not name the value, so that two claims that hash
        # differently never read the same
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    if isinstance(value, dict) and "kind" in value:
        return _fields_text(dict(value), nested=True)
    return str(value)


def _fields_text(data: dict[str, Any], *, nested: bool = False) -> str:
    """``kind(field=value, ...)``: unset and empty fields left out; inside a nested model,
    fields whose text is long prose are left out too (one line per claim)."""
    kind = data.pop("kind", "")
    parts = []
    for key, value in data.items():
        if value is None or (isinstance(value, (list, tuple, dict)) and not value):
            continue
        text = _value_text(value)
        if nested and len(text) > _NESTED_FIELD_CHARS:
            continue
        parts.append(f"{key}={text}")
    inner = ", ".join(parts)
    return f"{kind}({inner})" if inner else str(kind)


def _model_text(model: BaseModel) -> str:
    data = model.model_dump()
    data.setdefault("kind", type(model).__name__)
    return _fields_text(data)


def guarantee_text(spec: MechanismSpec) -> str:
    """The guarantee of ``spec`` in one line, e.g. ``approx_dp(epsilon=1, delta=1e-05)``."""
    return _model_text(spec.guarantee)


def relation_text(spec: MechanismSpec) -> str:
    """The relation of ``spec`` in one line, e.g. ``query_distance(norm=l1, radius=1)``."""
    return _model_text(spec.relation)


def claim_text(spec: MechanismSpec) -> str:
    """The guarantee and relation of ``spec`` in one line.

    Examples
    --------
    >>> from privaudit.mechanisms import LaplaceMechanism
    >>> claim_text(LaplaceMechanism(1.0, 1.0).spec)
    'pure_dp(epsilon=1) under query_distance(norm=l1, radius=1)'
    """
    return f"{guarantee_text(spec)} under {relation_text(spec)}"
