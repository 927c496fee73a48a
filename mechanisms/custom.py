"""Declare a new mechanism in a few lines: a spec plus a batched sampling function.

>>> import numpy as np
>>> from privaudit.spec import (MechanismSpec, PureDP, DatasetDomain, RealInterval, SubstituteOne,
...                   GlobalSensitivity, AdditiveNoise, Laplace)
>>> from privaudit.mechanisms import declare_mechanism
>>> n, eps = 100, 1.0
>>> spec = MechanismSpec(
...     name="noisy_mean", input_domain=DatasetDomain(record=RealInterval(lo=0, hi=1), size=n),
...     relation=SubstituteOne(), statistic="mean of the records",
...     sensitivity=(GlobalSensitivity(value=1 / n),),
...     noise=AdditiveNoise(law=Laplace(scale=1 / (n * eps))), guarantee=PureDP(epsilon=eps))
>>> noisy_mean = declare_mechanism(
...     spec, sampler=lambda x, size, rng: x.mean() + rng.laplace(0.0, 1 / (n * eps), size),
...     statistic=lambda x: x.mean())
>>> noisy_mean.sample(np.full(n, 0.5), size=3, rng=0).shape
(3,)

The sampler receives the *validated* input, the number of outputs and a
``numpy.random.Generator``, and must return ``size`` outputs in one call.  Nothing ties the
sampler to the spec except the auditor: that is the point of auditing it.

A local-node mechanism (``LocalNodeRelation`` spec) also declares which output coordinates
each node sends (``layout=``, a :class:`~spec.MessageLayout` or a list of block sizes) and
its public randomness (``public_randomness=`` a :class:`~spec.PublicRandomness`, with the
realised value ``rho=`` and ``exposure=``, a function ρ → n weights saying which nodes ρ
exposes most); both enter the spec's relation (``examples/lndp_mechanism.py``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from privaudit.spec import (
    FiniteRandomizer,
    GraphDomain,
    LocalNodeRelation,
    MechanismSpec,
    MessageLayout,
    PublicRandomness,
    RandomizedResponse,
    public_randomness_digest,
)
from privaudit.spec.errors import (
    InconsistentSpecError,
    InvalidParameterError,
    NonNumericOutputError,
    OutputShapeError,
    PrivauditWarning,
    UnsupportedCombinationError,
)

from ._base import Mechanism

__all__ = ["FunctionMechanism", "declare_mechanism"]

Sampler = Callable[[Any, int, np.random.Generator], Any]


class FunctionMechanism(Mechanism):
    """A mechanism made of a spec and plain functions (see :func:`declare_mechanism`)."""

    #: ``rho`` is the realised public randomness, never the ρ of a zCDP claim.
    non_claim_attributes: ClassVar[frozenset[str]] = frozenset({"rho"})

    def __init__(
        self,
        spec: MechanismSpec,
        sampler: Sampler,
        *,
        statistic: Callable[[Any], Any] | None = None,
        local_sensitivity_bound: Callable[[Any], float] | None = None,
        smooth_sensitivity: Callable[[Any], float] | None = None,
        output_probabilities: Callable[[Any], Any] | None = None,
        rho: Any = None,
        exposure: Callable[[Any], Any] | None = None,
    ) -> None:
        super().__init__(spec)
        for name, fn in (
            ("sampler", sampler),
            ("statistic", statistic),
            ("local_sensitivity_bound", local_sensitivity_bound),
            ("smooth_sensitivity", smooth_sensitivity),
            ("output_probabilities", output_probabilities),
            ("exposure", exposure),
        ):
            if fn is not None and not callable(fn):
                raise InvalidParameterError(f"{name} must be callable, got {fn!r}")
        self._sampler = sampler
        self._statistic = statistic
        self._local = local_sensitivity_bound
        self._smooth = smooth_sensitivity
        self._probabilities = output_probabilities
        self._rho = rho
        self._exposure = exposure

    @property
    def rho(self) -> Any:
        """The realised public randomness (``None`` when the mechanism has none)."""
        return self._rho

    def provides(self, hook: str) -> bool:
        super().provides(hook)  # validates the name
        return {
            "statistic": self._statistic,
            "local_sensitivity_bound": self._local,
            "smooth_sensitivity": self._smooth,
            "output_probabilities": self._probabilities,
            "node_exposure": self._exposure,
        }.get(hook) is not None

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        # the protocol's promise (an array of ``size`` rows) for every caller; the auditor
        # checks the rest of what the spec declares (privaudit.auditing.sampler_outputs)
        raw = self._sampler(data, size, rng)
        who = f"sampler {self.name!r}"
        try:
            out = np.asarray(raw)
        except (ValueError, TypeError):  # ragged rows
            raise NonNumericOutputError(
                f"{who} returned a {type(raw).__name__} that is not a rectangular array of "
                f"numbers; expected {size} outputs"
            ) from None
        if out.ndim == 0 and out.dtype.kind == "O":
            shown = "None" if raw is None else f"a {type(raw).__name__}"
            raise NonNumericOutputError(f"{who} returned {shown}; expected {size} outputs")
        if out.ndim == 0:
            raise OutputShapeError(f"{who} returned a single number; expected {size} outputs")
        if out.shape[0] != size:
            raise OutputShapeError(
                f"{who} returned {out.shape[0]} outputs for size={size} (shape {out.shape})"
            )
        return out

    def statistic(self, data: Any) -> Any:
        if self._statistic is None:
            return super().statistic(data)
        return self._statistic(self.validate_input(data))

    def local_sensitivity_bound(self, data: Any) -> float:
        if self._local is None:
            return super().local_sensitivity_bound(data)
        return float(self._local(self.validate_input(data)))

    def smooth_sensitivity(self, data: Any) -> float:
        if self._smooth is None:
            return super().smooth_sensitivity(data)
        return float(self._smooth(self.validate_input(data)))

    def output_probabilities(self, data: Any) -> np.ndarray:
        if self._probabilities is None:
            return super().output_probabilities(data)
        return np.asarray(self._probabilities(self.validate_input(data)), dtype=np.float64)

    def node_exposure(self) -> np.ndarray:
        if self._exposure is None:
            return super().node_exposure()
        weights = np.asarray(self._exposure(self._rho), dtype=np.float64).reshape(-1)
        domain = self.spec.input_domain
        if not isinstance(domain, GraphDomain):  # exposure= is admitted on local-node specs only
            raise UnsupportedCombinationError(
                f"exposure of {self.name!r} weighs graph nodes, but the input domain is "
                f"{domain.label()}"
            )
        n = domain.n_nodes
        if weights.shape != (n,) or not np.all(np.isfinite(weights)) or np.any(weights < 0):
            raise InvalidParameterError(
                f"exposure of {self.name!r} must return {n} finite non-negative weights, got "
                f"shape {weights.shape}"
            )
        return weights


def _check_digest(public_randomness: PublicRandomness, rho: Any) -> None:
    """A declared digest must be the digest of the ρ the sampler uses."""
    if public_randomness.digest is None:
        return
    if rho is None:
        raise InvalidParameterError(
            f"public_randomness declares the digest {public_randomness.digest} but no rho= "
            "is given: pass the realised public randomness so that the digest can be checked"
        )
    actual = public_randomness_digest(rho)
    if actual != public_randomness.digest:
        raise InconsistentSpecError(
            f"public_randomness declares the digest {public_randomness.digest} but the rho "
            f"given has the digest {actual}: the spec would pin another rho than the one "
            "the sampler uses"
        )


def _local_node_spec(
    spec: MechanismSpec, layout: Any, public_randomness: Any, exposure: Any, rho: Any = None
) -> MechanismSpec:
    """``spec`` with ``layout`` and ``public_randomness`` entered into its relation."""
    if layout is None and public_randomness is None:
        if exposure is not None and not isinstance(spec.relation, LocalNodeRelation):
            raise UnsupportedCombinationError(
                f"exposure= is a hook of local-node mechanisms; {spec.name!r} uses the "
                f"{spec.relation.kind!r} relation"
            )
        return spec
    if not isinstance(spec.relation, LocalNodeRelation):
        raise UnsupportedCombinationError(
            f"layout= and public_randomness= describe local-node mechanisms; {spec.name!r} "
            f"uses the {spec.relation.kind!r} relation"
        )
    update: dict[str, Any] = {}
    if layout is not None:
        if isinstance(layout, MessageLayout):
            update["layout"] = layout
        elif isinstance(layout, (int, np.integer)) and not isinstance(layout, bool):
            update["layout"] = MessageLayout.equal(int(layout))
        elif isinstance(layout, Sequence) and all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in layout
        ):
            update["layout"] = MessageLayout.consecutive(layout)
        else:
            raise InvalidParameterError(
                f"layout must be a MessageLayout, a list of block sizes or one block size "
                f"for every node, got {layout!r}"
            )
    if public_randomness is not None:
        if not isinstance(public_randomness, PublicRandomness):
            raise InvalidParameterError(
                f"public_randomness must be a spec.PublicRandomness, got {public_randomness!r}"
            )
        _check_digest(public_randomness, rho)
        update["public_randomness"] = public_randomness
    relation = spec.relation.model_copy(update=update)
    # rebuild (not model_copy) so that MechanismSpec checks the layout against the output
    return MechanismSpec.model_validate({**dict(spec), "relation": relation})


def declare_mechanism(
    spec: MechanismSpec,
    sampler: Sampler,
    *,
    statistic: Callable[[Any], Any] | None = None,
    local_sensitivity_bound: Callable[[Any], float] | None = None,
    smooth_sensitivity: Callable[[Any], float] | None = None,
    output_probabilities: Callable[[Any], Any] | None = None,
    layout: MessageLayout | Sequence[int] | int | None = None,
    public_randomness: PublicRandomness | None = None,
    rho: Any = None,
    exposure: Callable[[Any], Any] | None = None,
) -> FunctionMechanism:
    """Declare a mechanism from its spec and a batched sampling function.

    Parameters
    ----------
    spec : MechanismSpec
        The claims (validated for internal consistency when it was built).
    sampler : callable ``(data, size, rng) -> array``
        Draws ``size`` independent outputs on validated ``data`` with the Generator ``rng``.
    statistic, local_sensitivity_bound, smooth_sensitivity : callable, optional
        The gray-box hooks the auditor uses to check the sensitivity claims.
    output_probabilities : callable, optional
        ``data -> array (length, alphabet)``: the exact output law of a finite randomizer
        (:class:`~spec.FiniteRandomizer` specs), used by the exact audit.  Passed with a
        spec that declares no finite output law it cannot be used: a
        :class:`~spec.PrivauditWarning` names it.
    layout : MessageLayout, list of int or int, optional
        Local-node mechanisms: the output coordinates of each node's message (a list of
        block sizes means consecutive blocks in node order; an int, that many coordinates
        for every node).  Entered into the spec's
        :class:`~spec.LocalNodeRelation`.
    public_randomness : PublicRandomness, optional
        Local-node mechanisms: how the public randomness ρ is drawn and what it reveals
        (entered into the spec's relation).
    rho : any, optional
        The realised public randomness the sampler uses; passed to ``exposure``.
    exposure : callable ``rho -> array (n,)``, optional
        The ``node_exposure`` hook: how exposed each node is under ρ (e.g. how many
        messages read its list).  The auditor rewires the most exposed nodes first.

    Returns
    -------
    FunctionMechanism

    Raises
    ------
    UnsupportedCombinationError
        If ``layout``, ``public_randomness`` or ``exposure`` is given for a spec that is
        not under ``LocalNodeRelation``.
    InconsistentSpecError
        If the layout does not split ``output_dimension`` into one block per node.
    """
    if output_probabilities is not None and not isinstance(
        spec.noise, (FiniteRandomizer, RandomizedResponse)
    ):
        warnings.warn(
            f"output_probabilities is ignored for {spec.name!r}: its spec declares "
            f"{type(spec.noise).__name__ if spec.noise is not None else 'no noise'}, not a "
            "finite output law (noise=FiniteRandomizer(...)), so the exact audit cannot use "
            "the hook",
            PrivauditWarning,
            stacklevel=2,
        )
    spec = _local_node_spec(spec, layout, public_randomness, exposure, rho)
    return FunctionMechanism(
        spec,
        sampler,
        statistic=statistic,
        local_sensitivity_bound=local_sensitivity_bound,
        smooth_sensitivity=smooth_sensitivity,
        output_probabilities=output_probabilities,
        rho=rho,
        exposure=exposure,
    )
