"""What an audit reports, as data: the report, its checks' results, verdicts, assumptions,
the recorded plan and budget, texts and plots.  The bottom of the auditing wing: nothing
here imports the engine, so reading or writing a report stays cheap.

* :mod:`~privaudit.auditing.outcome.report`: :class:`AuditReport`;
* :mod:`~privaudit.auditing.outcome.results`: check outcomes, counterexamples, event bounds;
* :mod:`~privaudit.auditing.outcome.verdicts`: violation, no violation, inconclusive;
* :mod:`~privaudit.auditing.outcome.assumptions`: the shortcuts an audit took;
* :mod:`~privaudit.auditing.outcome.audit_plan`: the plan an audit ran, as recorded;
* :mod:`~privaudit.auditing.outcome.budget_plan`,
  :mod:`~privaudit.auditing.outcome.sequential_record` and
  :mod:`~privaudit.auditing.outcome.exact_result`: the time budget's plan, a sequential
  audit's looks and the exact audit's result;
* :mod:`~privaudit.auditing.outcome.texts` and :mod:`~privaudit.auditing.outcome.plotting`:
  how numbers are written and drawn.
"""

__all__: list[str] = []
