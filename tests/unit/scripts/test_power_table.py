"""``scripts/power_table.py``: the one sizing rule and the multi-seed table (structure only;
the audits themselves are the table's business)."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))

import power_table as table


def test_seeds_parse_ranges_and_lists():
    assert table.parse_seeds("0-9") == list(range(10))
    assert table.parse_seeds("0,3,5-6") == [0, 3, 5, 6]
    with pytest.raises(SystemExit):
        table.parse_seeds(",")


@pytest.mark.parametrize(
    ("value", "floor"),
    [
        (0.5, 1),
        (1, 1),
        (1.9, 1),
        (2, 2),
        (4.99, 2),
        (5, 5),
        (9.9e6, 5_000_000),
        (1.2e7, 10_000_000),
    ],
)
def test_grid_floor_is_the_largest_1_2_5_value_below(value, floor):
    assert table._grid_floor(value) == floor


def test_output_kinds():
    rng = np.random.default_rng(0)
    assert table.output_kind(rng.integers(0, 5, 2_000))[0] == "finite"
    assert table.output_kind(rng.normal(size=2_000)) == ("scalar", 1)
    assert table.output_kind(rng.normal(size=(2_000, 3))) == ("vector", 3)
    # 1024 sign patterns of ten columns are more than DISCRETE_ROWS: a vector
    assert table.output_kind(rng.integers(0, 2, (20_000, 10)))[0] == "vector"


def test_sizing_rule_depends_on_cost_and_kind_only():
    cheap, dear = 1e-8, 1e-5
    assert table.sizing_rule("scalar", cheap).samples == table.MAX_N
    assert table.sizing_rule("vector", dear).samples == table.MIN_N
    mid = table.sizing_rule("finite", 2e-7, budget=30.0)
    # (k + 1) · N · c ≤ B with k = 1: N ≤ 7.5·10⁷ → 5·10⁷ on the 1-2-5 grid
    assert (mid.samples, mid.pairs_tested, mid.search) == (50_000_000, 1, table.SEARCH_MAX)
    vec = table.sizing_rule("vector", 2e-6, budget=30.0)
    assert (vec.samples, vec.pairs_tested, vec.search) == (5_000_000, 2, 1_250_000)
    assert {mid.pilot, vec.pilot} == {table.PILOT}
    assert {mid.pair_budget, vec.pair_budget} == {table.PAIR_BUDGET}
    assert mid.reason == vec.reason == "rule"


def test_every_override_states_its_reason():
    overrides = [*table.OVERRIDES.items(), *table.NO_PAIRS_OVERRIDES.items()]
    for name, (fields, reason) in overrides:
        assert reason and reason != "rule", name
        assert set(fields) <= {"samples", "search", "pilot", "pairs_tested", "pair_budget"}
    # an override applies to one table or to both, never twice
    assert not set(table.OVERRIDES) & set(table.NO_PAIRS_OVERRIDES)
    for name, (_, reason) in table.NO_PAIRS_OVERRIDES.items():
        assert "without input pairs only" in reason, name


def test_no_pairs_overrides_size_only_the_table_without_pairs(monkeypatch):
    case = next(c for c in table.dpsniper_cases() if c.name == "dpsniper.SVT34Parallel")
    monkeypatch.setitem(table._CALIBRATED, "SVT34Parallel", ("vector", 3e-6))
    fields, reason = table.NO_PAIRS_OVERRIDES["SVT34Parallel"]
    alone = table.size_for(case, with_pairs=False)
    assert (alone.samples, alone.search, alone.reason) == (
        fields["samples"],
        fields["search"],
        reason,
    )
    assert table.size_for(case, with_pairs=True) == table.sizing_rule("vector", 3e-6)


def test_seeds_table_reports_min_median_max_ceiling_and_the_n_reaching_lr():
    row = {
        "mechanism": "ReportNoisyMax3",
        "true": 0.25,
        "min": 0.2322,
        "median": 0.2332,
        "max": 0.2343,
        "lr": 0.2478,
        "mlp": 0.2488,
        "beats_lr": False,
        "ceiling": 0.2359,
        "needed": 50_000_000,
        "slowest": 0.7,
        "verdicts": ["violation"],
        "kind": "scalar",
        "samples": 1_000_000,
        "search": 80_000,
        "pairs_tested": 1,
        "tested_range": (1, 2),
        "reason": "rule",
    }
    text = table.seeds_table(
        [
            row,
            {
                **row,
                "mechanism": "LaplaceMechanism",
                "ceiling": None,
                "needed": None,
                "tested_range": (1, 1),
            },
        ],
        [0, 9],
    )
    lines = text.splitlines()
    assert "seeds 0–9" in lines[0] and len(lines) == 4
    assert "| 0.2322 | 0.2332 | 0.2343 | 0.2478 | 0.2488 | no | 0.2359 |" in lines[2]
    assert "impossible at our N; 50M" in lines[2] and "| 1–2 (rule: 1) | rule |" in lines[2]
    assert "law not computed" in lines[3] and "| 1 (rule: 1) |" in lines[3]


def test_no_ceiling_without_a_computed_law():
    assert table.ceiling_and_needed("LaplaceMechanism", 10**6, 0.0968) == (None, None)


def test_write_section_keeps_the_other_sections_in_their_order(tmp_path, monkeypatch):
    import power_limits

    monkeypatch.setattr(power_limits, "limits_table", lambda: "| ceilings |\n")
    monkeypatch.setattr(table, "ten_seed_floor_table", lambda: "| floors |\n")
    doc = tmp_path / "power_table.md"
    table.write_section(doc, "seeds-pairs", "## with pairs\n\n| a |\n")
    table.write_section(doc, "seeds-no-pairs", "## without pairs\n\n| b |\n")
    table.write_section(doc, "seeds-pairs", "## with pairs, again\n\n| c |\n")
    text = doc.read_text(encoding="utf-8")
    assert text.startswith(table.HEADER)
    assert "| a |" not in text and "| c |" in text and "| b |" in text
    # the order is SECTION_ORDER's, whatever the order of writing; the notes come last
    assert (
        text.index("without pairs") < text.index("with pairs, again") < text.index("| ceilings |")
    )
    assert text.count("<!-- notes:begin -->") == 1


def test_ten_seed_floor_is_the_ceiling_less_the_expected_minimum_of_ten():
    import power_limits as limits

    # two outcomes: the event {0} has probabilities 0.3 and 0.3·e^{-0.2}
    p_x = np.array([0.3, 0.7])
    p_y = np.array([0.3 * np.exp(-0.2), 1 - 0.3 * np.exp(-0.2)])
    for n in (10**5, 10**7):
        floor, sigma = limits.ten_seed_floor(p_x, p_y, n)
        ceiling = limits.best_bound(p_x, p_y, n)
        assert floor == pytest.approx(ceiling + limits.TEN_SEED_MINIMUM * sigma)
        assert 0 < floor < ceiling < 0.2
    # σ shrinks as 1/√n: 100 times the outputs, a tenth of the spread
    small = limits.ten_seed_floor(p_x, p_y, 10**5)[1]
    large = limits.ten_seed_floor(p_x, p_y, 10**7)[1]
    assert large == pytest.approx(small / 10, rel=0.3)


def test_the_floor_table_gives_the_floor_and_the_n_reaching_lr():
    chosen = {"SparseVectorTechnique1", "LaplaceParallel", "Rappor"}
    text = table.ten_seed_floor_table(only=chosen)
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line][1:]
    names = {row.split("|")[1].strip() for row in rows}
    assert names == chosen
    for row in rows:
        reach = row.split("|")[7].strip()
        assert reach == "at our N" or reach.endswith("M") or reach == "beyond 10¹¹"


def _section_of(rows: dict[str, tuple[str, float]]) -> str:
    """A ten-seed section whose rows carry only the cells the counts read."""
    head = "## Seeds 0–9, without input pairs\n\nGenerated by …\n\n"
    table_head = "| mechanism | " + " | ".join(f"c{i}" for i in range(1, 16)) + " |\n|---|\n"
    lines = []
    for name, (beats, slowest) in rows.items():
        cells = [name, "0.1", "0.1", "0.1", "0.1", "0.1", "0.1", beats, "n/a", "n/a"]
        lines.append("| " + " | ".join([*cells, f"{slowest:.1f}", *["x"] * 5]) + " |")
    return head + table_head + "\n".join(lines) + "\n"


def test_rows_re_run_alone_replace_theirs_and_the_counts_are_recomputed():
    order = ["A", "B", "C"]
    previous = _section_of({"A": ("yes", 10.0), "B": ("no", 50.0), "C": ("no", 20.0)})
    again = _section_of({"B": ("yes", 30.0)}).split("\n\n", 2)[2]
    merged, rerun = table.merge_rows(previous, again, order)
    assert rerun == {"B"}
    names = [line.split("|")[1].strip() for line in merged.splitlines()[2:]]
    assert names == order
    # B's new row: the count of rows reaching LR and the slowest audit come from the merge
    assert table.table_counts(merged) == (2, 3, 30.0)
    # a second re-run keeps the first one's name in the list of rows re-run alone
    section = table.seeds_section(
        merged,
        "0-9",
        list(range(10)),
        no_pairs=True,
        budget=30,
        scale=1,
        beats=2,
        cases=3,
        slowest=30.0,
        rerun=sorted(rerun),
    )
    assert "Rows re-run alone with `--only B`" in section
    _, rerun = table.merge_rows(section, _section_of({"C": ("yes", 5.0)}), order)
    assert rerun == {"B", "C"}


def test_a_table_without_rows_counts_nothing():
    assert table.table_counts("| mechanism | a |\n|---|\n") == (0, 0, 0.0)


def test_costs_file_is_rewritten_only_when_a_cost_is_measured(tmp_path, monkeypatch):
    import json
    from types import SimpleNamespace

    costs = tmp_path / "costs.json"
    text = '{"costs": {"A": {"kind": "vector", "seconds": 1e-06}}}\n'
    costs.write_text(text, encoding="utf-8")
    measured = []
    monkeypatch.setattr(table, "_CALIBRATED", {})
    monkeypatch.setattr(
        table, "calibrate", lambda case: measured.append(case.name) or ("finite", 2e-7)
    )
    table.load_costs(costs, [SimpleNamespace(name="suite.A")], False)
    # nothing missing: the file is only read (two runs side by side never clobber it)
    assert costs.read_text(encoding="utf-8") == text and measured == []
    assert table._CALIBRATED["A"] == ("vector", 1e-06)
    table.load_costs(
        costs, [SimpleNamespace(name="suite.A"), SimpleNamespace(name="suite.B")], False
    )
    assert measured == ["suite.B"]
    written = json.loads(costs.read_text(encoding="utf-8"))["costs"]
    assert written["A"] == {"kind": "vector", "seconds": 1e-06}
    assert written["B"] == {"kind": "finite", "seconds": 2e-7}
    assert not (tmp_path / "costs.json.partial").exists()
