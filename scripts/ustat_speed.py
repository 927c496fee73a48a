"""Speed of exact U-statistics and all local Hájek projections ĥ(i).

Times (median of a few runs, wall clock, ``time.perf_counter``):

1. k = 2 at n = 2,000: a direct pure-Python double loop over the C(n,2) pairs (once with
   the kernel inlined, once calling a scalar kernel function per pair) against the
   blocked numpy path (the generic k = 2 path) and the variance closed form;
2. k = 2 at n = 10⁴: the blocked path and every fast path;
3. triangle-kernel projections on a random geometric graph with n = 2,000 points on S²
   (r = n^{-1/4}) against networkx's triangle counting.

Every fast result is checked against the slow one before its time is reported.

Usage (from the repository root): python3 -m scripts.ustat_speed   (writes docs/ustat_speed.md;
about a minute)
"""

from __future__ import annotations

import math
import pathlib
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import networkx as nx
import numpy as np

from privaudit.estimators.models import sample_sphere_points
from privaudit.estimators.ustatistics import (
    adjacency_from_points,
    adjacency_triangle_kernel,
    auc_kernel,
    collision_kernel,
    gini_mean_difference_kernel,
    kendall_tau_kernel,
    local_hajek_projections,
    rgg_triangle_kernel,
    variance_kernel,
    wilcoxon_signed_rank_kernel,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]


def timed(call: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Median wall time over ``repeats`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def python_double_loop_inline(values: list[float]) -> list[float]:
    """ĥ(i) for the variance kernel by the definition, one pair at a time in pure Python.

    The baseline of the speed table, also timed by ``benchmarks/test_bench_ustatistics.py``.
    """
    n = len(values)
    sums = [0.0] * n
    for i in range(n):
        xi = values[i]
        for j in range(i + 1, n):
            d = xi - values[j]
            h = 0.5 * d * d
            sums[i] += h
            sums[j] += h
    return [s / (n - 1) for s in sums]


def half_squared_difference(a: float, b: float) -> float:
    return 0.5 * (a - b) ** 2


def python_double_loop_calls(values: list[float], kernel=half_squared_difference) -> list[float]:
    n = len(values)
    sums = [0.0] * n
    for i in range(n):
        for j in range(i + 1, n):
            h = kernel(values[i], values[j])
            sums[i] += h
            sums[j] += h
    return [s / (n - 1) for s in sums]


def main() -> None:
    rng = np.random.default_rng(0)
    rows: list[tuple[str, str, float, str]] = []

    # 1. k = 2, n = 2,000: Python double loop against numpy
    n = 2_000
    x = rng.uniform(0, 1, n)
    kernel = variance_kernel(0, 1)
    t_inline, slow = timed(lambda: python_double_loop_inline(x.tolist()), 3)
    t_calls, slow_calls = timed(lambda: python_double_loop_calls(x.tolist()), 3)
    t_blocked, blocked = timed(lambda: local_hajek_projections(x, kernel, method="blocked"), 5)
    t_fast, fast = timed(lambda: local_hajek_projections(x, kernel), 50)
    for result in (blocked, fast):
        np.testing.assert_allclose(result.projections, slow, rtol=1e-9)
    np.testing.assert_allclose(slow_calls, slow, rtol=1e-12)
    rows += [
        ("variance, n = 2,000", "Python double loop, kernel inlined", t_inline, "1.0×"),
        (
            "variance, n = 2,000",
            "Python double loop, scalar kernel call",
            t_calls,
            f"{t_inline / t_calls:.2f}×",
        ),
        (
            "variance, n = 2,000",
            "blocked numpy path (generic k = 2)",
            t_blocked,
            f"{t_inline / t_blocked:.1f}×",
        ),
        ("variance, n = 2,000", "fast path (closed form)", t_fast, f"{t_inline / t_fast:.0f}×"),
    ]

    # 2. k = 2, n = 10⁴: blocked path and fast paths
    n = 10_000
    x = rng.uniform(0, 1, n)
    t_blocked, blocked = timed(lambda: local_hajek_projections(x, kernel, method="blocked"), 3)
    rows.append(("variance, n = 10⁴", "blocked numpy path (generic k = 2)", t_blocked, "reference"))
    cases = [
        ("variance", kernel, x),
        ("Gini mean difference", gini_mean_difference_kernel(0, 1), x),
        ("Kendall tau-a (ties)", kendall_tau_kernel(), np.round(rng.normal(size=(n, 2)), 2)),
        ("Wilcoxon signed rank", wilcoxon_signed_rank_kernel(), rng.normal(size=n)),
        ("collision (100 labels)", collision_kernel(), rng.integers(0, 100, n)),
        ("AUC", auc_kernel(), np.column_stack([rng.normal(size=n), rng.integers(0, 2, n)])),
    ]
    for label, case_kernel, data in cases:
        t_case, result = timed(lambda d=data, k=case_kernel: local_hajek_projections(d, k), 5)
        t_generic, generic = timed(
            lambda d=data, k=case_kernel: local_hajek_projections(d, k, method="generic"), 1
        )
        np.testing.assert_allclose(result.projections, generic.projections, rtol=1e-9, atol=1e-12)
        rows.append(
            (
                f"{label}, n = 10⁴",
                f"{result.method} (generic: {t_generic:.2f} s)",
                t_case,
                f"{t_generic / t_case:.0f}× vs generic",
            )
        )

    # 3. triangles on an RGG with n = 2,000
    n = 2_000
    points = sample_sphere_points(n, rng)
    radius = n**-0.25
    adjacency = adjacency_from_points(points, radius)
    graph = nx.from_scipy_sparse_array(adjacency)
    t_nx, triangles = timed(lambda: nx.triangles(graph), 5)
    t_nx_build, _ = timed(lambda: nx.triangles(nx.from_scipy_sparse_array(adjacency)), 5)
    t_adj, from_adjacency = timed(
        lambda: local_hajek_projections(adjacency, adjacency_triangle_kernel()), 10
    )
    t_pts, from_points = timed(
        lambda: local_hajek_projections(points, rgg_triangle_kernel(radius)), 10
    )
    counts = np.array([triangles[i] for i in range(n)])
    for result in (from_adjacency, from_points):
        np.testing.assert_allclose(result.projections * math.comb(n - 1, 2), counts)
    label = f"RGG triangles, n = 2,000 ({adjacency.nnz // 2:,} edges)"
    rows += [
        (label, "networkx.triangles (graph built)", t_nx, "1.0×"),
        (label, "networkx.triangles + graph construction", t_nx_build, f"{t_nx / t_nx_build:.2f}×"),
        (label, "ours, sparse adjacency: ((A·A)∘A)·1/2", t_adj, f"{t_nx / t_adj:.1f}×"),
        (label, "ours, from points (k-d tree + products)", t_pts, f"{t_nx / t_pts:.1f}×"),
    ]

    lines = [
        "# Speed of exact U-statistics and local Hájek projections",
        "",
        (__doc__ or "").strip(),
        "",
        (
            f"Machine: {platform.machine()}, Python {platform.python_version()}, "
            f"numpy {np.__version__}, 2 shared cores."
        ),
        "",
        "| workload | path | time (s) | speed-up |",
        "|---|---|---|---|",
    ]
    lines += [f"| {w} | {p} | {t:.4g} | {s} |" for w, p, t, s in rows]
    text = "\n".join(lines) + "\n"
    (ROOT / "docs" / "ustat_speed.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
