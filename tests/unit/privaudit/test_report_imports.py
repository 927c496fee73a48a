"""Importing the report's data model loads no module of the engine (issue 46): reading a
report, a certificate or the registry's status must not pay for the auditor."""

from __future__ import annotations

import json
import subprocess
import sys

ENGINE = (
    "privaudit.auditing.auditor",
    "privaudit.auditing.plan",
    "privaudit.auditing.checks",
    "privaudit.auditing.choice",
    "privaudit.auditing.distinguish",
    "privaudit.auditing.search",
    "privaudit.auditing.exact",
    "privaudit.auditing.one_run",
    "privaudit.auditing.time_budget",
    "privaudit.execution",
)


def _loaded_after(statement: str) -> list[str]:
    probe = (
        f"import json, sys\n{statement}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('privaudit'))))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_the_report_model_loads_no_engine_module():
    loaded = _loaded_after("from privaudit.auditing.outcome.report import AuditReport")
    assert not [m for m in loaded if m.startswith(ENGINE)]
    # the models it holds live in modules of their own
    assert {
        "privaudit.auditing.outcome.exact_result",
        "privaudit.auditing.outcome.budget_plan",
    } <= set(loaded)
    assert "privaudit.auditing.outcome.audit_plan" in loaded
    # everything it loads of the auditing wing is the outcome room and the configuration
    wing = {m for m in loaded if m.startswith("privaudit.auditing.")}
    assert wing <= {"privaudit.auditing.config", "privaudit.auditing.limits"} | {
        m for m in wing if m.startswith("privaudit.auditing.outcome")
    }, wing


def test_a_report_reads_back_without_the_engine(tmp_path):
    from privaudit import audit
    from privaudit.mechanisms import LaplaceMechanism

    path = tmp_path / "report.json"
    path.write_text(audit(LaplaceMechanism(1.0, 1.0), samples=5_000).model_dump_json())
    loaded = _loaded_after(
        "from privaudit.auditing.outcome.report import AuditReport\n"
        f"report = AuditReport.model_validate_json(open({str(path)!r}).read())\n"
        "assert report.plan is not None and report.verdict"
    )
    assert not [m for m in loaded if m.startswith(ENGINE)]
