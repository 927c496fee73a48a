"""The ``privaudit`` command line.

Exit codes: 0 success (no violation found), 1 violation found, 2 usage or input error.
Errors print one line on stderr and never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from spec.errors import PrivauditError

from ._version import __version__

__all__ = ["main"]

EXIT_OK = 0
EXIT_VIOLATION = 1
EXIT_USAGE = 2

_DESCRIPTION = """\
privaudit: differential privacy with formally stated claims, checked by an auditor.

Black-box testing can refute a privacy claim, never prove one: a passing audit means
that no violation was found at the stated power, not that the mechanism is private.
"""


class _OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _cmd_demo(args: argparse.Namespace) -> int:
    from estimators import private_bounded_mean

    import numpy as np

    rng = np.random.default_rng(args.seed)
    data = rng.beta(2.0, 5.0, size=args.n)
    result = private_bounded_mean(data, lower=0.0, upper=1.0, epsilon=args.epsilon, rng=rng)
    print("privaudit demo: a private mean of synthetic data in [0, 1]")
    print(f"  n = {args.n}, epsilon = {args.epsilon:g}, seed = {args.seed}")
    print(f"  non-private mean : {data.mean():.6f}")
    print(f"  private release  : {result.estimate:.6f}")
    print(f"  noise std        : {result.noise_std:.6f}")
    print()
    print("The mechanism's spec (its claims):")
    print(result.spec.describe())
    return EXIT_OK


def _build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(prog="privaudit", description=_DESCRIPTION,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"privaudit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_OneLineParser)
    demo = sub.add_parser("demo", help="release a private statistic and print its spec",
                          description="Release a private mean of synthetic data and print the "
                                      "mechanism's spec.")
    demo.add_argument("--n", type=_positive_int, default=1000, help="sample size (default 1000)")
    demo.add_argument("--epsilon", type=_positive_float, default=1.0,
                      help="privacy parameter (default 1.0)")
    demo.add_argument("--seed", type=_nonnegative_int, default=0, help="random seed (default 0)")
    demo.set_defaults(handler=_cmd_demo)
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _nonnegative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (value > 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a finite positive number, got {text!r}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, 1 or 2)."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.handler(args))
    except PrivauditError as err:
        print(f"privaudit: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("privaudit: interrupted", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
