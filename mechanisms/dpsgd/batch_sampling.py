"""Batch sampling of DP-SGD, vectorised over independent runs.

The three batch samplers of Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang, "How
Private are DP-SGD Implementations?", ICML 2024, §2 (and of their "Scalable DP-SGD:
Shuffling vs. Poisson Subsampling", NeurIPS 2024, §3 for balls-in-bins), for a dataset of
``n`` examples, an expected batch size ``b`` and ``S = n / b`` steps per epoch:

* ``"poisson"`` — at every step, each example joins the batch independently with
  probability ``q = b / n`` (the sampler every DP-SGD accountant analyses);
* ``"shuffle"`` — every epoch, a uniformly random permutation of the examples is cut
  into ``S`` consecutive batches of exactly ``b`` examples;
* ``"balls_in_bins"`` — every epoch, each example is put in one of the ``S`` batches
  uniformly at random, independently of the others.

:func:`batch_sums` returns, for ``size`` independent runs, the sum of a fixed vector of
per-example contributions over every batch: the noiseless answers of the adaptive batch
linear queries (ABLQ) of the paper when the queries do not adapt.  Runs are processed in
chunks of at most :data:`CHUNK_ELEMENTS` random numbers; every random number comes from
the one generator, in a fixed order, so a seeded call is reproducible.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from privaudit.spec.errors import InvalidParameterError

__all__ = ["BATCH_SAMPLERS", "CHUNK_ELEMENTS", "BatchSampler", "batch_masks", "batch_sums"]

BatchSampler = Literal["poisson", "shuffle", "balls_in_bins"]

#: The batch samplers, in the order of the paper.
BATCH_SAMPLERS: tuple[str, ...] = ("poisson", "shuffle", "balls_in_bins")

#: Largest number of random numbers (runs × steps × examples) drawn in one chunk.
CHUNK_ELEMENTS = 1 << 22


def _check_sampler(sampler: str) -> str:
    if sampler not in BATCH_SAMPLERS:
        raise InvalidParameterError(
            f"batch sampler must be one of {', '.join(BATCH_SAMPLERS)}, got {sampler!r}"
        )
    return sampler


def batch_masks(
    sampler: str, n: int, batch_size: int, steps: int, size: int, rng: np.random.Generator
) -> npt.NDArray[np.bool_]:
    """Batch membership of ``size`` runs: ``mask[r, t, i]`` is true iff example ``i`` is in
    the batch of step ``t`` of run ``r``.

    Parameters
    ----------
    sampler : {"poisson", "shuffle", "balls_in_bins"}
    n, batch_size : int
        Dataset size and (expected) batch size; ``n`` must be a multiple of
        ``batch_size`` (``S = n / batch_size`` steps per epoch).
    steps : int
        Number of steps ``T``; for ``"shuffle"`` and ``"balls_in_bins"`` a multiple of
        ``S`` (whole epochs).
    size : int
        Number of independent runs.
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of bool, shape ``(size, steps, n)``
    """
    _check_sampler(sampler)
    per_epoch = n // batch_size
    if sampler == "poisson":
        return rng.random((size, steps, n)) < batch_size / n
    epochs = steps // per_epoch
    if sampler == "shuffle":
        order = np.argsort(rng.random((size, epochs, n)), axis=-1)
        position = np.argsort(order, axis=-1)  # where example i sits in the order
        batch = position // batch_size
    else:
        batch = rng.integers(0, per_epoch, size=(size, epochs, n))
    steps_of_epoch = np.arange(per_epoch)
    mask = batch[:, :, None, :] == steps_of_epoch[None, None, :, None]
    return mask.reshape(size, steps, n)


def _poisson_sums(
    flat: npt.NDArray[np.float64], q: float, steps: int, size: int, rng: np.random.Generator
) -> npt.NDArray[np.float64]:
    """Poisson batch sums drawn per distinct contribution: ``Σ_v v·Binomial(k_v, q)``.

    Examples with equal contributions are exchangeable, so the number of them in a batch
    is all that matters: the same law as per-example coins, at the cost of one binomial
    per distinct contribution (rows of ``flat`` are the contributions).
    """
    values, counts = np.unique(flat, axis=0, return_counts=True)
    out = np.zeros((size, steps, flat.shape[1]))
    for v, k in zip(values, counts, strict=True):
        out += rng.binomial(int(k), q, size=(size, steps))[:, :, None] * v
    return out


def batch_sums(
    sampler: str,
    contributions: npt.NDArray[np.float64],
    batch_size: int,
    steps: int,
    size: int,
    rng: np.random.Generator,
) -> npt.NDArray[np.float64]:
    """Per-step sums of fixed per-example ``contributions`` over sampled batches.

    Same law as summing over :func:`batch_masks`, drawn more cheaply: Poisson by one
    binomial per distinct contribution, shuffling by permuting the contributions and
    summing consecutive blocks of ``batch_size``, balls-in-bins by a weighted bincount.

    Parameters
    ----------
    sampler : {"poisson", "shuffle", "balls_in_bins"}
    contributions : numpy.ndarray, shape ``(n,)`` or ``(n, d)``
        The (clipped) contribution of each example to the linear query.
    batch_size, steps, size, rng
        As in :func:`batch_masks`.

    Returns
    -------
    numpy.ndarray, shape ``(size, steps)`` or ``(size, steps, d)``
    """
    _check_sampler(sampler)
    c = np.asarray(contributions, dtype=np.float64)
    n = c.shape[0]
    flat = c.reshape(n, -1)
    d = flat.shape[1]
    per_epoch = n // batch_size
    epochs = max(1, steps // per_epoch)
    if sampler == "poisson":
        out = _poisson_sums(flat, batch_size / n, steps, size, rng)
        return out.reshape((size, steps) + c.shape[1:])
    out = np.empty((size, steps, d))
    per_chunk = max(1, CHUNK_ELEMENTS // max(1, epochs * n * d))
    for start in range(0, size, per_chunk):
        m = min(size, start + per_chunk) - start
        if sampler == "shuffle":
            order = np.argsort(rng.random((m, epochs, n)), axis=-1)
            blocks = flat[order].reshape(m, epochs, per_epoch, batch_size, d).sum(axis=3)
        else:
            bins = rng.integers(0, per_epoch, size=(m, epochs, n))
            index = (
                np.arange(m * epochs)[:, None] * per_epoch + bins.reshape(m * epochs, n)
            ).reshape(-1)
            blocks = np.stack(
                [
                    np.bincount(
                        index,
                        weights=np.tile(flat[:, j], m * epochs),
                        minlength=m * epochs * per_epoch,
                    )
                    for j in range(d)
                ],
                axis=-1,
            )
        out[start : start + m] = blocks.reshape(m, steps, d)
    return out.reshape((size, steps) + c.shape[1:])
