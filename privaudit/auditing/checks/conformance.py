"""Noise-law conformance: does the noise a mechanism actually draws follow its declared law?

:func:`check_noise_law` draws N outputs on one input in one ``mechanism.sample`` call, turns
them into draws of the declared *standardised* noise and tests them against it (KS,
Anderson–Darling, χ² or the exact multinomial test, and binomial tail tests that catch the
Curator Attack).  The sub-tests are combined by Bonferroni, so noise that follows its
declared law is reported as violated with probability at most α.

References: Anderson & Darling, JASA 1954; Marsaglia & Marsaglia, J. Stat. Softw. 2004;
Wang et al., ACM CCS 2024.  Details: ``docs/engine_notes.md``,
"privaudit.auditing.checks.conformance".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privaudit.auditing.checks._common import check_count, missing_hooks, skipped
from privaudit.auditing.checks._gof import (
    BINNED_ABOVE,
    BinnedSample,
    IntegerCounter,
    SubTest,
    anderson_darling_test,
    chi_square_test,
    exact_multinomial_test,
    integer_bins,
    ks_test,
    tail_tests,
)
from privaudit.auditing.checks._selection import selection_probabilities
from privaudit.auditing.outcome.results import CheckOutcome, jsonable_details
from privaudit.auditing.pairs import to_jsonable
from privaudit.auditing.sampler_outputs import draw_outputs
from privaudit.mechanisms import Mechanism
from privaudit.spec import (
    AdditiveNoise,
    FiniteRandomizer,
    LatticeGaussian,
    LatticeLaplace,
    NoisyArgmax,
    RandomizedResponse,
    RandomLike,
    SmoothSensitivityNoise,
    as_generator,
    check_alpha,
)

__all__ = ["check_noise_law"]

_NAME = "noise_law"


# ----------------------------------------------------------------------------------------
# sub-test batteries
# ----------------------------------------------------------------------------------------
def _support_failure(what: str, bad: int, n: int) -> list[SubTest]:
    return [SubTest("support", float(bad), 0.0, {"impossible_draws": bad, "n": n, "why": what})]


def _continuous_tests(z: np.ndarray, law: Any) -> list[SubTest]:
    """KS, Anderson–Darling and tail tests of ``z`` against a continuous law (through a
    binned probability-integral transform above :data:`~._gof.BINNED_ABOVE` draws)."""
    if not np.all(np.isfinite(z)):
        return _support_failure("non-finite draws", int(np.sum(~np.isfinite(z))), z.size)
    if z.size > BINNED_ABOVE:
        binned = BinnedSample(z, law)
        return [binned.ks(), binned.ad(), *tail_tests(binned, law, discrete=False)]
    zs = np.sort(z)
    cdf = np.asarray(law.cdf(zs), dtype=np.float64)
    sf = np.asarray(law.sf(zs), dtype=np.float64)
    with np.errstate(divide="ignore"):
        log_cdf, log_sf = np.log(cdf), np.log(sf)
    return [
        ks_test(cdf),
        anderson_darling_test(log_cdf, log_sf),
        *tail_tests(zs, law, discrete=False),
    ]


def _integer_tests(z: np.ndarray, law: Any) -> list[SubTest]:
    """χ² over quantile bins (merged to expected ≥ 5) and tail tests against an integer law."""
    off_lattice = ~np.isfinite(z) | (z != np.round(z))
    if off_lattice.any():
        return _support_failure("draws off the integer lattice", int(off_lattice.sum()), z.size)
    counter = IntegerCounter.of(z)
    if counter is None:
        zs = np.sort(z)
        edges, probs = integer_bins(law, zs.size)
        counts = np.bincount(np.searchsorted(edges, zs, side="left"), minlength=probs.size)
        return [chi_square_test(counts, probs), *tail_tests(zs, law, discrete=True)]
    edges, probs = integer_bins(law, z.size)
    # bins (−∞, b₀], (b₀, b₁], …, (b_last, ∞) on the integers: counts from #{Z ≤ b}
    at_or_below = np.array([counter.count_le(float(b)) for b in edges], dtype=np.int64)
    counts = np.diff(np.concatenate([[0], at_or_below, [z.size]]))
    return [chi_square_test(counts, probs), *tail_tests(counter, law, discrete=True)]


def _categorical_tests(out: np.ndarray, probs: np.ndarray) -> list[SubTest]:
    """Exact multinomial (tiny samples) or χ² of category frequencies against ``probs``."""
    m = probs.size
    labels = np.asarray(out).ravel()
    valid = (
        np.isfinite(labels) & (labels == np.round(labels)) & (labels >= 0) & (labels < m)
        if labels.dtype.kind == "f"
        else (labels >= 0) & (labels < m)
    )
    if not np.all(valid):
        return _support_failure(
            f"outputs outside the categories 0..{m - 1}", int(np.sum(~valid)), labels.size
        )
    counts = np.bincount(labels.astype(np.int64), minlength=m)
    exact = exact_multinomial_test(counts, probs)
    if exact is not None:
        return [exact]
    return [chi_square_test(counts, probs, order=np.argsort(probs, kind="stable"))]


# ----------------------------------------------------------------------------------------
# the check
# ----------------------------------------------------------------------------------------
def _outcome(tests: list[SubTest], alpha: float, what: str, **extra: Any) -> CheckOutcome:
    k = len(tests)
    level = alpha / k
    adjusted = [min(1.0, t.p_value * k) for t in tests]
    worst = int(np.argmin([t.p_value for t in tests]))
    rejected = [t.name for t in tests if t.p_value < level]
    violated = bool(rejected)
    sub = {
        t.name: {
            "statistic": t.statistic,
            "p_value": t.p_value,
            "adjusted_p_value": a,
            "rejected": t.p_value < level,
            **t.info,
        }
        for t, a in zip(tests, adjusted, strict=True)
    }
    summary = (
        f"{what}: {'rejected by ' + ', '.join(rejected) if violated else 'no sub-test rejects'}"
        f" (smallest Bonferroni-adjusted p = {adjusted[worst]:.3g} from {tests[worst].name},"
        f" {k} sub-tests at level alpha/{k} = {level:.3g})"
    )
    details = jsonable_details(
        bonferroni_k=k,
        alpha=alpha,
        level_per_test=level,
        rejected=rejected,
        worst_test=tests[worst].name,
        subtests=sub,
        **extra,
    )
    return CheckOutcome(
        name=_NAME,
        status="violated" if violated else "passed",
        summary=summary,
        statistic=adjusted[worst],
        threshold=alpha,
        error_rate=alpha,
        details=details,
    )


#: Coordinates of a finite randomizer's release in the consecutive joint tables (the
#: marginals and the pairwise tables cover every coordinate).
FINITE_COORDINATES_TESTED = 16
#: Largest total alphabet Σ_c |A_c| whose every coordinate pair gets a joint table on all
#: the samples; above it the pairs are screened on half the samples and the most
#: dependent :data:`SCREENED_PAIRS` tested on the other half.
ALL_PAIRS_COLUMNS = 512
#: Coordinate pairs tested after the screen of a wide release.
SCREENED_PAIRS = 32
#: Largest total alphabet of the screen (one-hot columns of its Gram matrix).
SCREEN_COLUMNS = 4096


def _finite_randomizer_outcome(
    mechanism: Mechanism,
    noise: FiniteRandomizer,
    xv: Any,
    n: int,
    gen: np.random.Generator,
    level: float,
    shown_input: Any,
) -> CheckOutcome:
    """Sampler against the ``output_probabilities`` hook, coordinate by coordinate."""
    law = noise.law
    length, alphabet = int(law.length), int(law.alphabet)
    probs = np.asarray(mechanism.output_probabilities(xv), dtype=np.float64).reshape(
        length, alphabet
    )
    # the spec declares output_dimension = law.length: draw_outputs checked the shape
    out = draw_outputs(mechanism, xv, n, gen).reshape(n, length)
    sizes = law.coordinate_alphabets
    tests: list[SubTest] = []
    for c in range(length):
        for t in _categorical_tests(out[:, c], probs[c, : sizes[c]]):
            tests.append(SubTest(f"coordinate {c}: {t.name}", t.statistic, t.p_value, t.info))
    joint = _joint_groups(sizes) if law.independent else []
    for group in joint:
        for t in _joint_tests(out, probs, sizes, group):
            tests.append(SubTest(f"joint {list(group)}: {t.name}", t.statistic, t.p_value, t.info))
    pairs_what = ""
    independence: dict[str, Any] = {}
    if law.independent and length > 1 and not any(t.name.endswith("support") for t in tests):
        pair_tests, pairs_what = _pairwise_tests(out, probs, sizes, gen)
        tests += pair_tests
        independence = {
            "independence_pairs_tested": len(pair_tests),
            "independence_pairs_total": length * (length - 1) // 2,
            "independence_design": "all_pairs"
            if pairs_what.startswith("all")
            else "screened"
            if "screened" in pairs_what
            else "random_pairs",
        }
    what = (
        f"{len(joint)} consecutive joint table(s) and {pairs_what} of coordinates declared "
        "independent"
        if law.independent and length > 1
        else "marginals only: the law declares dependent coordinates"
        if not law.independent
        else "one coordinate"
    )
    tested = length
    return _outcome(
        tests,
        level,
        f"finite randomizer outputs on x = {_short_input(shown_input)} "
        f"vs output_probabilities(x) ({tested} of {length} "
        f"coordinate(s); {what})",
        samples=n,
        law="FiniteOutputLaw",
        input=shown_input,
        **independence,
    )


#: Largest number of cells of one joint table of the conformance check.
JOINT_CELLS = 256
#: Coordinate pairs (c, L − 1 − c) tested jointly besides the consecutive groups.
JOINT_FAR_PAIRS = 4


def _joint_groups(sizes: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Groups of coordinates whose joint law is tested against the product of marginals.

    Consecutive groups of the first :data:`FINITE_COORDINATES_TESTED` coordinates, each
    with at most :data:`JOINT_CELLS` cells, then up to :data:`JOINT_FAR_PAIRS` pairs of
    distant coordinates (c, L − 1 − c): a sampler that shares randomness between
    coordinates the hook declares independent moves these tables, not the marginals.
    """
    length = len(sizes)
    if length < 2:
        return []
    groups: list[tuple[int, ...]] = []
    current: list[int] = []
    cells = 1
    for c in range(min(length, FINITE_COORDINATES_TESTED)):
        if current and cells * sizes[c] > JOINT_CELLS:
            if len(current) > 1:
                groups.append(tuple(current))
            current, cells = [], 1
        current.append(c)
        cells *= sizes[c]
    if len(current) > 1:
        groups.append(tuple(current))
    for c in range(min(JOINT_FAR_PAIRS, length // 2)):
        pair = (c, length - 1 - c)
        if (
            pair[1] - pair[0] > 1
            and sizes[pair[0]] * sizes[pair[1]] <= JOINT_CELLS
            and not any(set(pair) <= set(g) for g in groups)
        ):
            groups.append(pair)
    return groups


def _one_hot(out: np.ndarray, sizes: tuple[int, ...], coordinates: np.ndarray) -> np.ndarray:
    """Rows × Σ|A_c| indicators of the letters of ``coordinates`` (float32, for a Gram)."""
    widths = np.asarray([sizes[c] for c in coordinates], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(widths)[:-1]])
    hot = np.zeros((out.shape[0], int(widths.sum())), dtype=np.float32)
    rows = np.arange(out.shape[0])
    for k, c in enumerate(coordinates):
        hot[rows, offsets[k] + out[:, c].astype(np.int64)] = 1.0
    return hot


def _pair_table_tests(
    counts: np.ndarray,
    probs: np.ndarray,
    sizes: tuple[int, ...],
    offsets: np.ndarray,
    pairs: list[tuple[int, int]],
) -> list[SubTest]:
    """χ² of each pair's joint counts (the blocks of a Gram matrix of one-hot columns, each
    coordinate's first column at ``offsets``) against the product of the two declared rows."""
    found = []
    for a, b in pairs:
        table = counts[offsets[a] : offsets[a] + sizes[a], offsets[b] : offsets[b] + sizes[b]]
        expected = np.multiply.outer(probs[a, : sizes[a]], probs[b, : sizes[b]]).ravel()
        t = chi_square_test(np.rint(table).astype(np.int64).ravel(), expected)
        found.append(SubTest(f"pair ({a}, {b}): {t.name}", t.statistic, t.p_value, t.info))
    return found


def _pairwise_tests(
    out: np.ndarray, probs: np.ndarray, sizes: tuple[int, ...], gen: np.random.Generator
) -> tuple[list[SubTest], str]:
    """Every pair of coordinates declared independent, tested against the product of its
    declared rows: on all the samples when the release is narrow (Σ|A_c| ≤
    :data:`ALL_PAIRS_COLUMNS`); else screened on half the samples (the largest standardised
    deviation of a pair's joint counts from independence, over all pairs) and the
    :data:`SCREENED_PAIRS` most dependent pairs tested on the other half, so the test
    stays exact.  A sampler that reuses one coordinate's coin for another is caught
    wherever the two coordinates sit."""
    length = len(sizes)
    coords = np.arange(length)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    everything = [(a, b) for a in range(length) for b in range(a + 1, length)]
    if int(sum(sizes)) <= ALL_PAIRS_COLUMNS:
        hot = _one_hot(out, sizes, coords)
        counts = np.asarray(hot.T @ hot, dtype=np.float64)
        return (
            _pair_table_tests(counts, probs, sizes, offsets, everything),
            f"all {len(everything)} pairwise tables",
        )
    n = out.shape[0]
    order = gen.permutation(n)
    screen, test = out[order[: n // 2]], out[order[n // 2 :]]
    if int(sum(sizes)) <= SCREEN_COLUMNS:
        hot = _one_hot(screen, sizes, coords)
        counts = np.asarray(hot.T @ hot, dtype=np.float64)
        flat = np.concatenate([probs[c, : sizes[c]] for c in coords])
        expected = screen.shape[0] * np.multiply.outer(flat, flat)
        z = np.abs(counts - expected) / np.sqrt(np.maximum(expected, 1.0))
        owner = np.repeat(coords, np.asarray(sizes))
        scores = np.zeros((length, length))
        np.maximum.at(scores, (owner[:, None], owner[None, :]), z)
        ranked = sorted(everything, key=lambda p: -scores[p])
        chosen = ranked[:SCREENED_PAIRS]
        how = f"{len(chosen)} of {len(everything)} pairwise tables, screened"
    else:
        size = min(SCREENED_PAIRS, len(everything))
        picks = gen.choice(len(everything), size=size, replace=False)
        chosen = [everything[int(i)] for i in np.sort(picks)]
        how = f"{len(chosen)} random of {len(everything)} pairwise tables (too wide to screen)"
    used = np.unique(np.asarray(chosen).ravel())
    hot = _one_hot(test, sizes, used)
    counts_used = np.asarray(hot.T @ hot, dtype=np.float64)
    # each chosen coordinate's first column in the smaller Gram matrix of the test half
    offsets_used = np.zeros(length, dtype=np.int64)
    offsets_used[used] = np.concatenate([[0], np.cumsum([sizes[c] for c in used])[:-1]])
    return _pair_table_tests(counts_used, probs, sizes, offsets_used, chosen), how


def _joint_tests(
    out: np.ndarray, probs: np.ndarray, sizes: tuple[int, ...], group: tuple[int, ...]
) -> list[SubTest]:
    """The tuples of ``group``'s coordinates against the product of their declared rows."""
    cols = out[:, list(group)]
    valid = (
        np.all(np.isfinite(cols) & (cols == np.round(cols)) & (cols >= 0), axis=1)
        if cols.dtype.kind == "f"
        else np.all(cols >= 0, axis=1)
    )
    bounds = np.asarray([sizes[c] for c in group])
    valid &= np.all(cols < bounds[None, :], axis=1)
    if not np.all(valid):
        return _support_failure(
            "tuples outside the declared alphabets", int(np.sum(~valid)), int(valid.size)
        )
    codes = np.asarray(np.ravel_multi_index(cols.astype(np.int64).T, tuple(int(b) for b in bounds)))
    expected = np.ones(1)
    for c in group:
        expected = np.multiply.outer(expected, probs[c, : sizes[c]]).ravel()
    return _categorical_tests(codes, expected)


def _short_input(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _randomized_response_outcome(
    mechanism: Mechanism,
    noise: RandomizedResponse,
    xv: Any,
    n: int,
    gen: np.random.Generator,
    level: float,
    shown_input: Any,
    law_name: str,
) -> CheckOutcome:
    """Randomized-response frequencies against ``law.pmf_given(·, x)``."""
    rr = noise.law
    probs = np.asarray(rr.pmf_given(np.arange(rr.categories), xv), dtype=np.float64)
    out = draw_outputs(mechanism, xv, n, gen)
    return _outcome(
        _categorical_tests(out, probs),
        level,
        f"{rr.categories}-ary randomized response outputs on x = {int(xv)} vs P(y | x)",
        samples=n,
        law=law_name,
        input=shown_input,
    )


def _noisy_argmax_outcome(
    mechanism: Mechanism,
    law: Any,
    xv: Any,
    n: int,
    gen: np.random.Generator,
    level: float,
    shown_input: Any,
    law_name: str,
) -> CheckOutcome:
    """Noisy-argmax frequencies against the exact selection probabilities."""
    scores = np.asarray(mechanism.statistic(xv), dtype=np.float64).ravel()
    probs, quad_error = selection_probabilities(law, scores)
    out = draw_outputs(mechanism, xv, n, gen)
    return _outcome(
        _categorical_tests(out, probs),
        level,
        f"noisy-argmax outputs ({law_name} noise, {scores.size} candidates) vs "
        f"the exact selection probabilities",
        samples=n,
        law=law_name,
        input=shown_input,
        probabilities=probs,
        quadrature_error=quad_error,
    )


def _residual_outcome(
    mechanism: Mechanism,
    noise: AdditiveNoise | SmoothSensitivityNoise,
    law: Any,
    xv: Any,
    n: int,
    gen: np.random.Generator,
    level: float,
    shown_input: Any,
    law_name: str,
) -> CheckOutcome:
    """Additive or smooth-sensitivity noise: the residuals output − f(x), standardised by
    a/S(x) for smooth noise, against the declared law (continuous or integer battery)."""
    centre = np.asarray(mechanism.statistic(xv), dtype=np.float64)
    out = np.asarray(draw_outputs(mechanism, xv, n, gen), dtype=np.float64)
    expected_size = n * max(1, centre.size)
    if out.size != expected_size:
        return CheckOutcome(
            name=_NAME,
            status="violated",
            error_rate=level,
            summary=f"the sampler returned {out.size} values for {n} draws of a statistic with "
            f"{centre.size} coordinates (expected {expected_size})",
            details=jsonable_details(samples=n, output_shape=list(out.shape)),
        )
    residual = (out.reshape(n, -1) - centre.reshape(1, -1)).ravel()
    if isinstance(noise, SmoothSensitivityNoise):
        s_x = float(mechanism.smooth_sensitivity(xv))
        if s_x == 0.0:
            moved = int(np.count_nonzero(residual))
            if moved == 0:
                return skipped(
                    _NAME,
                    "S(x) = 0 at this input, so the declared noise is zero and "
                    "the outputs equal f(x): nothing to test (choose an input "
                    "with S(x) > 0)",
                    samples=n,
                )
            return CheckOutcome(
                name=_NAME,
                status="violated",
                error_rate=level,
                statistic=0.0,
                threshold=level,
                summary=f"S(x) = 0 declares noiseless outputs, but {moved} of {n} outputs "
                "differ from f(x)",
                details=jsonable_details(samples=n, noisy_outputs=moved),
            )
        z = residual * (noise.alpha / s_x)
        what = (
            f"standardised smooth-sensitivity noise (output - f(x))*a/S(x) with "
            f"S(x) = {s_x:.6g}, a = {noise.alpha:g} vs {law_name}"
        )
        extra: dict[str, Any] = {"smooth_sensitivity": s_x, "noise_scale": s_x / noise.alpha}
    else:
        z = residual
        what = f"residuals output - f(x) ({centre.size} coordinate(s) pooled) vs {law!r}"
        extra = {}
    tested = noise.law
    if isinstance(tested, (LatticeLaplace, LatticeGaussian)):
        # a law on the lattice g·ℤ: test z/g (exact, g = 2^−k) on ℤ
        z, tested = z / tested.granularity, tested.unit_law
    tests = _integer_tests(z, tested) if tested.is_discrete else _continuous_tests(z, tested)
    return _outcome(
        tests,
        level,
        what,
        samples=n,
        draws_tested=int(z.size),
        law=law_name,
        input=shown_input,
        **extra,
    )


def check_noise_law(
    mechanism: Mechanism, x: Any, rng: RandomLike, *, samples: int = 100_000, alpha: float = 0.01
) -> CheckOutcome:
    """Test that the noise drawn on input ``x`` follows the spec's declared noise law.

    ``samples`` outputs are drawn in ONE ``mechanism.sample`` call and standardised:

    * :class:`~spec.AdditiveNoise` — residuals output − f(x), coordinates pooled, against
      ``law``: continuous laws by Kolmogorov–Smirnov, Anderson–Darling (A² computed
      directly, p-value by Marsaglia & Marsaglia 2004) and tail tests; integer laws by χ²
      over quantile bins merged to expected counts ≥ 5 and the same tail tests on integer
      thresholds;
    * :class:`~spec.SmoothSensitivityNoise` — (output − f(x))·a/S(x) against the
      standardised law, with the continuous battery;
    * :class:`~spec.RandomizedResponse` — frequencies against ``law.pmf_given(·, x)``;
    * :class:`~spec.FiniteRandomizer` — each coordinate's frequencies (up to
      :data:`FINITE_COORDINATES_TESTED` coordinates) against the gray-box hook
      ``output_probabilities(x)``, after checking the outputs' shape;
    * :class:`~spec.NoisyArgmax` — frequencies against the exact selection probabilities
      (softmax for Gumbel noise, vectorised quadrature otherwise, see
      :mod:`privaudit.auditing.checks._selection`);

    categorical frequencies by the exact multinomial test when the number of possible
    outcomes is at most 1e5, else by χ² (merged cells).  Tail tests: for q ∈ {1e-2, 1e-3,
    1e-4} with samples·q ≥ 20, exact two-sided binomial tests of the counts beyond the
    quantiles q/2 and 1 − q/2, both tails together and each tail alone.

    The k sub-tests are Bonferroni-combined: each at level α/k (k in ``details``); the
    check is violated when any rejects, so its false-alarm probability is at most α.

    Parameters
    ----------
    mechanism : Mechanism
        Needs the ``statistic`` hook for additive, smooth and argmax noise, and
        ``smooth_sensitivity`` for smooth noise.
    x : object
        The input (an element of the spec's domain).
    rng : Generator, int or None
        The only source of randomness (passed to ``mechanism.sample``).
    samples : int
        Number of outputs N ≥ 1 (one batched call).
    alpha : float
        Family-wise error rate in (0, 1).

    Returns
    -------
    CheckOutcome
        ``statistic`` is the smallest Bonferroni-adjusted p-value, ``threshold`` α,
        ``error_rate`` α; ``details`` lists every sub-test (statistic, p-value, adjusted
        p-value, observed and expected counts for the tail tests).  ``"skipped"`` when the
        spec declares no noise, a needed hook is missing, or S(x) = 0 with noiseless
        outputs (nothing to test).

    Raises
    ------
    InvalidParameterError
        If ``samples`` or ``alpha`` is out of range.

    References
    ----------
    .. [1] Anderson & Darling, JASA 1954; Marsaglia & Marsaglia, J. Stat. Softw. 2004.
    .. [2] Wang et al., "The Curator Attack", CCS 2024.
    """
    n = check_count(samples, "samples", 1)
    level = check_alpha(alpha)
    spec = mechanism.spec
    noise = spec.noise
    if noise is None:
        return skipped(_NAME, "the spec declares no noise law (a black-box mechanism)")
    needs = {
        AdditiveNoise: ["statistic"],
        SmoothSensitivityNoise: ["statistic", "smooth_sensitivity"],
        NoisyArgmax: ["statistic"],
        RandomizedResponse: [],
        FiniteRandomizer: ["output_probabilities"],
    }
    missing = missing_hooks(mechanism, needs.get(type(noise), []))
    if missing:
        return skipped(
            _NAME,
            f"{type(noise).__name__} noise cannot be standardised without "
            f"the gray-box hook(s) {missing}",
        )
    gen = as_generator(rng)
    xv = mechanism.validate_input(x)
    shown_input = to_jsonable(xv)
    law = noise.law
    law_name = type(law).__name__

    if isinstance(noise, RandomizedResponse):
        return _randomized_response_outcome(
            mechanism, noise, xv, n, gen, level, shown_input, law_name
        )

    if isinstance(noise, FiniteRandomizer):
        return _finite_randomizer_outcome(mechanism, noise, xv, n, gen, level, shown_input)

    if isinstance(noise, NoisyArgmax):
        return _noisy_argmax_outcome(mechanism, law, xv, n, gen, level, shown_input, law_name)

    return _residual_outcome(mechanism, noise, law, xv, n, gen, level, shown_input, law_name)
