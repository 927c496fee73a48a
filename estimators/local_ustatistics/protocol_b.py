"""Protocol B: locally private AUC over hierarchical histograms (public labels).

Bell, Bellet, Gascón & Kulkarni (AISTATS 2020), §4, eq. (10) and Theorem 3.  Positives
and negatives each report through a frequency oracle (:mod:`.frequency_oracle`) that
estimates every node count ĥ±_p.  With v± the oracles' variance bounds, a > 1,
τ = a √(v⁺ v⁻) and the floors h̃±_p = max(ĥ±_p, fl±), the server walks the trees top-down:

* a node p with h̃⁺_p h̃⁻_p < τ is *discarded*: its contribution is estimated by
  ½ (Σ_i ĥ⁺_{p·i})(Σ_i ĥ⁻_{p·i}) — from the children's (independent) level, "for a
  technical reason made clear in the proof";
* otherwise it is *recursed*: it contributes ĥ⁺_{p·1} ĥ⁻_{p·0} and its children are
  visited;

and AUĈ = UAUĈ/(n⁺ n⁻).  The root counts n± are public.  The floor is printed ambiguously
(the radical's extent is lost in the text): ``floor="half_root"`` uses fl = √(a v)/2 (the
default), ``"root_half"`` uses √(a v/2).  Clipping AUĈ to [0, 1] is optional
post-processing (off by default, as in the paper).  The walk is done level by level with
arrays, O(n + d log d) in total with the FWHT oracle.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from privaudit.mechanisms.accounting import PrivacyBudget, charge
from privaudit.spec import RandomLike, as_generator
from privaudit.spec.errors import InvalidInputError, InvalidParameterError, OutOfDomainError
from privaudit.spec.validation import integer_array

from .frequency_oracle import Variant, hadamard_reports, level_estimates
from .hadamard_mechanism import HadamardRandomizerMechanism
from .hierarchy import check_depth, score_cells
from .quantization import UniformQuantizer
from .results import LocalUStatisticEstimate

__all__ = ["discretize_scores", "private_auc_hierarchical", "private_uauc", "theorem3_mse_bound"]


def discretize_scores(scores: Any, alpha: int) -> np.ndarray:
    """f_p(s, d) = min(⌊s·d⌋, d − 1) for scores in [0, 1] (§6's discretization), d = 2^α."""
    return UniformQuantizer(0.0, 1.0, 1 << check_depth(alpha)).index(scores)


def private_uauc(
    h_pos: list[np.ndarray],
    h_neg: list[np.ndarray],
    v_pos: float,
    v_neg: float,
    a: float = 4.0,
    floor: Literal["half_root", "root_half"] = "half_root",
) -> tuple[float, list[int]]:
    """UAUĈ of eq. (10) from level estimates (level 0 = exact n±); also |R_m| per level."""
    if not (math.isfinite(a) and a > 1.0):
        raise InvalidParameterError(f"a must be finite and > 1, got {a!r}")
    if floor == "half_root":
        fl_pos, fl_neg = math.sqrt(a * v_pos) / 2.0, math.sqrt(a * v_neg) / 2.0
    elif floor == "root_half":
        fl_pos, fl_neg = math.sqrt(a * v_pos / 2.0), math.sqrt(a * v_neg / 2.0)
    else:
        raise InvalidParameterError(f"floor must be 'half_root' or 'root_half', got {floor!r}")
    tau = a * math.sqrt(v_pos * v_neg)
    depth = len(h_pos) - 1
    active = np.zeros(1, dtype=np.int64)
    total = 0.0
    recursed: list[int] = []
    for m in range(depth):
        if active.size == 0:
            recursed.append(0)
            continue
        ht_pos = np.maximum(h_pos[m][active], fl_pos)
        ht_neg = np.maximum(h_neg[m][active], fl_neg)
        c0p, c1p = h_pos[m + 1][2 * active], h_pos[m + 1][2 * active + 1]
        c0n, c1n = h_neg[m + 1][2 * active], h_neg[m + 1][2 * active + 1]
        discard = ht_pos * ht_neg < tau
        total += 0.5 * float(((c0p + c1p) * (c0n + c1n))[discard].sum())
        keep = ~discard
        total += float((c1p * c0n)[keep].sum())
        recursed.append(int(keep.sum()))
        kept = active[keep]
        active = np.concatenate((2 * kept, 2 * kept + 1))
    return total, recursed


def theorem3_mse_bound(
    n_pos: int, n_neg: int, alpha: int, constant: float, a: float, reading: Literal["1", "2"] = "2"
) -> float:
    """Theorem 3's MSE of UAUĈ divided by (n⁺n⁻)²: the bound on the MSE of AUĈ.

    C n⁻ n⁺ α² (2n + (4a + 1) min(n⁻, n⁺) + X), X = √21 √(2nCα)/(a − 1) (reading "2", the
    printed layout) or 21 √(2nCα)/(√a − 1) (reading "1").
    """
    n = n_pos + n_neg
    root = math.sqrt(2.0 * n * constant * alpha)
    x = math.sqrt(21.0) * root / (a - 1.0) if reading == "2" else 21.0 * root / (math.sqrt(a) - 1.0)
    mse = constant * n_neg * n_pos * alpha**2 * (2 * n + (4 * a + 1) * min(n_neg, n_pos) + x)
    return mse / float(n_pos * n_neg) ** 2


def private_auc_hierarchical(
    scores: Any,
    labels: Any,
    alpha: int,
    epsilon: float,
    *,
    variant: Variant = "S",
    a: float = 4.0,
    floor: Literal["half_root", "root_half"] = "half_root",
    clip: bool = False,
    rng: RandomLike = None,
    budget: PrivacyBudget | None = None,
) -> LocalUStatisticEstimate:
    """ε-LDP AUC of integer scores in {0..2^α − 1} with public labels (Protocol B).

    Parameters
    ----------
    scores : array_like of int, shape (n,)
        Discretized scores (see :func:`discretize_scores`).
    labels : array_like of {0, 1}
        Public labels (1 = positive).
    alpha : int
        Depth α (d = 2^α).
    epsilon : float
        Each user's ε.
    variant : {"S", "C"}
        Frequency oracle: level sampling with one bit per user, or every level under
        basic composition (:mod:`.frequency_oracle`).
    a : float
        The threshold parameter a > 1 (τ = a √(v⁺v⁻)).
    clip : bool
        Clip AUĈ to [0, 1] (post-processing).
    budget : PrivacyBudget, optional
        Charged for the randomizer's spec (ε-LDP per user) before any randomness is drawn;
        a call it cannot afford is refused.

    Returns
    -------
    LocalUStatisticEstimate
        ``variance_bound`` is Theorem 3's bound on the MSE of AUĈ (reading "2");
        ``details['recursed']`` the number of recursed nodes per level.
    """
    depth = check_depth(alpha)
    s = score_cells(scores, depth)
    y = integer_array(labels, "labels")
    if y.shape != s.shape:
        raise InvalidInputError(
            f"labels must be 0/1 of the scores' shape {s.shape}, got shape {y.shape}"
        )
    if not np.isin(y, (0, 1)).all():
        raise OutOfDomainError(f"labels must be 0 or 1, got {y[~np.isin(y, (0, 1))][0]!r}")
    pos, neg = s[y == 1], s[y == 0]
    if pos.size < 1 or neg.size < 1:
        raise InvalidInputError(f"AUC needs both classes, got n+ = {pos.size}, n- = {neg.size}")
    if not (math.isfinite(a) and a > 1.0):
        raise InvalidParameterError(f"a must be finite and > 1, got {a!r}")
    if floor not in ("half_root", "root_half"):
        raise InvalidParameterError(f"floor must be 'half_root' or 'root_half', got {floor!r}")
    mech = HadamardRandomizerMechanism(depth, epsilon, variant)
    charge(budget, mech.spec, estimator=mech.spec.name)
    gen = as_generator(rng)
    est_pos = level_estimates(hadamard_reports(pos, depth, epsilon, variant, gen))
    est_neg = level_estimates(hadamard_reports(neg, depth, epsilon, variant, gen))
    uauc, recursed = private_uauc(
        est_pos.levels, est_neg.levels, est_pos.variance_bound, est_neg.variance_bound, a, floor
    )
    value = uauc / (pos.size * neg.size)
    return LocalUStatisticEstimate(
        estimate=float(np.clip(value, 0.0, 1.0)) if clip else value,
        spec=mech.spec,
        protocol=f"B-{variant}",
        n=int(s.size),
        epsilon=float(epsilon),
        variance_bound=theorem3_mse_bound(pos.size, neg.size, depth, est_pos.constant, a),
        clipped=clip,
        details={
            "alpha": depth,
            "a": a,
            "constant_C": est_pos.constant,
            "recursed": recursed,
            "n_positive": int(pos.size),
            "n_negative": int(neg.size),
        },
    )
