"""Sequential audits against fixed-size audits: samples, seconds, catches and false alarms.

Slow tier; writes ``docs/sequential_audits.md``.  Every audit here runs at the same
configuration and confidence in both modes, the fixed-size audit at ``samples`` per side
and the sequential one (``sequential=True``) with ``samples`` as its last look, on audit
seeds ``0 … seeds − 1``:

* ``broken`` — every broken case of the project's suites (StatDP's, DP-Sniper's, the
  δ-type rare leaks and the other broken cases of ``privaudit.suites.broken``, node-DP
  graph statistics, local randomizers, and the broken local-node mechanisms) at
  :data:`privaudit.CI_STRENGTH`: the share caught, and the samples per side (summed over
  the looks that ran) and seconds to the verdict, median and worst over the seeds;
* ``registry`` — every built-in registry entry at its own CI configuration
  (``audit_config``): verdicts, samples and seconds, and the false-violation rate over
  entries × seeds with its one-sided 95 % Clopper–Pearson upper bound;
* ``few`` — Laplace (ε = 1, its declared law): the ε lower bound against ``samples``,
  median over the seeds, and the smallest size at which the median reaches 0.9;
* ``paper`` — the cases of González, Dulce-Rubio, Ramdas & Ribero (NeurIPS 2025) that the
  project can re-create, beside the numbers they report.

Each part saves its rows to ``docs/sequential_audits_data/<part>.json``; the page is
rendered from the saved parts, so parts can run in separate processes.

Usage::

    python scripts/sequential_audits.py [--parts broken,registry,few,paper] [--seeds 10]
                                        [--render-only]
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout: use its packages
    sys.path.insert(0, str(ROOT))

from privaudit import CI_STRENGTH, AuditConfig, audit, registry
from privaudit.auditing import look_schedule
from privaudit.mechanisms import LaplaceMechanism
from privaudit.statistics import clopper_pearson
from privaudit.suites import (
    all_cases,
    delta_broken_cases,
    dpsgd_broken_cases,
    global_threshold_soft_threshold,
    neighbours_copies_ignored,
    own_sensitivity_laplace_edge_count,
    own_sensitivity_soft_threshold,
)

DATA = ROOT / "docs" / "sequential_audits_data"
PAGE = ROOT / "docs" / "sequential_audits.md"
PARTS = ("broken", "registry", "few", "paper", "dpsgd")
#: The DP-SGD cases' configuration: the quality tier's (``tests/quality/test_dpsgd_audits.py``).
DPSGD_CONFIG = AuditConfig(samples=100_000, confidence=0.95)
FEW_SIZES = (250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000)


def _run(mechanism: Any, config: Any, pairs: Any, seed: int, sequential: bool) -> dict[str, Any]:
    """One audit, as a row: verdict, ε lower bound, samples per side drawn, seconds."""
    started = time.perf_counter()
    report = audit(mechanism, config=config, pairs=pairs, seed=seed, sequential=sequential)
    seconds = time.perf_counter() - started
    eps = report.epsilon_lower_bound
    record = report.sequential
    return {
        "verdict": report.verdict,
        "epsilon": "inf" if isinstance(eps, str) or math.isinf(float(eps)) else float(eps),
        "samples": record.samples_drawn if record is not None else report.samples,
        "looks": len(record.looks) if record is not None else 1,
        "stop": record.stopping_reason if record is not None else "fixed",
        "seconds": seconds,
    }


def _both(mechanism: Any, config: Any, pairs: Any, seeds: int) -> dict[str, list]:
    """Fixed-size and sequential audits, interleaved seed by seed (same machine load)."""
    rows: dict[str, list] = {"fixed": [], "sequential": []}
    for seed in range(seeds):
        for mode in ("fixed", "sequential"):
            rows[mode].append(_run(mechanism, config, pairs, seed, mode == "sequential"))
    return rows


def _broken_cases() -> list[tuple[str, Any, Any, str]]:
    """(label, mechanism, pairs, suite) of every broken case."""
    found = []
    for case in [*all_cases(), *delta_broken_cases()]:
        if case.is_private:
            continue
        label = case.name
        if case.name.startswith("statdp."):
            label = f"{case.name}[ε₀={case.claimed_epsilon:g}]"
        found.append((label, case.mechanism, case.input_pairs, case.name.split(".")[0]))
    n = 8
    for label, make in (
        ("local_node.own_sensitivity_soft_threshold", lambda: own_sensitivity_soft_threshold(n)[0]),
        (
            "local_node.own_sensitivity_laplace_edge_count",
            lambda: own_sensitivity_laplace_edge_count(n),
        ),
        ("local_node.global_threshold_soft_threshold", lambda: global_threshold_soft_threshold(n)),
        ("local_node.neighbours_copies_ignored", lambda: neighbours_copies_ignored(n)),
    ):
        found.append((label, make(), (), "local_node"))
    return found


def part_broken(seeds: int, say: Callable[[str], None]) -> list[dict[str, Any]]:
    out = []
    for label, mechanism, pairs, suite in _broken_cases():
        rows = _both(mechanism, CI_STRENGTH, pairs, seeds)
        out.append({"case": label, "suite": suite, **rows})
        caught = [sum(r["verdict"] == "violation" for r in rows[m]) for m in rows]
        say(f"{label}: caught fixed {caught[0]}/{seeds}, sequential {caught[1]}/{seeds}")
    return out


def part_registry(
    seeds: int, say: Callable[[str], None], entries: slice = slice(None)
) -> list[dict[str, Any]]:
    out = []
    for item in registry.entries()[entries]:
        mechanism = item.create()
        rows = _both(mechanism, item.audit_config, item.pairs, seeds)
        out.append({"case": item.name, **rows})
        say(f"{item.name}: {[r['verdict'] for r in rows['sequential']]}")
    return out


def part_few(seeds: int, say: Callable[[str], None]) -> list[dict[str, Any]]:
    mechanism = LaplaceMechanism(1.0, 1.0)
    out = []
    for n in FEW_SIZES:
        config = CI_STRENGTH.merged({"samples": n})
        rows = _both(mechanism, config, (), seeds)
        out.append({"samples": n, **rows})
        say(f"laplace n={n}: {[r['epsilon'] for r in rows['sequential']]}")
    return out


#: González et al.'s reported rejection rate and mean samples to rejection (their Table 1,
#: as summarised in secondary notes: see the page's caveat), by (mechanism, ε).
PAPER_REPORTED = {
    ("NonDPLaplace1", 0.01): "1.0 / 331 ± 14",
    ("NonDPLaplace1", 0.1): "1.0 / 920 ± 62",
    ("NonDPLaplace2", 0.01): "1.0 / 192 ± 18",
    ("NonDPLaplace2", 0.1): "0.95 / 770 ± 262",
    ("NonDPGaussian1", 0.01): "1.0 / 264 ± 9",
    ("NonDPGaussian1", 0.1): "1.0 / 562 ± 29",
    ("NonDPGaussian2", 0.01): "0.85 / 1139 ± 126",
    ("NonDPGaussian2", 0.1): "0.05 / 4776",
    ("DPLaplace", 0.01): "0 rejections",
    ("DPLaplace", 0.1): "0 rejections",
    ("DPGaussian", 0.01): "0 rejections",
    ("DPGaussian", 0.1): "0 rejections",
}
PAPER_DELTA = 1e-5


def _paper_mechanism(kind: str, epsilon: float, counter: list[int]) -> Any:
    """DP-Auditorium's ``MeanMechanism`` as González et al. use it: records in [0, 1], the
    mean ``sum / count`` plus noise of scale ``factor · range / (0.5 ε) / count`` (Laplace:
    factor 1; Gaussian: √(2 ln(1.25/δ))), the count noisy (ñ = n + Lap(2/ε)) in "DP",
    true for the mean and the scale in "NonDP1", true for the mean only in "NonDP2"."""
    import numpy as np

    from privaudit.mechanisms import declare_mechanism
    from privaudit.spec import (
        AddRemoveOne,
        ApproxDP,
        DatasetDomain,
        MechanismSpec,
        PureDP,
        RealInterval,
    )

    gaussian = "Gaussian" in kind
    factor = math.sqrt(2 * math.log(1.25 / PAPER_DELTA)) if gaussian else 1.0
    variant = kind.removeprefix("NonDP").removeprefix("DP").removeprefix("Gaussian")
    variant = variant.removeprefix("Laplace") or "DP"

    def sampler(x: Any, size: int, rng: Any) -> Any:
        counter[0] += size
        total, n = float(np.clip(x, 0.0, 1.0).sum()), len(x)
        noisy_n = np.maximum(n + rng.laplace(0.0, 2.0 / epsilon, size), 1.0)
        mean_n = noisy_n if variant == "DP" else n
        scale_n = n if variant == "1" else noisy_n
        scale = factor / (0.5 * epsilon) / scale_n
        noise = rng.normal(0.0, 1.0, size) if gaussian else rng.laplace(0.0, 1.0, size)
        return total / mean_n + scale * noise

    guarantee = (
        ApproxDP(epsilon=epsilon, delta=PAPER_DELTA) if gaussian else PureDP(epsilon=epsilon)
    )
    spec = MechanismSpec(
        name=f"gonzalez.{kind}",
        summary="DP-Auditorium's MeanMechanism, as in González et al. (NeurIPS 2025)",
        input_domain=DatasetDomain(record=RealInterval(lo=0, hi=1)),
        relation=AddRemoveOne(),
        statistic="mean of the records",
        guarantee=guarantee,
    )
    return declare_mechanism(spec, sampler)


def part_paper(seeds: int, say: Callable[[str], None]) -> list[dict[str, Any]]:
    import numpy as np

    pairs = [(np.array([0.0]), np.array([0.0, 1.0]))]
    out = []
    for kind, epsilon in PAPER_REPORTED:
        counter = [0]
        mechanism = _paper_mechanism(kind, epsilon, counter)
        rows: dict[str, list] = {"fixed": [], "sequential": []}
        for seed in range(seeds):
            for mode in ("fixed", "sequential"):
                counter[0] = 0
                row = _run(mechanism, CI_STRENGTH, pairs, seed, mode == "sequential")
                row["outputs"] = counter[0]
                rows[mode].append(row)
        out.append({"case": kind, "epsilon": epsilon, **rows})
        say(f"{kind} ε={epsilon}: {[r['verdict'] for r in rows['sequential']]}")
    return out


def part_dpsgd(seeds: int, say: Callable[[str], None]) -> list[dict[str, Any]]:
    out = []
    for case in dpsgd_broken_cases():
        rows = _both(case.mechanism, DPSGD_CONFIG, case.input_pairs, seeds)
        out.append({"case": case.name, "suite": "dpsgd", **rows})
        caught = [sum(r["verdict"] == "violation" for r in rows[m]) for m in rows]
        say(f"{case.name}: caught fixed {caught[0]}/{seeds}, sequential {caught[1]}/{seeds}")
    return out


def _render_paper(rows: list[dict]) -> list[str]:
    lines = [
        "| mechanism | claimed ε | González et al.: rejection rate / samples | "
        "fixed: caught | sequential: caught | sequential: test samples per side (median) "
        "| sequential: all outputs drawn (median) |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        seq, fixed = row["sequential"], row["fixed"]
        lines.append(
            f"| {row['case']} | {row['epsilon']:g} | "
            f"{PAPER_REPORTED[(row['case'], row['epsilon'])]} | "
            f"{len(_caught(fixed))}/{len(fixed)} | {len(_caught(seq))}/{len(seq)} | "
            f"{_median([r['samples'] for r in seq]):,.0f} | "
            f"{_median([r['outputs'] for r in seq]):,.0f} |"
        )
    return lines


def _fold(ratio: float) -> str:
    """Say a ratio sequential ÷ fixed as "k× fewer" or "k× more" samples."""
    return f"{1 / ratio:.1f}× fewer" if ratio < 1 else f"{ratio:.2f}× more"


def _median(values: list[float]) -> float:
    return float(statistics.median(values)) if values else math.nan


def _eps(value: Any) -> float:
    return math.inf if value == "inf" else float(value)


def _caught(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r["verdict"] == "violation"]


def _render_broken(rows: list[dict], seeds: int) -> list[str]:
    lines = [
        "| case | fixed: caught | fixed: s (median) | sequential: caught | samples per side "
        "(median / worst) | s (median / worst) | samples ÷ fixed (median) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    ratios, missed, fixed_total, seq_total = [], [], 0, 0
    for row in rows:
        fixed, seq = row["fixed"], row["sequential"]
        fc, sc = _caught(fixed), _caught(seq)
        fixed_total += len(fc)
        seq_total += len(sc)
        for f, s in zip(fixed, seq, strict=True):
            if f["verdict"] == "violation" and s["verdict"] != "violation":
                missed.append(row["case"])
        samples = [r["samples"] for r in seq]
        seconds = [r["seconds"] for r in seq]
        ratio = _median([s["samples"] / f["samples"] for f, s in zip(fixed, seq, strict=True)])
        if fc:
            ratios.append(ratio)
        fixed_seconds = _median([r["seconds"] for r in fixed])
        lines.append(
            f"| {row['case']} | {len(fc)}/{len(fixed)} | {fixed_seconds:.2f} "
            f"| {len(sc)}/{len(seq)} | {_median(samples):,.0f} / {max(samples):,} "
            f"| {_median(seconds):.2f} / {max(seconds):.2f} | {ratio:.3f} |"
        )
    summary = [
        f"{len(rows)} broken cases × {seeds} seeds.  Caught: fixed-size "
        f"{fixed_total}/{len(rows) * seeds}, sequential {seq_total}/{len(rows) * seeds}.  "
        f"Median over the cases that fixed-size audits catch of the median ratio of samples "
        f"per side, sequential ÷ fixed: **{_median(ratios):.3f}** "
        f"({_fold(_median(ratios))}).  Audits (case, seed) that the fixed-size audit "
        f"caught and the sequential one missed: {len(missed)}"
        + (f" ({', '.join(sorted(set(missed)))})." if missed else "."),
        "",
    ]
    return summary + lines


def _render_registry(rows: list[dict], seeds: int) -> list[str]:
    lines = [
        "| entry | fixed: verdicts | fixed: s (median) | sequential: verdicts | samples per side "
        "| s (median / worst) | s ÷ fixed (median) |",
        "|---|---|---:|---|---:|---:|---:|",
    ]
    false_seq = false_fixed = total = 0
    ratios = []
    for row in rows:
        fixed, seq = row["fixed"], row["sequential"]
        total += len(seq)
        false_seq += len(_caught(seq))
        false_fixed += len(_caught(fixed))

        def verdicts(rs: list[dict]) -> str:
            counts: dict[str, int] = {}
            for r in rs:
                counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
            return ", ".join(f"{v.replace('_', ' ')} {k}" for v, k in sorted(counts.items()))

        ratio = _median([s["seconds"] / f["seconds"] for f, s in zip(fixed, seq, strict=True)])
        ratios.append(ratio)
        seconds = [r["seconds"] for r in seq]
        lines.append(
            f"| {row['case']} | {verdicts(fixed)} | {_median([r['seconds'] for r in fixed]):.2f} "
            f"| {verdicts(seq)} | {_median([r['samples'] for r in seq]):,.0f} "
            f"| {_median(seconds):.2f} / {max(seconds):.2f} | {ratio:.2f} |"
        )
    upper_seq = clopper_pearson(false_seq, total, 0.90).high
    upper_fixed = clopper_pearson(false_fixed, total, 0.90).high
    sum_fixed = sum(r["seconds"] for row in rows for r in row["fixed"])
    sum_seq = sum(r["seconds"] for row in rows for r in row["sequential"])
    summary = [
        f"{len(rows)} entries × {seeds} seeds = {total} audits per mode.  False violations: "
        f"sequential {false_seq}/{total} (one-sided 95 % Clopper–Pearson upper bound "
        f"{upper_seq:.4f}), fixed-size {false_fixed}/{total} (upper bound {upper_fixed:.4f}); "
        f"each audit's level is α = 1 − confidence of its entry's configuration.  Seconds, "
        f"all audits: fixed {sum_fixed:,.0f}, sequential {sum_seq:,.0f} "
        f"(**{sum_seq / sum_fixed:.2f}×**); median over entries of the median per-seed "
        f"ratio {_median(ratios):.2f}×.",
        "",
    ]
    return summary + lines


def _render_few(rows: list[dict]) -> list[str]:
    lines = [
        "| samples per side | fixed: ε lower bound (median) | sequential: ε lower bound "
        "(median) | sequential: samples drawn (median) |",
        "|---:|---:|---:|---:|",
    ]
    first: dict[str, int | None] = {"fixed": None, "sequential": None}
    for row in rows:
        meds = {}
        for mode in ("fixed", "sequential"):
            meds[mode] = _median([_eps(r["epsilon"]) for r in row[mode]])
            if first[mode] is None and meds[mode] >= 0.9:
                first[mode] = row["samples"]
        lines.append(
            f"| {row['samples']:,} | {meds['fixed']:.3f} | {meds['sequential']:.3f} "
            f"| {_median([r['samples'] for r in row['sequential']]):,.0f} |"
        )

    def said(n: int | None) -> str:
        return f"{n:,}" if n is not None else f"none up to {FEW_SIZES[-1]:,}"

    return [
        f"Smallest size with a median ε lower bound ≥ 0.9: fixed-size {said(first['fixed'])}, "
        f"sequential {said(first['sequential'])} (its last look at that size).",
        "",
        *lines,
    ]


def _schedule_text() -> str:
    looks = look_schedule(CI_STRENGTH.samples, CI_STRENGTH.alpha, CI_STRENGTH.seed)
    sizes = ", ".join(f"{look.samples:,}" for look in looks)
    levels = ", ".join(f"{look.alpha:.3g}" for look in looks)
    return f"{sizes} outputs per side at α = {levels}"


def _slice_start(path: pathlib.Path) -> int:
    """``registry.30.json`` → 30 (``registry.json`` → 0)."""
    middle = path.name.split(".")[1:-1]
    return int(middle[0]) if middle else 0


def render(seeds: int) -> str:
    parts: dict[str, Any] = {}
    for p in PARTS:  # a part may be saved in slices: <part>.json, <part>.<start>.json, ...
        for path in sorted(DATA.glob(f"{p}.*json"), key=_slice_start):
            parts.setdefault(p, []).extend(json.loads(path.read_text()))
    text = [
        "# Sequential audits",
        "",
        "Generated by `python scripts/sequential_audits.py` (slow tier); the design and its "
        "error control are in `docs/derivations.md` §12.",
        "",
        "A sequential audit (`audit(..., sequential=True)`, `privaudit audit --sequential`, "
        "`pytest --privaudit-sequential`) runs whole audits at growing sizes, the *looks*: "
        "`samples`/16, `samples`/64, … down to 500 outputs per side, then `samples` itself, "
        "each at its own share of α (the last look ¾α, the earlier ones the rest equally).  "
        "The last look keeps the audit's seed, so it is the fixed-size audit at ¾α, draw for draw; "
        "the earlier looks draw afresh from seeds of their own.  The audit stops at the "
        'first look that refutes the claim; "no violation" is concluded by the last look '
        "alone.  The report's `sequential` lists the looks, the samples drawn and the "
        f"stopping reason.  At `CI_STRENGTH` the looks are {_schedule_text()}.",
        "",
    ]
    text += _render_default(parts)
    if "broken" in parts:
        text += [
            "## Broken mechanisms",
            "",
            "At `CI_STRENGTH` (5·10⁴ outputs per side, confidence 0.95) in both modes.  "
            "*Samples per side* is the test split per side of each tested pair, summed over "
            "the looks that ran (fixed: 50,000); seconds are wall-clock on 2 shared cores "
            "with another part of this script running beside it.",
            "",
            *_render_broken(parts["broken"], seeds),
            "",
        ]
    if "registry" in parts:
        text += [
            "## The registry's correct mechanisms",
            "",
            "Each entry at its own CI configuration (`audit_config`, as `privaudit audit "
            "--registry` runs it, but without the registry-wide Bonferroni share), both modes.",
            "",
            *_render_registry(parts["registry"], seeds),
            "",
        ]
    if "few" in parts:
        text += [
            "## Few samples: Laplace, ε = 1",
            "",
            "`LaplaceMechanism(1, 1)` with its declared law at `CI_STRENGTH` with "
            "`samples` = N; ε lower bound of the report, median over the seeds.  The "
            "sequential audit's bound is its last look's, at ¾α, whenever no look refuted "
            "the (true) claim.",
            "",
            *_render_few(parts["few"]),
            "",
        ]
    if "paper" in parts:
        text += [
            "## Beside González et al. (NeurIPS 2025)",
            "",
            "Their mechanisms are DP-Auditorium's `MeanMechanism` on x = {0} against "
            "x′ = {0, 1} (records in [0, 1], add/remove one): *DP* uses a noisy count "
            "ñ = n + Lap(2/ε) for the mean and the noise scale, *NonDP1* the true count for "
            "both, *NonDP2* the true count for the mean only; noise scale "
            "factor · range / (0.5 ε) / count, Laplace (ε-DP) or Gaussian with factor "
            "√(2 ln(1.25/δ)) (we take δ = 10⁻⁵).  Re-created in "
            "`scripts/sequential_audits.py` from the paper and its notebook "
            "(`google-research/dp_sequential_test`); the explicit pair is given to the "
            "audit.  Their column is rejection rate / mean samples to rejection as "
            "reported for their MMD betting test (α = 0.05); we read it from a summary of "
            "their Table 1, not from the paper's own table, so treat it as indicative.  "
            "Their samples are outputs per side read by one test; ours are the test split "
            "per side, and the last column counts every output the audit drew, both "
            "inputs, pair ranking and search split included.",
            "",
            *_render_paper(parts["paper"]),
            "",
        ]
    if "dpsgd" in parts:
        text += [
            "### DP-SGD",
            "",
            "González et al. audit DP-SGD white-box, one canary gradient per training step "
            "of an MNIST model (jax_privacy), and report non-private SGD refuted after about "
            "60 steps.  That needs a training stack the project does not ship.  The nearest "
            "case here is DP-SGD's batch sampling (Chua et al., ICML 2024; "
            "`docs/dpsgd_audit.md`): shuffled batches accounted as Poisson subsampling, "
            "audited black-box at the quality tier's 10⁵ outputs per side.",
            "",
            *_render_broken(parts["dpsgd"], seeds),
            "",
        ]
    text += [
        "## What was left out, and why",
        "",
        '* **Stopping early for "no violation".**  An early look whose power statement '
        "says it could detect twice the claim rests on a pair ranking and a search split 16 "
        "or more times smaller than the last look's.  On DP-Sniper's ReportNoisyMax3 "
        "(claimed ε = 0.1, true 0.25, seed 1 at `CI_STRENGTH`) a rule that stopped at a "
        "conclusive look (looks growing ×4) stopped at 3,125 outputs per side with "
        '"no violation" and ε ≥ 0, '
        "where the fixed-size audit finds ε ≥ 0.217.  Only the last look concludes.",
        "* **An e-process on one growing stream** (González et al.; Howard et al., Ann. "
        "Statist. 2021).  privaudit's audit chooses pairs and events on outputs it never "
        "tests again (`docs/derivations.md` §8–§11); a single stream would have to re-choose "
        "them as it grows.  Fresh looks keep every stage as it is, at the price measured "
        "above on correct mechanisms.",
        "* **A sequential f-DP test** (Kutta, Dunsche, Wei & Zikas, 2026).  Their auditor "
        "stops when a classifier's estimated type I and II errors, widened by a boundary "
        "taken from the maximum of a Gaussian random walk, cross the claimed trade-off curve. "
        "For Gaussian-type claims the pair test already tests the whole curve (the privacy "
        "profile and the trade-off point, with exact Clopper–Pearson bounds), and the "
        "looks above already stop at the first refutation; their boundary is asymptotic, "
        "which the project's statistics policy (exact binomial bounds) rules out for a "
        "verdict.  Not added.",
        "",
    ]
    return "\n".join(text) + "\n"


def _render_default(parts: dict[str, Any]) -> list[str]:
    """Why sequential audits are not the default: the measured costs, in numbers."""
    if "registry" not in parts or "broken" not in parts:
        return []
    registry_rows, broken_rows = parts["registry"], parts["broken"]
    fixed = sum(r["seconds"] for row in registry_rows for r in row["fixed"])
    seq = sum(r["seconds"] for row in registry_rows for r in row["sequential"])
    fixed_b = sum(r["seconds"] for row in broken_rows for r in row["fixed"])
    seq_b = sum(r["seconds"] for row in broken_rows for r in row["sequential"])
    share = _median(
        [
            s["samples"] / f["samples"]
            for row in broken_rows
            for f, s in zip(row["fixed"], row["sequential"], strict=True)
            if s["verdict"] == "violation"
        ]
    )
    samples_ratio = _median(
        [
            s["samples"] / f["samples"]
            for row in registry_rows
            for f, s in zip(row["fixed"], row["sequential"], strict=True)
        ]
    )
    verdict = "is not" if seq > fixed else "is"
    return [
        "## Default",
        "",
        f"Sequential auditing {verdict} the default of `privaudit audit`, the pytest plugin "
        f"and the registry audit.  Measured below: on the registry's correct mechanisms, "
        f"the audits CI runs on every commit, sequential audits drew {samples_ratio:.2f}× "
        f"the test outputs per side of fixed-size audits but took {seq / fixed:.2f}× their "
        f"seconds ({seq:,.0f} s against {fixed:,.0f} s), because a "
        f"correct mechanism runs every look (at most 13/12 of the test outputs, and every "
        f"look pays the checks and pair ranking again) and its last look, the fixed-size "
        f"audit itself, runs at ¾α.  On the broken mechanisms they took "
        f"{seq_b / fixed_b:.2f}× the seconds "
        f"(median samples per side to a caught violation: {share:.3f} of the fixed size).  "
        "A CI suite audits correct mechanisms on almost every run, so the fixed size wins "
        "there.  Turn it on (`--sequential`, `--privaudit-sequential` or the ini option "
        "`privaudit_sequential = true`, `sequential=True`) where refutations are expected: "
        "a new or changed mechanism, a mutation or bug hunt, a catalogue of broken "
        "mechanisms, or a large `samples` whose early looks are cheap beside it.  "
        "Certificates always record a fixed-size audit (`certify` refuses a sequential "
        "configuration): a certificate asserts what one audit at its size found.",
        "",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--render-only", action="store_true")
    parser.add_argument(
        "--entries",
        default=None,
        metavar="START:STOP",
        help="registry part only: audit entries START to STOP − 1 (saved as "
        "registry.START.json; render merges the slices)",
    )
    args = parser.parse_args(argv)
    DATA.mkdir(parents=True, exist_ok=True)
    if not args.render_only:
        for part in args.parts.split(","):
            started = time.perf_counter()
            say = lambda msg: print(msg, flush=True)  # noqa: E731
            name = f"{part}.json"
            if part == "registry" and args.entries is not None:
                start, stop = (int(v) for v in args.entries.split(":"))
                rows = part_registry(args.seeds, say, slice(start, stop))
                name = f"{part}.{start}.json"
            else:
                rows = globals()[f"part_{part}"](args.seeds, say)
            for stale in DATA.glob(f"{part}.*json"):
                if args.entries is None or stale.name == name:
                    stale.unlink()
            (DATA / name).write_text(json.dumps(rows, indent=1) + "\n")
            print(f"{part}: {time.perf_counter() - started:.0f} s", flush=True)
    PAGE.write_text(render(args.seeds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
