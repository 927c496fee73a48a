"""Regenerate ``docs/dpsgd_audit.md``: the shuffling gap audited black-box, one-run audits.

Usage::

    PYTHONPATH=$PWD python3 scripts/dpsgd_audit.py                  # full: 10^5 per side
    PYTHONPATH=$PWD python3 scripts/dpsgd_audit.py --samples 20000 --runs 50 --out /tmp/x.md

Section 2 audits, at each setting of ``privaudit.suites.dpsgd.DPSGD_GAP_SETTINGS``, the
shuffled ABLQ declared with the Poisson accountant's ε (broken) and the Poisson ABLQ
(control), with no pairs given, and tabulates the auditor's ε lower bound beside the
Poisson accountant's ε, the honest no-amplification bound and the paper's lower bound
for shuffling (``mechanisms.dpsgd.shuffle_lower_bound``).  Section 3 validates the one-run
bound (``privaudit.auditing.one_run.audit``) on m independent Laplace and Gaussian coordinates over
seeded runs and applies it to the ABLQ and logistic DP-SGD canaries.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
from scipy import stats
from scipy.special import log_ndtr

from privaudit import AuditConfig, audit
from privaudit.auditing.one_run import (
    ablq_canaries,
    gaussian_canaries,
    gaussian_tradeoff_estimate,
    laplace_canaries,
    logistic_canaries,
    one_run_audit,
    one_run_epsilon,
)
from privaudit.mechanisms.dpsgd import (
    ABLQMechanism,
    LogisticDPSGD,
    logistic_data,
    partition_epsilon,
    poisson_epsilon,
    shuffle_lower_bound,
)
from privaudit.spec import GaussianDP
from privaudit.suites import DPSGD_DELTA, DPSGD_GAP_SETTINGS, shuffle_as_poisson

DOC = Path(__file__).resolve().parents[1] / "docs" / "dpsgd_audit.md"

TEXT = """\
# DP-SGD's batch sampling, audited

Regenerate with `{command}` (it writes this file; the audits of §2 take
minutes each on an idle 2-core machine, about ten on a loaded one).  Code:
`mechanisms/dpsgd/`, `privaudit/suites/dpsgd.py`, `privaudit/auditing/one_run/audit.py`,
`privaudit/auditing/one_run/canaries.py`, `privaudit/auditing/one_run/fdp.py`,
`privaudit/auditing/one_run/gaussian_tradeoff.py`, `privaudit/auditing/time_budget.py`,
`mechanisms/dpsgd/opacus_adapter.py`.  Sections can be recomputed alone with
`--only NAME,…` (the others are copied from the existing file).

**In the registry.**  Five entries, one epoch each at σ = 4 and δ = 10⁻⁵, declared with
the claim their accountant proves (`privaudit/trust/builtin_registry.py`,
`_register_dpsgd`).  A certificate needs a conclusive audit, one that could detect a true
ε of twice the claim; at σ = 1 the claims of shuffling, balls-in-bins and the logistic
loop (ε ≈ 6.5–10) were too large for any event at 10⁶ outputs per side to show twice
the claim, so the registered settings use σ = 4, where the claims are 0.57–1.99.  The
certificates (10⁶ outputs per side, confidence 0.999, the pair search at the certificate
minimums: 8 candidates, 2 pairs tested plus near ties; regenerate this table with
`--only registry_table` after `privaudit certify --registry`):

{registry_table}

The shuffling-gap settings of §2 (T = 50, σ = 0.8 and 1) stay in the slow tier
(`privaudit.suites.dpsgd`), and "shuffling accounted as Poisson" in the broken suite.

## 1. The mechanisms, their relation and their claims

**ABLQ.**  Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang ("How Private are DP-SGD
Implementations?", ICML 2024, §2) analyse DP-SGD through the adaptive batch linear
queries mechanism: for t = 1..T a batch S_t is drawn and
g_t = Σ_{{i∈S_t}} clip_C(ψ_t(x_i)) + N(0, σ²C²) is released; DP-SGD is a post-processing of
it.  `ABLQMechanism` implements it vectorised over runs, with one-dimensional records in
[−2C, 2C] (so that clipping to [−C, C] is exercised; vector records, clipped in L2, for the
one-run canaries) and three batch samplers: Poisson subsampling (rate q = b/n per step),
shuffling (a random permutation per epoch cut into n/b batches of exactly b) and
balls-in-bins (each example into a uniform one of the n/b batches of each epoch; Chua et
al., "Scalable DP-SGD", NeurIPS 2024).  `LogisticDPSGD` is a real training loop (Abadi et
al., CCS 2016, Algorithm 1): per-example logistic-loss gradients, clipped to L2 norm C,
summed over the batch, N(0, σ²C²I) added, θ ← θ − η·g/b; it releases the trajectory
θ_1..θ_T (a post-processing of the noisy gradients), on data from `logistic_data`.

**Relation: substitute-one.**  Shuffling into batches of a fixed size b needs a public
n, so the relation is substitute-one on datasets of public size n (add/remove-one would
change the number of batches).  The paper states its results under "zero-out" adjacency
(one example replaced by a special example whose gradient is 0); every zero-out pair is
a substitution pair here (0 is in the record domain), so our claims are the stronger
ones, and the worst substitution (+C against −C) moves one batch sum by 2C.

**Claims** (`mechanisms/dpsgd/accounting.py`), each an (ε, δ = 1e-5) claim:

* *Poisson*: the privacy-loss distribution of the Poisson-subsampled Gaussian under
  replacement, q·N(−C, σ²C²) + (1−q)·N(0, σ²C²) against q·N(C, σ²C²) + (1−q)·N(0, σ²C²)
  (dp_accounting's `REPLACE_ONE`, the relation above; Zhu, Dong & Wang, AISTATS 2022),
  composed over T steps (pessimistic discretisation, grid 10⁻³, plus the project's float
  margin).  Check: at q = 1 it equals the Gaussian mechanism of sensitivity 2C (unit test).
* *Shuffling and balls-in-bins, no amplification*: in every epoch each example is in
  exactly one batch.  Couple the two runs on the same batch assignment: the outputs then
  differ in one step only, by at most 2C, also when later queries adapt to earlier
  answers, so each epoch is (2/σ)-GDP given the assignment, hence also as a mixture
  (joint convexity), and E epochs are (2√E/σ)-GDP (Dong, Roth & Su 2022, Cor. 3.3).
* *Broken* (`privaudit/suites/dpsgd.py`): shuffled batches declared with the Poisson
  accountant's ε — the common practice the paper warns against (spec marked unproven).

Registry entries (not certified in this branch): `dpsgd.ablq.poisson`,
`dpsgd.ablq.shuffle`, `dpsgd.ablq.balls_in_bins` (n = T = 20, b = 1, σ = 1) and
`dpsgd.logistic.poisson`, `dpsgd.logistic.shuffle` (n = 10, b = 2, T = 10, d = 2, σ = 1).

## 2. The shuffling gap, found black-box

**The paper's pair and its bound** (`mechanisms/dpsgd/lower_bounds.py`).  One epoch of
S = n/b shuffled batches.  In x every record contributes −C except one, which contributes
+C; x′ replaces it by −C.  Every batch of x′ sums to −bC; in x the batch holding the
special record sums to (2 − b)C, at a uniformly random step.  In units of C, after removing
the known −b:

P = (1/S) Σ_t N(2e_t, σ²I_S)  (from x),   Q = N(0, σ²I_S)  (from x′).

The paper's test is the largest batch answer M = max_t Y_t:
P[M ≥ τ] = 1 − Φ((τ−2)/σ)·Φ(τ/σ)^(S−1) and Q[M ≥ τ] = 1 − Φ(τ/σ)^S, so every τ gives
ε(δ) ≥ ln((P[M ≥ τ] − δ)/Q[M ≥ τ]); the reverse direction uses {{M < τ}}.  We maximise over
a grid of τ.  The pair in which the other records contribute 0 (the differing one +C
against −C) is weaker: both sides are then mixtures over the position, and the same test
gives 3.51 instead of 10.90 at σ = 0.8, T = 10, δ = 10⁻⁵.  Setting the other records to −C,
the same value as the replacement, makes x′'s batches all identical: that is the pair to
use, and it is the pair the relation's own moves produce (below).

**No pairs given.**  The auditor's pairs come from the relation's moves only: the
dataset extremes of the domain (all records at −2C, one at +2C, …) and local search.
The relation needed no change: its extreme datasets and substitutions already contain
the paper's pair, and the search reported it as the worst pair at both settings (x all at
−2C, y the same with one record at +2C, found by `local_search`).  What the auditor did
need is an event family: no per-coordinate, naive-Bayes or linear score detects a shift
of one coordinate at an unknown position, so the vector families of
`privaudit/auditing/distinguish/event_candidates.py` gained half-lines of the largest and smallest
coordinate (`OrderStatistic`), the shape of the paper's test (black-box outputs only:
declared-density and discrete outputs are unaffected).  (Measured once while
developing, seed 1, 10⁵ per side, not regenerated here: at σ = 1, T = 10 (claim 3.43) the
auditor found ε ≥ 2.55 with a naive-Bayes event before, 2.75 with the max event after;
neither refutes that claim, which is why the settings below have T = 50.)

**Settings.**  One epoch, T = n = 50 batches of one example, δ = 10⁻⁵, where the
Poisson accountant's ε is small while the shuffled mechanism's is not (the gap grows with
T and shrinks with σ, as in the paper's figures).  {samples} outputs per side,
confidence 0.95, seed 0, no pairs:

{shuffle_table}

"max-event ε attainable at N" is the best bound any threshold of the max event could give
with N outputs per side at the expected counts (Clopper–Pearson at 0.025 per side): it is
the ceiling of the auditor with this event family and this N.

**Why the auditor's bound stays below the paper's.**  The paper's bound is attained at a
threshold where P[S] is a few times δ (≈ 3·10⁻⁵) and Q[S] ≈ 10⁻⁹: certifying it needs
billions of outputs per side.  With N = 10⁵ an event must hold tens of outputs of
M(x′) to bound Q[S] at all, and on such events the ratio is far smaller (column
"attainable").  The rest of the distance (attainable → auditor) is the price of honest
statistics: the threshold is chosen on the search split and tested on a separate split,
α is shared by Bonferroni over events and pairs, and the Clopper–Pearson bounds are
exact.  The auditor's bound is sound at 95% confidence; it refutes the claim because
the gap is large, not because it reaches the paper's ε.

## 3. One-run audits

`privaudit/auditing/one_run/audit.py` implements Steinke, Nasr & Jagielski, "Privacy Auditing with
One
(1) Training Run", NeurIPS 2023: m canaries included independently with probability ½,
one release, guesses "in" for the k₊ highest scores and "out" for the k₋ lowest,
abstention otherwise.  With r guesses and v correct, an (ε, δ)-DP mechanism gives
p(ε, δ) = P[Binomial(r, e^ε/(1+e^ε)) ≥ v] + 2mδ·max_{{1≤i≤v}} P[v > Binomial(r, ·) ≥ v−i]/i
(Theorem 3.1 for δ = 0, §5 for δ > 0); the bound is the largest ε with p < 0.05, by
bisection, vectorised over runs.  The user supplies `release(included, rng)` and
`score(output)`; ours for ABLQ (Dirac canaries: canary i = C·e_i, score = Σ_t g_t[i]) and
for the logistic DP-SGD (score = Σ_t ⟨θ_{{t−1}} − θ_t, clip ∇ℓ(θ_{{t−1}}; canary i)⟩) are
in `privaudit/auditing/one_run/canaries.py`; an excluded canary is a zero record (substitution).

**Validation on a known answer** (m = 1000 independent coordinates, coordinate i =
1[canary i in] + noise, scored by itself; {runs} seeded runs each):

{one_run_table}

**The f-DP bound** (`privaudit/auditing/one_run/fdp.py`; Mahloujifar, Melis & Chaudhuri,
"Auditing f-Differential Privacy in One Run", ICML 2025).  On the same guesses, their
audit with a cap on the guesses runs a recursion over the correct guesses with the
claimed trade-off curve f (r_c = τ(c′/m)(c/c′), h_c = τ(c′/m)(1 − c/c′),
h_i = max(h_{{i+1}}, g(r_{{i+1}})), r_i = r_{{i+1}} + i/(c′−i)·(h_i − h_{{i+1}}), g(x) = f(1 − x),
τ = 0.05) and rejects f when r_0 + h_0 > c′/m.  We reconstructed the recursion from the
paper and checked it against the public implementation in Meta's PrivacyGuard
(`FDPAnalysisNode`); the (ε, δ) form g(x) = max(0, 1 − δ − e^ε(1 − x), e^{{−ε}}(x − δ)) is
our derivation, and the recursion is not re-proved here: it is checked on the closed form
of a perfectly private mechanism (the test then rejects exactly when the binomial tail of
fair guesses is below τ; `tests/unit/privaudit/test_one_run.py`) and on the table above.
Two bounds come out of it: with the (ε, δ) curve, an **assumption-free** ε lower bound
(columns "f-DP, (ε, δ) curve"); with the μ-GDP curve, a μ lower bound that is
assumption-free as a statement about μ-GDP, whose ε(δ) is a lower bound on the
mechanism's ε only **if its trade-off curve is Gaussian** (column "its ε", labelled
so in `OneRunResult.fdp_gdp`, never a verdict).

**How the bounds compare.**  Assumption-free, the f-DP bound with the (ε, δ) curve and
Steinke et al.'s are within a few hundredths of each other on every row (the (ε, δ)
curve is the one their binomial bound already uses; for δ = 0 both are near-exact for
fair guesses).  The gain the paper reports for Gaussian mechanisms comes from using the
Gaussian curve: on Gaussian coordinates the μ-GDP route certifies a μ that stays below
the true μ in every run, and its ε(δ) is well above Steinke et al.'s ε_lb (column "its
ε" against column "Steinke et al.") — tighter, at the price of the Gaussian-curve
assumption when read as ε.  For Laplace coordinates that assumption is false and the
μ-route is not tabulated.

The last column is the bound at the count a perfectly tight audit expects (v = r·e^ε/(1+e^ε)):
for Laplace noise the likelihood ratio saturates at e^ε beyond the shift, so the top
guesses *are* randomized response and the one-run bound is nearly tight at this m — the
share of runs above the true ε then sits near the stated 5% (it may not exceed it beyond
sampling error; the unit test allows the 99.9% binomial quantile).  For Gaussian noise
the bound stays far below the true ε(δ), the behaviour both papers report for Gaussian
mechanisms audited in one run (Steinke et al. §7; Mahloujifar, Melis & Chaudhuri,
ICML 2025, who tighten it with f-DP).  We did not re-derive their plotted values here
(no copy of the figures was at hand); the tabulated ones are ours.

**DP-SGD canaries** (one run each, 50 + 50 guesses, seed 0; the μ-GDP column assumes a
Gaussian trade-off curve and independent canaries and is never a verdict,
`privaudit/auditing/one_run/gaussian_tradeoff.py`):

{canary_table}

A single run of these mechanisms certifies little: with σ = 0.5 each canary's own signal
is one noisy step, and the bound needs many confident correct guesses.  It is sound at
any m, and costs one release instead of 10⁵.

## 4. Audits planned to a time budget

`audit(mech, time_budget=seconds)` (CLI `privaudit audit … --time-budget S`, pytest
`--privaudit-time-budget S`, ini `privaudit_time_budget`, or
`privacy_audit(mech, time_budget=S)`; `privaudit/auditing/time_budget.py`) times a pilot
of releases (batches of 1, 2, 4, … for 2% of the budget, at most 1 s) and two
distinguishing tests of the auditor on the mechanism's own outputs (its own cost: a
fixed part per test and a part per output), then counts what every stage draws — from
the auditor's code, not fitted: the black-box pair ranking evaluates E = pool +
pair_budget + 2·pairs_tested pairs on 2·pilot_samples outputs per side and then halves
min(max(16, 8·pairs_tested), E) pairs on max(2·pilot_samples, min(samples/64, 2¹⁹))
outputs, doubling each round (400 × pilot_samples releases at CI strength, 696 × at the
default configuration: more than the 272 × an earlier measurement suggested, which was of a smaller
configuration; `tests/unit/privaudit/test_time_budget.py` checks the count exactly
against the releases drawn).  If the configured audit does not fit 90% of the budget, it
is shrunk (never grown): fewer tested pairs while one would get fewer than 20,000
samples per side, at most a quarter of the time for the ranking (fewer candidates, then a
shorter pilot), a search split of a quarter of the test split, and the largest test
split that fits.  What the budget can and cannot detect is stated before the audit from
the power of the event test (`privaudit/statistics/power.py`): the smallest true ε the most
favourable rejection region detects with probability 0.9 at the stated confidence, at
the configured size (before) and at the planned size (after); the report's `budget`
(text, JSON — `docs/report_schema.md` — and HTML) carries both, and the report's usual
power statement follows from the event the audit found.

Budgeted audits (configured at {samples} samples per side, seed 0; the first row is
the issue's example, a mechanism at 10 ms per release under a 60-second budget, whose
cost is simulated with an injected clock — the audit itself ran in well under a second;
the other rows are timed for real on a loaded machine, so their times are inflated and
the plans vary from run to run with the measured costs):

{budget_table}

A budget is a plan, not a deadline: the release costs and the auditor's own costs are
measured once, and what the model leaves out (candidate generation, claim checks) must
fit in the 10% slack; on a loaded machine an audit can overrun it by a few percent.  For
cheap mechanisms the model errs high: the auditor's own cost is timed on small tests,
whose cost per output exceeds that of the large, vectorised test splits (the configured
ABLQ audit above, estimated at a few minutes, ran in about 50 s when measured while
developing), so a budget is more often under-used than overrun.

## 5. A real DP-SGD library: Opacus

Tried: `python3 -m venv /tmp/v && /tmp/v/bin/pip install torch==2.13.0 opacus` with the
CPU wheel of torch 2.13.0 — installed in 40 s (opacus 1.6.0, numpy, scipy, sympy …;
1.1 GB on disk, almost all of it torch).  So it fits "installs within a minute", but not
the `test` extra: it goes in its own extra, `privaudit[opacus]` (torch must come from the
CPU index; a plain `pip install torch` pulls the CUDA build, several GB).  No other
library was tried (TensorFlow Privacy and JAX-Privacy need TensorFlow or JAX, larger still).

`mechanisms/dpsgd/opacus_adapter.py` (`OpacusDPSGD`) runs Opacus's own `DPDataLoader`
(Poisson batches at rate b/n) and `DPOptimizer` (per-example clipping to C, summed,
plus N(0, (σC)²)) on a one-weight model with loss −w·x, trained by SGD with learning rate
1 and summed losses, so that the released weight increments are an ABLQ release with
Poisson batches; it carries the spec of `ABLQMechanism("poisson", …)` (our PLD
accountant's claim).  The fast test (`tests/unit/mechanisms/test_opacus_dpsgd.py`,
skipped without opacus) compares its releases with our Poisson ABLQ sampler
(Kolmogorov–Smirnov, level 10⁻³, and the per-step mean and variance) on both inputs of
the paper's pair, in about 10 s once torch is imported; a budgeted audit does not fit a
fast test (its smallest plan needs about 1,500 releases, 20 s at Opacus's cost).  Opacus
logs that it replaces an empty Poisson batch by zero-valued records: with this model a
zero record has a zero gradient, and the law test above agrees with Poisson batches.
Budgeted audits of it on the paper's pair (slow tier; regenerate with
`--only opacus_table` where opacus is installed; about 6 minutes):

{opacus_table}

Opacus releases cost milliseconds each (a training loop in Python and PyTorch for every
release), so even five minutes buy a few thousand releases per side: the tables above say
what such a budget can detect.
"""


def attainable_max_event(
    sigma: float, steps: int, delta: float, n: int, alpha: float = 0.05
) -> float:
    """Best bound of a max-coordinate event with n outputs per side at expected counts
    (Clopper–Pearson at α/2 per side): what a perfect choice of τ could certify."""
    tau = np.linspace(-3.0, 2.0 + 10.0 * sigma, 4001)
    p = -np.expm1(log_ndtr((tau - 2.0) / sigma) + (steps - 1) * log_ndtr(tau / sigma))
    q = -np.expm1(steps * log_ndtr(tau / sigma))
    kx, ky = np.floor(p * n), np.ceil(q * n)
    ok = kx >= 1
    lo = stats.beta.ppf(alpha / 2, kx[ok], n - kx[ok] + 1)
    hi = stats.beta.ppf(1 - alpha / 2, ky[ok] + 1, np.maximum(n - ky[ok], 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(np.maximum(lo - delta, 0.0) / hi)
    return float(np.nanmax(np.where(np.isfinite(eps), eps, -np.inf)))


def _gdp_of(report) -> str:
    est = gaussian_tradeoff_estimate(report)
    if est is None:
        return "–"
    return f"μ ≥ {est.mu_lower_bound:.3f}, ε ≈ {est.epsilon:.3f}"


def _paper_pair(report, mech: ABLQMechanism) -> str:
    """ "yes" when the worst pair is the paper's after clipping: one record at +C against
    −C, every other record at −C or every other at +C (one side's batches identical)."""
    pair = report.worst_pair
    if pair is None:
        return "–"
    x = mech.clipped(np.asarray(pair.x, dtype=float))
    y = mech.clipped(np.asarray(pair.y, dtype=float))
    differ = np.flatnonzero(x != y)
    if x.shape != y.shape or differ.size != 1:
        return "no"
    c, i = mech.clip_norm, int(differ[0])
    rest = np.delete(x, i)
    ok = (
        sorted((x[i], y[i])) == [-c, c]
        and rest.size > 0
        and bool(np.all(rest == -c) or np.all(rest == c))
    )
    return "yes" if ok else "no"


def shuffle_section(samples: int, seed: int) -> list[str]:
    rows = [
        (
            "| σ | T | Poisson-PLD ε (claim) | no-amplification ε | paper's lower bound ε "
            "(P[S], Q[S]) | max-event ε attainable at N | auditor ε_lb, shuffle-as-Poisson "
            "(verdict) | worst pair is the paper's | auditor ε_lb, Poisson (verdict) "
            "| μ-GDP estimate of the shuffle's worst event (assumption) | time (s) |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    config = AuditConfig(samples=samples, confidence=0.95, seed=seed)
    for sigma, steps in DPSGD_GAP_SETTINGS:
        broken = shuffle_as_poisson(sigma, steps)
        control = ABLQMechanism("poisson", steps, 1, steps, sigma, DPSGD_DELTA)
        lower = shuffle_lower_bound(sigma, steps, DPSGD_DELTA)
        start = time.perf_counter()
        rb = audit(broken, config=config)
        rc = audit(control, config=config)
        took = time.perf_counter() - start
        rows.append(
            f"| {sigma:g} | {steps} | {poisson_epsilon(sigma, 1 / steps, steps, DPSGD_DELTA):.3f} "
            f"| {partition_epsilon(sigma, 1, DPSGD_DELTA):.3f} | {lower.epsilon:.3f} "
            f"({lower.p_first:.2e}, {lower.p_second:.2e}) "
            f"| {attainable_max_event(sigma, steps, DPSGD_DELTA, samples):.3f} "
            f"| {rb.epsilon_lower_bound:.3f} ({'VIOLATION' if rb.violated else 'passed'}; "
            f"`{rb.worst_event.description if rb.worst_event else '–'}`) "
            f"| {_paper_pair(rb, broken)} "
            f"| {rc.epsilon_lower_bound:.3f} ({'VIOLATION' if rc.violated else 'passed'}) "
            f"| {_gdp_of(rb)} | {took:.0f} |"
        )
    return rows


def one_run_section(runs: int, seed: int) -> list[str]:
    m, k = 1000, 100
    rows = [
        (
            f"| mechanism (m = {m}, {k} + {k} guesses) | true ε at δ | δ | Steinke et al.: mean "
            f"ε_lb over {runs} runs | max | share > true ε | f-DP, (ε, δ) curve: mean ε_lb | "
            "max | share > true ε | f-DP, μ-GDP curve: mean μ_lb (true μ), share > true μ | "
            "its ε (assumes a Gaussian curve) | ε_lb at the expected count of a tight audit |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def cells(res, true: float) -> str:
        b = np.array(res.epsilon_lower_bound)
        f = np.array(res.fdp_epsilon_lower_bound)
        return (
            f"{b.mean():.3f} | {b.max():.3f} | {(b > true).mean():.3f} | {f.mean():.3f} | "
            f"{f.max():.3f} | {(f > true).mean():.3f}"
        )

    for eps in (1.0, 2.0, 4.0):
        res = laplace_canaries(m, eps, k_plus=k, k_minus=k, runs=runs, rng=seed)
        tight = one_run_epsilon(m, 2 * k, round(2 * k / (1 + math.exp(-eps))))[()]
        rows.append(
            f"| Laplace coordinates, ε = {eps:g} | {eps:g} | 0 | {cells(res, eps)} | – | – | "
            f"{tight:.3f} |"
        )
    for sigma in (1.0, 0.5):
        true = GaussianDP(mu=1 / sigma).epsilon_for_delta(1e-5)
        res = gaussian_canaries(
            m, sigma, k_plus=k, k_minus=k, delta=1e-5, runs=runs, rng=seed, gaussian_tradeoff=True
        )
        mu = np.array([g.mu_lower_bound for g in res.fdp_gdp])
        via = np.array([g.epsilon for g in res.fdp_gdp])
        rows.append(
            f"| Gaussian coordinates, μ = {1 / sigma:g} | {true:.3f} | 1e-05 | "
            f"{cells(res, true)} | {mu.mean():.3f} ({1 / sigma:g}), "
            f"{(mu > 1 / sigma).mean():.3f} | {via.mean():.3f} | – |"
        )
    return rows


def canary_section(seed: int) -> list[str]:
    rows = [
        (
            "| mechanism | claimed ε (δ = 1e-5) | canaries | guesses | correct | one-run ε_lb | "
            "μ-GDP estimate (assumption: Gaussian trade-off, independent canaries) |"
        ),
        "|---|---|---|---|---|---|---|",
    ]
    for sampler, claim in (
        ("poisson", "poisson_pld"),
        ("shuffle", "poisson_pld"),
        ("shuffle", "partition"),
    ):
        mech = ABLQMechanism(sampler, 1000, 100, 10, 0.5, 1e-5, dim=1000, claim=claim)
        release, score = ablq_canaries(mech)
        r = one_run_audit(
            release,
            score,
            1000,
            k_plus=50,
            k_minus=50,
            delta=1e-5,
            rng=seed,
            gaussian_tradeoff=True,
        )
        rows.append(
            f"| ABLQ {sampler}, claim {claim}, n = 1000, b = 100, T = 10, σ = 0.5 | "
            f"{mech.spec.guarantee.epsilon:.3f} | 1000 | {r.guesses[0]} | "
            f"{r.correct[0]} | {r.epsilon_lower_bound[0]:.3f} | "
            f"μ ≥ {r.gdp[0].mu_lower_bound:.3f}, ε ≈ {r.gdp[0].epsilon:.3f} |"
        )
    mech = LogisticDPSGD("shuffle", 1000, 100, 10, 0.5, 1e-5, dim=2)
    release, score = logistic_canaries(mech, logistic_data(500, 2, rng=seed), 500)
    r = one_run_audit(
        release, score, 500, k_plus=25, k_minus=25, delta=1e-5, rng=seed, gaussian_tradeoff=True
    )
    rows.append(
        f"| logistic DP-SGD, shuffle, n = 1000 (500 canaries), d = 2, T = 10, σ = 0.5 | "
        f"{mech.spec.guarantee.epsilon:.3f} | 500 | {r.guesses[0]} | {r.correct[0]} | "
        f"{r.epsilon_lower_bound[0]:.3f} | μ ≥ {r.gdp[0].mu_lower_bound:.3f}, "
        f"ε ≈ {r.gdp[0].epsilon:.3f} |"
    )
    return rows


class _SimulatedClock:
    """A clock advanced by the simulated mechanism's cost (no sleeping)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _slow_mean(cost: float, clock: _SimulatedClock):
    """A correct Laplace mean of 10 records in [0, 1] (ε = 1), a black box, whose every
    release advances ``clock`` by ``cost`` seconds."""
    from privaudit.mechanisms import declare_mechanism
    from privaudit.spec import (
        DatasetDomain,
        GlobalSensitivity,
        MechanismSpec,
        PureDP,
        RealInterval,
        SubstituteOne,
    )

    spec = MechanismSpec(
        name="slow_mean_10ms",
        input_domain=DatasetDomain(record=RealInterval(lo=0, hi=1), size=10),
        relation=SubstituteOne(),
        statistic="mean of the records",
        sensitivity=(GlobalSensitivity(value=0.1),),
        guarantee=PureDP(epsilon=1.0),
    )

    def sampler(x, size, rng):
        clock.now += cost * size
        return x.mean() + rng.laplace(0.0, 0.1, size)

    return declare_mechanism(spec, sampler=sampler)


def budget_section(samples: int, seed: int) -> list[str]:
    """Budgeted audits: the issue's 10 ms / 60 s example (simulated clock) and DP-SGD
    mechanisms timed on this machine."""
    rows = [
        (
            "| mechanism | clock | s per release (pilot) | budget | configured audit "
            "(samples per side, est. time) | planned (samples per side, pairs, candidates, "
            "pilot) | smallest detectable ε before → after (target) | verdict | ε_lb | "
            "audit took |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    base = AuditConfig(samples=samples, seed=seed)
    clock = _SimulatedClock()
    cases = [("black-box Laplace mean, ε = 1", "simulated", _slow_mean(0.010, clock), 60.0, clock)]
    cases += [
        (
            f"ABLQ shuffled as Poisson, σ = 1, T = 50 (claim ε = "
            f"{shuffle_as_poisson(1.0, 50).spec.guarantee.epsilon:.3f})",
            "real",
            shuffle_as_poisson(1.0, 50),
            budget,
            None,
        )
        for budget in (10.0, 30.0)
    ]
    cases.append(
        (
            "logistic DP-SGD, Poisson batches (10 steps of 2 of 10 records, σ = 1)",
            "real",
            LogisticDPSGD("poisson", 10, 2, 10, 1.0, 1e-5, dim=2),
            30.0,
            None,
        )
    )
    statements = []
    for label, kind, mech, budget, clk in cases:
        start = time.perf_counter()
        report = audit(mech, config=base, time_budget=budget, clock=clk)
        took = time.perf_counter() - start
        plan = report.budget
        statements.append(plan.statement)
        rows.append(
            f"| {label} | {kind} | {plan.timing.seconds_per_release:.3g} | {budget:g} s | "
            f"{plan.default_samples}, {plan.default_seconds:.3g} s | "
            f"{plan.samples}, {plan.pairs_tested}, {plan.pair_budget}, {plan.pilot_samples} | "
            f"{plan.detectable_before:.3f} → {plan.detectable_after:.3f} "
            f"({plan.target_epsilon:.3g}) | {report.verdict} | "
            f"{report.epsilon_lower_bound:.3f} | "
            + (f"{clk.now:.1f} s simulated" if clk is not None else f"{took:.1f} s")
            + " |"
        )
    rows.append("")
    rows.append(f"The report of the first audit says: *{statements[0]}.*")
    return rows


def opacus_section(seed: int) -> list[str]:
    """Opacus's DP-SGD audited with time budgets (slow tier: minutes)."""
    from privaudit.mechanisms.dpsgd import OpacusDPSGD, opacus_available

    if not opacus_available():
        return [
            "*(not generated: torch and opacus are not installed where this script ran; "
            "`pip install 'privaudit[opacus]'` with the CPU torch wheel)*"
        ]
    rows = [
        (
            "| Opacus DP-SGD (1 weight, n = 10, b = 1, σ = 1) | claim ε (δ = 1e-5) | s per "
            "release | budget | planned samples per side | detectable ε after (target) | "
            "verdict | ε_lb | audit took |"
        ),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    x = np.full(10, -2.0)
    y = x.copy()
    y[0] = 2.0
    for steps, budget in ((5, 60.0), (5, 300.0)):
        mech = OpacusDPSGD(10, 1, steps, 1.0)
        start = time.perf_counter()
        report = audit(mech, pairs=[(y, x)], time_budget=budget, seed=seed)
        plan = report.budget
        rows.append(
            f"| T = {steps} Poisson steps | {mech.spec.guarantee.epsilon:.3f} | "
            f"{plan.timing.seconds_per_release:.3g} | {budget:g} s | {plan.samples} | "
            f"{plan.detectable_after:.3f} ({plan.target_epsilon:.3g}) | {report.verdict} | "
            f"{report.epsilon_lower_bound:.3f} | {time.perf_counter() - start:.0f} s |"
        )
    return rows


def registry_section() -> list[str]:
    """The DP-SGD entries of the registry, from their shipped certificates (no audit)."""
    from privaudit import registry

    rows = [
        "| entry | accountant | claim ε (δ = 1e-5) | certified ε_lb | verdict | detects ε ≥ "
        "(target) | pairs tested | samples per side | certification (s) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in registry.names():
        if not name.startswith("dpsgd."):
            continue
        mech = registry.entry(name).create()
        cert = registry.certificate(name)
        if cert is None:
            rows.append(
                f"| {name} | {mech.claim} | {mech.spec.guarantee.epsilon:.3f} | "
                "not certified | | | | | |"
            )
            continue
        power = cert.power
        report_checks = cert.report.checks if cert.report is not None else ()
        tested = next(
            (
                c.details.get("pairs_tested")
                for c in report_checks
                if c.name == "distinguishability"
            ),
            "",
        )
        detect = (
            f"{power.detectable_epsilon:.3f} ({power.target_epsilon:.3f})"
            if power is not None and power.target_epsilon is not None
            else ""
        )
        rows.append(
            f"| `{name}` | {mech.claim} | {cert.epsilon_claimed:.3f} | "
            f"{cert.epsilon_lower_bound:.3f} | {cert.verdict} | {detect} | {tested} | "
            f"{cert.config.samples} | {cert.runtime_seconds:.0f} |"
        )
    return rows


_SECTIONS = (
    "registry_table",
    "shuffle_table",
    "one_run_table",
    "canary_table",
    "budget_table",
    "opacus_table",
)


def _reused(path: Path) -> dict[str, str]:
    """The tables of an earlier run of this script, between its section markers."""
    import re

    text = path.read_text() if path.exists() else ""
    return {
        name: body
        for name, body in re.findall(
            r"<!-- begin (\w+) -->\n(.*?)\n<!-- end \1 -->", text, flags=re.S
        )
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=DOC)
    parser.add_argument(
        "--only",
        default=None,
        help="comma-separated sections to recompute (" + ", ".join(_SECTIONS) + "); the "
        "others are copied from the existing --out file (the shuffle audits take minutes)",
    )
    args = parser.parse_args()
    command = "PYTHONPATH=$PWD python3 scripts/dpsgd_audit.py" + (
        ""
        if (args.samples, args.runs, args.seed) == (100_000, 200, 0)
        else f" --samples {args.samples} --runs {args.runs} --seed {args.seed}"
    )
    makers = {
        "registry_table": registry_section,
        "shuffle_table": lambda: shuffle_section(args.samples, args.seed),
        "one_run_table": lambda: one_run_section(args.runs, args.seed),
        "canary_table": lambda: canary_section(args.seed),
        "budget_table": lambda: budget_section(args.samples, args.seed),
        "opacus_table": lambda: opacus_section(args.seed),
    }
    chosen = set(_SECTIONS if args.only is None else args.only.split(","))
    if not chosen <= set(_SECTIONS):
        parser.error(f"--only: unknown sections {sorted(chosen - set(_SECTIONS))}")
    old = _reused(args.out)
    tables = {}
    for name in _SECTIONS:
        body = "\n".join(makers[name]()) if name in chosen or name not in old else old[name]
        tables[name] = f"<!-- begin {name} -->\n{body}\n<!-- end {name} -->"
    text = TEXT.format(command=command, samples=args.samples, runs=args.runs, **tables)
    args.out.write_text(text)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
