"""``privaudit audit``: audit one TARGET, or the registry entries at a family-wise
confidence over the whole registry (Bonferroni), with one line per entry (a readable
paragraph per entry and a table with ``--verbose``), the version drift since certification
stated once at the top, and a JUnit XML report with ``--junit-xml``
(:mod:`privaudit.interfaces.cli`).
"""

from __future__ import annotations

import argparse
import json
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privaudit.auditing.outcome.texts import claim_text, format_epsilon
from privaudit.interfaces._cli_common import (
    _FAILING_STATES,
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    EXIT_USAGE,
    EXIT_VIOLATION,
    _check_executor_options,
    _emit_json,
    _executor,
    _exit_code,
    _Output,
    _overrides,
    _plot,
    _require_outputs,
    _table,
    _target_or_registry,
)
from privaudit.interfaces.cli_contract import REGISTRY_AUDIT_SCHEMA_VERSION
from privaudit.spec.errors import PrivauditError, RegistryError

if TYPE_CHECKING:
    from privaudit.interfaces._cli_junit import JUnitCase

__all__ = ["REGISTRY_AUDIT_SCHEMA_VERSION"]


def _cmd_audit(args: argparse.Namespace) -> int:
    _target_or_registry(args, "audit")
    _check_executor_options(args)
    html_writer = _require_outputs(args)
    with _executor(args) as run:
        args.run = run
        if args.registry is not None:
            return _audit_registry(args, html_writer)
        return _audit_target(args, html_writer)


def _audit_target(args: argparse.Namespace, html_writer: Callable[..., Any] | None) -> int:
    from privaudit.auditing.auditor import audit
    from privaudit.auditing.config import CERTIFICATE_STRENGTH, CI_STRENGTH
    from privaudit.interfaces._cli_junit import JUnitCase
    from privaudit.trust.targets import load_target

    out = _Output(args)
    started = time.perf_counter()
    try:
        mech = load_target(args.target)
        base = CERTIFICATE_STRENGTH if args.strength == "certificate" else CI_STRENGTH
        config = base.merged(_overrides(args))
        report = audit(mech, config=config, progress=out.progress(mech.name), executor=args.run)
    except PrivauditError as err:
        if args.junit_xml:  # CI still gets a report: the target as an error
            message = str(err).splitlines()[0] if str(err) else type(err).__name__
            case = JUnitCase(args.target, "error", time.perf_counter() - started, message, str(err))
            _write_junit(args, [case], "privaudit.audit")
        raise
    seconds = time.perf_counter() - started
    out.say(report.summary())
    if args.json:
        _emit_json(args.json, report.to_json(), "the JSON report")
    if args.plot:
        _plot(report, Path(args.plot))
    if html_writer is not None:
        html_writer(report, args.html)
    if args.junit_xml:
        case = _junit_case(report.mechanism, report, None, seconds, report.summary())
        _write_junit(args, [case], "privaudit.audit")
    return _exit_code(report)


def _write_junit(args: argparse.Namespace, cases: list[JUnitCase], classname: str) -> None:
    from privaudit._version import __version__
    from privaudit.interfaces._cli_junit import write_junit_xml

    properties = {"privaudit_version": __version__, "command": _command(args)}
    write_junit_xml(
        args.junit_xml,
        cases,
        suite="privaudit audit",
        classname=classname,
        properties=properties,
    )


def _command(args: argparse.Namespace) -> str:
    if args.registry is None:
        return f"privaudit audit {args.target}"
    return " ".join(["privaudit audit --registry", *args.registry])


def _junit_case(name: str, report: Any, cert: Any, seconds: float, text: str) -> JUnitCase:
    """A violation or a failing certificate is a failure, an otherwise inconclusive audit is
    skipped, anything else passed."""
    from privaudit.auditing.outcome.verdicts import inconclusive_text
    from privaudit.interfaces._cli_junit import JUnitCase
    from privaudit.trust.registry import certify_command

    problems = []
    if report.violated:
        found = "; ".join(f"{c.name}: {c.summary}" for c in report.violations)
        problems.append(f"VIOLATION FOUND: {found}")
    if cert is not None and cert.state in _FAILING_STATES:
        problems.append(f"certificate {cert.state}: {_reason(cert)}; run '{certify_command(name)}'")
    if problems:
        return JUnitCase(name, "failure", seconds, "; ".join(problems), text)
    if report.inconclusive:
        why = inconclusive_text(report.power).removeprefix("inconclusive: ")
        return JUnitCase(name, "skipped", seconds, f"INCONCLUSIVE: {why}", text)
    return JUnitCase(name, "passed", seconds)


def _reason(cert: Any) -> str:
    """The certificate's reason without its version differences, which the registry audit
    states once, at the top (:func:`_version_drift`)."""
    drift = "; ".join(cert.version_differences)
    return cert.reason.removesuffix(f"; {drift}") if drift else cert.reason


def _paragraph(name: str, description: str, report: Any, cert: Any, seconds: float) -> str:
    from privaudit.auditing.outcome.verdicts import inconclusive_text
    from privaudit.trust.registry import certify_command

    checks = report.checks
    passed = sum(c.status == "passed" for c in checks)
    skipped = sum(c.status == "skipped" for c in checks)
    pct = f"{100 * report.confidence:g}%"
    parts = [
        f"{name}: {description or report.spec.summary}."
        if (description or report.spec.summary)
        else f"{name}.",
        f"Claim: {claim_text(report.spec)}.",
    ]
    if report.violated:
        bad = "; ".join(f"{c.name}: {c.summary}" for c in report.violations)
        parts.append(f"VIOLATION FOUND at {pct} family-wise confidence — {bad}.")
    elif report.inconclusive:
        parts.append(
            f"INCONCLUSIVE at {pct} family-wise confidence — no violation found, "
            f"but {inconclusive_text(report.power).removeprefix('inconclusive: ')}."
        )
    else:
        parts.append(f"No violation found at {pct} family-wise confidence.")
    pairs = (
        report.check("distinguishability").details.get("pairs_tested", "?")
        if any(c.name == "distinguishability" for c in checks)
        else "?"
    )
    exact = getattr(report, "exact", None)
    if exact is not None:
        parts.append(
            f"Exact ε = {format_epsilon(exact.epsilon_exact)} (EXACT, no sampling: "
            f"{exact.coverage.replace('_', ' ')}, {exact.pairs_examined} pairs); "
            "sampling cross-check:"
        )
    parts.append(
        f"ε lower bound {format_epsilon(report.epsilon_lower_bound)} at δ = "
        f"{report.delta_claimed:g} (claimed ε = {report.epsilon_claimed:.6g}), from "
        f"{report.samples} samples per side on {pairs} tested pairs, seed {report.seed}; "
        f"{passed} of {len(checks)} checks passed"
        + (f", {skipped} skipped" if skipped else "")
        + "."
    )
    if report.power is not None and not report.violated:
        parts.append(
            f"Power: a true ε of {format_epsilon(report.power.detectable_epsilon)} or "
            f"more on the worst pair would be detected with probability ≥ "
            f"{report.power.probability:g}."
        )
    if getattr(report, "budget", None) is not None:
        parts.append(f"Budget: {report.budget.statement}.")
    if getattr(report, "sequential", None) is not None:
        parts.append(f"{report.sequential.text().capitalize()}.")
    if cert.current:
        parts.append(f"Certificate: current ({_reason(cert)}).")
    elif cert.state == "missing":
        parts.append(f"Certificate: missing; create it with '{certify_command(name)}'.")
    elif cert.state == "inconsistent":
        parts.append(
            f"Certificate: INCONSISTENT — {cert.reason}; replace it with '{certify_command(name)}'."
        )
    else:
        parts.append(
            f"Certificate: STALE — {cert.reason}; refresh it with '{certify_command(name)}'."
        )
    parts.append(f"Took {seconds:.1f} s.")
    return textwrap.fill(" ".join(parts), width=92, subsequent_indent="  ")


def _version_drift(found: list[Any]) -> list[list[str]]:
    """``[package, certified version(s), running version]`` for each package whose version
    differs between the environment that made the entries' certificates and this one.

    Read from the certificate files' recorded versions without validating them (a corrupt
    file is reported as stale by the audit, not here); informative, never a reason for
    staleness (:meth:`privaudit.trust.certificates.Certificate.version_differences`).
    """
    from privaudit._environment import library_versions
    from privaudit.trust.provenance import NOT_INSTALLED, running_versions

    recorded: list[dict[str, str]] = []
    for item in found:
        try:
            data = json.loads(item.certificate_path.read_text(encoding="utf-8"))
            both = {**data.get("versions", {}), **data.get("third_party", {})}
        except (OSError, ValueError, TypeError, AttributeError):
            continue
        recorded.append({k: v for k, v in both.items() if isinstance(v, str)})
    here = library_versions()
    others = {name for versions in recorded for name in versions} - set(here)
    running = {**here, **running_versions(sorted(others))}
    certified: dict[str, dict[str, int]] = {}
    for versions in recorded:
        for name, version in versions.items():
            if version != running.get(name, NOT_INSTALLED):
                counts = certified.setdefault(name, {})
                counts[version] = counts.get(version, 0) + 1
    rows = []
    for name in sorted(certified):
        by_count = sorted(certified[name], key=lambda v: -certified[name][v])
        now = running.get(name, NOT_INSTALLED)
        rows.append([name, ", ".join(by_count), "none" if now == NOT_INSTALLED else now])
    return rows


#: Columns of the registry audit's lines and table.
_HEADER = ("entry", "verdict", "ε lower bound", "claimed ε", "δ", "certificate", "time (s)")
#: Widths of the columns between the entry's and the time's, so that the streamed lines
#: align (a longer value shifts the rest of its line).
_WIDTHS = (12, 13, 9, 7, 12)


def _line(row: Sequence[str], name_width: int) -> str:
    """One entry's line, aligned with :data:`_HEADER`."""
    cells = [f"{row[0]:<{name_width}}"]
    cells += [f"{cell:<{w}}" for cell, w in zip(row[1:-1], _WIDTHS, strict=True)]
    cells.append(f"{row[-1]:>{len(_HEADER[-1])}}")
    return "  ".join(cells).rstrip()


def _rule(name_width: int) -> str:
    """The dashes under :data:`_HEADER`."""
    return "  ".join("-" * w for w in (name_width, *_WIDTHS, len(_HEADER[-1])))


def _say_preamble(out: _Output, found: list[Any], overrides: dict[str, Any]) -> int:
    """Say the family-wise confidence, the version drift and the table's header; return
    the width of the entry column."""
    if len(found) > 1:
        total = found[0].audit_config.merged(overrides).confidence
        out.say(
            textwrap.fill(
                f"Auditing {len(found)} registry entries at {100 * total:g}% family-wise "
                "confidence "
                f"over the whole registry (Bonferroni: each entry at "
                f"{100 * (1 - (1 - total) / len(found)):g}%).",
                width=92,
            )
        )
    if out.text is not None:
        drift = _version_drift(found)
        if drift:
            out.say(
                "Versions now differ from the certificates' (informative; never a reason for "
                "staleness):"
            )
            out.say(textwrap.indent(_table(drift, ["package", "certified", "running"]), "  "))
    out.say()
    name_width = max(len(_HEADER[0]), *(len(item.name) for item in found))
    if not out.verbose:
        out.say(_line(list(_HEADER), name_width))
        out.say(_rule(name_width))
    return name_width


def _entry_row(name: str, report: Any, cert: Any, seconds: float) -> list[str]:
    """The table row of one audited entry."""
    verdict = {"violation": "VIOLATION", "inconclusive": "INCONCLUSIVE"}.get(
        report.verdict, "no violation"
    )
    return [
        name,
        verdict,
        format_epsilon(report.epsilon_lower_bound),
        f"{report.epsilon_claimed:.6g}",
        f"{report.delta_claimed:g}",
        cert.state,
        f"{seconds:.1f}",
    ]


def _entry_record(name: str, report: Any, cert: Any, seconds: float) -> dict[str, Any]:
    """The JSON record of one audited entry."""
    return {
        "name": name,
        "verdict": report.verdict,
        "epsilon_lower_bound": report.model_dump(mode="json")["epsilon_lower_bound"],
        "epsilon_claimed": report.epsilon_claimed,
        "delta_claimed": report.delta_claimed,
        "detectable_epsilon": (report.model_dump(mode="json")["power"] or {}).get(
            "detectable_epsilon"
        ),
        "samples_to_conclude": report.samples_to_conclude,
        "certificate_status": cert.state,
        "certificate_reason": cert.reason,
        "seconds": round(seconds, 3),
    }


def _say_totals(
    out: _Output,
    found: list[Any],
    rows: list[list[str]],
    reports: list[Any],
    records: list[dict[str, Any]],
    errors: list[str],
    broken: list[str],
) -> tuple[list[Any], list[Any], list[str]]:
    """Say the verbose table, the entries violated, inconclusive, in error and uncertified,
    and the disclaimer; return the violated and inconclusive reports and the names of the
    uncertified entries."""
    violated = [r for r in reports if r.violated]
    uncertified = [
        record["name"] for record in records if record["certificate_status"] in _FAILING_STATES
    ]
    inconclusive = [r for r in reports if r.inconclusive]
    if out.verbose:
        out.say(_table(rows, _HEADER))
    out.say()
    if violated:
        out.say(
            f"{len(violated)} of {len(found)} entries: VIOLATION FOUND "
            f"({', '.join(r.mechanism for r in violated)})."
        )
    if inconclusive:
        out.say(
            f"{len(inconclusive)} of {len(found)} entries: INCONCLUSIVE "
            f"({', '.join(r.mechanism for r in inconclusive)})."
        )
    if errors:
        out.say(f"{len(broken)} of {len(found)} entries: ERROR ({', '.join(broken)}).")
    if not (violated or inconclusive or errors):
        out.say(f"{len(found)} entries audited: no violation found.")
    if uncertified:
        out.say(
            textwrap.fill(
                f"{len(uncertified)} of {len(found)} entries have a stale, missing or inconsistent "
                f"certificate, so the audit fails: {', '.join(uncertified)}. Certify them with: "
                f"privaudit certify --registry {' '.join(uncertified)}"
                + ("" if out.verbose else " (--verbose says why)"),
                width=92,
            )
        )
    if reports:
        out.say(textwrap.fill(reports[0].disclaimer, width=92))
    return violated, inconclusive, uncertified


def _audit_registry(args: argparse.Namespace, html_writer: Callable[..., Any] | None) -> int:
    from privaudit.auditing.auditor import audit
    from privaudit.interfaces._cli_junit import JUnitCase
    from privaudit.trust import registry

    out = _Output(args)
    chosen = list(dict.fromkeys(args.registry)) or list(registry.names())
    found = [registry.entry(name) for name in chosen]  # unknown names fail before any audit
    if not found:
        raise RegistryError("the registry is empty: nothing to audit")
    overrides = _overrides(args)
    rows: list[list[str]] = []
    reports, records, errors, cases, broken = [], [], [], [], []
    name_width = _say_preamble(out, found, overrides)
    with out.entries(len(found)) as shown:
        for item in found:
            started = time.perf_counter()
            try:
                mech = item.create()
                cert = registry.status_for(item, mech)
                base = (
                    item.certificate_config if args.strength == "certificate" else item.audit_config
                )
                config = registry.family_wise_config(base.merged(overrides), len(found))
                report = audit(
                    mech,
                    config=config,
                    pairs=item.pairs,
                    progress=shown.start(item.name),
                    executor=args.run,
                )
            except PrivauditError as err:
                message = str(err).splitlines()[0] if str(err) else type(err).__name__
                errors.append(f"{item.name}: {message}")
                broken.append(item.name)
                seconds = time.perf_counter() - started
                rows.append([item.name, "ERROR", "?", "?", "?", "?", f"{seconds:.1f}"])
                cases.append(JUnitCase(item.name, "error", seconds, message, str(err)))
                out.error(f"privaudit: error: registry entry {item.name!r}: {message}")
                shown.done()
                if not out.verbose:
                    out.say(_line(rows[-1], name_width))
                continue
            seconds = time.perf_counter() - started
            paragraph = _paragraph(item.name, item.description, report, cert, seconds)
            rows.append(_entry_row(item.name, report, cert, seconds))
            shown.done()
            if out.verbose:
                out.say(paragraph)
                out.say()
            else:
                out.say(_line(rows[-1], name_width))
            cases.append(_junit_case(item.name, report, cert, seconds, paragraph))
            reports.append(report)
            records.append(_entry_record(item.name, report, cert, seconds))
            if args.plot:
                _plot(report, Path(args.plot) / f"{item.name}.png")
            if html_writer is not None:
                html_writer(report, Path(args.html) / f"{item.name}.html")
    violated, inconclusive, uncertified = _say_totals(
        out, found, rows, reports, records, errors, broken
    )
    if args.json:
        payload = {
            "schema_version": REGISTRY_AUDIT_SCHEMA_VERSION,
            "verdict": (
                "violation" if violated else "inconclusive" if inconclusive else "no_violation"
            ),
            "certificates_ok": not uncertified,
            "entries": records,
            "errors": errors,
            "reports": [r.model_dump(mode="json") for r in reports],
        }
        _emit_json(args.json, json.dumps(payload, indent=2), "the JSON report")
    if args.junit_xml:
        _write_junit(args, cases, "privaudit.registry")
    if errors:
        return EXIT_USAGE
    if violated or uncertified:
        return EXIT_VIOLATION
    return EXIT_INCONCLUSIVE if inconclusive else EXIT_OK
