"""Privacy accounting: privacy curves of specs, accountants, amplification, budgets.

Why here.  The dependency direction is spec ← mechanisms ← estimators ← privaudit, and
the estimators must charge a :class:`PrivacyBudget` before they draw noise, so the
accounting lives in ``mechanisms`` (it needs ``spec`` only, and the estimators may
import it); ``privaudit`` re-exports :class:`PrivacyBudget` and the accountants.

Layout (one idea per module):

* :mod:`~mechanisms.accounting.curves` — what one release provably delivers: its
  privacy-loss distribution (dp_accounting's engine), RDP curve, zCDP ρ and GDP μ;
* :mod:`~mechanisms.accounting.accountants` — PLD, RDP, zCDP, GDP and basic accountants
  composing heterogeneous releases and answering ε(δ) and δ(ε);
* :mod:`~mechanisms.accounting.optimal` — the optimal composition of k homogeneous
  (ε, δ) releases (Kairouz, Oh & Viswanath, ICML 2015, Thm. 3.3);
* :mod:`~mechanisms.accounting.amplification` — privacy amplification by Poisson
  subsampling and by sampling without replacement, as a spec transformation;
* :mod:`~mechanisms.accounting.calibration` — noise scales for k releases at a target
  (ε, δ);
* :mod:`~mechanisms.accounting.budget` — :class:`PrivacyBudget`, its ledger, what is
  left (:meth:`PrivacyBudget.remaining`) and the ledger table (:meth:`PrivacyBudget.report`);
* :mod:`~mechanisms.accounting.relations` — the neighbouring relation a charge is stated
  under and the one rule converting it (group privacy; refusals);
* :mod:`~mechanisms.accounting.vocabulary` — one-line releases (Gaussian by σ, Laplace by
  scale, discrete laws, randomized response, subsampled, repeated) that budgets and
  ``privaudit.audit`` both accept;
* :mod:`~mechanisms.accounting.composed` — k releases of registered mechanisms on the
  same input as one mechanism, so that the auditor can measure how tight accounting is.

Derivations, what is proven and cross-checks against dp_accounting and OpenDP:
``docs/accounting.md``.
"""

from __future__ import annotations

from .accountants import (
    ACCOUNTANTS,
    DEFAULT_ORDERS,
    Accountant,
    BasicAccountant,
    GDPAccountant,
    PLDAccountant,
    RDPAccountant,
    ZCDPAccountant,
    make_accountant,
)
from .amplification import SubsampledSpec, poisson_subsample, subsample_without_replacement
from .budget import BudgetReport, LedgerEntry, PrivacyBudget, RemainingBudget, charge
from .calibration import gaussian_sigma_for_composition, laplace_scale_for_composition
from .composed import DEFAULT_COMPOSITION_DELTA, ComposedMechanism
from .curves import PrivacyCurves, privacy_curves, randomized_response_rdp
from .optimal import OptimalComposition, optimal_composition
from .relations import RelationConversion, convert_charge, decide_conversion
from .vocabulary import (
    SubsampledMechanism,
    SumMechanism,
    discrete_gaussian,
    discrete_laplace,
    gaussian,
    laplace,
    randomized_response,
    repeated,
    subsampled,
)

__all__ = [
    "ACCOUNTANTS",
    "Accountant",
    "BasicAccountant",
    "BudgetReport",
    "ComposedMechanism",
    "DEFAULT_COMPOSITION_DELTA",
    "DEFAULT_ORDERS",
    "GDPAccountant",
    "LedgerEntry",
    "OptimalComposition",
    "PLDAccountant",
    "PrivacyBudget",
    "PrivacyCurves",
    "RDPAccountant",
    "RelationConversion",
    "RemainingBudget",
    "SubsampledMechanism",
    "SumMechanism",
    "SubsampledSpec",
    "ZCDPAccountant",
    "charge",
    "convert_charge",
    "decide_conversion",
    "discrete_gaussian",
    "discrete_laplace",
    "gaussian",
    "laplace",
    "gaussian_sigma_for_composition",
    "laplace_scale_for_composition",
    "make_accountant",
    "optimal_composition",
    "poisson_subsample",
    "privacy_curves",
    "randomized_response",
    "randomized_response_rdp",
    "repeated",
    "subsampled",
    "subsample_without_replacement",
]
