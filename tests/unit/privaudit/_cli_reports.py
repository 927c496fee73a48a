"""The JSON reports of ``privaudit audit`` on one example mechanism under several executor
options, for the tests that an executor does not change the report."""

from __future__ import annotations

import json
import pathlib

from privaudit.interfaces.cli import main

#: ``privaudit audit`` of the example histogram mechanism, seeded, quiet, JSON report.
AUDIT = [
    "audit",
    "examples/custom_mechanism.py:build_noisy_histogram",
    "--samples",
    "300000",
    "--seed",
    "5",
    "-q",
    "--json",
]


def cli_reports(tmp_path: pathlib.Path, **runs: list[str]) -> dict[str, dict]:
    """Run the audit once per keyword (its extra CLI options); each must exit 0.  Returns
    every JSON report, without its run time, by keyword."""
    reports = {}
    for name, options in runs.items():
        path = tmp_path / f"{name}.json"
        assert main([*AUDIT, str(path), *options]) == 0
        reports[name] = json.loads(path.read_text())
        reports[name].pop("runtime_seconds")
    return reports
