"""Audits on dask.distributed (privaudit.execution.distributed): same results as the serial
executor.

The fast tests run small ``LocalCluster``s of worker *threads* (``processes=False``: a
worker process takes seconds to start on a shared machine); one slow test runs worker
processes, through ``audit(executor="dask")``.  Every comparison is exact: the counts,
the bounds and the whole report (but its run time) are identical.
"""

from __future__ import annotations

import functools
import pickle
import threading

import numpy as np
import pytest

pytest.importorskip("distributed")

from privaudit.auditing.auditor import audit
from privaudit.auditing.config import AuditConfig
from privaudit.auditing.pairs import verified_pair
from privaudit.execution import distributed as dist
from privaudit.execution import streaming as dist_streaming
from privaudit.execution.distributed import DaskExecutor, executor_scope
from privaudit.execution.streaming import SerialExecutor, block_rows, stream_chunks
from privaudit.interfaces.cli import main
from privaudit.mechanisms import LaplaceMechanism, declare_mechanism
from privaudit.spec import (
    AdditiveNoise,
    ApproxDP,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    RealInterval,
)
from privaudit.spec.errors import (
    ExecutorError,
    InvalidParameterError,
    NotShippableError,
    PrivauditError,
)
from privaudit.spec.relations import QueryDistance

from ._cli_reports import cli_reports
from .distinguish._shared import run_pair_test

#: A small audit whose test split spans two blocks per side (2.6·10⁵ outputs = 1 block).
SMALL = AuditConfig(
    samples=400_000,
    search_samples=5_000,
    pilot_samples=1_000,
    pair_budget=6,
    pairs_tested=1,
    claim_budget=40,
    seed=3,
)


def _threads(n_workers: int) -> DaskExecutor:
    """Worker threads, one block per task (the most tasks, to exercise the ordering)."""
    return DaskExecutor(n_workers=n_workers, processes=False, blocks_per_chunk=1)


def _branching_mechanism(lock: object = None):
    """Laplace noise, the exact value with probability 0.01: (1, 1e-5)-DP claimed."""
    spec = MechanismSpec(
        name="branching",
        input_domain=RealInterval(lo=0.0, hi=1.0),
        relation=QueryDistance(norm="l1", radius=1.0),
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=1.0)),
        guarantee=ApproxDP(epsilon=1.0, delta=1e-5),
    )

    def sampler(v, n, rng):
        if lock is not None:
            with lock:  # type: ignore[attr-defined]  # lock is a threading.Lock here, typed Any-or-None above
                pass
        exact = rng.random(n) < 0.01
        return np.where(exact, v, v + rng.laplace(0.0, 1.0, n))

    return declare_mechanism(spec, sampler=sampler, statistic=lambda v: float(v))


def _outcome(result):
    return (
        result.test_sizes,
        [(e.description, e.count_x, e.count_y) for e in result.events],
        result.epsilon_lower_bound,
        [p.delta_lower_bound for p in result.profile],
    )


@pytest.mark.parametrize(
    "make", [lambda: LaplaceMechanism(1.0, 1.0), _branching_mechanism], ids=["laplace", "branching"]
)
def test_pair_counts_identical_for_1_2_4_workers(make):
    """Three blocks per side, one block per task: the counts of the serial run, exactly."""
    mech = make()
    pair = verified_pair(mech.spec, 0.0, 1.0, "explicit")
    run = functools.partial(
        run_pair_test, mech, pair, samples=600_000, search_samples=5_000, rng=11, alpha=0.05
    )
    serial = _outcome(run())
    assert serial[0][0] > 2 * block_rows(1)
    for n_workers in (1, 2, 4):
        with _threads(n_workers) as ex:
            assert ex.worker_threads == n_workers
            assert _outcome(run(executor=ex)) == serial


def _report_without_time(report):
    out = report.model_dump(mode="json")
    out.pop("runtime_seconds")
    return out


def test_audit_report_identical_on_dask_and_serial():
    mech = LaplaceMechanism(1.0, 1.0)
    serial = audit(mech, config=SMALL)
    with _threads(2) as ex:
        on_dask = audit(mech, config=SMALL, executor=ex)
        assert ex.client is not None  # an executor object is not closed by audit
    assert _report_without_time(on_dask) == _report_without_time(serial)
    assert _report_without_time(
        audit(mech, config=SMALL, executor="serial")
    ) == _report_without_time(serial)


def test_stream_chunks_follows_the_executors_chunk_size():
    class OneBlockPerTask(SerialExecutor):
        blocks_per_chunk = 1

    root = np.random.SeedSequence(2)

    def draw(m, g):
        return g.normal(size=m)

    per_block = list(
        stream_chunks(
            draw, 10, root=root, stream=0, consume=len, rows_per_block=3, executor=OneBlockPerTask()
        )
    )
    assert per_block == [3, 3, 3, 1]
    whole = list(stream_chunks(draw, 10, root=root, stream=0, consume=len, rows_per_block=3))
    assert whole == [10]


def test_map_keeps_the_order_and_ships_the_closure():
    offset = 1000
    with DaskExecutor(n_workers=2, processes=False, max_in_flight=2) as ex:
        assert list(ex.map(lambda i: i * i + offset, range(7))) == [
            i * i + offset for i in range(7)
        ]
        assert list(ex.map(lambda i: i, [])) == []


def test_unpicklable_mechanism_is_refused_by_name():
    mech = _branching_mechanism(lock=threading.Lock())
    with _threads(1) as ex, pytest.raises(NotShippableError, match="'branching'.*lock"):
        audit(mech, config=SMALL, executor=ex)
    with _threads(1) as ex, pytest.raises(NotShippableError, match="cannot be pickled"):
        ex.map(lambda i: mech, [1])


def test_worker_refuses_a_payload_it_cannot_load_or_another_version():
    with pytest.raises(NotShippableError, match="could not unpickle"):
        dist._run_chunk("bad-payload", dist.__version__, b"not a pickle", 0)
    with pytest.raises(ExecutorError, match="same version"):
        dist._run_chunk("old-client", "0.0.0-other", pickle.dumps(len), [1])


def test_executor_scope_resolves_names_and_objects():
    with executor_scope(None) as run:
        assert isinstance(run, SerialExecutor)
    with executor_scope("serial") as run:
        assert isinstance(run, SerialExecutor)
    mine = SerialExecutor()
    with executor_scope(mine) as run:
        assert run is mine
    with pytest.raises(InvalidParameterError, match="'spark'"), executor_scope("spark"):
        pass
    with pytest.raises(InvalidParameterError, match="int"), executor_scope(3):  # type: ignore[arg-type]  # a bad type on purpose
        pass
    with (
        pytest.raises(InvalidParameterError, match="executor='dask'"),
        executor_scope("serial", scheduler="tcp://127.0.0.1:8786"),
    ):
        pass


def test_bad_options_and_unreachable_scheduler():
    with pytest.raises(InvalidParameterError, match="0"):
        DaskExecutor(n_workers=0)
    with pytest.raises(InvalidParameterError, match="''"):
        DaskExecutor("")
    with pytest.raises(InvalidParameterError, match="-1"):
        DaskExecutor(timeout=-1)
    with pytest.raises(ExecutorError, match="tcp://127.0.0.1:9"):
        _ = DaskExecutor("tcp://127.0.0.1:9", timeout=1).client  # connecting raises


def test_missing_extra_names_the_extra(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "distributed", None)
    with pytest.raises(ExecutorError, match=r"privaudit\[distributed\]"):
        DaskExecutor()
    assert issubclass(ExecutorError, PrivauditError)


def test_cli_executor_options(monkeypatch, capsys, tmp_path):
    target = "privaudit.mechanisms:LaplaceMechanism"
    for argv, said in (
        (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler needs --executor dask"),
        (["--workers", "2"], "--workers needs --executor threads, processes or dask"),
        (
            ["--executor", "dask", "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"],
            "cannot go with --scheduler",
        ),
    ):
        with pytest.raises(SystemExit) as stop:
            main(["audit", target, "-q", *argv])
        assert stop.value.code == 2
        assert said in capsys.readouterr().err
    # the local cluster of the CLI, on threads here (processes: the slow test below)
    monkeypatch.setattr(dist, "DaskExecutor", functools.partial(DaskExecutor, processes=False))
    reports = cli_reports(tmp_path, serial=[], dask=["--executor", "dask", "--workers", "2"])
    assert reports["dask"] == reports["serial"]


def test_cli_certify_on_dask_writes_the_serial_certificate(monkeypatch, capsys, tmp_path):
    """``privaudit certify --executor dask``: the same certificate as in-process (threads
    here, as above), and the same option checks as ``audit``."""
    target = "examples/custom_mechanism.py:build_noisy_histogram"
    with pytest.raises(SystemExit) as stop:
        main(["certify", target, "-q", "--workers", "2"])
    assert stop.value.code == 2
    assert "--workers needs --executor threads, processes or dask" in capsys.readouterr().err
    monkeypatch.setattr(dist, "DaskExecutor", functools.partial(DaskExecutor, processes=False))
    common = ["certify", target, "--samples", "100000", "--seed", "5", "-q", "-o"]
    assert main([*common, str(tmp_path / "serial.json")]) == 0
    assert main([*common, str(tmp_path / "dask.json"), "--executor", "dask", "--workers", "2"]) == 0
    import json

    serial, on_dask = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("serial", "dask"))
    for cert in (serial, on_dask):
        for key in ("created", "runtime_seconds"):
            cert.pop(key)
        cert["report"].pop("runtime_seconds")
    assert on_dask == serial


@pytest.mark.slow
def test_worker_processes_give_the_serial_report():
    """``audit(executor="dask")``: a LocalCluster of worker processes, started and closed."""
    mech = _branching_mechanism()
    cfg = SMALL.model_copy(update={"samples": 600_000})
    serial = audit(mech, config=cfg)
    on_dask = audit(mech, config=cfg, executor="dask")
    assert _report_without_time(on_dask) == _report_without_time(serial)


def test_not_shippable_names_the_part_that_cannot_be_pickled():
    """The message names the object that failed and where it sits, not the mechanism as
    a whole, and does not blame the mechanism for what the work around it holds."""
    mech = _branching_mechanism(lock=threading.Lock())
    with _threads(1) as ex, pytest.raises(NotShippableError) as caught:
        ex.check_shippable(mech, "mechanism 'branching'")
    text = str(caught.value)
    assert "mechanism 'branching'." in text and "(captured lock)" in text
    assert "_thread.lock" in text
    handle = threading.Lock()
    fine = LaplaceMechanism(1.0, 1.0)
    with _threads(1) as ex, pytest.raises(NotShippableError) as caught:
        ex.map(lambda i: (fine, handle, i), [1])
    text = str(caught.value)
    assert "(captured handle) is a _thread.lock" in text and "captured fine" not in text


def test_task_size_follows_the_split_and_the_workers():
    """≈ 4 tasks per worker thread, 1 to 16 blocks each: a split of 10⁷ scalar draws
    (39 blocks) on 2 workers is 8 tasks, not the 3 uneven ones of a fixed 16."""
    with DaskExecutor(n_workers=2, processes=False) as ex:
        assert [ex.blocks_for(n) for n in (1, 8, 39, 128, 10_000)] == [1, 1, 5, 16, 16]
        chunks = [
            len(c)
            for c in dist_streaming.plan_chunks(
                10_000_000,
                stream=0,
                rows_per_block=block_rows(1),
                chunk_rows=ex.blocks_for(39) * block_rows(1),
            )
        ]
        assert len(chunks) == 8 and max(chunks) - min(chunks) <= 4
    with DaskExecutor(n_workers=1, processes=False, blocks_per_chunk=3) as ex:
        assert ex.blocks_for(1000) == 3


def test_only_first_party_modules_outside_privaudit_are_shipped_by_value(tmp_path, monkeypatch):
    """A distribution on a PYTHONPATH-like folder is imported by name on the workers; a
    user's module that no distribution provides is shipped by value; ours never is."""
    import importlib
    import uuid

    import cloudpickle

    tag = uuid.uuid4().hex[:8]
    lib, user = tmp_path / "lib", tmp_path / "user"
    (lib / f"thirdlib_{tag}").mkdir(parents=True)
    (lib / f"thirdlib_{tag}" / "__init__.py").write_text("X = 1\n")
    info = lib / f"thirdlib_{tag}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: thirdlib-{tag}\nVersion: 1.0\n")
    (info / "RECORD").write_text(f"thirdlib_{tag}/__init__.py,,\n{info.name}/METADATA,,\n")
    user.mkdir()
    (user / f"usermod_{tag}.py").write_text("Y = 2\n")
    monkeypatch.syspath_prepend(str(lib))
    monkeypatch.syspath_prepend(str(user))
    third = importlib.import_module(f"thirdlib_{tag}")
    mine = importlib.import_module(f"usermod_{tag}")
    dist._register_scripts_by_value(cloudpickle)
    registered = cloudpickle.cloudpickle._PICKLE_BY_VALUE_MODULES
    try:
        assert mine.__name__ in registered
        assert third.__name__ not in registered
        assert not any(
            name.split(".")[0]
            in ("privaudit", "dask", "distributed", "tornado", "cloudpickle", "numpy")
            for name in registered
        )
    finally:
        for module in (mine, third):
            if module.__name__ in registered:
                cloudpickle.unregister_pickle_by_value(module)


def test_a_chunk_histogram_pickles_small_and_whole():
    """A chunk's loss histogram travels from a worker with its touched bins only (it
    carried ≈ 2.7·10⁵ bins and 20 MB of work buffers per task before)."""
    from privaudit.auditing.distinguish.privacy_loss import LossHistogram

    hist = LossHistogram(np.linspace(0.0, 2.0, 50))
    hist.add(np.random.default_rng(0).laplace(0.0, 0.3, 2_000_000))
    data = pickle.dumps(hist)
    back = pickle.loads(data)
    assert len(data) < hist.counts.nbytes / 5  # the touched stretch, not every bin
    assert np.array_equal(back.counts, hist.counts) and back.n == hist.n == 2_000_000
    assert (back.first_touched, back.stop_touched) == (hist.first_touched, hist.stop_touched)
    back.merge(hist)
    assert back.n == 4_000_000
