"""The accuracy claim of a spec: validation, serialisation and hash stability.

A spec without a claim must hash exactly as before the ``accuracy`` field existed, or every
registry certificate would go stale: the stored specs of ``builtin_certificates/`` are
re-hashed, and the specs built by the registry's factories compared with them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from privaudit.spec import (
    AccuracyClaim,
    DatasetDomain,
    GlobalSensitivity,
    InconsistentSpecError,
    InvalidParameterError,
    Laplace,
    MechanismSpec,
    PureDP,
    RealInterval,
    Reference,
    SubstituteOne,
)
from privaudit.spec import AdditiveNoise as Additive
from privaudit.spec.errors import ParameterTypeError

CERTIFICATES = Path(__file__).resolve().parents[3] / "privaudit" / "trust" / "builtin_certificates"
SOURCE = Reference(citation="Laplace tail", locator="docs/derivations.md §13")


def _claim(**overrides):
    fields = {"bound": 0.003, "failure_probability": 0.05, "source": SOURCE}
    fields.update(overrides)
    return AccuracyClaim(**fields)


def _spec(accuracy=None, dimension=1):
    return MechanismSpec(
        name="mean",
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=10),
        relation=SubstituteOne(),
        output_dimension=dimension,
        sensitivity=(GlobalSensitivity(value=0.1),),
        noise=Additive(law=Laplace(scale=0.1)),
        guarantee=PureDP(epsilon=1.0),
        accuracy=accuracy,
    )


@pytest.mark.parametrize("bound", [0.0, -1.0, math.inf, math.nan])
def test_bound_must_be_finite_and_positive(bound):
    with pytest.raises(InvalidParameterError, match="accuracy bound alpha"):
        _claim(bound=bound)


@pytest.mark.parametrize("beta", [0.0, 1.0, -0.1, 1.5, math.nan])
def test_failure_probability_in_open_unit_interval(beta):
    with pytest.raises(InvalidParameterError, match="failure probability beta"):
        _claim(failure_probability=beta)


def test_non_numbers_and_unknown_norms_are_refused():
    with pytest.raises(ParameterTypeError):
        _claim(bound="0.1")
    with pytest.raises(InvalidParameterError, match="error"):
        _claim(error="l3")
    with pytest.raises(InvalidParameterError, match="target"):
        _claim(target="sample")


def test_absolute_error_needs_a_scalar_release():
    with pytest.raises(InconsistentSpecError, match="output_dimension = 3"):
        _spec(_claim(), dimension=3)
    assert _spec(_claim(error="linf"), dimension=3).accuracy.error == "linf"


def test_a_claim_round_trips_and_changes_the_hash():
    plain, claimed = _spec(), _spec(_claim())
    assert "accuracy" not in json.loads(plain.canonical_json())
    assert json.loads(claimed.canonical_json())["accuracy"]["bound"] == 0.003
    assert MechanismSpec.from_json(claimed.to_json()) == claimed
    assert MechanismSpec.from_json(plain.to_json()) == plain
    assert claimed.content_hash != plain.content_hash
    assert _spec(_claim(bound=0.004)).content_hash != claimed.content_hash
    assert "P[|M − f(x)| > 0.003] ≤ 0.05" in claimed.describe()


def test_stored_certificate_specs_hash_as_recorded():
    """Every certified spec (none has a claim) re-hashes to its recorded hash."""
    files = sorted(CERTIFICATES.glob("*.json"))
    assert len(files) >= 50
    for path in files:
        cert = json.loads(path.read_text("utf-8"))
        spec = MechanismSpec.model_validate(cert["spec"])
        assert spec.content_hash == cert["spec_hash"], path.name


@pytest.mark.parametrize("name", ["laplace", "randomized_response", "smooth_median_laplace"])
def test_registry_specs_keep_their_certified_hash(name):
    from privaudit import registry

    entry = registry.entry(name)
    cert = json.loads(Path(entry.certificate_path).read_text("utf-8"))
    assert entry.create().spec.content_hash == cert["spec_hash"]
