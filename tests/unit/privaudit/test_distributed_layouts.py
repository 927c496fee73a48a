"""Dask audits in other install layouts give the serial report (issue 25).

The Dask executor ships by value the modules the workers cannot import by name
(first-party modules that are not privaudit's own: :mod:`privaudit.first_party`), and
lets the workers import installed distributions by name.  Deciding this from file paths
failed when dask lived outside the interpreter's own directories: with dask on
``PYTHONPATH`` or in a user site directory every dask, distributed, cloudpickle and
tornado module was shipped by value and every audit failed with ``NotShippableError``.

Each layout is built without network: the installed ``dask[distributed]`` distributions
(files and ``.dist-info``, as their ``RECORD`` lists them) are copied to a fresh folder
that is put on ``PYTHONPATH``, or to a fresh user base (``PYTHONUSERBASE``, as ``pip
install --user`` lays it out), so they shadow the environment's copy.  A subprocess then
audits a mechanism defined in a script folder the workers do not see, serially and on a
local cluster of two worker processes; the reports must be identical.  (The layout "dask
installed in the environment" is the one every other Dask test runs in.)
"""

from __future__ import annotations

import json
import os
import shutil
import site as site_module
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from privaudit.trust.provenance import NOT_INSTALLED, _requirements, installed_version

ROOT = Path(__file__).resolve().parents[3]

USER_MECHANISM = """
import numpy as np
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (
    AdditiveNoise, ApproxDP, GlobalSensitivity, Laplace, MechanismSpec, RealInterval,
)
from privaudit.spec.relations import QueryDistance


def sampler(v, n, rng):
    exact = rng.random(n) < 0.01
    return np.where(exact, v, v + rng.laplace(0.0, 1.0, n))


def make():
    spec = MechanismSpec(name="layout_branching", input_domain=RealInterval(lo=0.0, hi=1.0),
                         relation=QueryDistance(norm="l1", radius=1.0),
                         sensitivity=(GlobalSensitivity(value=1.0),),
                         noise=AdditiveNoise(law=Laplace(scale=1.0)),
                         guarantee=ApproxDP(epsilon=1.0, delta=1e-5))
    return declare_mechanism(spec, sampler=sampler, statistic=lambda v: float(v))
"""

SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])          # the workers do not get this folder
import dask, distributed
import user_layout_mech
from privaudit import audit
from privaudit.auditing.config import AuditConfig
from privaudit.execution.distributed import DaskExecutor

cfg = AuditConfig(samples=400_000, search_samples=5_000, pilot_samples=1_000, pair_budget=6,
                  pairs_tested=1, claim_budget=40, seed=3)
mech = user_layout_mech.make()
serial = audit(mech, config=cfg).model_dump(mode="json")
with DaskExecutor(n_workers=2, processes=True) as run:
    on_dask = audit(mech, config=cfg, executor=run).model_dump(mode="json")
serial.pop("runtime_seconds"), on_dask.pop("runtime_seconds")
print(json.dumps({"dask": dask.__file__, "distributed": distributed.__file__,
                  "identical": serial == on_dask, "verdict": on_dask["verdict"]}))
"""


def _dask_distributions() -> list[str]:
    todo, seen = ["distributed", "dask", "cloudpickle"], set()
    while todo:
        name = todo.pop()
        if name in seen or installed_version(name) == NOT_INSTALLED:
            continue
        seen.add(name)
        todo.extend(_requirements(name))
    return sorted(seen)


def _copy_distributions(target: Path) -> None:
    """Copy the files of dask[distributed] and its requirements to ``target``."""
    for name in _dask_distributions():
        dist = metadata.distribution(name)
        for file in dist.files or ():
            source = Path(str(dist.locate_file(file)))
            if ".." in file.parts or not source.is_file():
                continue  # scripts in bin/, files outside the site directory
            dest = target / file
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest)


def _layout(kind: str, tmp: Path) -> tuple[dict[str, str], Path]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONUSERBASE")}
    paths = [str(ROOT)]
    if kind == "pythonpath":
        site = tmp / "pythonpath"
        paths.insert(0, str(site))
    else:  # pip install --user: <userbase>/lib/pythonX.Y/site-packages
        env["PYTHONUSERBASE"] = str(tmp / "userbase")
        site = Path(
            sysconfig.get_path(
                "purelib", f"{os.name}_user", vars={"userbase": env["PYTHONUSERBASE"]}
            )
        )
    _copy_distributions(site)
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env, site


@pytest.mark.slow  # two worker processes start per layout: ~40 s each on a loaded machine
@pytest.mark.parametrize("kind", ["pythonpath", "user-site"])
def test_dask_report_is_the_serial_one_in_another_layout(kind, tmp_path):
    if kind == "user-site" and (sys.prefix != sys.base_prefix or not site_module.ENABLE_USER_SITE):
        pytest.skip("user site directories are off here (a virtual environment)")
    env, site = _layout(kind, tmp_path)
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "user_layout_mech.py").write_text(USER_MECHANISM, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(scripts)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert Path(found["dask"]).resolve().is_relative_to(site.resolve()), found  # the layout
    assert Path(found["distributed"]).resolve().is_relative_to(site.resolve()), found
    assert found["identical"], found  # (the mechanism is a broken one: any verdict will do)
