"""The StatDP benchmark: eleven noisy-max, histogram and sparse-vector algorithms.

:func:`statdp_cases` builds the algorithms of ``cmla-psu/statdp`` (Ding, Wang, Wang, Zhang
& Kifer, CCS 2018) with the settings of its ``examples/benchmark.py``, for any claimed ε₀
(the benchmark's: :data:`STATDP_CLAIMED_EPSILONS`), with StatDP's input patterns
(:func:`statdp_patterns`) and the true ε of each, derived in its ``notes``.  Outputs are
StatDP's own, post-processing of the SVT transcript included, because it is what StatDP
tests.

Details (settings, outputs, the true ε of the incorrect SVTs): ``docs/engine_notes.md``,
"privaudit.suites.statdp".
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Literal

import numpy as np

from privaudit.spec import Reference
from privaudit.spec.errors import InvalidParameterError
from privaudit.suites._base import BenchmarkCase
from privaudit.suites._families import DING_2018, NoisyHistogram, NoisyMax, _count, _positive
from privaudit.suites._kernels import QueryMechanism, query_spec, transcript_length
from privaudit.suites._laplace import laplace_noise
from privaudit.suites._svt_patterns import MAX_TABLE_LENGTH, answer_patterns

__all__ = ["STATDP_CLAIMED_EPSILONS", "StatDPSparseVector", "statdp_cases", "statdp_patterns"]

#: The claimed ε₀ of StatDP's ``examples/benchmark.py``.
STATDP_CLAIMED_EPSILONS = (0.2, 0.7, 1.5)

_FILE = "cmla-psu/statdp, statdp/algorithms.py"
_SOURCE = (
    "Ding, Wang, Wang, Zhang & Kifer, 'Detecting violations of differential privacy', "
    "ACM CCS 2018; " + _FILE
)
_LYU = Reference(
    citation="Lyu, Su & Li, 'Understanding the sparse vector technique for differential "
    "privacy', PVLDB 10(6), 2017",
    locator="Algorithms 1 and 3-6; Table 1",
    url="https://arxiv.org/abs/1603.01699",
)
_REPO = Reference(citation="cmla-psu/statdp", locator="statdp/algorithms.py; examples/benchmark.py")

Variant = Literal["SVT", "iSVT1", "iSVT2", "iSVT3", "iSVT4"]

# (threshold scale, query scale (None: no noise), strict comparison, cut-off?) per variant,
# as multiples of 1/epsilon (query scales of SVT and iSVT4 are further multiplied by N).
_SVT_SETTINGS: dict[str, tuple[float, float | None, bool, bool]] = {
    "SVT": (2.0, 4.0, False, True),
    "iSVT1": (2.0, None, False, False),
    "iSVT2": (2.0, 2.0, False, False),
    "iSVT3": (4.0, 4.0 / 3.0, True, True),
    "iSVT4": (2.0, 2.0, True, True),
}


#: Input pairs of a family of cases (:func:`statdp_patterns`).
_Pairs = tuple[tuple[np.ndarray, np.ndarray], ...]


def statdp_patterns(length: int, all_differ: bool) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """StatDP's input pairs (``statdp/generators.py``, ``generate_databases``).

    Parameters
    ----------
    length : int
        Number of query answers (StatDP: 5).
    all_differ : bool
        True: ALL_DIFFER's eight patterns (one below, one above, one above rest below,
        one below rest above, half-half, all above, all below, X-shape); False:
        ONE_DIFFER's first two.

    Returns
    -------
    tuple of (ndarray, ndarray)
        float64 answer vectors ``(d1, d2)`` in StatDP's order (StatDP tests each pair in
        both directions itself).
    """
    n = _count(length, "length", 2)
    half, low, high = n // 2, math.floor(n / 2.0), math.ceil(n / 2.0)
    d1 = [1] * n
    raw = [(d1, [0] + [1] * (n - 1)), (d1, [2] + [1] * (n - 1))]
    if all_differ:
        raw += [
            (d1, [2] + [0] * (n - 1)),
            (d1, [0] + [2] * (n - 1)),
            (d1, [2] * half + [0] * (n - half)),
            (d1, [2] * n),
            (d1, [0] * n),
            ([1] * low + [0] * high, [0] * low + [1] * high),
        ]
    return tuple((np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)) for a, b in raw)


class StatDPSparseVector(QueryMechanism):
    """StatDP's sparse vector variants ``SVT`` and ``iSVT1`` … ``iSVT4``, vectorised.

    Parameters
    ----------
    epsilon : float
        The claimed ε₀ (the algorithm's ``epsilon`` argument).
    variant : {"SVT", "iSVT1", "iSVT2", "iSVT3", "iSVT4"}
        ``SVT``: threshold noise Lap(2/ε), query noise Lap(4N/ε), stop after N ⊤ (correct;
        Lyu et al. Alg. 1); ``iSVT1``: no query noise, no cut-off (Stoddard et al.; Lyu et
        al. Alg. 5); ``iSVT2``: query noise Lap(2/ε) not scaled with N, no cut-off (Chen et
        al.; Alg. 6); ``iSVT3``: threshold Lap(4/ε), queries Lap(4/(3ε)), strict ``>``
        (Lee & Clifton; Alg. 4); ``iSVT4``: releases the noisy answer instead of ⊤, query
        noise Lap(2N/ε), strict ``>`` (Roth's notes; Alg. 3).
    N : int
        The cut-off (StatDP's benchmark: 1).
    T : float
        The threshold (StatDP's benchmark: 0.5 for ``SVT``, 1 for the others).
    length : int
        Number of queries (5).
    name : str
        The spec's name.
    notes : str
        The spec's notes.

    Notes
    -----
    Outputs (StatDP's, shape ``(N_samples,)`` unless said): ``SVT`` the number of ⊥
    answers (``int64``); ``iSVT1``–``iSVT3`` the Hamming distance between the answers
    given and the pattern (⊤ for the first ⌊n/2⌋ queries, ⊥ after), unanswered queries
    counting as mismatches (``int64``); ``iSVT4`` a ``float64`` array of shape
    ``(N_samples, 2)``: the number of ⊥ answers, then the last released noisy answer
    (0.0 when the last answer given was ⊥, as StatDP's ``False``).  Declared as a black
    box on answers of sensitivity 1 under ALL_DIFFER (ℓ∞ ≤ 1).

    Sampling (the law of StatDP's loop, not its stream): Laplace variates are drawn as
    b·S·E, E ~ Exp(1) and S an independent random sign
    (:func:`~privaudit.suites._laplace.laplace_noise`), and every output but iSVT4's
    released value is a function of the answer pattern (bit j: query j compared above),
    read from a table of all 2ⁿ patterns computed by the same transcript code.

    References
    ----------
    Ding et al., CCS 2018; ``cmla-psu/statdp``, ``statdp/algorithms.py`` (``SVT``,
    ``iSVT1`` … ``iSVT4``); Lyu, Su & Li, PVLDB 2017; Kotz, Kozubowski & Podgórski,
    *The Laplace Distribution and Generalizations*, 2001, §2.2.
    """

    def __init__(
        self,
        epsilon: float,
        variant: Variant,
        *,
        N: int = 1,
        T: float = 1.0,
        length: int = 5,
        name: str | None = None,
        notes: str = "",
    ) -> None:
        if variant not in _SVT_SETTINGS:
            raise InvalidParameterError(
                f"variant must be one of {sorted(_SVT_SETTINGS)}, got {variant!r}"
            )
        self.epsilon = _positive(epsilon, "epsilon")
        self.variant, self.N, self.T = variant, _count(N, "N"), float(T)
        n = _count(length, "length", 2)
        rho, nu, self.strict, cutoff = _SVT_SETTINGS[variant]
        self.threshold_scale = rho / self.epsilon
        per_n = variant in ("SVT", "iSVT4")
        self.query_scale = None if nu is None else nu * (self.N if per_n else 1) / self.epsilon
        self.cutoff = self.N if cutoff else None
        output = (
            "(count of bottom answers, last released value)"
            if variant == "iSVT4"
            else (
                "count of bottom answers" if variant == "SVT" else "Hamming distance to the pattern"
            )
        )
        super().__init__(
            query_spec(
                name=name or f"statdp.{variant}",
                summary=f"StatDP {variant} (N={self.N}, T={self.T:g}) on {n} answers; releases "
                f"the {output}",
                references=(DING_2018, _LYU, _REPO),
                length=n,
                norm="linf",
                epsilon=self.epsilon,
                output_dimension=2 if variant == "iSVT4" else 1,
                notes=notes,
            )
        )

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        q = np.asarray(data, dtype=np.float64)[:, np.newaxis]  # query-major
        n = q.shape[0]
        threshold = laplace_noise(rng, self.threshold_scale, size)
        threshold += self.T
        if self.query_scale is None:
            noisy = q
        else:
            noisy = laplace_noise(rng, self.query_scale, (n, size))
            noisy += q
        above = noisy > threshold if self.strict else noisy >= threshold
        if n <= MAX_TABLE_LENGTH:  # every summary is a function of the answer pattern
            patterns = answer_patterns(above)
            summary = tuple(
                np.take(column, patterns) for column in _pattern_summaries(n, self.cutoff)
            )
        else:
            summary = _transcript_summary(above.T, self.cutoff)
        given, bottoms, mismatches, last_is_top = summary
        if self.variant == "SVT":
            return bottoms
        if self.variant == "iSVT4":
            out = np.zeros((size, 2))
            out[:, 0] = bottoms
            released = np.flatnonzero(last_is_top)  # the last answer given was ⊤
            out[released, 1] = np.take(noisy, (given[released] - 1) * size + released)
            return out
        return mismatches


def _transcript_summary(above: np.ndarray, cutoff: int | None) -> tuple[np.ndarray, ...]:
    """Per run: answers given, ⊥ answers, Hamming distance to the pattern, last answer ⊤.

    ``above`` is sample-major, shape (M, n); the Hamming distance is to ⊤ for the first
    ⌊n/2⌋ queries and ⊥ after, missing answers counting as mismatches.  All ``int64``
    except the last (bool).
    """
    m, n = above.shape
    given = transcript_length(above, cutoff)
    answered = np.arange(n)[np.newaxis, :] < given[:, np.newaxis]
    tops = np.sum(above & answered, axis=1)
    pattern = np.arange(n) < n // 2
    mismatches = np.sum((above != pattern[np.newaxis, :]) & answered, axis=1) + (n - given)
    last_is_top = above[np.arange(m), given - 1]
    return (given, (given - tops).astype(np.int64), mismatches.astype(np.int64), last_is_top)


@lru_cache(maxsize=32)
def _pattern_summaries(length: int, cutoff: int | None) -> tuple[np.ndarray, ...]:
    """:func:`_transcript_summary` of each of the 2ⁿ answer patterns (bit j: query j ⊤)."""
    patterns = np.arange(2**length)
    above = ((patterns[:, np.newaxis] >> np.arange(length)) & 1).astype(bool)
    columns = _transcript_summary(above, cutoff)
    for column in columns:
        column.setflags(write=False)
    return columns


def _noisy_max_cases(eps: float, pairs: _Pairs) -> list[BenchmarkCase]:
    specs: list[
        tuple[str, Literal["laplace", "exponential"], Literal["index", "value"], float, str]
    ] = [
        (
            "noisy_max_v1a",
            "laplace",
            "index",
            eps,
            (
                "Correct report noisy max (Algorithm 5): "
                "arg-max with Laplace(2/eps) noise under ALL_DIFFER is eps-DP (Dwork & Roth, Claim "
                "3.9), tight in the limit where the reported candidate is far below the others and "
                "moves down by 1 while they move up by 1."
            ),
        ),
        (
            "noisy_max_v1b",
            "laplace",
            "value",
            2.5 * eps,
            (
                "Releases the maximum noisy value "
                "(Algorithm 7). With n = 5 and b = 2/eps the density of the maximum, sum_i f(m - "
                "q_i) prod_{j != i} F(m - q_j), has n Laplace factors per term, each moving by at "
                "most e^(1/b): eps <= n/b = n eps/2 = 2.5 eps; for m < min(q) - 1 all factors are "
                "in the exponential left tail, so q' = q + 1 (StatDP's all-above pattern) attains "
                "it exactly."
            ),
        ),
        (
            "noisy_max_v2a",
            "exponential",
            "index",
            eps,
            (
                "Correct (Algorithm 6): arg-max with "
                "one-sided Exponential(2/eps) noise (permute-and-flip) is eps-DP, tight by the "
                "same limit as noisy_max_v1a."
            ),
        ),
        (
            "noisy_max_v2b",
            "exponential",
            "value",
            math.inf,
            (
                "Releases the maximum value with "
                "one-sided exponential noise (Algorithm 8): the output is >= max(q) surely, so for "
                "q' = q + 1 the event [max q, max q + 1) has positive probability under q and none "
                "under q': not DP for any finite eps."
            ),
        ),
    ]
    return [
        BenchmarkCase(
            name=f"statdp.{name}",
            mechanism=NoisyMax(
                eps,
                noise=noise,
                report=report,
                name=f"statdp.{name}",
                references=(_REPO,),
            ),
            true_epsilon=true,
            claimed_epsilon=eps,
            input_pairs=pairs,
            source=f"{_SOURCE} ({name})",
            notes=note,
        )
        for name, noise, report, true, note in specs
    ]


def _histogram_cases(eps: float, pairs: _Pairs) -> list[BenchmarkCase]:
    return [
        BenchmarkCase(
            name="statdp.histogram",
            mechanism=NoisyHistogram(
                eps, length=5, report="first", name="statdp.histogram", references=(_REPO,)
            ),
            true_epsilon=eps,
            claimed_epsilon=eps,
            input_pairs=pairs,
            source=f"{_SOURCE} (histogram)",
            notes="Laplace(1/eps) on every answer, the first released; one answer moves by "
            "at most 1 (ONE_DIFFER): eps-DP, attained.",
        ),
        BenchmarkCase(
            name="statdp.histogram_eps",
            mechanism=NoisyHistogram(
                eps,
                scale_is_epsilon=True,
                length=5,
                report="first",
                name="statdp.histogram_eps",
                references=(_REPO,),
            ),
            true_epsilon=1.0 / eps,
            claimed_epsilon=eps,
            input_pairs=pairs,
            source=f"{_SOURCE} (histogram_eps)",
            notes="Noise scale eps instead of 1/eps (the spec declares the intended "
            "Laplace(1/eps)); an answer moving by 1 gives the log density ratio 1/eps, "
            f"attained: true eps = 1/eps0 = {1.0 / eps:.6g}. Private exactly when "
            "eps0 >= 1 (e.g. at StatDP's claim 1.5).",
        ),
    ]


def _svt_cases(eps: float, pairs: _Pairs) -> list[BenchmarkCase]:
    specs: list[tuple[Variant, float, float, str]] = [
        (
            "SVT",
            0.5,
            eps,
            (
                "Correct (Lyu et al. Alg. 1 with c = N = 1): threshold "
                "Lap(2/eps) (eps/2) and queries Lap(4N/eps) (eps/2 over N tops): eps-DP, and the "
                "count of bottom answers is post-processing. Tight: the output 4 is the "
                "transcript (bot^4, top); with the bottom answers at H -> inf moved up by 1 and "
                "the top one moved down by 1, the threshold shift (eps/2) and the top noise shift "
                "by 2 (eps/2) are exact where the mass concentrates."
            ),
        ),
        (
            "iSVT1",
            1.0,
            math.inf,
            (
                "No noise on the queries (Stoddard et al.; Lyu et al. Alg. "
                "5). X-shape pair d1 = (1, 1, 0, 0, 0), d2 = (0, 0, 1, 1, 1): under d1 the answers "
                "(top, top, bot, bot, bot), Hamming distance 0, occur when 0 < T + eta1 <= 1; "
                "under d2 distance 0 is impossible. Not DP for any finite eps."
            ),
        ),
        (
            "iSVT2",
            1.0,
            2.5 * eps,
            (
                "Query noise Lap(2/eps) not scaled with N and no cut-off "
                "(Chen et al.; Lyu et al. Alg. 6); the survey table's 'grows with the number of "
                "queries, infinite for unbounded streams' is n eps/2 for n queries. Upper bound: "
                "given the threshold noise the 5 answers are independent and each probability "
                "moves by at most e^(eps/2): 5 eps/2. Sup: output 0 = transcript (top, top, bot, "
                "bot, bot) with d = (L, L, H, H, H), d' = (L-1, L-1, H+1, H+1, H+1); for T + eta1 "
                "in [L, H] every factor is in its exponential tail and the integrand is flat "
                "there, so the ratio tends to e^(5 eps/2) as H - L -> inf (quadrature at eps0 = 1: "
                "2.495 at L = -200, H = 200)."
            ),
        ),
        (
            "iSVT3",
            1.0,
            1.75 * eps,
            (
                "Lee & Clifton (Lyu et al. Alg. 4) with c = N = 1: "
                "threshold Lap(4/eps) (eps/4), queries Lap(4/(3 eps)) (3 eps/4): "
                "((1 + 6c)/4) eps = 7 eps/4 for the transcript (Lyu et al.), hence for its "
                "Hamming distance. Attained "
                "in the limit: output 3 is exactly the transcript (bot^4, top); with the bottom "
                "answers at H -> inf moved up by 1 and the top one moved down by 1 the ratio tends "
                "to e^(eps/4 + 2 * 3 eps/4) (quadrature at eps0 = 1: 1.75000 at H = 20)."
            ),
        ),
        (
            "iSVT4",
            1.0,
            2.5 * eps,
            (
                "Releases the noisy answer of the top query (Roth's notes; "
                "Lyu et al. Alg. 3), queries Lap(2N/eps) = Lap(2/eps). The survey table says "
                "infinity, which holds for unbounded query streams. With 5 queries: given the "
                "threshold noise each of the 5 answers enters the output density through one "
                "Laplace factor (CDF for a bottom answer, density of the released value), each "
                "moving by at most e^(eps/2): eps <= 5 eps/2. Attained exactly: the output (4, v) "
                "with v < min(q) under q' = q + 1 (StatDP's all-above pattern) puts every factor "
                "in its exponential left tail."
            ),
        ),
    ]
    return [
        BenchmarkCase(
            name=f"statdp.{variant}",
            mechanism=StatDPSparseVector(eps, variant, N=1, T=threshold),
            true_epsilon=true,
            claimed_epsilon=eps,
            input_pairs=pairs,
            source=f"{_SOURCE} ({variant}); settings from examples/benchmark.py",
            notes=f"N = 1, T = {threshold:g}, 5 queries, ALL_DIFFER. {note}",
        )
        for variant, threshold, true, note in specs
    ]


def statdp_cases(claimed_epsilon: float) -> tuple[BenchmarkCase, ...]:
    """StatDP's eleven benchmark algorithms at the claimed ε₀.

    Parameters
    ----------
    claimed_epsilon : float
        ε₀ > 0, the ``epsilon`` argument of every algorithm (StatDP uses 0.2, 0.7, 1.5:
        :data:`STATDP_CLAIMED_EPSILONS`).

    Returns
    -------
    tuple of BenchmarkCase
        noisy_max_v1a, noisy_max_v1b, noisy_max_v2a, noisy_max_v2b, histogram,
        histogram_eps, SVT, iSVT1, iSVT2, iSVT3, iSVT4 (the order of StatDP's
        ``examples/benchmark.py``).  ``reference_results`` are empty: StatDP reports
        p-values, not ε lower bounds.

    Raises
    ------
    InvalidParameterError
        If ``claimed_epsilon`` is not a finite number > 0.

    References
    ----------
    Ding, Wang, Wang, Zhang & Kifer, "Detecting violations of differential privacy",
    CCS 2018; ``cmla-psu/statdp``, ``statdp/algorithms.py``, ``statdp/generators.py``,
    ``examples/benchmark.py``.
    """
    eps = _positive(claimed_epsilon, "claimed_epsilon")
    all_differ, one_differ = statdp_patterns(5, True), statdp_patterns(5, False)
    return tuple(
        _noisy_max_cases(eps, all_differ)
        + _histogram_cases(eps, one_differ)
        + _svt_cases(eps, all_differ)
    )
