"""Certificates: implementation hash, certify, JSON round trip, staleness, refusal."""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from privaudit import AuditConfig, Certificate, audit, certify
from privaudit.mechanisms import LaplaceMechanism, smooth_median_mechanism
from privaudit.spec import MechanismSpec
from privaudit.spec.errors import CertificateError
from privaudit.trust.certificates import (
    STATEMENT,
    CertificateStatus,
    claim_text,
    implementation_hash,
    load_certificate,
)

FAST = AuditConfig(
    samples=100_000,
    confidence=0.99,
    pilot_samples=1_000,
    pair_budget=12,
    pairs_tested=2,
    claim_budget=40,
)

USER_MODULE = '''
"""A user's mechanism, declared from a spec and a sampler."""
import numpy as np
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (AdditiveNoise, DatasetDomain, GlobalSensitivity, Laplace, MechanismSpec,
                  PureDP, RealInterval, SubstituteOne)

N, EPS = 50, 1.0
NOISE_FACTOR = {factor}


def _spec(version="1"):
    return MechanismSpec(
        name="user_mean", version=version,
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N),
        relation=SubstituteOne(), statistic="mean of the records",
        sensitivity=(GlobalSensitivity(value=1 / N),),
        noise=AdditiveNoise(law=Laplace(scale=1 / (N * EPS))), guarantee=PureDP(epsilon=EPS))


def sampler(x, size, rng):
    return x.mean() + rng.laplace(0.0, NOISE_FACTOR / (N * EPS), size)


def make(version="1"):
    return declare_mechanism(_spec(version), sampler=sampler, statistic=lambda x: x.mean())
'''


def _user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, factor: float = 1.0):
    """Write a uniquely named user module to ``tmp_path`` and import it."""
    name = f"user_mech_{uuid.uuid4().hex[:10]}"
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(USER_MODULE.format(factor=factor)), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    monkeypatch.setitem(sys.modules, name, module)
    return module, path


@pytest.fixture(scope="module")
def laplace_certificate() -> Certificate:
    return certify(LaplaceMechanism(1.0, 1.0), config=FAST)


# -- the implementation hash -----------------------------------------------------------------
def test_implementation_hash_covers_the_class_hierarchy_and_the_noise_law():
    digest, modules = implementation_hash(LaplaceMechanism(1.0, 1.0))
    assert digest.startswith("sha256:") and len(digest) == 7 + 64
    assert list(modules) == sorted(modules)
    assert {
        "privaudit.mechanisms._base",
        "privaudit.mechanisms.additive",
        "privaudit.spec.noise.continuous",
    } <= set(modules)
    assert not any(m.split(".")[0] in {"numpy", "scipy", "pydantic", "abc"} for m in modules)
    # deterministic, and independent of the instance
    assert implementation_hash(LaplaceMechanism(1.0, 1.0))[0] == digest
    assert implementation_hash(LaplaceMechanism(0.5, 2.0))[0] == digest


def test_implementation_hash_covers_held_callables_and_closures():
    _, modules = implementation_hash(smooth_median_mechanism(11, 0.0, 1.0, 1.0))
    assert "privaudit.mechanisms.smooth_sensitivity" in modules
    from privaudit.estimators import bounded_mean_mechanism

    _, modules = implementation_hash(bounded_mean_mechanism(10, 0.0, 1.0, 1.0))
    assert "privaudit.estimators.bounded_mean" in modules  # the statistic lambda lives there


def test_implementation_hash_covers_a_class_held_directly_as_a_value():
    # regression: a class reached first as a held callable was marked seen before its
    # MRO was walked, so its own module was never hashed
    from privaudit.estimators.models.random_geometric import RandomGeometricGraph

    mech = LaplaceMechanism(1.0, 1.0)
    mech.result_type = RandomGeometricGraph
    _, modules = implementation_hash(mech)
    assert "privaudit.estimators.models.random_geometric" in modules


def test_user_module_is_hashed_and_an_edit_changes_the_hash(tmp_path, monkeypatch):
    module, path = _user_module(tmp_path, monkeypatch)
    mech = module.make()
    before, modules = implementation_hash(mech)
    assert module.__name__ in modules and "privaudit.mechanisms.custom" in modules
    path.write_text(path.read_text(encoding="utf-8") + "\n# an edit\n", encoding="utf-8")
    after, _ = implementation_hash(mech)
    assert after != before


def test_other_code_in_the_same_module_hashes_differently(tmp_path, monkeypatch):
    module, _ = _user_module(tmp_path, monkeypatch)
    from privaudit.mechanisms import declare_mechanism

    mech = module.make()
    other = declare_mechanism(
        mech.spec,
        sampler=lambda x, size, rng: module.sampler(x, size, rng),
        statistic=lambda x: x.mean(),
    )
    assert implementation_hash(other)[0] != implementation_hash(mech)[0]
    cert = certify(mech, config=FAST, include_report=False)
    status = cert.status_for(other)
    assert status.state == "stale" and "built from other code" in status.reason
    assert cert.code_objects and all(":" in c for c in cert.code_objects)


def test_line_endings_do_not_change_the_hash(tmp_path, monkeypatch):
    module, path = _user_module(tmp_path, monkeypatch)
    mech = module.make()
    before = implementation_hash(mech)[0]
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert implementation_hash(mech)[0] == before


def test_hashing_something_that_is_not_a_mechanism_is_refused():
    with pytest.raises(CertificateError, match="Mechanism"):
        implementation_hash(object())  # type: ignore[arg-type]  # the wrong type on purpose


# -- certify and the certificate ---------------------------------------------------------------
def test_certificate_records_what_was_audited(laplace_certificate):
    cert = laplace_certificate
    mech = LaplaceMechanism(1.0, 1.0)
    assert cert.mechanism == "laplace" and cert.spec == mech.spec
    assert cert.spec_hash == mech.spec.content_hash
    assert (cert.implementation_hash, cert.implementation_modules) == implementation_hash(mech)
    assert cert.config.samples == 100_000 and cert.config.seed == 0
    assert cert.verdict == "no_violation" and cert.statement == STATEMENT
    assert "not a proof" in cert.statement
    assert {c.name for c in cert.checks} >= {"spec.consistency", "distinguishability"}
    assert all(c.status != "violated" for c in cert.checks)
    assert 0 < cert.epsilon_lower_bound <= 1.0 and cert.epsilon_claimed == 1.0
    assert cert.power is not None and cert.privacy_profile
    assert set(cert.versions) >= {"python", "privaudit", "numpy", "scipy", "pydantic", "networkx"}
    assert cert.created.utcoffset().total_seconds() == 0
    assert cert.report is not None and cert.report.spec_hash == cert.spec_hash


def test_certificate_round_trips_through_json(laplace_certificate, tmp_path):
    cert = laplace_certificate
    assert Certificate.from_json(cert.to_json()) == cert
    path = cert.write(tmp_path / "deep" / "laplace.json")
    loaded = load_certificate(path)
    assert loaded == cert and loaded.content_hash == cert.content_hash
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["spec_hash"] == cert.spec_hash and data["verdict"] == "no_violation"


def test_summary_is_readable(laplace_certificate):
    text = laplace_certificate.summary()
    assert "certificate of 'laplace'" in text and "not a proof of privacy" in text
    assert "pure_dp(epsilon=1)" in text and laplace_certificate.spec_hash in text
    assert "100000 samples per side" in text and str(laplace_certificate) == text
    assert claim_text(LaplaceMechanism(1.0, 1.0).spec) in text


def test_certificate_is_current_for_the_same_mechanism(laplace_certificate):
    status = laplace_certificate.status_for(LaplaceMechanism(1.0, 1.0))
    assert isinstance(status, CertificateStatus)
    assert status.state == "current" and status.current
    assert "match" in status.reason


def test_changed_spec_makes_the_certificate_stale(laplace_certificate):
    status = laplace_certificate.status_for(LaplaceMechanism(0.5, 1.0))
    assert status.state == "stale" and "spec hash changed" in status.reason
    assert "implementation" not in status.reason


def test_changed_spec_version_makes_the_certificate_stale(tmp_path, monkeypatch):
    module, _ = _user_module(tmp_path, monkeypatch)
    cert = certify(module.make(version="1"), config=FAST)
    assert cert.status_for(module.make(version="1")).current
    status = cert.status_for(module.make(version="2"))
    assert status.state == "stale" and "spec hash changed" in status.reason


def test_changed_code_makes_the_certificate_stale_and_names_the_module(tmp_path, monkeypatch):
    module, path = _user_module(tmp_path, monkeypatch)
    mech = module.make()
    cert = certify(mech, config=FAST, include_report=False)
    assert cert.report is None and cert.status_for(mech).current
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "NOISE_FACTOR = 1.0", "NOISE_FACTOR = 1.0  # tuned"
        ),
        encoding="utf-8",
    )
    status = cert.status_for(mech)
    assert status.state == "stale"
    assert "implementation hash changed" in status.reason and module.__name__ in status.reason
    assert "spec hash" not in status.reason


def test_a_violating_mechanism_is_not_certified(tmp_path, monkeypatch):
    module, _ = _user_module(tmp_path, monkeypatch, factor=0.5)  # half the declared noise
    with pytest.raises(CertificateError, match="refusing to certify 'user_mean'") as info:
        certify(module.make(), config=FAST)
    assert "VIOLATION FOUND" in str(info.value)  # the report's summary comes along


def test_from_report_refuses_a_report_of_another_spec():
    report = audit(LaplaceMechanism(1.0, 1.0), config=FAST)
    with pytest.raises(CertificateError, match="audited spec"):
        Certificate.from_report(LaplaceMechanism(2.0, 1.0), report)


# -- loading -------------------------------------------------------------------------------
def test_loading_a_missing_file_names_it(tmp_path):
    with pytest.raises(CertificateError, match="no certificate at .*nope.json"):
        load_certificate(tmp_path / "nope.json")


def test_loading_garbage_is_refused(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(CertificateError, match="not a valid certificate"):
        load_certificate(path)


def test_a_tampered_certificate_is_refused(laplace_certificate, tmp_path):
    data = json.loads(laplace_certificate.to_json())
    data["spec"]["version"] = "2"  # a valid spec, but not the one that was audited
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CertificateError, match="corrupt"):
        load_certificate(path)


def test_a_newer_schema_is_refused(laplace_certificate):
    data = json.loads(laplace_certificate.to_json())
    data["schema_version"] = 99
    with pytest.raises(CertificateError, match="newer"):
        Certificate.model_validate(data)


def test_certificate_spec_is_a_mechanism_spec(laplace_certificate):
    assert isinstance(laplace_certificate.spec, MechanismSpec)


def test_the_certificate_modules_are_small_and_import_one_way():
    """certificates.py was 886 lines and imported consistency.py, which imported it back
    (under TYPE_CHECKING); now each module has one idea and the dependency runs one way."""
    import ast

    root = Path(__file__).resolve().parents[4] / "privaudit"
    trust = (
        "certificates",
        "consistency",
        "implementation",
        "first_party",
        "provenance",
        "tracing",
        "source_units",
    )

    def path(name: str) -> Path:
        return root / f"{name}.py" if name == "first_party" else root / "trust" / f"{name}.py"

    def imported(name: str) -> set[str]:
        tree = ast.parse(path(name).read_text(encoding="utf-8"))
        found = set()
        for node in ast.walk(tree):  # module level, in functions and under TYPE_CHECKING
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level == 1:
                    found.add(module.partition(".")[0])
                elif module.startswith("privaudit."):
                    found.add(module.split(".")[-1])
        return found

    graph = {name: imported(name) & set(trust) for name in trust}
    assert "certificates" not in graph["consistency"]
    for name in trust:  # no module of the chain reaches itself
        seen, todo = set(), list(graph[name])
        while todo:
            nxt = todo.pop()
            assert nxt != name, f"import circle through privaudit.{name}"
            if nxt not in seen:
                seen.add(nxt)
                todo.extend(graph[nxt])
        lines = len(path(name).read_text(encoding="utf-8").splitlines())
        assert lines <= 700, (name, lines)
