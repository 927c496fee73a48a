"""The same compositions in privaudit, dp_accounting and OpenDP (docs/accounting.md).

Each function is one library's code for one composition and returns its ε at the stated δ.
``scripts/accounting_side_by_side.py`` runs them and writes their source and numbers into
``docs/accounting.md``; ``tests/unit/scripts/test_accounting_side_by_side.py`` runs them
and checks that the numbers agree and that the page shows the current code.

Conventions: every release has sensitivity 1 under add/remove-one (dp_accounting's
``GaussianDpEvent(σ)`` and OpenDP's ``make_gaussian(scale=σ)`` on a sensitivity-1 query).
Under substitute-one a release moves the sum by up to 2 (dp_accounting's ``REPLACE_ONE``;
privaudit's group-of-2 conversion, ``docs/accounting.md``).  dp_accounting and OpenDP
are in the ``test`` extra.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

DELTA = 1e-6


# -- A. 100 Poisson-subsampled Gaussians (σ = 1, q = 0.01) and 10 Gaussians (σ = 20) --------
def privaudit_subsampled(relation: str = "add_remove_one") -> float:
    from privaudit.mechanisms.accounting import PrivacyBudget, gaussian, repeated, subsampled

    budget = PrivacyBudget(epsilon=10.0, delta=1e-6, relation=relation)
    budget.charge(repeated(subsampled(gaussian(sigma=1.0), 0.01), 100))
    budget.charge(repeated(gaussian(sigma=20.0), 10))
    return budget.spent_epsilon


def dp_accounting_subsampled(relation: str = "add_remove_one") -> float:
    import dp_accounting
    from dp_accounting import NeighboringRelation

    event = dp_accounting.ComposedDpEvent(
        [
            dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.0)), 100
            ),
            dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(20.0), 10),
        ]
    )
    neighbours = (
        NeighboringRelation.ADD_OR_REMOVE_ONE
        if relation == "add_remove_one"
        else NeighboringRelation.REPLACE_ONE
    )
    accountant = dp_accounting.pld.PLDAccountant(neighboring_relation=neighbours)
    return accountant.compose(event).get_epsilon(1e-6)


# -- B. 10 Gaussians (σ = 5): PLD (exact here) and zCDP ------------------------------------
def privaudit_gaussians(accountant: str = "pld") -> float:
    from privaudit.mechanisms.accounting import PrivacyBudget, gaussian, repeated

    budget = PrivacyBudget(
        epsilon=10.0, delta=1e-6, accountant=accountant, relation="add_remove_one"
    )
    budget.charge(repeated(gaussian(sigma=5.0), 10))
    return budget.spent_epsilon


def dp_accounting_gaussians() -> float:
    import dp_accounting

    event = dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(5.0), 10)
    return dp_accounting.pld.PLDAccountant().compose(event).get_epsilon(1e-6)


def opendp_gaussians() -> float:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
    composed = dp.c.make_composition([dp.m.make_gaussian(*space, scale=5.0)] * 10)
    return dp.c.make_zCDP_to_approxDP(composed).map(1.0).epsilon(1e-6)


# -- C. three Laplace releases (scales 10, 5 and 10/3): pure ε = 0.6 -------------------------
def privaudit_laplaces() -> float:
    from privaudit.mechanisms.accounting import PrivacyBudget, laplace

    budget = PrivacyBudget(epsilon=1.0, relation="add_remove_one")  # δ = 0: pure
    for scale in (10.0, 5.0, 10.0 / 3.0):
        budget.charge(laplace(scale=scale))
    return budget.spent_epsilon


def dp_accounting_laplaces() -> float:
    import dp_accounting

    event = dp_accounting.ComposedDpEvent(
        [dp_accounting.LaplaceDpEvent(scale) for scale in (10.0, 5.0, 10.0 / 3.0)]
    )
    return dp_accounting.pld.PLDAccountant().compose(event).get_epsilon(0.0)


def opendp_laplaces() -> float:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
    composed = dp.c.make_composition(
        [dp.m.make_laplace(*space, scale=scale) for scale in (10.0, 5.0, 10.0 / 3.0)]
    )
    return composed.map(1.0)


#: (section title, [(library, label, function, kwargs)]) in the order the page shows them.
EXAMPLES: list[tuple[str, list[tuple[str, str, Callable[..., float], dict[str, Any]]]]] = [
    (
        "A. 100 Poisson-subsampled Gaussians (σ = 1, q = 0.01) and 10 Gaussians (σ = 20), δ = 10⁻⁶",
        [
            ("privaudit", "add/remove-one", privaudit_subsampled, {"relation": "add_remove_one"}),
            (
                "dp_accounting",
                "add/remove-one",
                dp_accounting_subsampled,
                {"relation": "add_remove_one"},
            ),
            ("privaudit", "substitute-one", privaudit_subsampled, {"relation": "substitute_one"}),
            (
                "dp_accounting",
                "substitute-one",
                dp_accounting_subsampled,
                {"relation": "substitute_one"},
            ),
        ],
    ),
    (
        "B. 10 Gaussians (σ = 5), δ = 10⁻⁶",
        [
            ("privaudit", "PLD", privaudit_gaussians, {"accountant": "pld"}),
            ("dp_accounting", "PLD", dp_accounting_gaussians, {}),
            ("privaudit", "zCDP", privaudit_gaussians, {"accountant": "zcdp"}),
            ("OpenDP", "zCDP", opendp_gaussians, {}),
        ],
    ),
    (
        "C. Three Laplace releases (scales 10, 5, 10/3), pure (δ = 0)",
        [
            ("privaudit", "PLD, δ = 0", privaudit_laplaces, {}),
            ("dp_accounting", "PLD, δ = 0", dp_accounting_laplaces, {}),
            ("OpenDP", "pure DP", opendp_laplaces, {}),
        ],
    ),
]

if __name__ == "__main__":
    for title, rows in EXAMPLES:
        print(title)
        for library, label, fn, kwargs in rows:
            print(f"  {library:14s} {label:16s} epsilon = {fn(**kwargs):.6g}")
