"""The ``privaudit`` command line.

Commands::

    privaudit audit TARGET | --registry [NAME ...]   audit a mechanism, or the registry
                    [--executor dask [--scheduler ADDRESS | --workers N]]
    privaudit certify TARGET [-o PATH] | --registry [NAME ...]
                                                     audit and write a certificate
                    [--executor dask [--scheduler ADDRESS | --workers N]]
    privaudit list [--json] [--check]                the registry and its certificates
    privaudit show CERTIFICATE [--json]              print a certificate (path or entry name)
    privaudit verify CERT ... | --registry [NAME ...]
                                                     check and reproduce certificates
    privaudit demo [NAME] [--seed S]                 a certified entry's release and spec

TARGET is ``package.module:name`` or ``path/to/file.py:name`` naming a mechanism or a
zero-argument factory that returns one (:mod:`privaudit.trust.targets`); the module or file is
executed as Python code.

Exit codes: 0 no violation found, 1 violation found, 2 usage or input error, 3 inconclusive
(no violation found, but the audit could not have detected a true ε of ``--detect-epsilon``,
by default twice the claim; with ``--registry``, 1 beats 3).  Usage errors are one line on
stderr, never a traceback; set ``PRIVAUDIT_DEBUG=1`` to see the traceback of an
unexpected error).  ``audit --registry`` and ``list --check`` also exit 1 when any
certificate is stale, missing or inconsistent; ``verify`` exits 1 when any certificate
is stale, missing, inconsistent or not reproduced.  Progress goes to stderr, only when stderr is a terminal and
``--quiet`` is not given.  ``--json PATH`` writes the report in the schema of
``docs/report_schema.md``; ``--json -`` writes it to stdout, and then the readable text
goes to stderr (or nowhere with ``--quiet``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from spec.errors import AuditError, CertificateError, PrivauditError, RegistryError

from privaudit.auditing._argtypes import confidence as _confidence
from privaudit.auditing._argtypes import nonnegative_int as _nonnegative_int
from privaudit.auditing._argtypes import positive_float as _positive_float
from privaudit.auditing._argtypes import positive_int as _positive_int
from privaudit.auditing._argtypes import sample_count as _sample_count
from privaudit._version import __version__
from privaudit.auditing.texts import claim_text, format_epsilon, guarantee_text, relation_text

__all__ = ["main"]

EXIT_OK = 0
EXIT_VIOLATION = 1
EXIT_USAGE = 2
EXIT_INCONCLUSIVE = 3

#: Version of the JSON written by ``audit --registry --json`` (single reports carry
#: :data:`privaudit.auditing.report.REPORT_SCHEMA_VERSION`).
REGISTRY_AUDIT_SCHEMA_VERSION = 2

_DESCRIPTION = """\
privaudit: differential privacy with formally stated claims, checked by an auditor.

Black-box testing can refute a privacy claim, never prove one: a passing audit means
that no violation was found at the stated power, not that the mechanism is private.

exit codes: 0 no violation found, 1 violation found (for 'audit --registry' and
'list --check' also: a certificate is stale, missing or inconsistent; for 'verify': a
certificate is not verified), 2 usage or input error, 3 inconclusive (no violation found,
but the audit could not have detected a true ε of --detect-epsilon, by default twice the
claimed ε); 1 takes precedence over 3

A TARGET 'path/to/file.py:name' or 'package.module:name' is imported, that is,
EXECUTED AS PYTHON CODE: name only code you would run yourself.
"""

_TARGET_HELP = ("'package.module:name' or 'path/to/file.py:name' naming a mechanism or a "
                "zero-argument factory that returns one; the module or file is EXECUTED AS "
                "PYTHON CODE, so name only code you trust")

#: Certificate states that fail the gates (``audit --registry``, ``list --check``).
_FAILING_STATES = ("stale", "missing", "inconsistent")


class _OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


# ----------------------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------------------
class _Output:
    """Where readable text and progress go for one command."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.quiet = bool(getattr(args, "quiet", False))
        json_to_stdout = getattr(args, "json", None) == "-"
        self.text: TextIO | None = None if self.quiet else (sys.stderr if json_to_stdout
                                                            else sys.stdout)
        self.show_progress = not self.quiet and sys.stderr.isatty()

    def say(self, text: str = "") -> None:
        if self.text is not None:
            print(text, file=self.text, flush=True)

    def progress(self, label: str) -> Callable[[str], None] | None:
        if not self.show_progress:
            return None
        start = time.perf_counter()

        def report(message: str) -> None:
            print(f"privaudit: [{label}] {message} ({time.perf_counter() - start:.1f} s)",
                  file=sys.stderr, flush=True)

        return report


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("samples", "confidence", "seed", "detect_epsilon"):
        value = getattr(args, key, None)
        if value is not None:
            out[key] = value
    return out


def _write_text(path: str | Path, text: str, what: str) -> None:
    target = Path(path)
    try:
        if target.parent != Path(""):
            target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as err:
        raise AuditError(f"cannot write {what} to {str(target)!r}: {err.strerror or err}") from None


def _emit_json(path: str, payload: str, what: str) -> None:
    if path == "-":
        sys.stdout.write(payload if payload.endswith("\n") else payload + "\n")
        sys.stdout.flush()
    else:
        _write_text(path, payload if payload.endswith("\n") else payload + "\n", what)


def _require_outputs(args: argparse.Namespace) -> Callable[..., Any] | None:
    """Fail before any audit runs if --plot or --html cannot be honoured."""
    if getattr(args, "plot", None):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise AuditError("--plot needs matplotlib: pip install 'privaudit[plot]'") from None
    if getattr(args, "html", None):
        try:
            from .html_report import write_html_report
        except ImportError as err:
            raise AuditError("--html needs privaudit.interfaces.html_report.write_html_report, which this "
                             f"installation does not provide ({err})") from None
        return write_html_report
    return None


def _plot(report: Any, path: Path) -> None:
    try:
        if path.parent != Path(""):
            path.parent.mkdir(parents=True, exist_ok=True)
        fig = report.plot_tradeoff(path)
    except OSError as err:
        raise AuditError(f"cannot write the plot to {str(path)!r}: {err.strerror or err}") from None
    import matplotlib.pyplot as plt

    plt.close(fig)


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _table(rows: Sequence[Sequence[str]], header: Sequence[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join("-" * w for w in widths)
    fmt = [("  ".join(f"{c!s:<{w}}" for c, w in zip(row, widths))).rstrip()
           for row in [header, *rows]]
    return "\n".join([fmt[0], line, *fmt[1:]])


# ----------------------------------------------------------------------------------------
# audit
# ----------------------------------------------------------------------------------------
def _target_or_registry(args: argparse.Namespace, verb: str) -> None:
    """TARGET and --registry exclude each other, and one of them is needed."""
    if args.registry is not None and args.target is not None:
        args.parser.error("give either TARGET or --registry, not both")
    if args.registry is None and args.target is None:
        args.parser.error(f"give a TARGET to {verb}, or --registry for registry entries")


def _check_executor_options(args: argparse.Namespace) -> None:
    """--scheduler and --workers need --executor dask, and exclude each other."""
    if args.executor != "dask" and (args.scheduler is not None or args.workers is not None):
        args.parser.error("--scheduler and --workers need --executor dask")
    if args.scheduler is not None and args.workers is not None:
        args.parser.error("--workers sizes a local cluster; it cannot go with --scheduler")


def _executor(args: argparse.Namespace) -> Any:
    """The context manager of the executor chosen by --executor/--scheduler/--workers."""
    from privaudit.execution.distributed import executor_scope

    return executor_scope(args.executor, scheduler=args.scheduler, n_workers=args.workers)


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


def _exit_code(report: Any) -> int:
    """1 for a violation, 3 for an inconclusive audit, 0 otherwise."""
    if report.violated:
        return EXIT_VIOLATION
    return EXIT_INCONCLUSIVE if report.inconclusive else EXIT_OK


def _paragraph(name: str, description: str, report: Any, cert: Any, seconds: float) -> str:
    from privaudit.trust.registry import certify_command
    from privaudit.auditing.verdicts import inconclusive_text

    checks = report.checks
    passed = sum(c.status == "passed" for c in checks)
    skipped = sum(c.status == "skipped" for c in checks)
    pct = f"{100 * report.confidence:g}%"
    parts = [f"{name}: {description or report.spec.summary}." if (description or report.spec.summary)
             else f"{name}.",
             f"Claim: {claim_text(report.spec)}."]
    if report.violated:
        bad = "; ".join(f"{c.name}: {c.summary}" for c in report.violations)
        parts.append(f"VIOLATION FOUND at {pct} family-wise confidence — {bad}.")
    elif report.inconclusive:
        parts.append(f"INCONCLUSIVE at {pct} family-wise confidence — no violation found, "
                     f"but {inconclusive_text(report.power).removeprefix('inconclusive: ')}.")
    else:
        parts.append(f"No violation found at {pct} family-wise confidence.")
    pairs = report.check("distinguishability").details.get("pairs_tested", "?") \
        if any(c.name == "distinguishability" for c in checks) else "?"
    exact = getattr(report, "exact", None)
    if exact is not None:
        parts.append(f"Exact ε = {format_epsilon(exact.epsilon_exact)} (EXACT, no sampling: "
                     f"{exact.coverage.replace('_', ' ')}, {exact.pairs_examined} pairs); "
                     "sampling cross-check:")
    parts.append(f"ε lower bound {format_epsilon(report.epsilon_lower_bound)} at δ = "
                 f"{report.delta_claimed:g} (claimed ε = {report.epsilon_claimed:.6g}), from "
                 f"{report.samples} samples per side on {pairs} tested pairs, seed {report.seed}; "
                 f"{passed} of {len(checks)} checks passed"
                 + (f", {skipped} skipped" if skipped else "") + ".")
    if report.power is not None and not report.violated:
        parts.append(f"Power: a true ε of {format_epsilon(report.power.detectable_epsilon)} or "
                     f"more on the worst pair would be detected with probability ≥ "
                     f"{report.power.probability:g}.")
    if cert.current:
        parts.append(f"Certificate: current ({cert.reason}).")
    elif cert.state == "missing":
        parts.append(f"Certificate: missing; create it with '{certify_command(name)}'.")
    elif cert.state == "inconsistent":
        parts.append(f"Certificate: INCONSISTENT — {cert.reason}; replace it with "
                     f"'{certify_command(name)}'.")
    else:
        parts.append(f"Certificate: STALE — {cert.reason}; refresh it with "
                     f"'{certify_command(name)}'.")
    parts.append(f"Took {seconds:.1f} s.")
    return textwrap.fill(" ".join(parts), width=92, subsequent_indent="  ")


def _audit_registry(args: argparse.Namespace, html_writer: Callable[..., Any] | None) -> int:
    from privaudit.trust import registry
    from privaudit.auditing.auditor import audit

    out = _Output(args)
    chosen = list(dict.fromkeys(args.registry)) or list(registry.names())
    found = [registry.entry(name) for name in chosen]  # unknown names fail before any audit
    if not found:
        raise RegistryError("the registry is empty: nothing to audit")
    overrides = _overrides(args)
    rows, reports, records, errors = [], [], [], []
    if len(found) > 1:
        total = found[0].audit_config.merged(overrides).confidence
        out.say(textwrap.fill(
            f"Auditing {len(found)} registry entries at {100 * total:g}% family-wise confidence "
            f"over the whole registry (Bonferroni: each entry at "
            f"{100 * (1 - (1 - total) / len(found)):g}%).", width=92))
        out.say()
    for item in found:
        started = time.perf_counter()
        try:
            mech = item.create()
            cert = registry.status_for(item, mech)
            base = item.certificate_config if args.strength == "certificate" else item.audit_config
            config = registry.family_wise_config(base.merged(overrides), len(found))
            report = audit(mech, config=config,
                           pairs=item.pairs, progress=out.progress(item.name),
                           executor=args.run)
        except PrivauditError as err:
            message = str(err).splitlines()[0] if str(err) else type(err).__name__
            errors.append(f"{item.name}: {message}")
            rows.append([item.name, "?", "?", "?", "ERROR", "?", f"{time.perf_counter() - started:.1f}"])
            print(f"privaudit: error: registry entry {item.name!r}: {message}", file=sys.stderr)
            continue
        seconds = time.perf_counter() - started
        out.say(_paragraph(item.name, item.description, report, cert, seconds))
        out.say()
        verdict = {"violation": "VIOLATION", "inconclusive": "INCONCLUSIVE"}.get(
            report.verdict, "no violation")
        rows.append([item.name, f"{report.epsilon_claimed:.6g}", f"{report.delta_claimed:g}",
                     format_epsilon(report.epsilon_lower_bound), verdict, cert.state,
                     f"{seconds:.1f}"])
        reports.append(report)
        records.append({"name": item.name, "verdict": report.verdict,
                        "epsilon_lower_bound": report.model_dump(mode="json")["epsilon_lower_bound"],
                        "epsilon_claimed": report.epsilon_claimed,
                        "delta_claimed": report.delta_claimed,
                        "detectable_epsilon": (report.model_dump(mode="json")["power"] or {}
                                               ).get("detectable_epsilon"),
                        "samples_to_conclude": report.samples_to_conclude,
                        "certificate_status": cert.state, "certificate_reason": cert.reason,
                        "seconds": round(seconds, 3)})
        if args.plot:
            _plot(report, Path(args.plot) / f"{item.name}.png")
        if html_writer is not None:
            html_writer(report, Path(args.html) / f"{item.name}.html")
    violated = [r for r in reports if r.violated]
    uncertified = [record["name"] for record in records
                   if record["certificate_status"] in _FAILING_STATES]
    inconclusive = [r for r in reports if r.inconclusive]
    out.say(_table(rows, ["entry", "claimed ε", "δ", "ε lower bound", "verdict", "certificate",
                          "time (s)"]))
    out.say()
    if violated:
        out.say(f"{len(violated)} of {len(found)} entries: VIOLATION FOUND "
                f"({', '.join(r.mechanism for r in violated)}).")
    if inconclusive:
        out.say(f"{len(inconclusive)} of {len(found)} entries: INCONCLUSIVE "
                f"({', '.join(r.mechanism for r in inconclusive)}).")
    if not (violated or inconclusive or errors):
        out.say(f"{len(found)} entries audited: no violation found.")
    if uncertified:
        out.say(textwrap.fill(
            f"{len(uncertified)} of {len(found)} entries have a stale, missing or inconsistent "
            f"certificate, so the audit fails: {', '.join(uncertified)}. Certify them with: "
            f"privaudit certify --registry {' '.join(uncertified)}", width=92))
    if reports:
        out.say(textwrap.fill(reports[0].disclaimer, width=92))
    if args.json:
        payload = {"schema_version": REGISTRY_AUDIT_SCHEMA_VERSION,
                   "verdict": ("violation" if violated else
                               "inconclusive" if inconclusive else "no_violation"),
                   "certificates_ok": not uncertified,
                   "entries": records,
                   "errors": errors,
                   "reports": [r.model_dump(mode="json") for r in reports]}
        _emit_json(args.json, json.dumps(payload, indent=2), "the JSON report")
    if errors:
        return EXIT_USAGE
    if violated or uncertified:
        return EXIT_VIOLATION
    return EXIT_INCONCLUSIVE if inconclusive else EXIT_OK


# ----------------------------------------------------------------------------------------
# certify
# ----------------------------------------------------------------------------------------
def _cmd_certify(args: argparse.Namespace) -> int:
    _target_or_registry(args, "certify")
    _check_executor_options(args)
    with _executor(args) as run:
        args.run = run
        if args.registry is not None:
            return _certify_registry(args)
        return _certify_target(args)


def _certify_one(mech: Any, config: Any, pairs: Sequence[Any], notes: Sequence[str],
                 out: _Output, label: str, *, factory: Callable[[], Any],
                 source: str, executor: Any = None) -> tuple[Any, Any]:
    """(certificate or None, report); prints the refusal when the audit found a violation
    or is inconclusive."""
    from privaudit.auditing.auditor import audit
    from privaudit.trust.certificates import Certificate, implementation_of
    from privaudit.auditing.config import below_certificate_minimums
    from privaudit.auditing.verdicts import inconclusive_text

    weak = below_certificate_minimums(config)
    if weak:
        raise CertificateError(f"refusing to certify {label!r}: the configuration is below the "
                               f"certificate minimums ({'; '.join(weak)})")
    found = implementation_of(mech, factory=factory)  # the code as it is when audited
    report = audit(mech, config=config, pairs=pairs, progress=out.progress(label),
                   executor=executor)
    if report.violated:
        out.say(report.summary())
        names = ", ".join(c.name for c in report.violations)
        print(f"privaudit: refused to certify {label!r}: the audit found a violation ({names})",
              file=sys.stderr)
        return None, report
    if report.inconclusive:
        out.say(report.summary())
        print(f"privaudit: refused to certify {label!r}: the audit is inconclusive "
              f"({inconclusive_text(report.power)})", file=sys.stderr)
        return None, report
    cert = Certificate.from_report(mech, report, explicit_pairs=len(pairs), notes=notes,
                                   implementation=found, source=source)
    return cert, report


def _certify_target(args: argparse.Namespace) -> int:
    from privaudit.auditing.config import CERTIFICATE_STRENGTH
    from privaudit.trust.targets import target_factory

    out = _Output(args)
    factory = target_factory(args.target)
    mech = factory()
    cert, report = _certify_one(mech, CERTIFICATE_STRENGTH.merged(_overrides(args)), (), (),
                                out, mech.name, factory=factory, source=args.target,
                                executor=args.run)
    if cert is None:
        return _exit_code(report)
    path = cert.write(args.output or f"{mech.name}.certificate.json")
    out.say(cert.summary())
    out.say(f"wrote {path}")
    return EXIT_OK


def _certify_registry(args: argparse.Namespace) -> int:
    from privaudit.trust import registry

    out = _Output(args)
    chosen = list(dict.fromkeys(args.registry)) or list(registry.names())
    found = [registry.entry(name) for name in chosen]
    overrides = _overrides(args)
    rows, refused = [], []
    for item in found:
        started = time.perf_counter()
        config = item.certificate_config.merged(overrides)
        cert, report = _certify_one(item.create(), config, item.pairs, item.notes, out, item.name,
                                    factory=item.create,
                                    source=registry.registry_source(item.name),
                                    executor=args.run)
        seconds = time.perf_counter() - started
        if cert is None:
            refused.append((item.name, report))
            rows.append([item.name, str(config.samples), format_epsilon(report.epsilon_lower_bound),
                         f"REFUSED ({report.verdict})", f"{seconds:.1f}", "-"])
            continue
        path = item.certificate_path if args.output is None else Path(args.output) / f"{item.name}.json"
        cert.write(path)
        rows.append([item.name, str(config.samples), format_epsilon(cert.epsilon_lower_bound),
                     "certified", f"{seconds:.1f}", _shown(path)])
        out.say(f"certified {item.name} in {seconds:.1f} s -> {_shown(path)}")
    out.say()
    out.say(_table(rows, ["entry", "samples", "ε lower bound", "result", "time (s)",
                          "certificate"]))
    if refused:
        out.say(f"refused {len(refused)} of {len(found)}: "
                f"{', '.join(name for name, _ in refused)}")
        return EXIT_VIOLATION if any(r.violated for _, r in refused) else EXIT_INCONCLUSIVE
    return EXIT_OK


# ----------------------------------------------------------------------------------------
# list and show
# ----------------------------------------------------------------------------------------
def _cmd_list(args: argparse.Namespace) -> int:
    from privaudit.trust import registry

    rows, records, failed = [], [], False
    for item in registry.entries():
        try:
            mech = item.create()
            state = registry.status_for(item, mech)
        except PrivauditError as err:
            failed = True
            message = str(err).splitlines()[0]
            rows.append([item.name, "?", "?", f"error: {message}"])
            records.append({"name": item.name, "description": item.description,
                            "origin": item.origin, "error": message})
            continue
        spec = mech.spec
        claim, relation = guarantee_text(spec), relation_text(spec)
        rows.append([item.name, claim, relation, state.state])
        records.append({"name": item.name, "description": item.description,
                        "origin": item.origin, "mechanism": spec.name,
                        "claim": claim, "guarantee": spec.guarantee.model_dump(mode="json"),
                        "relation": relation, "spec_hash": spec.content_hash,
                        "certificate": {"state": state.state, "reason": state.reason,
                                        "path": str(item.certificate_path)}})
    stale = [r[0] for r in rows if r[3] in _FAILING_STATES]
    if args.json:
        print(json.dumps({"entries": records, "certificates_ok": not stale}, indent=2))
    else:
        print(_table(rows, ["name", "claim", "relation", "certificate"]))
        if stale:
            print(f"\n{len(stale)} entries need a certificate: privaudit certify --registry "
                  + " ".join(stale))
    if failed:
        return EXIT_USAGE
    return EXIT_VIOLATION if args.check and stale else EXIT_OK


def _cmd_show(args: argparse.Namespace) -> int:
    from privaudit.trust import registry
    from privaudit.trust.certificates import load_certificate

    what = args.certificate
    path = Path(what)
    status = None
    if path.is_file():
        cert = load_certificate(path)
    elif what in registry.names():
        item = registry.entry(what)
        if not item.certificate_path.is_file():
            raise CertificateError(f"registry entry {what!r} has no certificate at "
                                 f"{item.certificate_path}; create it with: "
                                 f"{registry.certify_command(what)}")
        cert = load_certificate(item.certificate_path)
        status = registry.status_for(item, item.create())
    else:
        raise AuditError(f"no certificate file or registry entry named {what!r}")
    if args.target is not None:
        from privaudit.trust.targets import load_target

        status = cert.status_for(load_target(args.target))
    if args.json:
        print(cert.to_json())
    else:
        print(cert.summary())
        if status is not None:
            print(f"  status         : {status}")
    return EXIT_OK


# ----------------------------------------------------------------------------------------
# verify
# ----------------------------------------------------------------------------------------
def _cmd_verify(args: argparse.Namespace) -> int:
    from privaudit.trust import registry
    from privaudit.trust.verify import VerificationResult, verify_path

    if args.registry is not None and args.certificates:
        args.parser.error("give either CERT files or --registry, not both")
    if args.registry is None and not args.certificates:
        args.parser.error("give CERT files to verify, or --registry for registry entries")
    out = _Output(args)
    results: list[VerificationResult] = []
    if args.registry is not None:
        chosen = list(dict.fromkeys(args.registry)) or list(registry.names())
        found = [registry.entry(name) for name in chosen]  # unknown names fail first
        if not found:
            raise RegistryError("the registry is empty: nothing to verify")
        for item in found:
            if not item.certificate_path.is_file():
                results.append(VerificationResult(
                    name=item.name, path=str(item.certificate_path), state="missing",
                    problems=(f"no certificate at {_shown(item.certificate_path)}; create it "
                              f"with: {registry.certify_command(item.name)}",)))
            else:
                results.append(verify_path(item.certificate_path, name=item.name,
                                           mechanism=item.create(), pairs=item.pairs,
                                           progress=out.progress(item.name)))
            out.say(textwrap.fill(results[-1].summary(), width=92, subsequent_indent="  "))
    else:
        for path in args.certificates:
            results.append(verify_path(path, progress=out.progress(str(path))))
            out.say(textwrap.fill(results[-1].summary(), width=92, subsequent_indent="  "))
    rows = [[r.name, r.state, format_epsilon(r.epsilon_lower_bound_recorded)
             if r.epsilon_lower_bound_recorded is not None else "?",
             format_epsilon(r.epsilon_lower_bound_rerun) if r.epsilon_lower_bound_rerun is not None
             else "-", r.mode, f"{r.seconds:.1f}"] for r in results]
    out.say()
    out.say(_table(rows, ["certificate", "state", "ε lb recorded", "ε lb re-run", "compared",
                          "time (s)"]))
    differences = sorted({d for r in results for d in r.version_differences})
    if differences:
        out.say(textwrap.fill(
            "Library versions differ from the certificates' (" + "; ".join(differences)
            + "): re-runs are compared within the stated tolerance, not bit for bit.",
            width=92))
    bad = [r.name for r in results if not r.verified]
    out.say(f"{len(results) - len(bad)} of {len(results)} certificates verified"
            + (f"; NOT verified: {', '.join(bad)}." if bad else "."))
    out.say(textwrap.fill("A certificate proves reproducibility and code identity: this spec "
                          "and this code, audited with the recorded configuration and seed, "
                          "give the recorded results. It is not a signature and not a proof "
                          "of privacy.", width=92))
    if args.json:
        payload = {"verified": not bad,
                   "results": [r.model_dump(mode="json") for r in results]}
        _emit_json(args.json, json.dumps(payload, indent=2), "the JSON result")
    return EXIT_VIOLATION if bad else EXIT_OK


# ----------------------------------------------------------------------------------------
# demo
# ----------------------------------------------------------------------------------------
def _value_text(value: Any) -> str:
    import numpy as np

    if np.ndim(value) == 0:
        return f"{float(value):.6f}" if isinstance(value, (float, np.floating)) else str(value)
    return np.array2string(np.asarray(value), precision=6, threshold=12)


def _cmd_demo(args: argparse.Namespace) -> int:
    """One release of a certified registry entry on data drawn from its input domain."""
    import numpy as np

    from privaudit.trust import registry

    mechanism = registry.get(args.name)
    spec = mechanism.spec
    rng = np.random.default_rng(args.seed)
    data = spec.input_domain.sample(rng)
    released = mechanism.release(data, rng)
    print(f"privaudit demo: one release of the registry entry {args.name!r} on synthetic data")
    print(f"  claim            : {claim_text(spec)}")
    print(f"  input            : drawn from {spec.input_domain.label()}, seed = {args.seed}")
    if mechanism.provides("statistic"):
        print(f"  non-private value: {_value_text(mechanism.statistic(data))}")
    print(f"  private release  : {_value_text(released)}")
    print()
    print("The mechanism's spec (its claims):")
    print(spec.describe())
    return EXIT_OK


# ----------------------------------------------------------------------------------------
# the parser
# ----------------------------------------------------------------------------------------
def _add_run_options(parser: argparse.ArgumentParser, default_note: str) -> None:
    parser.add_argument("--samples", type=_sample_count, default=None,
                        help=f"outputs per side of each tested pair ({default_note})")
    parser.add_argument("--confidence", type=_confidence, default=None,
                        help=f"family-wise confidence in [0.5, 1) ({default_note})")
    parser.add_argument("--seed", type=_nonnegative_int, default=None,
                        help=f"seed of every random draw ({default_note})")
    parser.add_argument("--detect-epsilon", type=_positive_float, default=None,
                        dest="detect_epsilon",
                        help="the true ε the audit must be able to detect (probability 0.9) "
                             "for 'no violation' to count; otherwise the verdict is "
                             "inconclusive, exit 3 (default: twice the claimed ε)")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress and no readable text (exit code and --json only)")


def _add_executor_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--executor", choices=("serial", "dask"), default="serial",
                        help="where the test splits are drawn and counted: in this process "
                             "(default) or on dask.distributed workers (the extra "
                             "privaudit[distributed]; docs/distributed.md); same results")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="with --executor dask: address of a running Dask scheduler "
                             "(default: start a local cluster)")
    parser.add_argument("--workers", type=_positive_int, default=None, metavar="N",
                        help="with --executor dask and no --scheduler: worker processes of "
                             "the local cluster (default: Dask's choice from the cores)")


def _build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(prog="privaudit", description=_DESCRIPTION,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"privaudit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_OneLineParser)

    audit = sub.add_parser(
        "audit", help="audit a mechanism, or every registry entry",
        description="Audit a mechanism's claims against its spec, or audit the registry. "
                    "TARGET is imported, that is, EXECUTED AS PYTHON CODE (a file.py:name "
                    "target runs that file): name only code you trust. "
                    "Exit code 0: no violation found; 1: violation found, or with --registry "
                    "any entry's certificate is stale, missing or inconsistent; 2: usage or "
                    "input error; 3: inconclusive (no violation found, but the audit could not "
                    "have detected a true ε of --detect-epsilon, twice the claim by default; it "
                    "says how many --samples would do). With --registry, 1 beats 3.")
    audit.add_argument("target", nargs="?", metavar="TARGET", help=_TARGET_HELP)
    audit.add_argument("--registry", nargs="*", metavar="NAME", default=None,
                       help="audit these registry entries (all of them when no NAME is given)")
    audit.add_argument("--strength", choices=("ci", "certificate"), default="ci",
                       help="base configuration: the CI audit (default; for --registry each "
                            "entry's audit_config) or the certificate audit")
    _add_run_options(audit, "default: from --strength")
    audit.add_argument("--json", metavar="PATH", default=None,
                       help="write the report as JSON (docs/report_schema.md); '-' for stdout")
    _add_executor_options(audit)
    audit.add_argument("--plot", metavar="PATH", default=None,
                       help="save the trade-off plot as PNG (with --registry: a directory)")
    audit.add_argument("--html", metavar="PATH", default=None,
                       help="write an HTML report (with --registry: a directory)")
    audit.set_defaults(handler=_cmd_audit, parser=audit)

    certify = sub.add_parser(
        "certify", help="audit at certificate strength and write a certificate",
        description="Audit at certificate strength and write (or refresh) a certificate. "
                    "A mechanism whose audit finds a violation (exit 1) or is inconclusive "
                    "(exit 3) is not certified. "
                    "'privaudit certify --registry' regenerates the certificates of the "
                    "registry, all entries when no NAME is given.")
    certify.add_argument("target", nargs="?", metavar="TARGET", help=_TARGET_HELP)
    certify.add_argument("--registry", nargs="*", metavar="NAME", default=None,
                         help="certify these registry entries (all when no NAME is given) and "
                              "write their certificates where the registry reads them")
    certify.add_argument("-o", "--output", metavar="PATH", default=None,
                         help="certificate file (default ./NAME.certificate.json); with "
                              "--registry a directory that replaces the registry's")
    _add_run_options(certify, "default: certificate strength")
    _add_executor_options(certify)
    certify.set_defaults(handler=_cmd_certify, parser=certify)

    lister = sub.add_parser("list", help="show the registry and its certificate status",
                            description="Show every registry entry with its claim, relation "
                                        "and certificate status (current, stale, missing, "
                                        "inconsistent). Informational: exit 0, unless --check.")
    lister.add_argument("--json", action="store_true", help="machine-readable output")
    lister.add_argument("--check", action="store_true",
                        help="exit 1 when any certificate is stale, missing or inconsistent "
                             "(a CI gate)")
    lister.set_defaults(handler=_cmd_list)

    show = sub.add_parser("show", help="print a certificate",
                          description="Print a certificate readably. CERTIFICATE is a file or "
                                      "a registry entry name (then its status is shown too).")
    show.add_argument("certificate", metavar="CERTIFICATE", help="a certificate file or a "
                                                                 "registry entry name")
    show.add_argument("--target", metavar="TARGET", default=None,
                      help="also say whether the certificate is current for this target")
    show.add_argument("--json", action="store_true", help="print the certificate's JSON")
    show.set_defaults(handler=_cmd_show)

    verify = sub.add_parser(
        "verify", help="check certificates and reproduce their audits",
        description="Check that certificates are consistent (verdict and checks agree, the "
                    "ε lower bound is within the claim, the embedded report matches, the "
                    "configuration meets the certificate minimums) and current (spec and "
                    "implementation hashes), then re-run each recorded audit with its "
                    "recorded configuration and seed: results must be bit-identical with the "
                    "same library versions, or within the stated tolerance (absolute 0.02 "
                    "plus 5% on ε bounds, equal verdict and check statuses) otherwise. A "
                    "certificate's source is rebuilt to re-run it: a target source is "
                    "EXECUTED AS PYTHON CODE. Exit code 0: all verified; 1: any certificate "
                    "stale, missing, inconsistent or not reproduced; 2: usage error.")
    verify.add_argument("certificates", nargs="*", metavar="CERT",
                        help="certificate files to verify")
    verify.add_argument("--registry", nargs="*", metavar="NAME", default=None,
                        help="verify the certificates of these registry entries (all when no "
                             "NAME is given)")
    verify.add_argument("--json", metavar="PATH", default=None,
                        help="write the results as JSON; '-' for stdout")
    verify.add_argument("--quiet", "-q", action="store_true",
                        help="no progress and no readable text (exit code and --json only)")
    verify.set_defaults(handler=_cmd_verify, parser=verify)

    demo = sub.add_parser("demo", help="release a certified registry entry and print its spec",
                          description="Release one output of a registry entry (only if its "
                                      "certificate is current) on synthetic data drawn from "
                                      "its input domain, and print the mechanism's spec.")
    demo.add_argument("name", nargs="?", default="bounded_mean",
                      help="registry entry (default bounded_mean: the mean of 1000 records "
                           "in [0, 1] plus Laplace noise, 1-DP)")
    demo.add_argument("--seed", type=_nonnegative_int, default=0, help="random seed (default 0)")
    demo.set_defaults(handler=_cmd_demo)
    return parser


def _one_line_warning(message: Warning | str, category: type[Warning], filename: str,
                      lineno: int, file: TextIO | None = None, line: str | None = None) -> None:
    text = " ".join(str(message).split())
    print(f"privaudit: warning: {category.__name__}: {text}", file=file or sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, 1, 2 or 3)."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return EXIT_USAGE
    show_warning = warnings.showwarning
    warnings.showwarning = _one_line_warning
    try:
        return int(args.handler(args))
    except PrivauditError as err:
        message = " ".join(str(err).split()) if "\n" not in str(err) else str(err).splitlines()[0]
        print(f"privaudit: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("privaudit: interrupted", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError as err:
        first = str(err).splitlines()[0] if str(err) else "out of memory"
        print(f"privaudit: error: not enough memory for this audit ({first}); lower --samples",
              file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # the reader went away (``privaudit list | head``): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_USAGE
    except Exception as err:  # an unexpected error: still one line, unless debugging
        if os.environ.get("PRIVAUDIT_DEBUG"):
            raise
        first = str(err).splitlines()[0] if str(err) else ""
        print(f"privaudit: error: unexpected {type(err).__name__}: {first} "
              "(set PRIVAUDIT_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_USAGE
    finally:
        warnings.showwarning = show_warning


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
