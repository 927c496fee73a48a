"""Mechanism families that StatDP and DP-Sniper both benchmark: noisy max and noisy histogram.

Both suites test the same four report-noisy-max variants (Ding et al. 2018, Algorithms
5–8) and the same histogram pair (Algorithms 9–10); they differ only in the claimed ε,
the number of queries, what the histogram reports and the names.  The classes here
take those as parameters; :mod:`privaudit.suites.statdp` and
:mod:`privaudit.suites.dpsniper` instantiate them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from privaudit.spec import AdditiveNoise, Exponential, IntegerRange, Laplace, NoisyArgmax, Reference
from privaudit.spec.errors import InvalidParameterError
from privaudit.suites._kernels import QueryMechanism, query_spec
from privaudit.suites._laplace import KERNEL_DRAWS, laplace_noise, laplace_noisy_max

__all__ = ["DING_2018", "NoisyHistogram", "NoisyMax"]

DING_2018 = Reference(
    citation="Ding, Wang, Wang, Zhang & Kifer, 'Detecting violations of differential "
    "privacy', ACM CCS 2018",
    locator="Algorithms 5-10 (noisy max and histogram variants)",
    url="https://doi.org/10.1145/3243734.3243818",
)


def _positive(value: Any, label: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not np.isfinite(value)
        or value <= 0
    ):
        raise InvalidParameterError(f"{label} must be a finite number > 0, got {value!r}")
    return float(value)


def _count(value: Any, label: str, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise InvalidParameterError(f"{label} must be an integer >= {least}, got {value!r}")
    return int(value)


class NoisyMax(QueryMechanism):
    """Report noisy max: argmax (or max) of ``q + Z`` with Z i.i.d. Laplace or exponential.

    Parameters
    ----------
    epsilon : float
        The claimed ε; the noise scale is 2/ε (unit sensitivity, ALL_DIFFER).
    noise : {"laplace", "exponential"}
        Law of each Z_i (exponential noise is one-sided: permute-and-flip).
    report : {"index", "value"}
        ``"index"`` releases the arg-max (ε-DP); ``"value"`` releases the noisy maximum
        itself — the bug of Ding et al.'s Algorithms 7 and 8.
    length : int
        Number of queries.
    name : str
        The spec's name.
    references : sequence of Reference
        Extra references (the paper and repository file of the variant).
    notes : str
        The spec's notes.

    Notes
    -----
    Outputs: ``int64`` indices of shape ``(N,)`` for ``report="index"``, ``float64``
    values of shape ``(N,)`` for ``report="value"``.  The arg-max variants declare
    :class:`~spec.NoisyArgmax` noise; the value variants release no arg-max and are
    declared as black boxes (``noise=None``).  The claim is ε-DP on the real line with
    neighbours at ℓ∞ distance ≤ 1.

    Laplace noise is drawn as b·S·E (E ~ Exp(1), S an independent random sign;
    :func:`~privaudit.suites._laplace.laplace_noise`), exponential noise as b·E: the same
    laws as ``Generator.laplace`` / ``Generator.exponential``, a different stream.

    References
    ----------
    Ding, Wang, Wang, Zhang & Kifer, "Detecting violations of differential privacy",
    CCS 2018, Algorithms 5-8; ``cmla-psu/statdp``, ``statdp/algorithms.py``
    (``noisy_max_v1a`` … ``noisy_max_v2b``); ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/report_noisy_max.py`` (``ReportNoisyMax1`` … ``4``); Kotz,
    Kozubowski & Podgórski, *The Laplace Distribution and Generalizations*, 2001, §2.2
    (Laplace = random sign × exponential).
    """

    def __init__(
        self,
        epsilon: float,
        *,
        noise: Literal["laplace", "exponential"],
        report: Literal["index", "value"],
        length: int = 5,
        name: str = "noisy_max",
        references: Sequence[Reference] = (),
        notes: str = "",
    ) -> None:
        eps = _positive(epsilon, "epsilon")
        if noise not in ("laplace", "exponential"):
            raise InvalidParameterError(f"noise must be 'laplace' or 'exponential', got {noise!r}")
        if report not in ("index", "value"):
            raise InvalidParameterError(f"report must be 'index' or 'value', got {report!r}")
        n = _count(length, "length", 2)
        self.epsilon, self.noise, self.report, self.scale = eps, noise, report, 2.0 / eps
        law = Laplace(scale=self.scale) if noise == "laplace" else Exponential(scale=self.scale)
        what = "index of the largest" if report == "index" else "largest"
        spec = query_spec(
            name=name,
            summary=f"the {what} of {n} query answers plus i.i.d. {noise} noise of scale 2/epsilon",
            references=(DING_2018, *references),
            length=n,
            norm="linf",
            epsilon=eps,
            noise=NoisyArgmax(law=law) if report == "index" else None,
            notes=notes,
        )
        super().__init__(spec)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        answers = np.asarray(data, dtype=np.float64)
        if self.noise == "laplace" and size * answers.shape[0] >= KERNEL_DRAWS:
            # one compiled pass over the noise (the same values as below, to the bit)
            return laplace_noisy_max(rng, self.scale, answers, size, report=self.report)
        # arg-max reads rows of (N, n); the maximum value reduces fastest over (n, N)
        by_sample = self.report == "index"
        shape = (size, answers.shape[0]) if by_sample else (answers.shape[0], size)
        if self.noise == "laplace":
            noisy = laplace_noise(rng, self.scale, shape)
        else:
            noisy = rng.standard_exponential(shape)
            noisy *= self.scale
        if by_sample:
            noisy += answers[np.newaxis, :]
            return noisy.argmax(axis=1).astype(np.int64)
        noisy += answers[:, np.newaxis]
        return noisy.max(axis=0)


class NoisyHistogram(QueryMechanism):
    """Laplace noise on every query answer; releases all of them or only the first.

    Parameters
    ----------
    epsilon : float
        The claimed ε; the declared noise is Laplace(1/ε) (unit ℓ1 sensitivity).
    scale_is_epsilon : bool
        The bug of Ding et al.'s Algorithm 10: the noise actually drawn has scale ε
        instead of 1/ε (the spec still declares 1/ε, as the buggy code claims to).
    length : int
        Number of queries.
    report : {"all", "first"}
        ``"all"`` releases the noisy vector, shape ``(N, length)`` (DP-Sniper's
        NoisyHist); ``"first"`` releases only the first noisy answer, shape ``(N,)``
        (StatDP's ``histogram``).
    integer_range : tuple of int, optional
        ``(lo, hi)``: the answers are counts in ``lo … hi`` (DP-Sniper: 0 … 10); default
        the real line.
    name, references, notes
        As for :class:`NoisyMax`.

    Notes
    -----
    Neighbours: one answer moves by at most 1 (StatDP's ONE_DIFFER), encoded as ℓ1
    distance ≤ 1.  The Laplace noise is drawn as b·S·E (E ~ Exp(1), S an independent
    random sign; :func:`~privaudit.suites._laplace.laplace_noise`): the law of
    ``Generator.laplace``, a different stream.

    References
    ----------
    Ding et al., CCS 2018, Algorithms 9-10; ``cmla-psu/statdp``, ``statdp/algorithms.py``
    (``histogram``, ``histogram_eps``); ``eth-sri/dp-sniper``,
    ``dpsniper/mechanisms/noisy_hist.py`` (``NoisyHist1``, ``NoisyHist2``); Kotz,
    Kozubowski & Podgórski, *The Laplace Distribution and Generalizations*, 2001, §2.2.
    """

    def __init__(
        self,
        epsilon: float,
        *,
        scale_is_epsilon: bool = False,
        length: int = 5,
        report: Literal["all", "first"] = "all",
        integer_range: tuple[int, int] | None = None,
        name: str = "noisy_histogram",
        references: Sequence[Reference] = (),
        notes: str = "",
    ) -> None:
        eps = _positive(epsilon, "epsilon")
        n = _count(length, "length")
        if report not in ("all", "first"):
            raise InvalidParameterError(f"report must be 'all' or 'first', got {report!r}")
        self.epsilon, self.report = eps, report
        self.scale = eps if scale_is_epsilon else 1.0 / eps
        element = (
            None
            if integer_range is None
            else IntegerRange(lo=integer_range[0], hi=integer_range[1])
        )
        width = n if report == "all" else 1
        spec = query_spec(
            name=name,
            summary=("each" if report == "all" else "the first") + " of "
            f"{n} query answers plus Laplace noise of scale 1/epsilon",
            references=(DING_2018, *references),
            length=n,
            norm="l1",
            epsilon=eps,
            noise=AdditiveNoise(law=Laplace(scale=1.0 / eps), calibration="exact"),
            output_dimension=width,
            element=element,
            statistic=None if report == "all" else "the first query answer (sensitivity 1)",
            notes=notes,
        )
        super().__init__(spec)

    def statistic(self, data: Any) -> Any:
        values = super().statistic(data)
        return float(values[0]) if self.report == "first" else values

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        answers = np.asarray(data, dtype=np.float64)
        if self.report == "first":
            noisy = laplace_noise(rng, self.scale, size)
            noisy += answers[0]
            return noisy
        noisy = laplace_noise(rng, self.scale, (size, answers.shape[0]))
        noisy += answers[np.newaxis, :]
        return noisy
