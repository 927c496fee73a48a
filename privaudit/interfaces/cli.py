"""The ``privaudit`` command line: ``audit``, ``certify``, ``list``, ``show``, ``verify``, ``demo``,
``replay``.

TARGET is ``package.module:name`` or ``path/to/file.py:name`` (:mod:`privaudit.trust.targets`),
executed as Python code.  Exit codes (:mod:`privaudit.interfaces.cli_contract`): 0 no
violation, 1 violation, 2 usage or input error, 3 inconclusive.  This module builds the
parser and runs a command, importing only the standard library, so ``--help`` loads no
numerical package; the commands live in :mod:`privaudit.interfaces._cli_audit`,
:mod:`privaudit.interfaces._cli_certify`, :mod:`privaudit.interfaces._cli_registry`,
:mod:`privaudit.interfaces._cli_replay` and :mod:`privaudit.interfaces._cli_common`.

Details (the synopsis, exit codes, output streams): ``docs/engine_notes.md``,
"privaudit.interfaces.cli".
"""

from __future__ import annotations

# Only the standard library and stdlib-only modules of ours at import: ``--help`` and
# argument errors load no numerical package.  A command's module is imported when it runs.
import argparse
import importlib
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TextIO

from privaudit._version import __version__
from privaudit.execution.options import EXECUTOR_NAMES
from privaudit.interfaces.argument_types import confidence as _confidence
from privaudit.interfaces.argument_types import nonnegative_int as _nonnegative_int
from privaudit.interfaces.argument_types import positive_float as _positive_float
from privaudit.interfaces.argument_types import positive_int as _positive_int
from privaudit.interfaces.argument_types import sample_count as _sample_count
from privaudit.interfaces.cli_contract import EXIT_BROKEN_PIPE, EXIT_OK, EXIT_USAGE
from privaudit.interfaces.cli_contract import EXIT_INCONCLUSIVE as EXIT_INCONCLUSIVE
from privaudit.interfaces.cli_contract import EXIT_VIOLATION as EXIT_VIOLATION
from privaudit.interfaces.cli_contract import (
    REGISTRY_AUDIT_SCHEMA_VERSION as REGISTRY_AUDIT_SCHEMA_VERSION,
)

__all__ = ["main"]

_DESCRIPTION = """\
privaudit: differential privacy with formally stated claims, checked by an auditor.

Black-box testing can refute a privacy claim, never prove one: a passing audit means
that no violation was found at the stated power, not that the mechanism is private.

exit codes: 0 no violation found, 1 violation found (for 'audit --registry' and
'list --check' also: a certificate is stale, missing or inconsistent; for 'verify': a
certificate is not verified), 2 usage or input error, 3 inconclusive (no violation found,
but the audit could not have detected a true ε of --detect-epsilon, by default twice the
claimed ε); 1 takes precedence over 3; when the reader of the output goes away (as in
'privaudit list | head -1') no message, and exit 0 for list, show and --help, 141
for the other commands

A TARGET 'path/to/file.py:name' or 'package.module:name' is imported, that is,
EXECUTED AS PYTHON CODE: name only code you would run yourself.
"""

_TARGET_HELP = (
    "'package.module:name' or 'path/to/file.py:name' naming a mechanism or a "
    "zero-argument factory that returns one; the module or file is EXECUTED AS "
    "PYTHON CODE, so name only code you trust"
)


class _OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


# ----------------------------------------------------------------------------------------
# the parser
# ----------------------------------------------------------------------------------------
def _add_run_options(parser: argparse.ArgumentParser, default_note: str) -> None:
    parser.add_argument(
        "--samples",
        type=_sample_count,
        default=None,
        help=f"outputs per side of each tested pair ({default_note})",
    )
    parser.add_argument(
        "--confidence",
        type=_confidence,
        default=None,
        help=f"family-wise confidence in [0.5, 1) ({default_note})",
    )
    parser.add_argument(
        "--seed",
        type=_nonnegative_int,
        default=None,
        help=f"seed of every random draw ({default_note})",
    )
    parser.add_argument(
        "--detect-epsilon",
        type=_positive_float,
        default=None,
        dest="detect_epsilon",
        help="the true ε the audit must be able to detect (probability 0.9) "
        "for 'no violation' to count; otherwise the verdict is "
        "inconclusive, exit 3 (default: twice the claimed ε)",
    )
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="no progress and no readable text (exit code and --json only)",
    )


def _add_executor_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--executor",
        choices=EXECUTOR_NAMES,
        default="serial",
        help="where the test splits are drawn and counted: in this process "
        "(default), on one thread per core of this process, the pair tests in forked "
        "processes (Linux), or on dask.distributed workers (the extra "
        "privaudit[distributed]; docs/distributed.md); same results",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="with --executor dask: address of a running Dask scheduler "
        "(default: start a local cluster)",
    )
    parser.add_argument(
        "--workers",
        type=_positive_int,
        default=None,
        metavar="N",
        help="with --executor threads or processes: threads, or processes for the "
        "pair tests (default: one per core); with "
        "--executor dask and no --scheduler: worker processes of the local cluster "
        "(default: Dask's choice from the cores)",
    )


def _build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog="privaudit",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"privaudit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_OneLineParser)
    for add in (
        _add_audit,
        _add_certify,
        _add_list,
        _add_show,
        _add_verify,
        _add_demo,
        _add_replay,
    ):
        add(sub)
    return parser


def _add_audit(sub: Any) -> None:
    """``privaudit audit``."""
    audit = sub.add_parser(
        "audit",
        help="audit a mechanism, or every registry entry",
        description="Audit a mechanism's claims against its spec, or audit the registry. "
        "TARGET is imported, that is, EXECUTED AS PYTHON CODE (a file.py:name "
        "target runs that file): name only code you trust. "
        "Exit code 0: no violation found; 1: violation found, or with --registry "
        "any entry's certificate is stale, missing or inconsistent; 2: usage or "
        "input error; 3: inconclusive (no violation found, but the audit could not "
        "have detected a true ε of --detect-epsilon, twice the claim by default; it "
        "says how many --samples would do). With --registry, 1 beats 3.",
    )
    audit.add_argument("target", nargs="?", metavar="TARGET", help=_TARGET_HELP)
    audit.add_argument(
        "--registry",
        nargs="*",
        metavar="NAME",
        default=None,
        help="audit these registry entries (all of them when no NAME is given)",
    )
    audit.add_argument(
        "--strength",
        choices=("ci", "certificate"),
        default="ci",
        help="base configuration: the CI audit (default; for --registry each "
        "entry's audit_config) or the certificate audit",
    )
    _add_run_options(audit, "default: from --strength")
    audit.add_argument(
        "--time-budget",
        type=_positive_float,
        default=None,
        dest="time_budget",
        metavar="SECONDS",
        help="seconds the audit may take (each entry's, with --registry): a "
        "pilot of releases is timed and the configuration shrunk to fit; "
        "the report says what the budget can and cannot detect",
    )
    audit.add_argument(
        "--sequential",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run looks at growing sizes up to --samples, with the error budget spent "
        "over them, and stop at the first that refutes the claim; 'no violation' is "
        "concluded at --samples (docs/sequential_audits.md; default: off)",
    )
    audit.add_argument(
        "--sampler-timeout",
        type=_positive_float,
        default=None,
        dest="sampler_timeout",
        metavar="SECONDS",
        help="seconds one sampler call may take before the audit stops with an input "
        "error (exit 2); default: --time-budget when given, else no limit",
    )
    audit.add_argument(
        "--json",
        metavar="PATH",
        default=None,
        help="write the report as JSON (docs/report_schema.md); '-' for stdout",
    )
    audit.add_argument(
        "--junit-xml",
        metavar="PATH",
        default=None,
        dest="junit_xml",
        help="write a JUnit XML report for CI: one testcase per entry (or the TARGET); "
        "failure: violation or certificate stale, missing or inconsistent; error: input "
        "error; skipped: inconclusive (docs/getting-started/ci.md)",
    )
    audit.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="with --registry: a readable paragraph per entry and a table, instead of "
        "one line per entry",
    )
    _add_executor_options(audit)
    audit.add_argument(
        "--plot",
        metavar="PATH",
        default=None,
        help="save the trade-off plot as PNG (with --registry: a directory)",
    )
    audit.add_argument(
        "--html",
        metavar="PATH",
        default=None,
        help="write an HTML report (with --registry: a directory)",
    )
    audit.set_defaults(handler="audit", parser=audit)


def _add_certify(sub: Any) -> None:
    """``privaudit certify``."""
    certify = sub.add_parser(
        "certify",
        help="audit at certificate strength and write a certificate",
        description="Audit at certificate strength and write (or refresh) a certificate. "
        "A mechanism whose audit finds a violation (exit 1) or is inconclusive "
        "(exit 3) is not certified. "
        "'privaudit certify --registry' regenerates the certificates of the "
        "registry, all entries when no NAME is given.",
    )
    certify.add_argument("target", nargs="?", metavar="TARGET", help=_TARGET_HELP)
    certify.add_argument(
        "--registry",
        nargs="*",
        metavar="NAME",
        default=None,
        help="certify these registry entries (all when no NAME is given) and "
        "write their certificates where the registry reads them",
    )
    certify.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        default=None,
        help="certificate file (default ./NAME.certificate.json); with "
        "--registry a directory that replaces the registry's",
    )
    _add_run_options(certify, "default: certificate strength")
    _add_executor_options(certify)
    certify.set_defaults(handler="certify", parser=certify)


def _add_list(sub: Any) -> None:
    """``privaudit list``."""
    lister = sub.add_parser(
        "list",
        help="show the registry and its certificate status",
        description="Show every registry entry with its claim, relation "
        "and certificate status (current, stale, missing, "
        "inconsistent). Informational: exit 0, unless --check.",
    )
    lister.add_argument("--json", action="store_true", help="machine-readable output")
    lister.add_argument(
        "--check",
        action="store_true",
        help="exit 1 when any certificate is stale, missing or inconsistent (a CI gate)",
    )
    lister.set_defaults(handler="list")


def _add_show(sub: Any) -> None:
    """``privaudit show``."""
    show = sub.add_parser(
        "show",
        help="print a certificate",
        description="Print a certificate readably. CERTIFICATE is a file or "
        "a registry entry name (then its status is shown too).",
    )
    show.add_argument(
        "certificate", metavar="CERTIFICATE", help="a certificate file or a registry entry name"
    )
    show.add_argument(
        "--target",
        metavar="TARGET",
        default=None,
        help="also say whether the certificate is current for this target",
    )
    show.add_argument("--json", action="store_true", help="print the certificate's JSON")
    show.set_defaults(handler="show")


def _add_verify(sub: Any) -> None:
    """``privaudit verify``."""
    verify = sub.add_parser(
        "verify",
        help="check certificates and reproduce their audits",
        description="Check that certificates are consistent (verdict and checks agree, the "
        "ε lower bound is within the claim, the embedded report matches, the "
        "configuration meets the certificate minimums) and current (spec and "
        "implementation hashes), then re-run each recorded audit with its "
        "recorded configuration and seed: results must be bit-identical with the "
        "same library versions, or within the stated tolerance (absolute 0.02 "
        "plus 5% on ε bounds, equal verdict and check statuses) otherwise. A "
        "certificate's source is rebuilt to re-run it: a target source is "
        "EXECUTED AS PYTHON CODE. Exit code 0: all verified; 1: any certificate "
        "stale, missing, inconsistent or not reproduced; 2: usage error.",
    )
    verify.add_argument(
        "certificates", nargs="*", metavar="CERT", help="certificate files to verify"
    )
    verify.add_argument(
        "--registry",
        nargs="*",
        metavar="NAME",
        default=None,
        help="verify the certificates of these registry entries (all when no NAME is given)",
    )
    verify.add_argument(
        "--json", metavar="PATH", default=None, help="write the results as JSON; '-' for stdout"
    )
    verify.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="no progress and no readable text (exit code and --json only)",
    )
    verify.set_defaults(handler="verify", parser=verify)


def _add_demo(sub: Any) -> None:
    """``privaudit demo``."""
    demo = sub.add_parser(
        "demo",
        help="release a certified registry entry and print its spec",
        description="Release one output of a registry entry (only if its "
        "certificate is current) on synthetic data drawn from "
        "its input domain, and print the mechanism's spec.",
    )
    demo.add_argument(
        "name",
        nargs="?",
        default="bounded_mean",
        help="registry entry (default bounded_mean: the mean of 1000 records "
        "in [0, 1] plus Laplace noise, 1-DP)",
    )
    demo.add_argument("--seed", type=_nonnegative_int, default=0, help="random seed (default 0)")
    demo.set_defaults(handler="demo")


def _add_replay(sub: Any) -> None:
    """``privaudit replay``."""
    replay = sub.add_parser(
        "replay",
        help="replay pipelines with their noise frozen on neighbouring inputs",
        description="Grey-box replay (docs/replay.md): run each pipeline on its input, "
        "then on the relation's neighbours with every primitive's noise frozen, and check "
        "each primitive call's declared sensitivity, the control flow, the free randomness "
        "and the release. TARGET is imported, that is, EXECUTED AS PYTHON CODE: name only "
        "code you trust. Prints one line per pipeline. Exit code 0: no finding; 1: any "
        "finding (a deterministic counterexample, with its call site); 2: usage or input "
        "error (a pipeline that raises included).",
    )
    replay.add_argument(
        "targets",
        nargs="+",
        metavar="TARGET",
        help="'package.module:name' or 'path/to/file.py:name' naming a ReplayTarget "
        "(privaudit.auditing.replay.target) or a zero-argument callable that returns one "
        "or an iterable of them; EXECUTED AS PYTHON CODE",
    )
    replay.add_argument(
        "--seed", type=_nonnegative_int, default=0, help="seed of the recorded noise (default 0)"
    )
    replay.add_argument(
        "--random-neighbours",
        type=_nonnegative_int,
        default=None,
        dest="random_neighbours",
        metavar="K",
        help="random neighbours replayed per pipeline, after the relation's extreme moves "
        "(default: each target's own, 16 unless it says otherwise)",
    )
    replay.add_argument(
        "--json", metavar="PATH", default=None, help="write the reports as JSON; '-' for stdout"
    )
    replay.set_defaults(handler="replay", parser=replay)


#: Each command's module and function, imported when the command runs.
_HANDLERS = {
    "audit": ("_cli_audit", "_cmd_audit"),
    "certify": ("_cli_certify", "_cmd_certify"),
    "list": ("_cli_registry", "_cmd_list"),
    "show": ("_cli_registry", "_cmd_show"),
    "verify": ("_cli_registry", "_cmd_verify"),
    "demo": ("_cli_registry", "_cmd_demo"),
    "replay": ("_cli_replay", "_cmd_replay"),
}


def _handler(command: str) -> Callable[[argparse.Namespace], int]:
    module, name = _HANDLERS[command]
    found: Callable[[argparse.Namespace], int] = getattr(
        importlib.import_module(f"{__package__}.{module}"), name
    )
    return found


def _one_line_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    text = " ".join(str(message).split())
    print(f"privaudit: warning: {category.__name__}: {text}", file=file or sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, 1, 2 or 3; when the reader of the
    output went away, as in ``privaudit list | head -1``: 0 for a listing, else 141)."""
    try:
        try:
            return _run(argv)
        finally:
            sys.stdout.flush()  # a closed pipe shows here, not as a message at exit
    except BrokenPipeError:
        # the reader went away: stop quietly, as the Python documentation recommends
        # (https://docs.python.org/3/library/signal.html#note-on-sigpipe): what is still
        # buffered for stdout goes to /dev/null, so the flush at exit cannot fail again
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # stdout is not a file descriptor (captured)
            pass
        return EXIT_OK if _is_listing(argv) else EXIT_BROKEN_PIPE


def _is_listing(argv: Sequence[str] | None) -> bool:
    """Whether the command only lists (``list``, ``show``, ``--help``): a reader that stops
    early has what it wanted, so a closed pipe is no failure."""
    words = list(sys.argv[1:] if argv is None else argv)
    command = next((w for w in words if not w.startswith("-")), None)
    return command in ("list", "show") or "-h" in words or "--help" in words


def _run(argv: Sequence[str] | None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return EXIT_USAGE
    from privaudit.spec.errors import PrivauditError  # the numerical stack, from here on

    show_warning = warnings.showwarning
    warnings.showwarning = _one_line_warning
    try:
        return int(_handler(args.handler)(args))
    except BrokenPipeError:
        raise
    except PrivauditError as err:
        message = " ".join(str(err).split()) if "\n" not in str(err) else str(err).splitlines()[0]
        print(f"privaudit: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("privaudit: interrupted", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError as err:
        first = str(err).splitlines()[0] if str(err) else "out of memory"
        print(
            f"privaudit: error: not enough memory for this audit ({first}); lower --samples",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except Exception as err:  # an unexpected error: still one line, unless debugging
        if os.environ.get("PRIVAUDIT_DEBUG"):
            raise
        first = str(err).splitlines()[0] if str(err) else ""
        print(
            f"privaudit: error: unexpected {type(err).__name__}: {first} "
            "(set PRIVAUDIT_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    finally:
        warnings.showwarning = show_warning


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
