"""The declared privacy-loss law of a finite *product* randomizer, exactly, by convolution.

The loss of a :class:`~spec.FiniteRandomizer` with L > 1 coordinates is a sum of
independent per-coordinate losses, so its law is the convolution of their finite laws,
rounded as :func:`~privaudit.auditing.distinguish.events.llr_round` rounds the declared LLR.
:mod:`~privaudit.auditing.distinguish.declared_plan` picks its Neyman–Pearson level sets from
it without touching a sample; the events are then counted on sampled outputs, so the result
is a sampling bound.

References: Neyman & Pearson 1933; Kairouz, Oh & Viswanath, ICML 2015.  Details:
``docs/engine_notes.md``, "privaudit.auditing.distinguish.product_loss".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privaudit.auditing.distinguish.events import LLR_DECIMALS, llr_round
from privaudit.spec import FiniteRandomizer
from privaudit.spec.errors import AuditError, PrivauditError

__all__ = ["MAX_PRODUCT_SUPPORT", "product_loss_law", "product_loss_points"]

#: Largest support of the convolved loss law (beyond it no law is returned).
MAX_PRODUCT_SUPPORT = 200_000
#: Decimals to which partial sums are merged while convolving (finer than the final
#: rounding, so that rounding errors do not accumulate over the coordinates).
_KEY_DECIMALS = 12


def _coordinate(
    log_px: np.ndarray, log_py: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One coordinate's loss values and their masses under x and y (merged, sorted)."""
    px, py = np.exp(log_px), np.exp(log_py)
    used = (px > 0) | (py > 0)
    with np.errstate(invalid="ignore"):
        loss = log_px[used] - log_py[used]  # ±inf where one side is 0
    return _merge(loss, px[used], py[used], _KEY_DECIMALS)


def _merge(
    loss: np.ndarray, mx: np.ndarray, my: np.ndarray, decimals: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Aggregate the masses of losses equal to ``decimals`` decimals (first value kept)."""
    keys = np.where(np.isfinite(loss), np.round(loss, decimals), loss)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    return (
        loss[first],
        np.bincount(inverse, weights=mx, minlength=first.size),
        np.bincount(inverse, weights=my, minlength=first.size),
    )


def product_loss_points(
    log_px: np.ndarray, log_py: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact law of L = Σ_c ℓ_c under both inputs, from two (L, A) log-probability tables.

    Parameters
    ----------
    log_px, log_py : numpy.ndarray
        Shape (L, A): log P_c(o | x) and log P_c(o | y) (−inf for impossible symbols).

    Returns
    -------
    values, mass_x, mass_y : numpy.ndarray
        Sorted distinct loss values (rounded as the declared LLR rounds; ±inf allowed) and
        their probabilities under M(x) and M(y).

    Raises
    ------
    AuditError
        If the tables' shapes differ, or the support would exceed
        :data:`MAX_PRODUCT_SUPPORT` points.
    """
    log_px = np.asarray(log_px, dtype=np.float64)
    log_py = np.asarray(log_py, dtype=np.float64)
    if log_px.shape != log_py.shape or log_px.ndim != 2:
        raise AuditError(
            f"product loss law needs two (L, A) tables of one shape, got "
            f"{log_px.shape} and {log_py.shape}"
        )
    values, mass_x, mass_y = np.zeros(1), np.ones(1), np.ones(1)
    for c in range(log_px.shape[0]):
        v_c, mx_c, my_c = _coordinate(log_px[c], log_py[c])
        if values.size * v_c.size > 8 * MAX_PRODUCT_SUPPORT:
            raise AuditError(
                f"the product loss law is too large to convolve ({values.size} × {v_c.size} points)"
            )
        with np.errstate(invalid="ignore"):
            summed = (values[:, None] + v_c[None, :]).ravel()
        # +inf + −inf: an output impossible on both sides carries no mass on either
        summed = np.where(np.isnan(summed), 0.0, summed)
        values, mass_x, mass_y = _merge(
            summed,
            (mass_x[:, None] * mx_c[None, :]).ravel(),
            (mass_y[:, None] * my_c[None, :]).ravel(),
            _KEY_DECIMALS,
        )
        if values.size > MAX_PRODUCT_SUPPORT:
            raise AuditError(
                f"the product loss law has {values.size} support points, more "
                f"than {MAX_PRODUCT_SUPPORT}"
            )
    # the rounding the declared LLR applies to test outputs, then merge again
    return _merge(llr_round(values), mass_x, mass_y, LLR_DECIMALS)


def product_loss_law(
    mechanism: Any, x: Any, y: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`product_loss_points` of a mechanism's declared product law on (x, y).

    Returns ``None`` unless the spec declares a :class:`~spec.FiniteRandomizer` with
    more than one coordinate and the mechanism provides ``output_probabilities`` (the
    single-coordinate case is an output table, handled directly by the planner), or when
    the hook fails or the law is too large.
    """
    noise = getattr(mechanism.spec, "noise", None)
    if not isinstance(noise, FiniteRandomizer) or noise.law.length <= 1:
        return None
    shape = (int(noise.law.length), int(noise.law.alphabet))
    try:
        if not mechanism.provides("output_probabilities"):
            return None
        tables = []
        for data in (x, y):
            p = np.asarray(mechanism.output_probabilities(data), dtype=np.float64)
            with np.errstate(divide="ignore"):
                tables.append(np.log(p.reshape(shape)))
        return product_loss_points(tables[0], tables[1])
    except (PrivauditError, NotImplementedError, ValueError, TypeError):
        return None
