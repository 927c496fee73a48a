"""Can the successive halving tell a mechanism's pairs apart at its sizes?  (issue 31)

The audit without input pairs ranks its candidate pairs by successive halving
(``privaudit/auditing/choice/halving.py``): every round scores each remaining pair by
:func:`~privaudit.auditing.choice.scores.pair_score` on fresh outputs and keeps the better
half.  The choice is only as good as those scores' agreement with what each pair gives in
the final test.  For one DP-Sniper case this script measures that agreement directly:

* **reference** of a pair: the ε lower bound of the final test on that pair alone
  (:func:`~privaudit.auditing.distinguish.distinguish_pair` at the power table's test and
  search splits, level 0.05 / pairs tested), averaged over the seeds;
* **scores** of a pair: :func:`pair_score` at each of the halving's round sizes (the
  sizes of :func:`~privaudit.auditing.choice.halving.halving_first_round`, doubled per
  round), at each seed;
* per round size, **Spearman ρ** between the mean scores and the references, and the
  **regret**: the best reference minus the reference of the pair the round's scores rank
  first, averaged over the seeds.  ρ near 0 and a regret near the spread of the
  references mean the halving chooses at random at that size.

The pairs are either the case's input pairs (a pair and its swap once, the first
``--pairs`` of them), or with ``--pool audit`` the pool the halving of an audit without
input pairs starts from at ``--pool-seed`` (:func:`halving_pool`: generated pairs and the
pilot search's climbs).  Sizes come from ``scripts/power_table.py``'s sizing rule
(``--scale`` multiplies the test and search splits of the reference only).

Usage::

    python scripts/halving_visibility.py SparseVectorTechnique3 --seeds 0-2 --pairs 8
    python scripts/halving_visibility.py SparseVectorTechnique3 --pool audit --pool-seed 4
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from dataclasses import dataclass

import numpy as np
from scipy import stats

ROOT_DIR = pathlib.Path(__file__).resolve().parents[1]
for extra in (ROOT_DIR, ROOT_DIR / "scripts"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from power_table import COSTS, Size, load_costs, parse_seeds, run_case, size_for

# private: halving_pool replaces the module's successive_halving to capture the pool an
# audit's halving starts from; no AuditConfig field or audit() keyword reports that pool
import privaudit.auditing.choice.halving as pair_choice
from privaudit import CandidatePair
from privaudit.auditing import pair_key, to_jsonable, verified_pair
from privaudit.auditing.choice import halving_first_round, halving_pool_size, pair_score
from privaudit.auditing.distinguish import distinguish_pair, draw_pair_test
from privaudit.suites import BenchmarkCase, dpsniper_cases

#: Family-wise level of the audits of the power table.
ALPHA = 0.05


def round_sizes(size: Size) -> list[int]:
    """Outputs per side of each pair in each round of the halving of an audit of ``size``
    (from a pool of :func:`halving_pool_size` pairs down to ``size.pairs_tested``)."""
    first = halving_first_round(size.pilot, size.samples)
    remaining, sizes = halving_pool_size(size.pairs_tested), []
    while remaining > size.pairs_tested:
        sizes.append(first << len(sizes))
        remaining = max(size.pairs_tested, -(-remaining // 2))
    return sizes


def distinct_pairs(case: BenchmarkCase, limit: int) -> list[CandidatePair]:
    """The case's first ``limit`` input pairs, a pair and its swap counted once (the pair
    choice's own de-duplication)."""
    pairs = [verified_pair(case.mechanism.spec, x, y, "input") for x, y in case.input_pairs]
    seen: set[str] = set()
    distinct = []
    for pair in pairs:
        if pair_key(pair.x, pair.y) not in seen:
            seen.update((pair_key(pair.x, pair.y), pair_key(pair.y, pair.x)))
            distinct.append(pair)
    return distinct[:limit]


class _PoolCaptured(BaseException):
    """Stops an audit at its halving (a BaseException: no handler of the audit keeps it)."""

    def __init__(self, pool: list[CandidatePair]) -> None:
        super().__init__("halving pool captured")
        self.pool = pool


def halving_pool(case: BenchmarkCase, size: Size, seed: int) -> list[CandidatePair]:
    """The pairs the successive halving of an audit of ``case`` without input pairs starts
    from at ``seed`` (the audit is stopped there)."""
    original = pair_choice.successive_halving

    def capture(mechanism: object, pairs: list[CandidatePair], **_: object) -> object:
        raise _PoolCaptured(list(pairs))

    pair_choice.successive_halving = capture  # type: ignore[assignment]
    try:
        run_case(case, size, 1.0, with_pairs=False, seed=seed)
    except _PoolCaptured as captured:
        return captured.pool
    finally:
        pair_choice.successive_halving = original
    raise RuntimeError(f"the audit of {case.name} at seed {seed} ran no successive halving")


@dataclass(frozen=True)
class Visibility:
    """References (pairs × seeds) and scores (round sizes × pairs × seeds) of one case."""

    pairs: list[CandidatePair]
    sizes: list[int]
    reference: np.ndarray
    scores: np.ndarray

    def spearman(self) -> list[float]:
        """Per round size: Spearman ρ of the mean scores and the mean references (NaN when
        either is constant)."""
        ref = self.reference.mean(axis=1)
        out = []
        for round_scores in self.scores:
            mean = round_scores.mean(axis=1)
            constant = np.ptp(mean) == 0 or np.ptp(ref) == 0
            out.append(float("nan") if constant else float(stats.spearmanr(mean, ref).statistic))
        return out

    def regret(self) -> list[float]:
        """Per round size: mean over seeds of the best mean reference minus the mean
        reference of the pair that seed's scores rank first (ties: the earlier pair)."""
        ref = self.reference.mean(axis=1)
        return [
            float(np.mean(ref.max() - ref[np.argmax(round_scores, axis=0)]))
            for round_scores in self.scores
        ]


def measure(
    case: BenchmarkCase,
    size: Size,
    seeds: list[int],
    pairs: int | list[CandidatePair],
    scale: float = 1.0,
) -> Visibility:
    """References and halving scores of ``pairs`` (a number: the case's first distinct
    input pairs)."""
    mechanism = case.mechanism
    chosen = distinct_pairs(case, pairs) if isinstance(pairs, int) else list(pairs)
    sizes = round_sizes(size)
    level = ALPHA / size.pairs_tested
    samples, search = max(1_000, int(size.samples * scale)), max(500, int(size.search * scale))
    reference = np.empty((len(chosen), len(seeds)))
    scores = np.empty((len(sizes), len(chosen), len(seeds)))
    for s, seed in enumerate(seeds):
        for p, pair in enumerate(chosen):
            rng = np.random.default_rng([seed, p, 0])
            draws = draw_pair_test(mechanism, pair, samples=samples, search_samples=search, rng=rng)
            result = distinguish_pair(mechanism, pair, draws, alpha=level)
            reference[p, s] = float(result.epsilon_lower_bound)
            for r, n in enumerate(sizes):
                scores[r, p, s] = pair_score(
                    mechanism,
                    pair,
                    samples=n,
                    final_samples=size.samples,
                    level=level,
                    delta=0.0,
                    rng=np.random.default_rng([seed, p, 1 + r]),
                )
    return Visibility(chosen, sizes, reference, scores)


def table(result: Visibility) -> str:
    """Markdown: one row per pair (reference, mean score per round size), then ρ and regret."""
    head = "| pair | reference ε_lb | " + " | ".join(f"score at {n:,}" for n in result.sizes)
    lines = [head + " |", "|---" * (2 + len(result.sizes)) + "|"]
    for p, pair in enumerate(result.pairs):
        ref = result.reference[p]
        cells = " | ".join(
            f"{result.scores[r, p].mean():.3f} ± {result.scores[r, p].std():.3f}"
            for r in range(len(result.sizes))
        )
        label = f"{to_jsonable(pair.x)} vs {to_jsonable(pair.y)}".replace(" ", "")
        lines.append(f"| {label} | {ref.mean():.3f} ± {ref.std():.3f} | {cells} |")
    rho = " | ".join(f"{v:.2f}" for v in result.spearman())
    regret = " | ".join(f"{v:.3f}" for v in result.regret())
    lines.append(f"| Spearman ρ (scores vs reference) | | {rho} |")
    lines.append(f"| regret of the top-scored pair | | {regret} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mechanism", help="DP-Sniper case name, e.g. SparseVectorTechnique3")
    parser.add_argument("--seeds", default="0-2")
    parser.add_argument("--pairs", type=int, default=16, help="pairs measured (at most)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the reference's sizes")
    parser.add_argument(
        "--pool",
        choices=("input", "audit"),
        default="input",
        help="the case's input pairs, or the halving pool of an audit without them",
    )
    parser.add_argument("--pool-seed", type=int, default=0, help="seed of that audit")
    args = parser.parse_args(argv)
    matches = [c for c in dpsniper_cases() if c.name.split(".", 1)[1] == args.mechanism]
    if not matches:
        parser.error(f"no DP-Sniper case named {args.mechanism!r}")
    case = matches[0]
    load_costs(COSTS, [case], False)
    size = size_for(case)
    pairs: int | list[CandidatePair] = (
        halving_pool(case, size, args.pool_seed)[: args.pairs]
        if args.pool == "audit"
        else args.pairs
    )
    result = measure(case, size, parse_seeds(args.seeds), pairs, args.scale)
    print(f"{case.name}: N = {size.samples:,}, search {size.search:,}, k = {size.pairs_tested}")
    print(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
