"""Audits of the graph quality suite: ε lower bounds next to the true ε.

Every case of :func:`privaudit.suites.graph_broken_cases` and
:func:`privaudit.suites.graph_control_cases` (n = 10 nodes, degree bound D = 3, claimed
ε = 1, Laplace noise on a graph statistic) is audited with the quality tier's seeded
configuration (10⁵ samples per side, confidence 0.999, seed 7), starting from one benign
explicit pair, so the worst pairs must come from the auditor's own generators.

Columns: the relation; the claimed sensitivity Δ and the true one (derived in
``privaudit/suites/_graph_statistics.py``, verified exhaustively for small n); the largest
statistic shift the gray-box sensitivity check found and the generator of that pair; the
claimed and true ε; the certified ε lower bound of the distributional test, its ratio to
the true ε and the generator of the pair it was drawn on; the verdict.

Usage: python scripts/graph_audit_table.py   (writes docs/graph_audit_table.md)
"""

from __future__ import annotations

import pathlib
import sys
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from privaudit import AuditConfig, AuditReport, audit
from privaudit.suites import BenchmarkCase, graph_broken_cases, graph_control_cases

#: The seeded configuration of the quality tier (``tests/quality/test_benchmark_suites.py``).
CONFIG = AuditConfig(
    samples=100_000,
    pilot_samples=2_000,
    pair_budget=24,
    pairs_tested=2,
    claim_budget=100,
    confidence=0.999,
    seed=7,
)
OUTPUT = ROOT / "docs" / "graph_audit_table.md"


@dataclass(frozen=True)
class GraphAuditRow:
    """One audited case, as shown in the table."""

    case: str
    relation: str
    claimed_sensitivity: float
    true_sensitivity: float
    found_sensitivity: float
    sensitivity_origin: str
    claimed_epsilon: float
    true_epsilon: float
    epsilon_lower_bound: float
    distinguishing_origin: str
    verdict: str


def audit_graph_cases(config: AuditConfig = CONFIG) -> list[tuple[BenchmarkCase, AuditReport]]:
    """Audit every graph case with ``config``, from its (benign) explicit pair."""
    cases = graph_broken_cases() + graph_control_cases()
    return [(case, audit(case.mechanism, config=config, pairs=case.input_pairs)) for case in cases]


def _relation(case: BenchmarkCase) -> str:
    relation = case.spec.relation
    if relation.kind == "edge":
        return "edge"
    bound = getattr(relation, "max_degree", None)
    return "node" if bound is None else f"node, degree ≤ {bound}"


def table_rows(audits: list[tuple[BenchmarkCase, AuditReport]]) -> list[GraphAuditRow]:
    """The rows of the table, from the audits."""
    rows = []
    for case, report in audits:
        claimed = float(case.spec.global_sensitivity.value)
        sensitivity = report.check("sensitivity.global")
        rows.append(
            GraphAuditRow(
                case=case.name,
                relation=_relation(case),
                claimed_sensitivity=claimed,
                true_sensitivity=case.true_epsilon / case.claimed_epsilon * claimed,
                found_sensitivity=float(sensitivity.statistic),
                sensitivity_origin=str(sensitivity.details["worst_origin"]),
                claimed_epsilon=case.claimed_epsilon,
                true_epsilon=case.true_epsilon,
                epsilon_lower_bound=report.epsilon_lower_bound,
                distinguishing_origin=report.worst_pair.origin if report.worst_pair else "—",
                verdict=report.verdict,
            )
        )
    return rows


def render(rows: list[GraphAuditRow]) -> str:
    """The Markdown document."""
    header = (
        "| case | relation | Δ claimed | Δ true | max shift found | found by | ε claimed "
        "| ε true | ε_lb | ε_lb / ε true | ε_lb pair from | verdict |"
    )
    lines = [header, "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r.case} | {r.relation} | {r.claimed_sensitivity:g} | {r.true_sensitivity:g} "
            f"| {r.found_sensitivity:g} | {r.sensitivity_origin} | {r.claimed_epsilon:g} "
            f"| {r.true_epsilon:g} | {r.epsilon_lower_bound:.3f} "
            f"| {r.epsilon_lower_bound / r.true_epsilon:.3f} | {r.distinguishing_origin} "
            f"| {r.verdict} |"
        )
    body = (__doc__ or "").split("Usage:")[0].strip()
    config = ", ".join(f"{k}={v}" for k, v in CONFIG.model_dump().items() if v is not None)
    return (
        f"# Graph quality suite: audits against the true ε\n\n{body}\n\n"
        f"Configuration: `AuditConfig({config})`.\n\n" + "\n".join(lines) + "\n"
    )


def main() -> None:
    rows = table_rows(audit_graph_cases())
    text = render(rows)
    OUTPUT.write_text(text, encoding="utf-8")
    print(text)
    print(f"written {OUTPUT}")


if __name__ == "__main__":
    main()
