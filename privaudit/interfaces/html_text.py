"""Text helpers of the HTML report (:mod:`privaudit.interfaces.html_report`): escaping, numbers,
compact one-line JSON, and a neighbouring pair with its differing entries marked.
"""

from __future__ import annotations

import html
import json
import math
from typing import Any

__all__: list[str] = []


def _e(value: Any) -> str:
    """Escape any value as HTML text."""
    return html.escape(str(value), quote=True)


def _num(value: float | None, digits: int = 4) -> str:
    if value is None:
        return "—"
    v = float(value)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    return f"{v:.{digits}g}"


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _pct(value: float) -> str:
    return f"{100 * value:g}%"


def _atom(value: Any) -> str:
    """Compact text of a scalar JSON value."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        return _num(value, 6)
    if isinstance(value, str):
        return repr(value)
    return str(value)


def _compact(value: Any, limit: int = 220) -> str:
    """Compact one-line text of a JSON value (numbers to 6 digits), cut at ``limit``."""
    if isinstance(value, list):
        text = "[" + ", ".join(_compact(v, limit) for v in value) + "]"
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{k}: {_compact(v, limit)}" for k, v in value.items()) + "}"
    else:
        text = _atom(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pair_html(x: Any, y: Any, window: int = 3, max_items: int = 40) -> tuple[str, str]:
    """HTML of x and y with the differing entries marked (flat lists of equal length)."""
    if not (isinstance(x, list) and isinstance(y, list) and len(x) == len(y) and x):
        return _e(_compact(x)), _e(_compact(y))
    diff = [i for i, (a, b) in enumerate(zip(x, y, strict=True)) if a != b]
    n = len(x)
    if n <= max_items:
        keep = set(range(n))
    else:
        keep = set(range(min(window, n))) | set(range(max(0, n - window), n))
        for i in diff[:8]:
            keep |= set(range(max(0, i - window), min(n, i + window + 1)))

    def render(seq: list[Any]) -> str:
        parts: list[str] = []
        gap = False
        for i, item in enumerate(seq):
            if i not in keep:
                if not gap:
                    parts.append('<span class="muted">…</span>')
                gap = True
                continue
            gap = False
            text = _e(_compact(item, 60))
            parts.append(f"<mark>{text}</mark>" if i in diff else text)
        return "[" + ", ".join(parts) + "]"

    return render(x), render(y)
