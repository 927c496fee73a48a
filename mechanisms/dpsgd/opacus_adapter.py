"""Opacus's DP-SGD as a mechanism: its batch selection and noise, on a one-weight model.

Opacus (Yousefpour et al., "Opacus: User-Friendly Differential Privacy Library in
PyTorch", 2021; ``pip install privaudit[opacus]``) is the most used DP-SGD library.  Its
two privacy-relevant parts are audited here, black-box, exactly as it runs them:

* batch selection: :class:`opacus.data_loader.DPDataLoader`, Poisson sampling at rate
  ``b/n`` (``UniformWithReplacementSampler``);
* clipping and noise: :class:`opacus.optimizers.DPOptimizer` on a
  :class:`opacus.GradSampleModule` (per-example gradients, each clipped to norm ``C``,
  summed, plus N(0, (σC)²)).

The model is one weight ``w`` with loss ``−w·x`` on a record ``x`` (so the per-example
gradient is ``−x``), trained by plain SGD with learning rate 1 and ``loss_reduction="sum"``:
then ``w_t − w_{t−1} = Σ_{i ∈ B_t} clip_C(x_i) + N(0, (σC)²)`` (up to the noise's sign),
and the release — the T parameter increments — is exactly an ABLQ release with Poisson
batches (:class:`~mechanisms.dpsgd.ABLQMechanism`, Chua et al., ICML 2024).  The
mechanism therefore carries the spec of ``ABLQMechanism("poisson", …)``: the claim our
PLD accountant proves for Poisson subsampling, under substitute-one.

Randomness: each call seeds one :class:`torch.Generator` from the injected numpy
generator and hands it to the data loader and the optimizer (``secure_mode=False``), so
releases are reproducible from the seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privaudit.spec.errors import InvalidParameterError

from .._base import Mechanism
from .ablq import ABLQMechanism

__all__ = ["OpacusDPSGD", "opacus_available"]


def opacus_available() -> bool:
    """Whether ``torch`` and ``opacus`` import."""
    try:
        import opacus  # noqa: F401  # imported to check that the extra is installed
        import torch  # noqa: F401  # imported to check that the extra is installed
    except ImportError:
        return False
    return True


class OpacusDPSGD(Mechanism):
    """``steps`` Opacus DP-SGD steps (Poisson batches of expected size ``batch_size`` of
    ``n`` scalar records, clip ``clip_norm``, noise multiplier ``sigma``) on a one-weight
    model; the release is the ``steps`` weight increments (module docstring)."""

    def __init__(
        self,
        n: int,
        batch_size: int,
        steps: int,
        sigma: float,
        delta: float = 1e-5,
        *,
        clip_norm: float = 1.0,
        name: str = "dpsgd.opacus.poisson",
    ) -> None:
        if not opacus_available():
            raise InvalidParameterError(
                "OpacusDPSGD needs torch and opacus: pip install 'privaudit[opacus]'"
            )
        self.reference = ABLQMechanism(
            "poisson", n, batch_size, steps, sigma, delta, clip_norm=clip_norm, name=name
        )
        super().__init__(self.reference.spec)
        self.n, self.batch_size, self.steps = n, batch_size, steps
        self.sigma, self.clip_norm = float(sigma), float(clip_norm)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        import torch
        from opacus import GradSampleModule
        from opacus.data_loader import DPDataLoader
        from opacus.optimizers import DPOptimizer

        gen = torch.Generator().manual_seed(int(rng.integers(0, 2**62)))
        records = torch.as_tensor(
            np.asarray(data, dtype=np.float64).reshape(-1, 1), dtype=torch.float64
        )
        dataset = torch.utils.data.TensorDataset(records)
        loader = DPDataLoader(dataset, sample_rate=self.batch_size / self.n, generator=gen)
        model = GradSampleModule(torch.nn.Linear(1, 1, bias=False).double())
        optimizer = DPOptimizer(
            torch.optim.SGD(model.parameters(), lr=1.0),
            noise_multiplier=self.sigma,
            max_grad_norm=self.clip_norm,
            expected_batch_size=self.batch_size,
            loss_reduction="sum",
            generator=gen,
        )
        weight = next(model.parameters())
        out = np.empty((size, self.steps))
        for run in range(size):
            with torch.no_grad():
                weight.zero_()
            batches = iter(loader)
            previous = 0.0
            for t in range(self.steps):
                try:
                    (x,) = next(batches)
                except StopIteration:  # a new pass over the data
                    batches = iter(loader)
                    (x,) = next(batches)
                optimizer.zero_grad()
                (-model(x).sum()).backward()
                optimizer.step()
                now = float(weight.detach().reshape(()))
                out[run, t] = now - previous
                previous = now
        return out
