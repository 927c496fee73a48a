"""The implementation hash covers what runs: the traced release, per-function digests,
the issue's two measured misses, and the schema bump for older certificates."""

from __future__ import annotations

import importlib
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from privaudit import AuditConfig, certify, registry
from privaudit.trust.implementation import (
    _static,
    code_changes,
    current_implementation,
    implementation_of,
)
from privaudit.trust.source_units import module_file, read_source, substituted_sources
from privaudit.trust.tracing import trace_release

FAST = AuditConfig(
    samples=100_000,
    confidence=0.99,
    pilot_samples=1_000,
    pair_budget=12,
    pairs_tested=2,
    claim_budget=40,
)

HELPERS = """
def noise_scale(n):
    return 1.0 / n
"""

MECHANISM = """
import numpy as np
import {helpers}
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (AdditiveNoise, DatasetDomain, GlobalSensitivity, Laplace, MechanismSpec,
                  PureDP, RealInterval, SubstituteOne)

N = 40


def sampler(x, size, rng):
    return x.mean() + rng.laplace(0.0, {helpers}.noise_scale(N), size)  # called by name


def make():
    spec = MechanismSpec(
        name="traced_mean", input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N),
        relation=SubstituteOne(), statistic="mean", sensitivity=(GlobalSensitivity(value=1 / N),),
        noise=AdditiveNoise(law=Laplace(scale=1 / N)), guarantee=PureDP(epsilon=1.0))
    return declare_mechanism(spec, sampler=sampler, statistic=lambda x: x.mean())
"""


@pytest.fixture
def user_package(tmp_path, monkeypatch):
    """A mechanism module whose sampler calls a helper of another module by name."""
    tag = uuid.uuid4().hex[:10]
    helpers, mech = f"helpers_{tag}", f"traced_mech_{tag}"
    (tmp_path / f"{helpers}.py").write_text(textwrap.dedent(HELPERS), encoding="utf-8")
    (tmp_path / f"{mech}.py").write_text(MECHANISM.format(helpers=helpers), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(mech)
    monkeypatch.setitem(sys.modules, mech, module)
    monkeypatch.setitem(sys.modules, helpers, sys.modules[helpers])
    return module, helpers, tmp_path / f"{helpers}.py"


def _entry_implementation(name: str):
    found = registry.entry(name)
    return found.create(), implementation_of(factory=found.create)


def _mutated(module: str, old: str, new: str) -> dict[str, str]:
    path = module_file(module)
    assert path is not None
    text = Path(path).read_text(encoding="utf-8")
    assert text.count(old) == 1, (module, old)
    return {path: text.replace(old, new)}


# -- the trace finds what a static walk cannot --------------------------------------------
def test_a_helper_called_by_name_is_covered_and_an_edit_names_it(user_package):
    module, helpers, helper_path = user_package
    mech = module.make()
    assert helpers not in _static(mech).files  # invisible to the static closure ...
    cert = certify(mech, config=FAST, factory=module.make)
    assert helpers in cert.module_hashes  # ... but it ran, so the certificate covers it
    assert f"{helpers}:noise_scale" in cert.function_hashes
    assert cert.status_for(module.make()).state == "current"
    helper_path.write_text(HELPERS.replace("1.0 / n", "0.5 / n"), encoding="utf-8")
    status = cert.status_for(module.make())
    assert status.state == "stale"
    assert f"edited {helpers} (function noise_scale)" in status.reason


def test_moving_a_function_does_not_change_its_digest_but_stales_the_file(user_package):
    module, helpers, helper_path = user_package
    recorded = implementation_of(factory=module.make)
    helper_path.write_text("\n\n# a comment\n" + HELPERS, encoding="utf-8")
    now = current_implementation(recorded, module.make())
    key = f"{helpers}:noise_scale"
    assert now.functions[key] == recorded.functions[key]
    assert now.modules[helpers] != recorded.modules[helpers] and now.hash != recorded.hash
    assert f"edited {helpers} (outside the functions that ran)" in code_changes(recorded, now)


def test_a_removed_function_is_named(user_package):
    module, helpers, helper_path = user_package
    recorded = implementation_of(factory=module.make)
    helper_path.write_text(HELPERS.replace("noise_scale", "renamed_scale"), encoding="utf-8")
    now = current_implementation(recorded, module.make())
    assert now.functions[f"{helpers}:noise_scale"] == "missing"
    assert "no longer defines noise_scale" in code_changes(recorded, now)


@pytest.mark.parametrize("name", ["ustat.local_hajek.variance", "ustat.subgaussian.variance"])
def test_algorithm_one_helpers_are_traced_without_listing_them(name):
    _, found = _entry_implementation(name)
    for module in (
        "privaudit.estimators.ustatistics.local_hajek",
        "privaudit.estimators.ustatistics.local_hajek_weights",
        "privaudit.estimators.ustatistics.smooth_bounds",
        "privaudit.estimators.ustatistics.kernels",
        "privaudit.mechanisms.composition"
        if "subgaussian" in name
        else "privaudit.estimators.ustatistics.exact",
    ):
        assert module in found.modules, module


def test_the_trace_is_deterministic_and_ignores_warm_caches():
    found = registry.entry("discrete_gaussian")
    first = implementation_of(factory=found.create)
    found.create().sample(0, 1000, rng=0)  # warms the lru caches of the discrete samplers
    second = implementation_of(factory=found.create)
    assert first == second


def test_the_trace_records_build_time_code_only_with_a_factory():
    found = registry.entry("graphs.edge_density.local_hajek.coarse_xi")
    with_factory = trace_release(factory=found.create, include=lambda name: True)
    without = trace_release(found.create(), include=lambda name: True)
    built = {q for m, q in with_factory.functions if m == "privaudit.mechanisms.composition"}
    assert "split_budget" in built
    assert not {q for m, q in without.functions if m == "privaudit.mechanisms.composition"} >= built


# -- the measured misses ---------------------------------------------------------------
def test_a_five_percent_noise_cut_in_median_of_means_stales_the_wrapped_edge_density():
    mech, recorded = _entry_implementation("graphs.edge_density.local_hajek.wrapped")
    module = "privaudit.estimators.ustatistics.median_of_means"
    with substituted_sources(
        _mutated(module, "[:, None] * noise\n", "[:, None] * (0.05 * noise)\n")
    ):
        now = current_implementation(recorded, mech)
    assert now.hash != recorded.hash
    assert f"edited {module} (function noisy_chunk_statistics)" in code_changes(recorded, now)


@pytest.mark.parametrize(
    "name",
    ["graphs.edge_density.local_hajek.coarse_xi", "graphs.triangle_density.local_hajek.coarse_xi"],
)
def test_a_five_fold_internal_epsilon_stales_both_coarse_xi_entries(name):
    mech, recorded = _entry_implementation(name)
    module = "privaudit.estimators.ustatistics.local_hajek"
    edit = _mutated(module, "return quartic_share(eps) if", "return 5 * quartic_share(eps) if")
    with substituted_sources(edit):
        now = current_implementation(recorded, mech)
    assert now.hash != recorded.hash
    assert f"edited {module} (function internal_epsilon)" in code_changes(recorded, now)


def test_substituted_sources_touch_no_file_and_are_undone():
    path = module_file("privaudit.estimators.ustatistics.local_hajek")
    before = read_source(path).digest
    with substituted_sources({path: "x = 1\n"}):
        assert read_source(path).digest != before
    assert read_source(path).digest == before
