"""The one rule for "our code" (privaudit.first_party) and what certificates make of it.

A module is first-party when no installed distribution provides it, or privaudit's (or
the user's) does; it is decided from the distributions' metadata, never from where a
file lies.  The layouts below are real distributions (a ``.dist-info`` with a
``RECORD``) in folders put on ``sys.path`` the way ``PYTHONPATH``, ``pip install
--target`` and a user site directory put them there.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from privaudit import registry
from privaudit.first_party import (
    OWN_DISTRIBUTION,
    defining_distributions,
    distributions_of,
    is_first_party,
    is_own,
)
from privaudit.trust.implementation import implementation_of
from privaudit.trust.provenance import installed_version

ROOT = Path(__file__).resolve().parents[4]

MECHANISM = """
import numpy as np
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (AdditiveNoise, DatasetDomain, GlobalSensitivity, Laplace, MechanismSpec,
                  PureDP, RealInterval, SubstituteOne)
from . import helpers

N = 40


def sampler(x, size, rng):
    return x.mean() + rng.laplace(0.0, helpers.scale(N), size)


def make():
    spec = MechanismSpec(
        name="installed_mean", input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0),
                                                          size=N),
        relation=SubstituteOne(), statistic="mean", sensitivity=(GlobalSensitivity(value=1 / N),),
        noise=AdditiveNoise(law=Laplace(scale=1 / N)), guarantee=PureDP(epsilon=1.0))
    return declare_mechanism(spec, sampler=sampler, statistic=lambda x: x.mean())
"""


def _install(site: Path, dist: str, package: str, files: dict[str, str]) -> None:
    """A distribution ``dist`` providing ``package`` in ``site``, as pip lays it out."""
    records = []
    for name, text in files.items():
        path = site / package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        records.append(f"{package}/{name},,")
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8"
    )
    records += [f"{info.name}/METADATA,,", f"{info.name}/RECORD,,"]
    (info / "RECORD").write_text("\n".join(records) + "\n", encoding="utf-8")


@pytest.fixture(params=["pythonpath", "user-site"])
def installed(request, tmp_path, monkeypatch):
    """(package, distribution) of a distribution installed in a folder on sys.path."""
    tag = uuid.uuid4().hex[:8]
    site = tmp_path / ("lib/python/site-packages" if request.param == "user-site" else "target")
    site.mkdir(parents=True)
    package, dist = f"acme_{tag}", f"acme-dp-{tag}"
    _install(
        site,
        dist,
        package,
        {
            "__init__.py": "",
            "helpers.py": "def scale(n):\n    return 1 / n\n",
            "mech.py": MECHANISM,
        },
    )
    monkeypatch.syspath_prepend(str(site))
    yield package, dist
    for name in [m for m in sys.modules if m.startswith(package)]:
        del sys.modules[name]


def test_the_standard_library_and_installation_machinery_are_never_first_party():
    for name in ("os", "json.decoder", "importlib.metadata", "builtins"):
        assert not is_first_party(name), name
    assert not is_first_party("__editable___privaudit_0_1_0_finder")
    assert not is_first_party(None) and not is_first_party("")


def test_installed_dependencies_are_third_party_and_ours_first_party():
    for name in ("numpy", "numpy.random", "scipy.stats", "pydantic", "numba"):
        assert not is_first_party(name), name
        assert distributions_of(name), name
    for name in (
        "privaudit.auditing.auditor",
        "privaudit.spec",
        "privaudit.mechanisms.additive",
        "privaudit.estimators",
    ):
        assert is_first_party(name) and is_own(name), name


def test_a_module_no_distribution_provides_is_first_party(tmp_path, monkeypatch):
    module = tmp_path / f"user_mech_{uuid.uuid4().hex[:8]}.py"
    module.write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module(module.stem)
    assert is_first_party(module.stem) and not is_own(module.stem)
    assert distributions_of(module.stem) == frozenset()


def test_a_distribution_on_any_sys_path_entry_is_third_party(installed):
    package, dist = installed
    assert distributions_of(f"{package}.mech") == {dist}
    assert not is_first_party(f"{package}.helpers")
    assert is_first_party(f"{package}.helpers", also=[dist.upper().replace("-", "_")])


def test_the_user_distribution_that_defines_a_mechanism_is_hashed(installed):
    """A mechanism shipped in an installed package: its code is the user's own, hashed
    however it was installed; numpy stays a recorded version."""
    package, dist = installed
    mech = importlib.import_module(f"{package}.mech")
    assert defining_distributions(mech.make) == {dist}
    found = implementation_of(factory=mech.make)
    assert {f"{package}.mech", f"{package}.helpers"} <= set(found.modules)
    assert found.first_party == (dist,)
    assert f"{package}.mech:sampler" in found.functions
    assert "numpy" in found.third_party and not any(m.startswith("numpy") for m in found.modules)


def test_certificates_hash_no_third_party_code_and_record_its_versions():
    """float_safe_laplace runs a numba kernel: numba and llvmlite are versions, not hashes
    (its old certificate hashed numba, llvmlite, cffi and colorama modules)."""
    item = registry.entry("float_safe_laplace")
    found = implementation_of(item.create(), factory=item.create)
    assert all(is_own(m) for m in found.modules), found.modules
    assert {"numba", "llvmlite", "numpy"} <= set(found.third_party)
    assert OWN_DISTRIBUTION not in found.third_party


def test_a_declared_wrapped_distribution_is_recorded(monkeypatch):
    """The extension point of adapters of third-party samplers: a mechanism names the
    distributions it wraps (names, or a mapping name → version), and the certificate
    records their installed versions; their code is never hashed."""
    from privaudit.mechanisms import LaplaceMechanism

    for declared in (("hypothesis",), {"hypothesis": "0.0.declared"}):
        mech = LaplaceMechanism(1.0, 1.0)
        monkeypatch.setattr(mech, "wrapped_distributions", declared, raising=False)
        found = implementation_of(mech)
        assert found.third_party["hypothesis"] == installed_version("hypothesis")
        assert not any(m.startswith("hypothesis") for m in found.modules)


_CERTIFY = """
import hashlib, json, sys
from privaudit import registry
from privaudit.trust.certificates import certify
from privaudit.auditing.config import AuditConfig
item = registry.entry("float_safe_laplace")
cert = certify(item.create(), config=item.certificate_config, factory=item.create,
               source="registry:float_safe_laplace")
data = json.loads(cert.to_json())
data.pop("created"); data.pop("runtime_seconds"); data["report"].pop("runtime_seconds")
print(hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest(),
      cert.implementation_hash, ",".join(cert.third_party))
"""


@pytest.mark.slow
def test_numba_cache_cold_or_warm_gives_the_same_certificate(tmp_path):
    """Certifying float_safe_laplace with numba's cache empty (it compiles the kernel,
    running llvmlite, cffi, colorama …) and warm (it loads it) gives one certificate,
    apart from the creation time and run time.  Two subprocesses share one fresh
    NUMBA_CACHE_DIR (~1 min on a loaded 2-core machine)."""
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    runs = [
        subprocess.run(
            [sys.executable, "-c", _CERTIFY],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    cold, warm = (run.stdout.split() for run in runs)
    assert any((tmp_path / "numba-cache").rglob("*.nbi"))  # the first run did fill the cache
    assert cold == warm
    assert "numba" in cold[2].split(",")


def test_a_users_portion_of_a_namespace_package_stays_first_party(tmp_path, monkeypatch):
    """PEP 420: an installed distribution ships ``ns.tools``; the user's ``ns.mine`` on
    another sys.path entry belongs to no distribution."""
    tag = uuid.uuid4().hex[:8]
    ns = f"ns_{tag}"
    site, mine = tmp_path / "site", tmp_path / "mine"
    _install(site, f"ns-tools-{tag}", f"{ns}/tools", {"__init__.py": "X = 1\n"})
    (mine / ns / "mine").mkdir(parents=True)
    (mine / ns / "mine" / "__init__.py").write_text("Y = 2\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(mine))
    importlib.import_module(f"{ns}.tools")
    importlib.import_module(f"{ns}.mine")
    try:
        assert distributions_of(f"{ns}.tools") == {f"ns-tools-{tag}"}
        assert not is_first_party(f"{ns}.tools")
        assert distributions_of(f"{ns}.mine") == frozenset() and is_first_party(f"{ns}.mine")
    finally:
        for name in [m for m in sys.modules if m.startswith(ns)]:
            del sys.modules[name]


def test_the_trace_does_not_depend_on_what_the_process_imported_before():
    """A module imported inside a traced function runs its top level only once per
    process; the second trace (warm: kernel imported and compiled) must record what the
    first did, so that `certify --registry` gives each entry the certificate it would get
    alone."""
    item = registry.entry("float_safe_laplace")
    first = implementation_of(item.create(), factory=item.create)
    again = implementation_of(item.create(), factory=item.create)
    assert again.hash == first.hash and again.third_party == first.third_party
    assert "privaudit.spec.noise._cks_kernel" in again.modules
    assert {"numba", "llvmlite"} <= set(again.third_party)
