"""The registry: built-ins and their shipped certificates, registration, refusal of stale
or missing certificates, the loud opt-out, and third-party entry points."""

from __future__ import annotations

import importlib
import sys
import textwrap
import uuid
import warnings
from importlib import metadata
from pathlib import Path

import pytest

from privaudit import AuditConfig, registry
from privaudit.mechanisms import LaplaceMechanism, Mechanism
from privaudit.spec.errors import (
    CertificateError,
    InvalidParameterError,
    PrivauditWarning,
    RegistryError,
    UncertifiedMechanismWarning,
)
from privaudit.trust.certificates import load_certificate
from privaudit.trust.registry import RegistryEntry

FAST = AuditConfig(
    samples=100_000,
    confidence=0.99,
    pilot_samples=1_000,
    pair_budget=12,
    pairs_tested=2,
    claim_budget=40,
)

BUILTINS = [
    "analytic_gaussian",
    "bounded_mean",
    "discrete_gaussian",
    "discrete_laplace",
    "exponential_mechanism",
    "laplace",
    "randomized_response",
    "report_noisy_max",
    "smooth_median_inverse_quartic",
    "smooth_median_laplace",
]

USER_MODULE = """
import numpy as np
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (AdditiveNoise, DatasetDomain, GlobalSensitivity, Laplace, MechanismSpec,
                  PureDP, RealInterval, SubstituteOne)

N = 40
VERSION = ["1"]  # tests change the spec through this


def sampler(x, size, rng):
    return x.mean() + rng.laplace(0.0, 1.0 / N, size)


def make():
    spec = MechanismSpec(
        name="registered_mean", version=VERSION[0],
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N),
        relation=SubstituteOne(), statistic="mean",
        sensitivity=(GlobalSensitivity(value=1 / N),),
        noise=AdditiveNoise(law=Laplace(scale=1 / N)), guarantee=PureDP(epsilon=1.0))
    return declare_mechanism(spec, sampler=sampler, statistic=lambda x: x.mean())
"""


@pytest.fixture
def cert_dir(tmp_path, monkeypatch) -> Path:
    directory = tmp_path / "certs"
    monkeypatch.setenv(registry.CERTIFICATE_DIR_ENV, str(directory))
    return directory


@pytest.fixture
def scratch():
    """Names registered by a test are removed afterwards."""
    names: list[str] = []

    def add(name: str, factory, **kwargs) -> RegistryEntry:
        entry = registry.register(name, factory, **kwargs)
        names.append(name)
        return entry

    yield add
    for name in names:
        if name in registry.names():
            registry.unregister(name)


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    name = f"registered_mech_{uuid.uuid4().hex[:10]}"
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(USER_MODULE), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    monkeypatch.setitem(sys.modules, name, module)
    return module, path


# -- built-ins -----------------------------------------------------------------------------
def test_builtins_are_registered_sorted_with_their_configs():
    assert list(registry.names()) == sorted(registry.names())
    assert set(BUILTINS) <= set(registry.names())
    for entry in registry.entries():
        if entry.name in BUILTINS:
            assert entry.builtin and entry.origin == "builtin" and entry.description
            assert entry.certificate_path == registry.BUILTIN_CERTIFICATE_DIR / f"{entry.name}.json"
            assert entry.certificate_config.samples >= entry.audit_config.samples


#: every built-in entry (not only the core ones above): each ships a current certificate
ALL_BUILTINS = sorted(entry.name for entry in registry.entries() if entry.builtin)


@pytest.mark.parametrize("name", ALL_BUILTINS)
def test_builtin_certificates_are_shipped_and_current(name):
    status = registry.status(name)
    assert status.state == "current", (
        f"the shipped certificate of {name!r} is {status}; regenerate it with "
        f"'privaudit certify --registry {name}' and commit "
        f"privaudit/trust/builtin_certificates/{name}.json"
    )
    cert = registry.certificate(name)
    assert cert is not None and cert.config.samples >= 1_000_000


def test_get_returns_a_fresh_certified_mechanism():
    first, second = registry.get("laplace"), registry.get("laplace")
    assert isinstance(first, LaplaceMechanism) and first is not second
    assert first.spec.content_hash == registry.certificate("laplace").spec_hash


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(RegistryError, match="no registry entry named 'nope'.*laplace"):
        registry.get("nope")


# -- registration --------------------------------------------------------------------------
def test_register_validates_its_arguments(scratch):
    def mech_factory():
        return LaplaceMechanism(1.0, 1.0)

    with pytest.raises(InvalidParameterError, match="registry name"):
        scratch("bad name!", mech_factory)
    with pytest.raises(InvalidParameterError, match="registry name"):
        scratch("../escape", mech_factory)
    with pytest.raises(InvalidParameterError, match="factory"):
        scratch("not_callable", 42)
    with pytest.raises(InvalidParameterError, match="not the mechanism itself"):
        scratch("an_instance", LaplaceMechanism(1.0, 1.0))
    with pytest.raises(InvalidParameterError, match="audit_config"):
        scratch("bad_config", mech_factory, audit_config={"samples": 10})


def test_names_are_unique_unless_replaced(scratch):
    scratch("dup_entry", lambda: LaplaceMechanism(1.0, 1.0), description="first")
    with pytest.raises(RegistryError, match="already taken"):
        registry.register("dup_entry", lambda: LaplaceMechanism(1.0, 1.0))
    with pytest.raises(RegistryError, match="already taken"):
        registry.register("laplace", lambda: LaplaceMechanism(2.0, 1.0))
    registry.register(
        "dup_entry", lambda: LaplaceMechanism(2.0, 1.0), description="second", replace=True
    )
    assert registry.entry("dup_entry").description == "second"
    assert registry.unregister("dup_entry").name == "dup_entry"
    assert "dup_entry" not in registry.names()
    with pytest.raises(RegistryError):
        registry.unregister("dup_entry")


def test_third_party_certificates_live_in_the_configured_directory(scratch, cert_dir, tmp_path):
    entry = scratch("where_entry", lambda: LaplaceMechanism(1.0, 1.0))
    assert registry.certificate_path("where_entry") == cert_dir / "where_entry.json"
    own = scratch(
        "own_dir_entry", lambda: LaplaceMechanism(1.0, 1.0), certificate_dir=tmp_path / "shipped"
    )
    assert own.certificate_path == tmp_path / "shipped" / "own_dir_entry.json"
    assert not entry.builtin and entry.origin == "register()"


def test_a_failing_factory_is_a_registry_error(scratch):
    def broken():
        raise RuntimeError("boom")

    scratch("broken_factory", broken)
    with pytest.raises(RegistryError, match="broken_factory.*RuntimeError: boom"):
        registry.get("broken_factory")
    scratch("wrong_type_factory", lambda: 42)
    with pytest.raises(RegistryError, match="not a Mechanism"):
        registry.status("wrong_type_factory")


# -- certificates: missing, current, stale ----------------------------------------------------
def test_missing_certificate_is_refused_with_the_command(scratch, cert_dir, user_module):
    module, _ = user_module
    scratch("fresh_entry", module.make, certificate_config=FAST)
    status = registry.status("fresh_entry")
    assert status.state == "missing" and "fresh_entry.json" in status.reason
    assert registry.certificate("fresh_entry") is None
    with pytest.raises(
        RegistryError, match=r"certificate missing.*privaudit certify --registry fresh_entry"
    ):
        registry.get("fresh_entry")


def test_certify_entry_writes_a_current_certificate(scratch, cert_dir, user_module):
    module, _ = user_module
    scratch("cert_entry", module.make, certificate_config=FAST, notes="made in a test")
    cert = registry.certify_entry("cert_entry")
    path = cert_dir / "cert_entry.json"
    assert path.is_file() and load_certificate(path) == cert
    assert cert.config == FAST and cert.notes == ("made in a test",)
    assert registry.status("cert_entry").state == "current"
    assert isinstance(registry.get("cert_entry"), Mechanism)


def test_changed_code_makes_the_certificate_stale_and_get_refuse_it(scratch, cert_dir, user_module):
    module, path = user_module
    scratch("code_entry", module.make, certificate_config=FAST)
    registry.certify_entry("code_entry")
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "return x.mean() + rng.laplace(0.0, 1.0 / N, size)",
            "return x.mean() + rng.laplace(0.0, 0.5 / N, size)  # 'optimised'",
        ),
        encoding="utf-8",
    )
    status = registry.status("code_entry")
    assert status.state == "stale"
    assert "implementation hash changed" in status.reason and module.__name__ in status.reason
    with pytest.raises(RegistryError, match="stale.*privaudit certify --registry code_entry"):
        registry.get("code_entry")


def test_changed_spec_makes_the_certificate_stale_and_get_refuse_it(scratch, cert_dir, user_module):
    module, _ = user_module
    scratch("spec_entry", module.make, certificate_config=FAST)
    registry.certify_entry("spec_entry")
    module.VERSION[0] = "2"  # the same code now declares a new version of the spec
    status = registry.status("spec_entry")
    assert status.state == "stale" and "spec hash changed" in status.reason
    assert "implementation" not in status.reason
    with pytest.raises(RegistryError, match="spec hash changed"):
        registry.get("spec_entry")
    module.VERSION[0] = "1"
    assert registry.status("spec_entry").current


def test_a_corrupt_certificate_file_counts_as_stale(scratch, cert_dir, user_module):
    module, _ = user_module
    scratch("corrupt_entry", module.make, certificate_config=FAST)
    cert_dir.mkdir(parents=True)
    (cert_dir / "corrupt_entry.json").write_text("{}", encoding="utf-8")
    status = registry.status("corrupt_entry")
    assert status.state == "stale" and "unusable" in status.reason
    with pytest.raises(CertificateError):
        registry.certificate("corrupt_entry")


def test_violating_entry_is_not_certified(scratch, cert_dir, user_module):
    module, path = user_module
    path.write_text(
        path.read_text(encoding="utf-8").replace("1.0 / N, size", "0.4 / N, size"), encoding="utf-8"
    )
    module = importlib.reload(module)
    scratch("violating_entry", module.make, certificate_config=FAST)
    with pytest.raises(CertificateError, match="refusing to certify"):
        registry.certify_entry("violating_entry")
    assert not (cert_dir / "violating_entry.json").exists()


# -- the loud opt-out ------------------------------------------------------------------------
def test_allow_uncertified_returns_it_and_warns_every_time(scratch, cert_dir, user_module):
    module, _ = user_module
    scratch("research_entry", module.make)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # even a once-per-location filter shows each call
        registry.get("research_entry", allow_uncertified=True)
        registry.get("research_entry", allow_uncertified=True)
    loud = [w for w in caught if issubclass(w.category, UncertifiedMechanismWarning)]
    assert len(loud) == 2
    text = str(loud[0].message)
    assert "UNCERTIFIED" in text and "research" in text
    assert "privaudit certify --registry research_entry" in text
    assert issubclass(UncertifiedMechanismWarning, PrivauditWarning)


def test_allow_uncertified_is_silent_for_a_current_certificate():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert isinstance(registry.get("laplace", allow_uncertified=True), LaplaceMechanism)


# -- entry points ----------------------------------------------------------------------------
PLUGIN = '''
from privaudit.mechanisms import LaplaceMechanism


def register_all(registry):
    registry.register("plugin_hooked", lambda: LaplaceMechanism(1.0, 2.0),
                      description="registered by a hook")


def make_factory():
    """A zero-argument factory entry point."""
    return LaplaceMechanism(1.0, 3.0)


def needs_two(a, b):
    return None
'''


def test_entry_points_are_loaded_lazily(tmp_path, monkeypatch):
    name = f"plugin_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    group = registry.ENTRY_POINT_GROUP
    points = [
        metadata.EntryPoint("hooked", f"{name}:register_all", group),
        metadata.EntryPoint("plugin_factory", f"{name}:make_factory", group),
        metadata.EntryPoint("plugin_bad_sig", f"{name}:needs_two", group),
        metadata.EntryPoint("plugin_missing", f"{name}_nope:thing", group),
    ]
    seen_groups = []

    def fake_entry_points(*, group):
        seen_groups.append(group)
        return points

    monkeypatch.setattr(registry.metadata, "entry_points", fake_entry_points)
    monkeypatch.setattr(registry, "_entries", {})
    monkeypatch.setattr(registry, "_loaded", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names = registry.names()
    assert seen_groups == [group]
    assert {"plugin_hooked", "plugin_factory", "laplace"} <= set(names)
    assert registry.entry("plugin_hooked").origin == "entry point hooked"
    assert registry.entry("plugin_factory").description == "A zero-argument factory entry point."
    assert registry.entry("plugin_factory").create().spec.sensitivity[0].value == 3.0
    skipped = sorted(str(w.message) for w in caught if issubclass(w.category, PrivauditWarning))
    assert len(skipped) == 2
    assert "plugin_bad_sig" in skipped[0] and "plugin_missing" in skipped[1]
    registry.names()
    assert seen_groups == [group]  # loaded once
