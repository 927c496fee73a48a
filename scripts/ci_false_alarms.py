"""Suite-level false alarms of CI audits, with and without the confirmation stage.

Slow tier (``docs/ci_false_alarms.md``).  Two tables:

1. **False alarms.**  Every correct control mechanism of :mod:`privaudit.suites.broken`
   (Laplace, analytic Gaussian, randomized response, discrete Laplace: true ε = claim) is
   audited at :data:`privaudit.CI_STRENGTH` with seeds ``0 … seeds − 1``, once through
   the two-stage audit of :mod:`privaudit.auditing.confirmation` (the pytest plugin's default:
   screen, then confirmation at level 0.01/50 on an independent stream with 4× the
   samples).  A *screen alarm* is a violation of the screen (what a test failed before
   the confirmation stage); a *failure* is a confirmed one (what fails a test now).  The
   audits are cut into consecutive suites of 50 and the share of suites with at least
   one alarm / failure is shown, with one-sided 95 % Clopper–Pearson upper bounds on the
   per-audit rates and the suite rate they imply, ``1 − (1 − p̂_upper)^50``.
2. **Catch rate.**  Every broken case of :mod:`privaudit.suites` whose violation the
   quality tier requires at CI strength (``tests/quality/test_benchmark_suites.py``,
   ``MUST_DETECT``) is audited through the two-stage audit with seeds
   ``0 … catch_seeds − 1``: the share caught by the screen and the share confirmed.

Usage::

    python scripts/ci_false_alarms.py [seeds] [catch_seeds]

(defaults 1000 and 5: 4000 audits of correct mechanisms, 80 suites of 50, and 105 audits
of broken ones).
"""

from __future__ import annotations

import math
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout: use its packages
    sys.path.insert(0, str(ROOT))

from privaudit import CI_STRENGTH
from privaudit.auditing import ConfirmationPolicy, screened_audit
from privaudit.statistics import clopper_pearson
from privaudit.suites import CI_MUST_DETECT, all_cases, control_cases

SUITE = 50

#: The broken cases the quality tier must catch at CI strength.
MUST_DETECT = sorted(CI_MUST_DETECT)


def _case_id(case) -> str:
    if case.name.startswith("statdp."):
        return f"{case.name}[eps0={case.claimed_epsilon:g}]"
    return case.name


def _upper(k: int, n: int) -> float:
    """One-sided 95 % Clopper–Pearson upper bound (the two-sided 90 % interval's top)."""
    return clopper_pearson(k, n, 0.90).high


def false_alarms(seeds: int, policy: ConfirmationPolicy) -> None:
    print("| mechanism | audits | screen alarms | failures (confirmed) |")
    print("|---|---|---|---|")
    screen_flags: list[bool] = []
    final_flags: list[bool] = []
    for case in control_cases():
        alarms = failures = 0
        for seed in range(seeds):
            run = screened_audit(
                case.mechanism, config=CI_STRENGTH, pairs=case.input_pairs, policy=policy, seed=seed
            )
            screen = run.screening.violated or run.screening.inconclusive
            final = run.final.violated or run.final.inconclusive
            alarms += screen
            failures += final
            screen_flags.append(screen)
            final_flags.append(final)
        print(f"| {case.name} | {seeds} | {alarms} | {failures} |", flush=True)
    n = len(final_flags)
    suites = n // SUITE
    print()
    print(
        f"| stage | audits | per-audit rate (95 % upper) | suites of {SUITE} | suites "
        f"failed | implied suite rate (95 % upper) |"
    )
    print("|---|---|---|---|---|---|")
    for label, flags in (
        ("screen only (before)", screen_flags),
        ("screen + confirmation (now)", final_flags),
    ):
        k = sum(flags)
        up = _upper(k, n)
        failed = sum(any(flags[i * SUITE : (i + 1) * SUITE]) for i in range(suites))
        implied = 1.0 - (1.0 - up) ** SUITE
        print(
            f"| {label} | {n} | {k / n:.2%} ({up:.2%}) | {suites} | {failed} | {implied:.1%} |",
            flush=True,
        )
    screen_up = _upper(sum(screen_flags), n)
    confirmed = sum(s and f for s, f in zip(screen_flags, final_flags, strict=True))
    per_test = screen_up * policy.alpha
    print(
        f"\nScreen alarms confirmed: {confirmed} of {sum(screen_flags)}.  By construction a "
        f"test fails only when the confirmation (level {policy.alpha:.2g}, independent of "
        f"the screen) errs too: per audit ≤ {screen_up:.2%} × {policy.alpha:.2g} = "
        f"{per_test:.2g} (measured screen rate, 95 % upper bound, times the confirmation's "
        f"level), so a suite of {SUITE} fails with probability ≤ {SUITE * per_test:.2g} "
        f"(≤ {policy.session_alpha:g} without using the screen)."
    )


def catch_rate(seeds: int, policy: ConfirmationPolicy) -> None:
    cases = {_case_id(c): c for c in all_cases()}
    print("| broken case | audits | caught by the screen | confirmed (fails the test) |")
    print("|---|---|---|---|")
    total_screen = total_final = total = 0
    for name in MUST_DETECT:
        case = cases[name]
        screen = final = 0
        for seed in range(seeds):
            run = screened_audit(
                case.mechanism, config=CI_STRENGTH, pairs=case.input_pairs, policy=policy, seed=seed
            )
            screen += run.screening.violated
            final += run.final.violated
        total_screen += screen
        total_final += final
        total += seeds
        print(f"| {name} | {seeds} | {screen} | {final} |", flush=True)
    print(
        f"| all | {total} | {total_screen} ({total_screen / total:.1%}) | {total_final} "
        f"({total_final / total:.1%}) |"
    )


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    catch_seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    policy = ConfirmationPolicy()
    start = time.perf_counter()
    print(
        f"CI_STRENGTH: {CI_STRENGTH.samples:,} samples per side, confidence "
        f"{CI_STRENGTH.confidence:g}; confirmation: {policy.sample_factor}x samples at level "
        f"{policy.session_alpha:g}/{policy.suite_size} = {policy.alpha:.2g}\n"
    )
    false_alarms(seeds, policy)
    if catch_seeds > 0:
        print()
        catch_rate(catch_seeds, policy)
    elapsed = time.perf_counter() - start
    print(f"\n{math.floor(elapsed)} s (python scripts/ci_false_alarms.py {seeds} {catch_seeds})")


if __name__ == "__main__":
    main()
