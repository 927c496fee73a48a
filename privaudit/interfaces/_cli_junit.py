"""``privaudit audit --junit-xml PATH``: the audit's outcome as a JUnit XML report, the
format CI systems ingest (GitLab, Jenkins, GitHub test reporters), laid out like pytest's
``--junit-xml``.

One ``<testsuites>`` holding one ``<testsuite>``, with one ``<testcase>`` per registry entry
(or the one audited TARGET).  A testcase has no child when it passed, ``<failure>`` for a
violation or a stale, missing or inconsistent certificate, ``<error>`` for an input error
(the entry could not be built or audited), and ``<skipped>`` for an inconclusive audit that
has no failure: it neither passed nor failed, and the exit code (3) still says so.  Each
child's ``message`` attribute is one line; its text is the readable paragraph.
"""

from __future__ import annotations

import re
import socket
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from privaudit.interfaces._cli_common import _write_text

__all__ = ["JUnitCase", "write_junit_xml"]

Outcome = Literal["passed", "failure", "error", "skipped"]

#: Characters XML 1.0 cannot hold (control characters but tab, newline, carriage return).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True)
class JUnitCase:
    """One testcase: an entry's name, its outcome and seconds, and for anything but a
    pass a one-line ``message`` and the readable ``text``."""

    name: str
    outcome: Outcome
    seconds: float
    message: str = ""
    text: str = ""


def _clean(text: str) -> str:
    return _NOT_XML.sub("?", text)


def write_junit_xml(
    path: str | Path,
    cases: Sequence[JUnitCase],
    *,
    suite: str,
    classname: str,
    properties: Mapping[str, str] = {},  # noqa: B006  # read, never changed
) -> None:
    """Write ``cases`` as one JUnit ``<testsuite>`` named ``suite`` to ``path``.

    Raises
    ------
    AuditError
        If ``path`` cannot be written.
    """
    counts = {kind: sum(c.outcome == kind for c in cases) for kind in ("failure", "error")}
    skipped = sum(c.outcome == "skipped" for c in cases)
    totals = {
        "tests": str(len(cases)),
        "failures": str(counts["failure"]),
        "errors": str(counts["error"]),
        "skipped": str(skipped),
        "time": f"{sum(c.seconds for c in cases):.3f}",
    }
    root = ET.Element("testsuites", {"name": "privaudit", **totals})
    node = ET.SubElement(
        root,
        "testsuite",
        {
            "name": suite,
            **totals,
            "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
            "hostname": socket.gethostname(),
        },
    )
    if properties:
        props = ET.SubElement(node, "properties")
        for key, value in properties.items():
            ET.SubElement(props, "property", {"name": key, "value": _clean(str(value))})
    for case in cases:
        element = ET.SubElement(
            node,
            "testcase",
            {"classname": classname, "name": _clean(case.name), "time": f"{case.seconds:.3f}"},
        )
        if case.outcome != "passed":
            child = ET.SubElement(
                element,
                case.outcome,
                {"message": _clean(" ".join(case.message.split()))},
            )
            child.text = _clean(case.text)
    ET.indent(root)
    text = ET.tostring(root, encoding="unicode")
    _write_text(path, f'<?xml version="1.0" encoding="utf-8"?>\n{text}\n', "the JUnit XML report")
