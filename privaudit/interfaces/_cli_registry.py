"""The commands that read the registry and its certificates (:mod:`privaudit.interfaces.cli`):
``privaudit list`` (entries and certificate states), ``show`` (one certificate), ``verify``
(check certificates and reproduce their audits) and ``demo`` (one release of a certified
entry).
"""

from __future__ import annotations

import argparse
import json
import textwrap
from pathlib import Path
from typing import Any

from privaudit.auditing.outcome.texts import (
    claim_text,
    format_epsilon,
    guarantee_text,
    relation_text,
)
from privaudit.interfaces._cli_common import (
    _FAILING_STATES,
    EXIT_OK,
    EXIT_USAGE,
    EXIT_VIOLATION,
    _emit_json,
    _Output,
    _shown,
    _table,
)
from privaudit.spec.errors import AuditError, CertificateError, PrivauditError, RegistryError

__all__: list[str] = []


def _cmd_list(args: argparse.Namespace) -> int:
    from privaudit.trust import registry

    rows: list[list[str]] = []
    records: list[dict[str, Any]] = []
    failed = False
    versions: list[str] = []
    for item in registry.entries():
        try:
            mech = item.create()
            state = registry.status_for(item, mech)
        except PrivauditError as err:
            failed = True
            message = str(err).splitlines()[0]
            rows.append([item.name, "?", "?", f"error: {message}"])
            records.append(
                {
                    "name": item.name,
                    "description": item.description,
                    "origin": item.origin,
                    "error": message,
                }
            )
            continue
        spec = mech.spec
        claim, relation = guarantee_text(spec), relation_text(spec)
        rows.append([item.name, claim, relation, state.state])
        records.append(
            {
                "name": item.name,
                "description": item.description,
                "origin": item.origin,
                "mechanism": spec.name,
                "claim": claim,
                "guarantee": spec.guarantee.model_dump(mode="json"),
                "relation": relation,
                "spec_hash": spec.content_hash,
                "certificate": {
                    "state": state.state,
                    "reason": state.reason,
                    "path": str(item.certificate_path),
                    "version_differences": list(state.version_differences),
                },
            }
        )
        versions.extend(f"{item.name}: {d}" for d in state.version_differences)
    stale = [r[0] for r in rows if r[3] in _FAILING_STATES]
    if args.json:
        print(json.dumps({"entries": records, "certificates_ok": not stale}, indent=2))
    else:
        print(_table(rows, ["name", "claim", "relation", "certificate"]))
        if versions:
            print(
                "\nThird-party versions differ from the certifying machine's (reported only: "
                "the certificates stay current):"
            )
            print("\n".join(f"  {line}" for line in versions))
        if stale:
            print(
                f"\n{len(stale)} entries need a certificate: privaudit certify --registry "
                + " ".join(stale)
            )
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
            raise CertificateError(
                f"registry entry {what!r} has no certificate at "
                f"{item.certificate_path}; create it with: "
                f"{registry.certify_command(what)}"
            )
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
                results.append(
                    VerificationResult(
                        name=item.name,
                        path=str(item.certificate_path),
                        state="missing",
                        problems=(
                            f"no certificate at {_shown(item.certificate_path)}; create it "
                            f"with: {registry.certify_command(item.name)}",
                        ),
                    )
                )
            else:
                results.append(
                    verify_path(
                        item.certificate_path,
                        name=item.name,
                        mechanism=item.create(),
                        pairs=item.pairs,
                        progress=out.progress(item.name),
                    )
                )
            out.say(textwrap.fill(results[-1].summary(), width=92, subsequent_indent="  "))
    else:
        for path in args.certificates:
            results.append(verify_path(path, progress=out.progress(str(path))))
            out.say(textwrap.fill(results[-1].summary(), width=92, subsequent_indent="  "))
    rows = [
        [
            r.name,
            r.state,
            format_epsilon(r.epsilon_lower_bound_recorded)
            if r.epsilon_lower_bound_recorded is not None
            else "?",
            format_epsilon(r.epsilon_lower_bound_rerun)
            if r.epsilon_lower_bound_rerun is not None
            else "-",
            r.mode,
            f"{r.seconds:.1f}",
        ]
        for r in results
    ]
    out.say()
    out.say(
        _table(
            rows, ["certificate", "state", "ε lb recorded", "ε lb re-run", "compared", "time (s)"]
        )
    )
    differences = sorted({d for r in results for d in r.version_differences})
    if differences:
        out.say(
            textwrap.fill(
                "Versions differ from the certifying machine's ("
                + "; ".join(differences)
                + "): re-runs are compared within the tolerance of docs/trust.md, not bit "
                "for bit.",
                width=92,
            )
        )
    bad = [r.name for r in results if not r.verified]
    out.say(
        f"{len(results) - len(bad)} of {len(results)} certificates verified"
        + (f"; NOT verified: {', '.join(bad)}." if bad else ".")
    )
    out.say(
        textwrap.fill(
            "A certificate proves reproducibility and code identity: this spec "
            "and this code, audited with the recorded configuration and seed, "
            "give the recorded results. It is not a signature and not a proof "
            "of privacy.",
            width=92,
        )
    )
    if args.json:
        payload = {"verified": not bad, "results": [r.model_dump(mode="json") for r in results]}
        _emit_json(args.json, json.dumps(payload, indent=2), "the JSON result")
    return EXIT_VIOLATION if bad else EXIT_OK


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
