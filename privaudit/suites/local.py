"""Local randomizers with a finite output law: broken variants and a correct control.

Each declares a :class:`~spec.FiniteRandomizer` spec and exposes its output law through the
``output_probabilities`` hook, so the auditor's exact mode applies.  The broken ones are
classic errors of quantized k-ary randomized response (Bell, Bellet, Gascón & Kulkarni,
AISTATS 2020, Protocol A):

* ``local.rr_rerandomized_per_pair`` — re-randomized for each of its m pairs: true ε = m·ε;
* ``local.rr_binary_keep_probability`` — the binary keep probability for k > 2: true ε =
  ε + ln(k − 1);
* ``local.rr_data_dependent_bins`` — bins on [min(data), max(data)]: true ε = 3ε at n = 3.

``control.local_krr`` is the correct k-RR, true ε = ε.  Details (the derivations):
``docs/engine_notes.md``, "privaudit.suites.local".
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privaudit.mechanisms import Mechanism
from privaudit.spec import (
    Categorical,
    DatasetDomain,
    FiniteOutputLaw,
    FiniteRandomizer,
    IntegerRange,
    LocalRelation,
    MechanismSpec,
    PureDP,
    Reference,
    SubstituteOne,
)
from privaudit.spec.errors import InvalidParameterError
from privaudit.suites._base import BenchmarkCase

__all__ = [
    "DataDependentBinsRR",
    "LocalKaryRR",
    "local_broken_cases",
    "local_control_cases",
]

BELL_2020 = Reference(
    citation="Bell, Bellet, Gascón & Kulkarni, 'Private Protocols for U-Statistics in the "
    "Local Model and Beyond', AISTATS 2020",
    locator="Algorithm 1; Theorem 2",
)
_SOURCE = "privaudit/suites/local.py ({})"


def _rr_row(k: int, cell: int, keep: float) -> np.ndarray:
    row = np.full(k, (1.0 - keep) / (k - 1))
    row[cell] = keep
    return row


def _rr_draw(cells: np.ndarray, k: int, keep: float, rng: np.random.Generator) -> np.ndarray:
    """k-RR of every entry of ``cells`` (keep w.p. ``keep``, else uniform on the others)."""
    kept = rng.random(cells.shape) < keep
    other = rng.integers(0, k - 1, cells.shape, dtype=np.int64)
    other += other >= cells
    return np.where(kept, cells, other)


class LocalKaryRR(Mechanism):
    """k-RR of one cell, released ``copies`` times with keep probability ``keep``.

    The spec always claims ε-LDP with a declared law of ε (what the implementer believes);
    the hook returns what the code really does.
    """

    def __init__(
        self, epsilon: float, k: int, *, keep: float | None = None, copies: int = 1, name: str
    ) -> None:
        if k < 2 or copies < 1:
            raise InvalidParameterError(
                f"need k >= 2 and copies >= 1, got k={k!r}, copies={copies!r}"
            )
        self._k, self._copies = int(k), int(copies)
        self._keep = keep if keep is not None else math.exp(epsilon) / (k + math.expm1(epsilon))
        spec = MechanismSpec(
            name=name,
            summary=f"{k}-ary randomized response of one cell ({copies} report(s))",
            references=(BELL_2020,),
            input_domain=Categorical(size=k),
            relation=LocalRelation(),
            statistic="the user's cell",
            output_dimension=copies,
            noise=FiniteRandomizer(
                law=FiniteOutputLaw(
                    alphabet=k,
                    length=copies,
                    epsilon=epsilon,
                    description="k-RR with keep probability e^eps/(k + e^eps - 1), as declared",
                )
            ),
            guarantee=PureDP(epsilon=epsilon),
        )
        super().__init__(spec)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        cells = np.full((size, self._copies), int(data), dtype=np.int64)
        out = _rr_draw(cells, self._k, self._keep, rng)
        return out[:, 0] if self._copies == 1 else out

    def output_probabilities(self, data: Any) -> np.ndarray:
        row = _rr_row(self._k, int(self.validate_input(data)), self._keep)
        return np.tile(row, (self._copies, 1))


class DataDependentBinsRR(Mechanism):
    """All n reports of Algorithm 1 with bins computed from the data (broken).

    Records in {0, …, levels − 1}; k equal bins on [min, max] of the data (one bin when
    all records are equal); each user k-RRs its bin once.  The declared law is the
    per-user ε the implementer believed.
    """

    def __init__(
        self,
        epsilon: float,
        n: int,
        k: int,
        levels: int,
        name: str = "local.rr_data_dependent_bins",
    ) -> None:
        self._k, self._n = int(k), int(n)
        self._keep = math.exp(epsilon) / (k + math.expm1(epsilon))
        spec = MechanismSpec(
            name=name,
            summary="Algorithm 1's reports with bins from the data's range (broken)",
            references=(BELL_2020,),
            input_domain=DatasetDomain(record=IntegerRange(lo=0, hi=levels - 1), size=n),
            relation=SubstituteOne(),
            statistic="every user's k-RR report",
            output_dimension=n,
            noise=FiniteRandomizer(
                law=FiniteOutputLaw(
                    alphabet=k,
                    length=n,
                    epsilon=epsilon,
                    description="one k-RR report per user (bins believed public)",
                )
            ),
            guarantee=PureDP(epsilon=epsilon),
        )
        super().__init__(spec)

    def cells(self, data: Any) -> np.ndarray:
        """Each record's bin on [min(data), max(data)] (the data-dependent quantizer)."""
        x = np.asarray(data, dtype=np.float64)
        lo, hi = float(x.min()), float(x.max())
        if hi == lo:
            return np.zeros(x.shape, dtype=np.int64)
        return np.minimum(np.floor((x - lo) * self._k / (hi - lo)), self._k - 1).astype(np.int64)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        cells = np.broadcast_to(self.cells(data), (size, self._n))
        return _rr_draw(np.ascontiguousarray(cells), self._k, self._keep, rng)

    def output_probabilities(self, data: Any) -> np.ndarray:
        return np.stack(
            [_rr_row(self._k, int(c), self._keep) for c in self.cells(self.validate_input(data))]
        )


def local_broken_cases() -> tuple[BenchmarkCase, ...]:
    """The three broken local randomizers (module docstring), each with its true ε."""
    eps, k, m = 1.0, 4, 3
    binary_keep = math.exp(eps) / (1.0 + math.exp(eps))
    return (
        BenchmarkCase(
            name="local.rr_rerandomized_per_pair",
            mechanism=LocalKaryRR(eps, k, copies=m, name="local.rr_rerandomized_per_pair"),
            true_epsilon=m * eps,
            claimed_epsilon=eps,
            input_pairs=((0, 1),),
            source=_SOURCE.format("LocalKaryRR(copies=3)"),
            notes="three independent eps-reports of the same cell: the all-true output has "
            "likelihood ratio e^(3 eps)",
        ),
        BenchmarkCase(
            name="local.rr_binary_keep_probability",
            mechanism=LocalKaryRR(
                eps, k, keep=binary_keep, name="local.rr_binary_keep_probability"
            ),
            true_epsilon=eps + math.log(k - 1),
            claimed_epsilon=eps,
            input_pairs=((0, 1),),
            source=_SOURCE.format("LocalKaryRR(keep=e^eps/(1+e^eps))"),
            notes="ratio p(k-1)/(1-p) = (k-1) e^eps between the true cell and another",
        ),
        BenchmarkCase(
            name="local.rr_data_dependent_bins",
            mechanism=DataDependentBinsRR(eps, 3, 2, 4),
            true_epsilon=3 * eps,
            claimed_epsilon=eps,
            input_pairs=((np.array([0, 1, 1]), np.array([3, 1, 1])),),
            source=_SOURCE.format("DataDependentBinsRR"),
            notes="(0,1,1) has bins edge 0.5 -> cells (0,1,1); (3,1,1) has edge 2 -> cells "
            "(1,0,0): every report's law changes, 3 eps by composition (the maximum)",
        ),
    )


def local_control_cases() -> tuple[BenchmarkCase, ...]:
    """The correct k-RR randomizer (k = 4, ε = 1), true ε = ε."""
    return (
        BenchmarkCase(
            name="control.local_krr",
            mechanism=LocalKaryRR(1.0, 4, name="control.local_krr"),
            true_epsilon=1.0,
            claimed_epsilon=1.0,
            input_pairs=((0, 1),),
            source=_SOURCE.format("LocalKaryRR"),
            notes="keep e^eps/(k + e^eps - 1), others 1/(k + e^eps - 1): ratio exactly e^eps",
        ),
    )
