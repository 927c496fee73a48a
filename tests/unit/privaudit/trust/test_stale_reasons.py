"""A stale certificate says what changed: the spec field with both full values, the function."""

from __future__ import annotations

import pytest

from privaudit import Certificate, certify
from privaudit.auditing.outcome.texts import claim_text, guarantee_text
from privaudit.mechanisms import LaplaceMechanism
from privaudit.mechanisms.dpsgd import ABLQMechanism
from privaudit.trust import registry
from privaudit.trust.spec_changes import describe_spec_changes, spec_changes

from .test_certificates import FAST, _user_module


@pytest.fixture(scope="module")
def laplace_certificate() -> Certificate:
    return certify(LaplaceMechanism(1.0, 1.0), config=FAST)


def test_a_changed_claim_is_named_by_its_field_with_both_full_values(laplace_certificate):
    moved = 1.0 + 2.0**-40  # prints as 1 at 6 digits
    status = laplace_certificate.status_for(LaplaceMechanism(moved, 1.0))
    assert status.state == "stale"
    assert "spec hash changed" in status.reason
    assert f"guarantee.epsilon: 1.0 → {moved!r}" in status.reason
    assert "noise.law.scale: 1.0 → " in status.reason


def test_the_dpsgd_claims_of_two_cpus_are_named_in_full():
    old = ABLQMechanism("poisson", 10, 1, 10, 4.0, 1e-5).spec
    data = old.model_dump(mode="python")
    data["guarantee"]["epsilon"] = 0.5653074598452299
    new = data | {"guarantee": {**data["guarantee"], "epsilon": 0.5653074598440593}}
    assert spec_changes(data, new) == (
        "guarantee.epsilon: 0.5653074598452299 → 0.5653074598440593",
    )


def test_spec_changes_walk_nested_fields_items_and_text():
    old = {
        "noise": {"law": {"sigma": 3.7306316348159365}},
        "sensitivity": [{"value": 1.0}, {"value": 2.0}],
        "notes": "x" * 80 + " beta = 0.1894116229436012 and more text",
    }
    new = {
        "noise": {"law": {"sigma": 3.73064}},
        "sensitivity": [{"value": 1.0}, {"value": 2.5}, {"value": 3.0}],
        "notes": "x" * 80 + " beta = 0.189411 and more text",
        "version": "2",
    }
    changes = spec_changes(old, new)
    assert "noise.law.sigma: 3.7306316348159365 → 3.73064" in changes
    assert "sensitivity[1].value: 2.0 → 2.5" in changes
    assert "sensitivity: 2 → 3 items" in changes
    assert "version: added ('2')" in changes
    (notes,) = [c for c in changes if c.startswith("notes: ")]
    assert "0.1894116229436012" in notes and "0.189411 and" in notes
    assert spec_changes(old, old) == ()
    assert describe_spec_changes(old, old).startswith("no field differs")


def test_many_changes_are_counted_not_listed():
    old = {f"f{i}": float(i) for i in range(12)}
    new = {f"f{i}": float(i) + 0.5 for i in range(12)}
    text = describe_spec_changes(old, new)
    assert text.count("→") == 8 and text.endswith("and 4 more fields")


def test_a_changed_function_is_named(tmp_path, monkeypatch):
    module, path = _user_module(tmp_path, monkeypatch)
    mech = module.make()
    cert = certify(mech, config=FAST, include_report=False)
    assert cert.function_hashes  # per-function digests are recorded
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "return x.mean() + rng.laplace(", "return 0.0 + x.mean() + rng.laplace("
        ),
        encoding="utf-8",
    )
    status = cert.status_for(mech)
    assert status.state == "stale"
    assert "implementation hash changed" in status.reason
    assert f"edited {module.__name__} (function sampler)" in status.reason
    assert "spec hash" not in status.reason


def test_the_registry_status_carries_the_field(laplace_certificate, tmp_path):
    target = tmp_path / "laplace_moved.json"
    laplace_certificate.write(target)
    moved = 1.0 + 2.0**-40
    entry = registry.register(
        "laplace_moved",
        lambda: LaplaceMechanism(moved, 1.0),
        certificate_dir=tmp_path,
    )
    try:
        status = registry.status_for(entry, entry.create())
    finally:
        registry.unregister("laplace_moved")
    assert status.state == "stale"
    assert f"guarantee.epsilon: 1.0 → {moved!r}" in status.reason


def test_claim_texts_never_print_two_different_values_alike():
    assert guarantee_text(LaplaceMechanism(1.0, 1.0).spec) == "pure_dp(epsilon=1)"
    moved = LaplaceMechanism(1.0 + 2.0**-40, 1.0).spec
    assert repr(1.0 + 2.0**-40) in claim_text(moved)
    on_grid = ABLQMechanism("poisson", 10, 1, 10, 4.0, 1e-5).spec
    assert f"epsilon={on_grid.guarantee.epsilon:g}" in guarantee_text(on_grid)
