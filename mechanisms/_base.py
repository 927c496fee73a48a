"""The mechanism protocol: a randomised algorithm that carries its spec.

Every mechanism — built in, estimator, or declared by a user — is a :class:`Mechanism`:

* :attr:`Mechanism.spec` is its :class:`~spec.MechanismSpec` (the claims);
* :meth:`Mechanism.sample` draws N independent outputs on one input in one vectorised
  call (the auditor's workhorse; never a Python loop of N releases);
* :meth:`Mechanism.release` is the convenient single release;
* the gray-box hooks :meth:`statistic`, :meth:`local_sensitivity_bound` and
  :meth:`smooth_sensitivity` expose what the sensitivity claims are about, so the
  auditor can check them deterministically; :meth:`output_probabilities` exposes the
  whole output law of a randomizer with finitely many outputs, so the auditor can
  compute its privacy exactly.  A mechanism that does not provide a hook says so
  through :meth:`provides`.

The auditor (``privaudit``) depends on this protocol and on ``spec``; nothing here
imports ``privaudit``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from privaudit.spec import MechanismSpec, RandomLike, as_generator
from privaudit.spec.errors import InvalidParameterError

__all__ = ["Mechanism", "check_sample_size"]

_HOOKS = (
    "statistic",
    "local_sensitivity_bound",
    "smooth_sensitivity",
    "output_probabilities",
    "float_image",
    "node_exposure",
    "pipeline",
)
"""The gray-box hooks :meth:`Mechanism.provides` knows (``float_image``: a user's model of
the sampler's floating-point image, issue 28; ``node_exposure``: local-node mechanisms,
issue 27; ``pipeline``: the release written through its DP primitives, for grey-box
replay, issue 48)."""


def check_sample_size(size: Any) -> int:
    """Return ``size`` as an int ≥ 1, or raise :class:`InvalidParameterError` naming it."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or int(size) < 1:
        raise InvalidParameterError(f"size must be an integer >= 1, got {size!r}")
    return int(size)


class Mechanism(ABC):
    """Abstract base of every mechanism.

    Subclasses implement :meth:`_sample` (validated input, int size, Generator) and may
    override the gray-box hooks.
    """

    #: Attributes that are not claims of the spec, so the consistency check never compares
    #: them with it (:class:`FunctionMechanism`'s ``rho`` is public randomness, not zCDP's ρ).
    non_claim_attributes: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, spec: MechanismSpec) -> None:
        if not isinstance(spec, MechanismSpec):
            raise InvalidParameterError(f"spec must be a MechanismSpec, got {type(spec).__name__}")
        self._spec = spec

    @property
    def spec(self) -> MechanismSpec:
        """The mechanism's claims."""
        return self._spec

    @property
    def name(self) -> str:
        """The spec's name."""
        return self._spec.name

    # -- sampling ------------------------------------------------------------------------
    def validate_input(self, data: Any) -> Any:
        """Validate ``data`` against the spec's input domain and return its canonical form."""
        return self._spec.input_domain.validate(data)

    def sample(
        self, data: Any, size: int, rng: RandomLike = None, *, budget: Any = None
    ) -> np.ndarray:
        """Draw ``size`` independent outputs of the mechanism on ``data``.

        Parameters
        ----------
        data : object
            An element of ``spec.input_domain`` (validated here).
        size : int
            Number of independent outputs N ≥ 1.
        rng : numpy.random.Generator, int or None
            Source of randomness (a seed for reproducible audits).
        budget : PrivacyBudget, optional
            Charged for ``size`` releases of this spec before any randomness is drawn
            (:mod:`mechanisms.accounting.budget`); a release that would exceed it raises
            :class:`~spec.errors.BudgetExceededError`.

        Returns
        -------
        numpy.ndarray
            Shape ``(size,)`` for scalar outputs, ``(size, d)`` for d-dimensional ones.
        """
        n = check_sample_size(size)
        validated = self.validate_input(data)
        if budget is not None:
            from .accounting.budget import charge  # local: accounting is optional here

            charge(budget, self._spec, estimator=self.name, count=n)
        return self._sample(validated, n, as_generator(rng))

    def release(self, data: Any, rng: RandomLike = None, *, budget: Any = None) -> Any:
        """One private release on ``data`` (a float, int or vector); ``budget`` as in ``sample``."""
        out = self.sample(data, 1, rng, budget=budget)[0]
        return out.item() if np.ndim(out) == 0 else out

    @abstractmethod
    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """Draw ``size`` outputs on validated ``data`` with generator ``rng``."""

    # -- gray-box hooks --------------------------------------------------------------------
    def provides(self, hook: str) -> bool:
        """Whether the mechanism implements the gray-box hook ``hook``.

        ``hook`` is one of ``"statistic"``, ``"local_sensitivity_bound"``,
        ``"smooth_sensitivity"``, ``"output_probabilities"``, ``"float_image"``,
        ``"node_exposure"`` and ``"pipeline"``.
        """
        if hook not in _HOOKS:
            raise InvalidParameterError(f"unknown hook {hook!r}; expected one of {_HOOKS}")
        return getattr(type(self), hook) is not getattr(Mechanism, hook)

    def pipeline(self, data: Any, noise: Any) -> Any:
        """One release on ``data`` with every noise draw made through a DP primitive of
        ``noise``, a :class:`privaudit.auditing.replay.NoiseRecorder` (gray-box hook; the
        auditor replays it on neighbours, ``docs/replay.md``)."""
        raise NotImplementedError(f"{type(self).__name__} does not expose its primitives")

    def statistic(self, data: Any) -> Any:
        """The exact value f(D) the mechanism privatises (gray-box hook)."""
        raise NotImplementedError(f"{type(self).__name__} does not expose its statistic")

    def local_sensitivity_bound(self, data: Any) -> float:
        """The claimed bound B(D) ≥ LS_f(D) (gray-box hook)."""
        raise NotImplementedError(f"{type(self).__name__} declares no local sensitivity bound")

    def smooth_sensitivity(self, data: Any) -> float:
        """The claimed β-smooth upper bound S(D) on LS_f(D) (gray-box hook)."""
        raise NotImplementedError(f"{type(self).__name__} declares no smooth sensitivity")

    def output_probabilities(self, data: Any) -> np.ndarray:
        """The exact output law on ``data`` of a finite randomizer (gray-box hook).

        Returns an array of shape ``(length, alphabet)`` whose row ``c`` is the law of
        coordinate ``c`` of one release (the coordinates are independent given the
        input), as declared by a :class:`~spec.FiniteRandomizer` spec.  The auditor
        computes the exact ε and δ(ε) from it (:mod:`privaudit.auditing.exact.privacy`) and checks
        it against the sampler.
        """
        raise NotImplementedError(f"{type(self).__name__} does not expose its output law")

    def float_image(self, outputs: Any, centre: float) -> np.ndarray:
        """The sampler's float image: which ``outputs`` it can produce when f(D) = ``centre``.

        A user-supplied model of the floating-point computation of a scalar additive
        mechanism (gray-box hook), for a sampler that the floating-point check
        (:mod:`privaudit.auditing.checks.float_image`) does not model itself (any law other than
        numpy's ``Generator.laplace`` and the lattice laws, e.g. another library's
        Laplace).  Returns a boolean array of the shape of ``outputs``: True where the
        sampler can output the float exactly.  A False must be exact (the check reports
        it as an impossible output under the neighbour: ε = ∞ for the float
        implementation, Mironov, ACM CCS 2012, §3).
        """
        raise NotImplementedError(f"{type(self).__name__} declares no float image")

    def node_exposure(self) -> np.ndarray:
        """How exposed each node is under the mechanism's public randomness ρ (hook).

        For a local-node mechanism (``LocalNodeRelation`` specs): n non-negative weights,
        larger for a node whose adjacency list more messages read under the realised ρ
        (e.g. X_v(ρ) = #{t : v ∈ S_t} in Algorithm 7 of Raskhodnikova, Smith, Wagaman &
        Zavyalov, arXiv:2602.15802).  The auditor rewires the most exposed nodes first.
        """
        raise NotImplementedError(f"{type(self).__name__} does not report node exposure")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._spec.name!r} {self._spec.content_hash[:19]}>"
