"""One user's Hadamard-response randomizer of Protocol B as an audited finite mechanism.

The user's view is its level(s), public row(s) and bit(s) (:mod:`.frequency_oracle`).
Symbols: variant S releases one symbol o = (2^{m+1} − 4) + 2j + [y = +1] for level m,
row j; variant C releases α coordinates, coordinate m − 1 being 2j + [y = +1] with
j < 2^m (alphabet 2^{α+1}; the unused symbols have probability 0).  Given the score s,

    P(m, j, y | s) = (1/α) 2^{−m} κ_y,   κ_y = e^e/(1 + e^e) if y = H[j, s >> (α − m)]
                                                 else 1/(1 + e^e),

so every likelihood ratio is at most e^e: e = ε for S, and α coordinates of e = ε/α for C
(Bell, Bellet, Gascón & Kulkarni, AISTATS 2020, Theorem 4; ``docs/ldp_ustat_study.md``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privaudit.mechanisms import Mechanism
from privaudit.spec import (
    Categorical,
    FiniteOutputLaw,
    FiniteRandomizer,
    LocalRelation,
    MechanismSpec,
    PureDP,
    check_epsilon,
)

from ._references import reference
from .frequency_oracle import Variant, hadamard_reports, hadamard_sign, oracle_budget
from .hierarchy import check_depth

__all__ = ["HadamardRandomizerMechanism"]


class HadamardRandomizerMechanism(Mechanism):
    """Protocol B's per-user randomizer over scores {0..2^α − 1}, variant S or C."""

    def __init__(
        self, alpha: int, epsilon: float, variant: Variant = "S", name: str | None = None
    ) -> None:
        self._alpha = check_depth(alpha)
        self._epsilon = check_epsilon(epsilon)
        self._e, _ = oracle_budget(self._epsilon, self._alpha, variant)
        self._variant = variant
        a = self._alpha
        if variant == "S":
            law = FiniteOutputLaw(
                alphabet=(1 << (a + 2)) - 4,
                length=1,
                epsilon=self._e,
                description="level m uniform in 1..alpha, row j uniform, one "
                "Hadamard bit kept w.p. e^eps/(1+e^eps)",
            )
        else:
            law = FiniteOutputLaw(
                alphabet=1 << (a + 1),
                length=a,
                epsilon=a * self._e,
                description="alpha Hadamard bits (one per level), each with budget eps/alpha",
            )
        spec = MechanismSpec(
            name=name or f"local_ustat.hr.{variant}",
            output_dimension=law.length,
            summary=f"Protocol B randomizer (variant {variant}) of one score in 0..{(1 << a) - 1}",
            references=(reference("Section 4, Theorem 4 (one-bit frequency oracle)"),),
            input_domain=Categorical(size=1 << a),
            relation=LocalRelation(),
            statistic="the user's discretized score (its tree prefixes)",
            noise=FiniteRandomizer(law=law),
            guarantee=PureDP(epsilon=self._epsilon),
            notes="labels and the level / row assignment are public; only scores are protected",
        )
        super().__init__(spec)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        rep = hadamard_reports(
            np.full(size, int(data), dtype=np.int64), self._alpha, self._epsilon, self._variant, rng
        )
        plus = (rep.bits > 0).astype(np.int64)
        if self._variant == "S":
            return ((1 << (rep.levels + 1)) - 4) + 2 * rep.rows + plus
        return 2 * rep.rows + plus

    def output_probabilities(self, data: Any) -> np.ndarray:
        s = int(self.validate_input(data))
        a = self._alpha
        kappa = 1.0 / (1.0 + math.exp(-self._e))
        blocks = []
        for m in range(1, a + 1):
            j = np.arange(1 << m)
            truth = hadamard_sign(j, np.int64(s >> (a - m)))
            p_plus = np.where(truth > 0, kappa, 1.0 - kappa) / (1 << m)
            block = np.empty(2 << m)
            block[0::2], block[1::2] = 1.0 / (1 << m) - p_plus, p_plus
            blocks.append(block)
        if self._variant == "S":
            return (np.concatenate(blocks) / a)[None, :]
        out = np.zeros((a, 1 << (a + 1)))
        for m, block in enumerate(blocks, start=1):
            out[m - 1, : block.size] = block
        return out
