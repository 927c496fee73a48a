"""Local node differential privacy: errata, joint-message audit verdicts, accuracy, scaling.

Raskhodnikova, Smith, Wagaman & Zavyalov, "Local Node Differential Privacy",
arXiv:2602.15802.  The paper has no experiments; this study checks the reconstructed
constants and the algorithms of ``estimators.lndp``:

1. errata: Algorithm 3's sensitivity bound against the largest shift found on realisable
   node-neighbour pairs (the √2 slack); Algorithm 7's averaged-over-ρ calibration on an
   adversarial ρ; Algorithm 9's advanced-composition slack;
2. verdicts on the joint messages (ρ fixed and known): exact δ(ε_claim) at the worst
   adversarial pair of ``LocalNodeRelation``, the report's LNDP checks and the black-box
   audit, for correct mechanisms and broken variants; group privacy at node distance
   k = 2, 3;
3. accuracy: Algorithms 1–2 exactly Gaussian (KS on z-scores), the standard deviations of
   Algorithms 2, 8, 9 against their formulas, the Erdős–Rényi and clique errors against the
   rates of Theorems 4.9–4.10;
4. scale: one run of each estimator on a 20-regular graph (n = 10⁵, 10⁶ edges) given as a
   networkx graph, a sparse adjacency and an edge array.

Writes ``docs/lndp_study.md`` and ``docs/lndp_study_edge_counts.png``,
``docs/lndp_study_erdos_renyi.png``.  Usage::

    python3 scripts/lndp_study.py            # default run (a few minutes on a shared machine)
    python3 scripts/lndp_study.py --quick    # smoke run (scale table at n = 20000)

The paper's numbers use its classical Gaussian calibration (``calibration="classical"``);
the accuracy section also reports Algorithms 2, 5 and 6 under the analytic calibration
(Balle & Wang, ICML 2018), the estimators' default.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from privaudit import AuditConfig, audit
from privaudit.auditing import audit_group_privacy
from privaudit.estimators.lndp import (
    RegularStarRandomness,
    blurry_linear_mechanism,
    blurry_linear_sensitivity,
    bucket_count,
    joint_accounting,
    laplace_edge_count_mechanism,
    private_average_degree,
    private_clique_size,
    private_degree_cdf,
    private_edge_count,
    private_erdos_renyi,
    private_laplace_edge_count,
    private_regular_vs_star,
    private_rr_edge_count,
    regular_vs_star_mechanism,
    regular_vs_star_sigma,
    rr_edge_count_mechanism,
    rr_edge_epsilon0,
    rr_joint_delta,
    soft_threshold_mechanism,
)
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import Gaussian, GraphDomain, LocalNodeRelation
from privaudit.suites import (
    global_threshold_soft_threshold,
    neighbours_copies_ignored,
    own_sensitivity_laplace_edge_count,
    own_sensitivity_soft_threshold,
    sampled_one_hot,
)

AUDIT = AuditConfig(
    samples=40_000, pilot_samples=2_000, pair_budget=48, pairs_tested=3, claim_budget=200, seed=19
)
N_AUDIT = 8


def _pairs(n: int, relation: LocalNodeRelation):
    """The relation's own adversarial pairs plus the generic node generators."""
    domain = GraphDomain(n_nodes=n)
    yield from relation.local_node_pairs(domain)
    x, y = relation.star_toggle(n, 0)
    yield x, y, "star_toggle"
    half = nx_half_star(n)
    yield (*relation.degree_preserving_swap(half, 0, domain), "degree_preserving_swap")
    yield (*relation.complement_rewiring(half, 0, domain), "complement_rewiring")


def nx_half_star(n: int):
    import networkx as nx

    g = nx.empty_graph(n)
    g.add_edges_from((0, u) for u in range(1, (n - 1) // 2 + 1))
    return g


def worst_exact(mech, n: int, relation: LocalNodeRelation) -> tuple[float, float, str]:
    """(largest exact δ(ε_claim), its shift, origin) over the adversarial pairs."""
    best = (-1.0, 0.0, "")
    for x, y, origin in _pairs(n, relation):
        r = joint_accounting(mech, x, y)
        if (r.delta_at_claim, r.shift) > best[:2]:
            best = (r.delta_at_claim, r.shift, origin)
    return best


# -- 1. errata ------------------------------------------------------------------------------
def errata_blurry(lines: list[str]) -> None:
    lines += [
        "## Errata",
        "",
        "### Algorithm 3: the histogram bound is √2 loose",
        "",
        "Theorem 4.1 bounds the ℓ2 node sensitivity of the stacked messages W B e_(d_i) by "
        "2‖W‖₁→₂ √(1 + (n − 1)/λ²).  For W = I the shift of the rewired node is at most "
        "‖B(e_d − e_d′)‖₂ ≤ √2 (two probability vectors), not 2, and each other node "
        "moves by √2/λ, not 2/λ: the valid bound "
        '√(max‖W(e_j − e_j′)‖² + (n − 1) max‖W(e_j − e_j+1)‖²/λ²) (``bound="tight"``) '
        "is √2 smaller.  Largest shift over every adversarial pair the auditor "
        "generates (n = 6, W = I):",
        "",
        "| λ | paper bound | tight bound | largest shift found | paper / found |",
        "|---|---|---|---|---|",
    ]
    for lam in (1, 2, 3):
        k = bucket_count(6, lam)
        mech = blurry_linear_mechanism(6, 0.9, 1e-3, lam, np.eye(k), calibration="classical")
        paper = blurry_linear_sensitivity(6, lam, np.eye(k))
        tight = blurry_linear_sensitivity(6, lam, np.eye(k), "tight")
        _, shift, origin = worst_exact(mech, 6, LocalNodeRelation(bucket_width=lam))
        lines.append(
            f"| {lam} | {paper:.3f} | {tight:.3f} | {shift:.3f} ({origin}) | {paper / shift:.3f} |"
        )
    lines += [
        "",
        "The largest shifts found are lower bounds on the true sensitivity; at λ = 1 "
        "the tight bound is attained, so the paper's bound is exactly √2 too large "
        "there, and at λ = 2, 3 the gap is at least √2.  The default calibration keeps "
        "the paper's bound for reproducibility, so audits of ``lndp.pmf`` show slack "
        "(confirmed by ``tests/unit/estimators/test_lndp_algorithms.py::"
        "test_blurry_linear_unbiased_and_sensitivities``).",
        "",
    ]


def errata_rho(lines: list[str]) -> None:
    n, sets, eps, delta = 100, 1000, 0.9, 1e-3
    rho = RegularStarRandomness(n, np.zeros((sets, 1), dtype=np.int64))
    mech = regular_vs_star_mechanism(rho, eps, delta, calibration="classical")
    x, y = LocalNodeRelation().star_toggle(n, 0)
    per_rho = joint_accounting(mech, x, y)
    sigma_avg, sens_avg = regular_vs_star_sigma(rho, eps, delta, "averaged")
    avg_delta = Gaussian(sigma=sigma_avg).privacy_profile(eps, per_rho.shift)
    random_rho = [
        regular_vs_star_mechanism(
            RegularStarRandomness(n, np.random.default_rng(s).integers(0, n, (sets, 1))),
            eps,
            delta,
            calibration="classical",
        )
        for s in range(3)
    ]
    lines += [
        "### Algorithm 7: private only on average over ρ",
        "",
        "The paper bounds X_v(ρ) = #{t : v ∈ S_t} by a binomial tail bound M that fails "
        "with probability δ/2 over ρ and spends the other δ/2 on the Gaussian, which "
        "gives (ε, δ) averaged over ρ; Definition 2.3 asks for every fixed ρ.  The "
        "implementation calibrates per ρ with M = max_v X_v(ρ) (public).  On the "
        f"adversarial ρ with node 0 in all T = {sets} sets (n = {n}, s = 1, "
        f"ε = {eps}, δ = {delta}), the ρ-aware pair (∅ against a star at node 0) "
        f"moves the joint means by {per_rho.shift:.2f}:",
        "",
        "| calibration | sensitivity used | σ | exact δ(ε) at the pair | claim δ |",
        "|---|---|---|---|---|",
        f"| averaged (paper) | {sens_avg:.2f} | {sigma_avg:.1f} | {avg_delta:.3g} | {delta} |",
        f"| per ρ (ours) | {mech.spec.global_sensitivity.value:.2f} | "
        f"{mech.noise_law.sigma:.1f} | {per_rho.delta_at_claim:.3g} | {delta} |",
        "",
        "A per-ρ claim with the paper's calibration fails by a factor "
        f"{avg_delta / delta:.0f} in δ (test "
        "``tests/quality/test_lndp_audits.py::test_averaged_calibration_fails_per_rho``; "
        "the black-box audit of the same variant at n = 6, T = 120 is the slow test "
        "``test_averaged_calibration_fails_the_audit_on_adversarial_rho``).  On random ρ "
        "the per-ρ sensitivity is "
        + ", ".join(f"{m.spec.global_sensitivity.value:.1f}" for m in random_rho)
        + f" against the paper's {sens_avg:.1f}: per-ρ calibration is also cheaper "
        "here, because the union over nodes costs less than the tail bound's "
        "3 ln(2/δ) margin.",
        "",
    ]


def errata_rr(lines: list[str]) -> None:
    lines += [
        "### Algorithm 9: advanced composition is loose",
        "",
        "With ε0 = ε/(2√(2(n − 1) ln(1/δ))) and n − 1 changed bits, the exact δ(ε) of "
        "the joint randomized response (binomial privacy-loss distribution):",
        "",
        "| n | ε | δ claim | ε0 | exact δ(ε) |",
        "|---|---|---|---|---|",
    ]
    for n in (10, 100, 1000, 10_000):
        e0 = rr_edge_epsilon0(n, 0.5, 1e-6)
        lines.append(f"| {n} | 0.5 | 1e-06 | {e0:.3g} | {rr_joint_delta(0.5, e0, n - 1):.3g} |")
    lines += [
        "",
        "The claim holds with many orders of magnitude to spare: ε0 could be "
        "several times larger (the factor 2 in ε0 pays for e^x − 1 ≤ 2x and for "
        "δ′ = δ).",
        "",
    ]


# -- 2. verdicts ----------------------------------------------------------------------------
def verdicts(lines: list[str], quick: bool) -> None:
    rows = []
    cases = [
        (
            "Algorithm 1 (τ = 0..1)",
            "correct",
            soft_threshold_mechanism(N_AUDIT, 0.9, 1e-3, 0, 1, calibration="classical"),
            None,
        ),
        (
            "Algorithm 2 (D = 3)",
            "correct",
            soft_threshold_mechanism(N_AUDIT, 0.9, 1e-3, 0, 3, calibration="classical"),
            None,
        ),
        (
            "Algorithm 3, W = I, λ = 2",
            "correct",
            blurry_linear_mechanism(
                N_AUDIT, 0.9, 1e-3, 2, np.eye(bucket_count(N_AUDIT, 2)), calibration="classical"
            ),
            None,
        ),
        ("Algorithm 8", "correct", laplace_edge_count_mechanism(N_AUDIT, 1.0), None),
        ("Algorithm 9 (28 RR bits)", "correct", rr_edge_count_mechanism(N_AUDIT, 1.0, 1e-3), None),
        (
            "Algorithm 7, ρ of seed 0",
            "correct",
            regular_vs_star_mechanism(
                RegularStarRandomness(
                    N_AUDIT, np.random.default_rng(0).integers(0, N_AUDIT, (6, 2))
                ),
                0.9,
                1e-3,
                calibration="classical",
            ),
            None,
        ),
    ]
    own, sigma_own = own_sensitivity_soft_threshold(N_AUDIT)
    cases.append(("Algorithm 1, σ for the node's own Δ = 1", "broken", own, sigma_own))
    cases.append(
        (
            "degrees-only, claim ignores the neighbours' copies (Δ = 1)",
            "broken",
            neighbours_copies_ignored(N_AUDIT),
            None,
        )
    )
    cases.append(
        (
            "Algorithm 1, thresholds from the average degree (not local)",
            "broken",
            global_threshold_soft_threshold(N_AUDIT),
            None,
        )
    )
    cases.append(
        (
            "Algorithm 8 at half its Laplace scale",
            "broken",
            own_sensitivity_laplace_edge_count(N_AUDIT),
            None,
        )
    )
    cases.append(
        ("Algorithm 3 releasing a sampled one-hot", "pitfall", sampled_one_hot(N_AUDIT), None)
    )
    honest_alg1 = cases[0][2]
    for label, kind, mech, sigma_override in cases:
        if sigma_override is not None:  # the honest means, the broken noise level
            _, shift, origin = worst_exact(honest_alg1, N_AUDIT, honest_alg1.spec.relation)
            exact = Gaussian(sigma=sigma_override).privacy_profile(0.9, shift)
            exact_text = f"{exact:.3g} at {origin} (shift {shift:.3f})"
        elif label.startswith("Algorithm 9"):
            eps0 = rr_edge_epsilon0(N_AUDIT, 1.0, 1e-3)
            exact_text = (
                f"{rr_joint_delta(1.0, eps0, N_AUDIT - 1):.3g} at star_toggle "
                f"({N_AUDIT - 1} bits, pure ε = {(N_AUDIT - 1) * eps0:.3f})"
            )
        elif label.endswith("sampled one-hot"):
            exact_text = f"≤ {one_hot_convexity_bound(mech):.3g} (convexity bound, every pair)"
        elif not hasattr(mech, "noise_law"):
            exact_text = "spec is honest: n/a"
        else:
            exact, shift, origin = worst_exact(mech, N_AUDIT, mech.spec.relation)
            exact_text = f"{exact:.3g} at {origin} (shift {shift:.3f})"
        t = time.time()
        pairs = (
            [LocalNodeRelation().star_toggle(N_AUDIT, 0)] if label.startswith("Algorithm 9") else []
        )
        config = AUDIT if not quick else AUDIT.model_copy(update={"samples": 5_000})
        report = audit(mech, config=config, pairs=pairs)
        t_box = time.time()
        box = audit(black_box(mech), config=config, pairs=pairs)
        box_text = (
            f"{box.verdict}"
            f"{' (' + ', '.join(c.name for c in box.violations) + ')' if box.violated else ''}"
            f", ε ≥ {box.epsilon_lower_bound:.3f}, {time.time() - t_box:.0f} s"
        )
        lndp = [c for c in report.checks if c.name.startswith("lndp.")]
        failed = [c.name.removeprefix("lndp.") for c in lndp if c.violated]
        other = [c.name for c in report.checks if c.violated and not c.name.startswith("lndp.")]
        passed = sum(c.status == "passed" for c in lndp)
        check_text = (
            f"{passed}/{len(lndp)} passed" if not failed else "violated: " + ", ".join(failed)
        )
        rows.append(
            f"| {label} | {kind} | {mech.spec.guarantee.epsilon:g}, "
            f"{getattr(mech.spec.guarantee, 'delta', 0):g} | {exact_text} | {check_text} | "
            f"{report.verdict}{' (' + ', '.join(other) + ')' if other else ''} | "
            f"{report.epsilon_lower_bound:.3f} | {t_box - t:.1f} | {box_text} |"
        )
    lines += [
        "## Verdicts on the joint messages",
        "",
        "Each mechanism releases the joint vector of all n = 8 messages (ρ fixed).  "
        "*Exact δ* is the white-box δ(ε_claim) of the joint messages "
        "(``estimators.lndp.joint_accounting``: one Gaussian with the ℓ2 shift of the "
        "stacked means, or the ℓ1/b bound for Laplace) maximised over the adversarial "
        "pairs of ``LocalNodeRelation`` (focused star toggle, bucket extremes, focused "
        "degree-preserving swap, realisable degree-space pairs) and the generic star "
        "toggle, swap and complement rewiring.  *LNDP checks* are the report's "
        "``lndp.*`` checks (``privaudit/auditing/checks/local_node.py``: structure, locality, "
        "per-node privacy, exact joint accounting, the Lemma 5.4 certificate; skipped "
        "ones counted as not passed).  *Audit* is the whole auditor "
        f"({AUDIT.samples} samples per side, seed {AUDIT.seed}, family-wise "
        "confidence 95 %; the checks that refuted the claim in brackets) with its "
        "certified ε lower bound.  *Black box* audits the same spec and sampler "
        "declared with no gray-box hook (``declare_mechanism(spec, sampler)``): the "
        "LNDP checks then run on samples (locality: two-sample tests at 10 % of α; "
        "``privaudit/auditing/checks/local_node_blackbox.py``) or defer to the distinguishing "
        "test (issue 27: no required check is skipped in silence).",
        "",
        "| mechanism | kind | claim (ε, δ) | exact δ(ε_claim) at the worst pair | "
        "LNDP checks | audit | ε lower bound | audit s | black box |",
        "|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        "**The sampled one-hot is private at these parameters, so no sound audit can "
        "refute it.**  Node i's message is a mixture over its sampled bucket; coupling "
        "the coins of nodes whose degree does not change, every component of the joint "
        "law under G is a Gaussian N(c, σ²I) whose mean moves by at most √2 per node "
        "whose degree changes (v and its ≤ n − 1 old or new neighbours), so by joint "
        "convexity of the hockey-stick divergence δ(ε) ≤ δ_Gauss(ε; Δ = √(2n), σ) at "
        "every pair.  At n = 8, λ = 2 (σ = 13.9) that is the value in the table, below "
        "the claimed 10⁻³; a Monte-Carlo estimate of the mixture's exact δ(0.9) with its "
        "true likelihood ratio (4·10⁵ draws per direction, every adversarial pair) gives "
        "0 to within 10⁻⁸.  With λ = 2 the ratio √(2n)/σ tends to √2·ε/c_δ = 0.34 as n "
        "grows, so the bound stays below 10⁻³ for every n at (0.9, 10⁻³); the pitfall is "
        "a spec mismatch (the released law is not N(B e_d, σ²I)) and an accuracy bug, "
        "and its extra variance (r(1 − r) per coordinate against σ² ≈ 193) is invisible "
        "to the noise-law test at any feasible sample size.",
        "",
    ]


def black_box(mech):
    """The same spec and sampler, declared with no gray-box hook (a user's declaration)."""
    return declare_mechanism(mech.spec, lambda x, size, rng: mech.sample(x, size, rng))


# -- 4. scale: every estimator on a 20-regular graph, three input types ----------------------
def regular_inputs(n: int, degree: int = 20, seed: int = 0) -> dict[str, object]:
    """A ``degree``-regular graph on n nodes (the circulant {i, i + k}, k ≤ degree/2, with
    randomly permuted labels) as a networkx graph, a sparse CSR adjacency and an edge array."""
    import networkx as nx

    perm = np.random.default_rng(seed).permutation(n)
    i = np.arange(n)
    edges = np.concatenate(
        [np.column_stack([perm[i], perm[(i + k) % n]]) for k in range(1, degree // 2 + 1)]
    )
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(edges.tolist())
    rows = np.concatenate([edges[:, 0], edges[:, 1]])
    cols = np.concatenate([edges[:, 1], edges[:, 0]])
    sparse = sp.csr_array((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n, n))
    return {"networkx": graph, "sparse CSR": sparse, "edge array": edges}


def scaling(lines: list[str], n: int) -> None:
    """Wall-clock seconds of one run of each estimator (issue 27's target: < 5 s at 10⁵)."""
    lam = math.ceil(math.sqrt(n))
    runs = {
        "edge count (Alg. 2)": lambda g: private_edge_count(g, 0.5, 1e-6, 40, rng=1),
        "average degree (Alg. 4)": lambda g: private_average_degree(g, 0.5, 1e-6, lam, rng=1),
        "degree CDF (Cor. 4.4)": lambda g: private_degree_cdf(g, 0.5, 1e-6, lam, rng=1),
        "Erdős–Rényi (Alg. 5)": lambda g: private_erdos_renyi(g, 0.5, 1e-6, rng=1),
        "clique size (Alg. 6)": lambda g: private_clique_size(g, 0.5, 1e-6, rng=1),
        "regular vs star (Alg. 7)": lambda g: private_regular_vs_star(g, 0.5, 1e-6, 20, 100, rng=1),
        "Laplace baseline (Alg. 8)": lambda g: private_laplace_edge_count(g, 0.5, rng=1),
        "randomized response (Alg. 9)": lambda g: private_rr_edge_count(g, 0.5, 1e-6, rng=1),
    }
    inputs = regular_inputs(n)
    rows = []
    for name, run in runs.items():
        cells = []
        for graph in inputs.values():
            t = time.perf_counter()
            run(graph)
            cells.append(f"{time.perf_counter() - t:.2f}")
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += [
        "## Scale",
        "",
        f"One run of each estimator on a 20-regular graph with n = {n:,} nodes "
        f"({10 * n:,} edges), in seconds, for each input type (target: under 5 s at "
        "n = 10⁵).  The graph is read once per estimator, in one vectorised pass over "
        "networkx's adjacency dicts, and the server's sum of the n Gaussian messages is "
        "drawn as the exactly equal-in-law N(0, nσ²) (``estimators/lndp/_common.py``).  "
        "Measured on a shared, loaded 2-core machine: timings are pessimistic.  "
        "Benchmarks: `python3 -m pytest benchmarks/test_bench_lndp.py --benchmark-only`.",
        "",
        "| estimator | " + " | ".join(inputs) + " |",
        "|---|" + "---|" * len(inputs),
        *rows,
        "",
    ]


def one_hot_convexity_bound(mech) -> float:
    """δ_Gauss(ε; √(2n), σ): every mixture component moves by at most √2 per node."""
    sigma = mech.spec.noise.law.sigma
    return Gaussian(sigma=sigma).privacy_profile(
        mech.spec.guarantee.epsilon, math.sqrt(2 * N_AUDIT)
    )


def group_privacy(lines: list[str], quick: bool) -> None:
    """Exact and black-box audits of the group claim at node distance k = 2, 3."""
    samples = 5_000 if quick else 50_000
    rows = []
    cases = [
        (
            "Algorithm 1 (τ = 0..1)",
            "correct",
            soft_threshold_mechanism(N_AUDIT, 0.9, 1e-3, 0, 1, calibration="classical"),
        ),
        ("Algorithm 8", "correct", laplace_edge_count_mechanism(N_AUDIT, 1.0)),
        ("Algorithm 9", "correct", rr_edge_count_mechanism(N_AUDIT, 1.0, 1e-3)),
        (
            "Algorithm 8 at half its Laplace scale",
            "broken",
            own_sensitivity_laplace_edge_count(N_AUDIT),
        ),
    ]
    for label, kind, mech in cases:
        for k in (2, 3):
            for r in audit_group_privacy(mech, k, samples=samples, rng=19):
                exact = (
                    "n/a"
                    if math.isnan(r.exact_value)
                    else (
                        f"loss {r.exact_value:.3f}"
                        if r.delta_group == 0
                        else f"δ = {r.exact_value:.3g}"
                    )
                )
                rows.append(
                    f"| {label} | {kind} | {k} | {r.origin} | {r.epsilon_group:g}, "
                    f"{r.delta_group:.3g} | {exact} | {r.epsilon_lower_bound:.3f} | "
                    f"{'violation' if r.violated else 'no violation'} |"
                )
    lines += [
        "## Group privacy at node distance k",
        "",
        "Graphs at node distance k are (kε, δ Σ_{j<k} e^{jε})-indistinguishable "
        "(group privacy, the paper's Lemma A.7).  ``LocalNodeRelation.group_pairs`` "
        "generates three pairs at distance exactly k (∅ against the k-starpartite "
        "graph, ∅ against a (k + 1)-clique, a K- against a (K + k)-clique; distance "
        "confirmed by the relation's vertex-cover distance); "
        "``privaudit.auditing.checks.group_privacy.audit_group_privacy`` compares the exact "
        "joint accounting (declared law) and the black-box pair test "
        f"({samples} samples per side, seed 19, family-wise 95 % over the three "
        "pairs) with the group claim.  The advanced grouposition of Theorem 6.1 has "
        "unstated constants and is not used as a bound.",
        "",
        "| mechanism | kind | k | pair | group claim (ε, δ) | exact (declared law) | "
        "ε lower bound | black-box |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        "The broken variant's spec is honest, so the exact accounting of its declared "
        "law passes; its samples refute the group claim on the starpartite and "
        "clique-growth pairs.  A group violation always implies a single-pair one "
        "(group privacy follows from the claim), so group pairs add power only where "
        "the loss grows faster than kε: for saturated statistics such as Algorithm 1 "
        "with τ = 0..1 they add none.",
        "",
    ]


# -- 3. accuracy ----------------------------------------------------------------------------
def _empty(n: int) -> sp.csr_array:
    return sp.csr_array((n, n), dtype=np.int8)


def _regular(n: int, d: int) -> sp.csr_array:
    """A circulant d-regular graph (d even), sparse."""
    rows = np.repeat(np.arange(n), d)
    offs = np.tile(np.concatenate([np.arange(1, d // 2 + 1), -np.arange(1, d // 2 + 1)]), n)
    cols = (rows + offs) % n
    return sp.csr_array((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n, n))


def accuracy(lines: list[str], quick: bool, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    reps = 20 if quick else 200
    g = _regular(2000, 10)
    z = [
        (e.estimate - 10_000) / e.standard_error
        for e in (
            private_edge_count(g, 0.5, 1e-6, 12, rng=s, calibration="classical")
            for s in range(reps)
        )
    ]
    ks = stats.kstest(z, "norm").pvalue
    lines += [
        "## Accuracy",
        "",
        f"Algorithm 2 on a 10-regular graph (n = 2000, D = 12, ε = 0.5, δ = 10⁻⁶), "
        f"{reps} runs: mean z = {np.mean(z):.3f}, sd z = {np.std(z, ddof=1):.3f}, "
        f"KS p-value against N(0, 1) = {ks:.3f}.",
        "",
    ]
    ns = [1000, 4000, 16000] if quick else [1000, 4000, 16000, 64000]
    table = [
        "| n | D | sd Alg. 2 measured / formula | sd Alg. 2 analytic measured / formula | "
        "sd Alg. 8 measured / formula | sd Alg. 9 measured / formula |",
        "|---|---|---|---|---|---|",
    ]
    measured = {k: [] for k in ("alg2", "alg2a", "alg8", "alg9")}
    formula = {k: [] for k in ("alg2", "alg2a", "alg8", "alg9")}
    r = 10 if quick else 50
    for n in ns:
        graph = _regular(n, 10)
        row = []
        for key, fn in (
            (
                "alg2",
                lambda s, g=graph: private_edge_count(
                    g, 0.5, 1e-6, 10, rng=s, calibration="classical"
                ),
            ),
            (
                "alg2a",
                lambda s, g=graph: private_edge_count(
                    g, 0.5, 1e-6, 10, rng=s, calibration="analytic"
                ),
            ),
            ("alg8", lambda s, g=graph: private_laplace_edge_count(g, 0.5, rng=s)),
            ("alg9", lambda s, g=graph: private_rr_edge_count(g, 0.5, 1e-6, rng=s)),
        ):
            runs = [fn(s) for s in range(r)]
            sd = float(np.sqrt(np.mean([(e.estimate - 5 * n) ** 2 for e in runs])))
            measured[key].append(sd)
            formula[key].append(runs[0].standard_error)
            row.append(f"{sd:.3g} / {runs[0].standard_error:.3g}")
        table.append(f"| {n} | 10 | " + " | ".join(row) + " |")
    lines += [
        f"Root-mean-square error over {r} runs against the stated s.d. (ε = 0.5, "
        "δ = 10⁻⁶); Table 1's rates are O((n + D√n)√log(1/δ)/ε) for Algorithm 2 and "
        "O(n^1.5/ε), O(n^1.5 √log(1/δ)/ε) for the baselines.  Algorithm 2 runs with the "
        "paper's classical calibration (Lemma A.3) and with the analytic one of Balle & "
        'Wang (ICML 2018, `calibration="analytic"`, the estimators\' default: the '
        "smallest σ for the same (ε, δ)):",
        "",
        *table,
        "",
        "![edge counts](lndp_study_edge_counts.png)",
        "",
    ]
    fig, ax = plt.subplots(figsize=(6, 4))
    for key, label in (
        ("alg2", "Algorithm 2"),
        ("alg8", "Algorithm 8 (Laplace)"),
        ("alg9", "Algorithm 9 (RR)"),
    ):
        ax.loglog(ns, measured[key], "o", label=f"{label}, measured")
        ax.loglog(ns, formula[key], "-", alpha=0.6)
    ax.loglog(ns, [n / 0.5 for n in ns], "k--", label="n/ε (lower bound scale)")
    ax.set_xlabel("n")
    ax.set_ylabel("RMS error of m̂")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "lndp_study_edge_counts.png", dpi=120)
    plt.close(fig)

    er_ns = [2000, 4000] if quick else [2000, 4000, 8000]
    er_rows, er_med = [], []
    er_reps = 5 if quick else 15
    for n in er_ns:
        errs, errs_a = [], []
        for s in range(er_reps):
            rng = np.random.default_rng(1000 + s)
            p = 0.1
            upper = sp.triu(sp.random_array((n, n), density=p, rng=rng, format="csr"), k=1)
            upper.data[:] = 1
            graph = (upper + upper.T).astype(np.int8).tocsr()
            est = private_erdos_renyi(graph, 0.9, 1e-6, rng=s, calibration="classical")
            errs.append(abs(est.estimate - p) * 0.9 * n / math.sqrt(math.log(n)))
            est_a = private_erdos_renyi(graph, 0.9, 1e-6, rng=s, calibration="analytic")
            errs_a.append(abs(est_a.estimate - p) * 0.9 * n / math.sqrt(math.log(n)))
        er_med.append(float(np.median(errs)))
        er_rows.append(f"| {n} | {er_reps} | {np.median(errs):.1f} | {np.median(errs_a):.1f} |")
    # sd(p̂ − p) = √30 λσ̃/(n − 1) with λ = 2√(n ln n), σ̃ ≈ 2c_δ/(ε√n): 4√30 c_δ √ln n/(εn)
    predicted = 0.674 * 4 * math.sqrt(30) * math.sqrt(2 * math.log(1.25e6))
    lines += [
        "Algorithm 5 on G(n, 0.1), ε = 0.9, δ = 10⁻⁶: median of "
        "|p̂ − p|·εn/√ln n (Theorem 4.9 predicts a constant; the Gaussian noise once "
        "the location step succeeds gives about "
        f"0.674·4√30·c_δ ≈ {predicted:.0f}, since λ = 2√(n ln n) and σ̃ ≈ 2c_δ/(ε√n)):",
        "",
        "| n | runs | median normalised error | same, analytic calibration |",
        "|---|---|---|---|",
        *er_rows,
        "",
        "![Erdős–Rényi](lndp_study_erdos_renyi.png)",
        "",
        "The measured medians sit below the prediction: when (n − 1)p < 2λ the located bucket is ĵ"
        " ≤ 2, so j_lo = 0 and the window {0, …, ĵ + 2} has Σ(j − j_lo)² = 14 (not 30) when ĵ = 1,"
        " which lowers the noise by a factor 0.68; with 15 runs a median also carries about ±25 % "
        "sampling error.  The n-dependence is flat, as Theorem 4.9 says (no further "
        "investigation).",
        "",
    ]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.semilogx(er_ns, er_med, "o-")
    ax.axhline(predicted, color="k", ls="--", label="Gaussian-noise prediction")
    ax.set_xlabel("n")
    ax.set_ylabel("median |p̂ − p| εn / √ln n")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "lndp_study_erdos_renyi.png", dpi=120)
    plt.close(fig)

    n = 4000 if quick else 6000
    k = int(0.9 * n)
    rows, cols = np.triu_indices(k, 1)
    a = sp.coo_array((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n, n))
    clique = (a + a.T).tocsr()
    errs = [
        abs(private_clique_size(clique, 0.9, 1e-6, rng=s, calibration="classical").estimate - k)
        for s in range(5)
    ]
    errs_a = [
        abs(private_clique_size(clique, 0.9, 1e-6, rng=s, calibration="analytic").estimate - k)
        for s in range(5)
    ]
    lines += [
        f"Algorithm 6 on a clique of K = {k} among n = {n} nodes (ε = 0.9, δ = 10⁻⁶), "
        f"5 runs, classical calibration: errors {', '.join(f'{e:.1f}' for e in errs)}; "
        f"analytic calibration: errors {', '.join(f'{e:.1f}' for e in errs_a)}; "
        "median·ε/c_δ (classical) = "
        f"{np.median(errs) * 0.9 / math.sqrt(2 * math.log(1.25e6)):.1f}.  "
        "Errors in the hundreds or thousands are location failures (ĵ lands outside the clique's "
        "buckets): Lemma 4.8 needs about 6nσ̃√(2 ln(2n n_λ)) nodes in the located interval, which "
        "K = 0.9n only marginally exceeds at this n and ε.",
        "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument(
        "--scale-nodes",
        type=int,
        default=None,
        help="n of the scale table (default 100000; 20000 with --quick)",
    )
    args = parser.parse_args()
    start = time.time()
    lines = [
        "# Local node differential privacy: study",
        "",
        "Regenerated by `python3 scripts/lndp_study.py`"
        + (" --quick" if args.quick else "")
        + (f" --scale-nodes {args.scale_nodes}" if args.scale_nodes else "")
        + ".  Algorithms of Raskhodnikova, Smith, "
        'Wagaman & Zavyalov, "Local Node Differential Privacy" (arXiv:2602.15802), '
        "implemented in `estimators/lndp/`.  The paper has no experiments; every number "
        "below is measured here.  Timings on a shared 2-core machine.",
        "",
    ]
    errata_blurry(lines)
    errata_rho(lines)
    errata_rr(lines)
    verdicts(lines, args.quick)
    group_privacy(lines, args.quick)
    accuracy(lines, args.quick, args.out)
    scaling(lines, args.scale_nodes or (20_000 if args.quick else 100_000))
    lines += [f"Total run time {time.time() - start:.0f} s.", ""]
    (args.out / "lndp_study.md").write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out / 'lndp_study.md'} in {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
