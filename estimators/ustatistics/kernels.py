"""Kernels of U-statistics: symmetric functions h of degree k with a declared range.

A :class:`Kernel` bundles a vectorised evaluation function with what the privacy
analysis relies on: its degree k, its declared range [lower, upper] over the *whole*
domain (so the additive range C = upper − lower,
footnote 4 of Chaudhuri et al. 2024) or a sub-Gaussian proxy τ, and the domain its data
must live in.  Evaluation checks every value against the declared range.

The built-in kernels are those named by Chaudhuri et al. (2024, Sections 1 and 5) plus a few
standard ones.

References
----------
.. [1] K. Chaudhuri, P.-L. Loh, S. Pandey, P. Sarkar, "On Differentially Private U
   Statistics", NeurIPS 2024, Section 1 eq. (1) and Section 5.
.. [2] W. Hoeffding, "A class of statistics with asymptotically normal distribution",
   Ann. Math. Statist. 19 (1948).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privaudit.spec import RandomLike, as_generator
from privaudit.spec.errors import InvalidInputError, InvalidParameterError, KernelRangeError

from . import _builtin_functions as fn
from ._validation import DataDomain, validate_data

__all__ = [
    "Kernel",
    "SymmetryCheckResult",
    "adjacency_edge_kernel",
    "adjacency_triangle_kernel",
    "auc_from_u_statistic",
    "auc_kernel",
    "collision_kernel",
    "gini_mean_difference_kernel",
    "kendall_tau_kernel",
    "mean_kernel",
    "rgg_edge_kernel",
    "rgg_triangle_kernel",
    "symmetry_kernel",
    "table_kernel",
    "triangle_product_kernel",
    "variance_kernel",
    "wilcoxon_signed_rank_kernel",
]

KernelFunction = Callable[[Any, np.ndarray], np.ndarray]


def _py(value):
    """A numpy scalar as the plain Python number, for readable error messages."""
    return value.item() if hasattr(value, "item") else value


@dataclass(frozen=True, slots=True)
class SymmetryCheckResult:
    """Outcome of :meth:`Kernel.check_symmetry`.

    Attributes
    ----------
    symmetric : bool
        True if no tested permutation changed a kernel value by more than the tolerance.
    max_discrepancy : float
        Largest |h(X_S) − h(X_π(S))| seen.
    offending_tuple : tuple of int or None
        The index tuple (in the order it was first evaluated) with the largest discrepancy,
        if that discrepancy exceeds the tolerance.
    permuted_tuple : tuple of int or None
        The permuted order of ``offending_tuple`` that produced it.
    n_tuples, n_permutations : int
        How many random tuples and random permutations of each were tested.
    """

    symmetric: bool
    max_discrepancy: float
    offending_tuple: tuple[int, ...] | None
    permuted_tuple: tuple[int, ...] | None
    n_tuples: int
    n_permutations: int


@dataclass(frozen=True, eq=False)
class Kernel:
    """A symmetric kernel h of degree k, evaluated vectorised over index tuples.

    Attributes
    ----------
    name : str
        A stable name recorded by estimator specs (e.g. ``"variance"``).
    degree : int
        The degree k ≥ 1 (number of records h takes).
    function : callable
        ``function(data, index_tuples) -> values``: ``index_tuples`` is an int array of
        shape (m, k) of distinct row indices into the validated data, ``values`` has shape
        (m,).  Must be deterministic, free of side effects and symmetric in the k indices.
    lower, upper : float or None
        Declared bounds of h over the whole domain (not just the data at hand).  Privacy
        analyses use C = upper − lower (:attr:`additive_range`).
    subgaussian_proxy : float or None
        Declared τ with h(X_S) ~ subG(τ) (Chaudhuri et al. 2024, Section 2), for unbounded kernels.
    domain : DataDomain
        What one data set looks like; :meth:`validate_data` enforces it.
    parameters : mapping
        The kernel's parameters (bounds, radius, table …), for the record.

    Notes
    -----
    Built-in kernels use module-level functions (or ``functools.partial`` of them) so that
    kernels pickle, and :func:`.exact.local_hajek_projections` recognises them to use
    their fast paths.
    """

    name: str
    degree: int
    function: KernelFunction
    lower: float | None = None
    upper: float | None = None
    subgaussian_proxy: float | None = None
    domain: DataDomain = field(default_factory=lambda: DataDomain("real"))
    parameters: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidParameterError(f"a kernel needs a non-empty name, got {self.name!r}")
        if (
            isinstance(self.degree, bool)
            or not isinstance(self.degree, (int, np.integer))
            or self.degree < 1
        ):
            raise InvalidParameterError(
                f"kernel degree k must be an integer >= 1, got {self.degree!r}"
            )
        object.__setattr__(self, "degree", int(self.degree))
        if not callable(self.function):
            raise InvalidParameterError(f"kernel function must be callable, got {self.function!r}")
        for label in ("lower", "upper"):
            value = getattr(self, label)
            if value is not None:
                if not np.isfinite(value):
                    raise InvalidParameterError(
                        f"kernel bound {label} must be finite, got {value!r}"
                    )
                object.__setattr__(self, label, float(value))
        if self.lower is not None and self.upper is not None and self.lower > self.upper:
            raise InvalidParameterError(
                f"kernel range needs lower <= upper, got lower={self.lower!r}, upper={self.upper!r}"
            )
        if self.subgaussian_proxy is not None and not (
            np.isfinite(self.subgaussian_proxy) and self.subgaussian_proxy > 0
        ):
            raise InvalidParameterError(
                f"sub-Gaussian proxy must be finite and > 0, got {self.subgaussian_proxy!r}"
            )
        if not isinstance(self.domain, DataDomain):
            raise InvalidParameterError(f"domain must be a DataDomain, got {self.domain!r}")
        object.__setattr__(self, "parameters", dict(self.parameters))

    # ------------------------------------------------------------------ range
    @property
    def is_bounded(self) -> bool:
        """True if both range bounds are declared."""
        return self.lower is not None and self.upper is not None

    @property
    def additive_range(self) -> float:
        """C = upper − lower, the additive range of h over the whole domain.

        Raises
        ------
        InvalidParameterError
            If the kernel does not declare both bounds.
        """
        if self.lower is None or self.upper is None:  # not self.is_bounded
            raise InvalidParameterError(
                f"kernel {self.name!r} is unbounded (lower={self.lower!r}, upper={self.upper!r}): "
                "it has no additive range"
            )
        return float(self.upper - self.lower)

    @property
    def record_shape(self) -> tuple[int, ...]:
        """Shape of one real record (``()`` for scalars)."""
        return self.domain.record_shape

    # ------------------------------------------------------------- evaluation
    def validate_data(self, data: Any) -> Any:
        """Return the canonical array for ``data`` (see :func:`._validation.validate_data`).

        Raises
        ------
        InvalidInputError
            Empty data, NaN/inf, wrong shape, records outside the domain, n < k.
        InvalidGraphError
            An adjacency matrix that is not a simple undirected graph.
        """
        return validate_data(data, self.domain, self.degree)

    def validate_tuples(self, index_tuples: Any, n: int) -> np.ndarray:
        """Return ``index_tuples`` as an int64 array (m, k) of distinct indices in 0..n−1."""
        tuples = np.asarray(index_tuples)
        if tuples.ndim == 1 and self.degree == 1:
            tuples = tuples[:, None]
        if tuples.ndim != 2 or tuples.shape[1] != self.degree:
            raise InvalidInputError(
                f"index tuples must have shape (m, {self.degree}), got shape {tuples.shape}"
            )
        if tuples.size and tuples.dtype.kind not in "iu":
            raise InvalidInputError(f"index tuples must be integers, got dtype {tuples.dtype}")
        tuples = tuples.astype(np.int64)
        if tuples.size:
            bad = (tuples < 0) | (tuples >= n)
            if bad.any():
                row = int(np.argwhere(bad)[0][0])
                raise InvalidInputError(
                    f"index tuple {tuple(tuples[row].tolist())} has an index outside 0..{n - 1}"
                )
            if self.degree > 1:
                ordered = np.sort(tuples, axis=1)
                repeated = (np.diff(ordered, axis=1) == 0).any(axis=1)
                if repeated.any():
                    row = int(np.argmax(repeated))
                    raise InvalidInputError(
                        f"index tuple {tuple(tuples[row].tolist())} repeats an index; "
                        "a U-statistic kernel is evaluated on k distinct records"
                    )
        return tuples

    def evaluate(self, data: Any, index_tuples: Any, *, validate: bool = True) -> np.ndarray:
        """h(X_S) for every row S of ``index_tuples``.

        Parameters
        ----------
        data : array_like
            The data set (validated unless ``validate=False``).
        index_tuples : array_like of int, shape (m, k)
            Distinct row indices into ``data``.
        validate : bool
            Validate ``data`` and ``index_tuples`` (turn off only for data already returned
            by :meth:`validate_data` and tuples known to be valid).  The values are always
            checked against the declared range.

        Returns
        -------
        numpy.ndarray, shape (m,)

        Raises
        ------
        KernelRangeError
            A value is NaN or outside [lower, upper]; the message names it and its tuple.
        InvalidParameterError
            The function returned an array of the wrong shape.
        """
        if validate:
            data = self.validate_data(data)
            index_tuples = self.validate_tuples(index_tuples, int(data.shape[0]))
        values = np.asarray(self.function(data, index_tuples), dtype=np.float64)
        expected = (index_tuples.shape[0],)
        if values.shape != expected:
            raise InvalidParameterError(
                f"kernel {self.name!r} returned shape {values.shape} for {expected[0]} tuples; "
                f"expected shape {expected}"
            )
        self.check_range(values, index_tuples)
        return values

    def check_range(self, values: np.ndarray, index_tuples: np.ndarray) -> None:
        """Raise :class:`KernelRangeError` if some value is NaN or outside the declared range."""
        if values.size == 0:
            return
        smallest, largest = values.min(), values.max()  # NaN propagates into both
        if not (
            np.isnan(smallest)
            or (self.lower is not None and smallest < self.lower)
            or (self.upper is not None and largest > self.upper)
        ):
            return
        bad = np.isnan(values)
        if self.lower is not None:
            bad |= values < self.lower
        if self.upper is not None:
            bad |= values > self.upper
        if bad.any():
            row = int(np.argmax(bad))
            raise KernelRangeError(
                f"kernel {self.name!r} returned {_py(values[row])!r} on index tuple "
                f"{tuple(np.asarray(index_tuples[row]).tolist())}, outside its declared range "
                f"[{self.lower!r}, {self.upper!r}]"
            )

    def check_symmetry(
        self,
        data: Any,
        rng: RandomLike,
        n_tuples: int = 200,
        n_permutations: int = 5,
        *,
        tolerance: float = 1e-12,
    ) -> SymmetryCheckResult:
        """Test on random tuples and random permutations that h is symmetric.

        Draws ``n_tuples`` uniform k-subsets of the records and, for each, ``n_permutations``
        uniform random orderings, and compares h on each ordering with h on the first.

        Parameters
        ----------
        data : array_like
            Records to test on.
        rng : Generator or seed
            Randomness (normalised by :func:`spec._random.as_generator`).
        n_tuples, n_permutations : int
            How many tuples and orderings per tuple (both ≥ 1).
        tolerance : float
            Allowed discrepancy relative to max(1, |h|).

        Returns
        -------
        SymmetryCheckResult
            A negative result proves asymmetry; a positive one is evidence only.
        """
        for label, value in (("n_tuples", n_tuples), ("n_permutations", n_permutations)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise InvalidParameterError(f"{label} must be an integer >= 1, got {value!r}")
        if not tolerance >= 0:
            raise InvalidParameterError(f"tolerance must be >= 0, got {tolerance!r}")
        generator = as_generator(rng)
        data = self.validate_data(data)
        n, k = int(data.shape[0]), self.degree
        tuples = np.stack([generator.choice(n, size=k, replace=False) for _ in range(n_tuples)])
        reference = self.evaluate(data, tuples, validate=False)
        worst, worst_row, worst_order = 0.0, None, None
        for _ in range(n_permutations):
            order = np.argsort(generator.random(tuples.shape), axis=1)
            permuted = np.take_along_axis(tuples, order, axis=1)
            values = self.evaluate(data, permuted, validate=False)
            scale = np.maximum(1.0, np.maximum(np.abs(values), np.abs(reference)))
            discrepancy = np.abs(values - reference) / scale
            row = int(np.argmax(discrepancy))
            if discrepancy[row] > worst:
                worst, worst_row, worst_order = float(discrepancy[row]), row, permuted[row]
        symmetric = worst <= tolerance
        return SymmetryCheckResult(
            symmetric=symmetric,
            max_discrepancy=worst,
            offending_tuple=(
                None if symmetric or worst_row is None else tuple(tuples[worst_row].tolist())
            ),
            permuted_tuple=(
                None if symmetric or worst_order is None else tuple(worst_order.tolist())
            ),
            n_tuples=int(n_tuples),
            n_permutations=int(n_permutations),
        )


# ---------------------------------------------------------------- built-ins
def _check_bounds(lower: Any, upper: Any) -> tuple[float, float]:
    try:
        lo, hi = float(lower), float(upper)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(
            f"bounds must be real numbers, got {lower!r}, {upper!r}"
        ) from exc
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise InvalidParameterError(
            f"need finite bounds lower < upper, got lower={lower!r}, upper={upper!r}"
        )
    return lo, hi


def mean_kernel(
    lower: float | None = None,
    upper: float | None = None,
    *,
    subgaussian_proxy: float | None = None,
) -> Kernel:
    """h(x) = x (k = 1): U_n is the sample mean.

    Parameters
    ----------
    lower, upper : float or None
        Public bounds of the records; the range of h is [lower, upper].  Omit both for an
        unbounded kernel (then give ``subgaussian_proxy`` for sub-Gaussian analyses).
    subgaussian_proxy : float or None
        Declared τ of h(X) = X.
    """
    if lower is None and upper is None:
        return Kernel(
            "mean",
            1,
            fn.identity,
            subgaussian_proxy=subgaussian_proxy,
            domain=DataDomain("real"),
            parameters={"lower": None, "upper": None},
        )
    lo, hi = _check_bounds(lower, upper)
    return Kernel(
        "mean",
        1,
        fn.identity,
        lo,
        hi,
        subgaussian_proxy=subgaussian_proxy,
        domain=DataDomain("real", lower=lo, upper=hi),
        parameters={"lower": lo, "upper": hi},
    )


def variance_kernel(lower: float, upper: float) -> Kernel:
    """h(x₁, x₂) = (x₁ − x₂)²/2 (k = 2): U_n is the unbiased sample variance.

    For records in [lower, upper] the range is [0, (upper − lower)²/2], attained at
    x₁ = x₂ and at {x₁, x₂} = {lower, upper}.
    """
    lo, hi = _check_bounds(lower, upper)
    width = hi - lo
    return Kernel(
        "variance",
        2,
        fn.half_squared_difference,
        0.0,
        0.5 * (width * width),
        domain=DataDomain("real", lower=lo, upper=hi),
        parameters={"lower": lo, "upper": hi},
    )


def gini_mean_difference_kernel(lower: float, upper: float) -> Kernel:
    """h(x₁, x₂) = |x₁ − x₂| (k = 2): U_n is Gini's mean difference; range [0, upper − lower]."""
    lo, hi = _check_bounds(lower, upper)
    return Kernel(
        "gini_mean_difference",
        2,
        fn.absolute_difference,
        0.0,
        hi - lo,
        domain=DataDomain("real", lower=lo, upper=hi),
        parameters={"lower": lo, "upper": hi},
    )


def kendall_tau_kernel() -> Kernel:
    """h(z₁, z₂) = sign(x₁ − x₂)·sign(y₁ − y₂) on records z = (x, y): U_n is Kendall's tau-a.

    Data have shape (n, 2); sign(0) = 0, so tied pairs count 0.  Range [−1, 1].
    """
    return Kernel(
        "kendall_tau",
        2,
        fn.kendall_concordance,
        -1.0,
        1.0,
        domain=DataDomain("real", record_shape=(2,)),
    )


def wilcoxon_signed_rank_kernel() -> Kernel:
    """h(x₁, x₂) = 1(x₁ + x₂ > 0) (k = 2), Wilcoxon's signed-rank kernel; range [0, 1]."""
    return Kernel(
        "wilcoxon_signed_rank", 2, fn.positive_pair_sum, 0.0, 1.0, domain=DataDomain("real")
    )


def symmetry_kernel(lower: float, upper: float) -> Kernel:
    """h(x₁, x₂, x₃) = median − mean (k = 3), the kernel of a test of symmetry.

    Range.  With y₁ ≤ y₂ ≤ y₃ the sorted triple, median − mean = ((y₂ − y₁) − (y₃ − y₂))/3.
    Both differences lie in [0, w] with w = upper − lower and they can be chosen freely
    (y₁ = y₂ = lower, y₃ = upper gives −w/3; y₁ = lower, y₂ = y₃ = upper gives +w/3), so the
    exact range is [−w/3, w/3] and the additive range is C = 2w/3.
    """
    lo, hi = _check_bounds(lower, upper)
    third = (hi - lo) / 3.0
    return Kernel(
        "symmetry",
        3,
        fn.median_minus_mean,
        -third,
        third,
        domain=DataDomain("real", lower=lo, upper=hi),
        parameters={"lower": lo, "upper": hi},
    )


def collision_kernel() -> Kernel:
    """h(x, y) = 1(x = y) on integer labels (k = 2), the uniformity-testing kernel; range {0, 1}.

    U_n = Σ_v c_v(c_v − 1)/(n(n − 1)) with c_v the count of label v (Section 5.1 of the paper).
    """
    return Kernel("collision", 2, fn.equal_labels, 0.0, 1.0, domain=DataDomain("labels"))


def table_kernel(table: Any) -> Kernel:
    """h(x, y) = table[x, y] on labels 0..d−1 given a symmetric real d×d table (k = 2).

    The range is [min table, max table] (the table *is* the kernel on its whole domain).

    Raises
    ------
    InvalidParameterError
        A table that is not square, not finite or not symmetric.
    """
    try:
        array = np.array(table, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"kernel table must be a real matrix: {exc}") from exc
    if array.ndim != 2 or array.shape[0] != array.shape[1] or array.shape[0] < 1:
        raise InvalidParameterError(
            f"kernel table must be square d×d with d >= 1, got shape {array.shape}"
        )
    if not np.isfinite(array).all():
        raise InvalidParameterError(
            f"kernel table must be finite, found {_py(array[~np.isfinite(array)][0])!r}"
        )
    asym = array != array.T
    if asym.any():
        i, j = (int(v) for v in np.argwhere(asym)[0])
        raise InvalidParameterError(
            f"kernel table must be symmetric: table[{i}, {j}] = {_py(array[i, j])!r} but "
            f"table[{j}, {i}] = {_py(array[j, i])!r}"
        )
    array.setflags(write=False)
    return Kernel(
        "table",
        2,
        functools.partial(fn.table_lookup, table=array),
        float(array.min()),
        float(array.max()),
        domain=DataDomain("labels", n_labels=array.shape[0]),
        parameters={"table": array.tolist()},
    )


def auc_kernel() -> Kernel:
    """One-sample AUC kernel on records (score, label), label ∈ {0, 1} (k = 2).

    Definition.  For records with opposite labels, h = 1(s₊ > s₋) + ½·1(s₊ = s₋) where s₊
    is the positive record's score; for records with the same label, h = ½.  This is
    symmetric and has range [0, 1].

    Relation to the AUC.  With n₊ positives and n₋ negatives, the pairs of equal labels
    contribute ½·[C(n₊, 2) + C(n₋, 2)], so the empirical AUC (Mann–Whitney statistic with
    ties counted ½) is

        AUĈ = ½ + (U_n − ½)·C(n, 2)/(n₊ n₋),

    see :func:`auc_from_u_statistic`.  In the population, E h = ½ + π·(AUC − ½) with
    π = 2p(1 − p) the probability that two records have opposite labels (p = P(label 1)).
    """
    return Kernel("auc", 2, fn.scored_label_order, 0.0, 1.0, domain=DataDomain("scored_labels"))


def auc_from_u_statistic(u_statistic: float, n_positive: int, n_negative: int) -> float:
    """Empirical AUC from the U-statistic of :func:`auc_kernel` (see its Relation to the AUC)."""
    if n_positive < 1 or n_negative < 1:
        raise InvalidParameterError(
            f"AUC needs both classes, got n_positive={n_positive!r}, n_negative={n_negative!r}"
        )
    n = n_positive + n_negative
    return 0.5 + (float(u_statistic) - 0.5) * (n * (n - 1) / 2) / (n_positive * n_negative)


def _check_radius(radius: float) -> float:
    try:
        value = float(radius)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"radius must be a real number, got {radius!r}") from exc
    if not (np.isfinite(value) and value > 0):
        raise InvalidParameterError(f"radius must be finite and > 0, got {radius!r}")
    return value


def rgg_edge_kernel(radius: float, dimension: int = 3) -> Kernel:
    """h(x, y) = 1(‖x − y‖₂ ≤ r) on latent points of ℝ^dimension (k = 2), range {0, 1}.

    The random-geometric-graph edge kernel of Chaudhuri et al. 2024, Section 5.2 (points on S² ⊂
    ℝ³).
    """
    r = _check_radius(radius)
    return Kernel(
        "rgg_edge",
        2,
        functools.partial(fn.rgg_edge, radius=r),
        0.0,
        1.0,
        domain=DataDomain("real", record_shape=(int(dimension),)),
        parameters={"radius": r, "dimension": int(dimension)},
    )


def rgg_triangle_kernel(radius: float, dimension: int = 3) -> Kernel:
    """g(x, y, z) = h(x, y)h(y, z)h(x, z) with h the RGG edge kernel (k = 3), range {0, 1}.

    ``docs/derivations.md`` §6.
    """
    r = _check_radius(radius)
    return Kernel(
        "rgg_triangle",
        3,
        functools.partial(fn.rgg_triangle, radius=r),
        0.0,
        1.0,
        domain=DataDomain("real", record_shape=(int(dimension),)),
        parameters={"radius": r, "dimension": int(dimension)},
    )


def adjacency_edge_kernel() -> Kernel:
    """h(i, j) = A_ij on the nodes of a simple undirected graph (k = 2), range {0, 1}.

    Data: the n×n adjacency matrix (dense or scipy.sparse); U_n is the edge density and
    ĥ(i) = deg(i)/(n − 1).
    """
    return Kernel("adjacency_edge", 2, fn.adjacency_entry, 0.0, 1.0, domain=DataDomain("adjacency"))


def adjacency_triangle_kernel() -> Kernel:
    """h(i, j, l) = A_ij A_jl A_il on the nodes of a simple undirected graph (k = 3), range {0, 1}.

    U_n is the triangle density and ĥ(i) = t_i / C(n − 1, 2) with t_i the number of
    triangles through i (``docs/derivations.md`` §6).
    """
    return Kernel(
        "adjacency_triangle", 3, fn.adjacency_triangle, 0.0, 1.0, domain=DataDomain("adjacency")
    )


def triangle_product_kernel(edge: Kernel) -> Kernel:
    """h(x, y, z) = e(x, y)·e(y, z)·e(x, z) for a bounded symmetric degree-2 kernel e (k = 3).

    The generalisation of the triangle kernel to any pairwise kernel (e.g. a similarity
    e ∈ [0, 1]).  Its projections are computed from the pairwise matrix E (zero diagonal):
    Σ_{S∋i} h(X_S) = ((E·E) ∘ E)·1 / 2 at i, by sparse or dense matrix products.

    Range.  The product is multilinear in its three factors, each in [a, b] = the range
    of e, so its extremes are attained at endpoints: the range is [min P, max P] with
    P = {a³, a²b, ab², b³}.

    Raises
    ------
    InvalidParameterError
        If ``edge`` is not a bounded kernel of degree 2.
    """
    if not isinstance(edge, Kernel) or edge.degree != 2:
        raise InvalidParameterError(f"edge must be a Kernel of degree 2, got {edge!r}")
    a, b = edge.lower, edge.upper
    if a is None or b is None:  # not edge.is_bounded
        raise InvalidParameterError(
            f"edge kernel {edge.name!r} must be bounded to bound the product"
        )
    corners = (a * a * a, a * a * b, a * b * b, b * b * b)
    return Kernel(
        f"triangle_product[{edge.name}]",
        3,
        functools.partial(fn.pairwise_triangle, edge=edge),
        min(corners),
        max(corners),
        domain=edge.domain,
        parameters={"edge": edge.name, "edge_parameters": dict(edge.parameters)},
    )
