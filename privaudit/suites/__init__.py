"""Public benchmark suites: mechanisms with known true ε, correct and broken.

The auditor's quality tier runs these :class:`BenchmarkCase` objects (a mechanism with its
spec, its claimed and true ε, the benchmark's input pairs, published lower bounds):

* :func:`statdp_cases` — StatDP's eleven algorithms (Ding et al., CCS 2018);
* :func:`dpsniper_cases` — DP-Sniper's twenty mechanisms (Bichsel et al., S&P 2021);
* :func:`broken_cases` and :func:`control_cases` — broken mechanisms the public suites
  miss, and the library's correct ones (:mod:`privaudit.suites.broken`);
* :func:`delta_broken_cases` and :func:`delta_control_cases` — rare leaks under (ε, δ)
  claims (:mod:`privaudit.suites._rare_leaks`);
* :func:`graph_broken_cases` and :func:`graph_control_cases` — node-DP graph statistics
  (:mod:`privaudit.suites.graphs`);
* :func:`local_broken_cases` and :func:`local_control_cases` — local randomizers with a
  finite output law (:mod:`privaudit.suites.local`);
* :func:`dpsgd_broken_cases` and :func:`dpsgd_control_cases` — DP-SGD batch sampling
  (Chua et al., ICML 2024; :mod:`privaudit.suites.dpsgd`), slow tier only;
* :func:`all_cases` — all of them but the DP-SGD cases;
* :func:`bugs_of_record` — privacy bugs reported against DP libraries, re-created as replay
  pipelines beside their fixes (:mod:`privaudit.suites.bug_catalogue`, served on first use);
* :func:`advanced_broken_cases` and :func:`advanced_control_cases` — stability,
  partition selection, inverse sensitivity and matrix mechanisms
  (:mod:`privaudit.suites.advanced`, served on first use);
* served on first use: the mutant families (:mod:`privaudit.suites.mutants`) and the
  broken local-node mechanisms (:mod:`privaudit.suites.local_node`).

Details (each suite, an example): ``docs/engine_notes.md``, "privaudit.suites".
"""

from __future__ import annotations

from typing import Any as _Any

from privaudit._lazy import lazy_attribute as _lazy_attribute
from privaudit._lazy import lazy_dir as _lazy_dir
from privaudit.suites._base import CI_MUST_DETECT, PRIVACY_REL_TOL, BenchmarkCase
from privaudit.suites._rare_leaks import RareRawMean
from privaudit.suites.broken import (
    broken_cases,
    control_cases,
    delta_broken_cases,
    delta_control_cases,
)
from privaudit.suites.dpsgd import (
    DPSGD_DELTA,
    DPSGD_GAP_SETTINGS,
    dpsgd_broken_cases,
    dpsgd_control_cases,
    shuffle_as_poisson,
)
from privaudit.suites.dpsniper import DPSNIPER_CLAIMED_EPSILON, dpsniper_cases, dpsniper_patterns
from privaudit.suites.graphs import WORST_PAIR_GENERATORS, graph_broken_cases, graph_control_cases
from privaudit.suites.local import local_broken_cases, local_control_cases
from privaudit.suites.statdp import STATDP_CLAIMED_EPSILONS, statdp_cases, statdp_patterns

#: Served on first use (PEP 562): the mutant families and the local-node cases import more
#: than the suites above (the LNDP estimators), and only their studies need them.
_LAZY: dict[str, str] = {
    "advanced_broken_cases": "privaudit.suites.advanced",
    "advanced_control_cases": "privaudit.suites.advanced",
    "BugOfRecord": "privaudit.suites.bug_catalogue",
    "bugs_of_record": "privaudit.suites.bug_catalogue",
    "MUTANT_AUDIT": "privaudit.suites.mutants",
    "MUTANT_FAMILIES": "privaudit.suites.mutants",
    "global_threshold_soft_threshold": "privaudit.suites.local_node",
    "neighbours_copies_ignored": "privaudit.suites.local_node",
    "own_sensitivity_laplace_edge_count": "privaudit.suites.local_node",
    "own_sensitivity_soft_threshold": "privaudit.suites.local_node",
    "sampled_one_hot": "privaudit.suites.local_node",
}

__all__ = [
    "CI_MUST_DETECT",
    "BenchmarkCase",
    "BugOfRecord",
    "DPSGD_DELTA",
    "DPSGD_GAP_SETTINGS",
    "DPSNIPER_CLAIMED_EPSILON",
    "MUTANT_AUDIT",
    "MUTANT_FAMILIES",
    "PRIVACY_REL_TOL",
    "RareRawMean",
    "STATDP_CLAIMED_EPSILONS",
    "WORST_PAIR_GENERATORS",
    "advanced_broken_cases",
    "advanced_control_cases",
    "all_cases",
    "broken_cases",
    "bugs_of_record",
    "control_cases",
    "delta_broken_cases",
    "delta_control_cases",
    "dpsgd_broken_cases",
    "dpsgd_control_cases",
    "dpsniper_cases",
    "dpsniper_patterns",
    "global_threshold_soft_threshold",
    "graph_broken_cases",
    "graph_control_cases",
    "local_broken_cases",
    "local_control_cases",
    "neighbours_copies_ignored",
    "own_sensitivity_laplace_edge_count",
    "own_sensitivity_soft_threshold",
    "sampled_one_hot",
    "shuffle_as_poisson",
    "statdp_cases",
    "statdp_patterns",
]


def __getattr__(name: str) -> _Any:
    return _lazy_attribute(globals(), _LAZY, name)


def __dir__() -> list[str]:
    return _lazy_dir(globals(), _LAZY)


def all_cases() -> tuple[BenchmarkCase, ...]:
    """Every case: StatDP at ε₀ ∈ {0.2, 0.7, 1.5}, DP-Sniper, broken, control and graphs.

    Returns
    -------
    tuple of BenchmarkCase
        Names are unique except that the StatDP cases repeat once per claimed ε₀.
    """
    statdp = tuple(c for eps in STATDP_CLAIMED_EPSILONS for c in statdp_cases(eps))
    return (
        statdp
        + dpsniper_cases()
        + broken_cases()
        + control_cases()
        + graph_broken_cases()
        + graph_control_cases()
        + local_broken_cases()
        + local_control_cases()
    )
