"""``privaudit audit``: audit one TARGET, or the registry entries at a family-wise
confidence over the whole registry (Bonferroni), with one readable paragraph per entry and a
table (:mod:`privaudit.interfaces.cli`).
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from privaudit.auditing.texts import claim_text, format_epsilon
from spec.errors import PrivauditError, RegistryError

from ._cli_common import (
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

__all__ = ["REGISTRY_AUDIT_SCHEMA_VERSION"]

#: Version of the JSON written by ``audit --registry --json`` (single reports carry
#: :data:`privaudit.auditing.report.REPORT_SCHEMA_VERSION`).
REGISTRY_AUDIT_SCHEMA_VERSION = 2


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
    from privaudit.trust.targets import load_target

    out = _Output(args)
    mech = load_target(args.target)
    base = CERTIFICATE_STRENGTH if args.strength == "certificate" else CI_STRENGTH
    config = base.merged(_overrides(args))
    report = audit(mech, config=config, progress=out.progress(mech.name), executor=args.run)
    out.say(report.summary())
    if args.json:
        _emit_json(args.json, report.to_json(), "the JSON report")
    if args.plot:
        _plot(report, Path(args.plot))
    if html_writer is not None:
        html_writer(report, args.html)
    return _exit_code(report)


def _paragraph(name: str, description: str, report: Any, cert: Any, seconds: float) -> str:
    from privaudit.auditing.verdicts import inconclusive_text
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
    if cert.current:
        parts.append(f"Certificate: current ({cert.reason}).")
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


def _audit_registry(args: argparse.Namespace, html_writer: Callable[..., Any] | None) -> int:
    from privaudit.auditing.auditor import audit
    from privaudit.trust import registry

    out = _Output(args)
    chosen = list(dict.fromkeys(args.registry)) or list(registry.names())
    found = [registry.entry(name) for name in chosen]  # unknown names fail before any audit
    if not found:
        raise RegistryError("the registry is empty: nothing to audit")
    overrides = _overrides(args)
    rows, reports, records, errors = [], [], [], []
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
        out.say()
    for item in found:
        started = time.perf_counter()
        try:
            mech = item.create()
            cert = registry.status_for(item, mech)
            base = item.certificate_config if args.strength == "certificate" else item.audit_config
            config = registry.family_wise_config(base.merged(overrides), len(found))
            report = audit(
                mech,
                config=config,
                pairs=item.pairs,
                progress=out.progress(item.name),
                executor=args.run,
            )
        except PrivauditError as err:
            message = str(err).splitlines()[0] if str(err) else type(err).__name__
            errors.append(f"{item.name}: {message}")
            rows.append(
                [item.name, "?", "?", "?", "ERROR", "?", f"{time.perf_counter() - started:.1f}"]
            )
            print(f"privaudit: error: registry entry {item.name!r}: {message}", file=sys.stderr)
            continue
        seconds = time.perf_counter() - started
        out.say(_paragraph(item.name, item.description, report, cert, seconds))
        out.say()
        verdict = {"violation": "VIOLATION", "inconclusive": "INCONCLUSIVE"}.get(
            report.verdict, "no violation"
        )
        rows.append(
            [
                item.name,
                f"{report.epsilon_claimed:.6g}",
                f"{report.delta_claimed:g}",
                format_epsilon(report.epsilon_lower_bound),
                verdict,
                cert.state,
                f"{seconds:.1f}",
            ]
        )
        reports.append(report)
        records.append(
            {
                "name": item.name,
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
        )
        if args.plot:
            _plot(report, Path(args.plot) / f"{item.name}.png")
        if html_writer is not None:
            html_writer(report, Path(args.html) / f"{item.name}.html")
    violated = [r for r in reports if r.violated]
    uncertified = [
        record["name"] for record in records if record["certificate_status"] in _FAILING_STATES
    ]
    inconclusive = [r for r in reports if r.inconclusive]
    out.say(
        _table(
            rows, ["entry", "claimed ε", "δ", "ε lower bound", "verdict", "certificate", "time (s)"]
        )
    )
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
    if not (violated or inconclusive or errors):
        out.say(f"{len(found)} entries audited: no violation found.")
    if uncertified:
        out.say(
            textwrap.fill(
                f"{len(uncertified)} of {len(found)} entries have a stale, missing or inconsistent "
                f"certificate, so the audit fails: {', '.join(uncertified)}. Certify them with: "
                f"privaudit certify --registry {' '.join(uncertified)}",
                width=92,
            )
        )
    if reports:
        out.say(textwrap.fill(reports[0].disclaimer, width=92))
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
    if errors:
        return EXIT_USAGE
    if violated or uncertified:
        return EXIT_VIOLATION
    return EXIT_INCONCLUSIVE if inconclusive else EXIT_OK
