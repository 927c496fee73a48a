"""``privaudit certify``: audit at certificate strength and write a certificate for one
TARGET or for registry entries; a violation or an inconclusive audit is refused
(:mod:`privaudit.interfaces.cli`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from privaudit.auditing.outcome.texts import format_epsilon
from privaudit.interfaces._cli_common import (
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    EXIT_VIOLATION,
    _check_executor_options,
    _executor,
    _exit_code,
    _Output,
    _overrides,
    _shown,
    _table,
    _target_or_registry,
)
from privaudit.spec.errors import CertificateError

__all__: list[str] = []


def _cmd_certify(args: argparse.Namespace) -> int:
    _target_or_registry(args, "certify")
    _check_executor_options(args)
    with _executor(args) as run:
        args.run = run
        if args.registry is not None:
            return _certify_registry(args)
        return _certify_target(args)


def _certify_one(
    mech: Any,
    config: Any,
    pairs: Sequence[Any],
    notes: Sequence[str],
    out: _Output,
    label: str,
    *,
    factory: Callable[[], Any],
    source: str,
    executor: Any = None,
) -> tuple[Any, Any]:
    """(certificate or None, report); prints the refusal when the audit found a violation
    or is inconclusive."""
    from privaudit.auditing.auditor import audit
    from privaudit.auditing.config import below_certificate_minimums
    from privaudit.auditing.outcome.verdicts import inconclusive_text
    from privaudit.trust.certificates import Certificate, implementation_of
    from privaudit.trust.reproducibility import check_generator_determinism, non_reproducible_note

    weak = below_certificate_minimums(config)
    if weak:
        raise CertificateError(
            f"refusing to certify {label!r}: the configuration is below the "
            f"certificate minimums ({'; '.join(weak)})"
        )
    found = implementation_of(mech, factory=factory)  # the code as it is when audited
    determinism = check_generator_determinism(mech, seed=config.seed)
    if not determinism.reproducible:
        notes = (*notes, non_reproducible_note(determinism))
        print(f"privaudit: {label!r} is {non_reproducible_note(determinism)}", file=sys.stderr)
    report = audit(
        mech, config=config, pairs=pairs, progress=out.progress(label), executor=executor
    )
    if report.violated:
        out.say(report.summary())
        names = ", ".join(c.name for c in report.violations)
        print(
            f"privaudit: refused to certify {label!r}: the audit found a violation ({names})",
            file=sys.stderr,
        )
        return None, report
    if report.inconclusive:
        out.say(report.summary())
        print(
            f"privaudit: refused to certify {label!r}: the audit is inconclusive "
            f"({inconclusive_text(report.power)})",
            file=sys.stderr,
        )
        return None, report
    cert = Certificate.from_report(
        mech,
        report,
        explicit_pairs=len(pairs),
        notes=notes,
        implementation=found,
        source=source,
        reproducible=determinism.reproducible,
    )
    return cert, report


def _certify_target(args: argparse.Namespace) -> int:
    from privaudit.auditing.config import CERTIFICATE_STRENGTH
    from privaudit.trust.targets import target_factory

    out = _Output(args)
    factory = target_factory(args.target)
    mech = factory()
    cert, report = _certify_one(
        mech,
        CERTIFICATE_STRENGTH.merged(_overrides(args)),
        (),
        (),
        out,
        mech.name,
        factory=factory,
        source=args.target,
        executor=args.run,
    )
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
        cert, report = _certify_one(
            item.create(),
            config,
            item.pairs,
            item.notes,
            out,
            item.name,
            factory=item.create,
            source=registry.registry_source(item.name),
            executor=args.run,
        )
        seconds = time.perf_counter() - started
        if cert is None:
            refused.append((item.name, report))
            rows.append(
                [
                    item.name,
                    str(config.samples),
                    format_epsilon(report.epsilon_lower_bound),
                    f"REFUSED ({report.verdict})",
                    f"{seconds:.1f}",
                    "-",
                ]
            )
            continue
        path = (
            item.certificate_path
            if args.output is None
            else Path(args.output) / f"{item.name}.json"
        )
        cert.write(path)
        rows.append(
            [
                item.name,
                str(config.samples),
                format_epsilon(cert.epsilon_lower_bound),
                "certified",
                f"{seconds:.1f}",
                _shown(path),
            ]
        )
        out.say(f"certified {item.name} in {seconds:.1f} s -> {_shown(path)}")
    out.say()
    out.say(
        _table(rows, ["entry", "samples", "ε lower bound", "result", "time (s)", "certificate"])
    )
    if refused:
        out.say(f"refused {len(refused)} of {len(found)}: {', '.join(name for name, _ in refused)}")
        return EXIT_VIOLATION if any(r.violated for _, r in refused) else EXIT_INCONCLUSIVE
    return EXIT_OK
