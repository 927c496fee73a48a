"""Certificates of mechanisms that draw randomness of their own (issue 28).

A library sampler that ignores the injected generator gives another audit for the same
seed, so a bit-identical re-run is impossible.  ``certify`` detects it, records
``reproducible = False`` and says so; ``verify`` then re-runs the audit independently and
compares verdict and check statuses.  The wrapped library's version is recorded, and a
certificate goes stale when it changes.  The mechanisms are written here.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from privaudit import AuditConfig
from privaudit.mechanisms import from_scalar_sampler
from privaudit.spec import (
    AdditiveNoise,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    QueryDistance,
    RealInterval,
)
from privaudit.spec.errors import InvalidParameterError
from privaudit.trust.certificates import Certificate, certify
from privaudit.trust.reproducibility import check_generator_determinism
from privaudit.trust.verify import verify_certificate

FAST = AuditConfig(
    samples=100_000,
    confidence=0.99,
    pilot_samples=1_000,
    pair_budget=8,
    pairs_tested=2,
    claim_budget=40,
)
SPEC = MechanismSpec(
    name="library_laplace",
    input_domain=RealInterval(lo=-5.0, hi=5.0),
    relation=QueryDistance(norm="l1", radius=1.0),
    statistic="the value itself",
    sensitivity=(GlobalSensitivity(value=1.0),),
    noise=AdditiveNoise(law=Laplace(scale=1.0)),
    guarantee=PureDP(epsilon=1.0),
)


class OwnRandomness:
    """A 'library' Laplace release that draws from a generator of its own.

    A real library seeds it from the OS; here each instance gets the next seed of a
    counter, so that the tests stay reproducible while the mechanism still ignores the
    generator it is given (its state moves on between two draws with the same seed).
    """

    _instances = itertools.count()

    def __init__(self) -> None:
        self.own = np.random.default_rng([28, next(self._instances)])

    def __call__(self, x, rng):
        return x + self.own.laplace(0.0, 1.0)


def _unseeded():
    return from_scalar_sampler(SPEC, OwnRandomness(), statistic=float, library="numpy")


def _seeded():
    return from_scalar_sampler(SPEC, lambda x, rng: x + rng.laplace(0.0, 1.0), statistic=float)


def test_determinism_check_tells_the_two_apart():
    assert check_generator_determinism(_seeded()).reproducible
    found = check_generator_determinism(_unseeded(), samples=16)
    assert not found.reproducible and found.samples == 16
    assert "differ in" in found.reason and "source of its own" in found.reason


@pytest.mark.parametrize("kwargs", [{"seed": -1}, {"samples": 1}, {"samples": True}])
def test_determinism_check_refuses_bad_arguments(kwargs):
    with pytest.raises(InvalidParameterError):
        check_generator_determinism(_seeded(), **kwargs)


@pytest.fixture(scope="module")
def unseeded_cert() -> Certificate:
    return certify(_unseeded(), config=FAST, source="privaudit_test:none")


def test_certify_records_and_states_that_the_audit_is_not_reproducible(unseeded_cert):
    assert unseeded_cert.reproducible is False
    assert any("not reproducible from the seed" in note for note in unseeded_cert.notes)
    assert "no: the mechanism draws randomness of its own" in unseeded_cert.summary()
    # the wrapped library is recorded with the third-party code, never hashed
    assert unseeded_cert.third_party.get("numpy") == np.__version__
    assert f"numpy {np.__version__}" in unseeded_cert.summary()
    loaded = Certificate.from_json(unseeded_cert.to_json())
    assert loaded.reproducible is False and loaded.third_party == unseeded_cert.third_party


def test_verify_re_runs_independently_instead_of_refusing_forever(unseeded_cert):
    result = verify_certificate(unseeded_cert, mechanism=_unseeded())
    assert result.verified and result.mode == "independent", result.problems
    assert "re-run independently" in result.summary()
    # the same certificate judged bit for bit would not reproduce: that is what it avoids
    strict = unseeded_cert.model_copy(update={"reproducible": True})
    assert not verify_certificate(strict, mechanism=_unseeded()).verified


def test_a_seeded_sampler_stays_bit_identical():
    cert = certify(_seeded(), config=FAST, source="privaudit_test:none")
    assert cert.reproducible
    assert verify_certificate(cert, mechanism=_seeded()).mode == "bit-identical"


def test_an_upgraded_wrapped_library_is_reported_never_stale(unseeded_cert, monkeypatch):
    """Issue 25: a third-party version difference is reported ("certified with numpy A,
    running B"), and verify then compares by its tolerance rule; it is never staleness."""
    mechanism = _unseeded()
    assert unseeded_cert.status_for(mechanism).current
    cert = unseeded_cert.model_copy(
        update={"third_party": {**unseeded_cert.third_party, "numpy": "0.0.1"}}
    )
    assert cert.status_for(mechanism).current
    assert f"certified with numpy 0.0.1, running {np.__version__}" in cert.version_differences()


TARGET = """
import numpy as np
from privaudit.mechanisms import from_scalar_sampler
from privaudit.spec import (AdditiveNoise, GlobalSensitivity, Laplace, MechanismSpec, PureDP,
                  QueryDistance, RealInterval)

OWN = np.random.default_rng([28, 1])  # the "library's" own generator, not the audit's


def build():
    spec = MechanismSpec(
        name="cli_library_laplace", input_domain=RealInterval(lo=-5.0, hi=5.0),
        relation=QueryDistance(norm="l1", radius=1.0), statistic="the value itself",
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=1.0)), guarantee=PureDP(epsilon=1.0))
    return from_scalar_sampler(spec, lambda x, rng: x + OWN.laplace(0.0, 1.0),
                               statistic=float, library="numpy")
"""


def test_the_command_line_says_so_and_verify_accepts_the_certificate(tmp_path, capsys):
    from privaudit.interfaces.cli import main

    target = tmp_path / "library_mech.py"
    target.write_text(TARGET, encoding="utf-8")
    out_path = tmp_path / "cert.json"
    code = main(
        [
            "certify",
            f"{target}:build",
            "--samples",
            "100000",
            "--seed",
            "3",
            "-o",
            str(out_path),
            "-q",
        ]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    assert "'cli_library_laplace' is not reproducible from the seed" in err
    cert = Certificate.from_json(out_path.read_text(encoding="utf-8"))
    assert cert.reproducible is False and cert.third_party.get("numpy") == np.__version__
    assert main(["verify", str(out_path), "-q"]) == 0
