"""Declare your own finite local randomizer and have it audited exactly.

Run it with ``python examples/finite_randomizer.py``.  The randomizer is *unary encoding*
(basic RAPPOR; Erlingsson, Pihur & Korolova, CCS 2014): a user with category x ∈ {0, …, k − 1}
sends k bits, bit j = 1[j = x] kept with probability p = e^{ε/2}/(1 + e^{ε/2}) and flipped
otherwise, each bit with its own coin.  Two categories differ in two bits, so the worst
log-likelihood ratio is 2·ln(p/(1 − p)) = ε.

What the declaration shows:

1. the law is a :class:`~spec.FiniteOutputLaw` of ``length = k`` binary coordinates whose
   coordinates are **independent** given the input (``independent=True``, the default);
   ε is stated once, in the claim (the law takes it), and so is the length (the spec's
   ``output_dimension`` is the law's);
2. the ``output_probabilities`` hook returns one row per coordinate, shape (k, 2), each
   row summing to 1 (to 10⁻⁹); the auditor computes the exact ε and δ(ε) from it, and tests
   the sampler against it — the marginals *and* the joint law of sampled tuples;
3. ``build_shared_coin`` is the same hook with a sampler that flips all bits with ONE coin:
   its marginals are right, but its bits are correlated, so the hook's exact ε does not
   describe it.  The audit's own samples refute the exact figure, and the report says so.

       privaudit audit examples/finite_randomizer.py:build_unary_encoding  # exit 0, exact ε = 1
       privaudit audit examples/finite_randomizer.py:build_shared_coin  # exit 1: refuted
"""

from __future__ import annotations

import math

import numpy as np

from privaudit import audit
from privaudit.mechanisms import FunctionMechanism, declare_mechanism
from privaudit.spec import (
    Categorical,
    FiniteOutputLaw,
    FiniteRandomizer,
    LocalRelation,
    MechanismSpec,
    PureDP,
)

CATEGORIES = 4
EPSILON = 1.0
#: Probability that each bit is reported truthfully.
KEEP = math.exp(EPSILON / 2) / (1 + math.exp(EPSILON / 2))


def unary_spec(name: str = "unary_encoding") -> MechanismSpec:
    """The claims: k independent binary coordinates, pure ε-DP in the local model."""
    return MechanismSpec(
        name=name,
        summary="each of the k one-hot bits kept with probability p, else flipped",
        input_domain=Categorical(size=CATEGORIES),
        relation=LocalRelation(),
        statistic="the one-hot encoding of the user's category",
        noise=FiniteRandomizer(
            law=FiniteOutputLaw(
                alphabet=2,
                length=CATEGORIES,
                independent=True,
                description=f"{CATEGORIES} bits, each kept with probability {KEEP:.4f}",
            )
        ),
        guarantee=PureDP(epsilon=EPSILON),
    )  # the law's epsilon is taken from here


def output_probabilities(x: int) -> np.ndarray:
    """Row j = (P[bit j = 0], P[bit j = 1]) given category x: shape (k, 2)."""
    one = np.where(np.arange(CATEGORIES) == int(x), KEEP, 1.0 - KEEP)
    return np.column_stack([1.0 - one, one])


def independent_bits(x: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` releases, one independent coin per bit."""
    truth = np.arange(CATEGORIES) == int(x)
    keep = rng.random((size, CATEGORIES)) < KEEP
    return (truth[None, :] == keep).astype(np.int64)


def shared_coin_bits(x: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """The broken sampler: one coin per release, shared by every bit."""
    truth = np.arange(CATEGORIES) == int(x)
    keep = rng.random((size, 1)) < KEEP
    return (truth[None, :] == keep).astype(np.int64)


def build_unary_encoding() -> FunctionMechanism:
    """Correct: the sampler draws the product law the hook declares."""
    return declare_mechanism(
        unary_spec(), independent_bits, output_probabilities=output_probabilities
    )


def build_shared_coin() -> FunctionMechanism:
    """Broken: right marginals, correlated bits (true ε = ∞: only two outputs per input)."""
    return declare_mechanism(
        unary_spec("unary_encoding_shared_coin"),
        shared_coin_bits,
        output_probabilities=output_probabilities,
    )


def main() -> None:
    good = audit(build_unary_encoding(), samples=20_000, seed=1)
    assert good.exact is not None  # a finite randomizer is audited exactly
    print(
        f"{good.mechanism}: {good.verdict}; exact ε = {good.exact.epsilon_exact:.4f} "
        f"({good.exact.coverage}); sampling cross-check ε ≥ {good.epsilon_lower_bound:.3f}"
    )
    bad = audit(build_shared_coin(), samples=20_000, seed=1)
    assert bad.exact is not None
    print(f"{bad.mechanism}: {bad.verdict}; exact figure refuted: {bad.exact.refuted}")
    print("  " + bad.check("noise_law").summary[:160])
    print("  " + bad.exact.refutation[:160])


if __name__ == "__main__":
    main()
