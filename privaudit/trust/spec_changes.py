"""What differs between a certificate's spec and a mechanism's: dotted fields, full values.

A stale certificate must say *what* changed, not only that a hash did: a claim computed at
run time that moved in its 12th digit (0.5653074598452299 → 0.5653074598440593) prints
as 0.565307 both times.  :func:`spec_changes` compares the spec a certificate records
with the current one field by field, recursively, and names every difference by its
dotted path (``guarantee.epsilon``, ``sensitivity[0].value``, ``noise.law.sigma``) with
both values at full precision (``repr`` of a float).

Examples
--------
>>> from privaudit.mechanisms import LaplaceMechanism
>>> spec_changes(LaplaceMechanism(1.0, 1.0).spec, LaplaceMechanism(0.5, 1.0).spec)
('guarantee.epsilon: 1.0 → 0.5', 'noise.law.scale: 1.0 → 2.0')
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

__all__ = ["describe_spec_changes", "spec_changes"]

#: Longest text of one changed string value shown in a reason (prose fields).
_TEXT_CHARS = 60
#: Most differences named in one reason; the rest are counted.
_MOST = 8


def _shown(value: Any) -> str:
    if isinstance(value, str) and len(value) > _TEXT_CHARS:
        return repr(value[: _TEXT_CHARS - 1] + "…")
    return repr(value)


def _text_change(old: str, new: str) -> str:
    """Where two long texts first differ, with a little context on each side."""
    start = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
    if start is None:
        start = min(len(old), len(new))
    lo = max(0, start - 20)

    def window(text: str) -> str:
        piece = text[lo : start + 30]
        return ("…" if lo else "") + piece + ("…" if start + 30 < len(text) else "")

    return f"{window(old)!r} → {window(new)!r}"


def _walk(old: Any, new: Any, path: str) -> Iterator[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in old:
                yield f"{where}: added ({_shown(new[key])})"
            elif key not in new:
                yield f"{where}: removed (was {_shown(old[key])})"
            else:
                yield from _walk(old[key], new[key], where)
    elif isinstance(old, (list, tuple)) and isinstance(new, (list, tuple)):
        for i, (a, b) in enumerate(zip(old, new, strict=False)):
            yield from _walk(a, b, f"{path}[{i}]")
        if len(old) != len(new):
            yield f"{path}: {len(old)} → {len(new)} items"
    elif old != new or type(old) is not type(new):
        if isinstance(old, str) and isinstance(new, str) and max(len(old), len(new)) > _TEXT_CHARS:
            yield f"{path or '<spec>'}: {_text_change(old, new)}"
        else:
            yield f"{path or '<spec>'}: {_shown(old)} → {_shown(new)}"


def _plain(spec: Any) -> Any:
    return spec.model_dump(mode="python") if isinstance(spec, BaseModel) else spec


def spec_changes(recorded: Any, current: Any) -> tuple[str, ...]:
    """Every field that differs between two specs (or their dumped dicts), one text each.

    Each text is ``path: old → new`` with the dotted path of the field (``[i]`` for an
    item of a tuple) and ``repr`` of both values, so that floats show every digit; a long
    text field shows where it first differs.  Empty when the specs are equal.

    Examples
    --------
    >>> spec_changes({"guarantee": {"epsilon": 0.5653074598452299}},
    ...              {"guarantee": {"epsilon": 0.5653074598440593}})
    ('guarantee.epsilon: 0.5653074598452299 → 0.5653074598440593',)
    """
    return tuple(_walk(_plain(recorded), _plain(current), ""))


def describe_spec_changes(recorded: Any, current: Any) -> str:
    """:func:`spec_changes` in one line: at most 8 differences, then how many more."""
    changes = spec_changes(recorded, current)
    if not changes:
        return "no field differs (the hashing scheme changed)"
    shown = "; ".join(changes[:_MOST])
    more = len(changes) - _MOST
    return shown + (f"; and {more} more field{'s' if more > 1 else ''}" if more > 0 else "")
